"""Freezing: copy a run's tables into `releases/<name>/<version>/` with a manifest and a dataset card.

A release directory is immutable: it is assembled in a temporary folder, renamed into place only if
no release of that version exists, and its files are made read-only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import duckdb
from pydantic import BaseModel

from schemas.release import Manifest, ReleaseRecord
from schemas.tables import RELEASE_TABLES, TABLES
from tasks.sources.chunking import count_tokens
from warehouse.card import dataset_card
from warehouse.catalog import session
from warehouse.croissant import croissant
from warehouse.integrity import checksums
from warehouse.ledger import ledger_by_stage_model
from warehouse.parquet import land_rows
from warehouse.paths import Layout

_VERSION = re.compile(r"^v(\d{4,})$")


def check_version_name(version: str | None) -> None:
    """Refuse a release version that is not `vNNNN` (it would escape releases/ or be invisible to listings)."""
    if version is not None and not _VERSION.match(version):
        raise ValueError(f"release version {version!r} must look like v0001 (v and at least four digits)")


class ReleaseExists(RuntimeError):
    """Freezing would overwrite an existing release."""


def table_hash(con: duckdb.DuckDBPyConnection, table: str, run_id: str) -> str:
    """SHA-256 over the table's canonical rows for the run: volatile columns dropped, each row as
    JSON with sorted keys, rows in sorted order. Equal content gives equal hashes across builds."""
    exclude = ", ".join(("run_id",) + TABLES[table].volatile)
    cur = con.execute(
        f"select to_json(t)::varchar as j from (select * exclude ({exclude}) from {table} "
        f"where run_id = ?) t order by j",
        [run_id],
    )
    digest = hashlib.sha256()
    while rows := cur.fetchmany(2048):
        for (line,) in rows:
            digest.update(json.dumps(json.loads(line), sort_keys=True).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def content_hashes(con: duckdb.DuckDBPyConnection, run_id: str, tables=RELEASE_TABLES) -> dict[str, str]:
    return {t: table_hash(con, t, run_id) for t in tables}


def combined_hash(hashes: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()


def row_counts(con: duckdb.DuckDBPyConnection, run_id: str, tables=RELEASE_TABLES) -> dict[str, int]:
    return {t: con.execute(f"select count(*) from {t} where run_id = ?", [run_id]).fetchone()[0] for t in tables}


def ledger_totals(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """Calls, tokens, cost and outcomes of the run's model calls."""
    calls, tin, tout, cost, cached, tcached = con.execute(
        "select count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
        "coalesce(sum(cost_usd), 0), count(*) filter (where cached), coalesce(sum(cached_input_tokens), 0) "
        "from llm_calls where run_id = ?",
        [run_id],
    ).fetchone()
    outcomes = dict(con.execute(
        "select outcome, count(*) from llm_calls where run_id = ? group by 1 order by 1", [run_id]
    ).fetchall())
    return {"calls": calls, "input_tokens": tin, "cached_input_tokens": tcached, "output_tokens": tout,
            "cost_usd": round(cost, 6),
            "cached": cached, "outcomes": outcomes, "by_stage_model": ledger_by_stage_model(con, run_id)}


