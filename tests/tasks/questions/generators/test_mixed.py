"""Mixed generators (tasks/questions/generators/mixed.py) over the hand-built corpus of
tests/tasks/qgen_docs_world.py."""

from __future__ import annotations

import pytest

from tasks.common.facttext import mentions
from tasks.questions.base import Candidate, QContext, Ref
from tasks.questions.generators import mixed
from tests.tasks.qgen_docs_world import PID, make_context

GENERATORS = {
    "mixed.relative_positioning": mixed.relative_positioning,
    "mixed.contextual_retrieval": mixed.contextual_retrieval,
    "mixed.post_modification_analysis": mixed.post_modification_analysis,
}


@pytest.fixture(scope="module")
def ctx() -> QContext:
    return make_context()


def one(cands: list[Candidate], template: str, *needles: str) -> Candidate:
    found = [c for c in cands if c.template == template and all(n in c.question for n in needles)]
    assert len(found) == 1, [c.question for c in cands if c.template == template]
    return found[0]


def kinds(c: Candidate) -> set[str]:
    return {r.kind for r in c.evidence}


def test_every_generator_is_registered():
    from tasks.questions import GENERATORS as registered

    for key, fn in GENERATORS.items():
        assert registered[key] is fn


def test_relative_positioning_days_between_a_document_and_a_told_fact(ctx):
    import datetime as dt

    cands = mixed.relative_positioning(ctx)
    days = [c for c in cands if c.template == "mixed.relative_positioning.days"]
    assert days
    for c in days:  # every count is the days between the document's date and the day the fact was first told
        gap = abs(dt.date.fromisoformat(c.extra["document_date"]) - dt.date.fromisoformat(c.extra["told_date"]))
        assert c.answer == str(gap.days)
    pottery = [c for c in days if '"Pottery?"' in c.question]
    assert len(pottery) == mixed.PAIRS_PER_DOC  # the email has more facts told near it than it is asked about
    one_day = one(cands, "mixed.relative_positioning.days", '"Pottery?"', "Maya's home is in Cambridge")
    assert one_day.answer == "1"  # email on March 5, told on March 6
    assert "March 5" not in one_day.question  # the document is named without its date
    assert Ref("turn", f"{PID}-s0004-t01", f"{PID}-f0007") in one_day.evidence
    assert Ref("chunk", f"{PID}-d0003-c01") in one_day.evidence and kinds(one_day) == {"turn", "chunk"}
    order = one(cands, "mixed.relative_positioning.order", '"Pottery?"', "Maya's home is in Cambridge")
    assert order.answer == "before" and order.extra["options_in_question"]
    assert cands == mixed.relative_positioning(ctx)  # the draw is seeded


def test_relative_positioning_spreads_the_gaps_it_asks():
    near = [(gap, f"f{gap}") for gap in range(1, 31)]
    picked = [mixed.spread(ctx_stub(), doc_stub(n), near) for n in range(40)]
    gaps = [g for pair in picked for g, _ in pair]
    assert all(pair[0][0] <= 15 < pair[1][0] for pair in picked)  # one from each half of the range
    assert len(set(gaps)) >= 20


def ctx_stub():
    import random

    class Stub:
        def rng(self, key):
            return random.Random(key)

    return Stub()


def doc_stub(n):
    class Doc:
        doc_id = f"d{n}"

    return Doc()


def test_contextual_retrieval_resolves_the_person_from_the_email(ctx):
    cands = mixed.contextual_retrieval(ctx)
    pottery = one(cands, "mixed.contextual_retrieval.sender_attribute", '"Pottery?"')
    assert pottery.answer == "Somerville" and not mentions(pottery.question, "Priya")
    assert pottery.evidence == (Ref("chunk", f"{PID}-d0003-c01"), Ref("turn", f"{PID}-s0003-t01", f"{PID}-f0010"))
    news = one(cands, "mixed.contextual_retrieval.sender_attribute", '"Big news"')
    assert news.answer == "Austin" and "Chicago" in news.distractors
    assert not mentions(news.question, "Daniel")
    from tasks.common.facttext import is_event_attribute

    for c in cands:  # asked of a state the person is in, never of an event ("the current visit cancelled")
        assert not is_event_attribute(ctx.facts[c.fact_ids[0]].attribute), c.question


def test_post_modification_analysis_before_after_and_what_changed(ctx):
    cands = mixed.post_modification_analysis(ctx)
    before = one(cands, "mixed.post_modification_analysis.before", "Maya's city")
    assert before.answer == "Boston" and before.extra["superseded_fact_ids"] == [f"{PID}-f0001"]
    assert kinds(before) == {"turn", "chunk"} and "journal entry of March 6, 2024" in before.question
    after = one(cands, "mixed.post_modification_analysis.after", "Maya's city")
    assert after.answer == "Cambridge" and "Boston" in after.distractors
    changed = one(cands, "mixed.post_modification_analysis.what_changed", "Maya's city")
    assert changed.answer_type == "long" and "Boston" in changed.rubric and "Cambridge" in changed.rubric
    daniel = one(cands, "mixed.post_modification_analysis.before", "Daniel Okafor's city")
    assert daniel.answer == "Chicago"


def test_documents_and_facts_after_question_time_change_nothing():
    base, late = make_context(), make_context(late_items=True)
    for key, fn in GENERATORS.items():
        assert fn(base) == fn(late), key
    # the move to Somerville (after the question time) is not a modification the questions know about
    assert not any("Somerville" in c.answer for c in mixed.post_modification_analysis(late))


def test_deterministic_and_no_answer_in_question(ctx):
    for key, fn in GENERATORS.items():
        first, again = fn(ctx), fn(make_context())
        assert first and first == again, key
        for c in first:
            assert c.category == "mixed" and c.characteristics[0] == key.split(".")[1]
            assert c.extra.get("options_in_question") or not mentions(c.question, c.answer), c.question
            assert c.answer not in c.distractors
            assert {r.fact_id for r in c.evidence if r.fact_id} <= set(c.fact_ids), c.question
            assert kinds(c) == {"turn", "chunk"}, c.question  # needs both the conversation and a document


def test_framework_accepts_every_candidate(ctx):
    from tasks.questions.assemble import prepare

    for key, fn in GENERATORS.items():
        for c in fn(ctx):
            p, why = prepare(ctx, key, c)
            assert p is not None, (key, why, c.question)
