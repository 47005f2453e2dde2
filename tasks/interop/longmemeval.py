"""LongMemEval <-> lifeloom rows.

A list of items {question_id, question_type, question, answer, question_date, haystack_session_ids,
haystack_dates, haystack_sessions (lists of {role, content, has_answer}), answer_session_ids}; dates read
"2023/05/20 (Sat) 02:21". Each item's haystack is every session of its persona before the question; a
message flagged has_answer is evidence. Session ids are kept; message k of a session is `<sid>-tKK`.
lifeloom adds keys LongMemEval's readers ignore, all per item, never per message (its reader puts a message's every
key but has_answer into the prompt): `persona_id`, `persona_name`, `lifeloom_category`, `characteristics`,
`question_time`, the `lifeloom_*` question fields (checkpoint, answer type, options, ...), `lifeloom_turns` (each
message's turn_id, timestamp and category, beside `haystack_sessions`) and `lifeloom_session_ids`. LongMemEval's
retrieval takes a session as gold when its id contains "answer": an evidence session is `answer_<id>` in that item's
haystack and `answer_session_ids` (`session_key`); the import reads the ids back from `lifeloom_session_ids`.
Without these keys every item belongs to one persona, a
message is dated its session plus k-1 minutes, and an answer session without a has_answer flag makes all
of its user messages evidence (reported). Documents and chunk evidence have no LongMemEval form: the export
reports them. An abstention item (`Question.abstention`) is exported as LongMemEval's are: `<id>_abs`, its
explanation as `answer`, its evidence (the nearest misleading mention) as answer sessions; an imported `_abs` item
is an abstention item (`derivation.abstention = "unanswerable"`), and our own keep their ids.
"""

from __future__ import annotations

import datetime as dt
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

TO_TYPE = {"fact": "single-session-user", "external": "single-session-user", "temporal": "temporal-reasoning",
           "aggregation": "multi-session", "mixed": "multi-session", "hallucination": "single-session-user",
           "misleading": "knowledge-update"}
FROM_TYPE = {"single-session-user": "fact", "single-session-assistant": "fact", "single-session-preference": "fact",
             "temporal-reasoning": "temporal", "multi-session": "aggregation", "knowledge-update": "fact"}


ABS = "_abs"
"""LongMemEval marks an abstention item by this question-id suffix (its evaluation asks whether the answer declines);
an abstention item's `answer` is its explanation (the reference answer), as LongMemEval's own are."""


def format_date(ts: dt.datetime) -> str:
    return ts.astimezone(dt.UTC).strftime("%Y/%m/%d (%a) %H:%M")


