"""Tiny hand-written corpora for the validity-measure tests."""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Bullet, Document, Turn
from schemas.qa import Evidence, Question
from schemas.world import Event, Fact, Plan, WorldEntity
from tasks.metrics.corpus import PersonaCorpus

T0 = dt.datetime(2024, 3, 1, 9, 0, tzinfo=dt.UTC)


def turn(pid: str, n: int, text: str, role: str = "user", session: int = 1, minutes: int | None = None,
         **extra) -> Turn:
    at = T0 + dt.timedelta(minutes=n if minutes is None else minutes)
    return Turn(turn_id=f"{pid}-s{session:04d}-t{n:02d}", session_id=f"{pid}-s{session:04d}", persona_id=pid,
                timestamp=at, role=role, text=text, **extra)


def question(pid: str, n: int, text: str, answer: str, template: str = "t.x", answer_type: str = "short",
             options: list[str] | None = None, category: str = "fact", at: dt.datetime | None = None,
             characteristics: tuple[str, ...] = ("multi_hop_traversal",), **derivation) -> Question:
    options = options or []
    return Question(question_id=f"{pid}-q{n:04d}", persona_id=pid, category=category,
                    characteristics=list(characteristics), question_time=at or T0 + dt.timedelta(days=30),
                    question=text, answer=answer, reference_answer=answer, answer_type=answer_type,
                    options=options, gold_option=options.index(answer) if options else None,
                    derivation={"template": template, **derivation})


def fact(pid: str, n: int, attribute: str, value: str, subject: str = "Ana Lima", event: str = "e0001",
         valid_from: dt.date = dt.date(2024, 3, 1), valid_to: dt.date | None = None) -> Fact:
    return Fact(fact_id=f"{pid}-f{n:04d}", persona_id=pid, event_id=f"{pid}-{event}", subject=subject,
                attribute=attribute, value=value, valid_from=valid_from, valid_to=valid_to, surface_forms=[value])


def corpus(pid: str = "p0001", **tables) -> PersonaCorpus:
    return PersonaCorpus(persona_id=pid, name=tables.pop("name", "Ana Lima"), **tables)


__all__ = ["Bullet", "Document", "Event", "Evidence", "Plan", "WorldEntity", "corpus", "fact", "question", "turn",
           "T0"]
