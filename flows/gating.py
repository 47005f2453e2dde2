"""The `gate` task of `build_corpus`: run the release suites, land their results, publish them, and end Failed
when an expectation fails (a report of an earlier run with equal tables is reused)."""

from __future__ import annotations

import shutil
from typing import Any

from prefect import get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.states import Failed, State

from flows import progress
from flows.fingerprint import gate_fingerprint
from flows.fingerprint import refresh_requested as _refresh
from schemas.audit import GateResult
from schemas.config import BuildConfig
from schemas.tables import TIER_TABLES
from validation.gates import GateReport, run_gates
from warehouse import landing, release
from warehouse.catalog import session
from warehouse.parquet import land_rows
from warehouse.paths import Layout


class GateFailed(RuntimeError):
    """The release gates failed; the message names the failed expectations, each with observed and threshold."""


@task(name="gate", task_run_name="gate {run_id}", cache_policy=NO_CACHE, persist_result=False)
def gate(layout: Layout, run_id: str, config: BuildConfig, figures: dict[str, Any]) -> GateReport | State:
    """Run the release suites over the run's tables; land gate_results, write Data Docs, publish the report.
    A report is reused when the gated tables' content hashes (`figures`, and the tier tables') and the config are
    unchanged. When an
    expectation fails, the task ends Failed (its message names each failure with what was observed against what)
    and carries the report as its data: the flow reads it with `result(raise_on_failure=False)`."""
    con = session(layout, run_id)
    try:
        # the length tiers are built after the figures: their content keys the report too
        tiers = release.content_hashes(con, run_id, TIER_TABLES)
        key = gate_fingerprint(config, {**figures["table_hashes"], **tiers})
        report = None if _refresh() else _cached_gates(layout, key, run_id)
        if report is None:
            report = run_gates(con, run_id, config=config, docs_dir=layout.gate_docs(run_id))
            _save_gates(layout, key, report)
    finally:
        con.close()
    land_rows(layout, "gate_results", report.results, run_id)
    create_markdown_artifact(key="gate-report", markdown=report.markdown(), description="Release gate results")
    failed = [_failure_row(r) for r in report.failed()]
    if failed:
        create_table_artifact(key="failed-expectations", table=failed, description="Failed expectations")
    progress.report(progress.Event("gate", "all", ok=report.success))
    if not report.success:
        return Failed(message=report.failure_message(), data=report)
    return report


def _gate_cache(layout: Layout, key: str):
    return layout.prefect_cache / "gates" / f"{key}.json"


def _cached_gates(layout: Layout, key: str, run_id: str) -> GateReport | None:
    """The report of an earlier run whose gated tables had the same content, with its Data Docs copied over; None
    when there is none, or when that run's Data Docs are gone (`lifeloom prune` removes them): the gates then run
    again, so a release is never frozen without the Data Docs its card links."""
    path = _gate_cache(layout, key)
    try:
        earlier = GateReport.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None
    docs = layout.gate_docs(earlier.run_id)
    if not (docs / "index.html").is_file():
        get_run_logger().info("gates: run %s's report matches but its Data Docs were pruned; gating again",
                              earlier.run_id)
        return None
    if not layout.gate_docs(run_id).exists():
        shutil.copytree(docs, layout.gate_docs(run_id))
    get_run_logger().info("gates: tables equal to run %s's, reusing its report", earlier.run_id)
    return earlier.model_copy(update={"run_id": run_id})


def _save_gates(layout: Layout, key: str, report: GateReport) -> None:
    landing.write_text(_gate_cache(layout, key), report.model_dump_json(exclude={"success"}))


def _failure_row(result: GateResult) -> dict[str, Any]:
    """A row of the `failed-expectations` artifact: every field a reader needs, samples unclipped."""
    return {"suite": result.suite, "expectation": result.expectation, "unexpected": result.unexpected_count,
            "observed": "; ".join(result.observed), "threshold": result.threshold, "note": result.note,
            "sample": ", ".join(map(str, result.sample))}
