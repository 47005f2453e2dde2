"""Temporal generators on a hand-built world: known answers, answers fixed at asked_at, no leaks, determinism."""

from __future__ import annotations

import re

from tasks.common.facttext import mentions
from tasks.questions import GENERATORS
from tasks.questions.generators.temporal import (
    implicit_temporal_lookup,
    indirect_identification,
    long_horizon_synthesis,
    sequence_comprehension,
)
from tests.tasks.qgen_world import EVENTS, ME, add_fact, build_corpus, build_world, by_question, context

TEMPORAL = ("indirect_identification", "sequence_comprehension", "long_horizon_synthesis", "implicit_temporal_lookup")


def one(candidates, question):
    found = by_question(candidates, question)
    assert len(found) == 1, [c.question for c in candidates]
    return found[0]


def later_world():
    """The fixture plus, after the question day, a second "try Café Lumen" event and a new favourite café."""
    events = dict(EVENTS)
    events[30] = ("05-04", "new_cafe", "positive", "try Café Lumen on Elm Road", {"cafe": "Café Lumen"},
                  [(ME, "favourite_cafe", "Café Lumen", ["Café Lumen"])])
    events[31] = ("05-05", "weekly_shop", "positive", "do the weekly shop at Maple Grocers",
                  {"market": "Maple Grocers"}, [(ME, "grocery_shop", "Maple Grocers", ["Maple Grocers"])])
    return build_world(events)


def answers(fn, ctx):
    return {(c.question, c.asked_at): c.answer for c in fn(ctx)}


def test_generators_are_registered():
    assert all(f"temporal.{name}" in GENERATORS for name in TEMPORAL)


def test_indirect_identification_finds_the_event_by_its_neighbour():
    cands = indirect_identification(context())
    nxt = one(cands, "What did Maya do on the day after Maya set out to try Blue Door Coffee on Willow Crescent?")
    assert nxt.answer == "do the weekly shop at Maple Grocers"
    shop = one(cands, "Where did Maya do the weekly shop in the week after Maya set out to try Blue Door Coffee on "
                      "Willow Crescent?")
    assert shop.answer == "Maple Grocers" and "Fresh Market" in shop.distractors
    before = one(cands, "Which café did Maya try in the week before Maya set out to have lunch with Noor Kobayashi "
                        "from the kitchen?")
    assert before.answer == "Café Lumen"
    # the three lunches with Noor Gonzales share a title: never an anchor
    assert not [c for c in cands if "Noor Gonzales from front desk?" in c.question]


def test_sequence_comprehension_answers_the_earliest_and_names_the_options():
    ctx = context()
    cands = sequence_comprehension(ctx)
    assert cands and all(c.extra["options_in_question"] for c in cands)
    dates = {e.event_id: e.date for e in ctx.world.events}
    for c in cands:
        ids = c.extra["event_ids"]
        assert len({dates[i] for i in ids}) == len(ids)
        assert ids == sorted(ids, key=lambda i: dates[i])
        assert c.template.endswith({"last": ".last"}.get(c.extra["asks"], ".pair" if len(ids) == 2 else ".triple"))
        assert all(mentions(c.question, d) for d in c.distractors) and mentions(c.question, c.answer)
    assert any(len(c.extra["event_ids"]) == 3 for c in cands)
    assert not [c for c in cands if "Noor Gonzales" in c.question]  # duplicate titles are never options
    [pair] = [c for c in cands if "first: try Blue Door Coffee on Willow Crescent or host Priya Shah for the "
              "football final?" in c.question]
    assert pair.question.startswith(("Which did Maya do first:", "Which of these did Maya do first:",
                                     "What did Maya do first:"))
    assert pair.answer == "try Blue Door Coffee on Willow Crescent"
    last = [c for c in cands if c.extra["asks"] == "last"]
    # plan titles are base-form verb phrases, which `do` takes: never "Of try ..., which did Maya do last?"
    assert last and all(re.match(r"(Which|Which of these|What) did Maya do last: .+, .+, or .+\?$", c.question)
                        for c in last)
    from tasks.questions.generators.kit import stories

    title = {s.event.event_id: s.title for s in stories(ctx)}
    for c in last:  # the answer is the latest of the three, the two earlier ones its distractors
        ids = c.extra["event_ids"]
        assert c.answer == title[ids[-1]] and set(c.distractors) == {title[i] for i in ids[:-1]}


