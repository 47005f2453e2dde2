"""The viewer's data shards: what a page loads, as plain dicts (written as `.js` files by site.py, so a page opened
from disk loads them with a script tag; browsers refuse `fetch` of a file: URL).

Text is escaped here and fact mentions are marked here (`<mark>` with the fact and its mode), so the pages insert
ready, safe HTML.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

from markupsafe import escape

SNIPPET = 240
"""Characters of an evidence item shown under a question (the link opens it in context)."""


def link_turn(persona_id: str, turn: dict, month: str | None = None) -> str:
    """Where a turn is shown, from the site's root: the month page of its session (`month`; a session begun on the
    31st keeps its turns after midnight), else of the turn itself."""
    return f"persona/{persona_id}/sessions.html?m={month or format(turn['timestamp'], '%Y-%m')}#{turn['turn_id']}"


def link_chunk(persona_id: str, doc_id: str, chunk_id: str) -> str:
    return f"persona/{persona_id}/documents.html#{chunk_id or doc_id}"


def marked(text: str, mentions: list[dict], facts: dict[str, dict]) -> str:
    """`text` escaped, each mention's span wrapped in `<mark class="m-<mode>">` titled with its fact (the first
    occurrence not inside an earlier mark); a mention whose span is not in the text is left unmarked."""
    spans: list[tuple[int, int, dict]] = []
    for m in mentions:
        span = (m.get("span") or "").strip()
        if not span:
            continue
        start = text.find(span)
        while start >= 0 and any(a < start + len(span) and start < b for a, b, _ in spans):
            start = text.find(span, start + 1)
        if start >= 0:
            spans.append((start, start + len(span), m))
    out, at = [], 0
    for start, end, m in sorted(spans, key=lambda s: s[0]):
        fact = facts.get(m["fact_id"], {})
        title = f"{fact.get('subject', '')}: {fact.get('attribute', '')} = {fact.get('value', '')} ({m['mode']})"
        out += [str(escape(text[at:start])),
                f'<mark class="m-{escape(m["mode"])}" title="{escape(title)}" data-fact="{escape(m["fact_id"])}">'
                f"{escape(text[start:end])}</mark>"]
        at = end
    out.append(str(escape(text[at:])))
    return "".join(out)


def session_month(persona_id: str, month: str, sessions: list[dict], turns: list[dict], mentions: dict[str, list],
                  facts: dict[str, dict], titles: dict[str, str]) -> dict[str, Any]:
    """One month of a persona's conversations: days, their sessions, each turn's marked text, uploads (linked to
    the documents page) and the relative-time phrases with the dates they name."""
    by_session: dict[str, list[dict]] = {}
    for t in turns:
        by_session.setdefault(t["session_id"], []).append(t)
    days: dict[str, list[dict]] = {}
    for s in sorted(sessions, key=lambda s: (s["started_at"], s["session_id"])):
        mine = sorted(by_session.get(s["session_id"], []), key=lambda t: (t["timestamp"], t["turn_id"]))
        days.setdefault(f"{s['started_at']:%Y-%m-%d}", []).append({
            "id": s["session_id"], "time": f"{s['started_at']:%H:%M}", "category": s["category"],
            "turns": [{
                "id": t["turn_id"], "role": t["role"], "time": f"{t['timestamp']:%Y-%m-%d %H:%M}",
                "html": marked(t["text"], mentions.get(t["turn_id"], []), facts),
                "uploads": [{"id": d, "title": titles.get(d, d)} for d in t.get("doc_ids") or []],
                "refs": [{"phrase": r.get("phrase", ""), "date": r.get("date", "")}
                         for r in (t.get("time_refs") or []) if isinstance(r, dict)],
            } for t in mine]})
    return {"persona": persona_id, "month": month, "days": [{"date": d, "sessions": s} for d, s in days.items()]}


_TAG = re.compile(r"<[^>]+>")


def plain(text: str, fmt: str) -> str:
    """A chunk's text as a reader sees it: an HTML document's tags dropped and entities unescaped."""
    return html.unescape(_TAG.sub("", text)).strip() if fmt == "html" else text


def documents(persona_id: str, docs: list[dict], chunks: list[dict], mentions: dict[str, list],
              facts: dict[str, dict]) -> dict[str, Any]:
    """A persona's documents in time order, each with its chunks (marked), its tables and its thread and revision
    links; emails grouped by thread on the page."""
    by_doc: dict[str, list[dict]] = {}
    for c in chunks:
        by_doc.setdefault(c["doc_id"], []).append(c)
    out = []
    for d in sorted(docs, key=lambda d: (d["created_at"], d["doc_id"])):
        mine = sorted(by_doc.get(d["doc_id"], []), key=lambda c: c["ordinal"])
        out.append({
            "id": d["doc_id"], "created": f"{d['created_at']:%Y-%m-%d %H:%M}", "type": d["source_type"],
            "format": d["format"], "title": d["title"], "sender": d.get("sender") or "",
            "recipients": d.get("recipients") or [], "thread": d.get("thread_id") or d["doc_id"],
            "parent": d.get("parent_doc_id") or "", "version": d.get("version") or 1, "kind": d.get("kind") or "",
            "tables": [t for t in (d.get("tables") or []) if isinstance(t, dict)]
            if isinstance(d.get("tables"), list) else ([d["tables"]] if isinstance(d.get("tables"), dict) else []),
            "chunks": [{"id": c["chunk_id"], "section": c.get("section") or "",
                        "html": marked(plain(c["text"], d["format"]), mentions.get(c["chunk_id"], []), facts)}
                       for c in mine],
        })
    return {"persona": persona_id, "docs": out}


def search_items(persona_id: str, turns: list[dict], chunks: list[dict], formats: dict[str, str],
                 months: dict[str, str] | None = None) -> dict[str, Any]:
    """Every turn and chunk of a persona as the search page indexes it (MiniSearch, in the browser); `months`: each
    session's month page."""
    months = months or {}
    items = [{"id": t["turn_id"], "kind": t["role"], "time": f"{t['timestamp']:%Y-%m-%d %H:%M}", "text": t["text"],
              "link": link_turn(persona_id, t, months.get(t["session_id"]))} for t in turns]
    items += [{"id": c["chunk_id"], "kind": "document", "time": f"{c['created_at']:%Y-%m-%d %H:%M}",
               "text": plain(c["text"], formats.get(c["doc_id"], "txt")),
               "link": link_chunk(persona_id, c["doc_id"], c["chunk_id"])} for c in chunks]
    return {"persona": persona_id, "items": items}


