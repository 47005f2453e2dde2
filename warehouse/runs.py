"""Run records: one `runs` partition per build, rewritten as its status changes."""

from __future__ import annotations

import datetime as dt

from schemas.release import RunRecord
from warehouse.parquet import land_rows
from warehouse.paths import Layout


def new_run_id(name: str, now: dt.datetime | None = None) -> str:
    """`<name>-<UTC timestamp>`: unique per build, sortable, readable in the UI."""
    now = now or dt.datetime.now(dt.UTC)
    return f"{name}-{now:%Y%m%dT%H%M%S%f}"


def record_run(layout: Layout, run: RunRecord) -> None:
    land_rows(layout, "runs", [run], run.run_id)


KEPT_TABLES = ("runs", "releases")
"""Tables whose partitions a prune keeps: one small file per run, the history `lifeloom releases` and the
runs view show."""


def list_runs(layout: Layout) -> list[RunRecord]:
    """Every run recorded under the data root, oldest first."""
    import pyarrow.parquet as pq

    runs = []
    for path in sorted(layout.table_dir("runs").glob("run_id=*/part.parquet")):
        runs += [RunRecord.model_validate({k: v for k, v in row.items() if k in RunRecord.model_fields})
                 for row in pq.read_table(path).to_pylist()]
    return sorted(runs, key=lambda r: (r.started_at, r.run_id))


def prune_runs(layout: Layout, keep: int, now: dt.datetime | None = None,
               grace: dt.timedelta = dt.timedelta(hours=24)) -> list[tuple[str, int]]:
    """Delete the landed partitions and gate Data Docs of every run but the newest `keep`; returns each pruned
    run with the bytes freed. Never prunes the newest succeeded run (the catalog's `latest` schema) or a
    run still `running` that started within `grace` (a build in progress); keeps every run's `runs` and
    `releases` rows, its record gaining "partitions pruned". Frozen releases are self-contained copies and
    are never touched. A data root that gains a run every night stays bounded: the catalog's views bind
    every landed file, so their cost grows with the runs kept."""
    import shutil

    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    now = now or dt.datetime.now(dt.UTC)
    runs = list_runs(layout)
    succeeded = [r for r in runs if r.status == "succeeded"]
    protected = {r.run_id for r in runs[-keep:]}
    if succeeded:
        protected.add(max(succeeded, key=lambda r: (r.finished_at or r.started_at, r.run_id)).run_id)
    protected |= {r.run_id for r in runs if r.status == "running" and now - r.started_at < grace}
    pruned = []
    for run in runs:
        if run.run_id in protected:
            continue
        folders = [d / f"run_id={run.run_id}" for d in sorted(layout.tables.iterdir())
                   if d.is_dir() and d.name not in KEPT_TABLES] + [layout.gate_docs(run.run_id)]
        folders = [f for f in folders if f.exists()]
        if not folders:
            continue
        freed = sum(p.stat().st_size for f in folders for p in f.rglob("*") if p.is_file())
        for folder in folders:
            shutil.rmtree(folder)
        note = f"partitions pruned {now:%Y-%m-%dT%H:%M:%SZ}"
        record_run(layout, run.model_copy(update={"message": f"{run.message}; {note}" if run.message else note}))
        pruned.append((run.run_id, freed))
    return pruned
