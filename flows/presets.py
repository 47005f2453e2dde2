"""`make presets` (`python -m flows.presets`): build every shipped preset, each in a fresh data root, each with its
own gates, and fail when any build fails.

The presets are whatever `schemas/presets/*.toml` holds (`schemas.config.preset_names()`), never a list kept
here. Each is built by the real command, `lifeloom build --preset NAME --home <fresh temporary dir> --quiet`, one
after the other (a build already uses both cores). For each the runner prints the wall time, the gate expectations
passed of those run (read from the run's `gate_results` in that data root) and the release path; a build that
exits non-zero is a failure, reported with the expectations that failed (the build's own `error:` message, which
names each with what was observed) and the path of its log. The run ends with one line per preset and exits 1 when
any failed, 0 otherwise.

Every data root is kept (the printed release paths stay valid; a failed one is there for `lifeloom sql --home DIR` and
`lifeloom gates --home DIR`); `--clean` removes those of the presets that passed. `--only tiny,demo` builds some
presets; `--root DIR` puts the data roots and logs there (default: a new temporary directory).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from schemas.config import preset_names

Command = Callable[[str, Path], list[str]]


def build_command(name: str, home: Path) -> list[str]:
    """`lifeloom build` of preset `name` into `home`: the lifeloom installed beside this Python."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    return [str(lifeloom), "build", "--preset", name, "--home", str(home), "--quiet"]


@dataclass
class Outcome:
    """One preset's build: its exit code, wall time, gate counts (None when no gates ran), release and failures."""

    name: str
    code: int
    seconds: float
    home: Path
    log: Path
    passed: int | None = None
    total: int | None = None
    release: Path | None = None
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.code == 0

    def gates(self) -> str:
        return "gates n/a" if self.total is None else f"gates {self.passed}/{self.total}"

    def line(self) -> str:
        status = "ok" if self.ok else f"FAILED (exit {self.code})"
        where = str(self.release) if self.release else f"no release (data root {self.home})"
        return f"{self.name:<10} {status:<16} {self.seconds:7.1f} s  {self.gates():<13} {where}"


def gate_counts(home: Path) -> tuple[int, int, Path | None] | None:
    """(passed, total, release path) of the latest finished run under `home`; None when it holds no run."""
    if not (home / "tables" / "runs").exists():
        return None
    from flows.gatecheck import latest_run
    from warehouse.catalog import session
    from warehouse.paths import Layout

    con = session(Layout(home))
    try:
        run = latest_run(con)
        if run is None:
            return None
        passed, total = con.execute("select count(*) filter (where success), count(*) from gate_results "
                                    "where run_id = ?", [run]).fetchone()
        row = con.execute("select path from releases where run_id = ?", [run]).fetchone()
    finally:
        con.close()
    return int(passed), int(total), Path(row[0]) if row and row[0] else None


def failures_of(output: str) -> list[str]:
    """The build's failure message: its `error:` line and the lines after it (one per failed expectation)."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("error:")), None)
    if start is None:
        return [line for line in lines[-5:] if line.strip()]
    return [line for line in lines[start:] if line.strip()]


def run_preset(name: str, root: Path, command: Command = build_command) -> Outcome:
    """Build preset `name` in a fresh data root under `root`, its output kept in `<root>/<name>.log`."""
    home = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=root))
    log = root / f"{name}.log"
    started = time.monotonic()
    with log.open("w") as sink:
        code = subprocess.run(command(name, home), stdout=sink, stderr=subprocess.STDOUT, check=False,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"}).returncode
    outcome = Outcome(name, code, time.monotonic() - started, home, log)
    found = gate_counts(home)
    if found is not None:
        outcome.passed, outcome.total, outcome.release = found
    if outcome.release is None and code == 0:  # a build gates and freezes, or says it matched a release
        releases = sorted((home / "releases" / name).glob("v*")) if (home / "releases" / name).is_dir() else []
        outcome.release = releases[-1] if releases else None
    if code != 0:
        outcome.failures = failures_of(log.read_text(errors="replace"))
    return outcome


def run_all(names: Sequence[str], root: Path, command: Command = build_command, clean: bool = False,
            say: Callable[[str], None] = print) -> list[Outcome]:
    """Build each preset of `names` in turn (`run_preset`), saying how each went; with `clean`, a passed preset's
    data root is removed."""
    outcomes = []
    for name in names:
        say(f"presets: building {name} ...")
        outcome = run_preset(name, root, command)
        say(f"presets: {outcome.line()}")
        if not outcome.ok:
            say(f"presets: {name} failed; log {outcome.log}, data root kept at {outcome.home}")
            for line in outcome.failures:
                say(f"  {line}")
        elif clean:
            shutil.rmtree(outcome.home, ignore_errors=True)
        outcomes.append(outcome)
    return outcomes


def summary(outcomes: Sequence[Outcome]) -> str:
    """One line per preset (a failed one followed by its failed expectations), then the verdict naming the failed
    presets."""
    failed = [o.name for o in outcomes if not o.ok]
    verdict = f"FAILED: {', '.join(failed)}" if failed else f"all {len(outcomes)} presets passed"
    lines = [line for o in outcomes for line in (f"  {o.line()}", *(f"    {f}" for f in o.failures))]
    return "\n".join(["presets summary:", *lines, f"presets: {verdict}"])


def main(argv: Sequence[str] | None = None, command: Command = build_command) -> int:
    """Build the presets; 0 when every build passed its gates, 1 when one failed, 2 for an unknown preset.
    `command` makes the build command line of a preset and data root (tests pass a stub)."""
    parser = argparse.ArgumentParser(prog="python -m flows.presets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated presets (default: every shipped preset)")
    parser.add_argument("--root", type=Path, default=None, help="where the data roots go (default: a temp dir)")
    parser.add_argument("--clean", action="store_true", help="remove the data roots of the presets that passed")
    args = parser.parse_args(argv)
    known = preset_names()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or known
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"error: unknown preset(s) {', '.join(unknown)}; the presets are {', '.join(known)}", file=sys.stderr)
        return 2
    root = args.root or Path(tempfile.mkdtemp(prefix="lifeloom-presets-"))
    root.mkdir(parents=True, exist_ok=True)
    outcomes = run_all(names, root, command, clean=args.clean)
    print(summary(outcomes))
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
