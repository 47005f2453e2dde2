"""RHELM's release layout <-> lifeloom rows.

    conversations/<Persona>/conversation_YYYY_MM_DD.json   one session a day; `conversation[]` holds turn pairs
    emails/<Persona>/NN_email_YYYY_MM_DD.txt              emails (Sender/Recipient/Subject/Summary), `=` separated
    attachments/<Persona>/NN_{notes,report}_task_<hash>.{md,html}   undated: dated by the email file with the same NN
    QA_final/low_score_qa_<Persona>_all_validated.jsonl   questions; supporting_evidence "<date>:<turn>" or
                                                          "<file>:<section>" (or "<file>" for the whole document)

Mapping: personas p0001.. in folder order; one session a day `<pid>-sNNNN` in date order; RHELM turn k is a
user message `<sid>-t{2k-1}` and the assistant reply `<sid>-t{2k}` (one second later); documents
`<pid>-dNNNN` (emails file by file, then attachments), chunks `<doc>-cNN` one per heading section (an
email is one chunk whose section is its subject). A "<date>:<turn>" reference points to the user message of
the pair. `notes` attachments are journals, `report` attachments reports. All times are read as UTC.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import re
from typing import Any

from schemas.corpus import DIALOGUE_CATEGORIES, Chunk, Document, Session, Turn
from schemas.qa import Evidence, Question
from tasks.interop import (
    Bundle,
    Report,
    answer_type_for,
    day_start,
    imported_persona,
    lifeloom_category,
    persona_id,
    snake,
    utc,
)
from tasks.sources.chunking import count_tokens

SEPARATOR = "=" * 60
_CONV = re.compile(r"^conversation_(\d{4})_(\d{2})_(\d{2})\.json$")
_EMAIL = re.compile(r"^(\d+)_email_(\d{4})_(\d{2})_(\d{2})\.txt$")
_ATTACH = re.compile(r"^(\d+)_(notes|report)_task_([^.]+)\.(md|html)$")
_TURN_REF = re.compile(r"^(\d{4}-\d{2}-\d{2}):(\d+)$")
_MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_HTML_HEADING = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1\s*>", re.S | re.I)

CHARACTERISTIC_LABELS = {
    "attachment_fact_retrieval": "Fact Retrieval",
    "state_dependent_attribute": "State-Dependent Attribute",
    "relative_positioning": "Relative Location Positioning",
    "multi_hop_traversal": "Multi-Hop Traversal",
}
"""lifeloom characteristic -> RHELM's label where a plain title case would not give it back."""
_FROM_LABEL = {snake(v): k for k, v in CHARACTERISTIC_LABELS.items()}


def characteristic_of(label: str) -> str:
    key = snake(label)
    return _FROM_LABEL.get(key, key)


def label_of(characteristic: str) -> str:
    return CHARACTERISTIC_LABELS.get(characteristic, characteristic.replace("_", " ").title())


