"""How turns mention facts: planned paraphrases, recorded mentions, the mode shares' config."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from schemas.config import DialogueOptions
from schemas.world import Event, Fact, Plan
from tasks.common.facttext import carries, mentions
from tasks.dialogue.mentions import paraphrase, planned
from tests.tasks.worldfixture import PID, make_config, make_corpus, make_persona, make_world


def dinner_world():
    world = make_world()
    day = world.events[-1].date + dt.timedelta(days=1)
    plan = Plan(plan_id=f"{PID}-pl0006", persona_id=PID, created_on=day, horizon="short", scheduled_for=day,
                title="have dinner at Luigi's with Ann", kind="dinner_out",
                entity={"dish": "mushroom risotto", "restaurant": "Luigi's", "companion": "Ann"})
    event = Event(event_id=f"{PID}-e0006", persona_id=PID, date=day, plan_id=plan.plan_id, kind="dinner_out",
                  valence="positive", severity=1, critical=False, narrative="I had mushroom risotto at Luigi's.")
    fact = Fact(fact_id=f"{PID}-f0010", persona_id=PID, event_id=event.event_id, subject="Maya Okafor",
                attribute="dinner_out", value="mushroom risotto at Luigi's", valid_from=day,
                surface_forms=["mushroom risotto at Luigi's", "Luigi's"])
    return world.model_copy(update={"plans": world.plans + [plan], "events": world.events + [event],
                                    "facts": world.facts + [fact]}), fact


def test_a_paraphrase_says_every_part_of_the_value_but_never_the_value_itself():
    world, fact = dinner_world()
    for pick in (0.0, 0.99):
        r = paraphrase(fact, make_persona(), world, pick)
        assert r is not None and r.mode == "paraphrased"
        assert not mentions(r.clause, fact.value), r.clause
        assert all(mentions(r.clause, p) for p in ("mushroom risotto", "Luigi's")) and carries(r.clause, fact)


def test_facts_without_frames_or_plan_fields_have_no_paraphrase():
    world = make_world()
    persona = make_persona()
    assert all(paraphrase(f, persona, world, 0.5) is None for f in world.facts)  # background, no frames


def test_the_paraphrase_share_is_a_knob():
    world, fact = dinner_world()
    persona = make_persona()
    never = make_config(stages={"dialogue": {"mention_modes": {"paraphrased": 0.0}}})
    always = make_config(stages={"dialogue": {"mention_modes": {"paraphrased": 1.0}}})
    assert planned(never, persona, world, [fact], "b1", fact.valid_from) == [None]
    (r,) = planned(always, persona, world, [fact], "b1", fact.valid_from)
    assert r is not None and r.fact_id == fact.fact_id


def test_mode_shares_outside_what_the_narrators_realize_are_refused():
    with pytest.raises(ValidationError, match="cannot be set"):
        DialogueOptions(mention_modes={"hypothetical": 0.1})
    with pytest.raises(ValidationError, match="between 0 and 1"):
        DialogueOptions(mention_modes={"paraphrased": 1.5})


def test_every_recorded_mention_is_in_its_turn_and_every_claimed_fact_has_one():
    corpus = make_corpus()
    texts = {t.turn_id: t.text for t in corpus.turns} | {c.chunk_id: c.text for c in corpus.chunks}
    facts = {f.fact_id: f for f in make_world().facts}
    assert {m.evidence_kind for m in corpus.mentions} == {"turn", "chunk"}
    for m in corpus.mentions:
        text = texts[m.evidence_id]
        assert m.mention_id.startswith(m.evidence_id + "-m")
        assert m.span is None or mentions(text, m.span)
        assert not m.counts or carries(text, facts[m.fact_id])
    counted = {(m.evidence_id, m.fact_id) for m in corpus.mentions if m.counts}
    assert all((t.turn_id, f) in counted for t in corpus.turns for f in t.fact_ids)
    assert all((c.chunk_id, f) in counted for c in corpus.chunks for f in c.fact_ids)
    refs = {(m.evidence_id, m.fact_id) for m in corpus.mentions if m.mode == "reference"}
    named = {(t.turn_id, f) for t in corpus.turns for f in t.paraphrase_ids}
    assistant = {t.turn_id for t in corpus.turns if t.role == "assistant"}
    assert named <= refs and all(tid in assistant for tid, _ in refs - named)  # a reply naming a told fact
