"""Mutation suite: each defect family injected into a clean landed run fails the expectation it names.

The clean corpus (conftest) passes every suite; each mutation breaks one thing and the named expectation
must fail, so the run's gate report is not a success and the flow freezes nothing (tests/e2e shows
that through build_corpus)."""

from __future__ import annotations

import datetime as dt

import pytest

from schemas.audit import Finding
from schemas.config import GateOptions
from schemas.corpus import FactMention
from schemas.qa import Question
from tests.validation.conftest import GATE_CONFIG, review
from validation.gates import run_gates


def _mcq(n: int, gold: int) -> Question:
    options = [f"option {k} of item {n}" + "x" * (5 - k) for k in range(6)]
    return Question(question_id=f"p0001-q1{n:03d}", persona_id="p0001", category="fact",
                    characteristics=["state_dependent_attribute"], question_time=dt.datetime(2025, 1, 5, tzinfo=dt.UTC),
                    question=f"Which one is item {n}?", answer=options[gold], reference_answer=options[gold],
                    answer_type="mcq", options=options, gold_option=gold, derivation={"template": "fact.mcq"})


def _with_mcq(c, items):
    c["questions"] += items
    c["question_reviews"] += [review(q) for q in items]


def dangling_evidence(c):
    c["question_evidence"][0] = c["question_evidence"][0].model_copy(update={"evidence_id": "p0001-s0001-t99"})


def evidence_after_question(c):
    c["turns"][0] = c["turns"][0].model_copy(update={"timestamp": dt.datetime(2025, 1, 3, 19, tzinfo=dt.UTC)})


def duplicate_question(c):
    c["questions"].append(c["questions"][0])


def empty_answer(c):
    c["questions"][0] = c["questions"][0].model_copy(update={"answer": " "})


def gold_missing(c):
    q = _mcq(1, 2)
    _with_mcq(c, [q.model_copy(update={"gold_option": 6})])


def duplicate_options(c):
    q = _mcq(1, 2)
    _with_mcq(c, [q.model_copy(update={"options": q.options[:5] + [q.options[0]]})])


def leaked_answer(c):
    q = c["questions"][0]
    c["questions"][0] = q.model_copy(update={"question": f"Is it {q.answer}, the city where p0001 lives?"})


def error_finding(c):
    c["verifier_findings"] = [Finding(finding_id="p0001-v0001", persona_id="p0001", stage="questions",
                                      artifact_id="p0001-q0001", check="x", severity="error", message="bad")]


def unresolvable_fact(c):
    c["question_evidence"][0] = c["question_evidence"][0].model_copy(update={"fact_id": "p0001-f9999"})


def ghost_document(c):
    c["turns"][1] = c["turns"][1].model_copy(update={"doc_ids": ["p0001-d0404"]})


def gold_skew(c):
    _with_mcq(c, [_mcq(n, 0) for n in range(36)])


def ghost_session(c):
    c["turns"][0] = c["turns"][0].model_copy(update={"session_id": "p0001-s0404"})


def withdrawn_left(c):
    c["question_reviews"][0] = review(c["questions"][0], status="withdrawn")


def gold_longest(c):
    items = []
    for n in range(36):
        q = _mcq(n, n % 6)
        options = list(q.options)
        options[q.gold_option] = options[q.gold_option] + " which is by far the longest option"
        items.append(q.model_copy(update={"options": options, "answer": options[q.gold_option]}))
    _with_mcq(c, items)


def turn_cites_ghost_fact(c):
    c["turns"][0] = c["turns"][0].model_copy(update={"fact_ids": ["p0001-f0001", "p0001-f0404"]})


TEMPORAL_FLOOR = GATE_CONFIG.model_copy(
    update={"gates": GateOptions(**{**GATE_CONFIG.gates.model_dump(), "category_floors": {"fact": 1, "temporal": 1}})}
)
MUTATIONS = [
    (dangling_evidence, ["question_evidence.evidence resolves"], GATE_CONFIG),
    (evidence_after_question, ["question_evidence.evidence precedes question_time"], GATE_CONFIG),
    (duplicate_question, ["questions.question_id unique", "tables.ids unique in every table"], GATE_CONFIG),
    (empty_answer, ["questions.answer not empty"], GATE_CONFIG),
    (gold_missing, ["mcq.one gold among options"], GATE_CONFIG),
    (duplicate_options, ["mcq.options distinct"], GATE_CONFIG),
    (leaked_answer, ["leakage.answer not in question"], GATE_CONFIG),
    (lambda c: None, ["coverage.category above floor"], TEMPORAL_FLOOR),
    (error_finding, ["consistency.no error finding left"], GATE_CONFIG),
    (unresolvable_fact, ["question_evidence.fact_id resolves"], GATE_CONFIG),
    (turn_cites_ghost_fact, ["references.fact ids resolve"], GATE_CONFIG),
    (ghost_document, ["references.document ids resolve"], GATE_CONFIG),
    (gold_skew, ["leakage.gold position uniform"], GATE_CONFIG),
    (ghost_session, ["references.session ids resolve"], GATE_CONFIG),
    (withdrawn_left, ["consistency.questions reviewed and kept"], GATE_CONFIG),
    (gold_longest, ["leakage.gold longest share near chance"], GATE_CONFIG),
]


def _ids() -> list[str]:
    return [f"{m.__name__}->{names[0]}" for m, names, _ in MUTATIONS]


