"""Atomic Parquet writes: a temporary file in the target folder, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from schemas.tables import to_arrow
from warehouse.paths import Layout


def write_parquet(table: pa.Table, path: Path) -> Path:
    """Write `table` to `path` so readers see either the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def land_rows(layout: Layout, table: str, rows: list[BaseModel], run_id: str, persona_id: str | None = None,
              part: str = "part") -> Path:
    """Land one file of `table`: a persona's rows (or one `part` of them), or a run-level table's rows."""
    return write_parquet(to_arrow(table, rows, run_id), layout.partition_file(table, run_id, persona_id, part))
