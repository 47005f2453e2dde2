"""Hand-made lifeloom rows in the canonical form the interop importers produce (see tasks/interop/*)."""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Chunk, Document, Session, Turn
from schemas.qa import Evidence, Question
from tasks.interop import Bundle, imported_persona
from tasks.sources.chunking import count_tokens

PID = "p0001"


def at(day: int, hour: int = 0, minute: int = 0, second: int = 0) -> dt.datetime:
    return dt.datetime(2024, 3, day, hour, minute, second, tzinfo=dt.UTC)


def _turn(sid: str, k: int, ts: dt.datetime, role: str, text: str, **kw) -> Turn:
    return Turn(turn_id=f"{sid}-t{k:02d}", session_id=sid, persona_id=PID, timestamp=ts, role=role, text=text, **kw)


def _question(qid: str, category: str, chars: list[str], day: int, answer: str) -> Question:
    return Question(question_id=qid, persona_id=PID, category=category, characteristics=chars, question_time=at(day),
                    question=f"What about {qid}?", answer=answer, reference_answer=answer,
                    answer_type="long" if category == "hallucination" else "short", derivation={})


def _chunk(doc: Document, k: int, section: str, text: str) -> Chunk:
    return Chunk(chunk_id=f"{doc.doc_id}-c{k:02d}", doc_id=doc.doc_id, persona_id=PID, created_at=doc.created_at,
                 ordinal=k - 1, text=text, n_tokens=count_tokens(text), section=section)


def dialogue_bundle(source: str = "rhelm") -> Bundle:
    """Two sessions on two days, turn pairs, two questions with turn evidence."""
    s1, s2 = f"{PID}-s0001", f"{PID}-s0002"
    turns = [
        _turn(s1, 1, at(1, 9), "user", "I planted carrots with Lila today."),
        _turn(s1, 2, at(1, 9, 0, 1), "assistant", "Lovely, carrots like loose soil."),
        _turn(s1, 3, at(1, 9, 5), "user", "Oliver the dog dug them up.", category="status_update"),
        _turn(s1, 4, at(1, 9, 5, 1), "assistant", "Oh no, maybe a fence helps.", category="status_update"),
        _turn(s2, 1, at(3, 10), "user", "We replanted with heirloom seeds.", category="scheduling"),
        _turn(s2, 2, at(3, 10, 0, 1), "assistant", "Great choice.", category="scheduling"),
    ]
    bundle = Bundle(
        personas=[imported_persona(PID, "Ana Silva", source)],
        sessions=[Session(session_id=s1, persona_id=PID, started_at=at(1, 9), category="information_sharing"),
                  Session(session_id=s2, persona_id=PID, started_at=at(3, 10), category="scheduling")],
        turns=turns,
        questions=[_question("fact_0001", "fact", ["state_dependent_attribute"], 10, "heirloom carrots"),
                   _question("hallucination_0002", "hallucination", ["misattribution"], 12, "Oliver dug, not Lila.")],
        evidence=[Evidence(question_id="fact_0001", evidence_id=f"{s1}-t01", evidence_kind="turn"),
                  Evidence(question_id="fact_0001", evidence_id=f"{s2}-t01", evidence_kind="turn"),
                  Evidence(question_id="hallucination_0002", evidence_id=f"{s1}-t03", evidence_kind="turn")],
    )
    return bundle


def rhelm_bundle() -> Bundle:
    """dialogue_bundle plus an email and a Markdown attachment (uploaded in a turn), and chunk evidence."""
    bundle = dialogue_bundle("rhelm")
    email = Document(doc_id=f"{PID}-d0001", persona_id=PID, created_at=at(1), source_type="email", format="txt",
                     title="Garden plans", sender="Ana Silva <ana@example.org>",
                     recipients=["Lila Nguyen <lila@example.org>"], body="Let us plant carrots.\nBring gloves.",
                     kind="email")
    report = Document(doc_id=f"{PID}-d0002", persona_id=PID, created_at=at(1), source_type="report", format="md",
                      title="01_report_task_abcdef12", body="# Plan\n\nIntro.\n\n## Seeds\n\nCarrots and basil.\n",
                      kind="report")
    bundle.documents = [email, report]
    bundle.chunks = [_chunk(email, 1, "Garden plans", email.body), _chunk(report, 1, "Plan", "# Plan\n\nIntro."),
                     _chunk(report, 2, "Seeds", "## Seeds\n\nCarrots and basil.")]
    bundle.turns[2].doc_ids = [report.doc_id]
    bundle.turns[2].category = bundle.turns[3].category = "attachment_consultation"
    bundle.questions.append(_question("attachment_0003", "external", ["attachment_fact_retrieval"], 11, "basil"))
    bundle.evidence += [
        Evidence(question_id="attachment_0003", evidence_id=f"{PID}-d0002-c02", evidence_kind="chunk"),
        Evidence(question_id="hallucination_0002", evidence_id=f"{PID}-d0002-c01", evidence_kind="chunk"),
        Evidence(question_id="hallucination_0002", evidence_id=f"{PID}-d0002-c02", evidence_kind="chunk"),
        Evidence(question_id="hallucination_0002", evidence_id=f"{PID}-d0001-c01", evidence_kind="chunk"),
    ]
    return bundle


def dumps(bundle: Bundle, table: str, drop: tuple[str, ...] = ()) -> list[dict]:
    rows = [{k: v for k, v in r.model_dump().items() if k not in drop} for r in bundle.rows(table)]
    return sorted(rows, key=repr) if table == "question_evidence" else rows