def source_counts(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """Documents of the run by source type, by format and by both (`email/txt`), plus the total."""
    rows = con.execute("select source_type, format, count(*) from documents where run_id = ? group by 1, 2 "
                       "order by 1, 2", [run_id]).fetchall()
    by_type: dict[str, int] = {}
    by_format: dict[str, int] = {}
    for kind, fmt, n in rows:
        by_type[kind] = by_type.get(kind, 0) + n
        by_format[fmt] = by_format.get(fmt, 0) + n
    return {"total": sum(n for *_, n in rows), "by_type": by_type, "by_format": by_format,
            "by_type_format": {f"{k}/{f}": n for k, f, n in rows}}


USER_4GRAMS_SQL = r"""
with words as (
    select persona_id, string_split(trim(regexp_replace(lower(text), '\s+', ' ', 'g')), ' ') as ws
    from turns where run_id = $run_id and role = 'user'
), grams as (
    select persona_id, array_to_string(ws[k:k + 3], ' ') as gram
    from (select persona_id, ws, unnest(generate_series(1, len(ws) - 3)) as k from words)
)
select persona_id, count(*) as n, count(distinct gram) as n_distinct from grams group by rollup (persona_id)
"""
"""Word 4-grams of user turns (lower-cased, whitespace-split) and how many are distinct, per persona and,
with persona_id null, over the whole run."""


def dialogue_stats(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The run's dialogue at a glance: sessions, user and assistant turns, turns by category and by kind,
    the distinct 4-gram ratio of user turns (whole run, lowest persona, each persona) and cl100k_base tokens
    of dialogue turns and document bodies per persona (exact counts with tasks.sources.chunking.count_tokens)."""
    params = {"run_id": run_id}
    ratios = {pid: (round(d / n, 4) if n else None) for pid, n, d in con.execute(USER_4GRAMS_SQL, params).fetchall()}
    overall = ratios.pop(None, None)
    roles = dict(con.execute("select role, count(*) from turns where run_id = $run_id group by 1", params).fetchall())
    by = {col: dict(con.execute(f"select {col}, count(*) from turns where run_id = $run_id group by 1 order by 1",
                                params).fetchall()) for col in ("category", "kind")}
    user_kinds = dict(con.execute("select kind, count(*) from turns where run_id = $run_id and role = 'user' "
                                  "group by 1 order by 1", params).fetchall())
    sessions = con.execute("select count(*) from sessions where run_id = $run_id", params).fetchone()[0]
    modes = dict(con.execute("select mode, count(*) from fact_mentions where run_id = $run_id group by 1 order by 1",
                             params).fetchall())
    where: dict[str, dict[str, int]] = {}
    for kind, mode, n in con.execute("select evidence_kind, mode, count(*) from fact_mentions where run_id = $run_id "
                                     "group by 1, 2 order by 1, 2", params).fetchall():
        where.setdefault(kind, {})[mode] = n
    later = con.execute("select count(*) from fact_mentions m where run_id = $run_id and mode = 'corrected' and counts "
                        "and not exists (select 1 from fact_mentions s where s.run_id = m.run_id and not s.counts and "
                        "s.mode = 'corrected' and s.evidence_id = m.evidence_id and s.fact_id = m.fact_id)",
                        params).fetchone()[0]  # put right in a later session (tasks/dialogue/latefix.py)
    tokens = {pid: {"dialogue": n, "documents": 0} for pid, n in _tokens(con, "turns", "text", run_id).items()}
    for pid, n in _tokens(con, "documents", "body", run_id).items():
        tokens.setdefault(pid, {"dialogue": 0, "documents": 0})["documents"] = n
    return {
        "sessions": sessions, "user_turns": roles.get("user", 0), "assistant_turns": roles.get("assistant", 0),
        "turns_by_category": by["category"], "turns_by_kind": by["kind"], "user_turns_by_kind": user_kinds,
        "mentions_by_mode": modes, "mentions_by_evidence_kind": where, "later_corrections": later,
        "distinct_4gram_ratio": overall,
        "min_persona_distinct_4gram_ratio": min((r for r in ratios.values() if r is not None), default=None),
        "distinct_4gram_ratio_by_persona": dict(sorted(ratios.items())),
        "tokens": {"method": "cl100k_base via tasks.sources.chunking.count_tokens",
                   "dialogue": sum(t["dialogue"] for t in tokens.values()),
                   "documents": sum(t["documents"] for t in tokens.values()),
                   "by_persona": dict(sorted(tokens.items()))},
    }


def companion_stats(con: duckdb.DuckDBPyConnection, run_id: str, config) -> dict:
    """The companion tracks at a glance: probes by stratum, tier and category, memory-bearing probes, the
    natural memory rate (share of user turns needing memory from outside the recent window,
    tasks/companion/context.py, whole run and per persona) and claims by temporality and slot."""
    from tasks.companion.context import window_of

    params = {"run_id": run_id}
    window = window_of(config)

    def by(table: str, col: str) -> dict:
        return dict(con.execute(f"select {col}, count(*) from {table} where run_id = $run_id group by 1 order by 1",
                                params).fetchall())
    rates = natural_memory_rates(con, run_id, window)
    users = sum(n for n, _ in rates.values())
    return {
        "probes": sum(by("chat_probes", "stratum").values()),
        "probes_by_stratum": by("chat_probes", "stratum"), "probes_by_tier": by("chat_probes", "tier"),
        "probes_by_category": by("chat_probes", "category"),
        "memory_bearing_probes": by("chat_probes", "memory_need").get(True, 0),
        "cold_opens": by("chat_probes", "cold_open").get(True, 0),
        "natural_memory_rate": round(sum(m for _, m in rates.values()) / users, 4) if users else None,
        "natural_memory_rate_by_persona": {p: round(m / n, 4) if n else None for p, (n, m) in sorted(rates.items())},
        "claims": sum(by("profile_claims", "temporality").values()),
        "claims_by_temporality": by("profile_claims", "temporality"), "claims_by_slot": by("profile_claims", "slot"),
    }


def natural_memory_rates(con: duckdb.DuckDBPyConnection, run_id: str, window: int) -> dict[str, tuple[int, int]]:
    """persona -> (user turns, memory-bearing user turns), recomputed from the landed turns and facts, one
    persona at a time (only one persona's turns and facts are ever in memory)."""
    from zoneinfo import ZoneInfo

    from tasks.common.memory_need import needs

    zones = {p: ZoneInfo(json.loads(prof)["identity"]["timezone"]) for p, prof in con.execute(
        "select persona_id, profile from personas where run_id = ?", [run_id]).fetchall()}
    pids = [p for (p,) in con.execute("select distinct persona_id from turns where run_id = ? order by 1",
                                      [run_id]).fetchall()]
    out = {}
    for pid in pids:
        zone = zones.get(pid, dt.UTC)
        found = needs(_persona_turns(con, run_id, pid), _persona_facts(con, run_id, pid), window,
                      lambda ts, z=zone: ts.astimezone(z).date())
        out[pid] = (len(found), sum(n.memory_need for n in found))
    return out


_FACT_COLUMNS = ("fact_id", "event_id", "subject", "attribute", "value", "valid_from", "valid_to")


def _persona_facts(con: duckdb.DuckDBPyConnection, run_id: str, pid: str) -> list:
    """One persona's landed facts as attribute records (in landed order)."""
    from types import SimpleNamespace as NS

    rows = con.execute(f"select {', '.join(_FACT_COLUMNS)} from facts where run_id = ? and persona_id = ?",
                       [run_id, pid]).fetchall()
    return [NS(**dict(zip(_FACT_COLUMNS, row, strict=True))) for row in rows]


def _persona_turns(con: duckdb.DuckDBPyConnection, run_id: str, pid: str) -> list:
    """One persona's landed turns as attribute records (in landed order)."""
    from types import SimpleNamespace as NS

    out = []
    for tid, sid, ts, role, fids, pids, refs in con.execute(
            "select turn_id, session_id, timestamp, role, fact_ids, paraphrase_ids, time_refs "
            "from turns where run_id = ? and persona_id = ?", [run_id, pid]).fetchall():
        refs = [NS(event_id=r.get("event_id")) for r in (json.loads(refs) if isinstance(refs, str) else refs or [])]
        out.append(NS(turn_id=tid, session_id=sid, timestamp=ts, role=role, fact_ids=list(fids or []),
                      paraphrase_ids=list(pids or []), time_refs=refs))
    return out


def text_tokens(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, int]:
    """cl100k_base tokens of each persona's dialogue turns and document bodies together."""
    out = _tokens(con, "turns", "text", run_id)
    for pid, n in _tokens(con, "documents", "body", run_id).items():
        out[pid] = out.get(pid, 0) + n
    return out


def _tokens(con: duckdb.DuckDBPyConnection, table: str, column: str, run_id: str) -> dict[str, int]:
    """cl100k_base tokens of `column` summed per persona, streamed in batches."""
    cur = con.execute(f"select persona_id, {column} from {table} where run_id = ? order by persona_id", [run_id])
    out: dict[str, int] = {}
    while rows := cur.fetchmany(4096):
        for pid, text in rows:
            out[pid] = out.get(pid, 0) + count_tokens(text or "")
    return out


def _version_dirs(layout: Layout, name: str) -> list[Path]:
    folder = layout.releases / name
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _VERSION.match(p.name) and p.is_dir())


def existing_versions(layout: Layout, name: str) -> list[str]:
    """The complete releases of `name` (a version folder with its manifest), oldest first."""
    return [p.name for p in _version_dirs(layout, name) if (p / "manifest.json").is_file()]


def orphan_versions(layout: Layout, name: str | None = None) -> list[Path]:
    """Version folders without a manifest (hand-made, or left by a copy interrupted outside lifeloom): never a
    release, skipped by every reader, never reused as a version number, removed by `lifeloom prune`."""
    names = [name] if name else sorted(p.name for p in layout.releases.iterdir() if p.is_dir()) \
        if layout.releases.is_dir() else []
    return [p for n in names for p in _version_dirs(layout, n) if not (p / "manifest.json").is_file()]


def remove_orphans(layout: Layout, staging_age_s: float = 3600.0) -> list[Path]:
    """Delete orphan version folders, and staging folders older than `staging_age_s` (younger ones may be a
    freeze in progress), of every release name; returns what was removed."""
    import time

    names = sorted(p.name for p in layout.releases.iterdir() if p.is_dir()) if layout.releases.is_dir() else []
    stale = [p for n in names for p in sorted((layout.releases / n).glob(".v*-*"))
             if p.is_dir() and time.time() - p.stat().st_mtime > staging_age_s]
    gone = orphan_versions(layout) + stale
    for path in gone:
        _make_writable(path)
        shutil.rmtree(path)
    return gone


def withdrawals(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The QA verifier's withdrawn questions of the run: total, count by reason, and their ids."""
    rows = con.execute(
        "select reason, question_id from question_reviews where run_id = ? and status = 'withdrawn' order by 2",
        [run_id],
    ).fetchall()
    by_reason: dict[str, int] = {}
    for reason, _ in rows:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    return {"total": len(rows), "by_reason": dict(sorted(by_reason.items())), "question_ids": [q for _, q in rows]}


def clean_staging(layout: Layout, name: str) -> list[str]:
    """Remove leftover `.vNNNN-*` staging folders of interrupted freezes; returns their names."""
    folder = layout.releases / name
    gone = []
    for path in sorted(folder.glob(".v*-*")) if folder.is_dir() else []:
        _make_writable(path)
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path.name)
    return gone


def parent_manifest(layout: Layout, name: str) -> dict | None:
    """The manifest of the newest release of `name`, or None when there is none."""
    versions = existing_versions(layout, name)
    if not versions:
        return None
    return json.loads((layout.release_dir(name, versions[-1]) / "manifest.json").read_text())


def next_version(layout: Layout, name: str) -> str:
    """One past every version folder of `name`, orphans included (so a half-made folder never blocks a build)."""
    numbers = [int(_VERSION.match(p.name).group(1)) for p in _version_dirs(layout, name)]
    return f"v{max(numbers, default=0) + 1:04d}"


def freeze(layout: Layout, manifest: Manifest, docs: Path | None = None) -> ReleaseRecord:
    """Write the run's release tables, manifest.json, README.md, croissant.json and (when `docs` holds a
    Data Docs site) data_docs/ into a new release directory, assembled aside and renamed into place."""
    target = layout.release_dir(manifest.name, manifest.version)
    if target.exists():
        raise ReleaseExists(f"release {manifest.name}/{manifest.version} already exists at {target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_staging(layout, manifest.name)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{manifest.version}-"))
    try:
        files = _copy_tables(layout, manifest.run_id, staging)
        extra = ["manifest.json", "README.md", "croissant.json"]
        built = docs is not None and (docs / "index.html").is_file()
        if built:
            shutil.copytree(docs, staging / "data_docs")
            extra.append("data_docs/index.html")
        manifest = manifest.model_copy(update={"files": files + extra, "data_docs": built})
        (staging / "README.md").write_text(dataset_card(manifest))
        (staging / "croissant.json").write_text(json.dumps(croissant(manifest, staging), indent=2) + "\n")
        manifest = manifest.model_copy(update={"checksums": checksums(staging)})
        (staging / "manifest.json").write_text(manifest.model_dump_json(indent=2) + "\n")  # last: it lists the rest
        _make_read_only(staging)
        os.rename(staging, target)  # fails if target appeared meanwhile: never overwrite
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    record = ReleaseRecord(name=manifest.name, version=manifest.version, run_id=manifest.run_id,
                           created_at=manifest.created_at, content_hash=manifest.content_hash, path=str(target))
    land_rows(layout, "releases", [record], manifest.run_id, part=f"{manifest.name}-{manifest.version}")
    return record


def _copy_tables(layout: Layout, run_id: str, staging: Path) -> list[str]:
    con = session(layout, run_id)
    try:
        files = []
        for table in RELEASE_TABLES:
            key = ", ".join(f'"{k}"' for k in TABLES[table].key)
            out = staging / f"{table}.parquet"
            target = str(out).replace("'", "''")  # a data root may contain quotes
            con.execute(
                f"copy (select * from {table} where run_id = ? order by {key}) to '{target}' "
                "(format parquet, compression zstd)",
                [run_id],
            )
            files.append(out.name)
        return files
    finally:
        con.close()


def _make_read_only(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_dir():
            _make_read_only(path)
        else:
            path.chmod(0o444)
    folder.chmod(0o555)


def _make_writable(folder: Path) -> None:
    folder.chmod(0o755)
    for path in folder.iterdir():
        if path.is_dir():
            _make_writable(path)
        else:
            path.chmod(0o644)


def save_run_config(layout: Layout, run_id: str, config: BaseModel) -> Path:
    """Keep the config a run was built with (`lifeloom gates` re-runs the suites with its thresholds)."""
    path = layout.run_config(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config.model_dump_json(indent=2) + "\n")
    return path


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
