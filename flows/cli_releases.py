"""`lifeloom` commands over frozen releases: releases, verify, diff, publish, prune, export and import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from flows.cli_common import DEFAULT_HOME, HomeOpt, VerifyOpt, _print_issues, _reading, app, err, fail, out


@app.command()
def releases(home: HomeOpt = DEFAULT_HOME, verify: VerifyOpt = True) -> None:
    """List frozen releases: version, created, content hash, question count, integrity status, path; then the
    orphan version folders (no manifest) every reader skips. Exit 1 when a release is damaged."""
    from warehouse.diff import list_releases
    from warehouse.paths import Layout
    from warehouse.release import orphan_versions

    layout = Layout(home.expanduser().absolute())
    found = list_releases(layout, "hash" if verify else "size")
    orphans = orphan_versions(layout)
    if not found and not orphans:
        out.print(f"no releases under {layout.releases}")
        return
    table = Table()
    table.add_column("release", no_wrap=True)
    for name in ("created", "content hash", "questions", "withdrawn", "status"):
        table.add_column(name)
    table.add_column("path", overflow="fold")
    for r in found:
        table.add_row(f"{r['name']}/{r['version']}", r["created_at"][:19], r["content_hash"][:16], str(r["questions"]),
                      str(r["withdrawn"]), escape(r["status"]), r["path"])
    out.print(table)
    for path in orphans:
        out.print(f"orphan (no manifest.json, skipped): {path}; `lifeloom prune` removes it", highlight=False,
                  soft_wrap=True)
    if any(r["status"].startswith(("DAMAGED", "manifest.json")) for r in found):
        raise typer.Exit(1)


@app.command("view")
def view_cmd(
    release: Annotated[str, typer.Option("--release", help="Release to view: NAME/VERSION or a release folder.")],
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where to write the site (default: "
                                                 "<home>/views/NAME/VERSION; replaced whole).")] = None,
    serve: Annotated[bool, typer.Option("--serve", help="Serve the site on 127.0.0.1 until Ctrl-C.")] = False,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port for --serve (0: any free one).")] = 8765,
    home: HomeOpt = DEFAULT_HOME,
    verify: VerifyOpt = True,
) -> None:
    """Write a static, offline site that shows a release: overview, personas and how they changed, conversations with
    their fact mentions, documents, questions with their evidence in context, and search."""
    import json

    from warehouse.diff import resolve_release
    from warehouse.paths import Layout
    from warehouse.viewer import build_view

    layout = Layout(home.expanduser().absolute())
    try:
        folder = resolve_release(layout, release, verify)
    except ValueError as exc:
        fail(str(exc))
    manifest = json.loads((folder / "manifest.json").read_text())
    target = (out_dir or layout.view_dir(manifest["name"], manifest["version"])).expanduser().absolute()
    try:
        result = build_view(folder, target)
    except OSError as exc:
        fail(f"cannot write the viewer to {target}: {exc.strerror or exc}")
    out.print(f"Viewer of {manifest['name']}/{manifest['version']}: {result.pages} pages, {result.shards} data shards, "
              f"{result.bytes / 2**20:.1f} MiB at {target}", highlight=False, soft_wrap=True)
    out.print(f"open {(target / 'index.html').as_uri()}", highlight=False, soft_wrap=True)
    if serve:
        _serve(target, port)


def _serve(folder: Path, port: int) -> None:
    """Serve `folder` on 127.0.0.1 until interrupted."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # no line per request
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        fail(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}")
    out.print(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command("verify")
def verify_cmd(
    release: Annotated[list[str] | None, typer.Argument(help="Releases to check: NAME/VERSION or a folder.")] = None,
    all_releases: Annotated[bool, typer.Option("--all", help="Check every release under the data root.")] = False,
    home: HomeOpt = DEFAULT_HOME,
) -> None:
    """Check every file of a release against the size and SHA-256 its manifest recorded; exit 1 if any differs."""
    from warehouse.diff import find_release, list_releases
    from warehouse.integrity import verify_release
    from warehouse.paths import Layout

    layout = Layout(home.expanduser().absolute())
    refs = list(release or [])
    if all_releases:
        refs += [f"{r['name']}/{r['version']}" for r in list_releases(layout, "none")]
    if not refs:
        fail("name a release (NAME/VERSION) or pass --all")
    damaged = 0
    for ref in refs:
        try:
            folder = find_release(layout, ref)
        except ValueError as exc:
            fail(str(exc))
        result = verify_release(folder)
        if result.problems:
            damaged += 1
            out.print(f"{ref}: DAMAGED ({len(result.problems)} problem(s))", highlight=False)
            for problem in result.problems:
                out.print(f"  {escape(problem)}", highlight=False, soft_wrap=True)
        elif not result.recorded:
            out.print(f"{ref}: unverified: its manifest records no checksums (frozen before lifeloom verified "
                      "releases)", highlight=False)
        else:
            out.print(f"{ref}: ok ({result.files} files, sizes and SHA-256 match the manifest)", highlight=False)
    if damaged:
        raise typer.Exit(1)


@app.command()
def diff(
    a: Annotated[str, typer.Argument(help="Release A: name/version or a release folder.")],
    b: Annotated[str, typer.Argument(help="Release B: name/version or a release folder.")],
    home: HomeOpt = DEFAULT_HOME,
    fmt: Annotated[str, typer.Option("--format", help="table or json (every item).")] = "table",
) -> None:
    """Print what changed between two releases: rows and content per table; questions compared by content
    (derivation and text, never by id alone): unchanged, reworded, re-answered, added, removed."""
    from flows.gatecheck import print_diff

    if fmt not in ("table", "json"):
        fail(f"unknown --format {fmt!r}; use table or json")
    try:
        print_diff(home.expanduser().absolute(), a, b, out, fmt)
    except ValueError as exc:
        fail(str(exc))


@app.command("publish")
def publish_cmd(
    release: Annotated[str, typer.Argument(help="Release to publish: NAME/VERSION or a release folder.")],
    to: Annotated[str, typer.Option("--to", help="fsspec URL: s3://bucket/prefix, gs://..., az://..., file:///...")],
    home: HomeOpt = DEFAULT_HOME,
    verify: VerifyOpt = True,
) -> None:
    """Copy a frozen release to object storage (manifest last, never overwriting) and print how to query it."""
    from warehouse.diff import resolve_release
    from warehouse.paths import Layout
    from warehouse.publish import PublishError, publish_release

    try:
        done = publish_release(resolve_release(Layout(home.expanduser().absolute()), release, verify), to)
    except (ValueError, PublishError) as exc:
        fail(str(exc))
    out.print(f"Published {done.files} files ({done.bytes:,} bytes) to {done.url}", highlight=False, soft_wrap=True)
    out.print(f"Query it: duckdb -c \"select count(*) from '{done.url}/questions.parquet'\" "
              "(s3:// needs `install httpfs; load httpfs;` and credentials; deploy/README.md)",
              highlight=False, soft_wrap=True)


@app.command()
def prune(
    keep: Annotated[int | None, typer.Option("--keep", min=1, help="Runs to keep landed (the newest ones); "
                                             "without it only orphan and stale staging folders go.")] = None,
    home: HomeOpt = DEFAULT_HOME,
) -> None:
    """Delete orphan release folders (no manifest) and stale staging folders, and with --keep the landed
    partitions of all but the newest runs (frozen releases are never touched)."""
    from warehouse.catalog import refresh_catalog
    from warehouse.paths import Layout
    from warehouse.release import remove_orphans
    from warehouse.runs import prune_runs

    layout = Layout(home.expanduser().absolute())
    if not layout.home.is_dir():
        fail(f"no data root at {layout.home}")
    for path in remove_orphans(layout):
        out.print(f"removed {path} (no manifest: not a release)", highlight=False, soft_wrap=True)
    if keep is None:
        return
    if not layout.tables.is_dir():
        fail(f"no landed runs under {layout.home}")
    pruned = prune_runs(layout, keep)
    refresh_catalog(layout)
    for run_id, freed in pruned:
        out.print(f"pruned {run_id} ({freed / 1e6:.1f} MB)", highlight=False)
    out.print(f"{len(pruned)} run(s) pruned, {sum(f for _, f in pruned) / 1e6:.1f} MB freed; "
              f"the newest {keep} and the latest succeeded run are kept", highlight=False)


@app.command("export")
def export_cmd(
    release: Annotated[str, typer.Option("--release", help="Release to export: NAME/VERSION.")],
    fmt: Annotated[str, typer.Option("--format", help="hf, rhelm, locomo, longmemeval or companion.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Output folder (created; must be empty).")],
    home: HomeOpt = DEFAULT_HOME,
    verify: VerifyOpt = True,
    documents_as_sessions: Annotated[bool, typer.Option(
        "--documents-as-sessions", help="locomo, longmemeval: write each document as a session of its chunks, so "
        "questions whose evidence is in documents keep it.")] = False,
    dated_attachments: Annotated[bool, typer.Option(
        "--dated-attachments", help="rhelm: write an email file with no email for each attachment day without "
        "emails, so RHELM's evaluator (which dates attachments by those files) dates them.")] = False,
    tier: Annotated[str | None, typer.Option(
        "--tier", help="Export the release at one of its length tiers (e.g. 128k): each persona's tier history, "
        "haystack included, and the questions of that tier.")] = None,
) -> None:
    """Write a frozen release in another benchmark's format; print what the format could not hold."""
    from warehouse.interop import InteropError, export_release
    from warehouse.paths import Layout

    try:
        files, report = export_release(Layout(home.expanduser().absolute()), release, fmt, out_dir, verify,
                                       documents_as_sessions, dated_attachments, tier)
    except InteropError as exc:
        fail(str(exc))
    at = f" at tier {tier}" if tier else ""
    out.print(f"Exported {release}{at} as {fmt}: {len(files)} file(s) under {out_dir}", highlight=False,
              soft_wrap=True)
    _print_issues(report)


@app.command("import")
def import_cmd(
    path: Annotated[Path, typer.Argument(help="The benchmark: a RHELM folder, or a LoCoMo / LongMemEval JSON file.")],
    fmt: Annotated[str, typer.Option("--format", help="rhelm, locomo or longmemeval.")],
    name: Annotated[str, typer.Option("--name", help="Name of the run (lower-case letters, digits, - and _).")],
    home: HomeOpt = DEFAULT_HOME,
    gates: Annotated[bool, typer.Option("--gates/--no-gates", help="Run the gate suites on the imported run.")] = True,
    as_latest: Annotated[bool, typer.Option("--as-latest", help="Make the import `latest` (default: `latest` "
                                            "stays the newest build).")] = False,
) -> None:
    """Load an existing benchmark into the warehouse as a run; report what could not be mapped and which
    gates pass on it."""
    import re

    from warehouse.interop import InteropError, gate_summary, import_benchmark
    from warehouse.paths import HomeError, prepare_home

    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        fail(f"--name {name!r}: use lower-case letters, digits, - and _")
    try:
        layout = prepare_home(home)
        with _reading(path if path.is_file() else None, f"{fmt} benchmark"):
            result = import_benchmark(layout, fmt, path, name, as_latest)
    except (InteropError, HomeError) as exc:
        fail(str(exc))
    counts = ", ".join(f"{n} {t}" for t, n in result.counts.items())
    out.print(f"Imported {path} as run {result.run_id}: {counts}", highlight=False, soft_wrap=True)
    out.print("It is `latest` now (--as-latest)." if as_latest else
              f"`latest` is unchanged (the newest build); query the import with run_id = '{result.run_id}', or "
              "import it again with --as-latest.", highlight=False, soft_wrap=True)
    _print_issues(result.report)
    if gates:
        report, passed, failed = gate_summary(layout, result.run_id)
        out.print(f"Gates on {result.run_id}: {len(passed)} of {len(report.results)} expectations pass",
                  highlight=False)
        for label, names in (("pass", passed), ("FAIL", failed)):
            for n in names:
                out.print(f"  {label}  {escape(n)}", highlight=False, soft_wrap=True)


@app.command("signoff")
def signoff_cmd(
    release: Annotated[str, typer.Option("--release", help="Release to review: NAME/VERSION or a release folder.")],
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    show: Annotated[int, typer.Option(min=0, help="Findings to print per check (json prints every one).")] = 5,
    home: HomeOpt = DEFAULT_HOME,
) -> None:
    """Read every question of a release as a reviewer would, against its world and history (tasks/signoff/: voice,
    quoted titles, relation words, references, labels as gold, restriction scope, unique referents): the review a
    build runs in its verify stage, here for a release frozen earlier or imported. Exit 1 when it finds anything."""
    import json
    from collections import Counter

    from tasks.signoff import signoff
    from warehouse.diff import find_release
    from warehouse.paths import Layout
    from warehouse.persona_rows import persona_rows

    if fmt not in ("table", "json"):
        fail(f"unknown format {fmt!r}; use table or json")
    try:
        folder = find_release(Layout(home.expanduser().absolute()), release)
    except ValueError as exc:
        fail(str(exc))
    found, questions = [], 0
    with err.status(f"reading {folder}"):
        for rows in persona_rows(folder):
            questions += len(rows.questions.questions)
            found += signoff(rows.persona, rows.world, rows.corpus, rows.questions)
    if fmt == "json":
        print(json.dumps({"release": release, "questions": questions, "findings": [f.model_dump() for f in found]},
                         indent=2, ensure_ascii=False))
    else:
        counts = Counter(f.check for f in found)
        out.print(f"{release}: {questions} questions, {len(found)} sign-off finding(s)", highlight=False)
        for check, n in sorted(counts.items()):
            out.print(f"{check}: {n}", highlight=False)
            for f in [f for f in found if f.check == check][:show]:
                out.print(f"  {f.artifact_id}: {escape(f.message)}", highlight=False, soft_wrap=True)
    if found:
        raise typer.Exit(1)
