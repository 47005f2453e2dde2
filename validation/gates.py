"""The gate runner: computes each suite's frames, validates them with Great Expectations, reports.

Great Expectations reads pandas frames through one ephemeral context (never its SQLAlchemy path,
which is broken on DuckDB), with progress bars off. It is imported lazily, on the first gate run,
because importing it costs seconds.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
from pydantic import BaseModel, Field, computed_field

from schemas.audit import GateResult
from schemas.config import BuildConfig
from validation.docs import release_batches
from validation.suites import Check, Suite, all_suites

SAMPLE_SIZE = 10
DATASOURCE = "lifeloom"
_LOCK = threading.Lock()


class GateReport(BaseModel):
    """The results of every gate expectation for one run, and readable renderings of them."""

    run_id: str
    results: list[GateResult] = Field(default_factory=list)
    notes: dict[str, str] = Field(default_factory=dict)
    """Per expectation name: why it failed, when its sample alone does not say (e.g. "no questions")."""

    @computed_field
    @property
    def success(self) -> bool:
        return bool(self.results) and all(r.success for r in self.results)

    def failed(self) -> list[GateResult]:
        return [r for r in self.results if not r.success]

    def summary(self) -> dict[str, Any]:
        """Counts and failed names, for the release manifest and run records."""
        failed = self.failed()
        return {
            "success": self.success,
            "suites": sorted({r.suite for r in self.results}),
            "expectations": len(self.results),
            "passed": len(self.results) - len(failed),
            "failed": len(failed),
            "failed_expectations": [f"{r.suite}: {r.expectation}" for r in failed],
        }

    def _why(self, r: GateResult) -> str:
        """Count, what was observed against the threshold, sample ids (when not in the observed values), note."""
        parts = [f"{r.unexpected_count} unexpected"] if r.unexpected_count else []
        if r.observed:
            parts.append("observed " + "; ".join(r.observed[:3]) + (" ..." if len(r.observed) > 3 else ""))
        elif r.sample:
            parts.append("e.g. " + ", ".join(str(s) for s in r.sample))
        if r.threshold:
            parts.append(f"expected {r.threshold}")
        note = r.note or self.notes.get(r.expectation, "")
        if note:
            parts.append(note)
        return "; ".join(parts) or "failed"

    def failure_message(self) -> str:
        """One line per failed expectation, naming it with its count and sample ids."""
        failed = self.failed()
        if not self.results:
            return f"no gate expectations ran for run {self.run_id}"
        if not failed:
            return f"all {len(self.results)} gate expectations passed for run {self.run_id}"
        head = f"{len(failed)} of {len(self.results)} gate expectations failed for run {self.run_id}:"
        return "\n".join([head] + [f"- {r.suite}: {r.expectation} ({self._why(r)})" for r in failed])

    def markdown(self) -> str:
        """A readable report: verdict, a table of every expectation, and the failures named."""
        verdict = "PASS" if self.success else "FAIL"
        s = self.summary()
        lines = [
            f"# Release gates: {verdict}",
            "",
            f"Run `{self.run_id}`: {s['passed']} of {s['expectations']} expectations passed"
            f" ({', '.join(s['suites']) or 'no suites'}).",
            "",
            "| suite | expectation | status | unexpected | observed | threshold | sample |",
            "|---|---|---|---:|---|---|---|",
        ]
        for r in self.results:
            status = "pass" if r.success else "**FAIL**"
            sample = ", ".join(f"`{_cell(x)}`" for x in r.sample)
            observed = "; ".join(_cell(x) for x in r.observed)
            lines.append(f"| {r.suite} | {_cell(r.expectation)} | {status} | {r.unexpected_count} | {observed} | "
                         f"{_cell(r.threshold)} | {sample} |")
        failed = self.failed()
        if failed:
            lines += ["", "## Failed expectations", ""]
            lines += [f"- **{r.suite}: {_cell(r.expectation)}**: {_cell(self._why(r))}" for r in failed]
        if not self.results:
            lines += ["", "No gate expectations ran."]
        return "\n".join(lines) + "\n"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def run_gates(con: duckdb.DuckDBPyConnection, run_id: str, suites: list[Suite] | None = None,
              config: BuildConfig | None = None, docs_dir: Path | None = None) -> GateReport:
    """Validate every suite built for `config` (or `suites`) on the run's rows visible through `con`;
    with `docs_dir`, also render Great Expectations Data Docs of the results there.

    A frame is built once per builder (suites may share one), only when some check reads it, and freed
    after the last suite that reads it, so at most the frames of the suite at hand (and the shared ones it
    still needs) are held at once."""
    report = GateReport(run_id=run_id)
    suites = list(suites if suites is not None else all_suites(config))
    last_use = {build: i for i, suite in enumerate(suites) for name, build in suite.frames.items()
                if suite.checks_on(name)}
    frames: dict[Any, pd.DataFrame] = {}
    with _LOCK:
        docs = _docs_site() if docs_dir is not None else None
        for i, suite in enumerate(suites):
            for frame_name, build in suite.frames.items():
                checks = suite.checks_on(frame_name)
                if not checks:
                    continue
                if build not in frames:
                    frames[build] = build(con, run_id)
                _validate(report, suite, frame_name, frames[build], checks, docs)
            for build in [b for b in frames if last_use[b] == i]:
                del frames[build]
        if docs is not None:
            docs.publish(docs_dir)
    return report


def _docs_site() -> Any:
    from validation.docs import DocsSite

    return DocsSite()


@functools.cache
def _context() -> Any:
    """The one ephemeral Great Expectations context, progress bars off (imports GE on first use)."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    logging.getLogger("great_expectations").setLevel(logging.WARNING)  # no temp-dir chatter in build logs
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    context.data_sources.add_pandas(DATASOURCE)
    return context


