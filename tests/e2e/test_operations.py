"""Operations: stage caching, crash resume (SIGKILL then rerun), the Dask runner and the nightly flow."""

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from prefect.settings import PREFECT_TASKS_REFRESH_CACHE, temporary_settings

from flows import fingerprint, progress
from flows.build import build_corpus, unchanged_branch
from flows.nightly import nightly
from flows.stages import Ctx, Staged
from schemas.config import load_preset
from tasks.world import profile
from warehouse.catalog import open_catalog
from warehouse.paths import Layout


def manifest(path) -> dict:
    return json.loads((Path(path) / "manifest.json").read_text())


def build_with_events(home) -> tuple[dict, list[progress.Event]]:
    events: list[progress.Event] = []
    progress.attach(events.append)
    try:
        return build_corpus(config=load_preset("tiny"), home=str(home)), events
    finally:
        progress.attach(None)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted tiny build (in-process) and its stage events."""
    home = tmp_path_factory.mktemp("reference")
    result, events = build_with_events(home)
    return home, result, events


def test_unchanged_rebuild_reuses_every_stage_and_relands_under_the_new_run(reference, monkeypatch):
    home, first, cold = reference
    unpickled = []
    monkeypatch.setattr(Staged, "_load", lambda self: unpickled.append(self) or pytest.fail("a value unpickled"))
    second, warm = build_with_events(home)
    assert not unpickled  # every branch was unchanged: landed by copying, no stage value read back
    stages = [e for e in warm if e.stage not in ("land", "gate", "freeze")]
    assert stages and all(e.cached for e in stages)
    assert not any(e.cached for e in cold)
    a, b = manifest(first["release"]["path"]), manifest(second["release"]["path"])
    assert a["table_hashes"] == b["table_hashes"]
    assert b["ledger"]["calls"] == a["ledger"]["calls"] and b["ledger"]["cached"] == b["ledger"]["calls"]
    con = open_catalog(Layout(home))
    assert con.execute("select run_id from latest.runs").fetchone() == (second["run_id"],)
    dupes = con.execute("select count(*) - count(distinct question_id) from latest.questions").fetchone()[0]
    assert dupes == 0


def test_an_unchanged_branch_is_found_by_its_stage_keys_unless_the_cache_is_refreshed(reference):
    home, first, _ = reference
    config = load_preset("tiny")
    ctx = Ctx(config, Layout(home), "probe-run")
    seed = profile.seed_texts(config)[0]
    earlier = unchanged_branch(ctx, "p0000", seed)
    assert earlier is not None and earlier["persona_id"] == "p0000"
    with temporary_settings(updates={PREFECT_TASKS_REFRESH_CACHE: True}):
        assert unchanged_branch(ctx, "p0000", seed) is None
    changed = config.model_copy(update={"stages": config.stages.model_copy(update={
        "questions": config.stages.questions.model_copy(update={"per_persona": 7})})})
    assert unchanged_branch(Ctx(changed, Layout(home), "probe-run"), "p0000", seed) is None  # questions' key moved


def test_a_stage_version_bump_reruns_that_stage_only(reference, monkeypatch):
    home, _, _ = reference
    monkeypatch.setitem(fingerprint.STAGE_VERSIONS, "verify", fingerprint.STAGE_VERSIONS["verify"] + 1)
    _, events = build_with_events(home)
    by_stage = {e.stage: e.cached for e in events if e.persona_id == "p0000"}
    assert by_stage["verify"] is False
    assert all(by_stage[s] for s in ("profile", "loop", "sources", "dialogue", "questions", "review"))


@pytest.mark.server
def test_sigkilled_build_resumes_to_the_same_content(reference, prefect_server, lifeloom_cmd, tmp_path):
    _, ref, _ = reference
    home = tmp_path / "home"
    argv, env = lifeloom_cmd(["build", "--preset", "tiny", "--home", str(home)], prefect_server)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    cache, deadline = home / "cache" / "prefect", time.monotonic() + 120
    while len(list(cache.glob("*-p0*"))) < 5:  # some of the 14 stage results are done
        assert proc.poll() is None and time.monotonic() < deadline, "the build ended before it could be killed"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (home / "releases" / "tiny").exists()

    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    resumed = manifest(home / "releases" / "tiny" / "v0001")
    reference_manifest = manifest(ref["release"]["path"])
    assert resumed["table_hashes"] == reference_manifest["table_hashes"]
    assert resumed["content_hash"] == reference_manifest["content_hash"]
    assert resumed["ledger"]["calls"] == reference_manifest["ledger"]["calls"]
    assert resumed["ledger"]["cached"] > 0  # calls of restored stages were not made again
    con = open_catalog(Layout(home))
    statuses = sorted(s for (s,) in con.execute("select status from runs").fetchall())
    assert statuses == ["running", "succeeded"]  # the killed run never finished; latest skips it
    assert con.execute("select run_id from latest.runs").fetchone() == (resumed["run_id"],)
    for table, key in (("questions", "question_id"), ("turns", "turn_id"), ("llm_calls", "call_key, stage")):
        n, distinct = con.execute(f"select count(*), count(distinct ({key})) from latest.{table}").fetchone()
        assert n == distinct > 0, table


def _temporary_servers(tag: str) -> set[int]:
    """Pids of the running temporary Prefect API servers (uvicorn serving `create_app`) whose environment
    holds `tag`, so servers of other builds on the machine do not count."""
    pids = set()
    for proc in Path("/proc").iterdir():
        try:
            if (proc.name.isdigit() and b"prefect.server.api.server:create_app" in (proc / "cmdline").read_bytes()
                    and tag.encode() in (proc / "environ").read_bytes()):
                pids.add(int(proc.name))
        except OSError:  # the process ended while we looked, or is not ours
            continue
    return pids


def test_dask_runner_gives_the_default_runners_content(reference, lifeloom_cmd, tmp_path):
    """`--runner dask` with no PREFECT_API_URL (the plain CLI): same tables as the default runner, and the
    LocalCluster's workers report to the CLI's one temporary server instead of each starting their own
    (which the cluster's shutdown used to leave running)."""
    pytest.importorskip("prefect_dask")
    _, ref, _ = reference
    argv, env = lifeloom_cmd(["build", "--preset", "tiny", "--runner", "dask", "--home", str(tmp_path)])
    tag = f"LIFELOOM_TEST_TAG={uuid.uuid4().hex}"
    env["LIFELOOM_TEST_TAG"] = tag.split("=", 1)[1]  # inherited by the workers and every temporary server
    env["PREFECT_LOGGING_LEVEL"] = "INFO"  # every process logs "Starting temporary server on ..."
    env["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"  # on the console too (the CLI shows warnings only)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    dask = manifest(tmp_path / "releases" / "tiny" / "v0001")
    assert dask["config"]["runner"]["kind"] == "dask"
    assert dask["table_hashes"] == manifest(ref["release"]["path"])["table_hashes"]
    assert out.count("Starting temporary server") == 1, out  # the CLI's; none per worker
    assert out.count("Stopping temporary server") == 1, out
    deadline = time.monotonic() + 10
    while (left := _temporary_servers(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"temporary Prefect servers outlived the build: {left}"


def test_nightly_freezes_only_when_content_changed(tmp_path):
    first = nightly(preset="tiny", home=str(tmp_path))
    assert first["release"]["version"] == "v0001"
    again = nightly(preset="tiny", home=str(tmp_path))
    assert again["release"] is None and again["matched"] == "tiny/v0001"
    assert sorted(p.name for p in (tmp_path / "releases" / "tiny").iterdir()) == ["v0001"]
    con = open_catalog(Layout(tmp_path))
    message = con.execute("select message from latest.runs").fetchone()[0]
    assert "matched tiny/v0001" in message


def test_a_rebuild_whose_earlier_partitions_are_gone_lands_from_the_cached_stages(reference, monkeypatch):
    home, first, _ = reference
    shutil.rmtree(Layout(home).tables)  # every run's partitions: no landing left to copy
    loads, load = [], Staged._load
    monkeypatch.setattr(Staged, "_load", lambda self: loads.append(1) or load(self))
    again, events = build_with_events(home)
    assert all(e.cached for e in events if e.stage not in ("land", "gate", "freeze"))
    assert loads  # the cached stage values were read back and landed afresh
    assert manifest(again["release"]["path"])["table_hashes"] == manifest(first["release"]["path"])["table_hashes"]


def test_a_nightly_above_its_cost_ceiling_is_not_started_and_sends_nothing(tmp_path, monkeypatch):
    """A nightly on a paid provider counts its plan first (the `nightly-plan` artifact); above [limits]
    max_cost_usd it ends Failed saying why, before any request reaches the provider and with nothing landed."""
    from prefect.states import State

    from tests.llm_mock.server import MockLLM

    monkeypatch.setenv("LIFELOOM_TEST_KEY", "sk-nightly-test-0000000000000")
    with MockLLM(api_key="sk-nightly-test-0000000000000") as mock:
        (tmp_path / "c.toml").write_text(
            'name = "paid"\nseed = 1\npersonas = 1\ndays = 7\nstart_date = 2024-01-01\n'
            f'[provider]\nname = "openai"\nmodel = "mock-model"\nbase_url = "{mock.openai_url}"\n'
            'api_key_env = "LIFELOOM_TEST_KEY"\nprice_per_mtok_in = 2.0\nprice_per_mtok_out = 8.0\n'
            '[limits]\nmax_cost_usd = 0.0001\n')
        state = nightly(config_file=str(tmp_path / "c.toml"), home=str(tmp_path / "home"), return_state=True)
        sent = mock.calls
    assert isinstance(state, State) and state.is_failed()
    assert "not started, it costs $" in state.message and "above [limits] max_cost_usd" in state.message
    assert sent == 0 and not (tmp_path / "home" / "releases" / "paid").exists()
