"""`make bench`: runs every bench module and writes bench/results.md and bench/results.json.

Sections (each names its command in results.md): builds (cold `lifeloom build` of tiny and demo),
world, realism (how plausible the simulated lives are), dialogue, llm (call rate against the mock server), gateway
(the gateway beside a hand-written asyncio client: share of limit, 429s, CPU, context switches),
operations (cold / warm / after-edit builds of demo and rhelm, and the orchestration overhead ratio), scale
(10, 20, 40 rhelm persona-years), viewer (the release viewer of a rhelm build: write time, size, page opening) and
lengths (a cold rhelm build on its own runner: CPU over wall, the length tiers and the time they take).
`python -m bench --only scale,llm` re-runs some sections and keeps the others from results.json;
`--quick` runs scale at 2 and 4 personas over 60 days instead. Both files are rewritten after every
section, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

from bench.scale import run_measured

HERE = Path(__file__).resolve().parent
PRESETS = ("tiny", "demo")
SECTIONS = ("builds", "world", "realism", "dialogue", "llm", "gateway", "operations", "scale", "viewer", "lengths")
QUICK_SCALE = {"sizes": (2, 4), "days": 60}


def time_build(preset: str) -> dict:
    """Wall time and peak RSS of one cold `lifeloom build --preset <preset>`."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    with tempfile.TemporaryDirectory() as home:
        command = [str(lifeloom), "build", "--preset", preset, "--home", home]
        code, seconds, usage, log = run_measured(command, Path(home) / "build.log")
    if code != 0:
        raise SystemExit(f"bench: {' '.join(command)} failed:\n{log[-2000:]}")
    return {"preset": preset, "seconds": round(seconds, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "command": f"lifeloom build --preset {preset} --home <fresh dir>"}


def run_builds() -> list[dict]:
    """A cold build of each small preset."""
    return [time_build(p) for p in PRESETS]


def builds_markdown(rows: list[dict]) -> list[str]:
    """The results.md section for the cold builds."""
    lines = ["", "## Cold builds", "", "| preset | cold build (s) | peak RSS (MB) | command |", "|---|---:|---:|---|"]
    return lines + [f"| {r['preset']} | {r['seconds']} | {r.get('peak_rss_mb', r.get('peak_rss_mb_upto'))} | "
                    f"`{r['command']}` |" for r in rows]


def measure(section: str, quick: bool) -> object:
    """Run one section's benchmark."""
    if section == "builds":
        return run_builds()
    if section == "world":
        return importlib.import_module("bench.world").time_world()
    if section == "dialogue":
        return importlib.import_module("bench.dialogue").measure()
    if section == "scale" and quick:
        return importlib.import_module("bench.scale").run(**QUICK_SCALE)
    return importlib.import_module(f"bench.{section}").run()


def render(section: str, result: object) -> list[str]:
    """One section's Markdown."""
    if section == "builds":
        return builds_markdown(result)
    if section == "world":
        return importlib.import_module("bench.world").markdown(result)
    return importlib.import_module(f"bench.{section}").markdown(result)


def summary(results: dict) -> list[str]:
    """The headline figures, each with the command that produced it (sections not run are left out)."""
    lines = ["", "## Headline figures", "", "| figure | value | command |", "|---|---:|---|"]
    for r in results.get("operations", {}).get("rebuilds", []):
        cmd = f"`lifeloom build --preset {r['preset']} --runner default --home H` (python -m bench.operations)"
        lines += [f"| {r['preset']} cold build (s) | {r['cold_s']} | {cmd} |",
                  f"| {r['preset']} unchanged (warm) rebuild (s) | {r['warm_s']} | {cmd} |"]
        if "dask_cold_s" in r:
            lines.append(f"| {r['preset']} cold build, `--runner dask` (s) | {r['dask_cold_s']} | `lifeloom build "
                         f"--preset {r['preset']} --runner dask --home H` (python -m bench.operations) |")
        if "dask_tree_peak_mb" in r:
            lines.append(f"| {r['preset']} cold build, process-tree peak PSS, default / Dask (MB) | "
                         f"{r['cold_tree_peak_mb']} / {r['dask_tree_peak_mb']} | (python -m bench.operations) |")
    for r in results.get("operations", {}).get("overhead", []):
        lines.append(f"| {r['preset']} orchestration overhead (flow / direct) | {r['ratio']} | "
                     "python -m bench.operations |")
    for r in results.get("llm", []):
        lines.append(f"| mock call rate, {r['workload']}, {r['error_rate']:.0%} errors (share of limit) | "
                     f"{r['share_of_limit']:.1%} | python -m bench.llm |")
    for r in results.get("gateway", []):
        if r["client"] == "lifeloom gateway":
            lines.append(f"| gateway, {r['scenario']}: share of limit, 429s, lost, context switches | "
                         f"{r['share_of_limit']:.1%}, {r['rate_limited']}, {r['lost']}, {r['context_switches']:,} | "
                         "python -m bench.gateway |")
    scale = results.get("scale")
    if scale and scale.get("fit"):
        f = scale["fit"]
        lines += [f"| scale slope (s per {scale['days']}-day persona) | {f['slope_s_per_persona']} | "
                  f"`{scale['command']}` |",
                  f"| per-persona time constant within {f['tolerance']:.0%} | "
                  f"{ {True: 'yes', False: 'no', None: 'not tested'}[f['constant_within_tolerance']]} "
                  f"({f['max_step_deviation']:.1%}) | "
                  f"`{scale['command']}` |"]
    for row in (scale or {}).get("rows", []):
        lines.append(f"| peak RSS at {row['personas']} personas x {row['days']} days (MB) | {row['peak_rss_mb']} | "
                     f"`{scale['command']}` |")
    for r in results.get("lengths", {}).get("rows", []):
        cmd = f"`{r['command']}` (python -m bench.lengths)"
        lines += [f"| {r['preset']} cold build on its own runner ({r['runner']}): wall (s), CPU / wall | "
                  f"{r['wall_s']}, {r['cpu_per_wall']} | {cmd} |",
                  f"| {r['preset']} tier views: seconds, share of the build | {r['tiers_s']}, {r['tiers_share']:.1%} | "
                  f"{cmd} |"]
    return lines if len(lines) > 5 else []


def write(results: dict) -> list[str]:
    """Write results.json and results.md from every section present; the Markdown lines."""
    (HERE / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = ["# lifeloom benchmarks", "", f"Last run on: {results['meta']}", "Regenerate: `make bench` "
             "(or `python -m bench --only <sections>`; sections: " + ", ".join(SECTIONS) + "). Each section "
             "names the machine and commit that measured it: `--only` re-measures some and keeps the others' as they "
             "were."]
    lines += summary(results)
    for section in SECTIONS:
        if section in results:
            section_lines = render(section, results[section])
            measured = results.get("provenance", {}).get(section)
            if measured:
                at = 2 if len(section_lines) > 2 and section_lines[0] == "" else 0
                section_lines = [*section_lines[:at], f"Measured on: {measured}", "", *section_lines[at:]]
            lines += section_lines
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    return lines


def main(argv: list[str] | None = None) -> None:
    """CLI: `python -m bench [--only a,b] [--quick]`."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"sections to run ({', '.join(SECTIONS)})")
    parser.add_argument("--quick", action="store_true", help="scale at 2 and 4 personas x 60 days")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        raise SystemExit(f"--only: unknown sections {unknown}; choose from {', '.join(SECTIONS)}")
    path = HERE / "results.json"
    results = json.loads(path.read_text()) if path.is_file() and len(chosen) < len(SECTIONS) else {}
    from warehouse.provenance import code_version

    here = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "code": code_version()}
    provenance = results.setdefault("provenance", {})
    earlier = results.get("meta")
    for section in SECTIONS:  # sections measured before provenance was kept per section: the file's old machine line
        if section in results and section not in provenance and earlier:
            provenance[section] = earlier
    results["meta"] = here
    for section in SECTIONS:
        if section in chosen:
            results[section] = measure(section, args.quick)
            provenance[section] = {**here, "quick": args.quick} if section == "scale" else here
            write(results)
    print("\n".join(write(results)))


if __name__ == "__main__":
    main()