@functools.cache
def _batch_definition(asset_name: str) -> Any:
    datasource = _context().data_sources.get(DATASOURCE)
    asset = datasource.add_dataframe_asset(asset_name)
    return asset.add_batch_definition_whole_dataframe("whole")


def _expectation_suite(name: str, checks: list[Check]) -> Any:
    import great_expectations as gx

    suite = gx.ExpectationSuite(name=name)
    for check in checks:
        cls = getattr(gx.expectations, check.expectation)
        suite.add_expectation(cls(**dict(check.kwargs), meta={"lifeloom_name": check.name}))
    return suite


PARTIAL_ROWS = 200
"""Offending rows a result lists (GE's SUMMARY format); COMPLETE lists would grow with the corpus."""


def _validate(
    report: GateReport, suite: Suite, frame_name: str, df: pd.DataFrame, checks: list[Check], docs: Any = None
) -> None:
    """Validate one frame against its checks and append one GateResult per check to `report`.

    Results list at most PARTIAL_ROWS offending rows; a failed check whose listed rows hold fewer than
    SAMPLE_SIZE distinct sample ids while more rows failed is re-validated alone with every row listed, so
    its sample is the same as with the complete list."""
    name = f"{suite.name}.{frame_name}"
    derived = {c.derive[0]: df[c.derive[1]] - df[c.derive[2]] for c in checks
               if c.derive and {c.derive[1], c.derive[2]} <= set(df.columns)}
    df = df.assign(**derived) if derived else df
    validation = _run(name, df, checks, docs, _result_format(checks, df, "SUMMARY"))
    by_name = {r.expectation_config.meta.get("lifeloom_name"): r for r in validation.results}
    del validation
    for check in checks:
        outcome = by_name.get(check.name)
        if outcome is not None and _needs_complete(outcome, check):
            complete = _run(name, df, [check], None, _result_format([check], df, "COMPLETE"))
            outcome = complete.results[0] if complete.results else outcome
        gate = _gate_result(suite.name, check, outcome, len(df))
        report.results.append(gate)
        if gate.note:
            report.notes[check.name] = gate.note


def _result_format(checks: list[Check], df: pd.DataFrame, kind: str) -> dict[str, Any]:
    wanted = {col for c in checks for col in (c.sample_column, *c.shows) if col}
    index_columns = sorted(col for col in wanted if col in df)
    return {"result_format": kind, "unexpected_index_column_names": index_columns,
            "partial_unexpected_count": PARTIAL_ROWS}


def _run(name: str, df: pd.DataFrame, checks: list[Check], docs: Any, result_format: dict[str, Any]) -> Any:
    if docs is not None:
        return docs.validate(name, df, _expectation_suite(name, checks), result_format)
    batch = _batch_definition(name).get_batch(batch_parameters={"dataframe": df})
    try:
        return batch.validate(_expectation_suite(name, checks), result_format=result_format)
    finally:
        del batch
        release_batches(_context().data_sources.get(DATASOURCE))


def _needs_complete(outcome: Any, check: Check) -> bool:
    """True when the partial list of offending rows may hide sample ids the complete list would show."""
    result = outcome.result or {}
    listed = result.get("partial_unexpected_index_list")
    if not check.sample_column or not listed or "unexpected_index_list" in result:
        return False
    count = int(result.get("unexpected_count") or 0)
    return count > len(listed) and len(_sample(listed, check.sample_column)) < SAMPLE_SIZE


