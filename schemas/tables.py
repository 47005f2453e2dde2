"""The table contract: one entry per public table, with its row model and its Arrow schema.

Arrow types are derived from the pydantic field annotations: str -> string, int -> int64,
float -> float64, bool -> bool, date -> date32, datetime -> timestamp(us, UTC), list[str] ->
list<string>; anything else (dicts, nested models, list[Any]) is stored as a JSON string. Every
table also carries `run_id`.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import types
import typing
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pydantic import BaseModel

from schemas.audit import Finding, GateResult, QuestionReview
from schemas.companion import ChatProbe, PortraitSlot, ProfileClaim
from schemas.corpus import Bullet, Chunk, Document, FactMention, Session, Turn
from schemas.eval import EvalResult
from schemas.finance import ImpactConstraint
from schemas.llm import LLMCall
from schemas.metrics import MeasureRow, QuestionCalibration, QuestionDifficulty
from schemas.profile import Persona
from schemas.qa import Evidence, Question
from schemas.release import ReleaseRecord, RunRecord
from schemas.tiers import TierChatTurn, TierItem, TierQuestion, TierRow
from schemas.world import Constraint, Event, Fact, Plan, ProfileOp, ProfileSnapshot, WorldEntity


@dataclass(frozen=True)
class Table:
    name: str
    model: type[BaseModel]
    key: tuple[str, ...]
    per_persona: bool = True
    volatile: tuple[str, ...] = ()
    """Columns excluded from content hashes because they vary between identical builds."""

    @property
    def arrow_schema(self) -> pa.Schema:
        return arrow_schema(self.model)


TABLES: dict[str, Table] = {
    t.name: t
    for t in [
        Table("personas", Persona, ("persona_id",)),
        Table("profile_snapshots", ProfileSnapshot, ("persona_id", "as_of")),
        Table("profile_ops", ProfileOp, ("op_id",)),
        Table("plans", Plan, ("plan_id",)),
        Table("events", Event, ("event_id",)),
        Table("facts", Fact, ("fact_id",)),
        Table("constraints", Constraint, ("constraint_id",)),
        Table("entities", WorldEntity, ("entity_id",)),
        Table("documents", Document, ("doc_id",)),
        Table("chunks", Chunk, ("chunk_id",)),
        Table("bullets", Bullet, ("bullet_id",)),
        Table("sessions", Session, ("session_id",)),
        Table("turns", Turn, ("turn_id",)),
        Table("fact_mentions", FactMention, ("mention_id",)),
        Table("questions", Question, ("question_id",)),
        Table("question_evidence", Evidence, ("question_id", "evidence_id", "fact_id")),
        Table("llm_calls", LLMCall, ("call_key", "stage", "persona_id"),
              volatile=("latency_ms", "cached", "cost_usd", "requests", "batch_id")),
        Table("verifier_findings", Finding, ("finding_id",)),
        Table("question_reviews", QuestionReview, ("question_id",)),
        Table("impact_constraints", ImpactConstraint, ("constraint_id",)),
        Table("chat_probes", ChatProbe, ("probe_id",)),
        Table("profile_claims", ProfileClaim, ("claim_id",)),
        Table("persona_portraits", PortraitSlot, ("persona_id", "slot")),
        Table("gate_results", GateResult, ("suite", "expectation", "column_name"), per_persona=False),
        Table("measures", MeasureRow, ("measure",), per_persona=False),
        Table("question_difficulty", QuestionDifficulty, ("question_id",), per_persona=False),
        Table("question_calibration", QuestionCalibration, ("question_id",), per_persona=False),
        Table("tiers", TierRow, ("tier", "persona_id"), per_persona=False),
        Table("tier_history", TierItem, ("tier", "persona_id", "position"), per_persona=False),
        Table("tier_questions", TierQuestion, ("tier", "question_id"), per_persona=False),
        Table("tier_chats", TierChatTurn, ("chat_id", "ordinal"), per_persona=False),
        Table("runs", RunRecord, ("run_id",), per_persona=False),
        Table("releases", ReleaseRecord, ("name", "version"), per_persona=False),
        Table("eval_results", EvalResult, ("eval_id", "system", "setting", "k", "question_id"), per_persona=False),
    ]
}

CORPUS_TABLES = tuple(n for n, t in TABLES.items() if t.per_persona)
"""Tables a persona branch produces; a release holds these plus gate_results, measures, question_difficulty,
question_calibration (the questions withdrawn across personas: tasks/questions/calibrate.py) and the tier tables."""
TIER_TABLES = ("tiers", "tier_history", "tier_questions", "tier_chats")
"""The length tiers of a release (tasks/tiers/), built across personas after the calibration."""
RELEASE_TABLES = CORPUS_TABLES + ("gate_results", "measures", "question_difficulty", "question_calibration",
                                  *TIER_TABLES)
"""`eval_results` is written by `lifeloom eval` next to a release (warehouse/evaluation.py), never into it."""
WITHDRAWN_BY_CALIBRATION = ("questions", "question_evidence", "question_reviews")
"""Tables whose views apply `question_calibration`: its questions and their evidence are left out, their reviews
read withdrawn (warehouse/catalog.py)."""


def _arrow_type(annotation: Any) -> pa.DataType:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _arrow_type(args[0]) if len(args) == 1 else pa.string()
    if origin is typing.Literal:
        return pa.string()
    if origin is list and typing.get_args(annotation) == (str,):
        return pa.list_(pa.string())
    simple = {
        str: pa.string(),
        int: pa.int64(),
        float: pa.float64(),
        bool: pa.bool_(),
        dt.date: pa.date32(),
        dt.datetime: pa.timestamp("us", tz="UTC"),
    }
    return simple.get(annotation, pa.string())


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    """The Arrow schema of a table whose rows are `model`, plus the `run_id` column."""
    hints = typing.get_type_hints(model)
    fields = [pa.field("run_id", pa.string(), nullable=False)]
    fields += [pa.field(name, _arrow_type(hints[name])) for name in model.model_fields if name != "run_id"]
    return pa.schema(fields)


@functools.cache  # called for every row and column when landing
def is_json_column(model: type[BaseModel], column: str) -> bool:
    """True when the column is stored as a JSON string (dicts, nested models, lists of non-strings)."""
    hints = typing.get_type_hints(model)
    return _arrow_type(hints[column]) == pa.string() and _json_like(hints[column])


def _json_like(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_json_like(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin in (dict, list):
        return True
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def to_record(row: BaseModel, run_id: str) -> dict[str, Any]:
    """A row as a dict matching the table's Arrow schema (JSON columns serialized, sorted keys)."""
    model = type(row)
    out: dict[str, Any] = {"run_id": run_id}
    data = row.model_dump(mode="python")
    as_json = None
    for name in model.model_fields:
        value = data[name]
        if is_json_column(model, name):
            as_json = as_json if as_json is not None else row.model_dump(mode="json")
            value = json.dumps(as_json[name], sort_keys=True, ensure_ascii=False)
        elif isinstance(value, dt.datetime):
            value = value.astimezone(dt.UTC)
        out[name] = value
    return out


