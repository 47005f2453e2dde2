"""Pruning old runs: their landed partitions go, their records and every frozen release stay."""

import datetime as dt

from typer.testing import CliRunner

from flows.cli import app
from schemas.qa import Evidence
from schemas.release import RunRecord
from warehouse.catalog import open_catalog
from warehouse.parquet import land_rows
from warehouse.paths import prepare_home
from warehouse.runs import list_runs, prune_runs, record_run

NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)


def _land(layout, run_id, status, hours_ago):
    started = NOW - dt.timedelta(hours=hours_ago)
    record_run(layout, RunRecord(run_id=run_id, name="t", config_hash="c", code_version="v", started_at=started,
                                 finished_at=None if status == "running" else started + dt.timedelta(minutes=5),
                                 status=status))
    land_rows(layout, "question_evidence", [Evidence(question_id="q", evidence_id="e", evidence_kind="turn")],
              run_id, "p0000")
    layout.gate_docs(run_id).mkdir(parents=True)
    (layout.gate_docs(run_id) / "index.html").write_text("<html></html>")


def _landed(layout):
    return sorted(p.name.removeprefix("run_id=") for p in layout.table_dir("question_evidence").iterdir())


def test_prune_keeps_the_newest_runs_the_latest_success_and_a_build_in_progress(tmp_path):
    layout = prepare_home(tmp_path)
    _land(layout, "r1-old-failed", "failed", 100)
    _land(layout, "r2-last-success", "succeeded", 90)
    _land(layout, "r3-killed", "running", 80)   # killed long ago: prunable
    _land(layout, "r4-failed", "failed", 70)
    _land(layout, "r5-live", "running", 1)      # a build in progress
    _land(layout, "r6-newest", "failed", 0.5)
    pruned = prune_runs(layout, keep=1, now=NOW)
    assert [r for r, _ in pruned] == ["r1-old-failed", "r3-killed", "r4-failed"]
    assert all(freed > 0 for _, freed in pruned)
    assert _landed(layout) == ["r2-last-success", "r5-live", "r6-newest"]
    assert not layout.gate_docs("r1-old-failed").exists() and layout.gate_docs("r2-last-success").exists()
    records = {r.run_id: r for r in list_runs(layout)}
    assert len(records) == 6 and records["r1-old-failed"].message.startswith("partitions pruned")
    assert prune_runs(layout, keep=1, now=NOW) == []  # nothing left to prune


def test_prune_command_refreshes_the_catalog(tmp_path):
    layout = prepare_home(tmp_path)
    for i in range(3):
        _land(layout, f"r{i}", "succeeded", 10 - i)
    done = CliRunner().invoke(app, ["prune", "--keep", "2", "--home", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "pruned r0" in done.output and "1 run(s) pruned" in done.output
    con = open_catalog(layout)
    assert con.execute("select distinct run_id from question_evidence order by 1").fetchall() == [("r1",), ("r2",)]
    assert con.execute("select count(*) from runs").fetchone() == (3,)
    bad = CliRunner().invoke(app, ["prune", "--keep", "0", "--home", str(tmp_path)])
    assert bad.exit_code == 2
