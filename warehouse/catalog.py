"""The DuckDB catalog: one view per contract table over its Parquet files, plus schema `latest`.

The catalog file holds views only. It is rebuilt in a temporary file and renamed into place, so it
is never held open read-write where a reader could see it locked or half-written; readers open it
read-only and can query while a build runs. It is written with an older storage version so the
DuckDB CLI from PyPI can open it.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
from pathlib import Path

import duckdb

from schemas.tables import TABLES, WITHDRAWN_BY_CALIBRATION, empty_relation
from warehouse.paths import Layout

STORAGE_VERSION = "v1.0.0"


LATEST_RUN = (
    "(select run_id from main.runs where status = 'succeeded' and coalesce(as_latest, code_version <> 'import') "
    "order by finished_at desc, run_id desc limit 1)"
)
"""The newest succeeded run that may be `latest`: every build, an import only when imported `--as-latest` (runs
recorded before `as_latest` existed: every build, no import)."""


class CatalogMissing(RuntimeError):
    """No build has landed anything under this data root yet."""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def source_glob(layout: Layout, table: str, run_id: str | None = None) -> str:
    """Where `table`'s Parquet files are: evaluations land beside the releases (`<home>/eval/...`, written by
    `lifeloom eval`), every other table under `<home>/tables/` (only run `run_id`'s folder, when given)."""
    if table == "eval_results":
        return str(layout.home / "eval" / "**" / "eval_results.parquet")
    if run_id is not None:
        return str(layout.table_dir(table) / f"run_id={run_id}" / "**" / "*.parquet")
    return layout.table_glob(table)


def table_source(layout: Layout, table: str, run_id: str | None = None) -> str:
    """SQL for the rows of `table` under the data root (of one run, when given); a typed empty relation when
    none landed."""
    where = source_glob(layout, table, run_id)
    if glob.glob(where, recursive=True):  # by name with the contract's empty relation: a column added since older
        # partitions were landed (runs.as_latest, gate_results.observed) reads as null there, never as missing
        return (f"select * from read_parquet({_quote(where)}, union_by_name = true) "
                f"union all by name ({empty_relation(table)})")
    return empty_relation(table)


def create_views(con: duckdb.DuckDBPyConnection, layout: Layout, run_id: str | None = None) -> None:
    """(Re)create one view per contract table in `main`, and the same views in `latest`; with `run_id`, the
    `main` views see that run's partitions only."""
    con.execute("create schema if not exists latest")
    order = sorted(TABLES, key=lambda t: t in WITHDRAWN_BY_CALIBRATION)  # question_calibration's view first
    for table in order:
        con.execute(f"create or replace view main.{table} as {calibrated(table, table_source(layout, table, run_id))}")
    for table in TABLES:
        con.execute(
            f"create or replace view latest.{table} as select * from main.{table} where run_id = {LATEST_RUN}"
        )
    for schema in ("main", "latest"):
        con.execute(f"create or replace view {schema}.profile_update_stats as {profile_stats_sql(schema)}")
    con.execute(f"create or replace view main.eval_summary as {EVAL_SUMMARY_SQL}")


def calibrated(table: str, source: str) -> str:
    """`source` as the table's view sees it: the questions the release calibration withdrew
    (`question_calibration`, tasks/questions/calibrate.py) are left out of `questions` and `question_evidence`,
    and their `question_reviews` rows read withdrawn with reason `answer_prior`. The landed partitions keep every
    item the persona branch wrote, so a rebuild that reuses a branch calibrates from the same rows."""
    if table not in WITHDRAWN_BY_CALIBRATION:
        return source
    gone = "select run_id, question_id, reason from main.question_calibration"
    if table == "question_reviews":
        return (f"select r.* replace (case when c.reason is null then r.status else 'withdrawn' end as status, "
                f"coalesce(c.reason, r.reason) as reason) from ({source}) r "
                f"left join ({gone}) c on c.run_id = r.run_id and c.question_id = r.question_id")
    return (f"select * from ({source}) t where not exists (select 1 from ({gone}) c "
            f"where c.run_id = t.run_id and c.question_id = t.question_id)")


EVAL_SUMMARY_SQL = """
select eval_id, release, system, setting, k, category, checkpoint, count(*) as questions,
       count(recall_at_20) as with_evidence,
       avg(hit_at_1) as hit_at_1, avg(hit_at_5) as hit_at_5, avg(hit_at_20) as hit_at_20,
       avg(recall_at_5) as recall_at_5, avg(recall_at_20) as recall_at_20, avg(recall_at_50) as recall_at_50,
       avg(mrr) as mrr, avg(cast(correct as double)) as accuracy
from main.eval_results group by all order by all
"""
"""Means of every evaluation's retrieval metrics and accuracy by system, setting, k, category and checkpoint, with
the counts to weight them by when cells are combined: `questions` (accuracy) and `with_evidence` (the questions
with evidence in their history, over which hit, recall and MRR are averaged). An unweighted mean of cells is not
the evaluation's figure."""


PROFILE_DIMENSIONS = ("identity", "personality", "traits", "relationships", "belongings", "current_status")


def profile_stats_sql(schema: str) -> str:
    """Profile updates per simulated day, per top-level dimension: mean, sd, min and max over every day
    from a persona's first to its last op (days without updates count as 0), for each persona and, with
    persona_id null, over all personas of the run."""
    dims = ", ".join(_quote(d) for d in PROFILE_DIMENSIONS)
    return f"""
        with ops as (
            select run_id, persona_id, date as day, regexp_extract(path, '^([a-z_]+)', 1) as dimension
            from {schema}.profile_ops
        ), span as (
            select run_id, persona_id, min(day) as first_day, max(day) as last_day from ops group by all
        ), days as (
            select run_id, persona_id, unnest(generate_series(first_day, last_day, interval 1 day))::date as day
            from span
        ), dims as (
            select unnest([{dims}]) as dimension
        ), counts as (
            select run_id, persona_id, day, dimension, count(*) as n from ops group by all
        ), grid as (
            select d.run_id, d.persona_id, d.day, m.dimension, coalesce(c.n, 0) as n
            from days d cross join dims m left join counts c using (run_id, persona_id, day, dimension)
        )
        select run_id, persona_id, dimension, count(*) as days, sum(n) as updates,
               avg(n) as mean_per_day, stddev_samp(n) as sd_per_day, min(n) as min_per_day, max(n) as max_per_day
        from grid
        group by grouping sets ((run_id, persona_id, dimension), (run_id, dimension))
    """


def views_version() -> str:
    """A digest of the code that defines the views (this module and the table contract): a catalog written by
    other code is stale."""
    import hashlib

    here = Path(__file__)
    digest = hashlib.sha256(here.read_bytes() + (here.parent.parent / "schemas" / "tables.py").read_bytes())
    return digest.hexdigest()[:16]


def _version_file(layout: Layout) -> Path:
    return layout.home / "catalog.version"


def refresh_if_stale(layout: Layout) -> None:
    """Rebuild the catalog when lifeloom's views changed since it was written (an upgrade between builds), so
    `lifeloom sql` never reads views older than the code that documents them."""
    marker = _version_file(layout)
    if layout.catalog.is_file() and (not marker.is_file() or marker.read_text().strip() != views_version()):
        try:
            refresh_catalog(layout)
        except OSError:  # a data root this user may only read: its catalog stays as its owner wrote it
            pass


def refresh_catalog(layout: Layout) -> Path:
    """Rebuild the catalog file from what has landed; returns its path."""
    layout.home.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=layout.home, prefix=".catalog-", suffix=".duckdb")
    os.close(fd)
    os.unlink(tmp)  # duckdb must create the file itself
    try:
        con = duckdb.connect(tmp, config={"storage_compatibility_version": STORAGE_VERSION})
        try:
            create_views(con, layout)
        finally:
            con.close()
        os.replace(tmp, layout.catalog)
        _version_file(layout).write_text(views_version() + "\n")
    finally:
        for leftover in (tmp, tmp + ".wal"):
            Path(leftover).unlink(missing_ok=True)
    return layout.catalog


