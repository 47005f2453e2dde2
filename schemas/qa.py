"""Benchmark questions and the evidence links that justify their answers."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
FINPERMA_CHARACTERISTICS: dict[str, tuple[str, ...]] = {
    "memory_fidelity": ("event_recall", "reaction_recall", "stated_preference_recall"),
    "preference_reasoning": ("current_risk_stance", "shift_direction", "shift_cause"),
    "context_adaptation": ("suitable_option", "constraint_compliance", "bias_guard"),
}
"""FinPerMA's three dimensions (memory fidelity, preference reasoning, context adaptation) as categories,
three characteristics each; crossed with the four CHECKPOINTS they make the finance pack's grid."""
TAXONOMIES: dict[str, dict[str, tuple[str, ...]]] = {"rhelm": CHARACTERISTICS, "finperma": FINPERMA_CHARACTERISTICS}
"""Question taxonomies by name; a domain pack names the one its questions use."""
ALL_CATEGORIES: tuple[str, ...] = tuple(c for tax in TAXONOMIES.values() for c in tax)
CHECKPOINTS = ("zero_memory", "in_timeline", "post_distraction", "post_shock")
ANSWER_TYPES = ("short", "long", "mcq")
MCQ_OPTIONS = 6
"""A multiple-choice item has six options (FinPerMA's form): one gold, five distractors."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Question(_Row):
    question_id: str
    persona_id: str
    category: str = Field(description="a category of one of TAXONOMIES (RHELM's seven or FinPerMA's three)")
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


    @property
    def abstention(self) -> str | None:
        """The abstention kind of an unanswerable item (`derivation["abstention"]`: never_said, someone_else,
        only_planned; `unanswerable` for an imported one), else None: its gold is a decline."""
        found = self.derivation.get("abstention") if isinstance(self.derivation, dict) else None
        return str(found) if found else None

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        if value not in ALL_CATEGORIES:
            raise ValueError(f"unknown question category {value!r}; known: {', '.join(ALL_CATEGORIES)}")
        return value


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

    def table_rows(self) -> dict[str, list]:
        """The rows this question set lands, by table."""
        return {"questions": self.questions, "question_evidence": self.evidence}


class RephrasedQuestion(BaseModel):
    """Output of the `rephrase_question` prompt: the same question in other words."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=400)
