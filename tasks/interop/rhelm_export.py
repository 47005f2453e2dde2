"""lifeloom rows -> RHELM's release layout (tasks/interop/rhelm.py describes the layout and reads it back).

What RHELM's own release and evaluator read decides the form:
- one conversation file a day, each turn pair filed under the day of its own timestamp (a session running past
  midnight goes on in the next day's file), with the release's keys: `character`, `date`, `profile_file`,
  `event_file` and `conversation_summary` (null: lifeloom writes no such files), `conversation`, `statistics`
  (turns, characters, averages, time span) and `metadata`;
- characteristics under the release's own labels (`Long-Horizon Synthesis`, `Cross-Temporal Count`, ...);
- an email file for each day that has emails, none empty; an attachment's `NN` is its day's, and RHELM's
  evaluator dates it by the email file with that `NN`. A day with attachments but no email has no such file: the
  export reports it (RHELM's evaluator then keeps the attachment at every cutoff date, as it does its own
  release's four such files), unless `dated_attachments` writes an email file with no email as the date's
  carrier (RHELM's reader takes the date from the file's name, then skips a file with no email). `lifeloom.json`
  (a file RHELM's readers ignore) keeps every attachment's date and each persona's id, so our import dates them
  and keeps the ids either way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import re
from typing import Any

from schemas.corpus import Document, Turn
from schemas.qa import Question
from tasks.interop import Bundle, Report
from tasks.interop.rhelm import _ATTACH, folder_name, label_of, render_emails

SIDECAR = "lifeloom.json"
"""Beside `data/`'s folders: each persona folder's id and each attachment's date (RHELM's readers ignore it)."""


def export_rhelm(bundle: Bundle, dated_attachments: bool = False) -> tuple[dict[str, str], Report]:
    """Files (relative path -> text) of a RHELM release holding the bundle's rows. `dated_attachments` writes an
    email file with no email for each attachment day that has no email, so that RHELM's evaluator, which reads an
    attachment's date from the name of the email file with its NN before it parses the file, dates it (without
    one it takes the attachment as undated and keeps it at every cutoff date)."""
    files: dict[str, str] = {}
    report = Report()
    sidecar: dict[str, Any] = {"personas": {}, "attachment_dates": {}}
    for persona in bundle.personas:
        folder = folder_name(persona.name)
        sidecar["personas"][folder] = persona.persona_id
        refs = _export_persona(persona.persona_id, folder, bundle, files, report, sidecar["attachment_dates"],
                               dated_attachments)
        qs = [q for q in bundle.questions if q.persona_id == persona.persona_id]
        if qs:
            lines = [json.dumps(_qa_item(q, bundle, refs, report), ensure_ascii=False) for q in qs]
            files[f"QA_final/low_score_qa_{folder}_all_validated.jsonl"] = "\n".join(lines) + "\n"
    files[SIDECAR] = json.dumps(sidecar, indent=2, sort_keys=True) + "\n"
    return files, report


def _day(ts: dt.datetime) -> dt.date:
    return ts.astimezone(dt.UTC).date()


def _export_persona(pid: str, folder: str, bundle: Bundle, files: dict[str, str], report: Report,
                    dates: dict[str, str], dated_attachments: bool = False) -> dict[str, str]:
    """Write one persona's conversations, emails and attachments; returns lifeloom id -> RHELM reference."""
    starts = {s.session_id: s.started_at for s in bundle.sessions}
    turns = sorted((t for t in bundle.turns if t.persona_id == pid),
                   key=lambda t: (starts.get(t.session_id, t.timestamp), t.session_id, _position(t.turn_id)))
    docs = sorted((d for d in bundle.documents if d.persona_id == pid), key=lambda d: (d.created_at, d.doc_id))
    pairs_by_day: dict[dt.date, list] = {}
    stems: dict[str, str] = {}
    for user, assistant, pair in _pairs(turns, report):
        pairs_by_day.setdefault(_day((user or assistant).timestamp), []).append((user, assistant, pair))
    days = sorted(set(pairs_by_day) | {_day(d.created_at) for d in docs})
    seq = {day: i for i, day in enumerate(days, 1)}
    refs: dict[str, str] = {}
    emails: dict[dt.date, list[Document]] = {}
    for doc in docs:
        day = _day(doc.created_at)
        if doc.source_type == "email":
            emails.setdefault(day, []).append(doc)
            continue
        kind = "notes" if doc.source_type == "journal" else "report"
        fmt = doc.format if doc.format in ("md", "html") else "md"
        if fmt != doc.format:
            report.add("format_changed", doc.doc_id, f"{doc.format} attachment written as .md")
        known = _ATTACH.match(f"{doc.title}.{fmt}")
        tag = known.group(3) if known and known.group(2) == kind else hashlib.sha1(doc.doc_id.encode()).hexdigest()[:8]
        stem = f"{seq[day]:02d}_{kind}_task_{tag}"
        stems[doc.doc_id] = stem
        path = f"attachments/{folder}/{stem}.{fmt}"
        files[path] = doc.body
        dates[path] = day.isoformat()
        _chunk_refs(doc, f"{stem}.{fmt}", bundle, refs)
    for day, mails in sorted(emails.items()):
        name = f"{seq[day]:02d}_email_{day:%Y_%m_%d}.txt"
        files[f"emails/{folder}/{name}"] = render_emails(
            [{"Sender": d.sender or "", "Recipient": ", ".join(d.recipients), "Subject": d.title,
              "Summary": d.body} for d in mails])
        for d in mails:
            _chunk_refs(d, name, bundle, refs, subject=d.title)
    undated = sorted({path for path, day in dates.items() if path.startswith(f"attachments/{folder}/")
                      and dt.date.fromisoformat(day) not in emails})
    for path in undated:
        day = dt.date.fromisoformat(dates[path])
        if dated_attachments:
            files.setdefault(f"emails/{folder}/{seq[day]:02d}_email_{day:%Y_%m_%d}.txt", "")
            continue
        report.add("undated_in_rhelm", path, "no email that day: RHELM's evaluator, which dates an attachment by the "
                   f"email file with its NN, finds none and keeps it at every cutoff (lifeloom's import reads the date "
                   f"from {SIDECAR}; --dated-attachments writes an email file with no email for its day)", "info")
    for day, pairs in sorted(pairs_by_day.items()):
        conversation = []
        for k, (user, assistant, pair) in enumerate(pairs, 1):
            for t in (user, assistant):
                if t is not None:
                    refs[t.turn_id] = f"{day.isoformat()}:{k}"
            uploads = [stems[d] for d in (user.doc_ids if user else []) if d in stems]
            conversation.append(pair | {"turn": k} | ({"research_document": uploads[0]} if uploads else {}))
        files[f"conversations/{folder}/conversation_{day:%Y_%m_%d}.json"] = json.dumps(
            _conversation_file(folder, day, conversation), indent=2, ensure_ascii=False)
    return refs


