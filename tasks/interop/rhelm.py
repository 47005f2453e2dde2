"""RHELM's release layout <-> lifeloom rows.

    conversations/<Persona>/conversation_YYYY_MM_DD.json   one session a day; `conversation[]` holds turn pairs
    emails/<Persona>/NN_email_YYYY_MM_DD.txt              emails (Sender/Recipient/Subject/Summary), `=` separated
    attachments/<Persona>/NN_{notes,report}_task_<hash>.{md,html}   undated: dated by the email file with the same NN
    QA_final/low_score_qa_<Persona>_all_validated.jsonl   questions; supporting_evidence "<date>:<turn>",
                                                          "<file>:<section>" (or "<file>" for the whole document)
                                                          or "Emails_<date>:<section>" (that day's emails)

Mapping: personas p0001.. in folder order; one session a day `<pid>-sNNNN` in date order; RHELM turn k is a
user message `<sid>-t{2k-1}` and the assistant reply `<sid>-t{2k}` (one second later); documents
`<pid>-dNNNN` (emails file by file, then attachments), chunks `<doc>-cNN` one per heading section (an
email is one chunk whose section is its subject). A "<date>:<turn>" reference points to the user message of
the pair. `notes` attachments are journals, `report` attachments reports. All times are read as UTC.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from typing import Any

from schemas.corpus import DIALOGUE_CATEGORIES, Chunk, Document, Session, Turn
from schemas.qa import CHARACTERISTICS, Evidence, Question
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
_EMAILS_REF = re.compile(r"^Emails_(\d{4}-\d{2}-\d{2})(?::(.*))?$", re.S)
"""The release's email reference: `Emails_<date>:<section>`, the section `Email`, `Header`, `Body` (the day's
emails), `Email N` (its N-th), `Email to <name>` or `Header: ... From: <who>To: <whom>` (the emails between them)."""
_MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_HTML_HEADING = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1\s*>", re.S | re.I)

CHARACTERISTIC_LABELS = {
    "attachment_fact_retrieval": "Fact Retrieval",
    "state_dependent_attribute": "State-Dependent Attribute",
    "relative_positioning": "Relative Location Positioning",
    "multi_hop_traversal": "Multi-Hop Traversal",
    "long_horizon_synthesis": "Long-Horizon Synthesis",
    "post_modification_analysis": "Post-Modification Analysis",
    "email_cross_time_count": "Cross-Temporal Count",
    "trend_analysis": "Comparative Trend Analysis",
}
"""lifeloom characteristic -> the label RHELM's release writes, where a plain title case would not give it back
(hyphens; the release's `Cross-Temporal Count` and `Comparative Trend Analysis` for its taxonomy's cross-time count
and trend analysis)."""
_FROM_LABEL = {snake(v): k for k, v in CHARACTERISTIC_LABELS.items()}
LABEL_ALIASES = {"relationship_analysis": "email_localization"}
"""Labels of RHELM's release outside its own taxonomy, read as the characteristic they test (reported): its 51
`Relationship Analysis` items ask who wrote to or answered whom in the emails, as email localization does."""
KNOWN = {c for chars in CHARACTERISTICS.values() for c in chars}


def characteristic_of(label: str) -> str:
    key = snake(label)
    return _FROM_LABEL.get(key, LABEL_ALIASES.get(key, key))


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
    sidecar = tree.get("lifeloom") if isinstance(tree.get("lifeloom"), dict) else {}
    ids = _persona_ids(folders, sidecar.get("personas") or {})
    dates = {str(k): str(v) for k, v in (sidecar.get("attachment_dates") or {}).items()}
    index: dict[str, dict[str, Any]] = {}
    for folder in folders:
        pid = ids[folder]
        bundle.personas.append(imported_persona(pid, folder.replace("_", " "), "rhelm"))
        index[folder] = {"pid": pid, **_import_dialogue(pid, tree.get("conversations", {}).get(folder, {}),
                                                        bundle, report)}
        uploads = {name.rsplit(".", 1)[0]: dt.date.fromisoformat(day) for path, day in dates.items()
                   if path.startswith(f"attachments/{folder}/") for name in [path.rsplit("/", 1)[1]]}
        for t in sorted(bundle.turns, key=lambda t: t.timestamp):
            for stem in (d.rsplit(".", 1)[0] for d in t.doc_ids if t.persona_id == pid):
                uploads.setdefault(stem, t.timestamp.date())
        index[folder].update(_import_documents(pid, tree.get("emails", {}).get(folder, {}),
                                               tree.get("attachments", {}).get(folder, {}), bundle, report, uploads))
        _link_uploads(index[folder], bundle, report)
    for name, lines in sorted(tree.get("qa", {}).items()):
        folder = _persona_of_qa(name, folders)
        if folder is None:
            report.add("unmapped_file", name, f"no persona folder matches QA file {name}; its items are skipped",
                       "error")
            continue
        _import_questions(name, lines, index[folder], bundle, report)
    return bundle, report


def _persona_ids(folders: list[str], known: dict[str, Any]) -> dict[str, str]:
    """Each folder's persona id: the one our export recorded (`lifeloom.json`) when it is a unique `pNNNN`, else
    `p0001`, `p0002`, ... in folder order (skipping recorded ones)."""
    out: dict[str, str] = {}
    for folder in folders:
        pid = str(known.get(folder, ""))
        if re.fullmatch(r"p\d{4}", pid) and pid not in out.values():
            out[folder] = pid
    n = 0
    for folder in folders:
        while folder not in out:
            n += 1
            if persona_id(n) not in out.values():
                out[folder] = persona_id(n)
    return out


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
                      report: Report, uploads: dict[str, dt.date] | None = None) -> dict[str, Any]:
    """Documents and chunks of one persona's email files and attachments. An attachment takes the date of the
    email file with its NN (as RHELM's evaluator dates it); without one, the day a turn uploaded it."""
    n = 0
    email_dates: dict[int, dt.date] = {}
    files: dict[str, dict[str, Any]] = {}
    by_date: dict[str, list[tuple[dict[str, str], Chunk]]] = {}
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
            by_date.setdefault(day.isoformat(), []).append((mail, chunks[-1]))
        bundle.chunks.extend(chunks)
        files[name] = {"chunks": chunks}
    for name in sorted(attachments):
        m = _ATTACH.match(name)
        if not m:
            report.add("unmapped_file", name, "not an NN_{notes,report}_task_<hash>.{md,html} file; skipped", "error")
            continue
        seq, kind, _, fmt = m.groups()
        day = email_dates.get(int(seq))
        uploaded = (uploads or {}).get(name.rsplit(".", 1)[0])
        if day is None and uploaded is None:
            report.add("undated_attachment", name, f"no email file with sequence number {seq} and no turn uploads it;"
                       " attachment skipped", "error")
            continue
        if day is None:
            day = uploaded
            report.add("borrowed_date", name, f"undated attachment dated {day} from lifeloom.json or the turn that "
                       f"uploads it (no email file has NN {seq})", "info")
        else:
            report.add("borrowed_date", name, f"undated attachment dated {day} from the email file with NN {seq}",
                       "info")
        n += 1
        body = attachments[name]
        doc = Document(doc_id=f"{pid}-d{n:04d}", persona_id=pid, created_at=day_start(day),
                       source_type="journal" if kind == "notes" else "report", format=fmt,
                       title=name.rsplit(".", 1)[0], body=body, kind=kind)
        bundle.documents.append(doc)
        chunks = [_chunk(doc, k, head, text) for k, (head, text) in enumerate(sections(body, fmt), 1)]
        bundle.chunks.extend(chunks)
        files[name] = {"chunks": chunks}
    return {"files": files, "emails": by_date}


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
        refs = [r for raw in item.get("supporting_evidence") or [] for r in _split_refs(str(raw))]
        evidence = [e for ref in refs for e in _resolve(ref, qid, index, report)]
        if not refs:
            report.add("no_evidence", qid, "item has no supporting_evidence")
        chars = [_characteristic(str(c), qid, report) for c in item.get("characteristics") or []] or [category]
        bundle.questions.append(Question(
            question_id=qid, persona_id=pid, category=category, characteristics=chars, question_time=qtime,
            question=question, answer=answer, reference_answer=answer, answer_type=answer_type_for(category),
            derivation={"source": "rhelm", "file": name, "question_type": qtype, "supporting_evidence": refs},
        ))
        unique = {(e.evidence_id, e.evidence_kind): e for e in evidence}
        bundle.evidence.extend(unique.values())


def _characteristic(label: str, qid: str, report: Report) -> str:
    """The characteristic a label names; one outside the 27 is reported (mapped by LABEL_ALIASES, else kept)."""
    found = characteristic_of(label)
    if snake(label) in LABEL_ALIASES:
        report.add("label_mapped", f"{qid}:{label}", f"{label!r} is outside RHELM's taxonomy; read as {found}", "info")
    elif found not in KNOWN:
        report.add("unmapped_value", f"{qid}:{label}", f"characteristic {label!r} is none of the 27; kept as {found}")
    return found


def _split_refs(ref: str) -> list[str]:
    """One reference string as the references it lists: `2024-06-26:13,17,18` is three turns of one day."""
    if "," not in ref or not re.match(r"^\d{4}-\d{2}-\d{2}:\d+", ref):
        return [ref]
    out, day = [], ""
    for part in (p.strip() for p in ref.split(",")):
        if re.match(r"^\d{4}-\d{2}-\d{2}:\d+$", part):
            day = part.split(":")[0]
            out.append(part)
        elif part.isdigit() and day:
            out.append(f"{day}:{part}")
        else:
            out.append(part)
    return out


def _emails(day: str, section: str, index: dict[str, Any]) -> list[Chunk] | None:
    """The chunks of the day's emails a `Emails_<date>:<section>` reference names; None when the day has none."""
    mails = index.get("emails", {}).get(day)
    if not mails:
        return None
    section = section.strip()
    nth = re.match(r"^Email\s+(\d+)$", section)
    if nth:
        k = int(nth.group(1))
        return [mails[k - 1][1]] if 0 < k <= len(mails) else []
    to = re.match(r"^Email to (.+)$", section)
    between = re.search(r"From:\s*(.*?)\s*To:\s*(.*)$", section, re.S)
    if to:
        return [c for mail, c in mails if _norm(to.group(1)) in _norm(mail.get("Recipient", ""))]
    if between:
        who, whom = (_who(x) for x in between.groups())
        return [c for mail, c in mails if who in _norm(mail.get("Sender", "")) and whom in _norm(
            mail.get("Recipient", ""))]
    return [c for _, c in mails]  # `Email`, `Header`, `Body`: the day's emails


def _who(text: str) -> str:
    """The address in `Name <address>` (else the name), normalized for matching."""
    m = re.search(r"<([^>]+)>", text)
    return _norm(m.group(1) if m else text)


def _resolve(ref: str, qid: str, index: dict[str, Any], report: Report) -> list[Evidence]:
    mail = _EMAILS_REF.match(ref)
    if mail:
        found = _emails(mail.group(1), mail.group(2) or "", index)
        if not found:
            report.add("malformed_reference", f"{qid}:{ref}", "no email of that day" if found is None else
                       "no email of that day matches the section", "error")
            return []
        return [Evidence(question_id=qid, evidence_id=c.chunk_id, evidence_kind="chunk") for c in found]
    m = _TURN_REF.match(ref)
    if m:
        turn_id = index["turns"].get(m.group(1), {}).get(int(m.group(2)))
        if turn_id is None:
            report.add("malformed_reference", f"{qid}:{ref}", "no such session date and turn", "error")
            return []
        return [Evidence(question_id=qid, evidence_id=turn_id, evidence_kind="turn")]
    file, _, section = ref.partition(":")
    entry = index["files"].get(file) or next((v for k, v in index["files"].items()
                                              if k.rsplit(".", 1)[0] == file), None)  # a file named without .md
    if entry is None:
        report.add("malformed_reference", f"{qid}:{ref}", "neither <date>:<turn> nor a known document file", "error")
        return []
    chunks = entry["chunks"]
    if section:
        chunks = [c for c in chunks if c.section == section] or [
            c for c in chunks if _norm(c.section) == _norm(section)]
        if not chunks:
            chunks, how = _loosely(entry["chunks"], section)
            if not chunks:
                report.add("malformed_reference", f"{qid}:{ref}", f"no section {section!r} in {file}", "error")
                return []
            report.add("section_matched", f"{qid}:{ref}", f"section {section!r} read as {how}", "info")
    return [Evidence(question_id=qid, evidence_id=c.chunk_id, evidence_kind="chunk") for c in chunks]


_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}


def _loosely(chunks: list[Chunk], section: str) -> tuple[list[Chunk], str]:
    """The chunks a section name of the release's looser forms points to, and how it was read: a heading written
    with its `#` marks or after `Header:`; `Header` (the document's opening); `Section N`, `N` or a Roman numeral
    (the N-th heading); else the sections whose text holds the name (a table caption, a bold label)."""
    name = re.sub(r"^\s*(?:Journal\s+)?Header\s*:?\s*", "", section, flags=re.I).lstrip("#").strip()
    headed = [c for c in chunks if c.section]
    if name and name != section.strip():
        found = [c for c in chunks if _norm(c.section) == _norm(name)]
        if found:
            return found, f"the heading {name!r}"
    if not name:
        return chunks[:1], "the document's opening section"
    nth = re.fullmatch(r"(?:section\s+)?(\d+|[ivx]+)", name.strip().lower())
    if nth:
        k = int(nth.group(1)) if nth.group(1).isdigit() else _ROMAN.get(nth.group(1), 0)
        return (headed[k - 1:k], f"heading number {k}") if 0 < k <= len(headed) else ([], "")
    found = [c for c in chunks if _norm(name) in _norm(c.text)]
    return found, f"the section(s) whose text holds {name!r}"
