"""LLM gateway throughput against the local mock server (`python -m bench.llm`, also part of `make bench`).

The mock answers after 200 ms; the endpoint is configured at 600 requests per minute. The figure is
the achieved request rate, as seen by the server between the first and the last request, as a share
of the limit (target: at least 90 percent), clean and with 10 percent injected HTTP 500s (which still
count against the limit; the gateway retries them with backoff).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LATENCY_S, RPM, CALLS = 0.2, 600, 200


def measure(error_rate: float, calls: int = CALLS) -> dict:
    """Run `calls` generate_many calls through the gateway; the achieved rate as a share of the limit."""
    from pydantic import BaseModel

    from schemas.config import ProviderConfig
    from tasks.llm import prompts
    from tasks.llm.gateway import CallSpec, Gateway
    from tasks.llm.limits import reset_limiters
    from tests.llm_mock.server import MockLLM

    class Note(BaseModel):
        text: str

    prompts.render = lambda name, ctx: f'Write a note that includes "{ctx["word"]}".'
    prompts.prompt_hash = lambda name: "bench"
    os.environ.setdefault("LIFELOOM_BENCH_KEY", "sk-bench-not-a-secret")
    reset_limiters()
    with MockLLM(latency_s=LATENCY_S, error_rate=error_rate, error_kinds=("500",), seed=1) as mock:
        config = ProviderConfig(name="openai", model="mock-model", base_url=mock.openai_url,
                                api_key_env="LIFELOOM_BENCH_KEY", requests_per_minute=RPM, max_concurrency=16)
        gateway = Gateway(config)
        started = time.perf_counter()
        gateway.generate_many([CallSpec("note", {"word": f"w{i}"}, Note, "bench") for i in range(calls)])
        wall = time.perf_counter() - started
        starts = sorted(t for t, _, _ in mock.log)
    rate = (len(starts) - 1) / (starts[-1] - starts[0]) * 60
    rows = gateway.drain_ledger()
    return {"error_rate": error_rate, "requests": len(starts), "calls": calls, "wall_s": round(wall, 2),
            "rate_rpm": round(rate, 1), "share_of_limit": round(rate / RPM, 3),
            "fallbacks": sum(r.fallback for r in rows)}


def run() -> list[dict]:
    """Both figures: clean and with 10 percent injected errors."""
    return [measure(0.0), measure(0.10)]


def markdown(rows: list[dict]) -> list[str]:
    lines = ["", f"LLM gateway vs mock ({int(LATENCY_S * 1000)} ms latency, limit {RPM} rpm, {CALLS} calls):", "",
             "| injected errors | requests | rate (rpm) | share of limit | fallbacks | wall (s) |",
             "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['error_rate']:.0%} | {r['requests']} | {r['rate_rpm']} | {r['share_of_limit']:.1%} | "
              f"{r['fallbacks']} | {r['wall_s']} |" for r in rows]
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(run())))
