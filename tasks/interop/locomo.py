"""LoCoMo (locomo10.json) <-> lifeloom rows.

A sample per persona: `conversation` holds `speaker_a` (the persona, role user) and `speaker_b` (role
assistant), `session_N` lists of {speaker, dia_id "D<N>:<k>", text} and `session_N_date_time`
("1:56 pm on 8 May, 2023"); `qa` holds {question, answer, evidence [dia_id], category 1-5}. Session N is
`<pid>-sNNNN`, message k of it `<sid>-tKK`. lifeloom adds keys LoCoMo's readers ignore (its prompts read a
message's speaker and text only), so a round trip keeps what LoCoMo has no field for: per message `turn_id`,
`session_id`, `timestamp` and `category`; per item `question_id`, `question_date`, `lifeloom_category`,
`characteristics` and the `lifeloom_*` question fields (checkpoint, answer type, options, ...). Without them a
message is dated its session start plus k-1 minutes and a question the day after the last session (reported).

What LoCoMo's own code does decides the mapping (task_eval/evaluation.py, evaluation_stats.py):
- Category 5 (adversarial) is credited only for an answer saying "not mentioned" (or "no information available"):
  only abstention items are exported there, gold "Not mentioned in the conversation" and the misleading answer as
  `adversarial_answer`; false-premise items, whose gold names the premise's error, go to category 3 (open-domain),
  whose scorer reads the answer up to a `;` (so none is written). An imported category-5 item is an abstention
  item: its gold is the decline, its `adversarial_answer` the trap (kept in the derivation), never the gold.
- Its evaluation scripts read a message's `clean_text` (its released data has `text`): both are written.
- Its statistics and prompts read sessions 1 to 49 only: a persona with more sessions is written in at most 49,
  consecutive sessions merged (each merged session dated by its first; every message keeps its own time and
  session id), reported as `sessions_merged`.
- An empty evidence list counts as full recall there: a question whose evidence LoCoMo cannot hold (chunks of
  documents) is reported (`evidence_lost`); `--documents-as-sessions` writes documents as sessions instead.
- A sample's `event_summary`, `observation` and `session_summary` annotations have no lifeloom table: the import
  reports them (`not_imported`), as it reports a question without evidence (`no_evidence`).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from schemas.corpus import DIALOGUE_CATEGORIES, Session, Turn
from schemas.qa import Evidence, Question
from tasks.interop import (
    Bundle,
    Report,
    extras_of,
    imported_persona,
    lifeloom_category,
    persona_id,
    question_extras,
    utc,
)

TO_LOCOMO = {"aggregation": 1, "mixed": 1, "temporal": 2, "fact": 4, "external": 4, "hallucination": 3,
             "misleading": 3}
"""LoCoMo's categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (abstention items
only, see the module docstring)."""
ADVERSARIAL = 5
OPEN_DOMAIN = 3
MAX_SESSIONS = 49
"""LoCoMo's code reads `session_1` to `session_49` (`range(1, 50)`)."""
ANNOTATIONS = ("event_summary", "observation", "session_summary")
NOT_MENTIONED = "Not mentioned in the conversation"
"""An abstention item's LoCoMo gold: its category 5 (adversarial) scorer checks for "not mentioned"."""
FROM_LOCOMO = {1: "aggregation", 2: "temporal", 3: "fact", 4: "fact", 5: "hallucination"}
ASSISTANT = "Assistant"
_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)
_DIA = re.compile(r"^D(\d+):(\d+)$")
_PID = re.compile(r"^p\d{4}$")


def format_date(ts: dt.datetime) -> str:
    ts = ts.astimezone(dt.UTC)
    hour = ts.hour % 12 or 12
    return f"{hour}:{ts.minute:02d} {'am' if ts.hour < 12 else 'pm'} on {ts.day} {ts:%B}, {ts.year}"


def parse_date(text: str) -> dt.datetime | None:
    m = _DATE.match(text or "")
    if not m:
        return None
    hour, minute, half, day, month, year = m.groups()
    try:
        moment = dt.datetime.strptime(f"{day} {month} {year}", "%d %B %Y")
    except ValueError:
        return None
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return moment.replace(hour=h, minute=int(minute), tzinfo=dt.UTC)


# --- export ------------------------------------------------------------------------------------------------

