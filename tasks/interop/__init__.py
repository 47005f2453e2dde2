"""Converters between lifeloom rows and the formats the field already uses (RHELM, LoCoMo,
LongMemEval, Hugging Face Parquet folders).

Each format module is pure: it turns a `Bundle` of lifeloom rows into that format's JSON-like data (export)
and that data back into a Bundle (import). Nothing is dropped silently: whatever cannot be mapped lands in
the `Report` returned beside the rows (warehouse/interop.py does the file reading and writing).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from schemas.corpus import Chunk, Document, Session, Turn
from schemas.profile import (
    BigFive,
    CommunicationStyle,
    CurrentStatus,
    Identity,
    Persona,
    Personality,
    Profile,
    Traits,
)
from schemas.qa import Evidence, Question

EXPORT_FORMATS = ("hf", "rhelm", "locomo", "longmemeval")
IMPORT_FORMATS = ("rhelm", "locomo", "longmemeval")


@dataclass
class Issue:
    """Something that could not be mapped as is: `kind` says what (malformed_reference, borrowed_date, ...)."""

    kind: str
    ref: str
    message: str
    severity: str = "warning"


@dataclass
class Report:
    issues: list[Issue] = field(default_factory=list)

    def add(self, kind: str, ref: str, message: str, severity: str = "warning") -> None:
        self.issues.append(Issue(kind, ref, message, severity))

    def count(self, kind: str) -> int:
        return sum(1 for i in self.issues if i.kind == kind)

    def by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in self.issues:
            out[i.kind] = out.get(i.kind, 0) + 1
        return dict(sorted(out.items()))


@dataclass
class Bundle:
    """The rows an import produces or an export reads (facts may be absent)."""

    personas: list[Persona] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)

    TABLES = ("personas", "sessions", "turns", "documents", "chunks", "questions", "question_evidence")

    def rows(self, table: str) -> list:
        return self.evidence if table == "question_evidence" else getattr(self, table)

    def persona_ids(self) -> list[str]:
        return [p.persona_id for p in self.personas]


def documents_as_sessions(bundle: Bundle, report: Report) -> Bundle:
    """The closest faithful form of documents for a format that holds only conversations (LoCoMo, LongMemEval):
    each document becomes a session of its own, started when it was written, whose user messages are its chunks
    in order (turn id = chunk id, so chunk evidence becomes turn evidence on the same text), headed by what it is
    ("Email from ... : subject"). Behind the export's `--documents-as-sessions`; the report says how many."""
    if not bundle.documents:
        return bundle
    chunks: dict[str, list[Chunk]] = {}
    for c in sorted(bundle.chunks, key=lambda c: (c.doc_id, c.ordinal)):
        chunks.setdefault(c.doc_id, []).append(c)
    sessions, turns = list(bundle.sessions), list(bundle.turns)
    for d in bundle.documents:
        sessions.append(Session(session_id=d.doc_id, persona_id=d.persona_id, started_at=d.created_at,
                                category="attachment_consultation"))
        head = f"[{d.source_type} {d.title!r}" + (f" from {d.sender}" if d.sender else "") + "]"
        for k, c in enumerate(chunks.get(d.doc_id, [])):
            turns.append(Turn(turn_id=c.chunk_id, session_id=d.doc_id, persona_id=d.persona_id,
                              timestamp=max(c.created_at, d.created_at) + dt.timedelta(seconds=k), role="user",
                              text=f"{head} {c.text}" if k == 0 else c.text, category="attachment_consultation"))
    evidence = [e.model_copy(update={"evidence_kind": "turn"}) if e.evidence_kind == "chunk" else e
                for e in bundle.evidence]
    report.add("documents_as_sessions", "documents", f"{len(bundle.documents)} document(s) written as sessions of "
               f"their chunks ({len(bundle.chunks)} message(s)); chunk evidence points at those messages", "info")
    return Bundle(personas=bundle.personas, sessions=sessions, turns=turns, documents=[], chunks=[],
                  questions=bundle.questions, evidence=evidence)


def persona_id(index: int) -> str:
    """`p0001` for the first persona of an import (lifeloom's id form)."""
    return f"p{index:04d}"


def utc(value: dt.datetime) -> dt.datetime:
    """A naive timestamp read as UTC; an aware one converted to UTC."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


def imported_persona(pid: str, name: str, source: str) -> Persona:
    """A persona row for an imported benchmark: the name is real, every profile field is a placeholder
    ("unknown"), because the source formats carry no lifeloom profile."""
    unknown = "unknown"
    profile = Profile(
        identity=Identity(name=name, age=18, gender=unknown, occupation=unknown, employer=unknown, city=unknown,
                          country=unknown, timezone="UTC", education=unknown, income_band=unknown),
        personality=Personality(
            inner_character=unknown, behaviour_patterns=[], ideals=[], mbti="INFP",
            big_five=BigFive(openness=0.5, conscientiousness=0.5, extraversion=0.5, agreeableness=0.5,
                             neuroticism=0.5),
            communication=CommunicationStyle(formality=0.5, verbosity=0.5, emoji=False, vocabulary=[]),
        ),
        traits=Traits(hobbies=[], preferences={}, lifestyle=unknown),
        relationships=[], belongings=[],
        current_status=CurrentStatus(health=unknown, mood=unknown, ongoing_matters=[]),
    )
    return Persona(persona_id=pid, name=name, seed_text=f"imported from {source}", domain="imported",
                   profile=profile)


_CATEGORY_ALIASES = {"attachment": "external", "external": "external"}


def lifeloom_category(label: str) -> str | None:
    """A source question type as one of lifeloom's seven categories (RHELM's `attachment` is `external`)."""
    from schemas.qa import QUESTION_CATEGORIES

    label = label.strip().lower()
    label = _CATEGORY_ALIASES.get(label, label)
    return label if label in QUESTION_CATEGORIES else None


def snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def answer_type_for(category: str) -> str:
    """Hallucination and misleading items carry long reference answers (judged); the rest are short."""
    return "long" if category in ("hallucination", "misleading") else "short"


EXTRA_QUESTION_FIELDS = ("checkpoint", "answer_type", "options", "gold_option", "reference_answer", "rubric")
"""Question fields LoCoMo and LongMemEval have no key for, carried as extra keys their readers ignore."""


def question_extras(q: Question) -> dict:
    """The extra keys of an exported item, the question's derivation included."""
    return {f"lifeloom_{name}": getattr(q, name) for name in (*EXTRA_QUESTION_FIELDS, "derivation")}


def extras_of(item: dict, category: str, answer: str, derivation: dict) -> dict:
    """Question keyword arguments from an item's extra keys, with defaults for a plain item (`derivation`
    records where a plain item came from)."""
    out = {"checkpoint": "in_timeline", "answer_type": answer_type_for(category), "options": [], "gold_option": None,
           "reference_answer": answer, "rubric": "", "derivation": derivation}
    for name in (*EXTRA_QUESTION_FIELDS, "derivation"):
        if f"lifeloom_{name}" in item:
            out[name] = item[f"lifeloom_{name}"]
    return out