def parse_date(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(str(text).strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=dt.UTC)
    except ValueError:
        return None


# --- export ------------------------------------------------------------------------------------------------

def session_key(session_id: str, gold: bool) -> str:
    """A session's id in one item's haystack, as LongMemEval's retrieval reads it: a session whose id contains
    "answer" is gold and no other is (src/retrieval/run_retrieval.py), so an evidence session is `answer_<id>`
    and any other id holding "answer" has it replaced by "noans", as LongMemEval's own code does."""
    if gold:
        return session_id if "answer" in session_id else f"answer_{session_id}"
    return session_id.replace("answer", "noans")


def export_longmemeval(bundle: Bundle) -> tuple[list[dict[str, Any]], Report]:
    report = Report()
    names = {p.persona_id: p.name for p in bundle.personas}
    evidence: dict[str, set[str]] = {}
    kinds = {t.turn_id for t in bundle.turns}
    for e in bundle.evidence:
        if e.evidence_id in kinds:
            evidence.setdefault(e.question_id, set()).add(e.evidence_id)
        else:
            report.add("unmapped_evidence", f"{e.question_id}:{e.evidence_id}", f"{e.evidence_kind} evidence has no "
                       "LongMemEval form")
    for pid in names:
        docs = sum(1 for d in bundle.documents if d.persona_id == pid)
        if docs:
            report.add("format_loss", pid, f"{docs} document(s) have no LongMemEval form; not exported")
    by_session: dict[str, list] = {}
    for t in bundle.turns:
        by_session.setdefault(t.session_id, []).append(t)
    ordered = sorted(bundle.sessions, key=lambda s: (s.started_at, s.session_id))
    items = []
    for q in bundle.questions:
        sessions = [s for s in ordered if s.persona_id == q.persona_id and s.started_at < q.question_time]
        gold = evidence.get(q.question_id, set())
        haystack, answer_sessions, ids, meta = [], [], [], []
        for s in sessions:
            msgs = [t for t in by_session.get(s.session_id, []) if t.timestamp < q.question_time]
            haystack.append([{"role": t.role, "content": t.text, "has_answer": t.turn_id in gold} for t in msgs])
            meta.append([{"turn_id": t.turn_id, "timestamp": t.timestamp.astimezone(dt.UTC).isoformat(),
                          "category": t.category} for t in msgs])
            ids.append(session_key(s.session_id, any(t.turn_id in gold for t in msgs)))
            if any(t.turn_id in gold for t in msgs):
                answer_sessions.append(ids[-1])
        abstain = {"lifeloom_answer": q.answer} if q.abstention else {}
        items.append({
            "question_id": f"{q.question_id}{ABS}" if q.abstention else q.question_id,
            "question_type": TO_TYPE[q.category], "question": q.question,
            "answer": q.reference_answer if q.abstention else q.answer, "question_date": format_date(q.question_time),
            "haystack_session_ids": ids,
            "haystack_dates": [format_date(s.started_at) for s in sessions], "haystack_sessions": haystack,
            "answer_session_ids": answer_sessions, "lifeloom_session_ids": [s.session_id for s in sessions],
            "lifeloom_turns": meta, "persona_id": q.persona_id, "persona_name": names[q.persona_id],
            "lifeloom_category": q.category, "characteristics": q.characteristics,
            "question_time": q.question_time.astimezone(dt.UTC).isoformat(), **question_extras(q), **abstain,
        })
    covered = {sid for item in items for sid in item["lifeloom_session_ids"]}
    for s in ordered:
        if s.session_id not in covered:
            report.add("format_loss", s.session_id, "session after every question of its persona: in no haystack")
    return items, report


# --- import ------------------------------------------------------------------------------------------------

def import_longmemeval(data: Any) -> tuple[Bundle, Report]:
    bundle, report = Bundle(), Report()
    if not isinstance(data, list):
        report.add("malformed_file", "root", "LongMemEval data is a list of items", "error")
        return bundle, report
    sessions: dict[str, Session] = {}
    turns: dict[str, list[Turn]] = {}
    pids: dict[str, str] = {}
    for n, item in enumerate(data, 1):
        if not isinstance(item, dict) or "question_id" not in item:
            report.add("malformed_question", f"item {n}", "not an item with a question_id; skipped", "error")
            continue
        key = str(item.get("persona_id") or "")
        if key not in pids:
            pids[key] = key if key.startswith("p") and key[1:].isdigit() else persona_id(len(pids) + 1)
            name = str(item.get("persona_name") or "LongMemEval user")
            bundle.personas.append(imported_persona(pids[key], name, "longmemeval"))
        _import_item(pids[key], item, sessions, turns, bundle, report)
    bundle.sessions = list(sessions.values())
    bundle.turns = [t for ts in turns.values() for t in ts]
    return bundle, report


def _import_item(pid: str, item: dict[str, Any], sessions: dict[str, Session], turns: dict[str, list[Turn]],
                 bundle: Bundle, report: Report) -> None:
    qid = str(item["question_id"])
    ids, dates, stacks = (item.get(k) or [] for k in ("haystack_session_ids", "haystack_dates", "haystack_sessions"))
    if not (len(ids) == len(dates) == len(stacks)):
        report.add("malformed_question", qid, "haystack ids, dates and sessions differ in length; skipped", "error")
        return
    own = item.get("lifeloom_session_ids") or []  # our export: the ids before `session_key` marked the gold
    own = own if len(own) == len(ids) else list(ids)
    renamed = {str(k): str(o) for k, o in zip(ids, own, strict=True)}
    meta = item.get("lifeloom_turns") or []
    meta = meta if len(meta) == len(ids) else [[] for _ in ids]
    gold: list[str] = []
    for sid, date, msgs, extra in zip(own, dates, stacks, meta, strict=True):
        start = parse_date(date)
        if start is None:
            report.add("undated_session", f"{qid}:{sid}", f"date {date!r} unreadable; session skipped", "error")
            continue
        sid = str(sid)
        mapped = _session(pid, sid, start, _with_meta(msgs, extra), sessions, turns, report)
        gold += [t.turn_id for t, m in zip(mapped, msgs, strict=False) if isinstance(m, dict) and m.get("has_answer")]
    for sid in item.get("answer_session_ids") or []:
        sid = renamed.get(str(sid), sid)
        if str(sid) not in sessions:
            report.add("malformed_reference", f"{qid}:{sid}", "answer session is not in the haystack", "error")
        elif not any(t.session_id == str(sid) for t in turns[str(sid)] if t.turn_id in gold):
            report.add("session_level_evidence", f"{qid}:{sid}", "no has_answer flag; its user messages are evidence")
            gold += [t.turn_id for t in turns[str(sid)] if t.role == "user"]
    qtype = str(item.get("question_type", ""))
    abstains = qid.endswith(ABS)
    category = lifeloom_category(str(item.get("lifeloom_category", ""))) or (
        "hallucination" if abstains else FROM_TYPE.get(qtype))
    if category is None:
        report.add("unmapped_value", qid, f"question_type {qtype!r} unknown; item skipped", "error")
        return
    qtime = utc(dt.datetime.fromisoformat(item["question_time"])) if item.get("question_time") else \
        parse_date(item.get("question_date", ""))
    if qtime is None:
        report.add("malformed_question", qid, f"question_date {item.get('question_date')!r} unreadable; skipped",
                   "error")
        return
    answer = str(item.get("lifeloom_answer", item.get("answer", "")))
    extras = extras_of(item, category, answer, {
        "source": "longmemeval", "question_type": qtype,
        "answer_session_ids": [renamed.get(str(s), str(s)) for s in item.get("answer_session_ids") or []]}
        | ({"abstention": "unanswerable"} if abstains else {}))
    if abstains and extras["derivation"].get("abstention"):
        qid = qid[:-len(ABS)] if "lifeloom_derivation" in item else qid  # our own export: the id it had
    bundle.questions.append(Question(
        question_id=qid, persona_id=pid, category=category,
        characteristics=[str(c) for c in item.get("characteristics") or []] or [qtype or category],
        question_time=qtime, question=str(item.get("question", "")), answer=answer, **extras))
    bundle.evidence.extend(Evidence(question_id=qid, evidence_id=t, evidence_kind="turn") for t in dict.fromkeys(gold))


def _with_meta(msgs: Any, extra: Any) -> Any:
    """The messages with our export's per-turn keys (`lifeloom_turns`: turn_id, timestamp, category) put back;
    they travel beside the messages, since LongMemEval's reader puts each message's every key but has_answer into
    its prompt."""
    if not isinstance(msgs, list) or not isinstance(extra, list) or len(extra) != len(msgs):
        return msgs
    return [m | e if isinstance(m, dict) and isinstance(e, dict) else m for m, e in zip(msgs, extra, strict=True)]


def _session(pid: str, sid: str, start: dt.datetime, msgs: Any, sessions: dict[str, Session],
             turns: dict[str, list[Turn]], report: Report) -> list[Turn]:
    """The session's turns, created the first time a haystack holds it (later copies must agree)."""
    mapped = []
    for k, m in enumerate(msgs if isinstance(msgs, list) else [], 1):
        m = m if isinstance(m, dict) else {}
        ts = utc(dt.datetime.fromisoformat(m["timestamp"])) if m.get("timestamp") else start + dt.timedelta(
            minutes=k - 1)
        role = m.get("role") if m.get("role") in ("user", "assistant") else "user"
        category = m.get("category") if m.get("category") in DIALOGUE_CATEGORIES else "information_sharing"
        mapped.append(Turn(turn_id=str(m.get("turn_id") or f"{sid}-t{k:02d}"), session_id=sid, persona_id=pid,
                           timestamp=ts, role=role, text=str(m.get("content", "")), category=category))
    if sid not in sessions:
        sessions[sid] = Session(session_id=sid, persona_id=pid, started_at=start,
                                category=mapped[0].category if mapped else "information_sharing")
        turns[sid] = mapped
    elif len(mapped) > len(turns[sid]):
        turns[sid] = mapped  # a later haystack may hold more of the session (messages after an earlier question)
    elif [t.text for t in mapped] != [t.text for t in turns[sid][:len(mapped)]]:
        report.add("conflicting_session", sid, "the same session id holds different messages; first copy kept")
    return mapped
