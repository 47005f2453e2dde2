"""Reconstruction track: claims hold on as_of and cite exactly the user turns that carry their fact; the
portrait has every slot, composed from its claims."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from schemas.companion import PORTRAIT_SLOTS
from schemas.corpus import REALIZED_MODES, Turn
from tasks.common.facttext import carries, mentions
from tasks.companion.reconstruction import claim_text, reconstruct, slot_of, temporality_of
from tests.tasks.companion.test_probes import built, simulated
from tests.tasks.worldfixture import make_persona
from tests.tasks.worldfixture import make_world as fixture_world


def test_claims_hold_at_the_end_and_cite_the_turns_that_carry_their_fact():
    config, persona, world, corpus = simulated(45, 0.15)
    claims = [c for c in built().claims if c.slot != "communication"]
    facts = {f.fact_id: f for f in world.facts}
    turns = {t.turn_id: t for t in corpus.turns}
    assert len(claims) > 10
    for c in claims:
        fact = facts[c.fact_ids[0]]
        assert c.as_of == config.end_date
        assert fact.valid_from <= c.as_of and (fact.valid_to is None or c.as_of < fact.valid_to)
        assert (c.subject, c.attribute, c.value) == (fact.subject, fact.attribute, fact.value)
        assert all((facts[i].subject, facts[i].attribute, facts[i].value) == (c.subject, c.attribute, c.value)
                   for i in c.fact_ids)  # a routine's same value on several days is one claim
        carrying = {t.turn_id for t in corpus.turns if t.role == "user" and set(c.fact_ids) & set(t.fact_ids)}
        assert sorted(c.evidence_turn_ids) == sorted(carrying)
        said_otherwise = {m.evidence_id for m in corpus.mentions if m.fact_id in c.fact_ids and m.counts
                          and m.mode in REALIZED_MODES and m.span and mentions(turns[m.evidence_id].text, m.span)}
        assert all(carries(turns[t].text, fact) or t in said_otherwise for t in c.evidence_turn_ids)
        stamps = [turns[t].timestamp for t in c.evidence_turn_ids]
        assert (c.first_seen, c.last_seen) == (min(stamps), max(stamps))
        assert c.confidence == min(1.0, round(0.6 + 0.15 * (len(stamps) - 1), 2))
        assert fact.value in c.text
    told = {f for t in corpus.turns if t.role == "user" for f in t.fact_ids}
    holding = {f.fact_id for f in world.facts if f.fact_id in told and f.valid_from <= config.end_date
               and (f.valid_to is None or config.end_date < f.valid_to)}
    assert {i for c in claims for i in c.fact_ids} == holding
    assert set(Counter(c.temporality for c in claims)) >= {"stable", "transient"}


def test_portrait_has_every_slot_composed_from_its_claims():
    _, persona, _, _ = simulated(45, 0.15)
    result = built()
    assert [s.slot for s in result.portrait] == list(PORTRAIT_SLOTS)
    by_id = {c.claim_id: c for c in result.claims}
    for s in result.portrait:
        assert [by_id[i].slot for i in s.claim_ids] == [s.slot] * len(s.claim_ids)
        assert s.text == " ".join(by_id[i].text for i in s.claim_ids)
    assert sum(len(s.claim_ids) for s in result.portrait) == len(result.claims)


def test_superseded_and_untold_facts_make_no_claim_and_slots_follow_the_documented_map():
    persona, world = make_persona(), fixture_world()
    facts = {f.fact_id: f for f in world.facts}
    boston = next(f for f in world.facts if f.value == "Boston")
    cambridge = next(f for f in world.facts if f.value == "Cambridge")
    stamp = dt.datetime(2024, 3, 8, 12, tzinfo=dt.UTC)
    turns = [Turn(turn_id=f"p0001-s0001-t0{i}", session_id="p0001-s0001", persona_id="p0001", role="user",
                  timestamp=stamp.replace(minute=i), text=f"I live in {f.value}.", fact_ids=[f.fact_id])
             for i, f in enumerate((boston, cambridge), start=1)]
    claims, portrait = reconstruct(persona, world.facts, turns, cambridge.valid_from)
    assert [c.fact_ids for c in claims if c.slot != "communication"] == [[cambridge.fact_id]]
    assert claims[0].slot == "home" and claims[0].evidence_turn_ids == ["p0001-s0001-t02"]
    assert [s.text for s in portrait if s.claim_ids and s.slot != "communication"] == ["Maya's city is Cambridge."]
    brother = next(f for f in world.facts if f.subject == "Daniel Okafor")
    assert slot_of(brother, persona) == "relationships"
    assert cambridge.valid_to is None and temporality_of(facts[cambridge.fact_id], "home") == "stable"
    assert temporality_of(boston.model_copy(update={"valid_to": cambridge.valid_from}), "home") == "transient"


def test_temporality_follows_the_attribute_kind_not_the_slot():
    persona, world = make_persona(), fixture_world()
    city = next(f for f in world.facts if f.value == "Cambridge")
    kinds = {"work.job_offer_status": ("withdrawn", "event"), "news": ("started a podcast", "event"),
             "last_hobby_session": ("a long run", "event"), "employer": ("unemployed", "transient"),
             "tip": ("stretch first", "event"), "pet": ("Biscuit", "stable")}
    for attribute, (value, expected) in kinds.items():
        fact = city.model_copy(update={"attribute": attribute, "value": value, "event_id": "p0001-e0003"})
        assert temporality_of(fact, slot_of(fact, persona)) == expected, attribute


def test_claim_text_does_not_double_the_verb():
    persona, world = make_persona(), fixture_world()
    fact = next(f for f in world.facts if f.subject == "Daniel Okafor").model_copy(
        update={"attribute": "news", "value": "is opening a bookshop"})
    assert claim_text(fact, persona) == "Daniel Okafor's news is opening a bookshop."


def test_communication_slot_cites_the_turns_that_show_the_style():
    _, persona, _, corpus = simulated(45, 0.15)
    turns = {t.turn_id: t for t in corpus.turns}
    style = persona.profile.personality.communication
    comm = [c for c in built().claims if c.slot == "communication"]
    assert {c.attribute for c in comm} >= {"communication.formality", "communication.verbosity"}
    for c in comm:
        assert c.fact_ids == [] and c.temporality == "stable" and 1 <= len(c.evidence_turn_ids) <= 10
        assert all(turns[t].role == "user" for t in c.evidence_turn_ids)
        if c.attribute == "communication.vocabulary":
            assert c.value in style.vocabulary
            assert all(c.value.lower() in turns[t].text.lower() for t in c.evidence_turn_ids)
