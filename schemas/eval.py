"""Evaluation results: one row per (system, setting, k, question) of a run of `lifeloom eval`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCORE_METHODS = ("exact", "numeric", "option", "decline", "judge", "judge_majority")
OFFLINE_READER = "offline-extractive"
"""The reader label of the deterministic extractive reader (no model call)."""


class EvalResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    eval_id: str = Field(description="the evaluation run: a hash of release, systems, settings, ks and reader")
    release: str = Field(description="name/version of the frozen release evaluated")
    system: str
    setting: Literal["turns", "chunks", "both"]
    k: int = Field(description="how many retrieved items the reader saw")
    question_id: str
    persona_id: str
    category: str
    characteristics: list[str] = Field(default_factory=list)
    checkpoint: str
    answer_type: str
    retrieved_ids: list[str] = Field(default_factory=list, description="item ids, best first (top k)")
    n_gold: int = Field(0, description="evidence items of the question present before its question_time")
    hit_at_1: float | None = None
    hit_at_5: float | None = None
    hit_at_20: float | None = None
    recall_at_5: float | None = None
    recall_at_20: float | None = None
    recall_at_50: float | None = None
    mrr: float | None = None
    answer: str = Field("", description="the reader's answer")
    correct: bool | None = None
    score_method: Literal["exact", "numeric", "option", "decline", "judge", "judge_majority"]
    judge_agreement: float | None = Field(None, description="share of judges agreeing with the majority verdict")
    reader: str = Field(description=f"{OFFLINE_READER!r} offline, else provider/model")
    judge: str = Field("", description="judge label for judge-scored rows (offline: 'offline-judge')")


class ReaderAnswer(BaseModel):
    """Output of the `reader_answer` prompt."""

    model_config = ConfigDict(extra="forbid")
    answer: str = Field(max_length=2000)


class JudgeVerdict(BaseModel):
    """Output of the `judge_answer` prompt: a binary verdict and a one-line reason."""

    model_config = ConfigDict(extra="forbid")
    correct: bool
    reason: str = Field("", max_length=500)
