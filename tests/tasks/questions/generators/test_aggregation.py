"""Aggregation generators on hand-built worlds: known answers, every instance cited, answers fixed at asked_at,
no leaks, determinism."""

from __future__ import annotations

from tasks.common.facttext import mentions
from tasks.questions import GENERATORS
from tasks.questions.generators.aggregation import (
    absence_detection,
    conditional_counting,
    extreme_value,
    trend_analysis,
)
from tests.tasks.qgen_world import EVENTS, ME, build_corpus, build_world, by_question, context

AGGREGATION = ("conditional_counting", "trend_analysis", "extreme_value", "absence_detection")


def one(candidates, question):
    found = by_question(candidates, question)
    assert len(found) == 1, [c.question for c in candidates]
    return found[0]


def session(mmdd: str) -> tuple:
    return (mmdd, "hobby_session", "positive", f"spend 2 hours on cycling at the park on {mmdd}",
            {"hobby": "cycling", "spot": "the park"}, [(ME, "hobby_session", f"cycling at the park ({mmdd})",
                                                        [f"cycling at the park ({mmdd})"])])


YEAR = {n: session(d) for n, d in enumerate(
    ["02-10", "04-10", "05-10", "07-10", "08-10", "09-10", "10-05", "10-20", "11-10", "12-10"], start=1)}
"""A year of cycling sessions: 1, 2, 3 and 4 per quarter (3 in the first half, 7 in the second)."""


def year_context():
    world = build_world(YEAR)
    return context(world, days=366)


def with_events(extra: dict):
    events = dict(EVENTS)
    events.update(extra)
    world = build_world(events)
    return context(world)


def cites_every_instance(ctx, c):
    cited = {r.fact_id for r in c.evidence}
    assert c.all_instances and set(c.fact_ids) <= cited
    at = c.asked_at or ctx.asked_at
    stamps = {t.turn_id: t.timestamp for t in ctx.corpus.turns}
    assert all(stamps[r.item_id] < at for r in c.evidence)


def test_generators_are_registered():
    assert all(f"aggregation.{name}" in GENERATORS for name in AGGREGATION)


def test_conditional_counting_counts_the_bad_ones_in_a_window():
    ctx = context()
    cands = conditional_counting(ctx)
    shops = one(cands, "How many of Maya's weekly shops went badly from January to March 2024?")
    assert shops.answer == "2" and {"1", "3"} <= set(shops.distractors)
    assert shops.asked_at is not None and shops.asked_at.date().isoformat() == "2024-04-07"
    cites_every_instance(ctx, shops)
    assert len(shops.extra["event_ids"]) == 2
    noor = one(cands, "So far, how many of Maya's planned lunches with colleagues involved Noor Gonzales, whether "
                      "or not they went well?")
    assert noor.answer == "3"


def test_counts_are_fixed_at_asked_at():
    question = "How many of Maya's weekly shops went badly from January to March 2024?"
    base = one(conditional_counting(context()), question)
    # a failed shop after the window (before the mid-timeline question) and one after the default question time
    extra = {40: ("04-03", "weekly_shop", "negative", "do the weekly shop at Lidl", {"market": "Lidl"},
                  [(ME, "wasted_shop", "trip to Lidl", ["trip to Lidl"])]),
             41: ("05-03", "weekly_shop", "negative", "do the weekly shop at Aldi", {"market": "Aldi"},
                  [(ME, "wasted_shop", "trip to Aldi", ["trip to Aldi"])])}
    again = one(conditional_counting(with_events(extra)), question)
    assert (again.answer, again.asked_at, again.fact_ids) == (base.answer, base.asked_at, base.fact_ids)
    later = {41: extra[41]}
    for name in AGGREGATION:
        fn = GENERATORS[f"aggregation.{name}"]
        assert fn(with_events(later)) == fn(context()), name


def test_trend_analysis_reads_the_direction():
    ctx = year_context()
    cands = trend_analysis(ctx)
    quarters = one(cands, "Quarter by quarter from January 2024 to December 2024, how did the number of Maya's hobby "
                          "sessions change?")
    assert quarters.answer == "it rose each quarter" and quarters.extra["counts"] == [1, 2, 3, 4]
    cites_every_instance(ctx, quarters)
    halves = one(cands, "Did Maya have hobby sessions more often in the first half (January 2024 to June 2024), more "
                        "often in the second half (July 2024 to December 2024), or about equally often in both?")
    assert halves.answer == "the second half" and halves.extra["options_in_question"]
    income = one(trend_analysis(context()), "How did Maya's income band move over the year?")
    assert income.answer == "it rose from middle to upper-middle"