def question_item(q: dict, evidence: list[dict], places: dict[str, tuple[str, str]], difficulty: dict | None
                  ) -> dict[str, Any]:
    """A question as the questions page shows it: answer, options with the gold, derivation, its evidence in
    context (a snippet and a link) and the baselines that answer it."""
    derivation = q.get("derivation") if isinstance(q.get("derivation"), dict) else {}
    return {
        "id": q["question_id"], "persona": q["persona_id"], "category": q["category"],
        "characteristics": q.get("characteristics") or [], "checkpoint": q.get("checkpoint") or "",
        "type": q.get("answer_type") or "", "time": f"{q['question_time']:%Y-%m-%d %H:%M}",
        "question": q["question"], "answer": q["answer"], "reference": q.get("reference_answer") or "",
        "options": q.get("options") or [], "gold": q.get("gold_option"), "template": derivation.get("template", ""),
        "derivation": derivation,
        "evidence": [{"id": e["evidence_id"], "kind": e["evidence_kind"], "fact": e.get("fact_id") or "",
                      "text": places.get(e["evidence_id"], ("", ""))[0][:SNIPPET],
                      "link": places.get(e["evidence_id"], ("", ""))[1]} for e in evidence],
        "solved_by": (difficulty or {}).get("solved_by") or [],
        "memory_free": bool((difficulty or {}).get("memory_free")),
    }


def day_label(value: dt.date | dt.datetime | str) -> str:
    return value.isoformat()[:10] if hasattr(value, "isoformat") else str(value)[:10]
