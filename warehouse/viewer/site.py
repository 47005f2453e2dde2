"""Write the release viewer: a static site, self-contained (no CDN, no network: scripts, styles and the search
library are copied in), that opens from disk or is served on loopback (`lifeloom view --serve`).

Pages are rendered once (Jinja2, autoescaped); what is large (a month of a persona's conversations, a persona's
documents, the search text, the questions) is a data shard, a `.js` file a page loads when it needs it, so a page
opens at once even on a release of 54,000 turns. The site is written into a staging folder and renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, PackageLoader, select_autoescape

from warehouse.viewer import plots, shards
from warehouse.viewer.data import Release, by_month

ASSETS = Path(__file__).with_name("assets")


@dataclass
class ViewResult:
    folder: Path
    pages: int
    shards: int
    bytes: int


def _env() -> Environment:
    env = Environment(loader=PackageLoader("warehouse.viewer", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = lambda v: json.dumps(v, indent=2, ensure_ascii=False, default=str)
    return env


def _js(key: str, payload: Any) -> str:
    """A shard as a script that hands its data to the page (`LL.put`); `</` escaped so no text ends the script."""
    text = json.dumps(payload, ensure_ascii=False, default=str, separators=(",", ":")).replace("</", "<\\/")
    return f"LL.put({json.dumps(key)},{text});\n"


class Writer:
    """Writes pages and shards under a folder, counting them."""

    def __init__(self, root: Path) -> None:
        self.root, self.pages, self.shards = root, 0, 0
        self.env = _env()

    def page(self, rel: str, template: str, **context: Any) -> None:
        depth = rel.count("/")
        text = self.env.get_template(template).render(root="../" * depth, **context)
        self._write(rel, text)
        self.pages += 1

    def shard(self, rel: str, key: str, payload: Any) -> None:
        self._write(rel, _js(key, payload))
        self.shards += 1

    def _write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build_view(release_folder: Path, target: Path) -> ViewResult:
    """Write the viewer of the release at `release_folder` into `target` (replaced whole, never half-written)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
    release = Release.open(release_folder)
    try:
        writer = Writer(staging)
        shutil.copytree(ASSETS, staging / "assets")
        _write_site(release, writer)
        size = sum(p.stat().st_size for p in staging.rglob("*") if p.is_file())
        if target.exists():
            old = target.with_name(f".{target.name}-old")
            os.replace(target, old)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        release.close()
    return ViewResult(target, writer.pages, writer.shards, size)


def _write_site(release: Release, w: Writer) -> None:
    personas = release.personas()
    names = {p["persona_id"]: p["name"] for p in personas}
    places: dict[str, tuple[str, str]] = {}
    days: Counter = Counter()
    summaries = []
    for persona in personas:
        summaries.append(_persona(release, w, persona, places, days))
    zones = {p["persona_id"]: persona_zone(p) for p in personas}
    questions = release.rows("questions", order="question_id")
    for q in questions:
        q["question_time"] = q["question_time"].astimezone(zones.get(q["persona_id"], ZoneInfo("UTC")))
    evidence: dict[str, list[dict]] = defaultdict(list)
    for e in release.rows("question_evidence", order="question_id, evidence_id"):
        evidence[e["question_id"]].append(e)
    difficulty = {d["question_id"]: d for d in release.rows("question_difficulty")}
    items = [shards.question_item(q, evidence[q["question_id"]], places, difficulty.get(q["question_id"]))
             for q in questions]
    w.shard("data/questions.js", "questions", {"names": names, "questions": items})
    w.page("questions.html", "questions.html", title="Questions", release=release.name, count=len(items))
    w.page("search.html", "search.html", title="Search", release=release.name, personas=summaries)
    _overview(release, w, summaries, questions, days)


