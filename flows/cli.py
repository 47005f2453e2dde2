"""The `lifeloom` command: building and querying here; the release commands in flows/cli_releases.py, `plan` and the
build's cost check in flows/cli_plan.py."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from flows.cli_common import (
    DEFAULT_HOME,
    DebugOpt,
    HomeOpt,
    QuietOpt,
    VerifyOpt,
    _csv,
    _quiet_prefect,
    app,
    err,
    fail,
    out,
    resolve_config,
)
from schemas.config import BuildConfig, load_preset, preset_names

EXAMPLE_QUERIES = (
    "select category, count(*) as n from latest.questions group by all order by n desc",
    "select q.question, q.answer, e.evidence_id from latest.questions q "
    "join latest.question_evidence e using (question_id) limit 5",
    "select persona_id, count(*) as turns, min(timestamp) as first, max(timestamp) as last "
    "from latest.turns group by all order by persona_id",
)


@app.command()
def build(
    preset: Annotated[str | None, typer.Option(help=f"Named preset ({', '.join(preset_names())}).")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML config file.")] = None,
    home: HomeOpt = DEFAULT_HOME,
    version: Annotated[str | None, typer.Option(help="Release version (default: next vNNNN).")] = None,
    runner: Annotated[str | None, typer.Option(help="Task runner: default, or dask (LocalCluster).")] = None,
    dask_address: Annotated[str | None, typer.Option(help="Existing Dask scheduler (implies --runner dask).")] = None,
    force_new_version: Annotated[bool, typer.Option(
        "--force-new-version", help="Freeze a new version even when the content equals the latest release's.")]
    = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Start a paid build whose plan costs more than [limits] max_cost_usd (or whose price is "
                            "unknown) without asking.")] = False,
) -> None:
    """Build, gate and freeze a corpus with the build_corpus flow (Prefect local mode). A build whose content equals
    the latest release of its name freezes nothing and says which release it matches. A build on a paid provider
    prints its plan first (`lifeloom plan`) and asks before spending more than [limits] max_cost_usd."""
    cfg = with_runner(resolve_config(preset, config), runner, dask_address)
    from flows.limits import LimitExceeded, check_limits
    from tasks.llm.preflight import ProviderUnavailable, check_providers
    from tasks.world.profile import persona_ids
    from warehouse.paths import HomeError, prepare_home

    try:
        check_limits(cfg, len(persona_ids(cfg)))
    except LimitExceeded as exc:
        fail(str(exc))
    from flows.tiers import check_tokenizer
    from schemas.tiers import TierError

    try:
        check_tokenizer(cfg)
    except TierError as exc:
        fail(str(exc))
    try:
        check_providers(cfg)
    except ProviderUnavailable as exc:
        fail(str(exc))

    from flows.cli_plan import approve_cost
    from flows.plan import paid_stages

    if paid_stages(cfg):
        approve_cost(cfg, home, yes)
    try:
        layout = prepare_home(home)
    except HomeError as exc:
        fail(str(exc))
    from warehouse.release import check_version_name

    try:
        check_version_name(version)
    except ValueError as exc:
        fail(str(exc))
    if version and layout.release_dir(cfg.name, version).exists():
        orphan = not (layout.release_dir(cfg.name, version) / "manifest.json").is_file()
        fail(f"release {cfg.name}/{version} already exists; releases are never overwritten" + (
            " (the folder has no manifest.json: `lifeloom prune` removes it)" if orphan else ""))
    _quiet_prefect(quiet, debug)
    from flows.runner import run_build

    result = run_build(cfg, layout, version, out, freeze_if_unchanged=force_new_version or version is not None)
    if result.error:
        fail(result.error, code=2 if result.bad_input else 1)
    if result.release_path is None:
        out.print(f"unchanged, matches {result.matched}: nothing frozen (--force-new-version freezes a new version "
                  "anyway)", highlight=False, soft_wrap=True)
        return
    _print_release(result.release_path, home)


def with_runner(cfg: BuildConfig, runner: str | None, address: str | None) -> BuildConfig:
    """The config with the CLI's runner choice applied (the config's [runner] table otherwise)."""
    if runner not in (None, "default", "dask"):
        fail(f"unknown runner {runner!r}; use default or dask")
    if runner is None and address is None:
        return cfg
    kind = "dask" if address else runner
    if kind == "dask":
        import importlib.util

        if importlib.util.find_spec("prefect_dask") is None:
            fail("--runner dask needs prefect-dask: pip install prefect-dask")
    update = {"kind": kind, "address": address or cfg.runner.address}
    return cfg.model_copy(update={"runner": cfg.runner.model_copy(update=update)})


def _command_name() -> str:
    """How to call lifeloom again: plain `lifeloom` when it is on PATH, else the path it was run by."""
    import shutil

    if shutil.which("lifeloom") or not sys.argv or not sys.argv[0].endswith("lifeloom"):
        return "lifeloom"
    return os.path.relpath(sys.argv[0])


def _print_release(path: Path, home: Path) -> None:
    out.print(f"\n[bold green]Released[/] {path}", soft_wrap=True, highlight=False)
    out.print("Query it (the catalog opens read-only, so queries work while a build runs):")
    where = "" if home == DEFAULT_HOME else f" --home {shlex.quote(str(home))}"
    for q in EXAMPLE_QUERIES:
        out.print(f'  {_command_name()} sql "{q}"{where}', highlight=False, soft_wrap=True)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL over the catalog views (schema latest = last good run).")],
    home: HomeOpt = DEFAULT_HOME,
    limit: Annotated[int | None, typer.Option(min=1, help="Rows to print at most (default: every row).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
) -> None:
    """Run a query against the warehouse catalog and print every row of the result (or `--limit` of them, saying
    so when there were more)."""
    import duckdb

    from warehouse.catalog import CatalogMissing, QueryRefused, check_query, open_query_session
    from warehouse.paths import Layout

    if not query.strip():
        fail("the query is empty")
    if fmt not in ("table", "csv", "json"):
        fail(f"unknown --format {fmt!r}; use table, csv or json")
    try:
        check_query(query)
        con = open_query_session(Layout(home.expanduser().absolute()))
    except (CatalogMissing, QueryRefused) as exc:
        fail(str(exc))
    try:
        rel = con.execute(query)
        if rel.description is None:
            fail("the statement returned no result set", code=1)
        columns = [d[0] for d in rel.description]
        rows = rel.fetchall() if limit is None else rel.fetchmany(limit + 1)
    except duckdb.Error as exc:
        fail(f"query failed: {exc}", code=1)
    finally:
        con.close()
    _print_rows(columns, rows, limit, fmt)


def _print_rows(columns: list[str], rows: list[tuple], limit: int | None, fmt: str) -> None:
    """Every row in `fmt` (the first `limit`); a limit that cut rows is stated: on stdout under a table, on stderr
    for csv and json, whose stdout stays data."""
    shown = rows if limit is None else rows[:limit]
    cut = limit is not None and len(rows) > limit
    if fmt == "csv":
        import csv

        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(shown)
    elif fmt == "json":
        import json

        sys.stdout.write(json.dumps([dict(zip(columns, r, strict=True)) for r in shown], default=str, indent=2) + "\n")
    else:
        table = Table(*columns, show_lines=False)
        for row in shown:
            table.add_row(*("" if v is None else str(v) for v in row))
        out.print(table)
        out.print(f"{len(shown)} row(s)" + (f" (--limit {limit}; more rows not shown)" if cut else ""))
    if cut and fmt != "table":
        err.print(f"note: --limit {limit}: the first {limit} rows; more rows not shown", highlight=False)


@app.command()
def presets() -> None:
    """List the bundled presets."""
    for name in preset_names():
        cfg = load_preset(name)
        out.print(f"{name}: {cfg.personas} personas, {cfg.days} days from {cfg.start_date}, "
                  f"provider {cfg.provider.name}")


@app.command()
def gates(
    run: Annotated[str | None, typer.Option("--run", help="Run id (default: the latest run).")] = None,
    home: HomeOpt = DEFAULT_HOME,
) -> None:
    """Re-run every gate suite on a landed run; print failed expectations; exit 1 when any fails."""
    from flows.gatecheck import check_run

    code = check_run(home.expanduser().absolute(), run, out)
    if code:
        raise typer.Exit(code)


@app.command(name="eval")
def eval_release(
    release: Annotated[str, typer.Option("--release", help="Release to evaluate: name/version or a release folder.")],
    systems: Annotated[str | None, typer.Option(
        help="Comma-separated systems (questions: no_memory,recency,bm25,oracle; also full_context, random, dense, "
             "hybrid, broken_oracle and the adversarial baselines answer_prior, question_only, bm25_copy, "
             "pattern_memory, oracle_copy; chat: "
             "bm25,recency,random,oracle,broken_oracle).")] = None,
    settings: Annotated[str, typer.Option(help="Comma-separated settings: turns, chunks, both.")] = "turns",
    k: Annotated[str | None, typer.Option("--k", help="Comma-separated k values (questions: 5,20,50; chat: 1,5,20).")]
    = None,
    track: Annotated[str, typer.Option(help="questions, chat (probes) or reconstruction (profiles).")] = "questions",
    predictor: Annotated[str, typer.Option(help="reconstruction: built-in predictor gold, stale or empty.")] = "gold",
    predictions: Annotated[Path | None, typer.Option(
        help="reconstruction: JSONL file of persona_id, subject, attribute, value rows (optional temporality, "
             "evidence_turn_ids) to score instead.")] = None,
    provider: Annotated[str, typer.Option(help="Reader/judge provider: offline, openai or anthropic.")] = "offline",
    model: Annotated[str | None, typer.Option(help="Model name for a real provider.")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the API key.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Provider base URL.")] = None,
    majority: Annotated[bool, typer.Option(help="Judge long answers by the majority of three judges.")] = False,
    tiers: Annotated[str | None, typer.Option(
        "--tiers", help="questions: comma-separated length tiers of the release (e.g. 32k,128k,1M, or `all`): score "
                        "each tier and plot the length curve.")] = None,
    home: HomeOpt = DEFAULT_HOME,
    verify: VerifyOpt = True,
) -> None:
    """Evaluate retrieval systems and a reader on a frozen release; writes results and a report beside it."""
    _quiet_prefect()
    from pydantic import ValidationError

    from flows.evaluate import TRACKS, check_request
    from schemas.config import ProviderConfig, describe_validation_error
    from warehouse.diff import resolve_release
    from warehouse.paths import Layout

    if track not in TRACKS:
        fail(f"unknown --track {track!r}; use {', '.join(TRACKS)}")
    if track != "questions":
        _eval_companion(release, track, systems, k, predictor, predictions, home, verify)
        return
    from flows.evaluate import expand_systems

    chosen = (expand_systems(_csv("no_memory,recency,bm25,oracle" if systems is None else systems, "systems")),
              _csv(settings, "settings"), _csv("5,20,50" if k is None else k, "k", int))
    try:
        check_request(*chosen)
        fields = {"name": provider} | ({"model": model} if model else {})
        fields |= {key: v for key, v in (("api_key_env", api_key_env), ("base_url", base_url)) if v}
        reader = ProviderConfig(**fields)
        resolve_release(Layout(home.expanduser().absolute()), release, verify)
    except ValidationError as exc:  # never str(exc): pydantic quotes the input, a URL's query string included
        fail(f"bad provider options: {describe_validation_error(exc)}")
    except ValueError as exc:
        fail(str(exc).splitlines()[0])
    if tiers is not None:
        _eval_tiers(release, tiers, chosen, reader, majority, home)
        return
    from flows.evaluate import evaluate_release

    result = evaluate_release(release=release, systems=chosen[0], settings=chosen[1], ks=chosen[2],
                              home=str(home.expanduser().absolute()), provider=reader, majority=majority,
                              verify=False)  # verified above; the flow still checks sizes
    table = Table("system", "setting", "k", "hit@5", "recall@20", "mrr", "accuracy")
    for row in result["summary"]["by_system"]:
        table.add_row(row["system"], row["setting"], str(row["k"]),
                      *[("–" if row[c] is None else f"{row[c]:.3f}") for c in ("hit_at_5", "recall_at_20", "mrr",
                                                                                "accuracy")])
    out.print(table)
    out.print(f"eval {result['eval_id']}: {result['path']}\nreport: {result['report']}")


def _eval_tiers(release: str, tiers: str, chosen: tuple, reader, majority: bool, home: Path) -> None:
    """`lifeloom eval --tiers`: check the tiers against the release, score each, print the curve."""
    from flows.evaluate import evaluate_tiers
    from schemas.tiers import TierError, tier_budget, tier_name
    from tasks.tiers.view import tier_names
    from warehouse.diff import resolve_release
    from warehouse.evaluation import load_tiers
    from warehouse.paths import Layout

    have = tier_names(load_tiers(resolve_release(Layout(home.expanduser().absolute()), release, False))[0])
    asked = have if tiers.strip() == "all" else _csv(tiers, "tiers")
    try:
        asked = [tier_name(tier_budget(t)) for t in asked]
    except TierError as exc:
        fail(str(exc))
    missing = [t for t in asked if t not in have]
    if missing or not asked:
        fail(f"the release has no tier {missing[0]!r}; its tiers: {', '.join(have) or 'none'}" if missing else
             "the release has no tiers (build it with [release] tiers)")
    result = evaluate_tiers(release=release, tiers=asked, systems=chosen[0], settings=chosen[1], ks=chosen[2],
                            home=str(home.expanduser().absolute()), provider=reader, majority=majority, verify=False)
    table = Table("tier", "system", "setting", "k", "n", "hit@5", "recall@20", "accuracy")
    for row in result["curve"]:
        table.add_row(row["tier"], row["system"], row["setting"], str(row["k"]), str(row["n"]),
                      *[("–" if row[c] is None else f"{row[c]:.3f}") for c in ("hit_at_5", "recall_at_20", "accuracy")])
    out.print(table)
    out.print(f"eval {result['eval_id']}: {result['path']}\nreport: {result['report']}")


def _eval_companion(release: str, track: str, systems: str | None, k: str | None, predictor: str,
                    predictions: Path | None, home: Path, verify: bool = True) -> None:
    """`lifeloom eval --track chat|reconstruction`: check the request, run the flow, print the summary."""
    from flows.evaluate import evaluate_companion

    names, ks, rows = _companion_request(release, systems, k, predictor, predictions, home, verify)
    try:
        result = evaluate_companion(release=release, track=track, systems=names, ks=ks,
                                    home=str(home.expanduser().absolute()), predictor=predictor, predictions=rows,
                                    predictions_label=predictions.name if predictions else "", verify=False)
    except ValueError as exc:  # e.g. a prediction for a persona the release does not have
        fail(str(exc))
    summary = result["summary"]
    if track == "chat":
        cols = [f"hit_at_{x}" for x in summary["ks"]] + ["mrr", "misfire_rate", f"appropriate_at_{summary['ks'][-1]}",
                                                          "auroc"]
        table = Table("system", *cols)
        for row in summary["by_system"]:
            table.add_row(row["system"], *[("–" if row[c] is None else f"{row[c]:.3f}") for c in cols])
        out.print(table)
    else:
        micro = summary["micro"]
        out.print(f"reconstruction ({summary['predictor']}): precision {micro['precision']:.3f}, recall "
                  f"{micro['recall']:.3f}, F1 {micro['f1']:.3f} over {summary['personas']} personas", highlight=False)
    out.print(f"eval {result['eval_id']}: {result['path']}\nreport: {result['report']}")


def _companion_request(release: str, systems: str | None, k: str | None, predictor: str, predictions: Path | None,
                       home: Path, verify: bool = True) -> tuple[list[str] | None, list[int] | None, list[dict] | None]:
    """The checked systems, ks and prediction rows of a companion evaluation; one message and exit 2 if bad."""
    from tasks.evaluate import companion
    from warehouse.diff import resolve_release
    from warehouse.paths import Layout

    names = None if systems is None else _csv(systems, "systems")
    ks = None if k is None else _csv(k, "k", int)
    try:
        path = resolve_release(Layout(home.expanduser().absolute()), release, verify)
        if names is not None:
            companion.check_systems(names)
        if ks is not None and (not ks or min(ks) < 1):
            raise ValueError(f"k must be positive integers, got {k!r}")
        if predictor not in companion.PREDICTORS:
            raise ValueError(f"unknown --predictor {predictor!r} (choose from {', '.join(companion.PREDICTORS)})")
        rows = None
        if predictions is not None:
            if not predictions.is_file():
                raise ValueError(f"--predictions {str(predictions)!r} is not a file")
            rows = companion.parse_predictions(predictions.read_text(encoding="utf-8").splitlines(), str(predictions))
        if not (path / "chat_probes.parquet").is_file():
            raise ValueError(f"release {release!r} has no companion tracks (chat_probes.parquet); build it with "
                             "[stages.companion] enabled = true")
    except (ValueError, UnicodeDecodeError) as exc:
        fail(str(exc))
    return names, ks, rows


@app.command()
def metrics(
    release: Annotated[list[str], typer.Option("--release", help="Release to measure: NAME/VERSION or a folder "
                                               "(repeat for more columns).")],
    reference: Annotated[list[str] | None, typer.Option(
        "--reference", help="Corpus to measure beside it: a release, a run id or import name, or FORMAT:PATH "
                            "(e.g. rhelm:tests/fixtures/rhelm_sample), read without landing.")] = None,
    bundled: Annotated[bool, typer.Option("--bundled-reference/--no-bundled-reference",
                                          help="Add the bundled RHELM excerpt's column.")] = True,
    fmt: Annotated[str, typer.Option("--format", help="table, markdown or json.")] = "table",
    categories: Annotated[bool, typer.Option("--categories/--no-categories",
                                             help="Include the per-category baseline rows.")] = True,
    home: HomeOpt = DEFAULT_HOME,
    verify: VerifyOpt = True,
) -> None:
    """Validity measures (language, facts, coherence, questions, difficulty) of releases beside references: one
    row per measure, one column per corpus and the default gate, then what the baselines say about each corpus."""
    from tasks.metrics import report
    from warehouse.measurepool import measure_ref
    from warehouse.measures import load_reference
    from warehouse.paths import Layout

    if fmt not in ("table", "markdown", "json"):
        fail(f"unknown --format {fmt!r}; use table, markdown or json")
    layout = Layout(home.expanduser().absolute())
    measured: dict[str, list] = {}
    for ref in [*release, *(reference or [])]:
        try:
            measured[ref] = measure_ref(layout, ref, verify)
        except ValueError as exc:
            fail(str(exc))
    columns = {ref: {r.measure: r.value for r in rows} for ref, rows in measured.items()}
    bundled_ref = load_reference() if bundled else None
    if bundled_ref:
        columns[f"{bundled_ref['name']} (bundled)"] = {r["measure"]: r["value"] for r in bundled_ref["rows"]}
    if fmt == "json":
        import json

        out.print_json(json.dumps({ref: [r.model_dump(mode="json") for r in report.ordered(rows)]
                                   for ref, rows in measured.items()} | (
            {f"{bundled_ref['name']} (bundled)": bundled_ref["rows"]} if bundled_ref else {})))
        return
    gates = report.default_thresholds()
    if fmt == "markdown":
        out.print(report.markdown(columns, gates, categories, "default gate"), highlight=False, soft_wrap=True)
    else:
        table = Table("", *columns, "default gate")
        table.add_column("measure", no_wrap=True, min_width=44)
        table.columns.insert(0, table.columns.pop())
        for row in report.table_rows(columns, gates, categories):
            table.add_row(*row)
        out.print(table)
    for ref, rows in measured.items():
        found = report.verdicts(rows)
        out.print(f"\n{ref}: " + ("no baseline solves items far above chance" if not found else
                                   "not measuring memory where baselines solve items far above chance:"),
                  highlight=False, soft_wrap=True)
        for line in found:
            out.print(f"  - {line}", highlight=False, soft_wrap=True)


from flows import cli_plan, cli_releases  # noqa: E402, F401  (register their commands after these)


def main() -> None:
    from flows.memory import wanted_arenas

    try:
        wanted_arenas()
    except ValueError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    app()


if __name__ == "__main__":
    main()