def _conversation_file(folder: str, day: dt.date, conversation: list[dict[str, Any]]) -> dict[str, Any]:
    """One day's conversation file with the keys of RHELM's own (null where lifeloom writes no such file)."""
    users = [len(p["user"]) for p in conversation]
    helps = [len(p["assistant"]) for p in conversation]
    times = [p["timestamp"] for p in conversation]
    n = len(conversation)
    return {
        "character": folder, "date": day.isoformat(), "profile_file": None, "event_file": None,
        "conversation": conversation, "conversation_summary": None,
        "statistics": {"total_turns": n, "total_user_chars": sum(users), "total_assistant_chars": sum(helps),
                       "avg_user_length": sum(users) / n if n else 0.0,
                       "avg_assistant_length": sum(helps) / n if n else 0.0,
                       "time_span": f"{times[0]} to {times[-1]}" if times else "",
                       "assistant_processing_mode": "full"},
        "metadata": {"total_turns": n, "message_types_used": list(dict.fromkeys(p["message_type"]
                                                                                for p in conversation)),
                     "time_span": f"{times[0][11:16]} - {times[-1][11:16]}" if times else "",
                     "generation_model": "lifeloom"},
    }


def _position(turn_id: str) -> int:
    """The number at the end of a turn id (`...-t07` -> 7), for ordering past t99."""
    m = re.search(r"(\d+)$", turn_id)
    return int(m.group(1)) if m else 0


