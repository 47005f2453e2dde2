"""Fact generators on a hand-built world: known answers, answers fixed at asked_at, no leaks, determinism."""

from __future__ import annotations

import datetime as dt

from tasks.common.facttext import carries, mentions
from tasks.questions import GENERATORS
from tasks.questions.generators.fact import (
    entity_disambiguation,
    multi_hop_traversal,
    negative_constraints,
    state_dependent_attribute,
)
from tasks.world.ontology import ATTRIBUTES
from tests.tasks.qgen_world import ME, add_fact, build_corpus, build_world, by_question, context, on
from tests.tasks.worldfixture import PID

FACT = ("multi_hop_traversal", "entity_disambiguation", "state_dependent_attribute", "negative_constraints")


def one(candidates, question, asked_at=None):
    found = [c for c in by_question(candidates, question) if c.asked_at == asked_at]
    assert len(found) == 1, [c.question for c in candidates]
    return found[0]


def value_at(world, subject, attribute, day):
    """Brute-force fact-store lookup, independent of the module under test."""
    valid = sorted((f.valid_from, f.value) for f in world.facts if (f.subject, f.attribute) == (subject, attribute)
                   and f.valid_from <= day and (f.valid_to is None or day < f.valid_to))
    if ATTRIBUTES[attribute].event:  # what happened at events accumulates: the latest is the most recent
        return valid[-1][1]
    assert len(valid) == 1
    return valid[0][1]


def test_at_event_asks_the_value_an_attribute_held_when_another_event_happened_and_has_since_changed():
    ctx = context()
    cands = [c for c in state_dependent_attribute(ctx) if c.template == "fact.state_dependent_attribute.at_event"]
    lunch = one(cands, "Which café was Maya's favourite when Maya had lunch with Noor Kobayashi from the kitchen?")
    assert lunch.answer == "Café Lumen" and "Daily Grind" in lunch.distractors  # the value now is a distractor
    (event_id,) = lunch.extra["event_ids"]
    event, then = ctx.events[event_id], ctx.facts[lunch.fact_ids[0]]
    assert event.date == on("01-12") and then.valid_from <= event.date < then.valid_to
    assert set(lunch.fact_ids[1:]) == {f.fact_id for f in ctx.world.facts if f.event_id == event_id}
    assert all(ctx.evidence_for(fid) for fid in lunch.fact_ids)  # evidence on the value's fact and the event's
    for c in cands:
        day = ctx.events[c.extra["event_ids"][0]].date
        fact = ctx.facts[c.fact_ids[0]]
        assert c.answer == value_at(ctx.world, ME, fact.attribute, day) != value_at(ctx.world, ME, fact.attribute,
                                                                                    ctx.day)
        assert fact.attribute not in {f.attribute for f in ctx.world.facts if f.event_id == event.event_id}
    # the event that changed the favourite café is no moment to ask it at; nor a day within a week of a change
    assert not any("tried Blue Door Coffee" in c.question for c in cands if "café" in c.question)
    assert not by_question(cands, "Which café was Maya's favourite when Maya tried Bean There on Harbour Street?")


def test_generators_are_registered():
    assert all(f"fact.{name}" in GENERATORS for name in FACT)


def test_state_dependent_attribute_answers_the_current_value_now_and_before_each_change():
    ctx = context()
    cands = state_dependent_attribute(ctx)
    now = one(cands, "Which café is Maya's favourite now?")
    assert now.answer == "Daily Grind" and now.priority == 0
    assert {"Blue Door Coffee", "Café Lumen"} <= set(now.distractors)
    assert now.extra["superseded_fact_ids"] and now.extra["answer_rule"] == "current_value"
    before = one(cands, "Which café is Maya's favourite now?", ctx.asked_at.replace(month=2, day=3))
    assert before.answer == "Café Lumen"
    after = one(cands, "Which café is Maya's favourite now?", ctx.asked_at.replace(month=2, day=7))
    assert after.answer == "Blue Door Coffee"  # three days after the change
    assert [c.template.rsplit(".", 1)[-1] for c in (now, before, after)] == ["now", "before_change", "after_change"]
    for c in cands:
        day = (c.asked_at or ctx.asked_at).date()
        if c.template.endswith(".at_event"):  # the value on the day of another event (the test below)
            day = ctx.events[c.extra["event_ids"][0]].date
        fact = ctx.facts[c.fact_ids[0]]
        assert c.answer == value_at(ctx.world, fact.subject, fact.attribute, day)
    # an attribute that never changed is not asked
    assert not by_question(cands, "Which city does Maya live in now?")


