"""`make presets` (flows/presets.py): every shipped preset is built in its own fresh data root, and a failed build
fails the run naming the preset and the expectations that failed. The builds here are a stub command; the real
`lifeloom build` of each preset is what `make presets` runs in CI."""

import datetime as dt
import sys
from pathlib import Path

from flows import presets
from schemas.audit import GateResult
from schemas.config import preset_names
from schemas.release import ReleaseRecord, RunRecord
from warehouse.catalog import refresh_catalog
from warehouse.parquet import land_rows
from warehouse.paths import prepare_home
from warehouse.runs import record_run

STUB = r"""
import pathlib, sys
name, home = sys.argv[1], pathlib.Path(sys.argv[2])
(pathlib.Path(sys.argv[3]) / name).write_text(str(home))
if name == sys.argv[4]:
    print("building ...")
    print("error: build failed: 1 of 71 gate expectations failed for run x:")
    print("- distribution: distribution.questions per persona (1 unexpected; observed p0004: n 34)")
    sys.exit(1)
release = home / "releases" / name / "v0001"
release.mkdir(parents=True)
print(f"Released {release}")
"""


def stub(tmp_path: Path, failing: str):
    """A build command that records each preset and data root it is given, fails `failing` the way `lifeloom build`
    fails (exit 1, an `error:` message naming the expectation) and freezes a release folder for the others."""
    seen = tmp_path / "seen"
    seen.mkdir()
    script = tmp_path / "stub.py"
    script.write_text(STUB)
    return seen, lambda name, home: [sys.executable, str(script), name, str(home), str(seen), failing]


def test_every_shipped_preset_is_built_once_each_in_its_own_fresh_data_root(tmp_path, capsys):
    seen, command = stub(tmp_path, failing="")
    root = tmp_path / "roots"
    assert presets.main(["--root", str(root)], command=command) == 0
    names = sorted(p.name for p in seen.iterdir())
    assert names == sorted(preset_names()) and {"tiny", "demo", "rhelm", "finperma"} <= set(names)
    homes = [Path((seen / n).read_text()) for n in names]
    assert len(set(homes)) == len(names) and all(h.parent == root for h in homes)
    out = capsys.readouterr().out
    assert f"all {len(names)} presets passed" in out
    for name in names:
        assert f"{root}/{name}-" in out and f"/releases/{name}/v0001" in out
    assert all((h / "releases").is_dir() for h in homes)  # kept: the printed release paths stay valid


def test_a_failing_preset_fails_the_run_naming_it_and_its_failed_expectations(tmp_path, capsys):
    seen, command = stub(tmp_path, failing="demo")
    root = tmp_path / "roots"
    assert presets.main(["--root", str(root), "--clean"], command=command) == 1
    assert sorted(p.name for p in seen.iterdir()) == sorted(preset_names())  # the others still run
    out = capsys.readouterr().out
    assert "presets: FAILED: demo" in out
    assert "demo       FAILED (exit 1)" in out
    summary = out[out.index("presets summary:"):]
    assert "distribution.questions per persona (1 unexpected; observed p0004: n 34)" in summary
    failed_home = Path((seen / "demo").read_text())
    assert failed_home.is_dir() and (root / "demo.log").is_file()  # kept to look into
    assert not Path((seen / "tiny").read_text()).exists()  # --clean: a passed preset's data root is removed


def test_run_preset_reports_exit_code_time_release_and_failures(tmp_path):
    _, command = stub(tmp_path, failing="rhelm")
    good = presets.run_preset("tiny", tmp_path, command)
    assert good.ok and good.release == good.home / "releases" / "tiny" / "v0001" and good.seconds > 0
    assert good.total is None and good.gates() == "gates n/a"  # the stub lands no warehouse
    bad = presets.run_preset("rhelm", tmp_path, command)
    assert not bad.ok and bad.code == 1 and bad.release is None
    assert bad.failures[0].startswith("error: build failed: 1 of 71")
    assert bad.failures[1].startswith("- distribution: distribution.questions per persona")


def test_only_builds_the_named_presets_and_an_unknown_one_is_refused(tmp_path, capsys):
    seen, command = stub(tmp_path, failing="")
    assert presets.main(["--root", str(tmp_path / "r"), "--only", "tiny"], command=command) == 0
    assert [p.name for p in seen.iterdir()] == ["tiny"]
    assert presets.main(["--root", str(tmp_path / "r"), "--only", "tiny,nope"], command=command) == 2
    assert "unknown preset(s) nope" in capsys.readouterr().err


def test_the_failure_message_is_the_builds_error_and_the_lines_after_it():
    output = "progress\nwarning: x\nerror: build failed: 2 of 9 failed:\n- a: one\n- b: two\n"
    assert presets.failures_of(output) == ["error: build failed: 2 of 9 failed:", "- a: one", "- b: two"]
    assert presets.failures_of("Traceback\nBoom\n") == ["Traceback", "Boom"]  # no error line: the output's tail


def test_gate_counts_are_the_latest_runs_gate_results_and_its_release(tmp_path):
    assert presets.gate_counts(tmp_path) is None  # no warehouse: no gates ran
    layout = prepare_home(tmp_path)
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for n, (run, status) in enumerate([("t-1", "failed"), ("t-2", "succeeded")]):
        start = t0 + dt.timedelta(minutes=n)
        record_run(layout, RunRecord(run_id=run, name="t", config_hash="c", code_version="v", started_at=start,
                                     finished_at=start + dt.timedelta(minutes=1), status=status))
    results = [GateResult(suite="s", expectation=f"e{i}", success=i != 0) for i in range(3)]
    land_rows(layout, "gate_results", results[:1], "t-1")
    land_rows(layout, "gate_results", results, "t-2")
    path = str(layout.release_dir("t", "v0001"))
    land_rows(layout, "releases", [ReleaseRecord(name="t", version="v0001", run_id="t-2", created_at=t0,
                                                 content_hash="h", path=path)], "t-2", part="t-v0001")
    refresh_catalog(layout)
    assert presets.gate_counts(tmp_path) == (2, 3, Path(path))
