"""`make bench`: times builds of the bundled presets and writes bench/results.md and results.json.

Each figure runs `lifeloom build` in a fresh process with a fresh data root (so it includes Prefect's
temporary server start-up, as a user sees it) and records wall time and peak resident memory.
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.world import markdown as world_markdown
from bench.world import time_world

HERE = Path(__file__).resolve().parent
PRESETS = ("tiny", "demo")


def time_build(preset: str) -> dict:
    """Wall time and peak RSS of one cold `lifeloom build --preset <preset>`."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    with tempfile.TemporaryDirectory() as home:
        command = [str(lifeloom), "build", "--preset", preset, "--home", home]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"preset": preset, "seconds": round(seconds, 2), "peak_rss_mb_upto": round(peak_mb, 1),
            "command": f"lifeloom build --preset {preset} --home <fresh dir>"}


def main() -> None:
    rows = [time_build(p) for p in PRESETS]
    meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": __import__("os").cpu_count()}
    (HERE / "results.json").write_text(json.dumps({"meta": meta, "builds": rows}, indent=2) + "\n")
    lines = ["# lifeloom benchmarks", "", f"Machine: {meta}", "",
             "| preset | cold build (s) | peak RSS so far (MB) | command |", "|---|---:|---:|---|"]
    lines += [f"| {r['preset']} | {r['seconds']} | {r['peak_rss_mb_upto']} | `{r['command']}` |" for r in rows]
    world = time_world()
    lines += world_markdown(world)
    from bench import dialogue

    talk = dialogue.measure()
    lines += dialogue.markdown(talk)
    (HERE / "results.json").write_text(json.dumps({"meta": meta, "builds": rows, "world": world}, indent=2) + "\n")
    from bench import llm

    llm_rows = llm.run()
    lines += llm.markdown(llm_rows)
    (HERE / "results.json").write_text(json.dumps({"meta": meta, "builds": rows, "world": world, "llm": llm_rows},
                                                  indent=2) + "\n")
    from bench import operations

    ops = operations.run()
    lines += operations.markdown(ops)
    (HERE / "results.json").write_text(json.dumps({"meta": meta, "builds": rows, "world": world, "dialogue": talk,
                                                   "llm": llm_rows, "operations": ops}, indent=2) + "\n")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