def test_state_answer_is_fixed_at_asked_at():
    ctx = context()
    mid = ctx.asked_at.replace(month=2, day=3)
    base = {(c.question, c.asked_at): c.answer for c in state_dependent_attribute(ctx)}
    # a change after the default question time, and a later value rewritten after the mid-timeline question
    world = add_fact(build_world(), ME, "favourite_cafe", "Moka House", on("05-10"))
    world = world.model_copy(update={"facts": [
        f.model_copy(update={"value": "Two Sparrows", "surface_forms": ["Two Sparrows"]}) if f.value == "Daily Grind"
        else f for f in world.facts]})
    later = context(world, build_corpus(ctx.persona, world))
    again = {(c.question, c.asked_at): c.answer for c in state_dependent_attribute(later)}
    assert again[("Which café is Maya's favourite now?", mid)] == "Café Lumen"
    assert again[("Which café is Maya's favourite now?", None)] == "Two Sparrows"  # the rewritten fact, not Moka
    # every question asked before the rewritten fact began (03-25) keeps its answer
    early = {k: v for k, v in base.items() if k[1] is not None and k[1].date() < on("03-25")}
    assert early and all(again[k] == v for k, v in early.items())


def test_entity_disambiguation_names_one_namesake_by_a_cue():
    cands = entity_disambiguation(context())
    brother = one(cands, "What is Maya's brother Daniel doing at home these days?")
    assert brother.answer == "repainting the kitchen yellow"
    assert brother.distractors[0] == "re-tiling the bathroom"  # the namesake's (the manager's) home project
    assert brother.extra["resolved_entity"] == "Daniel Okafor" and brother.extra["confusable_with"] == ["Daniel Reyes"]
    manager = one(cands, "What is Maya's manager Daniel doing at home these days?")
    assert manager.answer == "re-tiling the bathroom"
    kitchen = one(cands, "What did Noor from the kitchen most recently recommend to Maya?")
    assert kitchen.answer == "a good dentist"
    team = one(cands, "Which team is the Noor who recommended a podcast on budgeting to Maya on?")
    assert team.answer == "front desk" and team.distractors[0] == "the kitchen"


def told_apart(ctx=None):
    """The fixture's corpus with the relation said only where the relationship is: a turn about the brother's
    life says "Daniel Okafor has started ...", not "my brother Daniel Okafor has started ..." (which answers a
    two-hop question in one sentence)."""
    ctx = ctx or context()
    rel = {f.fact_id for f in ctx.world.facts if f.attribute == "relationship"}
    turns = [t if set(t.fact_ids) & rel else t.model_copy(update={"text": t.text.replace("my brother ", "")})
             for t in ctx.corpus.turns]
    return context(ctx.world, ctx.corpus.model_copy(update={"turns": turns}))


def test_multi_hop_chains_two_facts_and_cites_the_link():
    # where one sentence says both ("my brother Daniel Okafor has started ..."), the first hop is not needed:
    # such a chain is marked and asked only after those whose every hop is
    said_together = [c for c in multi_hop_traversal(context()) if "brother" in c.question]
    assert said_together and all(not c.extra["hops_needed"] and c.priority >= 3 for c in said_together)
    ctx = told_apart()
    cands = multi_hop_traversal(ctx)
    brother = one(cands, "What is Maya's brother doing at home these days?")
    assert brother.answer == "repainting the kitchen yellow"  # superseding "building a shed"
    link = ctx.facts[brother.extra["link_fact_id"]]
    assert link.value == "brother" and link.fact_id in brother.fact_ids
    assert any(r.fact_id == link.fact_id for r in brother.evidence)
    kitchen = one(cands, "What did the colleague from the kitchen most recently recommend to Maya?")
    assert kitchen.answer == "a good dentist"
    tip = one(cands, "Which team is the colleague who recommended a good dentist to Maya on?")
    assert tip.answer == "the kitchen"
    # the friend hosted for the football final: her move IS that visit's fact, so no second hop
    assert not [c for c in cands if "football final" in c.question]


def test_each_hop_is_needed_and_said_in_its_own_session():
    """The hop-removal test: without the turns that say who the brother is, or without those that say what he
    is doing, the question is not asked; with both, they are in different sessions."""
    ctx = told_apart()
    question = "What is Maya's brother doing at home these days?"
    brother = one(multi_hop_traversal(ctx), question)
    link = brother.extra["link_fact_id"]
    said = {r.item_id: ctx.source(r) for r in brother.evidence}
    linked = {said[r.item_id] for r in brother.evidence if r.fact_id == link}
    answered = {said[r.item_id] for r in brother.evidence if r.fact_id != link}
    assert linked and answered and not linked & answered
    assert brother.extra["hop_sources"] == {"link": sorted(linked), "answer": sorted(answered)}
    assert brother.extra["hops_needed"] is True
    for hop in (lambda r: r.fact_id == link, lambda r: r.fact_id != link):
        gone = {r.item_id for r in brother.evidence if hop(r)}
        turns = [t for t in ctx.corpus.turns if t.turn_id not in gone]
        cut = context(ctx.world, ctx.corpus.model_copy(update={"turns": turns}))
        assert not by_question(multi_hop_traversal(cut), question)