def export_locomo(bundle: Bundle) -> tuple[list[dict[str, Any]], Report]:
    report = Report()
    samples = []
    by_session: dict[str, list[Turn]] = {}
    for t in bundle.turns:
        by_session.setdefault(t.session_id, []).append(t)
    for persona in bundle.personas:
        pid = persona.persona_id
        conversation: dict[str, Any] = {"speaker_a": persona.name, "speaker_b": ASSISTANT}
        dia: dict[str, str] = {}
        sessions = sorted((s for s in bundle.sessions if s.persona_id == pid),
                          key=lambda s: (s.started_at, s.session_id))
        groups = merged(sessions)
        if len(groups) < len(sessions):
            report.add("sessions_merged", pid, f"{len(sessions)} sessions written as {len(groups)}: LoCoMo's code "
                       f"reads sessions 1 to {MAX_SESSIONS} only; consecutive sessions share one, each message keeps "
                       "its own time and session id")
        for n, group in enumerate(groups, 1):
            conversation[f"session_{n}_date_time"] = format_date(group[0].started_at)
            conversation[f"session_{n}"] = []
            for t in (t for s in group for t in by_session.get(s.session_id, [])):
                dia[t.turn_id] = f"D{n}:{len(conversation[f'session_{n}']) + 1}"
                conversation[f"session_{n}"].append({
                    "speaker": persona.name if t.role == "user" else ASSISTANT, "dia_id": dia[t.turn_id],
                    "text": t.text, "clean_text": t.text, "turn_id": t.turn_id, "session_id": t.session_id,
                    "timestamp": t.timestamp.astimezone(dt.UTC).isoformat(), "category": t.category})
        docs = sum(1 for d in bundle.documents if d.persona_id == pid)
        if docs:
            report.add("format_loss", pid, f"{docs} document(s) have no LoCoMo form; not exported "
                       "(--documents-as-sessions writes them as sessions)")
        qa = [_qa(q, bundle, dia, report) for q in bundle.questions if q.persona_id == pid]
        samples.append({"sample_id": pid, "conversation": conversation, "qa": qa})
    return samples, report


