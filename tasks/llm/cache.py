"""The model-call cache, keyed by the full rendered request.

A code change that leaves prompts (and so rendered requests) alone hits the cache and pays for no
calls. `CallCache(None)` keeps entries in memory only; with a directory, entries are JSON files
written atomically, so concurrent writers and interrupted runs never leave a torn entry.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path


class CallCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self._memory: dict[str, dict] = {}
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        if self.root is None:
            return None
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        with self._lock:
            self._memory[key] = entry
        return entry

    def put(self, key: str, entry: dict) -> None:
        with self._lock:
            self._memory[key] = entry
        if self.root is None:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(entry, fh, sort_keys=True)
        os.replace(tmp, path)