def folder_name(name: str) -> str:
    """A persona's folder name: its name with spaces as underscores (RHELM's `Elena_Morales`)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "", name.strip().replace(" ", "_")) or "persona"


# --- documents -------------------------------------------------------------------------------------------

def parse_emails(text: str) -> list[dict[str, str]]:
    """The emails of one file: blocks separated by a line of `=` signs, each with its four headers."""
    blocks = re.split(r"(?m)^={10,}\s*$", text)
    out = []
    for block in blocks:
        if not block.strip():
            continue
        fields: dict[str, str] = {}
        key = None
        for line in block.strip("\n").splitlines():
            m = re.match(r"^(Sender|Recipient|Subject|Summary):\s?(.*)$", line)
            if m and (key != "Summary"):
                key = m.group(1)
                fields[key] = m.group(2)
            elif key is not None:
                fields[key] += "\n" + line
        out.append({k: v.strip() for k, v in fields.items()})
    return out


def render_emails(emails: list[dict[str, str]]) -> str:
    parts = [
        f"Sender: {e['Sender']}\nRecipient: {e['Recipient']}\nSubject: {e['Subject']}\nSummary: {e['Summary']}\n"
        for e in emails
    ]
    return f"\n{SEPARATOR}\n\n".join(parts)


def _strip_html(text: str) -> str:
    text = re.sub(r"<(style|script|head)[^>]*>.*?</\1\s*>", " ", text, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"[ \t]+", " ", html.unescape(text)).strip()


def sections(body: str, fmt: str) -> list[tuple[str, str]]:
    """(heading, text) per heading section of a Markdown or HTML document; text before the first heading
    is a section with an empty heading (kept only when it has words)."""
    out: list[tuple[str, str]] = []
    if fmt == "html":
        body = re.sub(r"<(style|script|head)[^>]*>.*?</\1\s*>", " ", body, flags=re.S | re.I)
        marks = list(_HTML_HEADING.finditer(body))
        starts = [(m.start(), _strip_html(m.group(2))) for m in marks]
    else:
        starts, pos = [], 0
        for line in body.splitlines(keepends=True):
            m = _MD_HEADING.match(line)
            if m:
                starts.append((pos, m.group(1).strip()))
            pos += len(line)
    bounds = [0] + [s for s, _ in starts] + [len(body)]
    heads = [""] + [h for _, h in starts]
    for i, head in enumerate(heads):
        text = body[bounds[i]:bounds[i + 1]]
        text = _strip_html(text) if fmt == "html" else text.strip()
        if head or text:
            out.append((head, text))
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


# --- import ------------------------------------------------------------------------------------------------

def import_rhelm(tree: dict[str, Any]) -> tuple[Bundle, Report]:
    """Rows from a RHELM release read into `tree`:
    {"conversations": {persona: {file: json}}, "emails": {persona: {file: text}},
     "attachments": {persona: {file: text}}, "qa": {file: [jsonl line, ...]}}."""
    bundle, report = Bundle(), Report()
    folders = sorted({p for part in ("conversations", "emails", "attachments") for p in tree.get(part, {})})
    index: dict[str, dict[str, Any]] = {}
    for i, folder in enumerate(folders, 1):
        pid = persona_id(i)
        bundle.personas.append(imported_persona(pid, folder.replace("_", " "), "rhelm"))
        index[folder] = {"pid": pid, **_import_dialogue(pid, tree.get("conversations", {}).get(folder, {}),
                                                        bundle, report)}
        index[folder].update(_import_documents(pid, tree.get("emails", {}).get(folder, {}),
                                               tree.get("attachments", {}).get(folder, {}), bundle, report))
        _link_uploads(index[folder], bundle, report)
    for name, lines in sorted(tree.get("qa", {}).items()):
        folder = _persona_of_qa(name, folders)
        if folder is None:
            report.add("unmapped_file", name, f"no persona folder matches QA file {name}; its items are skipped",
                       "error")
            continue
        _import_questions(name, lines, index[folder], bundle, report)
    return bundle, report


def _import_dialogue(pid: str, files: dict[str, Any], bundle: Bundle, report: Report) -> dict[str, Any]:
    by_date: dict[str, dict[int, str]] = {}
    dated = []
    for name, data in files.items():
        m = _CONV.match(name)
        if not m:
            report.add("unmapped_file", name, "not a conversation_YYYY_MM_DD.json file; skipped", "error")
            continue
        dated.append((dt.date(*map(int, m.groups())), name, data))
    for n, (day, name, data) in enumerate(sorted(dated), 1):
        sid = f"{pid}-s{n:04d}"
        pairs = data.get("conversation") if isinstance(data, dict) else None
        if not isinstance(pairs, list):
            report.add("malformed_file", name, "no conversation list; session skipped", "error")
            continue
        refs: dict[int, str] = {}
        first_ts = None
        for pair in pairs:
            turn = _import_pair(sid, pid, day, name, pair, bundle, report)
            if turn is not None:
                refs[pair["turn"]] = turn.turn_id
                first_ts = first_ts or turn.timestamp
        cats = [t.category for t in bundle.turns if t.session_id == sid]
        bundle.sessions.append(Session(session_id=sid, persona_id=pid, started_at=first_ts or day_start(day),
                                       category=cats[0] if cats else "information_sharing"))
        by_date[day.isoformat()] = refs
    return {"turns": by_date}


def _import_pair(sid: str, pid: str, day: dt.date, name: str, pair: Any, bundle: Bundle,
                 report: Report) -> Turn | None:
    try:
        k = int(pair["turn"])
        ts = utc(dt.datetime.fromisoformat(pair["timestamp"]))
    except (KeyError, TypeError, ValueError):
        report.add("malformed_turn", f"{name}", f"turn without a valid number or timestamp: {str(pair)[:80]}", "error")
        return None
    if ts.date() != day:
        report.add("date_mismatch", f"{day}:{k}", f"turn timestamp {ts.isoformat()} is not on the file's date")
    category = pair.get("message_type", "")
    if category not in DIALOGUE_CATEGORIES:
        report.add("unmapped_value", f"{day}:{k}", f"message_type {category!r} mapped to information_sharing")
        category = "information_sharing"
    user = Turn(turn_id=f"{sid}-t{2 * k - 1:02d}", session_id=sid, persona_id=pid, timestamp=ts, role="user",
                text=str(pair.get("user", "")), category=category,
                doc_ids=[str(pair["research_document"])] if pair.get("research_document") else [])
    bundle.turns.append(user)
    bundle.turns.append(Turn(turn_id=f"{sid}-t{2 * k:02d}", session_id=sid, persona_id=pid,
                             timestamp=ts + dt.timedelta(seconds=1), role="assistant",
                             text=str(pair.get("assistant", "")), category=category))
    return user


def _import_documents(pid: str, emails: dict[str, str], attachments: dict[str, str], bundle: Bundle,
                      report: Report) -> dict[str, Any]:
    n = 0
    email_dates: dict[int, dt.date] = {}
    files: dict[str, dict[str, Any]] = {}
    for name in sorted(emails):
        m = _EMAIL.match(name)
        if not m:
            report.add("unmapped_file", name, "not an NN_email_YYYY_MM_DD.txt file; skipped", "error")
            continue
        day = dt.date(*map(int, m.groups()[1:]))
        email_dates[int(m.group(1))] = day
        chunks = []
        for j, mail in enumerate(parse_emails(emails[name]), 1):
            missing = [h for h in ("Sender", "Recipient", "Subject", "Summary") if h not in mail]
            if missing:
                report.add("malformed_email", f"{name}#{j}", f"missing header(s) {', '.join(missing)}; kept blank")
            n += 1
            doc = Document(doc_id=f"{pid}-d{n:04d}", persona_id=pid, created_at=day_start(day), source_type="email",
                           format="txt", title=mail.get("Subject", ""), sender=mail.get("Sender") or None,
                           recipients=[r.strip() for r in mail.get("Recipient", "").split(",") if r.strip()],
                           body=mail.get("Summary", ""), kind="email")
            bundle.documents.append(doc)
            chunks.append(_chunk(doc, 1, doc.title, doc.body))
        bundle.chunks.extend(chunks)
        files[name] = {"chunks": chunks}
    for name in sorted(attachments):
        m = _ATTACH.match(name)
        if not m:
            report.add("unmapped_file", name, "not an NN_{notes,report}_task_<hash>.{md,html} file; skipped", "error")
            continue
        seq, kind, _, fmt = m.groups()
        day = email_dates.get(int(seq))
        if day is None:
            report.add("undated_attachment", name, f"no email file with sequence number {seq}; attachment skipped",
                       "error")
            continue
        report.add("borrowed_date", name, f"undated attachment dated {day} from the email file with NN {seq}", "info")
        n += 1
        body = attachments[name]
        doc = Document(doc_id=f"{pid}-d{n:04d}", persona_id=pid, created_at=day_start(day),
                       source_type="journal" if kind == "notes" else "report", format=fmt,
                       title=name.rsplit(".", 1)[0], body=body, kind=kind)
        bundle.documents.append(doc)
        chunks = [_chunk(doc, k, head, text) for k, (head, text) in enumerate(sections(body, fmt), 1)]
        bundle.chunks.extend(chunks)
        files[name] = {"chunks": chunks}
    return {"files": files}


def _chunk(doc: Document, k: int, section: str, text: str) -> Chunk:
    return Chunk(chunk_id=f"{doc.doc_id}-c{k:02d}", doc_id=doc.doc_id, persona_id=doc.persona_id,
                 created_at=doc.created_at, ordinal=k - 1, text=text, n_tokens=count_tokens(text), section=section)


def _link_uploads(index: dict[str, Any], bundle: Bundle, report: Report) -> None:
    """Replace each turn's research_document (a file stem) by the document's id."""
    by_stem = {d.title: d.doc_id for d in bundle.documents if d.source_type != "email"}
    pid = index["pid"]
    for turn in bundle.turns:
        if turn.persona_id != pid or not turn.doc_ids:
            continue
        stem = turn.doc_ids[0].rsplit(".", 1)[0] if turn.doc_ids[0].endswith((".md", ".html")) else turn.doc_ids[0]
        if stem in by_stem:
            turn.doc_ids = [by_stem[stem]]
        else:
            report.add("malformed_reference", turn.turn_id, f"research_document {turn.doc_ids[0]!r} not found; dropped")
            turn.doc_ids = []


def _persona_of_qa(name: str, folders: list[str]) -> str | None:
    hits = [f for f in folders if f in name]
    if hits:
        return max(hits, key=len)
    return folders[0] if len(folders) == 1 else None


def _import_questions(name: str, lines: list[str], index: dict[str, Any], bundle: Bundle, report: Report) -> None:
    pid = index["pid"]
    seen = {q.question_id for q in bundle.questions}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            qid, question, answer = str(item["id"]), str(item["question"]), str(item["answer"])
            qtime = day_start(dt.date.fromisoformat(str(item["question_date"])[:10]))
            qtype = str(item["question_type"])
        except (KeyError, ValueError, TypeError) as exc:
            report.add("malformed_question", f"{name}:{n}", f"unreadable item ({exc}); skipped", "error")
            continue
        category = lifeloom_category(qtype)
        if category is None:
            report.add("unmapped_value", qid, f"question_type {qtype!r} is not a known category; item skipped", "error")
            continue
        if qid in seen:
            report.add("duplicate_id", qid, f"question id repeats; renamed {pid}-{qid}")
            qid = f"{pid}-{qid}"
        seen.add(qid)
        refs = [str(r) for r in item.get("supporting_evidence") or []]
        evidence = [e for ref in refs for e in _resolve(ref, qid, index, report)]
        if not refs:
            report.add("no_evidence", qid, "item has no supporting_evidence")
        chars = [characteristic_of(c) for c in item.get("characteristics") or []] or [category]
        bundle.questions.append(Question(
            question_id=qid, persona_id=pid, category=category, characteristics=chars, question_time=qtime,
            question=question, answer=answer, reference_answer=answer, answer_type=answer_type_for(category),
            derivation={"source": "rhelm", "file": name, "question_type": qtype, "supporting_evidence": refs},
        ))
        unique = {(e.evidence_id, e.evidence_kind): e for e in evidence}
        bundle.evidence.extend(unique.values())


def _resolve(ref: str, qid: str, index: dict[str, Any], report: Report) -> list[Evidence]:
    m = _TURN_REF.match(ref)
    if m:
        turn_id = index["turns"].get(m.group(1), {}).get(int(m.group(2)))
        if turn_id is None:
            report.add("malformed_reference", f"{qid}:{ref}", "no such session date and turn", "error")
            return []
        return [Evidence(question_id=qid, evidence_id=turn_id, evidence_kind="turn")]
    file, _, section = ref.partition(":")
    entry = index["files"].get(file)
    if entry is None:
        report.add("malformed_reference", f"{qid}:{ref}", "neither <date>:<turn> nor a known document file", "error")
        return []
    chunks = entry["chunks"]
    if section:
        chunks = [c for c in chunks if c.section == section] or [
            c for c in chunks if _norm(c.section) == _norm(section)]
        if not chunks:
            report.add("malformed_reference", f"{qid}:{ref}", f"no section {section!r} in {file}", "error")
            return []
    return [Evidence(question_id=qid, evidence_id=c.chunk_id, evidence_kind="chunk") for c in chunks]


# --- export ------------------------------------------------------------------------------------------------

def export_rhelm(bundle: Bundle) -> tuple[dict[str, str], Report]:
    """Files (relative path -> text) of a RHELM release holding the bundle's rows."""
    files: dict[str, str] = {}
    report = Report()
    for persona in bundle.personas:
        folder = folder_name(persona.name)
        refs = _export_persona(persona.persona_id, folder, bundle, files, report)
        qs = [q for q in bundle.questions if q.persona_id == persona.persona_id]
        if qs:
            lines = [json.dumps(_qa_item(q, bundle, refs, report), ensure_ascii=False) for q in qs]
            files[f"QA_final/low_score_qa_{folder}_all_validated.jsonl"] = "\n".join(lines) + "\n"
    return files, report


