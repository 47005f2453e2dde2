"""The integrity suite: ids unique and resolving, evidence before the question (zero-memory controls need
none; structural evidence has no fact), a characteristic of the question's category, a known checkpoint,
answers and MCQ shape (six options, distinct after normalization, the gold option is the answer)."""

from __future__ import annotations

from schemas.config import BuildConfig
from validation.frames import evidence_frame, key_frame, mcq_frame, question_frame, reference_frame
from validation.suites import Check, Suite, all_true, between, factory


def _q(name: str, expectation: str, sample: str | None = "question_id", on_failure: str = "", **kwargs) -> Check:
    return Check(name, "questions", expectation, kwargs, sample, on_failure)


QUESTION_CHECKS = (
    _q("questions present", "ExpectTableRowCountToBeBetween", None, "no questions", min_value=1),
    _q("questions.question_id unique", "ExpectColumnValuesToBeUnique", column="question_id"),
    _q("questions.question_id not null", "ExpectColumnValuesToNotBeNull", "persona_id", column="question_id"),
    _q("questions.answer not null", "ExpectColumnValuesToNotBeNull", column="answer"),
    _q("questions.answer not empty", "ExpectColumnValuesToMatchRegex", column="answer", regex=r"\S"),
    all_true("questions.question has evidence", "questions", "has_evidence", "question_id",
             "a question other than a zero-memory control has no evidence"),
)
EVIDENCE_CHECKS = (
    all_true("question_evidence.evidence resolves", "question_evidence", "resolves", "evidence_id"),
    all_true("question_evidence.evidence precedes question_time", "question_evidence", "precedes", "evidence_id"),
    all_true("question_evidence.fact_id resolves", "question_evidence", "fact_resolves", "fact_id"),
    all_true("question_evidence.question_id resolves", "question_evidence", "question_resolves", "question_id"),
)
REFERENCE_CHECKS = tuple(
    all_true(f"references.{kind} ids resolve", "references", f"{kind}_ok", "ref_id")
    for kind in ("document", "session", "bullet", "fact", "event")
)
SHAPE_CHECKS = (
    between("tables.ids unique in every table", "keys", "n", "id", "a key occurs more than once", high=1),
    between("mcq.six options", "mcq", "n_options", "question_id", low=6, high=6),
    all_true("mcq.options distinct", "mcq", "distinct_options", "question_id"),
    all_true("mcq.one gold among options", "mcq", "gold_is_answer", "question_id"),
)
TAXONOMY_CHECKS = (
    all_true("questions.characteristic of its category", "taxonomy", "characteristic_ok", "question_id",
             "no characteristic of the question belongs to its category"),
    all_true("questions.checkpoint known", "taxonomy", "checkpoint_ok", "question_id"),
)

INTEGRITY = Suite(
    name="integrity",
    frames={"questions": question_frame, "question_evidence": evidence_frame, "references": reference_frame,
            "keys": key_frame, "mcq": mcq_frame, "taxonomy": question_frame},
    checks=QUESTION_CHECKS + EVIDENCE_CHECKS + REFERENCE_CHECKS + SHAPE_CHECKS + TAXONOMY_CHECKS,
)


@factory("integrity")
def integrity_suite(config: BuildConfig) -> Suite:
    """Integrity has no thresholds: the same suite for every config."""
    return INTEGRITY
