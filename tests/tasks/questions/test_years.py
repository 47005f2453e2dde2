"""Questions over a two-year life (issue 57): a question spanning the years (the value an attribute held at an
event of the first year, since changed) is generated, correct against the fact store, and has evidence on both
facts; the review recomputes it independently."""

from __future__ import annotations

import datetime as dt

from schemas.qa import Question
from tasks.questions.assemble import contexts, prepare
from tasks.questions.generators.fact import state_dependent_attribute
from tasks.questions.review import Store, independent
from tests.tasks.yearsworld import corpus, life

AT_EVENT = "fact.state_dependent_attribute.at_event"


def value_on(world, subject, attribute, day):
    """Brute-force fact-store lookup, independent of the generators."""
    (value,) = {f.value for f in world.facts if (f.subject, f.attribute) == (subject, attribute)
                and f.valid_from <= day and (f.valid_to is None or day < f.valid_to)}
    return value


def at_event_candidates():
    cfg, persona, world = life()
    ctx = contexts(cfg, persona, world, corpus())[0]
    return ctx, [c for c in state_dependent_attribute(ctx) if c.template == AT_EVENT]


def test_a_question_spans_the_years_and_its_answer_is_the_value_then():
    ctx, cands = at_event_candidates()
    assert ctx.day == dt.date(2025, 1, 1)
    first_employer = life()[1].profile.identity.employer
    job = [c for c in cands if c.extra["attribute"] == "employer" and c.answer == first_employer]
    assert job, sorted({c.question for c in cands})  # "Who was Sofía's employer when Sofía ... (in 2023)?"
    for c in cands:
        day = ctx.events[c.extra["event_ids"][0]].date
        assert c.answer == value_on(ctx.world, c.extra["subject"], c.extra["attribute"], day)
        assert c.answer != value_on(ctx.world, c.extra["subject"], c.extra["attribute"], ctx.day)
    spanning = [c for c in job if ctx.events[c.extra["event_ids"][0]].date.year == 2023]
    assert spanning and all(c.extra["years_apart"] >= 1 and c.priority == 0 for c in spanning)
    ages = [c for c in cands if c.extra["attribute"] == "age"]
    assert ages and all(c.question.startswith("How old was Sofía when Sofía ") for c in ages)


def test_a_spanning_question_has_evidence_on_both_facts_and_is_recomputed_by_the_review():
    ctx, cands = at_event_candidates()
    spanning = [c for c in cands if ctx.events[c.extra["event_ids"][0]].date.year == 2023]
    prepared = [p for c in spanning if (p := prepare(ctx, "fact.state_dependent_attribute", c)[0]) is not None]
    assert prepared
    for p in prepared:
        cited = {r.fact_id for r in p.refs}
        then, *event_facts = p.candidate.fact_ids
        assert then in cited and cited & set(event_facts)  # the value's fact and the event's
        assert all(ctx.item(r)[0] < p.asked_at for r in p.refs)
    cfg, persona, world = life()  # a landed question's derivation, as the review reads it
    c = prepared[0].candidate
    question = Question.model_construct(
        question_id="p0000-q0001", persona_id="p0000", question=c.question, answer=c.answer, answer_type="short",
        question_time=ctx.asked_at, derivation={"template": c.template, "fact_ids": list(c.fact_ids), **c.extra})
    store = Store(persona, world, corpus())
    assert [value for value, _ in independent(store, question)] == [c.answer]
