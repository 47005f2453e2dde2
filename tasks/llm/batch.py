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
  go to the call cache, so a third run pays for nothing; a batch is written down as meant to be sent before it is
  (`BatchRegistry.intend`), so one the provider accepted whose reply was lost, or whose id a killed build never
  recorded, is found at the provider by the next run (`BatchRunner.recover`: OpenAI by the digest of its requests
  in the batch's metadata, Anthropic, whose batches carry none, by when it was made and how many requests it holds,
  its results then showing which it answered) and waited for, not paid for again;
- only what failed goes again: rows that expired, were cancelled or met a server error are sent in the next
  batch; a row the provider refuses for good (a 4xx) falls back at once;
- one clear error for what cannot be batched (a provider that refuses the model or the file, a results file that
  cannot be parsed), before anything is landed.

A request's id in a batch is `<first 40 hex of its call key>-a<attempt>` (Anthropic allows 64 characters of
`[a-zA-Z0-9_-]`), so the same request at the same attempt always has the same id, across processes.

Rounds are gathered across personas (`BatchPool`): the rounds that the persona branches running in one process
start within `batch_gather_s` of each other (one turn of every open session of every persona, say) go out as one
batch, are polled once and read once; each branch takes its own rows back. A batch so shared is marked collected
only when every one of its requests has been kept by the branch that asked it (`BatchRegistry.settle`), so a build
killed after one persona kept its answers and before another did waits for the batch again, and pays nothing twice.
"""

from __future__ import annotations

import copy
import hashlib
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


def rows_digest(ids: list[str]) -> str:
    """A batch's requests, as a short digest (OpenAI's batch metadata carries it)."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:32]


class BatchRegistry:
    """Every batch sent, durable in SQLite (`<root>/batches.sqlite`), or in memory without a root."""

    FILE = "batches.sqlite"
    _SCHEMA = """create table if not exists batches (
        batch_id text primary key, provider text not null, model text not null, ids text not null,
        status text not null, sent_at real not null, collected_at real, settled text not null default '[]')"""

    def __init__(self, root: Path | None) -> None:
        self._lock = threading.Lock()
        self._con = sqlite3.connect(":memory:" if root is None else str(root / self.FILE), timeout=30,
                                    isolation_level=None, check_same_thread=False)
        if root is not None:
            root.mkdir(parents=True, exist_ok=True)
            self._con.execute("pragma journal_mode=wal")
        self._con.execute(self._SCHEMA)
        self._con.execute("""create table if not exists intents (
            digest text primary key, provider text not null, model text not null, ids text not null,
            sent_at real not null)""")
        columns = {row[1] for row in self._con.execute("pragma table_info(batches)")}
        if "settled" not in columns:  # a registry written before batches were shared between personas
            self._con.execute("alter table batches add column settled text not null default '[]'")

    def record(self, batch_id: str, provider: str, model: str, ids: list[str]) -> None:
        with self._lock:
            self._con.execute("insert or replace into batches values (?, ?, ?, ?, 'sent', ?, null, '[]')",
                              [batch_id, provider, model, json.dumps(sorted(ids)), time.time()])

    def intend(self, provider: str, model: str, ids: list[str]) -> str:
        """Write down a batch about to be sent, before it is (its digest): if the build dies after the provider
        accepted it and before `record`, the next run looks for it (`BatchRunner.recover`) instead of paying again."""
        digest = rows_digest(ids)
        with self._lock:
            self._con.execute("insert or replace into intents values (?, ?, ?, ?, ?)",
                              [digest, provider, model, json.dumps(sorted(ids)), time.time()])
        return digest

    def intended(self, digest: str) -> None:
        """The batch was recorded, or never sent: nothing to look for."""
        with self._lock:
            self._con.execute("delete from intents where digest = ?", [digest])

    def intents(self, provider: str, model: str, wanted: set[str]) -> list[tuple[str, list[str], float]]:
        """(digest, ids, when) of the batches meant to be sent, never recorded, that hold any of `wanted`."""
        with self._lock:
            rows = self._con.execute("select digest, ids, sent_at from intents where provider = ? and model = ? "
                                     "order by sent_at", [provider, model]).fetchall()
        return [(d, json.loads(ids), at) for d, ids, at in rows if set(json.loads(ids)) & wanted]

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

    def known(self, batch_id: str) -> bool:
        with self._lock:
            return self._con.execute("select 1 from batches where batch_id = ?", [batch_id]).fetchone() is not None

    def settle(self, batch_id: str, ids: set[str], status: str) -> bool:
        """Record that the answers to `ids` from this batch are kept; once every request it holds is, the batch is
        collected (a later run will not wait for it again). True when it is."""
        with self._lock:
            self._con.execute("begin immediate")  # other processes share the file: read and write as one
            try:
                row = self._con.execute("select ids, settled from batches where batch_id = ?", [batch_id]).fetchone()
                if row is None:
                    self._con.execute("commit")
                    return False
                settled = set(json.loads(row[1])) | ids
                done = settled >= set(json.loads(row[0]))
                self._con.execute("update batches set status = ?, settled = ?, collected_at = ? where batch_id = ?",
                                  [status, json.dumps(sorted(settled)), time.time() if done else None, batch_id])
                self._con.execute("commit")
            except BaseException:
                self._con.execute("rollback")
                raise
        return done

    def rows(self) -> list[tuple]:
        with self._lock:
            return self._con.execute("select batch_id, provider, model, status, collected_at is not null "
                                     "from batches order by sent_at").fetchall()


