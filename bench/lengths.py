"""Length tiers and whole-build parallelism (issue 57): a cold `lifeloom build --preset P` on the preset's own runner,
its wall time, the CPU time of the build and everything it started (Prefect server, Dask workers) over the wall time,
peak memory, the tokens per persona and questions of each tier, and how long the tier views take (the tiers step run
again on the built release, in this process) as a share of the build.

`python -m bench.lengths [--presets rhelm,demo]` (default rhelm).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bench.scale import run_measured

PRESETS = ("rhelm",)


def measure_preset(preset: str) -> dict:
    """One cold build of `preset` and its tiers step timed again."""
    from flows.tiers import tiers_for_run
    from schemas.config import load_preset
    from warehouse.paths import Layout

    lifeloom = Path(sys.executable).parent / "lifeloom"
    config = load_preset(preset)
    with tempfile.TemporaryDirectory() as home:
        command = [str(lifeloom), "build", "--preset", preset, "--home", home]
        code, wall, usage, log = run_measured(command, Path(home) / "build.log")
        if code != 0:
            raise SystemExit(f"bench: {' '.join(command)} failed:\n{log[-2000:]}")
        (manifest_path,) = Path(home).glob(f"releases/{preset}/*/manifest.json")
        manifest = json.loads(manifest_path.read_text())
        started = time.perf_counter()
        tiers_for_run(Layout(Path(home)), config, manifest["run_id"])
        tiers_s = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "preset": preset, "runner": config.runner.kind, "personas": config.personas, "days": config.days,
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cpu_per_wall": round(cpu / wall, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "tiers_s": round(tiers_s, 1),
        "tiers_share": round(tiers_s / wall, 3), "tiers": manifest.get("tiers", {}),
        "command": f"lifeloom build --preset {preset} --home <fresh dir>",
    }


def run(presets: tuple[str, ...] = PRESETS) -> dict:
    return {"rows": [measure_preset(p) for p in presets], "command": "python -m bench.lengths --presets "
            + ",".join(presets)}


def markdown(result: dict) -> list[str]:
    lines = ["", "## Length tiers and whole-build parallelism", "",
             f"`{result['command']}`: a cold build on the preset's own runner; CPU is the build process and everything "
             "it started (os.wait4: Prefect server, Dask workers); tiers: the tier step run again on the built "
             "release.", "",
             "| preset | runner | wall (s) | CPU (s) | CPU / wall | peak RSS (MB) | tiers (s) | tiers / wall |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['preset']} | {r['runner']} | {r['wall_s']} | {r['cpu_s']} | {r['cpu_per_wall']} | "
                     f"{r['peak_rss_mb']} | {r['tiers_s']} | {r['tiers_share']:.1%} |")
    lines += ["", "| preset | tier | budget | tokens per persona (min / median / max) | cut / padded | questions "
              "(re-derived) |", "|---|---|---:|---|---|---:|"]
    for r in result["rows"]:
        for name, t in r["tiers"].items():
            tok, modes = t["tokens_per_persona"], t["modes"]
            lines.append(f"| {r['preset']} | {name} | {t['budget']:,} | {tok['min']:,} / {tok['median']:,} / "
                         f"{tok['max']:,} | {modes['cut']} / {modes['padded']} | {t['questions']} "
                         f"({t['rederived']}) |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(PRESETS))
    args = parser.parse_args()
    result = run(tuple(args.presets.split(",")))
    print(json.dumps(result, indent=2))
    print("\n".join(markdown(result)))


if __name__ == "__main__":
    main()