def test_extreme_value_skips_ties_and_finds_the_maximum():
    ctx = context()
    cands = extreme_value(ctx)
    top = one(cands, "Which colleague came up most often in Maya's planned lunches with colleagues, whether or not "
                     "they went well?")
    assert top.answer == "Noor Gonzales" and top.distractors[0] == "Noor Kobayashi"
    cites_every_instance(ctx, top)
    longest = one(cands, "Which café was Maya's favourite café for the longest time in total?")
    assert longest.answer == "Blue Door Coffee"
    # weekly shops: four shops, once each -> a tie, never asked
    assert not [c for c in cands if "weekly shops" in c.question and "most often" in c.question]


def test_absence_detection_answers_no_and_lists_every_instance():
    ctx = context()
    cands = absence_detection(ctx)
    month = one(cands, "Since January 1, 2024, which calendar month had none of Maya's weekly shops?")
    assert month.answer == "January 2024" and "February 2024" in month.distractors
    cites_every_instance(ctx, month)
    calls = one(cands, "Did any of Maya's planned calls with family and friends go badly from January to March 2024?")
    assert calls.answer == "No" and len(calls.extra["event_ids"]) == 3
    never = one(cands, "Between January 1, 2024 and January 31, 2024, did Maya ever host someone?")
    assert never.answer == "No" and "Yes, once" in never.distractors
    # a failed call inside the window turns the same question's answer to "Yes", with the failed call cited
    bad = {42: ("02-20", "family_call", "negative", "call Priya Shah about a trip", {"relative": "Priya Shah"},
                [("Priya Shah", "missed_call", "a trip", ["a trip"])])}
    again = one(absence_detection(with_events(bad)), "Did any of Maya's planned calls with family and friends go "
                                                      "badly from January to March 2024?")
    assert again.answer == "Yes" and again.extra["count"] == 1 and "No" in again.distractors


def test_absence_detection_asks_yes_items_in_the_same_words():
    """A span that holds the first time is asked exactly as one that does not: the wording gives nothing away."""
    cands = absence_detection(year_context())
    yes = one(cands, "Between January 1, 2024 and February 29, 2024, did Maya ever spend a session on a hobby?")
    assert yes.answer == "Yes" and yes.extra["count"] == 1
    no = one(cands, "Between January 1, 2024 and January 31, 2024, did Maya ever spend a session on a hobby?")
    assert no.answer == "No" and no.template == yes.template == "aggregation.absence_detection.never_before"
    assert set(yes.fact_ids) < set(no.fact_ids)  # a yes rests on what happened inside the span


def test_trend_of_names_only_clear_shapes():
    from tasks.questions.generators.aggregation import TREND_POOL, trend_of

    assert [trend_of(r) for r in ([1, 2, 4], [5, 3, 1], [2, 2, 2], [1, 4, 2], [6, 2, 5])] == list(TREND_POOL[:5])
    assert [trend_of(r) for r in ([3, 4, 3], [1, 1, 1], [1, 2, 2], [0, 3, 1, 2])] == [None] * 4


def test_no_answer_in_its_question_and_every_instance_is_evidenced():
    for ctx in (context(), year_context()):
        for name in AGGREGATION:
            cands = GENERATORS[f"aggregation.{name}"](ctx)
            for c in cands:
                assert c.category == "aggregation" and c.characteristics[0] == name
                assert not mentions(c.question, c.answer) or c.extra.get("options_in_question"), c.question
                assert c.answer not in c.distractors
                cites_every_instance(ctx, c)
    assert all(GENERATORS[f"aggregation.{n}"](context()) for n in AGGREGATION)


def test_deterministic_for_a_seed():
    for name in AGGREGATION:
        fn = GENERATORS[f"aggregation.{name}"]
        assert fn(context(seed=9)) == fn(context(seed=9))
        world = build_world()
        assert fn(context(world, build_corpus(context().persona, world))) == fn(context())


def test_a_session_that_fell_through_is_not_a_yes_to_did_you_ever():
    """Read in the viewer: 'Did I ever volunteer ...?' answered Yes on evidence 'I got turned away at Northside Food
    Bank'. An attempt that went badly is no instance of having done it."""
    failed = ("02-10", "hobby_session", "negative", "spend 2 hours on cycling at the park on 02-10",
              {"hobby": "cycling", "spot": "the park"}, [(ME, "session_rained_off", "cycling at the park",
                                                          ["cycling at the park"])])
    world = build_world({**YEAR, 1: failed})
    cands = absence_detection(context(world, days=366))
    asked = [c for c in cands if c.question == "Between January 1, 2024 and February 29, 2024, did Maya ever spend a "
                                               "session on a hobby?"]
    assert not asked  # its only instance in the span fell through: not asked as a Yes
    assert any(c.answer == "Yes" for c in absence_detection(year_context())
               if c.template == "aggregation.absence_detection.never_before")
