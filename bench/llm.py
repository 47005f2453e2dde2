"""LLM call rate against the local mock server (`python -m bench.llm`, also part of `make bench`).

The mock answers after 200 ms; the endpoint is configured at 600 requests per minute. Each figure is
the achieved request rate, as seen by the server between the first and the last request, as a share
of the limit (target: at least 90 percent), clean and with 10 percent injected HTTP 500s (which still
count against the limit; the gateway retries them with backoff). Two workloads:
- gateway: `CALLS` independent calls through one `generate_many` (the gateway alone);
- build: a whole `build_corpus` of the `BUILD_PRESET` preset (Prefect flow, every persona and stage,
  gates and freeze) on the openai code path, the mock answering as the offline narrator would (its
  Oracle), so the rate includes the stages' own concurrency and the gaps between their calls.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LATENCY_S, RPM, CALLS, BUILD_PRESET = 0.2, 600, 200, "demo"


def measure(error_rate: float, calls: int = CALLS) -> dict:
    """Run `calls` generate_many calls through the gateway; the achieved rate as a share of the limit."""
    import pytest
    from pydantic import BaseModel

    from schemas.config import ProviderConfig
    from tasks.llm import prompts
    from tasks.llm.gateway import CallSpec, Gateway
    from tasks.llm.limits import reset_limiters
    from tests.llm_mock.server import MockLLM

    class Note(BaseModel):
        text: str

    os.environ.setdefault("LIFELOOM_BENCH_KEY", "sk-bench-not-a-secret")
    reset_limiters()
    with pytest.MonkeyPatch.context() as mp, \
            MockLLM(latency_s=LATENCY_S, error_rate=error_rate, error_kinds=("500",), seed=1) as mock:
        mp.setattr(prompts, "render", lambda name, ctx: f'Write a note that includes "{ctx["word"]}".')
        mp.setattr(prompts, "prompt_hash", lambda name: "bench")
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


def measure_build(error_rate: float, preset: str = BUILD_PRESET) -> dict:
    """One cold build of `preset` against the mock; the server-side request rate as a share of the limit."""
    import tempfile

    import pytest

    from flows.build import build_corpus
    from schemas.config import ProviderConfig, load_preset
    from tasks.llm.limits import reset_limiters
    from tests.llm_mock.server import MockLLM, Oracle

    os.environ.setdefault("LIFELOOM_BENCH_KEY", "sk-bench-not-a-secret")
    reset_limiters()
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as home:
        oracle = Oracle().install(mp)
        with MockLLM(answer=oracle.answer, latency_s=LATENCY_S, error_rate=error_rate, error_kinds=("500",),
                     seed=1) as mock:
            llm = ProviderConfig(name="openai", model="mock-model", base_url=mock.openai_url,
                                 api_key_env="LIFELOOM_BENCH_KEY", requests_per_minute=RPM, max_concurrency=16)
            config = load_preset(preset).model_copy(update={"provider": llm})
            started = time.perf_counter()
            try:
                build_corpus(config=config, home=home)
                status = "released"
            except Exception as exc:  # a failed gate still yields a rate; say so in the row
                status = f"failed: {type(exc).__name__}"
            wall = time.perf_counter() - started
            starts = sorted(t for t, kind, _ in mock.log if kind in ("chat", "messages"))
    rate = (len(starts) - 1) / (starts[-1] - starts[0]) * 60 if len(starts) > 1 else 0.0
    return {"workload": f"build {preset}", "error_rate": error_rate, "requests": len(starts),
            "calls": None, "wall_s": round(wall, 2), "rate_rpm": round(rate, 1),
            "share_of_limit": round(rate / RPM, 3), "status": status}


def run() -> list[dict]:
    """Every figure: gateway and whole build, clean and with 10 percent injected errors."""
    gateway_rows = [{"workload": "gateway", **measure(e)} for e in (0.0, 0.10)]
    return gateway_rows + [measure_build(e) for e in (0.0, 0.10)]


def markdown(rows: list[dict]) -> list[str]:
    lines = ["", f"## LLM call rate vs mock ({int(LATENCY_S * 1000)} ms latency, limit {RPM} rpm)", "",
             f"gateway: {CALLS} independent calls in one generate_many; build {BUILD_PRESET}: a whole "
             "build_corpus on the openai code path (mock answers as the offline narrator). Rate is measured "
             "by the server between its first and last completion request.", "",
             "| workload | injected errors | requests | rate (rpm) | share of limit | fallbacks / status | wall (s) |",
             "|---|---:|---:|---:|---:|---|---:|"]
    lines += [f"| {r['workload']} | {r['error_rate']:.0%} | {r['requests']} | {r['rate_rpm']} | "
              f"{r['share_of_limit']:.1%} | {r.get('fallbacks', r.get('status'))} | {r['wall_s']} |" for r in rows]
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(run())))
