"""Benchmark questions and the evidence links that justify their answers."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

QUESTION_CATEGORIES = (
    "fact", "temporal", "hallucination", "aggregation", "misleading", "external", "mixed",
)
CHARACTERISTICS: dict[str, tuple[str, ...]] = {
    "fact": ("multi_hop_traversal", "entity_disambiguation", "state_dependent_attribute", "negative_constraints"),
    "temporal": (
        "indirect_identification", "sequence_comprehension", "long_horizon_synthesis", "implicit_temporal_lookup",
    ),
    "hallucination": ("misattribution", "fabrication", "preference_conflict", "contextual_contradiction"),
    "aggregation": ("conditional_counting", "trend_analysis", "extreme_value", "absence_detection"),
    "misleading": ("implicit_state_conflict", "proactive_response"),
    "external": (
        "attachment_fact_retrieval", "table_reasoning", "structural_navigation", "table_aggregation",
        "email_cross_time_count", "email_localization",
    ),
    "mixed": ("relative_positioning", "contextual_retrieval", "post_modification_analysis"),
}
"""The 27 characteristics, by category (exact names): RHELM's taxonomy."""
CHECKPOINTS = ("zero_memory", "in_timeline", "post_distraction", "post_shock")
ANSWER_TYPES = ("short", "long", "mcq")
MCQ_OPTIONS = 6
"""A multiple-choice item has six options (FinPerMA's form): one gold, five distractors."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Question(_Row):
    question_id: str
    persona_id: str
    category: Literal["fact", "temporal", "hallucination", "aggregation", "misleading", "external", "mixed"]
    characteristics: list[str] = Field(min_length=1)
    question_time: dt.datetime
    question: str
    answer: str = Field(description="the computed answer (what scoring compares); for mcq the gold option's text")
    reference_answer: str
    answer_type: Literal["short", "long", "mcq"]
    options: list[str] = Field(default_factory=list)
    gold_option: int | None = Field(None, description="0-based index of the gold option among `options`")
    checkpoint: Literal["zero_memory", "in_timeline", "post_distraction", "post_shock"] = "in_timeline"
    rubric: str = Field("", description="for long answers: what a judge must see (required points, what is wrong)")
    derivation: dict[str, Any] = Field(description="template, query over the fact store, computed answer, facts used")


class Evidence(_Row):
    question_id: str
    evidence_id: str
    evidence_kind: Literal["turn", "chunk"]
    fact_id: str | None = Field(
        None, description="the fact the item carries; null for structural evidence (a chunk holding a table/section)"
    )


class QuestionSet(_Row):
    questions: list[Question] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


class RephrasedQuestion(BaseModel):
    """Output of the `rephrase_question` prompt: the same question in other words."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=400)