def open_catalog(layout: Layout) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the catalog, for users and reports."""
    if not layout.catalog.is_file():
        raise CatalogMissing(f"no catalog at {layout.catalog}; run `lifeloom build` first")
    return duckdb.connect(str(layout.catalog), read_only=True)


class QueryRefused(ValueError):
    """A statement `lifeloom sql` does not run: anything but a query."""


_EXPLAIN = re.compile(r"(?is)^\s*explain(?:\s+analy[sz]e)?\s+")


def check_query(query: str) -> None:
    """Refuse anything but queries, as DuckDB's own parser types them: SELECT (DESCRIBE, SHOW, SUMMARIZE and
    FROM-first queries parse as SELECT) and EXPLAIN of one. COPY, EXPORT, ATTACH, SET, PRAGMA, CALL, INSTALL,
    LOAD and every write are refused before anything runs."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise QueryRefused(f"the query does not parse: {exc}") from None
    if not statements:
        raise QueryRefused("the query is empty")
    for statement in statements:
        kind = statement.type
        if kind == duckdb.StatementType.EXPLAIN:
            inner = _EXPLAIN.sub("", statement.query, count=1)
            kinds = [s.type for s in duckdb.extract_statements(inner)] if inner != statement.query else []
            if kinds != [duckdb.StatementType.SELECT]:
                raise QueryRefused("only EXPLAIN of a SELECT runs here")
        elif kind != duckdb.StatementType.SELECT:
            raise QueryRefused(f"{kind.name} statements are refused: `lifeloom sql` only reads (SELECT, DESCRIBE, "
                               "SHOW, SUMMARIZE, EXPLAIN)")


def open_query_session(layout: Layout) -> duckdb.DuckDBPyConnection:
    """The catalog opened for `lifeloom sql`: read-only, file access limited to the data root (DuckDB's
    `allowed_directories` with `enable_external_access` off: no file, extension or database outside it) and the
    configuration locked, so no statement can lift those limits. Pair with `check_query`, which refuses COPY and
    EXPORT (they could write inside the data root)."""
    refresh_if_stale(layout)
    con = open_catalog(layout)
    try:
        roots = sorted({str(layout.home).rstrip("/") + "/", os.path.realpath(layout.home).rstrip("/") + "/"})
        con.execute("set allowed_directories = " + "[" + ", ".join(_quote(r) for r in roots) + "]")
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def session(layout: Layout, run_id: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with the contract views, for the build's own queries (no file lock). With
    `run_id`, the views read only that run's folders: binding a view reads the schema of every file its glob
    matches, and a data root gains a run's worth of files with every nightly build."""
    con = duckdb.connect()
    create_views(con, layout, run_id)
    return con