def test_a_link_nobody_claims_is_cited_through_items_that_carry_it():
    ctx = told_apart()
    rel = {f.fact_id for f in ctx.world.facts if f.attribute == "relationship"}
    turns = [t.model_copy(update={"fact_ids": [f for f in t.fact_ids if f not in rel]}) for t in ctx.corpus.turns]
    bare = context(ctx.world, ctx.corpus.model_copy(update={"turns": turns}))
    brother = one(multi_hop_traversal(bare), "What is Maya's brother doing at home these days?")
    cited = [r for r in brother.evidence if r.fact_id == brother.extra["link_fact_id"]]
    texts = {t.turn_id: t.text for t in turns}
    assert cited and all(carries(texts[r.item_id], bare.facts[r.fact_id]) for r in cited)


def test_negative_constraints_asks_for_the_one_plan_that_failed():
    cands = negative_constraints(context())
    cafe = one(cands, "Which café that Maya tried in February 2024 did Maya NOT like?")
    assert cafe.answer == "Bean There" and cafe.distractors[0] == "Blue Door Coffee"
    # March had two failed weekly shops: ambiguous, so not asked
    assert not [c for c in cands if "weekly shop in March" in c.question]


def test_no_answer_in_its_question_and_evidence_precedes_the_question():
    ctx = context()
    for name in FACT:
        cands = GENERATORS[f"fact.{name}"](ctx)
        assert cands, name
        for c in cands:
            assert c.category == "fact" and c.characteristics[0] == name
            assert not mentions(c.question, c.answer) or c.extra.get("options_in_question"), c.question
            at = c.asked_at or ctx.asked_at
            stamps = {t.turn_id: t.timestamp for t in ctx.corpus.turns}
            assert all(stamps[r.item_id] < at for r in c.evidence)
            assert all(ctx.evidence_for(f, at) for f in c.fact_ids[:1])
            assert c.answer not in c.distractors


def test_deterministic_for_a_seed():
    for name in FACT:
        first = GENERATORS[f"fact.{name}"](context(seed=5))
        second = GENERATORS[f"fact.{name}"](context(seed=5))
        assert first == second


def test_asked_at_is_always_after_the_evidence_and_before_the_default_time():
    ctx = context()
    for c in state_dependent_attribute(ctx):
        if c.asked_at is not None:
            assert c.asked_at < ctx.asked_at
            assert ctx.evidence_for(c.fact_ids[0], c.asked_at)
            assert c.asked_at.date() >= dt.date(2024, 1, 2)


def test_a_change_made_for_a_reason_is_asked_why_and_the_reason_is_another_event():
    lumen = ("Café Lumen", ["Café Lumen"])
    events = {
        1: ("01-05", "new_cafe", "positive", "try Café Lumen", {"cafe": "Café Lumen"},
            [(ME, "favourite_cafe", *lumen)]),
        2: ("02-01", "cafe_visit", "negative", "stop by Café Lumen for a cortado",
            {"cafe": "Café Lumen", "problem": "cold coffee and a long wait"},
            [(ME, "bad_visit", "cold coffee and a long wait at Café Lumen", ["cold coffee and a long wait"])]),
        3: ("02-10", "new_cafe", "positive", "try Daily Grind",
            {"cafe": "Daily Grind", "cause_event": f"{PID}-e0002", "cause": "a bad visit at Café Lumen"},
            [(ME, "favourite_cafe", "Daily Grind", ["Daily Grind"])]),
        4: ("02-12", "weekly_shop", "positive", "do the weekly shop at Maple Grocers", {"market": "Maple Grocers"},
            [(ME, "grocery_shop", "Maple Grocers", ["Maple Grocers"])]),
        5: ("03-01", "move_flat", "positive", "move to 8 Birch Road", {"address": "8 Birch Road"},
            [(ME, "home", "flat at 8 Birch Road", ["8 Birch Road"])]),
        6: ("03-08", "weekly_shop", "positive", "do the weekly shop at FreshMart",
            {"market": "FreshMart", "cause_event": f"{PID}-e0005", "cause": "the move to 8 Birch Road"},
            [(ME, "grocery_shop", "FreshMart", ["FreshMart"])]),
        7: ("03-20", "new_cafe", "positive", "try Blue Door Coffee", {"cafe": "Blue Door Coffee"},  # no reason
            [(ME, "favourite_cafe", "Blue Door Coffee", ["Blue Door Coffee"])]),
    }
    world = build_world(events)
    ctx = context(world)
    cands = [c for c in multi_hop_traversal(ctx) if c.template == "fact.multi_hop_traversal.cause"]
    assert sorted(c.question for c in cands) == ["Why did Maya stop doing the weekly shop at Maple Grocers?",
                                               "Why is Café Lumen no longer Maya's favourite café?"]
    cafe = one(cands, "Why is Café Lumen no longer Maya's favourite café?")
    assert cafe.answer == "a bad visit at Café Lumen" and "the move to 8 Birch Road" in cafe.distractors
    bad = next(f for f in world.facts if f.attribute == "bad_visit")
    assert bad.fact_id in cafe.fact_ids and any(r.fact_id == bad.fact_id for r in cafe.evidence)
    assert cafe.extra["cause_event_id"] == f"{PID}-e0002"
    shop = one(cands, "Why did Maya stop doing the weekly shop at Maple Grocers?")
    assert shop.answer == "the move to 8 Birch Road"