def to_arrow(table: str, rows: list[BaseModel], run_id: str) -> pa.Table:
    """Rows of one table as an Arrow table with the contract schema."""
    spec = TABLES[table]
    records = [to_record(r, run_id) for r in rows]
    return pa.Table.from_pylist(records, schema=spec.arrow_schema)


def from_records(model: type[BaseModel], records: list[dict[str, Any]]) -> list[BaseModel]:
    """Rows read back from a table (dicts of its columns) as `model`s: JSON columns parsed, nulls left to the
    model's defaults."""
    json_cols = [c for c in model.model_fields if is_json_column(model, c)]
    out = []
    for rec in records:
        for c in json_cols:
            if isinstance(rec.get(c), str):
                rec[c] = json.loads(rec[c])
        out.append(model.model_validate({k: v for k, v in rec.items() if v is not None}))
    return out


DUCK_TYPES = {
    pa.string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
    pa.bool_(): "BOOLEAN",
    pa.date32(): "DATE",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
    pa.list_(pa.string()): "VARCHAR[]",
}
"""The one Arrow-to-DuckDB type map of the table contract."""


def empty_relation(table: str) -> str:
    """SQL for no rows of `table`, with the contract's columns and DuckDB types."""
    cols = ", ".join(f"cast(null as {DUCK_TYPES[f.type]}) as {f.name}" for f in TABLES[table].arrow_schema)
    return f"select {cols} where false"
