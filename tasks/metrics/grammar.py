"""The grammar check: does a sentence get a complete parse from Link Grammar (CMU's English grammar)?

Link Grammar comes from Debian (`apt-get install link-grammar python3-link-grammar`; `.ci/run` and
`make install` do it); a virtual environment without the module loads Debian's build from
/usr/lib/python3/dist-packages/linkgrammar when the Python versions match. A complete parse is at least one
valid linkage with no null link (no word left unlinked). Parses are deterministic: the same random seed
for every sentence (`repeatable_rand`), at most `LINKAGE_LIMIT` linkages examined. A sentence longer
than `MAX_WORDS` words is not parsed (counted as `too_long`); one whose parse runs past `MAX_PARSE_SECONDS`
counts as `timed_out`; both are left out of the share and reported beside it. Without the module the
measure is null and says why.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import importlib
import importlib.util
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tasks.metrics.text import fold

LINKAGE_LIMIT = 1000
MAX_WORDS = 60
MAX_PARSE_SECONDS = 30
DEBIAN_MODULE = Path("/usr/lib/python3/dist-packages/linkgrammar")
DEBIAN_PYTHON = (3, 11)
"""The Python Debian 12's python3-link-grammar is built for (its extension module's ABI)."""


class GrammarUnavailable(RuntimeError):
    """Link Grammar's Python module is not installed."""


_LOADING = threading.RLock()
"""Persona branches on threads load the module at once: Debian's build enters sys.modules before it has run, so a
second thread would find it half-loaded (`module 'linkgrammar' has no attribute 'LG_Error'`)."""


def _module():
    with _LOADING:
        return _load_module()


@functools.cache
def _load_module():
    try:
        return importlib.import_module("linkgrammar")
    except ImportError:
        pass
    init = DEBIAN_MODULE / "__init__.py"
    if init.is_file() and sys.version_info[:2] == DEBIAN_PYTHON:  # Debian's build, loaded from where it lies
        spec = importlib.util.spec_from_file_location("linkgrammar", init,
                                                      submodule_search_locations=[str(DEBIAN_MODULE)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["linkgrammar"] = module
        try:
            spec.loader.exec_module(module)
            return module
        except ImportError:
            del sys.modules["linkgrammar"]
    raise GrammarUnavailable("Link Grammar is not installed (Debian: apt-get install link-grammar "
                             "python3-link-grammar; `make install` and .ci/run do it)")


def available() -> bool:
    try:
        _module()
    except GrammarUnavailable:
        return False
    return True


def _parser():
    with _LOADING:
        return _load_parser()


@functools.cache
def _load_parser():
    lg = _module()
    atexit.register(_load_parser.cache_clear)  # free the dictionary before the bindings' module is torn down
    lg.LG_Error.set_handler(lambda *_: None)  # the dictionary's locale notes are not the user's business
    dictionary = lg.Dictionary("en")
    options = lg.ParseOptions(min_null_count=0, max_null_count=0, linkage_limit=LINKAGE_LIMIT,
                              repeatable_rand=True, max_parse_time=MAX_PARSE_SECONDS, verbosity=0)
    return lg, dictionary, options


class VerdictCache(Protocol):
    """Where verdicts are remembered across builds (warehouse/parsecache.py ParseCache)."""

    def get(self, sentence: str) -> tuple[bool, bool | None]: ...

    def put(self, sentence: str, verdict: bool | None) -> None: ...


_REMEMBERED: contextvars.ContextVar[VerdictCache | None] = contextvars.ContextVar("grammar_verdicts", default=None)
"""The verdict cache `parses` uses when its caller passes none (set by `remembering`)."""


@contextlib.contextmanager
def remembering(cache: VerdictCache | None):
    """Within the block, `parses` called without a cache reads and writes `cache` (a build's stages check question
    forms with the machine's verdict cache, warehouse/parsecache.py, without knowing where it lives). A verdict
    is the same either way: only the time changes."""
    token = _REMEMBERED.set(cache)
    try:
        yield cache
    finally:
        _REMEMBERED.reset(token)


def parser_key() -> str:
    """What a verdict depends on besides the sentence: the Link Grammar version and the parse options."""
    return f"{getattr(_module(), '__version__', 'unknown')}|{LINKAGE_LIMIT}|{MAX_WORDS}|{MAX_PARSE_SECONDS}"


def parses(sentence: str, cache: VerdictCache | None = None) -> bool | None:
    """True when the sentence gets a complete parse; None when it is too long or the parse timed out. With a
    `cache` (else the one `remembering` set), a sentence seen before is not parsed again."""
    cache = cache if cache is not None else _REMEMBERED.get()
    text = fold(sentence)
    if len(text.split()) > MAX_WORDS:
        return None
    found, verdict = cache.get(text) if cache is not None else (False, None)
    if found:
        return verdict
    lg, dictionary, options = _parser()
    try:
        verdict = len(lg.Sentence(text, dictionary, options).parse()) > 0
    except lg.LG_TimerExhausted:
        verdict = None
    if cache is not None:
        cache.put(text, verdict)
    return verdict


def verdicts(sentences: list[str]) -> list[tuple[str, bool | None]]:
    """(folded sentence, verdict) for each sentence: what a worker process parses for `Verdicts`."""
    return [(fold(s), parses(s)) for s in sentences]


class Verdicts:
    """Verdicts held in memory in front of an optional cache on disk: verdicts parsed elsewhere (a pool of
    processes) are `put` here, then found by `parses` whether or not the disk cache is on."""

    def __init__(self, base: VerdictCache | None = None) -> None:
        self.known: dict[str, bool | None] = {}
        self.base = base

    def get(self, sentence: str) -> tuple[bool, bool | None]:
        if sentence in self.known:
            return True, self.known[sentence]
        return self.base.get(sentence) if self.base is not None else (False, None)

    def put(self, sentence: str, verdict: bool | None) -> None:
        self.known[sentence] = verdict
        if self.base is not None:
            self.base.put(sentence, verdict)

    def unknown(self, sentences: list[str]) -> list[str]:
        """The sentences `parses` would have to parse (short enough, no verdict known), once each."""
        out: dict[str, str] = {}
        for s in sentences:
            text = fold(s)
            if len(text.split()) <= MAX_WORDS and text not in out and not self.get(text)[0]:
                out[text] = s
        return list(out.values())


@dataclass
class ParseTally:
    """Complete parses among a sample of sentences."""

    parsed: int = 0
    checked: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    cache: VerdictCache | None = None

    def add(self, sentence: str) -> None:
        ok = parses(sentence, self.cache)
        if ok is None:
            self.skipped += 1
            return
        self.checked += 1
        self.parsed += ok
        if not ok and len(self.failures) < 5:
            self.failures.append(sentence)

    @property
    def share(self) -> float | None:
        return self.parsed / self.checked if self.checked else None
