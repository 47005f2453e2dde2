"""Verifier findings and gate results."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Finding(_Row):
    finding_id: str
    persona_id: str | None = None
    stage: str
    artifact_id: str
    check: str
    severity: Literal["error", "warning", "info"]
    message: str
    suggestion: str = ""


class GateResult(_Row):
    suite: str
    expectation: str
    column_name: str | None = None
    success: bool
    unexpected_count: int = 0
    sample: list[Any] = []
    observed: list[str] = []
    """For a failure: what each sampled offending row holds (`fact: n 7, floor 1000`), or the observed value."""
    threshold: str = ""
    """What the expectation asks (`n >= floor`, `share <= 0.3`, `every has_evidence in [True]`)."""
    note: str = ""
    """Why it failed, when the rows alone do not say (`no questions`, an error, what a failure means)."""


class QuestionReview(_Row):
    """The aggregate QA verifier's verdict on one question: scores in [0, 1] and kept or withdrawn."""

    question_id: str
    persona_id: str
    category: str
    template: str = ""
    question: str = ""
    answer: str = ""
    correctness: float
    uniqueness: float
    consistency: float
    quality: float
    overall: float
    status: Literal["kept", "withdrawn"]
    reason: str = ""
    """The first failed dimension for a withdrawn item (e.g. `correctness`), else empty."""
    details: list[str] = []
