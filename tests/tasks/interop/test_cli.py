"""`lifeloom export` and `lifeloom import`: bad input is one message and exit 2; a release exports in every
format and the exports import back as runs the gates can check."""

import json
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from flows.cli import app
from schemas.tables import to_arrow
from tasks.interop import Bundle
from tests.tasks.interop_rows import rhelm_bundle
from warehouse.interop import gate_summary, load_release
from warehouse.parquet import write_parquet
from warehouse.paths import Layout

runner = CliRunner()
FIXTURE = Path(os.environ.get("LIFELOOM_RHELM_SAMPLE", Path(__file__).parents[2] / "fixtures" / "rhelm_sample"))


def _release(home: Path) -> Path:
    folder = home / "releases" / "mini" / "v0001"
    bundle = rhelm_bundle()
    for table in Bundle.TABLES:
        write_parquet(to_arrow(table, bundle.rows(table), "mini-run"), folder / f"{table}.parquet")
    (folder / "manifest.json").write_text("{}")
    return folder


def _errors(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error:")]


@pytest.mark.parametrize("args, message", [
    (["export", "--release", "mini/v0001", "--format", "csv", "--out", "OUT"], "unknown export format 'csv'"),
    (["export", "--release", "mini/v0009", "--format", "rhelm", "--out", "OUT"], "no release 'mini/v0009'"),
    (["export", "--release", "mini", "--format", "rhelm", "--out", "OUT"], "give NAME/VERSION"),
    (["import", "MISSING", "--format", "rhelm", "--name", "x"], "does not exist"),
    (["import", "HOME", "--format", "rhelm", "--name", "x"], "is not a RHELM release folder"),
    (["import", "BAD", "--format", "locomo", "--name", "x"], "is not a readable JSON file"),
    (["import", "BAD", "--format", "hf", "--name", "x"], "unknown import format 'hf'"),
    (["import", "BAD", "--format", "locomo", "--name", "Bad Name"], "--name 'Bad Name'"),
])
def test_bad_input_is_one_message_and_exit_2(tmp_path, args, message):
    home = tmp_path / "home"
    _release(home)
    (tmp_path / "bad.json").write_text("{oops")
    paths = {"OUT": str(tmp_path / "out"), "MISSING": str(tmp_path / "nope"), "HOME": str(home),
             "BAD": str(tmp_path / "bad.json")}
    result = runner.invoke(app, [paths.get(a, a) for a in args] + ["--home", str(home)])
    assert result.exit_code == 2
    errors = _errors(result)
    assert len(errors) == 1 and message in result.output, result.output
    assert not (tmp_path / "out").exists() and not (home / "imports").exists()


def test_export_refuses_a_non_empty_folder(tmp_path):
    _release(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("")
    result = runner.invoke(app, ["export", "--release", "mini/v0001", "--format", "hf", "--out",
                                 str(tmp_path / "out"), "--home", str(tmp_path)])
    assert result.exit_code == 2 and "not empty" in result.output


def test_every_format_exports_and_imports_back_as_a_run(tmp_path):
    home = tmp_path / "home"
    _release(home)
    files = {"rhelm": "", "locomo": "locomo10.json", "longmemeval": "longmemeval.json"}
    for fmt in ("hf", *files):
        result = runner.invoke(app, ["export", "--release", "mini/v0001", "--format", fmt, "--out",
                                     str(tmp_path / fmt), "--home", str(home)])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "hf" / "README.md").is_file()
    assert (tmp_path / "hf" / "data" / "questions" / "train.parquet").is_file()
    assert "unmapped_evidence: 4" in runner.invoke(app, ["export", "--release", "mini/v0001", "--format", "locomo",
                                                         "--out", str(tmp_path / "again"), "--home", str(home)]).output
    source = load_release(home / "releases" / "mini" / "v0001")
    for fmt, name in files.items():
        result = runner.invoke(app, ["import", str(tmp_path / fmt / name), "--format", fmt, "--name", f"back-{fmt}",
                                     "--home", str(home), "--no-gates"])
        assert result.exit_code == 0, result.output
        run_id = result.output.split("as run ")[1].split(":")[0]
        report = json.loads((home / "imports" / f"{run_id}.json").read_text())
        assert report["counts"]["questions"] == 3
        landed = f"{home}/tables/questions/run_id={run_id}/**/*.parquet"
        got = duckdb.connect().execute(
            f"select question_id, question_time from read_parquet('{landed}') order by 1").fetchall()
        assert got == sorted((q.question_id, q.question_time) for q in source.questions)


def test_fixture_imports_as_a_run_that_passes_the_integrity_gates(tmp_path):
    result = runner.invoke(app, ["import", str(FIXTURE), "--format", "rhelm", "--name", "rhelm-sample", "--home",
                                 str(tmp_path), "--no-gates", "--as-latest"])
    assert result.exit_code == 0, result.output
    assert "borrowed_date: 9" in result.output
    run_id = result.output.split("as run ")[1].split(":")[0]
    report, passed, failed = gate_summary(Layout(tmp_path), run_id)
    assert report.results and not [f for f in failed if f.startswith("integrity")], failed
    assert "integrity: question_evidence.evidence resolves" in passed
    sql = runner.invoke(app, ["sql", "select count(*) from latest.question_evidence", "--home", str(tmp_path),
                              "--format", "csv"])
    assert sql.output.splitlines()[-1] == "40"


def test_an_import_lands_its_gate_results_and_leaves_latest_to_the_builds(tmp_path):
    """Issue 26: an import's gate results reach `gate_results` (the failed-gate queries of deploy/README.md find
    them), and an import becomes `latest` only when asked (`--as-latest`)."""
    import datetime as dt

    from schemas.release import RunRecord
    from warehouse.runs import record_run

    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    record_run(Layout(tmp_path), RunRecord(run_id="demo-1", name="demo", config_hash="c", code_version="v",
                                           started_at=t0, finished_at=t0, status="succeeded"))
    result = runner.invoke(app, ["import", str(FIXTURE), "--format", "rhelm", "--name", "rhelm-sample", "--home",
                                 str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "`latest` is unchanged" in result.output
    run_id = result.output.split("as run ")[1].split(":")[0]

    def sql(query: str) -> list[str]:
        out = runner.invoke(app, ["sql", query, "--home", str(tmp_path), "--format", "csv"])
        assert out.exit_code == 0, out.output
        return out.output.splitlines()[1:]

    assert sql("select run_id from latest.runs") == ["demo-1"]
    failed = sql(f"select count(*) from gate_results where run_id = '{run_id}' and not success")
    total = sql(f"select count(*) from gate_results where run_id = '{run_id}'")
    assert int(total[0]) > 0 and int(failed[0]) > 0  # no facts or reviews in an import: those gates fail, on record
    again = runner.invoke(app, ["import", str(FIXTURE), "--format", "rhelm", "--name", "rhelm-sample", "--home",
                                str(tmp_path), "--no-gates", "--as-latest"])
    assert again.exit_code == 0 and "It is `latest` now" in again.output
    assert sql("select run_id from latest.runs") == [again.output.split("as run ")[1].split(":")[0]]
