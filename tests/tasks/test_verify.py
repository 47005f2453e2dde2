"""The verifier: a clean corpus has no errors; each corruption is caught by the right check."""

from __future__ import annotations

import datetime as dt

import pytest

from tasks.questions.stage import write_questions
from tasks.verify import verify_persona
from tests.tasks.worldfixture import PID, make_config, make_corpus, make_persona, make_world


@pytest.fixture(scope="module")
def built():
    world, corpus = make_world(), make_corpus()
    return world, corpus, write_questions(make_config(), make_persona(), world, corpus)


def checks(world, corpus, qset, severity="error"):
    return {
        (f.check, f.stage)
        for f in verify_persona(make_persona(), world, corpus, qset)
        if f.severity == severity
    }


def turn_evidence(qset):
    return next(e for e in qset.evidence if e.evidence_kind == "turn")


def with_evidence(qset, row, **update):
    rows = [e.model_copy(update=update) if e == row else e for e in qset.evidence]
    return qset.model_copy(update={"evidence": rows})


def with_turn(corpus, turn_id, **update):
    turns = [t.model_copy(update=update) if t.turn_id == turn_id else t for t in corpus.turns]
    return corpus.model_copy(update={"turns": turns})


def test_a_clean_corpus_has_no_errors_and_one_summary(built):
    world, corpus, qset = built
    findings = verify_persona(make_persona(), world, corpus, qset)
    # the hand-built fixture's narratives are placeholders, so only the corpus stages must be clean here;
    # the loop verifier is tested on simulated worlds in tests/tasks/world/test_world.py
    assert [f for f in findings if f.severity == "error" and f.stage != "loop"] == []
    assert [f.check for f in findings if f.severity == "info"] == ["summary"]
    assert [f.finding_id for f in findings] == [f"{PID}-v{n:04d}" for n in range(1, len(findings) + 1)]


def test_a_dangling_evidence_id_is_an_error(built):
    world, corpus, qset = built
    bad = with_evidence(qset, turn_evidence(qset), evidence_id=f"{PID}-s0099-t01")
    assert ("evidence_resolves", "questions") in checks(world, corpus, bad)


def test_a_chunk_id_cited_as_a_turn_does_not_resolve(built):
    world, corpus, qset = built
    row = next(e for e in qset.evidence if e.evidence_kind == "chunk")
    assert ("evidence_resolves", "questions") in checks(
        world, corpus, with_evidence(qset, row, evidence_kind="turn")
    )


def test_evidence_after_question_time_is_an_error(built):
    world, corpus, qset = built
    row = turn_evidence(qset)
    late = qset.questions[0].question_time + dt.timedelta(hours=1)
    found = checks(world, with_turn(corpus, row.evidence_id, timestamp=late), qset)
    assert ("evidence_precedes_question", "questions") in found


def test_evidence_text_without_a_surface_form_is_an_error(built):
    world, corpus, qset = built
    row = turn_evidence(qset)
    found = checks(
        world, with_turn(corpus, row.evidence_id, text="I had a quiet day, nothing much to report."), qset
    )
    assert ("evidence_carries_fact", "questions") in found
    assert ("turn_carries_fact", "dialogue") in found
    assert ("initial_turn_states_fact", "dialogue") in found


def test_a_question_without_evidence_is_an_error(built):
    world, corpus, qset = built
    qid = qset.questions[0].question_id
    bad = qset.model_copy(update={"evidence": [e for e in qset.evidence if e.question_id != qid]})
    assert ("question_has_evidence", "questions") in checks(world, corpus, bad)


def test_an_empty_or_underived_answer_is_an_error(built):
    world, corpus, qset = built
    first = qset.questions[0]
    bad = qset.model_copy(
        update={"questions": [first.model_copy(update={"answer": " "})] + qset.questions[1:]}
    )
    assert {("answer_nonempty", "questions"), ("answer_matches_derivation", "questions")} <= checks(
        world, corpus, bad
    )


def test_an_unknown_fact_id_is_an_error(built):
    world, corpus, qset = built
    bad = with_evidence(qset, turn_evidence(qset), fact_id=f"{PID}-f9999")
    assert ("fact_resolves", "questions") in checks(world, corpus, bad)


def test_a_stale_state_answer_is_an_error(built):
    world, corpus, qset = built
    asked = next(q for q in qset.questions if q.answer == "Cambridge" and q.category == "fact")
    facts = [  # Cambridge ends the day the question is asked: its answer is stale
        f.model_copy(update={"valid_to": asked.question_time.date()}) if f.value == "Cambridge" else f
        for f in world.facts
    ]
    found = checks(world.model_copy(update={"facts": facts}), corpus, qset)
    assert ("fact_valid_at_question_time", "questions") in found


def test_turns_out_of_order_are_an_error(built):
    world, corpus, qset = built
    second = corpus.turns[1]
    bad = with_turn(corpus, second.turn_id, timestamp=corpus.turns[0].timestamp - dt.timedelta(minutes=1))
    assert ("turn_order", "dialogue") in checks(world, bad, qset)


def test_an_attachment_to_a_missing_document_is_an_error(built):
    world, corpus, qset = built
    turn = next(t for t in corpus.turns if t.doc_ids)
    assert ("attachment_resolves", "dialogue") in checks(
        world, with_turn(corpus, turn.turn_id, doc_ids=["nope"]), qset
    )


def test_a_chunk_claiming_a_fact_it_does_not_carry_is_an_error(built):
    world, corpus, qset = built
    empty = next(c for c in corpus.chunks if not c.fact_ids)
    chunks = [c.model_copy(update={"fact_ids": [f"{PID}-f0005"]}) if c == empty else c for c in corpus.chunks]
    assert ("chunk_carries_fact", "sources") in checks(
        world, corpus.model_copy(update={"chunks": chunks}), qset
    )


def test_a_document_claiming_a_fact_it_lacks_is_an_error(built):
    world, corpus, qset = built
    doc = corpus.documents[0]
    docs = [doc.model_copy(update={"body": "Hello."})] + corpus.documents[1:]
    assert ("document_carries_fact", "sources") in checks(
        world, corpus.model_copy(update={"documents": docs}), qset
    )


def test_a_short_assistant_reply_is_a_warning(built):
    world, corpus, qset = built
    reply = next(t for t in corpus.turns if t.role == "assistant")
    found = checks(world, with_turn(corpus, reply.turn_id, text="Sounds good."), qset, severity="warning")
    assert ("assistant_length", "dialogue") in found
