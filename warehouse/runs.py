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