def _chunk_refs(doc: Document, file: str, bundle: Bundle, refs: dict[str, str], subject: str | None = None) -> None:
    """RHELM references of a document's chunks: `<file>:<section>` (an email's section is its subject; a heading
    as a reader sees it, entities unescaped)."""
    chunks = [c for c in bundle.chunks if c.doc_id == doc.doc_id]
    for c in chunks:
        section = subject if subject is not None else html.unescape(c.section)
        refs[c.chunk_id] = f"{file}:{section}" if section else file
    refs[f"doc:{doc.doc_id}"] = file
    refs[f"nchunks:{doc.doc_id}"] = str(len(chunks))


def _pairs(turns: list[Turn], report: Report) -> list[tuple[Turn | None, Turn | None, dict]]:
    """RHELM turn pairs from a persona's messages in order: each user message with the assistant reply after it."""
    out: list[tuple[Turn | None, Turn | None, dict]] = []
    i = 0
    while i < len(turns):
        user = turns[i] if turns[i].role == "user" else None
        assistant = None
        if user is not None and i + 1 < len(turns) and turns[i + 1].role == "assistant":
            assistant = turns[i + 1]
        elif user is None:
            assistant = turns[i]
            report.add("unpaired_turn", assistant.turn_id, "assistant message without a user message before it")
        i += 1 + (user is not None and assistant is not None)
        lead = user or assistant
        out.append((user, assistant, {"timestamp": lead.timestamp.astimezone(dt.UTC).replace(tzinfo=None).isoformat(),
                                      "message_type": lead.category, "user": user.text if user else "",
                                      "assistant": assistant.text if assistant else ""}))
    return out


def _qa_item(q: Question, bundle: Bundle, refs: dict[str, str], report: Report) -> dict[str, Any]:
    ev = [e for e in bundle.evidence if e.question_id == q.question_id]
    supporting: list[str] = []
    chunk_doc = {c.chunk_id: c.doc_id for c in bundle.chunks}
    by_doc: dict[str, set[str]] = {}
    for e in ev:
        if e.evidence_kind == "chunk" and e.evidence_id in chunk_doc:
            by_doc.setdefault(chunk_doc[e.evidence_id], set()).add(e.evidence_id)
    for e in ev:
        doc = chunk_doc.get(e.evidence_id)
        whole = doc is not None and len(by_doc[doc]) == int(refs.get(f"nchunks:{doc}", "0")) > 1 \
            and not refs.get(f"doc:{doc}", "").endswith(".txt")
        ref = refs.get(f"doc:{doc}") if whole else refs.get(e.evidence_id)
        if ref is None:
            report.add("unmapped_evidence", f"{q.question_id}:{e.evidence_id}", "evidence id not in the export")
        elif ref not in supporting:
            supporting.append(ref)
    if q.answer_type == "mcq":
        report.add("format_loss", q.question_id, "multiple-choice options are not part of RHELM's QA; answer kept",
                   "info")
    return {"id": q.question_id, "question": q.question, "answer": q.answer,
            "question_date": q.question_time.astimezone(dt.UTC).date().isoformat(),
            "question_type": "attachment" if q.category == "external" else q.category,
            "supporting_evidence": supporting, "characteristics": [label_of(c) for c in q.characteristics]}


def tree_of(files: dict[str, str]) -> dict[str, Any]:
    """The import tree of exported files (relative path -> text), without touching a disk."""
    tree: dict[str, Any] = {"conversations": {}, "emails": {}, "attachments": {}, "qa": {}, "lifeloom": {}}
    for rel, text in files.items():
        if rel == SIDECAR:
            tree["lifeloom"] = json.loads(text)
            continue
        part, _, rest = rel.partition("/")
        if part == "QA_final":
            tree["qa"][rest] = text.splitlines()
            continue
        persona, _, name = rest.partition("/")
        tree[part].setdefault(persona, {})[name] = json.loads(text) if part == "conversations" else text
    return tree
