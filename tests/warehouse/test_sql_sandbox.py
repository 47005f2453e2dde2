"""`lifeloom sql` is read-only in fact: statements are typed by DuckDB's parser, file access stops at the data
root and the configuration is locked. Each way a query could write or read outside is tried."""

import hashlib

import duckdb
import pytest
from typer.testing import CliRunner

from flows.cli import app
from warehouse.catalog import QueryRefused, check_query, refresh_catalog
from warehouse.paths import Layout

runner = CliRunner()


@pytest.fixture()
def home(tmp_path):
    """A data root with one landed partition, a frozen (read-only) release file and a secret file outside it."""
    root = tmp_path / "home"
    part = root / "tables" / "questions" / "run_id=r1"
    part.mkdir(parents=True)
    release = root / "releases" / "x" / "v0001"
    release.mkdir(parents=True)
    con = duckdb.connect()
    con.execute(f"copy (select 'q1' as question_id, 'r1' as run_id) to '{part / 'p.parquet'}' (format parquet)")
    con.execute(f"copy (select 'q1' as question_id) to '{release / 'questions.parquet'}' (format parquet)")
    con.close()
    (release / "questions.parquet").chmod(0o444)
    (tmp_path / "outside.txt").write_text("not yours")
    refresh_catalog(Layout(root))
    return root


def _sql(home, query):
    return runner.invoke(app, ["sql", query, "--home", str(home)])


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_queries_over_the_catalog_and_files_inside_the_root_still_run(home):
    assert "1 row(s)" in _sql(home, "select count(*) from main.questions").output
    inside = home / "releases" / "x" / "v0001" / "questions.parquet"
    result = _sql(home, f"select question_id from read_parquet('{inside}')")
    assert result.exit_code == 0 and "q1" in result.output
    for ok in ("describe main.questions", "show tables", "explain select 1", "from main.questions",
               "summarize main.questions"):
        assert _sql(home, ok).exit_code == 0, ok


@pytest.mark.parametrize("query", [
    "copy (select 1 as x) to '{release}' (format parquet)",
    "copy (select 1 as x) to '{partition}' (format parquet)",
    "export database '{home}/dump'",
    "attach '{home}/other.duckdb' as other",
    "set enable_external_access = true",
    "pragma enable_profiling",
    "install httpfs",
    "load httpfs",
    "create table t as select 1",
    "insert into main.questions select * from main.questions",
    "drop view main.questions",
    "explain analyze copy (select 1) to '{home}/e.csv'",
    "select 1; copy (select 1) to '{home}/two.csv'",
])
def test_every_writing_or_configuring_statement_is_refused_before_it_runs(home, query):
    release = home / "releases" / "x" / "v0001" / "questions.parquet"
    partition = home / "tables" / "questions" / "run_id=r1" / "p.parquet"
    before = {p: (_digest(p), p.stat().st_mode) for p in (release, partition)}
    files = sorted(home.rglob("*"))
    result = _sql(home, query.format(release=release, partition=partition, home=home))
    assert result.exit_code != 0 and "error:" in result.output
    assert {p: (_digest(p), p.stat().st_mode) for p in (release, partition)} == before
    assert sorted(home.rglob("*")) == files


@pytest.mark.parametrize("query", [
    "select * from read_text('{outside}')",
    "select * from read_csv('{outside}')",
    "select * from glob('{outside_dir}/*')",
    "select * from read_text('{home}/../outside.txt')",
    "select * from read_parquet('/etc/*.parquet')",
])
def test_files_outside_the_data_root_cannot_be_read(home, query):
    outside = home.parent / "outside.txt"
    result = _sql(home, query.format(outside=outside, outside_dir=home.parent, home=home))
    assert result.exit_code == 1 and "not yours" not in result.output
    assert "disabled by configuration" in result.output or "Permission" in result.output


def test_check_query_types_statements_with_duckdbs_parser():
    check_query("select 1; with a as (select 2) select * from a")
    for bad in ("", "copy t to 'x'", "explain analyze insert into t values (1)", "call pragma_version()"):
        with pytest.raises(QueryRefused):
            check_query(bad)
