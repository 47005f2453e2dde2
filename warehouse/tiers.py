"""I/O of the length tiers (tasks/tiers/): the run's personas as the tier builder reads them, and the landing of its
rows (`tiers`, `tier_history`, `tier_questions`).

Item sizes are counted in cl100k_base tokens of the turns' text and the documents' bodies, as the distribution gate
counts a persona's tokens (validation/distribution.py), so a padded tier and the gate agree on what a budget holds.
Questions are read through the run's views, so those the calibration withdrew are in no tier.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from typing import Any

import duckdb

from schemas.tiers import TierQuestion, TierRow
from tasks.tiers.model import Item, Life, Need, Unit, name_pattern
from tasks.tiers.select import TierBuild
from warehouse.parquet import land_rows
from warehouse.paths import Layout

FAMILY_ROLES = frozenset({"husband", "wife", "partner", "ex-partner", "mother", "father", "parent", "sister",
                          "brother", "daughter", "son", "child", "grandmother", "grandfather", "grandparent",
                          "cousin", "aunt", "uncle", "niece", "nephew", "stepmother", "stepfather", "fiance",
                          "fiancee"})
"""Roles of the people who make a persona's family: a borrowed session naming them would give another persona a
second family."""
TITLES = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+")


def given_name(name: str) -> str:
    """The given name of a person's full name, a title skipped ("Dr. Elif Nasser" -> "Elif"; tasks/common/facttext.py
    `first_name` keeps the title, as the narration says it)."""
    parts = TITLES.sub("", name.strip()).split()
    return parts[0] if parts else ""


def _counter():
    """Token counts of a batch of texts, one at a time (the batch encoder starts threads per call, which costs more
    than it saves on chat-sized texts), remembered for the build's other counts of the same texts."""
    from tasks.sources.chunking import count_tokens

    return lambda texts: [count_tokens(x or "") for x in texts]


def read_lives(con: duckdb.DuckDBPyConnection, run_id: str) -> list[Life]:
    """Every persona of run `run_id` (a connection whose views show its tables) as the tier builder reads it."""
    count = _counter()
    p = {"r": run_id}
    attrs = dict(con.execute("select fact_id, attribute from facts where run_id = $r", p).fetchall())
    fact_day = dict(con.execute("select fact_id, valid_from from facts where run_id = $r", p).fetchall())
    session_of = {}
    turns: dict[str, list[tuple]] = defaultdict(list)
    cur = con.execute("select persona_id, session_id, turn_id, timestamp, kind, text, fact_ids, paraphrase_ids "
                      "from turns where run_id = $r order by persona_id, session_id, timestamp, turn_id", p)
    while rows := cur.fetchmany(8192):
        sizes = count([r[5] for r in rows])
        for r, n in zip(rows, sizes, strict=True):
            turns[r[1]].append((*r, n))
            session_of[r[2]] = r[1]
    started = dict(con.execute("select session_id, started_at from sessions where run_id = $r", p).fetchall())
    docs = con.execute("select persona_id, doc_id, created_at, body, fact_ids from documents where run_id = $r "
                       "order by persona_id, doc_id", p).fetchall()
    doc_sizes = count([d[3] for d in docs])
    doc_of = dict(con.execute("select chunk_id, doc_id from chunks where run_id = $r", p).fetchall())
    carriers: dict[str, set[str]] = defaultdict(set)
    for fid, eid, kind in con.execute("select fact_id, evidence_id, evidence_kind from fact_mentions "
                                      "where run_id = $r and counts", p).fetchall():
        holder = session_of.get(eid) if kind == "turn" else doc_of.get(eid)
        if holder:
            carriers[fid].add(holder)
    items: dict[str, list[Item]] = defaultdict(list)
    chats: dict[str, list[Item]] = defaultdict(list)
    for sid, parts in turns.items():
        pid = parts[0][0]
        facts = {f for t in parts for f in (*(t[6] or ()), *(t[7] or ()))}
        items[pid].append(Item(sid, "session", pid, started.get(sid, parts[0][3]), sum(t[-1] for t in parts),
                               attributes=frozenset(attrs[f] for f in facts if f in attrs),
                               text="\n".join(t[5] or "" for t in parts)))
        chats[pid] += _chats(sid, pid, parts)
    doc_day = {}
    for (pid, did, created, _body, fids), n in zip(docs, doc_sizes, strict=True):
        doc_day[did] = created
        items[pid].append(Item(did, "document", pid, created, n,
                               attributes=frozenset(attrs[f] for f in fids or () if f in attrs)))
    names = vocabularies(con, run_id)
    needs = _needs(con, run_id, session_of, doc_of, carriers, attrs, fact_day, doc_day, names)
    return [Life(persona_id=pid, items=sorted(items[pid], key=lambda i: (i.timestamp, i.item_id)),
                 needs=needs.get(pid, []), vocabulary=names["vocabulary"].get(pid, frozenset()),
                 own_names=names["own"].get(pid, frozenset()), chats=chats[pid])
            for pid in names["personas"]]


