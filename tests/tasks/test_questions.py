"""Questions: answers from the fact store at question_time, evidence checked, selection bounded."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from schemas.corpus import Corpus
from tasks.facttext import carries
from tasks.questions import write_questions
from tests.tasks.worldfixture import PID, make_config, make_corpus, make_persona, make_world

ASKED_AT = dt.datetime(2024, 3, 11, 9, tzinfo=ZoneInfo("America/New_York"))


def questions(config=None, world=None, corpus=None):
    config, world = config or make_config(), world or make_world()
    corpus = corpus if corpus is not None else make_corpus(config, make_persona(), world)
    return write_questions(config, make_persona(), world, corpus)


def by_characteristic(qset, name):
    return [q for q in qset.questions if name in q.characteristics]


def test_question_time_is_nine_local_on_the_day_after_the_simulation():
    qset = questions()
    assert qset.questions and all(q.question_time == ASKED_AT for q in qset.questions)
    assert all(q.derivation["as_of"] == ASKED_AT.isoformat() for q in qset.questions)


def test_ids_categories_and_bounds():
    qset = questions(make_config(stages={"questions": {"per_category": 3}}))
    assert [q.question_id for q in qset.questions] == [f"{PID}-q{n:04d}" for n in range(1, 7)]
    assert sorted({q.category for q in qset.questions}) == ["fact", "temporal"]
    assert all(sum(q.category == c for q in qset.questions) == 3 for c in ("fact", "temporal"))
    assert all(q.answer_type == "short" and q.answer and q.reference_answer for q in qset.questions)


def value_at(world, subject, attribute, day):
    """Brute-force fact-store lookup, independent of the module under test."""
    values = [
        f.value
        for f in world.facts
        if f.subject == subject
        and f.attribute == attribute
        and f.valid_from <= day
        and (f.valid_to is None or day < f.valid_to)
    ]
    assert len(values) == 1
    return values[0]


def test_state_answers_equal_the_fact_store_value_at_question_time():
    world = make_world()
    facts = {f.fact_id: f for f in world.facts}
    states = by_characteristic(questions(), "state_dependent_attribute")
    assert states
    for q in states:
        fact = facts[q.derivation["fact_ids"][0]]
        assert (
            q.answer
            == q.derivation["computed_answer"]
            == value_at(world, fact.subject, fact.attribute, ASKED_AT.date())
        )


def test_a_modified_attribute_answers_with_its_new_value():
    [city] = [q for q in questions().questions if q.question == "What is Maya Okafor's current city?"]
    assert city.answer == "Cambridge" and "Boston" in city.reference_answer
    assert city.derivation["superseded_fact_ids"] == [f"{PID}-f0001"]


def test_a_later_modification_changes_the_answer():
    world = make_world()
    old = world.facts[6].model_copy(update={"valid_to": dt.date(2024, 3, 8)})
    new = old.model_copy(
        update={
            "fact_id": f"{PID}-f0010",
            "event_id": f"{PID}-e0005",
            "value": "Somerville",
            "valid_from": dt.date(2024, 3, 8),
            "valid_to": None,
            "surface_forms": ["Somerville"],
        }
    )
    world = world.model_copy(update={"facts": world.facts[:6] + [old] + world.facts[7:] + [new]})
    [city] = [
        q for q in questions(world=world).questions if q.question == "What is Maya Okafor's current city?"
    ]
    assert city.answer == "Somerville"


def test_changed_attributes_are_preferred():
    qset = questions(make_config(stages={"questions": {"per_category": 2}}))
    facts = [q for q in qset.questions if q.category == "fact"]
    assert all(q.answer in ("Austin", "Cambridge") for q in facts)


def test_entity_disambiguation_resolves_the_namesake_by_role():
    [q] = by_characteristic(questions(), "entity_disambiguation")
    assert q.question == "What is the current city of Maya's brother Daniel?"
    assert q.answer == "Austin" and q.derivation["resolved_entity"] == "Daniel Okafor"


def test_temporal_answers_come_from_event_dates():
    world = make_world()
    dates = {e.event_id: e.date for e in world.events}
    for q in by_characteristic(questions(), "implicit_temporal_lookup"):
        [event_id] = q.derivation["event_ids"]
        assert q.answer == dates[event_id].isoformat()
    sequences = by_characteristic(questions(), "sequence_comprehension")
    assert sequences
    for q in sequences:
        first, second = q.derivation["event_ids"]
        assert dates[first] < dates[second] and q.answer in q.question


def test_negative_events_are_not_asked_about_as_if_they_happened():
    assert all("raise" not in q.question for q in questions().questions if q.category == "temporal")


def test_evidence_resolves_precedes_question_time_and_carries_its_fact():
    corpus = make_corpus()
    qset = questions(corpus=corpus)
    facts = {f.fact_id: f for f in make_world().facts}
    items = {t.turn_id: t for t in corpus.turns} | {c.chunk_id: c for c in corpus.chunks}
    assert {e.question_id for e in qset.evidence} == {q.question_id for q in qset.questions}
    for row in qset.evidence:
        item = items[row.evidence_id]
        assert (row.evidence_kind == "turn") == (row.evidence_id in {t.turn_id for t in corpus.turns})
        assert getattr(item, "timestamp", getattr(item, "created_at", None)) < ASKED_AT
        assert row.fact_id in item.fact_ids and carries(item.text, facts[row.fact_id])


def test_late_items_are_not_evidence():
    corpus = make_corpus()
    late = [t.model_copy(update={"timestamp": ASKED_AT + dt.timedelta(minutes=1)}) for t in corpus.turns]
    qset = questions(corpus=corpus.model_copy(update={"turns": late, "chunks": []}))
    assert qset.questions == [] and qset.evidence == []


def test_questions_without_evidence_are_skipped():
    assert questions(corpus=Corpus()).questions == []


def test_answers_do_not_leak_into_questions():
    for q in questions().questions:
        if q.characteristics != ["sequence_comprehension"]:
            assert q.answer.lower() not in q.question.lower()


def test_questions_are_deterministic():
    assert questions() == questions()


def test_sequence_pairs_are_close_and_ordered():
    from tasks.questions import SEQUENCE_WINDOW_DAYS, close_pairs, dated_events

    world = make_world()
    far = world.events[5].model_copy(
        update={"date": dt.date(2024, 3, 2) + dt.timedelta(days=SEQUENCE_WINDOW_DAYS + 1)}
    )
    world = world.model_copy(update={"events": world.events[:5] + [far]})
    pairs = close_pairs(dated_events(world))
    assert pairs and all(0 < (b.event.date - a.event.date).days <= SEQUENCE_WINDOW_DAYS for a, b in pairs)
    assert (f"{PID}-e0001", f"{PID}-e0005") not in {(a.event.event_id, b.event.event_id) for a, b in pairs}
