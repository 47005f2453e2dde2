"""The gateway side by side with a hand-written asyncio client (`python -m bench.gateway`, part of `make bench`).

Both clients send the same calls to the same mock server (tests/llm_mock), which runs in a child process so the
client's own CPU time and context switches can be read from this process (`resource.getrusage`). The asyncio
baseline is what a careful person would write: the OpenAI SDK's async client, a semaphore for concurrency, a pacer
that spaces starts 60/rpm apart with `asyncio.sleep`, and a retry after the server's Retry-After on a 429. The
gateway is lifeloom's (tasks/llm/gateway.py: threads over the SDK's sync client, the endpoint limiter of
tasks/llm/limits.py, validation, the ledger), with the call cache in memory.

Scenarios (the server answers after `latency` seconds; the clients are configured with the server's limit):
- 600 rpm at 200 ms, the default concurrency (the gateway's follows the limit and the latency when unset; the
  baseline runs 8);
- 20,000 rpm at 200 ms with 64 and with 256 at once;
- 500 rpm at 2 s with the default concurrency (Little's law wants about 22 in flight; 8 reach 46 percent);
- 600 rpm at 200 ms against a server that enforces 600 a minute itself (429s beyond it).

Each row: the achieved rate as a share of the limit (calls over the wall time, first start to last answer), the
server's 429s, calls lost (no valid answer), CPU seconds and context switches of the client process.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

KEY_ENV, KEY = "LIFELOOM_BENCH_KEY", "sk-bench-not-a-secret"
SCENARIOS = (
    # name, rpm (client and, with `enforce`, server), latency s, calls, max_concurrency (None: the default)
    ("600 rpm, 200 ms", 600, 0.2, 200, None, False),
    ("20,000 rpm, 200 ms, 64 at once", 20_000, 0.2, 2000, 64, False),
    ("20,000 rpm, 200 ms, 256 at once", 20_000, 0.2, 3000, 256, False),
    ("500 rpm, 2 s latency", 500, 2.0, 150, None, False),
    ("600 rpm, 200 ms, server enforces 600", 600, 0.2, 200, None, True),
)
BASELINE_DEFAULT_CONCURRENCY = 8
"""What the asyncio baseline runs when the scenario leaves concurrency to the client (the gateway's old default)."""

SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from tests.llm_mock.server import MockLLM
mock = MockLLM(latency_s={latency}, api_key={key!r}, limit_rpm={limit}, retry_after="1").start()
print(mock.port, flush=True)
while True:
    time.sleep(3600)
"""


class Server:
    """The mock in a child process: its port, and what it saw (GET /_stats)."""

    def __init__(self, latency: float, limit: int | None) -> None:
        code = SERVER.format(root=str(Path(__file__).resolve().parent.parent), latency=latency, key=KEY, limit=limit)
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stats", timeout=5) as response:
            return json.loads(response.read())

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def usage() -> tuple[float, int]:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_nvcsw + ru.ru_nivcsw


def run_gateway(url: str, rpm: int, calls: int, concurrency: int | None) -> dict:
    """`calls` independent calls through one generate_many of lifeloom's gateway."""
    import pytest
    from pydantic import BaseModel

    from schemas.config import ProviderConfig
    from tasks.llm import prompts
    from tasks.llm.gateway import CallSpec, Gateway
    from tasks.llm.limits import reset_limiters

    class Note(BaseModel):
        text: str

    reset_limiters()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prompts, "render", lambda name, ctx: f"Write a short note about {ctx['word']}.")
        mp.setattr(prompts, "prompt_hash", lambda name: "bench")
        config = ProviderConfig(name="openai", model="mock-model", base_url=url, api_key_env=KEY_ENV,
                                requests_per_minute=rpm, timeout_s=30.0,
                                **({"max_concurrency": concurrency} if concurrency else {}))
        gateway = Gateway(config)
        started = time.perf_counter()
        results = gateway.generate_many_traced([CallSpec("note", {"word": f"w{i}"}, Note, "bench")
                                                for i in range(calls)])
        wall = time.perf_counter() - started
    lost = sum(1 for _, row in results if row.fallback)
    auto = getattr(gateway.limiter, "auto", False)
    return {"wall_s": wall, "lost": lost, "concurrency": f"auto (settled at {gateway.limiter.cap})" if auto
            else gateway.limiter.max_cap}


