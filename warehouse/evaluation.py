"""Reading a frozen release for evaluation, and landing an evaluation's results beside it.

A release folder is read-only (warehouse/release.py), so evaluations never write into it. An evaluation
lands under the data root, next to `releases/`:

    <home>/eval/<name>/<version>/<eval_id>/eval_results.parquet   one EvalResult row per system/setting/k/question
    <home>/eval/<name>/<version>/<eval_id>/summary.json            means by system, setting and k
    <home>/eval/<name>/<version>/<eval_id>/report.md               the report, with plots/*.png beside it
    <home>/eval/<name>/<version>/<eval_id>/<track>_results.parquet  a companion track's rows (chat, reconstruction)

The folder is assembled in a staging folder and renamed into place, so readers see a whole evaluation or none;
re-running the same evaluation (same eval_id) replaces it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from pydantic import BaseModel

from schemas.companion import ChatProbe, PortraitSlot, ProfileClaim
from schemas.corpus import Chunk, Turn
from schemas.eval import EvalResult
from schemas.qa import Evidence, Question
from schemas.tables import from_records, to_arrow
from schemas.world import Fact
from warehouse.parquet import write_parquet


@dataclass
class ReleaseData:
    path: Path
    name: str
    version: str
    run_id: str
    questions: list[Question]
    evidence: list[Evidence]
    turns: list[Turn]
    chunks: list[Chunk]
    names: dict[str, str] | None = None
    """persona id -> name (pattern_memory reads the persona's own name in questions)."""

    @property
    def ref(self) -> str:
        return f"{self.name}/{self.version}"


def _rows(con: duckdb.DuckDBPyConnection, path: Path, table: str, model: type[BaseModel]) -> list:
    file = path / f"{table}.parquet"
    if not file.is_file():
        raise ValueError(f"release {path} has no {table}.parquet")
    cols = ", ".join(f'"{c}"' for c in model.model_fields)
    records = con.sql(f"select {cols} from read_parquet($f)", params={"f": str(file)}).to_arrow_table().to_pylist()
    return from_records(model, records)


def load_release(path: Path) -> ReleaseData:
    """Questions, evidence, turns and chunks of the release at `path`, read with DuckDB (nothing is written)."""
    manifest = json.loads((path / "manifest.json").read_text())
    con = duckdb.connect()
    try:
        return ReleaseData(
            path=path, name=manifest["name"], version=manifest["version"], run_id=manifest["run_id"],
            questions=_rows(con, path, "questions", Question), evidence=_rows(con, path, "question_evidence", Evidence),
            turns=_rows(con, path, "turns", Turn), chunks=_rows(con, path, "chunks", Chunk),
            names=_names(con, path),
        )
    finally:
        con.close()


def _names(con: duckdb.DuckDBPyConnection, path: Path) -> dict[str, str]:
    file = path / "personas.parquet"
    if not file.is_file():
        return {}
    return dict(con.sql("select persona_id, name from read_parquet($f)", params={"f": str(file)}).fetchall())


@dataclass
class CompanionData:
    """What the companion tracks read from a release: probes, claims, portraits, turns and facts."""

    path: Path
    name: str
    version: str
    run_id: str
    probes: list[ChatProbe]
    claims: list[ProfileClaim]
    turns: list[Turn]
    facts: list[Fact]
    personas: list[str]

    @property
    def ref(self) -> str:
        return f"{self.name}/{self.version}"


def load_companion(path: Path) -> CompanionData:
    """The companion tables of the release at `path` (ValueError when it was built without them)."""
    manifest = json.loads((path / "manifest.json").read_text())
    con = duckdb.connect()
    try:
        if not (path / "chat_probes.parquet").is_file():
            raise ValueError(f"release {manifest['name']}/{manifest['version']} has no companion tracks "
                             "(chat_probes.parquet); build it with [stages.companion] enabled = true")
        portraits = _rows(con, path, "persona_portraits", PortraitSlot)
        return CompanionData(
            path=path, name=manifest["name"], version=manifest["version"], run_id=manifest["run_id"],
            probes=_rows(con, path, "chat_probes", ChatProbe), claims=_rows(con, path, "profile_claims", ProfileClaim),
            turns=_rows(con, path, "turns", Turn), facts=_rows(con, path, "facts", Fact),
            personas=sorted({p.persona_id for p in portraits}),
        )
    finally:
        con.close()


def load_tiers(path: Path) -> tuple[list, list, list]:
    """The length-tier rows of the release at `path`: tier_history, tier_questions, tier_chats (empty lists for a
    release built before tiers existed)."""
    from schemas.tiers import TierChatTurn, TierItem, TierQuestion

    con = duckdb.connect()
    try:
        return tuple(_rows(con, path, t, m) if (path / f"{t}.parquet").is_file() else []
                     for t, m in (("tier_history", TierItem), ("tier_questions", TierQuestion),
                                  ("tier_chats", TierChatTurn)))
    finally:
        con.close()


def land_curve(target: Path, summary: dict[str, Any], write_report) -> Path:
    """Land a length curve (`lifeloom eval --tiers`): summary.json and the report (`write_report(folder)`), no
    results table (each tier's results land as an evaluation of their own)."""

    def results(staging: Path) -> Path:
        path = staging / "curve.json"
        path.write_text(json.dumps(summary.get("curve", []), indent=2, default=str) + "\n")
        return path

    return _land(target, results, summary, write_report)


def eval_root(release_path: Path) -> Path:
    """`<home>/eval/<name>/<version>/` for the release folder `<home>/releases/<name>/<version>/`."""
    release_path = release_path.absolute()
    home = release_path.parent.parent.parent
    return home / "eval" / release_path.parent.name / release_path.name


def eval_dir(release_path: Path, eval_id: str) -> Path:
    return eval_root(release_path) / eval_id


def land_evaluation(target: Path, rows: list[EvalResult], run_id: str, summary: dict[str, Any],
                    write_report) -> Path:
    """Assemble results, summary and report (`write_report(folder)`) in staging, then rename to `target`."""
    table = to_arrow("eval_results", rows, run_id)
    return _land(target, lambda staging: write_parquet(table, staging / "eval_results.parquet"), summary, write_report)


def land_track(target: Path, track: str, rows: list[dict], run_id: str, summary: dict[str, Any],
               write_report) -> Path:
    """Land a companion track's evaluation like `land_evaluation`: `<track>_results.parquet` (one row per dict,
    plus run_id), summary.json and the report."""
    table = pa.Table.from_pylist([r | {"run_id": run_id} for r in rows]) if rows else pa.table({"run_id": []})
    return _land(target, lambda staging: write_parquet(table, staging / f"{track}_results.parquet"), summary,
                 write_report)


def _land(target: Path, write_results, summary: dict[str, Any], write_report) -> Path:
    """Write results (`write_results(folder)` returns the file), summary and report in staging, then rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".staging-{target.name}-"))
    try:
        write_results(staging).chmod(0o644)
        (staging / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True, default=str) + "\n")
        write_report(staging)
        staging.chmod(0o755)
        old = None
        if target.exists():
            old = target.parent / f".old-{target.name}-{os.getpid()}"
            os.replace(target, old)
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def read_results(folder: Path) -> list[dict]:
    """The eval_results rows of a landed evaluation, as dicts (read with DuckDB)."""
    con = duckdb.connect()
    try:
        file = str(folder / "eval_results.parquet")
        return con.sql("select * from read_parquet($f)", params={"f": file}).to_arrow_table().to_pylist()
    finally:
        con.close()