def _persona(release: Release, w: Writer, persona: dict, places: dict, days: Counter) -> dict:
    """A persona's page, conversations, documents and search shards; returns its summary for the index."""
    pid = persona["persona_id"]
    zone = persona_zone(persona)
    facts = {f["fact_id"]: f for f in release.persona_rows("facts", pid, "fact_id")}
    mentions: dict[str, list[dict]] = defaultdict(list)
    for m in release.persona_rows("fact_mentions", pid, "mention_id"):
        mentions[m["evidence_id"]].append(m)
    turns = local(release.persona_rows("turns", pid, "timestamp, turn_id"), "timestamp", zone)
    sessions = local(release.persona_rows("sessions", pid, "started_at, session_id"), "started_at", zone)
    docs = local(release.persona_rows("documents", pid, "created_at, doc_id"), "created_at", zone)
    chunks = local(release.persona_rows("chunks", pid, "doc_id, ordinal"), "created_at", zone)
    titles = {d["doc_id"]: d["title"] for d in docs}
    formats = {d["doc_id"]: d["format"] for d in docs}
    session_month = {s["session_id"]: f"{s['started_at']:%Y-%m}" for s in sessions}
    for t in turns:
        places[t["turn_id"]] = (t["text"], shards.link_turn(pid, t, session_month.get(t["session_id"])))
        days[f"{t['timestamp']:%Y-%m-%d}"] += 1
    for c in chunks:
        places[c["chunk_id"]] = (shards.plain(c["text"], formats.get(c["doc_id"], "txt")),
                                 shards.link_chunk(pid, c["doc_id"], c["chunk_id"]))
    months = []
    for month, month_sessions in by_month(sessions, "started_at"):
        ids = {s["session_id"] for s in month_sessions}
        mine = [t for t in turns if t["session_id"] in ids]
        w.shard(f"data/{pid}/sessions-{month}.js", f"{pid}/sessions-{month}",
                shards.session_month(pid, month, month_sessions, mine, mentions, facts, titles))
        months.append({"month": month, "sessions": len(month_sessions), "turns": len(mine)})
    w.shard(f"data/{pid}/documents.js", f"{pid}/documents", shards.documents(pid, docs, chunks, mentions, facts))
    w.shard(f"data/{pid}/search.js", f"{pid}/search", shards.search_items(pid, turns, chunks, formats,
                                                                            session_month))
    events = release.persona_rows("events", pid, "date, event_id")
    constraints = release.persona_rows("constraints", pid, "valid_from, constraint_id")
    ops = release.persona_rows("profile_ops", pid, "date, op_id")
    if ops:
        plots.profile_changes(ops, w.root / "plots" / f"{pid}-profile.png")
    by_event = defaultdict(list)
    for c in constraints:
        by_event[c.get("event_id")].append(c)
    w.page(f"persona/{pid}.html", "persona.html", title=persona["name"], release=release.name, persona=persona,
           profile=persona.get("profile") or {}, events=events, constraints=by_event, ops=ops, months=months,
           plot=bool(ops), documents=len(docs), turns=len(turns))
    w.page(f"persona/{pid}/sessions.html", "sessions.html", title=f"{persona['name']}: conversations",
           release=release.name, persona=persona, months=months, zone=str(zone))
    w.page(f"persona/{pid}/documents.html", "documents.html", title=f"{persona['name']}: documents",
           release=release.name, persona=persona, documents=len(docs))
    return {"id": pid, "name": persona["name"], "turns": len(turns), "sessions": len(sessions),
            "documents": len(docs), "events": len(events), "critical": sum(1 for e in events if e.get("critical")),
            "seed": persona.get("seed_text", "")}


def persona_zone(persona: dict) -> ZoneInfo:
    """The persona's time zone (its profile's), in which the viewer shows its days; UTC when unknown."""
    name = ((persona.get("profile") or {}).get("identity") or {}).get("timezone") or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local(rows: list[dict], key: str, zone: ZoneInfo) -> list[dict]:
    """The rows with their `key` time in the persona's zone (a day is the persona's day, not UTC's)."""
    for row in rows:
        if row.get(key) is not None and getattr(row[key], "tzinfo", None) is not None:
            row[key] = row[key].astimezone(zone)
    return rows


def _overview(release: Release, w: Writer, personas: list[dict], questions: list[dict], days: Counter) -> None:
    m = release.manifest
    results = release.rows("gate_results")
    results.sort(key=lambda r: (bool(r["success"]), r["suite"], r["expectation"]))
    measures = m.get("measures") or {}
    if questions:
        plots.questions_by_category(questions, w.root / "plots" / "questions.png")
    if days:
        plots.turns_per_day(dict(days), w.root / "plots" / "turns_per_day.png")
    tokens = ((m.get("dialogue") or {}).get("tokens") or {}).get("by_persona") or {}
    if tokens:
        plots.tokens_per_persona(tokens, w.root / "plots" / "tokens.png")
    w.page("index.html", "index.html", title=release.name, release=release.name, manifest=m, personas=personas,
           gates=results, failed=[r for r in results if not r["success"]], measures=measures,
           plots={"questions": bool(questions), "days": bool(days), "tokens": bool(tokens)})
