"""Reading a frozen release for evaluation, and landing an evaluation's results beside it.

A release folder is read-only (warehouse/release.py), so evaluations never write into it. An evaluation
lands under the data root, next to `releases/`:

    <home>/eval/<name>/<version>/<eval_id>/eval_results.parquet   one EvalResult row per system/setting/k/question
    <home>/eval/<name>/<version>/<eval_id>/summary.json            means by system, setting and k
    <home>/eval/<name>/<version>/<eval_id>/report.md               the report, with plots/*.png beside it

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
from pydantic import BaseModel

from schemas.corpus import Chunk, Turn
from schemas.eval import EvalResult
from schemas.qa import Evidence, Question
from schemas.tables import is_json_column, to_arrow
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

    @property
    def ref(self) -> str:
        return f"{self.name}/{self.version}"


def _rows(con: duckdb.DuckDBPyConnection, path: Path, table: str, model: type[BaseModel]) -> list:
    file = path / f"{table}.parquet"
    if not file.is_file():
        raise ValueError(f"release {path} has no {table}.parquet")
    cols = ", ".join(f'"{c}"' for c in model.model_fields)
    records = con.sql(f"select {cols} from read_parquet($f)", params={"f": str(file)}).to_arrow_table().to_pylist()
    json_cols = [c for c in model.model_fields if is_json_column(model, c)]
    out = []
    for rec in records:
        for c in json_cols:
            if isinstance(rec[c], str):
                rec[c] = json.loads(rec[c])
        out.append(model.model_validate({k: v for k, v in rec.items() if v is not None}))
    return out


def load_release(path: Path) -> ReleaseData:
    """Questions, evidence, turns and chunks of the release at `path`, read with DuckDB (nothing is written)."""
    manifest = json.loads((path / "manifest.json").read_text())
    con = duckdb.connect()
    try:
        return ReleaseData(
            path=path, name=manifest["name"], version=manifest["version"], run_id=manifest["run_id"],
            questions=_rows(con, path, "questions", Question), evidence=_rows(con, path, "question_evidence", Evidence),
            turns=_rows(con, path, "turns", Turn), chunks=_rows(con, path, "chunks", Chunk),
        )
    finally:
        con.close()


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
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".staging-{target.name}-"))
    try:
        write_parquet(to_arrow("eval_results", rows, run_id), staging / "eval_results.parquet").chmod(0o644)
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
