"""The integrity gate: a clean corpus passes; each kind of corruption fails the expectation it names."""

from __future__ import annotations

import datetime as dt
import functools

import pytest

from tests.validation.conftest import GATE_CONFIG
from validation.gates import GateReport
from validation.gates import run_gates as _run_gates
from validation.integrity import INTEGRITY

run_gates = functools.partial(_run_gates, config=GATE_CONFIG)
RESOLVES = "question_evidence.evidence resolves"
PRECEDES = "question_evidence.evidence precedes question_time"


def gates(con_for, corpus, run_id="r1", config=None) -> GateReport:
    return run_gates(con_for({run_id: corpus}), run_id, **({"config": config} if config else {}))


def result(report: GateReport, name: str):
    (match,) = [r for r in report.results if r.expectation == name]
    return match


def failed_names(report: GateReport) -> set[str]:
    return {r.expectation for r in report.failed()}


def test_clean_corpus_passes_every_expectation(corpus, con_for):
    report = gates(con_for, corpus)
    assert report.success, report.failure_message()
    assert [r.expectation for r in report.results][: len(INTEGRITY.checks)] == [c.name for c in INTEGRITY.checks]
    assert {r.suite for r in report.results} == {"integrity", "coverage", "consistency", "leakage", "distribution",
                                                 "validity", "tiers"}
    assert all(r.success and r.unexpected_count == 0 and r.sample == [] for r in report.results)
    assert report.summary()["failed"] == 0
    assert "PASS" in report.markdown()
    assert "passed" in report.failure_message()


def test_corrupt_evidence_id_fails_resolves(corpus, con_for):
    bad = "p0001-s0001-t99"
    corpus["question_evidence"][1] = corpus["question_evidence"][1].model_copy(update={"evidence_id": bad})
    report = gates(con_for, corpus)
    assert not report.success
    r = result(report, RESOLVES)
    assert not r.success and r.unexpected_count == 1 and r.sample == [bad]
    assert r.suite == "integrity" and r.column_name == "resolves"
    message = report.failure_message()
    assert RESOLVES in message and bad in message
    summary = report.summary()
    assert f"integrity: {RESOLVES}" in summary["failed_expectations"]
    assert summary["passed"] + summary["failed"] == summary["expectations"]


def test_evidence_after_question_time_fails_precedes(corpus, con_for):
    late = corpus["turns"][0].model_copy(update={"timestamp": dt.datetime(2025, 1, 3, 19, tzinfo=dt.UTC)})
    corpus["turns"][0] = late
    report = gates(con_for, corpus)
    assert failed_names(report) == {PRECEDES}
    assert result(report, PRECEDES).sample == [late.turn_id]


def test_question_without_evidence_fails(corpus, con_for):
    lonely = corpus["questions"][0].model_copy(update={"question_id": "p0001-q0003"})
    corpus["questions"].append(lonely)
    report = gates(con_for, corpus)
    assert failed_names(report) == {"questions.question has evidence", "consistency.questions reviewed and kept"}
    assert result(report, "questions.question has evidence").sample == ["p0001-q0003"]


@pytest.mark.parametrize("answer", ["", "   "])
def test_empty_answer_fails(corpus, con_for, answer):
    corpus["questions"][1] = corpus["questions"][1].model_copy(update={"answer": answer})
    report = gates(con_for, corpus)
    assert failed_names(report) == {"questions.answer not empty"}
    assert result(report, "questions.answer not empty").sample == ["p0001-q0002"]


def test_duplicate_question_ids_fail(corpus, con_for):
    corpus["questions"].append(corpus["questions"][0].model_copy(update={"answer": "Porto"}))
    report = gates(con_for, corpus)
    assert failed_names(report) == {"questions.question_id unique", "tables.ids unique in every table"}
    r = result(report, "questions.question_id unique")
    assert r.unexpected_count == 2 and r.sample == ["p0001-q0001"]


def test_unresolved_fact_id_fails(corpus, con_for):
    corpus["facts"] = corpus["facts"][:1]
    report = gates(con_for, corpus)
    assert failed_names(report) == {"question_evidence.fact_id resolves", "references.fact ids resolve"}
    assert result(report, "question_evidence.fact_id resolves").sample == ["p0001-f0002"]


def test_rows_of_another_run_are_ignored(corpus, con_for):
    broken = {k: list(v) for k, v in corpus.items()}
    broken["questions"] = [q.model_copy(update={"answer": ""}) for q in broken["questions"]]
    broken["turns"] = []
    con = con_for({"r1": corpus, "r2": broken})
    assert run_gates(con, "r1").success
    assert {RESOLVES, "questions.answer not empty"} <= failed_names(run_gates(con, "r2"))


def test_evidence_from_another_run_does_not_resolve(corpus, con_for):
    mine = {k: list(v) for k, v in corpus.items()}
    mine["chunks"] = []
    report = run_gates(con_for({"r1": mine, "r2": corpus}), "r1")
    assert result(report, RESOLVES).sample == ["p0001-d0001-c00"]


def test_no_questions_fails_clearly(con_for):
    report = run_gates(con_for({"r1": {}}), "r1")
    assert not report.success
    assert "questions present" in failed_names(report)
    assert "no questions" in report.failure_message()
    assert "no questions" in report.markdown()


def test_markdown_names_failures(corpus, con_for):
    corpus["question_evidence"][0] = corpus["question_evidence"][0].model_copy(
        update={"evidence_id": "ghost"}
    )
    md = gates(con_for, corpus).markdown()
    assert md.startswith("# Release gates: FAIL")
    assert ("| integrity | question_evidence.evidence resolves | **FAIL** | 1 | ghost: resolves False | "
            "every resolves true | `ghost` |") in md
    assert "## Failed expectations" in md and f"**integrity: {RESOLVES}**" in md


def test_a_failure_says_what_was_observed_against_what_threshold(corpus, con_for):
    """Issue 27: failures named the expectation and sample ids, never the observed value against the threshold
    (a floor failure printed no count; Data Docs showed the pair (29, 1000) as '291000')."""
    config = GATE_CONFIG.model_copy(update={"gates": GATE_CONFIG.gates.model_copy(
        update={"category_floors": {"fact": 1000}})})
    report = gates(con_for, corpus, config=config)
    floor = next(r for r in report.failed() if r.expectation.startswith("coverage.category"))
    assert floor.threshold == "n >= floor" and floor.sample == ["fact"]
    assert floor.observed and floor.observed[0].startswith("fact: n ") and floor.observed[0].endswith("floor 1000")
    assert floor.note == "a value below its floor"
    message = report.failure_message()
    assert "observed fact: n " in message and "floor 1000; expected n >= floor" in message


def test_sample_is_capped_at_ten(corpus, con_for):
    link = corpus["question_evidence"][0]
    corpus["question_evidence"] += [
        link.model_copy(update={"evidence_id": f"ghost-{i:02d}"}) for i in range(15)
    ]
    r = result(gates(con_for, corpus), RESOLVES)
    assert r.unexpected_count == 15 and len(r.sample) == 10


def test_report_round_trips_as_json(corpus, con_for):
    report = gates(con_for, corpus)
    data = report.model_dump(mode="json")
    assert data["success"] is True and len(data["results"]) > len(INTEGRITY.checks)
