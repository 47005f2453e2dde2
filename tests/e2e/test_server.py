"""Against a real `prefect server`: a build whose gate fails ends Failed with its artifacts in the API,
and the artifact page renders the failed-expectations table in headless Chromium."""

import json
import os
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.server

FAILING = """# tiny, with a coverage floor no 2-persona corpus can meet
name = "gatefail"
seed = 1
personas = 2
start_date = 2024-01-01
days = 21
prune_interval = 7

[gates.category_floors]
fact = 1000
"""
EXPECTATION = "coverage.category above floor"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def api(url: str, path: str, body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"{url}/api{path}", data=data, headers={"content-type": "application/json"},
                                 method="POST" if data is not None else "GET")
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.loads(resp.read())


@pytest.fixture(scope="module")
def failed_build(prefect_server, lifeloom_cmd, tmp_path_factory):
    """`lifeloom build` of FAILING reporting to the server; returns (server url, flow run, artifacts by key)."""
    root = tmp_path_factory.mktemp("gatefail")
    (root / "gatefail.toml").write_text(FAILING)
    argv, env = lifeloom_cmd(["build", "--config", str(root / "gatefail.toml"), "--home", str(root / "home")],
                             prefect_server)
    env.pop("PREFECT_LOGGING_LEVEL")  # the CLI's own default: the run's log reaches the UI at INFO
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 1, done.stdout + done.stderr
    assert EXPECTATION in done.stderr
    runs = api(prefect_server, "/flow_runs/filter", {"flow_runs": {"name": {"any_": ["build gatefail"]}}})
    assert len(runs) == 1
    artifacts = api(prefect_server, "/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [runs[0]["id"]]}}})
    return prefect_server, runs[0], {a["key"]: a for a in artifacts}


def test_failed_gate_run_is_failed_with_report_and_table_artifacts(failed_build):
    _, run, artifacts = failed_build
    assert run["state_type"] == "FAILED"
    assert "GateFailed" in run["state"]["message"] or EXPECTATION in run["state"]["message"]
    assert {"gate-report", "failed-expectations", "build-summary"} <= set(artifacts)
    table = artifacts["failed-expectations"]
    assert table["type"] == "table"
    rows = json.loads(table["data"]) if isinstance(table["data"], str) else table["data"]
    assert any(r["expectation"] == EXPECTATION and r["suite"] == "coverage" for r in rows)
    assert "FAIL" in artifacts["gate-report"]["data"]
    assert "No release" in artifacts["build-summary"]["data"]


def test_the_ui_shows_the_cli_build_s_log_and_a_failed_gate_task(failed_build):
    """Issue 27: the CLI forced Prefect's log level to WARNING, so the dashboard said "Waiting for logs..."; the gate
    task stayed green inside a Failed run."""
    url, run, _ = failed_build
    logs = api(url, "/logs/filter", {"logs": {"flow_run_id": {"any_": [run["id"]]}}, "limit": 200})
    messages = [entry["message"] for entry in logs]
    assert any(m.startswith("plan: ") for m in messages) and any(m.startswith("calibrate: ") for m in messages)
    tasks = api(url, "/task_runs/filter", {"flow_runs": {"id": {"any_": [run["id"]]}}})
    (gate,) = [t for t in tasks if t["name"].startswith("gate ")]
    assert gate["state_type"] == "FAILED" and EXPECTATION in gate["state"]["message"]
    assert "observed fact: n " in gate["state"]["message"] and "\\n" not in run["state"]["message"]


def test_task_runs_have_readable_persona_stage_names(failed_build):
    url, run, _ = failed_build
    tasks = api(url, "/task_runs/filter", {"flow_runs": {"id": {"any_": [run["id"]]}}})
    names = {t["name"] for t in tasks}
    assert {"profile p0000", "loop p0001", "dialogue p0000", "land p0001"} <= names


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's `chromium`); "
                                              "the artifact page cannot be rendered")
def test_artifact_page_renders_the_failure_table_in_chromium(failed_build, tmp_path):
    url, _, artifacts = failed_build
    page = f"{url}/artifacts/artifact/{artifacts['failed-expectations']['id']}"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
             "--virtual-time-budget=20000", "--window-size=1400,1000"]

    def chromium(*extra: str) -> subprocess.CompletedProcess:
        profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
        return subprocess.run([CHROMIUM, *flags, f"--user-data-dir={profile}", *extra, page],
                              capture_output=True, text=True, timeout=90)

    dom = chromium("--dump-dom").stdout
    assert EXPECTATION in dom, dom[-3000:]
    shot = tmp_path / "failed-expectations.png"
    chromium(f"--screenshot={shot}")
    assert shot.is_file() and shot.stat().st_size > 10_000
    keep = os.environ.get("LIFELOOM_SCREENSHOT")  # set it to keep the picture for a human look
    if keep:
        Path(keep).write_bytes(shot.read_bytes())
