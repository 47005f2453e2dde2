"""Scale: wall time and peak memory of whole offline builds as the number of personas grows.

`python -m bench.scale` builds the rhelm preset (a persona-year each) with 10, 20 and 40 personas, each
in a fresh `lifeloom build --config <tmp toml> --home <fresh dir>` process, and fits wall time by least
squares, wall = fixed + slope x personas. The per-persona time counts as constant when every step
between consecutive sizes, (wall_b - wall_a) / (n_b - n_a), is within 15 percent of the fitted slope.
`python -m bench.scale --sizes 2,4 --days 60` is a quick check (about
three minutes on two cores); the full sizes take roughly 40 minutes there (rhelm's 10 took 5 min 37 s
at commit 4e3dda2), so `make bench` runs them last.

Peak memory is the ru_maxrss of the build process tree as `os.wait4` reports it: the largest single
process (the build itself; Prefect's temporary server and Dask workers are separate processes).
Sizes below the preset's scale scale its gates down (see `scaled_config`: corpus-wide floors by the share
of persona-days, the question floor by the share of the year; characteristic floors and the per-persona-year
volume floors off below a year) so the small builds still pass their gates and freeze, as the full-size
ones do. A build that fails only at a gate is still timed (its row names the failed expectations; below
about 60 days a category can be empty); any other failure stops.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRESET = "rhelm"
SIZES, DAYS, TOLERANCE = (10, 20, 40), 365, 0.15
CORPUS_FLOORS = ("category_floors", "characteristic_floors", "dialogue_category_floors")
YEAR_FLOORS = ("min_user_turns_per_persona", "min_tokens_per_persona")  # RHELM's scale of a whole persona-year


def scaled_config(personas: int, days: int, preset: str = PRESET) -> dict:
    """The preset with `personas` and `days` set, a unique name and, below its size, gates scaled down."""
    data = tomllib.loads((ROOT / "schemas" / "presets" / f"{preset}.toml").read_text())
    corpus = min(1.0, personas * days / (data["personas"] * data["days"]))
    year = min(1.0, days / data["days"])
    gates = data.setdefault("gates", {})
    for table in CORPUS_FLOORS:
        gates[table] = {k: math.floor(v * corpus) for k, v in gates.get(table, {}).items()}
    if year < 1:  # like the demo preset: a short span holds too few long-horizon and trend items to floor
        gates["characteristic_floors"] = {k: 0 for k in gates["characteristic_floors"]}
        gates.update({key: 0 for key in YEAR_FLOORS if key in gates})
    if "min_questions_per_persona" in gates:
        gates["min_questions_per_persona"] = math.floor(gates["min_questions_per_persona"] * year)
    data.update(name=f"scale-{preset}-p{personas}-d{days}", personas=personas, days=days)
    return data


def to_toml(data: dict, prefix: str = "") -> str:
    """A TOML document of scalars and nested tables (enough for a BuildConfig; no arrays of tables)."""
    scalars = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    lines = ([f"[{prefix}]"] if prefix and scalars else []) + scalars
    for key, value in data.items():
        if isinstance(value, dict):
            lines += ["", to_toml(value, f"{prefix}.{_key(key)}" if prefix else _key(key))]
    return "\n".join(lines)


def _key(key: str) -> str:
    """A TOML key: bare when it can be, else quoted (a measure name such as `language.user.complete_parses`)."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _value(key)