class BatchRunner:
    """Sends one round's requests (resuming the batches already sent), waits for them with a growing poll, and
    returns every row's result. `sleep` and `clock` are injectable for tests."""

    def __init__(self, provider: BatchProvider, registry: BatchRegistry, poll_s: float, poll_max_s: float,
                 timeout_s: float, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] = lambda _: None,
                 pool: BatchPool | None = None) -> None:
        self.provider, self.registry = provider, registry
        self.poll_s, self.poll_max_s, self.timeout_s = poll_s, poll_max_s, timeout_s
        self.sleep, self.clock, self.say = sleep, clock, say
        self.pool = pool or BatchPool(0.0)
        self.stats = {"submitted": 0, "joined": 0, "resumed": 0, "recovered": 0, "ended": 0}
        self._taken: dict[str, tuple[str, set[str]]] = {}

    def run(self, rows: dict[str, LLMRequest]) -> tuple[dict[str, RowResult], dict[str, str]]:
        """Every row's result, and the batch each came from (custom id -> batch id); `settle` once they are
        kept."""
        name, model = self.provider.name, self.provider.model
        self.recover(set(rows))
        batches = self.registry.open_batches(name, model, set(rows))
        self.stats["resumed"] += len(batches)
        rest = [(cid, req) for cid, req in rows.items() if not any(cid in ids for ids in batches.values())]
        if rest:
            batch_id, size, led = self.pool.submit(self, rest)
            self.stats["submitted" if led else "joined"] += 1
            if led:
                self.say(f"batch {batch_id}: {size} requests sent to {name} {model}")
            batches[batch_id] = {cid for cid, _ in rest}
        results: dict[str, RowResult] = {}
        source: dict[str, str] = {}
        for batch_id, ids in batches.items():
            status, found, fetched = self.pool.fetch(self, batch_id)
            self.stats["ended"] += int(fetched)
            taken = self._taken.setdefault(batch_id, (status, set()))[1]
            taken |= ids
            for cid in ids:
                results[cid] = found.get(cid) or RowResult(cid, error=f"batch {batch_id} ({status}) has no result "
                                                                     f"for it", retry=True)
                source[cid] = batch_id
        return results, source

    def recover(self, wanted: set[str]) -> None:
        """Find the batches a killed build meant to send and never recorded (`BatchRegistry.intend`): one the
        provider has is recorded, and waited for like any other; one it does not have was never sent."""
        name, model = self.provider.name, self.provider.model
        for digest, ids, at in self.registry.intents(name, model, wanted):
            find = getattr(self.provider, "batch_find", None)
            batch_id = find(ids, at) if find is not None else None
            if batch_id is not None and not self.registry.known(batch_id):
                self.registry.record(batch_id, name, model, ids)
                self.stats["recovered"] += 1
                self.say(f"batch {batch_id}: found at {name}, sent by a build that stopped before recording it")
            self.registry.intended(digest)

    def settle(self) -> None:
        """Mark the batches whose results the caller has kept (in the call cache) as collected: only then would a
        later run not wait for them again. Until then a crash leaves them open, and the next run collects them."""
        for batch_id, (status, ids) in self._taken.items():
            if self.registry.settle(batch_id, ids, status):
                self.pool.forget(batch_id)
        self._taken.clear()

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


