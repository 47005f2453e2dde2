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


SHOWN = 20
"""Items of each kind `lifeloom diff` lists (all of them with --format json)."""


def print_diff(home: Path, a: str, b: str, out: Console, fmt: str = "table") -> None:
    """Print the differences between releases `a` and `b` (name/version or folders): per table rows and whether
    its content changed, then the questions compared by content (warehouse/diff.py)."""
    import dataclasses

    from warehouse.diff import diff_releases, resolve_release
    from warehouse.paths import Layout

    layout = Layout(home)
    d = diff_releases(resolve_release(layout, a), resolve_release(layout, b))
    if fmt == "json":
        out.print_json(json.dumps(dataclasses.asdict(d)))
        return
    out.print(f"A: {d.a}\nB: {d.b}\ncontent: {'identical' if d.same_content else 'different'}", highlight=False)
    counts = Table("table", "A", "B", "change", "content")
    for table, (na, nb) in d.row_counts.items():
        counts.add_row(table, str(na), str(nb), f"{nb - na:+d}" if nb != na else "",
                       "changed" if table in d.changed_tables else "same")
    out.print(counts)
    out.print(f"questions (compared by derivation and text, not id): {d.unchanged} unchanged, {len(d.reworded)} "
              f"reworded, {len(d.reanswered)} re-answered, {len(d.added)} added, {len(d.removed)} removed"
              + (f"; {d.reused_ids} ids name a different question in B" if d.reused_ids else ""), highlight=False)
    sections = (("added", [f"{q}: {escape(t)}" for q, t in d.added]),
                ("removed", [f"{q}: {escape(t)}" for q, t in d.removed]),
                ("reworded", [f"{x} -> {y}: {escape(ta)!r} -> {escape(tb)!r}" for x, y, ta, tb in d.reworded]),
                ("re-answered", [f"{x} -> {y}: {escape(t)} {escape(aa)!r} -> {escape(ab)!r}"
                                 for x, y, t, aa, ab in d.reanswered]))
    for name, lines in sections:
        if lines:
            out.print(f"{name} ({len(lines)}):", highlight=False)
            for line in lines[:SHOWN]:
                out.print(f"  {line}", highlight=False, soft_wrap=True)
            if len(lines) > SHOWN:
                out.print(f"  ... {len(lines) - SHOWN} more (--format json lists all)", highlight=False)
