"""A cache of Link Grammar verdicts on disk: the same sentence is parsed once per machine, not once per build.

The grammar measure (tasks/metrics/grammar.py) parses a seeded sample of sentences at every build and every
`lifeloom metrics` run; a nightly rebuild, a rerun of `metrics` on the same release and the test suite's builds
parse the same sentences again and again (a long RHELM sentence takes up to a second). The verdicts are
deterministic (one random seed, a linkage limit), so they are kept in an SQLite file keyed by the folded
sentence: `$LIFELOOM_GRAMMAR_CACHE` (`off` turns it off), else `$XDG_CACHE_HOME/lifeloom/` (default
`~/.cache/lifeloom/`), one file per Link Grammar version and parse options. A timed-out parse is stored as
unknown like a fresh one would be. A cache that cannot be opened or written (a read-only home) is skipped with
no error: the measure is the same, only slower.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

ENV = "LIFELOOM_GRAMMAR_CACHE"


def cache_path(key: str) -> Path | None:
    """Where the verdicts for parser `key` (version and options) live, or None when the cache is off."""
    setting = os.environ.get(ENV, "")
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "lifeloom" / f"grammar-{hashlib.sha256(key.encode()).hexdigest()[:12]}.sqlite"


class ParseCache:
    """Sentence -> complete parse (True, False) or unknown (None), read and written through SQLite."""

    def __init__(self, path: Path | None) -> None:
        self.con: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(path, timeout=30, isolation_level=None)
            con.execute("pragma journal_mode=wal")
            con.execute("pragma synchronous=off")  # a cache: a lost write only costs a parse
            con.execute("create table if not exists verdicts (sentence text primary key, parsed integer)")
            self.con = con
        except (OSError, sqlite3.Error):
            self.con = None

    def get(self, sentence: str) -> tuple[bool, bool | None]:
        """(found, verdict)."""
        if self.con is None:
            return False, None
        try:
            row = self.con.execute("select parsed from verdicts where sentence = ?", (sentence,)).fetchone()
        except sqlite3.Error:
            return False, None
        if row is None:
            return False, None
        return True, None if row[0] is None else bool(row[0])

    def put(self, sentence: str, verdict: bool | None) -> None:
        if self.con is None:
            return
        try:
            self.con.execute("insert or replace into verdicts values (?, ?)",
                             (sentence, None if verdict is None else int(verdict)))
        except sqlite3.Error:
            self.con = None


def default_cache() -> ParseCache | None:
    """The machine's verdict cache for the installed Link Grammar, or None without it (or with the cache off)."""
    from tasks.metrics import grammar

    if not grammar.available():
        return None
    path = cache_path(grammar.parser_key())
    return ParseCache(path) if path is not None else None