class Live:
    """What this process's batches are doing, for a progress display (`lifeloom build`'s bar): batches sent,
    waiting and ended, the requests they held, the rows that came back without an answer, and the cost so far."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts = {"sent": 0, "waiting": 0, "ended": 0, "requests": 0, "failed": 0}
        self.cost_usd = 0.0

    def add(self, cost_usd: float = 0.0, **counts: int) -> None:
        with self._lock:
            for key, n in counts.items():
                self.counts[key] += n
            self.cost_usd += cost_usd

    def line(self) -> str:
        """`batches 3 sent · 1 waiting · 2 ended · 1,200 requests · 4 failed · $0.12`, or "" before any batch."""
        with self._lock:
            c, cost = dict(self.counts), self.cost_usd
        if not c["sent"] and not c["ended"]:
            return ""
        return (f"batches {c['sent']} sent · {c['waiting']} waiting · {c['ended']} ended · {c['requests']:,} requests"
                f" · {c['failed']:,} failed · ${cost:.2f}")


LIVE = Live()
"""The process's batch activity (module doc)."""


class _Group:
    """The rows of the rounds gathered into one batch, and what became of it."""

    def __init__(self) -> None:
        self.rows: dict[str, LLMRequest] = {}
        self.done = threading.Event()
        self.batch_id: str | None = None
        self.error: BaseException | None = None


class _Fetched:
    """One batch's end status and results, read once for every branch waiting on it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: str | None = None
        self.results: dict[str, RowResult] | None = None


class BatchPool:
    """The batch rounds of one process's persona branches, gathered (module doc): the first round to arrive waits
    `gather_s` for others, then sends them all as one batch; every branch waits on it, and the first to get there
    polls it and reads its results for all. `gather_s = 0` sends each round alone."""

    def __init__(self, gather_s: float) -> None:
        self.gather_s = gather_s
        self._lock = threading.Lock()
        self._open: _Group | None = None
        self._fetched: dict[str, _Fetched] = {}

    def submit(self, runner: BatchRunner, rows: list[tuple[str, LLMRequest]]) -> tuple[str, int, bool]:
        """(the id of the batch that holds `rows`, its size, whether this caller sent it)."""
        with self._lock:
            group, led = self._open, self._open is None
            if led:
                group = _Group()
                if self.gather_s > 0:
                    self._open = group
            assert group is not None
            for cid, req in rows:
                group.rows.setdefault(cid, req)  # the same request from two personas is asked once
        if not led:
            group.done.wait()
            if group.error is not None:
                raise copy.copy(group.error)
            assert group.batch_id is not None
            return group.batch_id, len(group.rows), False
        if self.gather_s > 0:
            time.sleep(self.gather_s)  # the other branches' rounds of this moment join
            with self._lock:
                self._open = None
        name, model = runner.provider.name, runner.provider.model
        digest = runner.registry.intend(name, model, list(group.rows))
        try:
            batch_id = runner.provider.batch_submit(list(group.rows.items()))
            runner.registry.record(batch_id, name, model, list(group.rows))
            runner.registry.intended(digest)
            LIVE.add(sent=1, waiting=1, requests=len(group.rows))
            group.batch_id = batch_id
        except BatchError as exc:  # refused outright: nothing was sent
            runner.registry.intended(digest)
            group.error = exc
            raise
        except BaseException as exc:  # a lost reply may hide an accepted batch: the next run looks for it
            group.error = exc
            raise
        finally:
            group.done.set()
        return batch_id, len(group.rows), True

    def fetch(self, runner: BatchRunner, batch_id: str) -> tuple[str, dict[str, RowResult], bool]:
        """(the batch's end status, its results, whether this caller read them): the first caller polls and reads,
        the others wait for it."""
        with self._lock:
            fetched = self._fetched.setdefault(batch_id, _Fetched())
        with fetched.lock:
            if fetched.results is not None:
                return fetched.status or "", fetched.results, False
            status = runner.wait(batch_id)
            fetched.results, fetched.status = runner.provider.batch_results(batch_id), status
            LIVE.add(waiting=-1, ended=1, failed=sum(r.response is None for r in fetched.results.values()))
            return status, fetched.results, True

    def forget(self, batch_id: str) -> None:
        with self._lock:
            self._fetched.pop(batch_id, None)


_POOLS: dict[tuple, BatchPool] = {}
_POOLS_LOCK = threading.Lock()


def pool_for(key: tuple, gather_s: float) -> BatchPool:
    """The process's pool for one endpoint, model and registry (`key`)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None or pool.gather_s != gather_s:
            pool = _POOLS[key] = BatchPool(gather_s)
        return pool