def _export_persona(pid: str, folder: str, bundle: Bundle, files: dict[str, str], report: Report) -> dict[str, str]:
    """Write one persona's conversations, emails and attachments; returns lifeloom id -> RHELM reference."""
    starts = {s.session_id: s.started_at for s in bundle.sessions}
    turns = sorted((t for t in bundle.turns if t.persona_id == pid),
                   key=lambda t: (starts.get(t.session_id, t.timestamp), t.session_id, _position(t.turn_id)))
    docs = sorted((d for d in bundle.documents if d.persona_id == pid), key=lambda d: (d.created_at, d.doc_id))
    days = sorted({starts.get(t.session_id, t.timestamp).astimezone(dt.UTC).date() for t in turns}
                  | {d.created_at.astimezone(dt.UTC).date() for d in docs})
    seq = {day: i for i, day in enumerate(days, 1)}
    refs: dict[str, str] = {}
    stems: dict[str, str] = {}
    emails: dict[dt.date, list[Document]] = {}
    for doc in docs:
        day = doc.created_at.astimezone(dt.UTC).date()
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
        files[f"attachments/{folder}/{stem}.{fmt}"] = doc.body
        emails.setdefault(day, [])  # the attachment's date lives only in the email file with its NN
        _chunk_refs(doc, f"{stem}.{fmt}", bundle, refs)
    for day, mails in sorted(emails.items()):
        name = f"{seq[day]:02d}_email_{day:%Y_%m_%d}.txt"
        files[f"emails/{folder}/{name}"] = render_emails(
            [{"Sender": d.sender or "", "Recipient": ", ".join(d.recipients), "Subject": d.title,
              "Summary": d.body} for d in mails])
        for d in mails:
            _chunk_refs(d, name, bundle, refs, subject=d.title)
    by_day: dict[dt.date, list[Turn]] = {}
    for t in turns:
        by_day.setdefault(starts.get(t.session_id, t.timestamp).astimezone(dt.UTC).date(), []).append(t)
    for day, day_turns in sorted(by_day.items()):
        pairs = _pairs(day_turns, stems, report)
        for k, (user, assistant, _) in enumerate(pairs, 1):
            for t in (user, assistant):
                if t is not None:
                    refs[t.turn_id] = f"{day.isoformat()}:{k}"
        conversation = [p[2] | {"turn": k} for k, p in enumerate(pairs, 1)]
        files[f"conversations/{folder}/conversation_{day:%Y_%m_%d}.json"] = json.dumps({
            "character": folder, "date": day.isoformat(), "conversation": conversation,
            "statistics": {"total_turns": len(conversation)}, "metadata": {"generation_model": "lifeloom"},
        }, indent=2, ensure_ascii=False)
    return refs