def _value(value: object) -> str:
    """One TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, dt.date)):
        return str(value) if not isinstance(value, float) else repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def time_build(personas: int, days: int, preset: str = PRESET) -> dict:
    """Wall time, CPU time and peak RSS of one fresh `lifeloom build` of the scaled preset."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    with tempfile.TemporaryDirectory(prefix="lifeloom-scale-") as tmp:
        config = Path(tmp) / "scale.toml"
        config.write_text(to_toml(scaled_config(personas, days, preset)) + "\n")
        command = [str(lifeloom), "build", "--config", str(config), "--home", str(Path(tmp) / "home")]
        code, wall, usage, log = run_measured(command, Path(tmp) / "build.log")
    gate_failed = code != 0 and "gate expectations failed" in log
    if code != 0 and not gate_failed:
        raise SystemExit(f"bench.scale: {' '.join(command)} failed (exit {code}):\n{log[-2000:]}")
    status = "released" if not gate_failed else "gate failed: " + "; ".join(failed_gates(log))
    return {"personas": personas, "days": days, "status": status,
            "wall_s": round(wall, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "wall_per_persona_s": round(wall / personas, 2),
            "command": f"lifeloom build --config <{preset} with personas={personas}, days={days}> --home <fresh>"}


def failed_gates(log: str) -> list[str]:
    """The failed expectations a build's log names (`- suite: suite.expectation (...)` lines)."""
    return sorted({m.group(1) for m in re.finditer(r"^- \w+: ([\w.]+(?: [\w.]+)*) \(", log, flags=re.M)})


def run_measured(command: list[str], log: Path) -> tuple[int, float, os.struct_rusage, str]:
    """Exit code, wall seconds, the child's own rusage (os.wait4) and its output of one command."""
    with log.open("w") as sink:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, wall, usage, log.read_text()


def fit(rows: list[dict], tolerance: float = TOLERANCE) -> dict:
    """Least-squares wall = fixed + slope x personas, the steps between sizes, and whether they agree
    (None with fewer than two steps: one step always equals the slope)."""
    xs, ys = [r["personas"] for r in rows], [r["wall_s"] for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else float("nan")
    steps = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(len(xs) - 1) if xs[i + 1] != xs[i]]
    spread = max((abs(s / slope - 1) for s in steps), default=0.0) if slope > 0 else float("inf")
    return {"slope_s_per_persona": round(slope, 2), "fixed_s": round(my - slope * mx, 2),
            "steps_s_per_persona": [round(s, 2) for s in steps], "max_step_deviation": round(spread, 3),
            "constant_within_tolerance": spread <= tolerance if len(steps) > 1 else None, "tolerance": tolerance}


def run(sizes: tuple[int, ...] = SIZES, days: int = DAYS, preset: str = PRESET) -> dict:
    """Every size in increasing order, then the fit."""
    rows = [time_build(n, days, preset) for n in sorted(sizes)]
    return {"preset": preset, "days": days, "rows": rows, "fit": fit(rows) if len(rows) > 1 else None,
            "command": f"python -m bench.scale --sizes {','.join(map(str, sorted(sizes)))} --days {days}"}


def markdown(result: dict) -> list[str]:
    """The results.md section for the scale benchmark."""
    lines = ["", "## Scale: whole offline builds by number of personas", "",
             f"Preset `{result['preset']}` with `personas` changed, {result['days']} days each; every size a fresh "
             f"`lifeloom build --config <tmp toml> --home <fresh dir>` (`{result['command']}`). Peak RSS: largest "
             "process of the build, from os.wait4.", "",
             "| personas | wall (s) | CPU user+sys (s) | wall / persona (s) | peak RSS (MB) | status |",
             "|---:|---:|---:|---:|---:|---|"]
    lines += [f"| {r['personas']} | {r['wall_s']} | {r['cpu_s']} | {r['wall_per_persona_s']} | {r['peak_rss_mb']} | "
              f"{r.get('status', 'released')} |" for r in result["rows"]]
    if result.get("note"):
        lines += ["", f"Note: {result['note']}"]
    f = result["fit"]
    if f:
        verdict = {True: "yes", False: "no", None: "not tested (needs three sizes)"}[f["constant_within_tolerance"]]
        lines += ["", f"- least squares: wall = {f['fixed_s']} s + {f['slope_s_per_persona']} s x personas",
                  f"- steps between sizes (s per persona): {f['steps_s_per_persona']}; largest deviation from the "
                  f"slope {f['max_step_deviation']:.1%}; constant within {f['tolerance']:.0%}: {verdict}"]
    return lines


def main(argv: list[str] | None = None) -> None:
    """CLI: `python -m bench.scale [--sizes 10,20,40] [--days 365] [--preset rhelm]`."""
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="persona counts, comma-separated")
    parser.add_argument("--days", type=int, default=DAYS, help="simulated days per persona")
    parser.add_argument("--preset", default=PRESET, help="the preset to scale")
    args = parser.parse_args(argv)
    sizes = parse_sizes(args.sizes)
    print("\n".join(markdown(run(sizes, args.days, args.preset))))


def parse_sizes(text: str) -> tuple[int, ...]:
    """`10,20,40` -> (10, 20, 40); a clear error for anything else."""
    try:
        sizes = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise SystemExit(f"--sizes: expected comma-separated persona counts, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise SystemExit(f"--sizes: expected positive persona counts, got {text!r}")
    return sizes


if __name__ == "__main__":
    main()
