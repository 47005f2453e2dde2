"""Benchmark questions and the evidence links that justify their answers."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

QUESTION_CATEGORIES = (
    "fact", "temporal", "hallucination", "aggregation", "misleading", "external", "mixed",
)
CHECKPOINTS = ("zero_memory", "in_timeline", "post_distraction", "post_shock")


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Question(_Row):
    question_id: str
    persona_id: str
    category: Literal["fact", "temporal", "hallucination", "aggregation", "misleading", "external", "mixed"]
    characteristics: list[str] = Field(min_length=1)
    question_time: dt.datetime
    question: str
    answer: str
    reference_answer: str
    answer_type: Literal["short", "long", "mcq"]
    options: list[str] = Field(default_factory=list)
    gold_option: int | None = None
    checkpoint: str = "in_timeline"
    derivation: dict[str, Any] = Field(description="template, query over the fact store, computed answer, facts used")


class Evidence(_Row):
    question_id: str
    evidence_id: str
    evidence_kind: Literal["turn", "chunk"]
    fact_id: str


class QuestionSet(_Row):
    questions: list[Question] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