def test_sequence_option_order_is_seeded():
    a = [c.question for c in sequence_comprehension(context(seed=1))]
    b = [c.question for c in sequence_comprehension(context(seed=1))]
    orders = {tuple(c.question for c in sequence_comprehension(context(seed=s))) for s in range(6)}
    assert a == b and len(orders) > 1


def test_long_horizon_synthesis_spans_months():
    cands = long_horizon_synthesis(context())
    span = one(cands, "About how many months passed between the day Maya set out to do the weekly shop at Maple "
                      "Grocers and the day Maya set out to do the weekly shop at FreshMart?")
    assert span.answer == "2 months" and "3 months" in span.distractors
    held = one(cands, "For about how many months was Maple Grocers Maya's usual shop for the weekly shop?")
    assert held.answer == "2 months"
    change = one(cands, "What was Maya's home in January 2024, and what was it in April 2024?")
    assert change.answer == "flat at 82 Elm Road, then flat at 95 Rua das Flores"
    assert change.distractors[0] == "flat at 95 Rua das Flores, then flat at 82 Elm Road"


def test_implicit_temporal_lookup_dates_an_event_named_by_its_effect():
    cands = implicit_temporal_lookup(context())
    lumen = one(cands, "On what date did Café Lumen stop being Maya's favourite café?")
    assert lumen.answer == "2024-02-04" and lumen.priority == 0
    assert "2024-02-03" in lumen.distractors and all(len(d) == 10 for d in lumen.distractors)
    flat = one(cands, "On what date did the flat at 82 Elm Road stop being Maya's home?")
    assert flat.answer == "2024-03-25"
    assert lumen.template == "temporal.implicit_temporal_lookup.change"
    start = one(cands, "On what date did Blue Door Coffee become Maya's favourite café?")
    assert start.answer == lumen.answer and start.template == "temporal.implicit_temporal_lookup.start"
    title = one(cands, "On what date did Maya host Priya Shah for the football final?")
    assert title.answer == "2024-02-14" and title.extra["event_ids"] == ["p0001-e0008"]


def test_events_after_asked_at_change_no_answer():
    ctx = context()
    world = later_world()
    later = context(world, build_corpus(ctx.persona, world))
    for fn in (indirect_identification, sequence_comprehension, long_horizon_synthesis, implicit_temporal_lookup):
        assert answers(fn, later) == answers(fn, ctx), fn.__name__
    changed = add_fact(build_world(), ME, "home", "flat at 9 Canal Street", ctx.day)
    assert answers(long_horizon_synthesis, context(changed, build_corpus(ctx.persona, changed))) == answers(
        long_horizon_synthesis, ctx)


def test_no_answer_in_its_question_and_evidence_is_there():
    ctx = context()
    for name in TEMPORAL:
        cands = GENERATORS[f"temporal.{name}"](ctx)
        assert cands, name
        for c in cands:
            assert c.category == "temporal" and c.characteristics[0] == name
            assert not mentions(c.question, c.answer) or c.extra.get("options_in_question"), c.question
            assert all(ctx.evidence_for(f, c.asked_at or ctx.asked_at) for f in c.fact_ids)
            assert c.answer not in c.distractors


def test_deterministic_for_a_seed():
    for name in TEMPORAL:
        assert GENERATORS[f"temporal.{name}"](context(seed=3)) == GENERATORS[f"temporal.{name}"](context(seed=3))
