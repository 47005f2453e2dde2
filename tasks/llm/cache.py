"""The model-call cache, keyed by the full rendered request.

A code change that leaves prompts (and so rendered requests) alone hits the cache and pays for no
calls. `CallCache(None)` keeps entries in memory only (the offline narrator needs nothing more); with a
directory, entries live in one SQLite file (`<dir>/calls.sqlite`, WAL mode) shared by every gateway
and process that builds under the same data root.

Errors are cached too, with a policy a paying user expects:
- an entry whose `retry` flag is false is final: a valid answer, a repaired answer, or a template
  fallback after the model's answers failed validation (that failure was paid for and would most
  likely repeat; it is never paid for twice);
- an entry with `retry` true records a *transient* failure (rate limit, 5xx, timeout, unreachable
  endpoint) that ended in the template fallback. It stays in the file for inspection, but `get`
  treats it as a miss, so the next run asks the model again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

_SCHEMA = """
create table if not exists calls (
    key text primary key,
    prompt_name text not null,
    outcome text not null,
    retry integer not null default 0,
    error text,
    entry text not null,
    created_at real not null
)
"""


class CallCache:
    """Cache entries by call key: memory only, or durable in SQLite under `root`."""

    FILE = "calls.sqlite"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self._memory: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        if root is not None:
            root.mkdir(parents=True, exist_ok=True)
            self._connection().execute(_SCHEMA)

    @property
    def path(self) -> Path | None:
        return None if self.root is None else self.root / self.FILE

    def _connection(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            con.execute("pragma journal_mode=wal")
            con.execute("pragma synchronous=normal")
            self._local.con = con
        return con

    def get(self, key: str) -> dict | None:
        """The final entry for `key`, or None (missing, or a transient error to retry)."""
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        if self.root is None:
            return None
        row = self._connection().execute("select entry, retry from calls where key = ?", [key]).fetchone()
        if row is None or row[1]:
            return None
        entry = json.loads(row[0])
        with self._lock:
            self._memory[key] = entry
        return entry

    def put(self, key: str, entry: dict, prompt_name: str = "") -> None:
        """Store `entry`; an entry with `retry` true is kept on disk but never served."""
        retry = bool(entry.get("retry"))
        if not retry:
            with self._lock:
                self._memory[key] = entry
        if self.root is None:
            return
        self._connection().execute(
            "insert or replace into calls values (?, ?, ?, ?, ?, ?, ?)",
            [key, prompt_name, entry.get("outcome", ""), int(retry), entry.get("error"),
             json.dumps(entry, sort_keys=True), time.time()],
        )

    def stats(self) -> dict[str, int]:
        """Entries on disk by outcome, plus `retry` (transient errors the next run asks again)."""
        if self.root is None:
            return {}
        rows = self._connection().execute("select outcome, count(*) from calls group by 1").fetchall()
        out = dict(rows)
        out["retry"] = self._connection().execute("select count(*) from calls where retry = 1").fetchone()[0]
        return out