def _position(turn_id: str) -> int:
    """The number at the end of a turn id (`...-t07` -> 7), for ordering past t99."""
    m = re.search(r"(\d+)$", turn_id)
    return int(m.group(1)) if m else 0


def _chunk_refs(doc: Document, file: str, bundle: Bundle, refs: dict[str, str], subject: str | None = None) -> None:
    """RHELM references of a document's chunks: `<file>:<section>` (an email's section is its subject)."""
    chunks = [c for c in bundle.chunks if c.doc_id == doc.doc_id]
    for c in chunks:
        section = subject if subject is not None else c.section
        refs[c.chunk_id] = f"{file}:{section}" if section else file
    refs[f"doc:{doc.doc_id}"] = file
    refs[f"nchunks:{doc.doc_id}"] = str(len(chunks))


def _pairs(turns: list[Turn], stems: dict[str, str], report: Report) -> list[tuple[Turn | None, Turn | None, dict]]:
    """RHELM turn pairs from a day's messages: each user message with the assistant reply after it."""
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
        pair: dict[str, Any] = {"timestamp": lead.timestamp.astimezone(dt.UTC).replace(tzinfo=None).isoformat(),
                                "message_type": lead.category, "user": user.text if user else "",
                                "assistant": assistant.text if assistant else ""}
        uploads = [stems[d] for d in (user.doc_ids if user else []) if d in stems]
        if uploads:
            pair["research_document"] = uploads[0]
        out.append((user, assistant, pair))
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
    tree: dict[str, Any] = {"conversations": {}, "emails": {}, "attachments": {}, "qa": {}}
    for rel, text in files.items():
        part, _, rest = rel.partition("/")
        if part == "QA_final":
            tree["qa"][rest] = text.splitlines()
            continue
        persona, _, name = rest.partition("/")
        tree[part].setdefault(persona, {})[name] = json.loads(text) if part == "conversations" else text
    return tree
