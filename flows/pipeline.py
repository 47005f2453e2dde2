"""The pipeline, declared once: every per-persona stage with its module, inputs, gateway, prompts, the config option
tables it reads, the tables it lands and its version. Everything that used to repeat this is derived from it: the
stage order (flows/build.py), the task inputs and the landing (flows/build.py), the cache-key tables
(flows/fingerprint.py) and the progress total (flows/runner.py). The stage tasks themselves are in flows/stages.py,
one per declared stage (tests/flows/test_pipeline.py checks both ways).

A stage's value says which rows it holds by table (`table_rows`, a method of its schemas/ model: Persona, World,
Corpus, QuestionSet, CompanionSet); the stage lands those of its `lands` tables, so landing takes a mapping of
stage name to value, never positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ALL_OPTIONS = ("loop", "sources", "dialogue", "questions")
"""The [stages.*] option tables a stage reads when it declares none (it may read any of them)."""


@dataclass(frozen=True)
class Stage:
    name: str
    module: str
    """The tasks/ module whose code closure (with the package data) is part of the stage's cache key."""
    inputs: tuple[str, ...] = ()
    """Upstream stages, in the order of the task's parameters (the order of its cache key's digests)."""
    gateway: str | None = None
    """The gateway (and [stages.providers] key) the stage calls models through; None: it makes no model calls."""
    prompts: tuple[str, ...] = ()
    options: tuple[str, ...] = ALL_OPTIONS
    """The [stages.*] option tables that can change its output."""
    lands: tuple[str, ...] = ()
    """The tables its value's rows land in (besides the extra rows a task returns, e.g. question_reviews)."""
    version: int = 1
    """Bump to invalidate the stage's cached results when the code hash cannot see a change."""


PIPELINE: tuple[Stage, ...] = (
    Stage("profile", "tasks.world.profile", gateway="profile", prompts=("profile",), options=(),
          lands=("personas",)),
    Stage("loop", "tasks.world.loop", ("profile",), gateway="loop", prompts=("outcome", "impact_reaction"),
          options=("loop",), lands=("profile_snapshots", "profile_ops", "plans", "events", "facts", "constraints",
                                    "entities")),
    Stage("sources", "tasks.sources.stage", ("profile", "loop"), gateway="sources",
          prompts=("email", "email_notice", "journal", "report_questions", "report"), options=("loop", "sources"),
          lands=("documents", "chunks")),
    Stage("dialogue", "tasks.dialogue.stage", ("profile", "loop", "sources"), gateway="dialogue",
          prompts=("user_turn_initial", "user_turn_followup", "user_turn_filler", "user_turn_callback",
                   "user_turn_correction",
                   "assistant_turn", "fact_check"), options=("loop", "sources", "dialogue"),
          lands=("bullets", "sessions", "turns", "fact_mentions")),
    Stage("questions", "tasks.questions.stage", ("profile", "loop", "sources", "dialogue"), gateway="questions",
          prompts=("rephrase_question",)),
    Stage("review", "tasks.questions.review", ("profile", "loop", "sources", "dialogue", "questions"),
          lands=("questions", "question_evidence")),
    Stage("verify", "tasks.verify", ("profile", "loop", "sources", "dialogue", "review"),
          lands=("verifier_findings",)),
    Stage("companion", "tasks.companion", ("profile", "loop", "sources", "dialogue"), gateway="companion",
          prompts=("companion_reply",), options=("loop", "sources", "dialogue", "companion"),
          lands=("chat_probes", "profile_claims", "persona_portraits")),
)

STAGES: dict[str, Stage] = {s.name: s for s in PIPELINE}
STAGE_ORDER: tuple[str, ...] = (*STAGES, "land")
"""The per-persona steps, in order (progress displays count these)."""

EVAL_PROMPTS = ("reader_answer", "judge_answer")
"""Prompts of `lifeloom eval` (not a build stage)."""


def stage_rows(stage: Stage, value: Any) -> dict[str, list]:
    """The rows `value` (the stage's result) lands, by table: those of its `lands` tables. A value that is a plain
    list (the verifier's findings) is the rows of the stage's single table."""
    if not stage.lands:
        return {}
    if isinstance(value, list):
        (table,) = stage.lands
        return {table: value}
    rows = value.table_rows()
    return {table: rows[table] for table in stage.lands}
