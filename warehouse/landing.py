"""Landing reuse: a persona whose every stage result is unchanged lands by copying its earlier partitions.

`land_persona` (flows/build.py) keys each landing by everything it writes from (the digests of the stage
values, extra rows and ledgers, the persona, the code of the table contract and the writers:
`flows.fingerprint.land_fingerprint`) and records the partitions it wrote under that key:

    <home>/cache/prefect/landed/<key>.json   {"run_id", "persona_id", "parts": [[table, part], ...], "counts"}
    <home>/cache/prefect/branches/<profile stage key>.json   {"keys", "digests", "land_key"}

A later run with the same key, all of whose stage results came from the cache, copies those files into its
own run folder with the `run_id` column rewritten (Arrow only: no row becomes a Python object) and the
ledger rows marked `cached` (that run paid for no call). Any missing file means a normal landing.

The branch record lets a later run skip an unchanged persona whole: `flows/build.py` `unchanged_branch`
recomputes every stage key from the recorded digests (so a change of config, code or prompt that any stage
sees shows as a different key) and, when all equal the recorded keys and their results are still cached,
copies the landing without running, or unpickling, a stage.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.parquet import write_parquet
from warehouse.paths import Layout


def _index(layout: Layout, key: str) -> Path:
    return layout.prefect_cache / "landed" / f"{key}.json"


def write_text(path: Path, text: str) -> None:
    """Write a cache entry atomically: readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict | None:
    """A cache entry written by `write_text` as a JSON object, or None when missing or unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(path: Path, data: dict) -> None:
    write_text(path, json.dumps(data, sort_keys=True))


def record_landing(layout: Layout, key: str, run_id: str, persona_id: str, parts: list[tuple[str, str]],
                   counts: dict[str, int]) -> None:
    """Remember that `run_id` landed `persona_id`'s partitions `parts` ((table, part) pairs) under `key`."""
    _write(_index(layout, key), {"run_id": run_id, "persona_id": persona_id, "parts": [list(p) for p in parts],
                                 "counts": counts})


def record_branch(layout: Layout, keys: dict[str, str], digests: dict[str, str], land_key: str) -> None:
    """Remember a persona branch by its profile stage's key: every stage's cache key, the digests of the
    stage values they were computed from, and the key its landing was recorded under."""
    _write(layout.prefect_cache / "branches" / f"{keys['profile']}.json",
           {"keys": keys, "digests": digests, "land_key": land_key})


def recorded_branch(layout: Layout, profile_key: str) -> dict | None:
    """The branch recorded under `profile_key`, or None."""
    branch = read_json(layout.prefect_cache / "branches" / f"{profile_key}.json")
    if branch is None or not all(isinstance(branch.get(k), dict) for k in ("keys", "digests")):
        return None
    return branch if isinstance(branch.get("land_key"), str) else None


def earlier_landing(layout: Layout, key: str, persona_id: str) -> dict | None:
    """The recorded landing under `key` (with the key) when every one of its files is still there, else None."""
    entry = read_json(_index(layout, key))
    if entry is None or entry.get("persona_id") != persona_id:
        return None
    files = [layout.partition_file(table, entry["run_id"], persona_id, part) for table, part in entry["parts"]]
    return {**entry, "key": key} if all(f.is_file() for f in files) else None


def copy_landing(layout: Layout, entry: dict, run_id: str) -> dict[str, int]:
    """Copy an earlier landing's partitions into `run_id` (run_id column rewritten, ledger rows `cached`);
    returns its row counts."""
    persona_id = entry["persona_id"]
    for table, part in entry["parts"]:
        data = pq.read_table(layout.partition_file(table, entry["run_id"], persona_id, part))
        data = _with_column(data, "run_id", pa.array([run_id] * data.num_rows, pa.string()))
        if table == "llm_calls" and data.num_rows:
            data = _with_column(data, "cached", pa.array([True] * data.num_rows))
        write_parquet(data, layout.partition_file(table, run_id, persona_id, part))
    return dict(entry["counts"])


def _with_column(data: pa.Table, name: str, values: pa.Array) -> pa.Table:
    i = data.schema.get_field_index(name)
    return data.set_column(i, data.schema.field(i), values.cast(data.schema.field(i).type))