@pytest.mark.parametrize(("mutate", "expectations", "config"), MUTATIONS, ids=_ids())
def test_mutation_fails_the_named_expectation(corpus, con_for, mutate, expectations, config):
    mutate(corpus)
    report = run_gates(con_for({"r1": corpus}), "r1", config=config)
    assert not report.success
    failed = {r.expectation for r in report.failed()}
    for name in expectations:
        assert name in failed, report.failure_message()
        assert name in report.failure_message()
    assert "**FAIL**" in report.markdown()


def test_evidence_said_in_other_words_carries_its_fact_only_by_its_recorded_mention(corpus, con_for):
    corpus["turns"][0] = corpus["turns"][0].model_copy(update={"text": "I live in the Portuguese capital now."})
    failed = {r.expectation for r in run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG).failed()}
    assert "consistency.evidence carries its fact" in failed
    said = FactMention(mention_id="p0001-s0001-t01-m1", persona_id="p0001", fact_id="p0001-f0001",
                       evidence_id="p0001-s0001-t01", evidence_kind="turn", mode="paraphrased",
                       span="the Portuguese capital")
    for mention, carried in ((said.model_copy(update={"counts": False}), False), (said, True)):
        corpus["fact_mentions"] = [mention]
        failed = {r.expectation for r in run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG).failed()}
        assert ("consistency.evidence carries its fact" not in failed) == carried


def test_outcome_share_far_from_p_fails(corpus, con_for):
    config = GATE_CONFIG.model_copy(update={"rollout_p": 0.2})
    corpus["events"] = [corpus["events"][0].model_copy(update={"event_id": f"p0001-e1{i:03d}", "plan_id": "x"})
                        for i in range(25)] + corpus["events"]
    report = run_gates(con_for({"r1": corpus}), "r1", config=config)
    assert {r.expectation for r in report.failed()} == {"distribution.positive outcome share near p"}


@pytest.mark.parametrize(("n", "positive", "passes"), [(21, 10, True), (200, 96, False), (200, 128, True)])
def test_outcome_share_allows_chance_deviation_in_a_small_sample(corpus, con_for, n, positive, passes):
    """10 of 21 positive at rollout_p 0.7 is 2.2 standard errors off: chance in a two-week run, not a broken
    simulator; 96 of 200 is 6.5 standard errors off and fails."""
    config = GATE_CONFIG.model_copy(update={"rollout_p": 0.7})
    base = corpus["events"][0]
    corpus["events"] = [base.model_copy(update={"event_id": f"p0001-e1{i:03d}", "plan_id": "x",
                                                "valence": "positive" if i < positive else "negative"})
                        for i in range(n)] + [e for e in corpus["events"] if e.plan_id is None]
    report = run_gates(con_for({"r1": corpus}), "r1", config=config)
    assert ("distribution.positive outcome share near p" not in {r.expectation for r in report.failed()}) == passes


def test_domain_quota_fails_when_unmet(corpus, con_for):
    gates = GateOptions(**{**GATE_CONFIG.gates.model_dump(), "domain_quotas": {"finance": 5}})
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG.model_copy(update={"gates": gates}))
    assert {r.expectation for r in report.failed()} == {"distribution.domain quota met"}


def test_balanced_mcq_passes(corpus, con_for):
    _with_mcq(corpus, [_mcq(n, n % 6) for n in range(36)])
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    # one template writes all 36 items, which the validity gate rightly refuses (questions.top_template_share)
    assert {r.expectation for r in report.failed()} <= {"questions.question has evidence",
                                                       "validity.questions measures within thresholds"}


# -- question-generation gates (issue 6) -----------------------------------------------------------
def _gates(**changes) -> object:
    return GATE_CONFIG.model_copy(update={"gates": GateOptions(**{**GATE_CONFIG.gates.model_dump(), **changes})})


def test_a_dominant_category_fails_the_share_bound(corpus, con_for):
    report = run_gates(con_for({"r1": corpus}), "r1", config=_gates(max_category_share=0.3, min_questions_for_share=1))
    assert {r.expectation for r in report.failed()} == {"distribution.category share under bound"}
    assert "corpus/fact" in report.failure_message() and "p0001/fact" in report.failure_message()


def test_a_characteristic_outside_its_category_fails(corpus, con_for):
    corpus["questions"][0] = corpus["questions"][0].model_copy(update={"characteristics": ["fabrication"]})
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert "questions.characteristic of its category" in {r.expectation for r in report.failed()}


def test_only_zero_memory_controls_may_go_without_evidence(corpus, con_for):
    corpus["question_evidence"] = [e for e in corpus["question_evidence"] if e.question_id != "p0001-q0001"]
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert {r.expectation for r in report.failed()} == {"questions.question has evidence"}
    corpus["questions"][0] = corpus["questions"][0].model_copy(update={"checkpoint": "zero_memory"})
    assert run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG).success


def test_structural_evidence_without_a_fact_passes(corpus, con_for):
    corpus["question_evidence"][2] = corpus["question_evidence"][2].model_copy(update={"fact_id": None})
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert report.success, report.failure_message()


def test_a_persona_with_too_few_questions_fails(corpus, con_for):
    from tests.tasks.worldfixture import make_persona

    corpus["personas"] = [make_persona()]
    assert run_gates(con_for({"r1": corpus}), "r1", config=_gates(min_questions_per_persona=2)).success
    report = run_gates(con_for({"r1": corpus}), "r1", config=_gates(min_questions_per_persona=3))
    assert {r.expectation for r in report.failed()} == {"distribution.questions per persona"}


def test_options_equal_after_normalization_are_not_distinct(corpus, con_for):
    q = _mcq(1, 2)
    _with_mcq(corpus, [q.model_copy(update={"options": q.options[:5] + [q.options[0].upper() + "!"]})])
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert "mcq.options distinct" in {r.expectation for r in report.failed()}