def _chats(sid: str, pid: str, parts: list[tuple]) -> list[Item]:
    """The runs of filler turns of one session (an unrelated request or small talk and the reply), each a chat."""
    out, run = [], []
    for t in [*parts, None]:
        if t is not None and t[4] == "filler":
            run.append(t)
            continue
        if run:
            out.append(Item(run[0][2], "chat", pid, run[0][3], sum(r[-1] for r in run),
                            turn_ids=tuple(r[2] for r in run), text="\n".join(r[5] or "" for r in run),
                            session_id=sid))
            run = []
    return out


def vocabularies(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """Per persona: the names its haystack must not hold (its world's, its own, and those of its questions) and the
    names an item it lends must not hold (its own and its family's)."""
    p = {"r": run_id}
    personas = dict(con.execute("select persona_id, name from personas where run_id = $r order by 1", p).fetchall())
    world: dict[str, set[str]] = defaultdict(set)
    own: dict[str, set[str]] = {pid: {n, given_name(n)} for pid, n in personas.items()}
    for pid, kind, name, role in con.execute("select persona_id, kind, name, role from entities where run_id = $r",
                                             p).fetchall():
        world[pid].add(name)
        if kind == "person":
            world[pid].add(given_name(name))
            if role in FAMILY_ROLES:
                own[pid] |= {name, given_name(name)}
    every = set().union(*world.values(), *own.values()) if world or own else set()
    pattern = name_pattern(frozenset(every))
    asked: dict[str, set[str]] = defaultdict(set)
    for pid, *texts in con.execute("select persona_id, question, answer, reference_answer, "
                                   "array_to_string(options, ' | ') from questions where run_id = $r", p).fetchall():
        if pattern is not None:
            asked[pid] |= {m.group(0) for t in texts if t for m in pattern.finditer(t)}
    vocabulary = {pid: frozenset(world[pid] | own[pid] | asked[pid]) for pid in personas}
    return {"personas": list(personas), "vocabulary": vocabulary,
            "own": {pid: frozenset(v) for pid, v in own.items()}}


def _needs(con, run_id, session_of, doc_of, carriers, attrs, fact_day, doc_day, names) -> dict[str, list[Need]]:
    p = {"r": run_id}
    evidence: dict[str, list[tuple]] = defaultdict(list)
    for qid, eid, kind, fid in con.execute("select question_id, evidence_id, evidence_kind, fact_id "
                                           "from question_evidence where run_id = $r order by all", p).fetchall():
        holder = session_of.get(eid) if kind == "turn" else doc_of.get(eid)
        if holder:
            evidence[qid].append((eid, holder, fid))
    out: dict[str, list[Need]] = defaultdict(list)
    for qid, pid, category, qtime, answer, reference, atype, derivation in con.execute(
            "select question_id, persona_id, category, question_time, answer, reference_answer, answer_type, "
            "derivation from questions where run_id = $r order by question_id", p).fetchall():
        d = json.loads(derivation) if isinstance(derivation, str) else (derivation or {})
        rows = evidence.get(qid, [])
        groups: dict[Any, set[str]] = defaultdict(set)
        for eid, holder, fid in rows:
            groups[fid if fid is not None else ("structural", eid)].add(holder)
        units = tuple(Unit(f, tuple(sorted(carriers.get(f, set()) | groups.get(f, set()))), fact_day[f])
                      for f in d.get("fact_ids") or () if f in fact_day)
        units += tuple(Unit(doc, (doc,), _day(doc_day[doc])) for doc in d.get("doc_ids") or () if doc in doc_day)
        every = bool(d.get("all_instances")) and bool(units)
        if every:  # the instances are checked as units (all seen, or a count re-derived), not as evidence groups
            counted = {u.unit_id for u in units}
            groups = {k: v for k, v in groups.items() if k not in counted and not (isinstance(k, tuple) and
                                                                                  v <= counted)}
        facts = {f for f in d.get("fact_ids") or ()} | {fid for _, _, fid in rows if fid}
        out[pid].append(Need(
            question_id=qid, persona_id=pid, category=category, question_time=qtime, answer=answer,
            reference_answer=reference, answer_type=atype,
            groups=tuple(tuple(sorted(h)) for _, h in sorted(groups.items(), key=lambda kv: str(kv[0]))),
            evidence=tuple((eid, holder) for eid, holder, _ in rows), all_instances=every, units=units,
            countable=every and atype == "short" and answer.isdigit() and int(answer) == len(units),
            attributes=frozenset(attrs[f] for f in facts if f in attrs)))
    return out


def _day(value: dt.datetime | dt.date) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


def land_tiers(layout: Layout, run_id: str, build: TierBuild) -> dict[str, int]:
    """Land the run's tier rows (empty files when the config sets no tiers, so the views keep their schema)."""
    land_rows(layout, "tiers", build.tiers, run_id)
    land_rows(layout, "tier_history", build.history, run_id)
    land_rows(layout, "tier_questions", build.questions, run_id)
    land_rows(layout, "tier_chats", build.chats, run_id)
    return {"tiers": len(build.tiers), "tier_history": len(build.history), "tier_questions": len(build.questions),
            "tier_chats": len(build.chats)}


def tier_figures(con: duckdb.DuckDBPyConnection, run_id: str, names: list[str]) -> dict[str, Any]:
    """The manifest's `tiers` (tier_summary) from the run's landed tier rows."""
    from schemas.tables import from_records
    from schemas.tiers import tier_budget

    if not names:
        return {}
    def rows_of(table: str) -> list[dict]:  # con.sql: Arrow straight from the relation (execute's copies and warns)
        return con.sql(f"select * exclude (run_id) from {table} where run_id = $r",
                       params={"r": run_id}).to_arrow_table().to_pylist()

    rows = from_records(TierRow, rows_of("tiers"))
    asked = from_records(TierQuestion, rows_of("tier_questions"))
    return tier_summary(rows, asked, {n: tier_budget(n) for n in names})


def tier_summary(rows: list[TierRow], questions: list[TierQuestion], budgets: dict[str, int]) -> dict[str, Any]:
    """The manifest's and the card's figures per tier: budget, tokenizer, tokens per persona (min, median, max),
    mode per persona, questions by category and how many a cut re-derived."""
    from statistics import median

    out: dict[str, Any] = {}
    for name in budgets:
        mine = [r for r in rows if r.tier == name]
        asked = [q for q in questions if q.tier == name]
        tokens = [r.tokens for r in mine]
        by_category: dict[str, int] = defaultdict(int)
        for q in asked:
            by_category[q.category] += 1
        out[name] = {
            "budget": budgets[name], "tokenizer": mine[0].tokenizer if mine else "cl100k_base",
            "tokens_per_persona": {"min": min(tokens, default=0), "median": int(median(tokens)) if tokens else 0,
                                   "max": max(tokens, default=0)},
            "modes": {m: sum(r.mode == m for r in mine) for m in ("cut", "padded")},
            "haystack_tokens": sum(r.haystack_tokens for r in mine),
            "questions": len(asked), "rederived": sum(q.rederived for q in asked),
            "questions_by_category": dict(sorted(by_category.items())),
        }
    return out


__all__ = ["given_name", "land_tiers", "read_lives", "tier_summary", "vocabularies"]
