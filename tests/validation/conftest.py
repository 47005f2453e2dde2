"""A tiny, clean corpus for the gate tests, built from real rows and registered in an in-memory DuckDB."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import duckdb
import pyarrow as pa
import pytest

from schemas.audit import QuestionReview
from schemas.config import BuildConfig, GateOptions
from schemas.corpus import Chunk, Document, Session, Turn
from schemas.qa import Evidence, Question
from schemas.tables import to_arrow
from schemas.world import Event, Fact

UTC = dt.UTC
GATE_TABLES = ("questions", "question_evidence", "turns", "chunks", "facts", "documents", "sessions", "events",
               "question_reviews", "verifier_findings", "llm_calls", "bullets", "personas", "fact_mentions")
GATE_CONFIG = BuildConfig(name="t", gates=GateOptions(
    category_floors={"fact": 1}, characteristic_floors={"state_dependent_attribute": 1},
    source_type_floors={"email": 1}, format_floors={"txt": 1}, dialogue_category_floors={"information_sharing": 1},
    max_category_share=1.0), stages={"companion": {"enabled": False}})
"""Floors the tiny clean corpus (one category only) meets; it has no companion tracks (their suite is
tested in test_companion_gates.py)."""
Corpus = dict[str, list]


def _at(day: int, hour: int = 9) -> dt.datetime:
    return dt.datetime(2025, 1, day, hour, tzinfo=UTC)


def _question(qid: str, day: int, answer: str) -> Question:
    return Question(
        question_id=qid,
        persona_id="p0001",
        category="fact",
        characteristics=["state_dependent_attribute"],
        question_time=_at(day, 18),
        question=f"What is the answer to {qid}?",
        answer=answer,
        reference_answer=answer,
        answer_type="short",
        derivation={"template": "fact.current_value", "facts": ["p0001-f0001"]},
    )


def clean_corpus() -> Corpus:
    """Two questions: one cites a turn, the other a turn and a chunk; every id resolves and precedes."""
    facts = [
        Fact(
            fact_id=f"p0001-f000{i}",
            persona_id="p0001",
            event_id=f"p0001-e000{i}",
            subject="p0001",
            attribute=attr,
            value=value,
            valid_from=dt.date(2025, 1, i),
            surface_forms=[value],
        )
        for i, (attr, value) in enumerate([("city", "Lisbon"), ("employer", "Acme")], start=1)
    ]
    turns = [
        Turn(
            turn_id=f"p0001-s0001-t0{i}",
            session_id="p0001-s0001",
            persona_id="p0001",
            timestamp=_at(1, 9 + i),
            role="user",
            text=f"I moved to Lisbon ({i}).",
            fact_ids=["p0001-f0001"],
        )
        for i in (1, 2)
    ]
    chunks = [
        Chunk(
            chunk_id="p0001-d0001-c00",
            doc_id="p0001-d0001",
            persona_id="p0001",
            created_at=_at(2),
            ordinal=0,
            text="Welcome to Acme.",
            n_tokens=4,
            fact_ids=["p0001-f0002"],
        )
    ]
    questions = [_question("p0001-q0001", 3, "Lisbon"), _question("p0001-q0002", 4, "Acme")]
    evidence = [
        Evidence(
            question_id="p0001-q0001",
            evidence_id="p0001-s0001-t01",
            evidence_kind="turn",
            fact_id="p0001-f0001",
        ),
        Evidence(
            question_id="p0001-q0002",
            evidence_id="p0001-s0001-t02",
            evidence_kind="turn",
            fact_id="p0001-f0001",
        ),
        Evidence(
            question_id="p0001-q0002",
            evidence_id="p0001-d0001-c00",
            evidence_kind="chunk",
            fact_id="p0001-f0002",
        ),
    ]
    return {
        "questions": questions,
        "question_evidence": evidence,
        "turns": turns,
        "chunks": chunks,
        "facts": facts,
        "documents": [Document(doc_id="p0001-d0001", persona_id="p0001", created_at=_at(2), source_type="email",
                               format="txt", title="Welcome", body="Welcome to Acme.", fact_ids=["p0001-f0002"])],
        "sessions": [Session(session_id="p0001-s0001", persona_id="p0001", started_at=_at(1, 9),
                             category="information_sharing")],
        "events": [Event(event_id=f"p0001-e000{i}", persona_id="p0001", date=dt.date(2025, 1, i), plan_id=None,
                         kind="move", valence="positive", severity=2, critical=False, narrative="n") for i in (1, 2)],
        "question_reviews": [review(q) for q in questions],
    }


def review(q: Question, status: str = "kept") -> QuestionReview:
    return QuestionReview(question_id=q.question_id, persona_id=q.persona_id, category=q.category, correctness=1,
                          uniqueness=1, consistency=1, quality=1, overall=1, status=status)


def connect(runs: dict[str, Corpus], tables: tuple[str, ...] = GATE_TABLES) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with each table registered from the rows of every run."""
    con = duckdb.connect()
    for table in tables:
        parts = [to_arrow(table, corpus.get(table, []), run_id) for run_id, corpus in runs.items()]
        con.register(table, pa.concat_tables(parts))
    return con


@pytest.fixture
def corpus() -> Corpus:
    return clean_corpus()


@pytest.fixture
def con_for() -> Callable[..., duckdb.DuckDBPyConnection]:
    return connect