def run_asyncio(url: str, rpm: int, calls: int, concurrency: int | None) -> dict:
    """The hand-written baseline (module doc)."""
    import openai
    from pydantic import BaseModel, ValidationError

    class Note(BaseModel):
        text: str

    size = concurrency or BASELINE_DEFAULT_CONCURRENCY
    interval = 60.0 / rpm

    async def main() -> tuple[float, int]:
        client = openai.AsyncOpenAI(api_key=KEY, base_url=url, max_retries=0, timeout=30.0)
        gate = asyncio.Semaphore(size)
        lock = asyncio.Lock()
        state = {"next": 0.0}

        async def pace() -> None:
            async with lock:
                now = time.monotonic()
                start = max(now, state["next"])
                state["next"] = start + interval
            await asyncio.sleep(max(0.0, start - now))

        async def one(i: int) -> bool:
            async with gate:
                for _ in range(6):
                    await pace()
                    try:
                        done = await client.chat.completions.create(
                            model="mock-model", messages=[
                                {"role": "system", "content": "Answer with JSON."},
                                {"role": "user", "content": f"Write a short note about w{i}."}],
                            response_format={"type": "json_schema", "json_schema": {
                                "name": "note", "schema": Note.model_json_schema()}})
                    except openai.RateLimitError as exc:
                        await asyncio.sleep(float(exc.response.headers.get("retry-after", "1")))
                        continue
                    except openai.APIError:
                        await asyncio.sleep(0.5)
                        continue
                    try:
                        Note.model_validate_json(done.choices[0].message.content or "")
                        return True
                    except ValidationError:
                        continue
                return False

        started = time.perf_counter()
        ok = await asyncio.gather(*(one(i) for i in range(calls)))
        await client.close()
        return time.perf_counter() - started, sum(1 for x in ok if not x)

    wall, lost = asyncio.run(main())
    return {"wall_s": wall, "lost": lost, "concurrency": size}


def warm() -> None:
    """Import what either client imports, so neither's CPU figure holds the other's start-up."""
    import openai  # noqa: F401
    import pytest  # noqa: F401

    import tasks.llm.gateway  # noqa: F401
    import tasks.llm.providers.openai  # noqa: F401


def measure(name: str, rpm: int, latency: float, calls: int, concurrency: int | None, enforce: bool) -> list[dict]:
    os.environ.setdefault(KEY_ENV, KEY)
    warm()
    rows = []
    for client, fn in (("lifeloom gateway", run_gateway), ("asyncio baseline", run_asyncio)):
        server = Server(latency, rpm if enforce else None)
        try:
            cpu0, switches0 = usage()
            found = fn(server.url, rpm, calls, concurrency)
            cpu1, switches1 = usage()
            seen = server.stats()
        finally:
            server.close()
        rate = calls / found["wall_s"] * 60
        rows.append({"scenario": name, "client": client, "calls": calls, "concurrency": found["concurrency"],
                     "wall_s": round(found["wall_s"], 2), "share_of_limit": round(rate / rpm, 3),
                     "rate_limited": seen["rate_limited"], "lost": found["lost"],
                     "cpu_s": round(cpu1 - cpu0, 2), "context_switches": switches1 - switches0,
                     "server_max_in_flight": seen["max_in_flight"]})
    return rows


def run(quick: bool = False) -> list[dict]:
    rows = []
    for name, rpm, latency, calls, concurrency, enforce in SCENARIOS:
        rows += measure(name, rpm, latency, calls // 4 if quick else calls, concurrency, enforce)
    return rows


def markdown(rows: list[dict]) -> list[str]:
    lines = ["", "## The gateway beside a hand-written asyncio client (mock in a child process)", "",
             "Calls through lifeloom's gateway and through an asyncio client (OpenAI's async SDK, a semaphore, a "
             "pacer, Retry-After), the same calls to the same mock; share of limit = calls over wall time; CPU "
             "and context switches of the client process (`python -m bench.gateway`).", "",
             "| scenario | client | calls | concurrency | share of limit | 429s | lost | CPU s | context switches | "
             "server max in flight | wall (s) |", "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['scenario']} | {r['client']} | {r['calls']} | {r['concurrency']} | {r['share_of_limit']:.1%} | "
              f"{r['rate_limited']} | {r['lost']} | {r['cpu_s']} | {r['context_switches']:,} | "
              f"{r['server_max_in_flight']} | {r['wall_s']} |" for r in rows]
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(run(quick="--quick" in sys.argv))))
