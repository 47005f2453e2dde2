"""The CLI's `gates` and `diff` commands: re-run the suites on a landed run; compare two releases."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from schemas.config import BuildConfig


def latest_run(con) -> str | None:
    """The most recently started run that finished (succeeded or failed); a running build is skipped."""
    row = con.execute("select run_id from runs where status <> 'running' "
                      "order by started_at desc, run_id desc limit 1").fetchone()
    return row[0] if row else None


def run_config(layout, run_id: str) -> BuildConfig | None:
    """The config the run was built with, when it was kept."""
    path = layout.run_config(run_id)
    return BuildConfig.model_validate(json.loads(path.read_text())) if path.is_file() else None


def check_run(home: Path, run: str | None, out: Console) -> int:
    """Run every suite on `run` (default: latest) and print the failures; 0 when all pass, 1 if any
    fails, 2 when there is no such run."""
    from validation.gates import run_gates
    from warehouse.catalog import session
    from warehouse.paths import Layout

    layout = Layout(home)
    con = session(layout)
    try:
        run = run or latest_run(con)
        known = run and con.execute("select count(*) from runs where run_id = ?", [run]).fetchone()[0]
    finally:
        con.close()
    if not known:
        out.print(f"no run {run!r} under {home}" if run else f"no runs under {home}")
        return 2
    con = session(layout, run)  # views over this run's partitions only
    try:
        report = run_gates(con, run, config=run_config(layout, run))
    finally:
        con.close()
    s = report.summary()
    out.print(f"run {run}: {s['passed']} of {s['expectations']} expectations passed", highlight=False)
    if report.success:
        return 0
    table = Table("suite", "expectation", "unexpected", "sample ids", "note")
    for r in report.failed():
        table.add_row(r.suite, escape(r.expectation), str(r.unexpected_count),
                      escape(", ".join(map(str, r.sample))), escape(report.notes.get(r.expectation, "")))
    out.print(table)
    return 1


def print_diff(home: Path, a: str, b: str, out: Console) -> None:
    """Print the differences between releases `a` and `b` (name/version or folders)."""
    from warehouse.diff import diff_releases, resolve_release
    from warehouse.paths import Layout

    layout = Layout(home)
    d = diff_releases(resolve_release(layout, a), resolve_release(layout, b))
    out.print(f"A: {d.a}\nB: {d.b}\ncontent: {'identical' if d.same_content else 'different'}", highlight=False)
    counts = Table("table", "A", "B", "change")
    for table, (na, nb) in d.row_counts.items():
        counts.add_row(table, str(na), str(nb), f"{nb - na:+d}" if nb != na else "")
    out.print(counts)
    out.print(f"questions added ({len(d.added)}): {', '.join(d.added) or '-'}", highlight=False)
    out.print(f"questions removed ({len(d.removed)}): {', '.join(d.removed) or '-'}", highlight=False)
    out.print(f"changed answers ({len(d.changed_answers)}):", highlight=False)
    for qid, old, new in d.changed_answers:
        out.print(f"  {qid}: {escape(old)!r} -> {escape(new)!r}", highlight=False)