def _gate_result(suite: str, check: Check, outcome: Any, n_rows: int) -> GateResult:
    """A GateResult for one expectation outcome: on failure what was observed (each sampled row's values, or the
    expectation's observed value), the threshold, and a note when the rows alone do not say why."""
    threshold = describe_threshold(check)
    if outcome is None:
        return GateResult(suite=suite, expectation=check.name, column_name=check.column, success=False,
                          threshold=threshold, note="not evaluated")
    result = outcome.result or {}
    listed = result.get("unexpected_index_list") or result.get("partial_unexpected_index_list") or []
    sample = _sample(listed, check.sample_column)
    gate = GateResult(suite=suite, expectation=check.name, column_name=check.column, success=bool(outcome.success),
                      unexpected_count=int(result.get("unexpected_count") or 0), sample=sample, threshold=threshold)
    if gate.success:
        return gate
    observed = _observed(listed, check) or [
        f"{check.column} {_show(v)}" for v in (result.get("partial_unexpected_list") or [])[:SAMPLE_SIZE]
        if check.column and not isinstance(v, list | tuple | dict)]
    if not observed and "observed_value" in result:
        observed = [f"{_show(result['observed_value'])} (frame of {n_rows} rows)"]
    error = _exception_message(outcome.exception_info)
    note = f"error: {error}" if error else check.on_failure
    return gate.model_copy(update={"observed": observed, "note": note})


def describe_threshold(check: Check) -> str:
    """What the check asks, in words a reader of a failure needs beside the observed values."""
    kw = dict(check.kwargs)
    column = kw.get("column", "")
    if check.derive:
        name, a, b = check.derive
        low = kw.get("min_value")
        return f"{a} >= {b}" if low == 0 else f"{a} - {b} >= {_show(low)}"
    if check.expectation == "ExpectColumnValuesToBeBetween":
        low, high = kw.get("min_value"), kw.get("max_value")
        if low is not None and high is not None:
            return f"{column} = {_show(low)}" if low == high else f"{_show(low)} <= {column} <= {_show(high)}"
        return f"{column} >= {_show(low)}" if low is not None else f"{column} <= {_show(high)}"
    if check.expectation == "ExpectColumnValuesToBeInSet":
        values = kw.get("value_set") or []
        return f"every {column} true" if values == [True] else f"every {column} in {values}"
    if check.expectation == "ExpectColumnValuesToNotBeInSet":
        return f"no {column} in {kw.get('value_set')}"
    if check.expectation == "ExpectColumnPairValuesAToBeGreaterThanB":
        return f"{kw.get('column_A')} {'>=' if kw.get('or_equal') else '>'} {kw.get('column_B')}"
    return check.expectation


def _observed(listed: list[dict], check: Check) -> list[str]:
    """`<sample id>: <column> <value>, ...` for the offending rows of the sample (one a sample id)."""
    columns = check.shows or ((check.column,) if check.column else ())
    out: list[str] = []
    seen: set = set()
    for row in listed:
        if not isinstance(row, dict):  # no index columns asked: GE lists row numbers only
            return []
        key = _plain(row.get(check.sample_column)) if check.sample_column else len(out)
        if key in seen:
            continue
        seen.add(key)
        values = ", ".join(f"{c} {_show(_plain(row[c]))}" for c in columns if c in row)
        if values:
            out.append(f"{key}: {values}" if check.sample_column else values)
        if len(out) == SAMPLE_SIZE:
            break
    return out


def _show(value: Any) -> str:
    """A value as a report prints it: floats to four significant digits."""
    value = _plain(value)
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _sample(unexpected: list[dict], column: str | None) -> list[Any]:
    """Up to SAMPLE_SIZE distinct ids from the offending rows, in order, nulls as None."""
    if not column:
        return []
    out: list[Any] = []
    for row in unexpected:
        value = _plain(row.get(column))
        if value not in out:
            out.append(value)
        if len(out) == SAMPLE_SIZE:
            break
    return out


def _plain(value: Any) -> Any:
    """A JSON-friendly Python value (numpy scalars unwrapped, NaN/NA as None)."""
    if hasattr(value, "item"):
        value = value.item()
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def _exception_message(info: Any) -> str:
    """The first exception message in a GE exception_info (flat or keyed by metric), or ""."""
    if not isinstance(info, dict):
        return ""
    if info.get("raised_exception"):
        return str(info.get("exception_message") or "exception")
    for value in info.values():
        if isinstance(value, dict) and value.get("raised_exception"):
            return str(value.get("exception_message") or "exception")
    return ""
