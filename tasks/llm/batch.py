"""Batch mode (`[provider] mode = "batch"`): a round of calls goes to the provider's batch API at its batch price.

OpenAI's Batch API (a JSONL file of chat completions, `/v1/batches`) and Anthropic's Message Batches take a set
of requests and answer them within a day at half the price. The gateway (tasks/llm/gateway.py) sends every
round of calls a stage makes at once (a `generate_many`: all of a persona's event narrations, one turn of every
open session) as one batch, waits for it, and validates, repairs and falls back exactly as it does for a
synchronous call: an answer that fails its checks goes back in the next batch with the error fed back.

What a paying user relies on:
- nothing is sent twice: every batch sent is recorded in `BatchRegistry` (`<data root>/cache/llm/batches.sqlite`)
  the moment the provider accepts it, with the ids of the requests it holds; a build killed while it waits and
  started again finds the batch there and waits for it instead of sending it again, and the answers it collects
  go to the call cache, so a third run pays for nothing;
- only what failed goes again: rows that expired, were cancelled or met a server error are sent in the next
  batch; a row the provider refuses for good (a 4xx) falls back at once;
- one clear error for what cannot be batched (a provider that refuses the model or the file, a results file that
  cannot be parsed), before anything is landed.

A request's id in a batch is `<first 40 hex of its call key>-a<attempt>` (Anthropic allows 64 characters of
`[a-zA-Z0-9_-]`), so the same request at the same attempt always has the same id, across processes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tasks.llm.types import LLMRequest, LLMResponse

POLL_GROWTH = 1.5
"""Each poll of a running batch waits this much longer than the one before, up to `batch_poll_max_s`."""


class BatchError(RuntimeError):
    """A batch the provider will not run or whose results cannot be read: one clear message, nothing landed."""


@dataclass
class RowResult:
    """One request's result in a batch: its response, or why it has none and whether sending it again may help."""

    custom_id: str
    response: LLMResponse | None = None
    error: str | None = None
    retry: bool = False


class BatchProvider(Protocol):
    name: str
    model: str

    def batch_submit(self, rows: list[tuple[str, LLMRequest]]) -> str: ...

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        """(ended, the provider's status word)."""
        ...

    def batch_results(self, batch_id: str) -> dict[str, RowResult]: ...


def custom_id(call_key: str, attempt: int) -> str:
    return f"{call_key[:40]}-a{attempt}"


class BatchRegistry:
    """Every batch sent, durable in SQLite (`<root>/batches.sqlite`), or in memory without a root."""

    FILE = "batches.sqlite"
    _SCHEMA = """create table if not exists batches (
        batch_id text primary key, provider text not null, model text not null, ids text not null,
        status text not null, sent_at real not null, collected_at real)"""

    def __init__(self, root: Path | None) -> None:
        self._lock = threading.Lock()
        self._con = sqlite3.connect(":memory:" if root is None else str(root / self.FILE), timeout=30,
                                    isolation_level=None, check_same_thread=False)
        if root is not None:
            root.mkdir(parents=True, exist_ok=True)
            self._con.execute("pragma journal_mode=wal")
        self._con.execute(self._SCHEMA)

    def record(self, batch_id: str, provider: str, model: str, ids: list[str]) -> None:
        with self._lock:
            self._con.execute("insert or replace into batches values (?, ?, ?, ?, 'sent', ?, null)",
                              [batch_id, provider, model, json.dumps(sorted(ids)), time.time()])

    def open_batches(self, provider: str, model: str, wanted: set[str]) -> dict[str, set[str]]:
        """Batches of this provider and model sent and not yet collected that hold any of `wanted`: id -> the
        wanted ids each holds."""
        with self._lock:
            rows = self._con.execute("select batch_id, ids from batches where provider = ? and model = ? and "
                                     "collected_at is null order by sent_at", [provider, model]).fetchall()
        found = {}
        for batch_id, ids in rows:
            held = set(json.loads(ids)) & wanted
            if held:
                found[batch_id] = held
                wanted = wanted - held
        return found

    def collected(self, batch_id: str, status: str) -> None:
        with self._lock:
            self._con.execute("update batches set status = ?, collected_at = ? where batch_id = ?",
                              [status, time.time(), batch_id])

    def rows(self) -> list[tuple]:
        with self._lock:
            return self._con.execute("select batch_id, provider, model, status, collected_at is not null "
                                     "from batches order by sent_at").fetchall()


class BatchRunner:
    """Sends one round's requests (resuming the batches already sent), waits for them with a growing poll, and
    returns every row's result. `sleep` and `clock` are injectable for tests."""

    def __init__(self, provider: BatchProvider, registry: BatchRegistry, poll_s: float, poll_max_s: float,
                 timeout_s: float, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] = lambda _: None) -> None:
        self.provider, self.registry = provider, registry
        self.poll_s, self.poll_max_s, self.timeout_s = poll_s, poll_max_s, timeout_s
        self.sleep, self.clock, self.say = sleep, clock, say
        self.stats = {"submitted": 0, "resumed": 0, "ended": 0}
        self._ended: dict[str, str] = {}

    def run(self, rows: dict[str, LLMRequest]) -> tuple[dict[str, RowResult], dict[str, str]]:
        """Every row's result, and the batch each came from (custom id -> batch id); `settle` once they are
        kept."""
        name, model = self.provider.name, self.provider.model
        batches = self.registry.open_batches(name, model, set(rows))
        self.stats["resumed"] += len(batches)
        rest = [(cid, req) for cid, req in rows.items() if not any(cid in ids for ids in batches.values())]
        if rest:
            batch_id = self.provider.batch_submit(rest)
            self.registry.record(batch_id, name, model, [cid for cid, _ in rest])
            self.stats["submitted"] += 1
            self.say(f"batch {batch_id}: {len(rest)} requests sent to {name} {model}")
            batches[batch_id] = {cid for cid, _ in rest}
        results: dict[str, RowResult] = {}
        source: dict[str, str] = {}
        for batch_id, ids in batches.items():
            status = self.wait(batch_id)
            found = self.provider.batch_results(batch_id)
            self._ended[batch_id] = status
            self.stats["ended"] += 1
            for cid in ids:
                results[cid] = found.get(cid) or RowResult(cid, error=f"batch {batch_id} ({status}) has no result "
                                                                     f"for it", retry=True)
                source[cid] = batch_id
        return results, source

    def settle(self) -> None:
        """Mark the batches whose results the caller has kept (in the call cache) as collected: only then would a
        later run not wait for them again. Until then a crash leaves them open, and the next run collects them."""
        for batch_id, status in self._ended.items():
            self.registry.collected(batch_id, status)
        self._ended.clear()

    def wait(self, batch_id: str) -> str:
        """Poll until the batch has ended; its final status. A batch still running after `timeout_s` is a
        BatchError (it stays recorded: a later run resumes it)."""
        started, delay = self.clock(), self.poll_s
        while True:
            ended, status = self.provider.batch_state(batch_id)
            if ended:
                return status
            if self.clock() - started > self.timeout_s:
                raise BatchError(f"batch {batch_id} at {self.provider.name} is still {status} after "
                                 f"{self.timeout_s:.0f} s; it stays recorded, and the next run waits for it again")
            self.sleep(delay)
            delay = min(self.poll_max_s, delay * POLL_GROWTH)
