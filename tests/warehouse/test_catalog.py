import datetime as dt
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from schemas.qa import Evidence
from schemas.release import RunRecord
from warehouse.catalog import CatalogMissing, open_catalog, refresh_catalog, session
from warehouse.parquet import land_rows
from warehouse.paths import HomeError, prepare_home
from warehouse.runs import record_run

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def _run(run_id, status, minute):
    return RunRecord(run_id=run_id, name="t", config_hash="c", code_version="v", started_at=T0,
                     finished_at=T0 + dt.timedelta(minutes=minute), status=status)


def _evidence(qid):
    return Evidence(question_id=qid, evidence_id="p0000-s0001-t01", evidence_kind="turn", fact_id="p0000-f0001")


def test_views_exist_and_are_typed_even_before_any_file(tmp_path):
    layout = prepare_home(tmp_path / "home")
    refresh_catalog(layout)
    con = open_catalog(layout)
    assert con.execute("select count(*) from questions").fetchone() == (0,)
    types = dict(con.execute("select column_name, data_type from information_schema.columns "
                             "where table_name = 'questions' and table_schema = 'main'").fetchall())
    assert types["question_time"] == "TIMESTAMP WITH TIME ZONE" and types["characteristics"] == "VARCHAR[]"
    con.close()


def test_latest_schema_follows_the_newest_successful_run(tmp_path):
    layout = prepare_home(tmp_path)
    for run_id, status, minute in [("r1", "succeeded", 1), ("r2", "succeeded", 2), ("r3", "failed", 3)]:
        record_run(layout, _run(run_id, status, minute))
        land_rows(layout, "question_evidence", [_evidence(f"{run_id}-q")], run_id, "p0000")
    refresh_catalog(layout)
    con = open_catalog(layout)
    assert con.execute("select count(*) from question_evidence").fetchone() == (3,)
    assert con.execute("select question_id from latest.question_evidence").fetchall() == [("r2-q",)]
    con.close()


def test_readers_are_not_locked_out_while_the_catalog_is_rebuilt(tmp_path):
    layout = prepare_home(tmp_path)
    refresh_catalog(layout)
    reader = open_catalog(layout)
    record_run(layout, _run("r1", "succeeded", 1))
    refresh_catalog(layout)  # must not fail although a reader holds the old file open
    assert reader.execute("select count(*) from runs").fetchone() == (0,)  # old snapshot
    reader.close()
    assert open_catalog(layout).execute("select count(*) from runs").fetchone() == (1,)


def test_in_memory_session_sees_landed_rows(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("q1"), _evidence("q2")], "r1", "p0000")
    con = session(layout)
    assert con.execute("select count(*) from question_evidence where run_id = 'r1'").fetchone() == (2,)


def test_open_catalog_without_a_build_is_a_clear_error(tmp_path):
    with pytest.raises(CatalogMissing, match="lifeloom build"):
        open_catalog(prepare_home(tmp_path))


def test_unwritable_home_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(HomeError, match="not writable"):
        prepare_home(blocker / "home")


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    layout = prepare_home(tmp_path)
    path = land_rows(layout, "question_evidence", [_evidence("q1")], "r1", "p0000")
    assert path.name == "part.parquet"
    assert [p.name for p in path.parent.iterdir()] == ["part.parquet"]


def test_duckdb_cli_from_pypi_opens_the_catalog(tmp_path):
    cli = Path(sys.executable).parent / "duckdb"
    if not cli.exists():
        pytest.skip("duckdb CLI (dev extra duckdb-cli) not installed")
    layout = prepare_home(tmp_path)
    record_run(layout, _run("r1", "succeeded", 1))
    refresh_catalog(layout)
    out = subprocess.run([str(cli), "-readonly", str(layout.catalog), "-csv", "-c", "select run_id from runs"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "r1" in out.stdout
    assert duckdb.__version__


def test_a_run_session_sees_only_that_runs_partitions(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("q1")], "r1", "p0000")
    land_rows(layout, "question_evidence", [_evidence("q2"), _evidence("q3")], "r2", "p0000")
    whole, one = session(layout), session(layout, "r2")
    assert whole.execute("select count(*) from question_evidence").fetchone() == (3,)
    assert one.execute("select run_id, count(*) from question_evidence group by 1").fetchall() == [("r2", 2)]
    assert one.execute("select count(*) from questions").fetchone() == (0,)  # nothing landed: typed and empty
    assert session(layout, "r9").execute("select count(*) from question_evidence").fetchone() == (0,)


def test_calibrated_questions_leave_the_views_and_their_reviews_read_withdrawn(tmp_path):
    from schemas.audit import QuestionReview
    from schemas.metrics import QuestionCalibration
    from tests.tasks.metrics_rows import question
    from warehouse.calibration import land_calibration, landed_questions

    layout = prepare_home(tmp_path)
    qs = [question("p0000", n, f"How many walks in week {n}?", "3") for n in (1, 2)]
    review = lambda q: QuestionReview(question_id=q.question_id, persona_id="p0000", category="fact",  # noqa: E731
                                      correctness=1, uniqueness=1, consistency=1, quality=1, overall=1, status="kept")
    for run in ("r1", "r2"):
        land_rows(layout, "questions", qs, run, "p0000")
        land_rows(layout, "question_evidence", [_evidence(q.question_id) for q in qs], run, "p0000")
        land_rows(layout, "question_reviews", [review(q) for q in qs], run, "p0000")
    land_calibration(layout, "r2", [QuestionCalibration(question_id="p0000-q0002", persona_id="p0000", category="fact",
                                                        template="t.x", answer="3", prior_answer="3", round=1)])
    land_calibration(layout, "r1", [])
    con = session(layout)
    assert con.execute("select run_id, question_id from questions order by 1, 2").fetchall() == [
        ("r1", "p0000-q0001"), ("r1", "p0000-q0002"), ("r2", "p0000-q0001")]
    assert con.execute("select count(*) from question_evidence where run_id = 'r2'").fetchone() == (1,)
    assert con.execute("select question_id, status, reason from question_reviews where run_id = 'r2' order by 1"
                       ).fetchall() == [("p0000-q0001", "kept", ""), ("p0000-q0002", "withdrawn", "answer_prior")]
    # the calibration itself reads what the branches landed, not the view that leaves the withdrawn out
    assert [q.question_id for q in landed_questions(layout, "r2")] == ["p0000-q0001", "p0000-q0002"]
    assert session(layout, "r2").execute("select count(*) from questions").fetchone() == (1,)


def test_partitions_landed_before_a_column_existed_read_it_as_null(tmp_path):
    """runs.as_latest was added after data roots had runs: `latest` failed with 'column as_latest not found'."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    layout = prepare_home(tmp_path)
    old = layout.table_dir("runs") / "run_id=r1" / "part.parquet"
    old.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{"run_id": "r1", "name": "t", "config_hash": "c", "code_version": "v",
                                          "started_at": T0, "finished_at": T0, "status": "succeeded",
                                          "message": ""}]), old)
    refresh_catalog(layout)
    con = open_catalog(layout)
    assert con.execute("select run_id, as_latest from latest.runs").fetchall() == [("r1", None)]


def test_a_catalog_written_by_older_views_is_refreshed_before_a_query(tmp_path):
    from warehouse.catalog import open_query_session, views_version

    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("q1")], "r1", "p0000")
    refresh_catalog(layout)
    (layout.home / "catalog.version").write_text("older\n")
    con = open_query_session(layout)
    assert con.execute("select count(*) from question_evidence").fetchone() == (1,)
    assert (layout.home / "catalog.version").read_text().strip() == views_version()