def merged(sessions: list[Session], most: int = MAX_SESSIONS) -> list[list[Session]]:
    """The sessions in at most `most` groups of consecutive ones, as even in size as they can be."""
    n = len(sessions)
    if n <= most:
        return [[s] for s in sessions]
    cuts = [round(i * n / most) for i in range(most + 1)]
    return [sessions[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _qa(q: Question, bundle: Bundle, dia: dict[str, str], report: Report) -> dict[str, Any]:
    evidence, lost = [], 0
    for e in bundle.evidence:
        if e.question_id != q.question_id:
            continue
        if e.evidence_id in dia:
            evidence.append(dia[e.evidence_id])
        else:
            lost += 1
            report.add("unmapped_evidence", f"{q.question_id}:{e.evidence_id}",
                       f"{e.evidence_kind} evidence has no dia_id")
    if lost and not evidence:
        report.add("evidence_lost", q.question_id, "exported with no evidence (LoCoMo scores an empty list as full "
                   "recall); its evidence is in documents: --documents-as-sessions keeps it")
    answer = q.answer.replace(";", ",") if TO_LOCOMO[q.category] == OPEN_DOMAIN else q.answer  # read up to a ';'
    item = {"question": q.question, "answer": answer, "evidence": evidence, "category": TO_LOCOMO[q.category],
            "question_id": q.question_id, "question_date": q.question_time.astimezone(dt.UTC).isoformat(),
            "lifeloom_category": q.category, "characteristics": q.characteristics, **question_extras(q)}
    if answer != q.answer:
        item["lifeloom_answer"] = q.answer
    if q.abstention:  # LoCoMo's adversarial form: its scorer credits a prediction saying "not mentioned"
        item |= {"category": ADVERSARIAL, "answer": NOT_MENTIONED, "lifeloom_answer": q.answer,
                 "adversarial_answer": str(q.derivation.get("misleading_answer") or q.reference_answer)}
    return item


# --- import ------------------------------------------------------------------------------------------------

def import_locomo(data: Any) -> tuple[Bundle, Report]:
    bundle, report = Bundle(), Report()
    samples = data if isinstance(data, list) else [data]
    for i, sample in enumerate(samples, 1):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            report.add("malformed_sample", f"sample {i}", "no conversation object; skipped", "error")
            continue
        sid = str(sample.get("sample_id", ""))
        pid = sid if _PID.match(sid) and sid not in bundle.persona_ids() else persona_id(i)
        conv = sample["conversation"]
        bundle.personas.append(imported_persona(pid, str(conv.get("speaker_a", pid)), f"locomo sample {sid}"))
        for key in ANNOTATIONS:
            if sample.get(key):
                size = len(sample[key]) if isinstance(sample[key], dict | list) else 1
                report.add("not_imported", f"{sid or pid}:{key}", f"{key} ({size} entr{'y' if size == 1 else 'ies'}) "
                           "has no lifeloom table; not imported (the conversation and QA are)", "info")
        dia, last = _import_sessions(pid, conv, bundle, report)
        for j, item in enumerate(sample.get("qa") or [], 1):
            _import_qa(pid, j, item, dia, last, bundle, report)
    return bundle, report


def _import_sessions(pid: str, conv: dict[str, Any], bundle: Bundle,
                     report: Report) -> tuple[dict[str, str], dt.datetime | None]:
    numbers = sorted(int(m.group(1)) for k in conv if (m := re.match(r"^session_(\d+)$", k)))
    dia: dict[str, str] = {}
    last = None
    for n in numbers:
        start = parse_date(str(conv.get(f"session_{n}_date_time", "")))
        if start is None:
            report.add("undated_session", f"session_{n}", f"date {conv.get(f'session_{n}_date_time')!r} unreadable; "
                       "session skipped", "error")
            continue
        session_id = f"{pid}-s{n:04d}"
        turns = [_import_turn(pid, session_id, n, k, msg, conv, start, report)
                 for k, msg in enumerate(conv[f"session_{n}"] or [], 1)]
        starts: dict[str, dt.datetime] = {}
        for turn in turns:  # our export's merged sessions come apart by each message's session id
            starts.setdefault(turn.session_id, start if turn.session_id == session_id else turn.timestamp)
        for sid, begun in starts.items():
            first = next(t for t in turns if t.session_id == sid)
            bundle.sessions.append(Session(session_id=sid, persona_id=pid, started_at=begun, category=first.category))
        if not turns:
            bundle.sessions.append(Session(session_id=session_id, persona_id=pid, started_at=start,
                                           category="information_sharing"))
        for msg, turn in zip(conv[f"session_{n}"] or [], turns, strict=True):
            bundle.turns.append(turn)
            dia[str(msg.get("dia_id") or turn.turn_id)] = turn.turn_id
            last = max(last or turn.timestamp, turn.timestamp)
    return dia, last


def _import_turn(pid: str, session_id: str, n: int, k: int, msg: dict[str, Any], conv: dict[str, Any],
                 start: dt.datetime, report: Report) -> Turn:
    m = _DIA.match(str(msg.get("dia_id", "")))
    if not m or int(m.group(1)) != n:
        report.add("malformed_reference", f"{session_id}#{k}", f"dia_id {msg.get('dia_id')!r}; position used")
    else:
        k = int(m.group(2))
    text = str(msg.get("text", msg.get("clean_text", "")))
    if msg.get("blip_caption"):
        text += f" [shares an image: {msg['blip_caption']}]"
        report.add("image_inlined", f"{session_id}-t{k:02d}", "image replaced by its caption in the text", "info")
    ts = start + dt.timedelta(minutes=k - 1)
    try:
        ts = utc(dt.datetime.fromisoformat(str(msg["timestamp"]))) if msg.get("timestamp") else ts
    except ValueError:
        report.add("malformed_value", f"{session_id}-t{k:02d}", f"timestamp {msg['timestamp']!r}; session time used")
    role = "user" if msg.get("speaker") == conv.get("speaker_a") else "assistant"
    category = msg.get("category") if msg.get("category") in DIALOGUE_CATEGORIES else "information_sharing"
    own = msg.get("turn_id") and msg.get("session_id")  # our export: the ids the message had
    return Turn(turn_id=str(msg["turn_id"]) if own else f"{session_id}-t{k:02d}",
                session_id=str(msg["session_id"]) if own else session_id, persona_id=pid, timestamp=ts, role=role,
                text=text, category=category)


def _import_qa(pid: str, j: int, item: Any, dia: dict[str, str], last: dt.datetime | None, bundle: Bundle,
               report: Report) -> None:
    qid = str(item.get("question_id") or f"{pid}-q{j:04d}") if isinstance(item, dict) else f"{pid}-q{j:04d}"
    if not isinstance(item, dict) or not item.get("question"):
        report.add("malformed_question", qid, "no question text; skipped", "error")
        return
    category = lifeloom_category(str(item.get("lifeloom_category", ""))) or FROM_LOCOMO.get(item.get("category"))
    if category is None:
        report.add("unmapped_value", qid, f"category {item.get('category')!r} unknown; item skipped", "error")
        return
    adversarial = item.get("category") == ADVERSARIAL and "lifeloom_answer" not in item
    answer = NOT_MENTIONED if adversarial else item.get("lifeloom_answer", item.get("answer"))
    if answer is None:
        report.add("malformed_question", qid, "no answer; item skipped", "error")
        return
    if item.get("question_date"):
        qtime = utc(dt.datetime.fromisoformat(str(item["question_date"])))
    else:
        qtime = (last or dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) + dt.timedelta(days=1)
        report.add("assumed_date", qid, f"no question date; asked the day after the last session ({qtime.date()})",
                   "info")
    refs = [r for ev in item.get("evidence") or [] for r in re.split(r"[;,\s]+", str(ev)) if r]
    evidence = []
    for ref in refs:
        if ref in dia:
            evidence.append(Evidence(question_id=qid, evidence_id=dia[ref], evidence_kind="turn"))
        else:
            report.add("malformed_reference", f"{qid}:{ref}", "evidence dia_id does not resolve", "error")
    if not evidence:
        report.add("no_evidence", qid, "the question cites no message that resolves: it has no evidence")
    chars = [str(c) for c in item.get("characteristics") or []] or [f"locomo_category_{item.get('category')}"]
    derivation = {"source": "locomo", "category": item.get("category"), "evidence": refs}
    if adversarial:  # LoCoMo's adversarial item: unanswerable as asked; the trap answer is kept, never the gold
        derivation |= {"abstention": "adversarial", "misleading_answer": str(item.get("adversarial_answer", ""))}
    bundle.questions.append(Question(
        question_id=qid, persona_id=pid, category=category, characteristics=chars, question_time=qtime,
        question=str(item["question"]), answer=str(answer),
        **extras_of(item, category, str(answer), derivation)))
    bundle.evidence.extend({e.evidence_id: e for e in evidence}.values())
