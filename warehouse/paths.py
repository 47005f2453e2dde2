"""Where everything lives under the data root (`--home`, default `./.lifeloom`).

    <home>/tables/<table>/run_id=<run>/persona_id=<pid>/part.parquet   per-persona tables
    <home>/tables/<table>/run_id=<run>/part.parquet                    run-level tables
    <home>/catalog.duckdb                                              views over the tables
    <home>/releases/<name>/<version>/                                  frozen releases
    <home>/views/<name>/<version>/                                     each release's viewer (`lifeloom view`)
    <home>/gate_docs/<run>/                                            Data Docs of a run's gates
    <home>/configs/<run>.json                                          the config of each run
    <home>/cache/llm/                                                  the model-call cache
    <home>/cache/prefect/                                              cached stage results
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path


class HomeError(RuntimeError):
    """The data root cannot be created or written."""


@dataclass(frozen=True)
class Layout:
    home: Path

    @property
    def tables(self) -> Path:
        return self.home / "tables"

    @property
    def catalog(self) -> Path:
        return self.home / "catalog.duckdb"

    @property
    def releases(self) -> Path:
        return self.home / "releases"

    def view_dir(self, name: str, version: str) -> Path:
        """Where the viewer of release `name/version` is written: beside `releases/`, never inside a release
        folder (a release is immutable, and a sibling version folder would read as an orphan release)."""
        return self.home / "views" / name / version

    @property
    def llm_cache(self) -> Path:
        return self.home / "cache" / "llm"

    @property
    def prefect_cache(self) -> Path:
        """Persisted stage results, keyed by their fingerprint (flows/fingerprint.py)."""
        return self.home / "cache" / "prefect"

    def table_dir(self, table: str) -> Path:
        return self.tables / table

    def table_glob(self, table: str) -> str:
        return str(self.table_dir(table) / "**" / "*.parquet")

    def partition_file(self, table: str, run_id: str, persona_id: str | None = None, part: str = "part") -> Path:
        folder = self.table_dir(table) / f"run_id={run_id}"
        if persona_id is not None:
            folder = folder / f"persona_id={persona_id}"
        return folder / f"{part}.parquet"

    def release_dir(self, name: str, version: str) -> Path:
        return self.releases / name / version

    def gate_docs(self, run_id: str) -> Path:
        """The Great Expectations Data Docs site of a run's gates (copied into its release)."""
        return self.home / "gate_docs" / run_id

    def run_config(self, run_id: str) -> Path:
        """The config a run was built with, as JSON (read by `lifeloom gates`)."""
        return self.home / "configs" / f"{run_id}.json"


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")  # s3://b/x, or s3:/b/x once a Path has folded its slashes


def prepare_home(home: str | os.PathLike) -> Layout:
    """The layout under `home`, created if missing; raises HomeError when it cannot be written or is a URL
    (the data root is a POSIX directory; `lifeloom publish` copies a frozen release to object storage)."""
    if _SCHEME.match(os.fspath(home)):
        raise HomeError(f"data root {os.fspath(home)!r} looks like a URL: the data root must be a local or shared "
                        "file-system directory (deploy/README.md, 'Past one machine'); build there, then copy "
                        "a frozen release to object storage with `lifeloom publish NAME/VERSION --to URL`")
    root = Path(home).expanduser().absolute()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=root, prefix=".probe-"):
            pass
    except OSError as exc:
        raise HomeError(f"data root {str(root)!r} is not writable: {exc.strerror or exc}") from None
    return Layout(root)
