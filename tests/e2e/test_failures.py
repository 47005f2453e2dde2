"""Failures a user meets, as the command line shows them (issue 27): one message naming the cause and what to do,
exit 1 or 2, no traceback unless --debug; nothing frozen."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC

import pytest

from tests.llm_mock.server import MockLLM

KEY = "sk-Qm3Vx8Lr2Tz6Wn1Hb5Kc9Jd4Pf7Gs"


def run(argv: list[str], env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_a_failed_gate_is_one_readable_message_and_exit_1(lifeloom_cmd, tmp_path):
    tiny = (os.path.dirname(__file__) + "/../../schemas/presets/tiny.toml")
    text = open(tiny).read().replace('name = "tiny"', 'name = "tinyfail"').replace("fact = 1\n", "fact = 1000\n")
    (tmp_path / "c.toml").write_text(text)
    argv, env = lifeloom_cmd(["build", "--config", str(tmp_path / "c.toml"), "--home", str(tmp_path / "home")])
    done = run(argv, env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout and "GateFailed(" not in done.stderr
    (line,) = errors(done.stderr)
    assert line.startswith("error: build failed: 1 of ") and "gate expectations failed" in line
    assert "observed fact: n " in done.stderr and "floor 1000; expected n >= floor" in done.stderr
    assert not (tmp_path / "home" / "releases" / "tinyfail").exists() or not any(
        (tmp_path / "home" / "releases" / "tinyfail").iterdir())
    debug = run(argv + ["--debug"], env)  # the same failure, with Prefect's own log on the console
    assert debug.returncode == 1 and "Finished in state Failed" in debug.stderr


@pytest.mark.parametrize("provider", ["openai"])
def test_a_provider_refusing_everything_ends_in_one_message_that_says_a_rerun_resumes(lifeloom_cmd, tmp_path,
                                                                                     provider):
    with MockLLM(api_key=KEY, error_rate=1.0, error_kinds=("429",), retry_after="0.1") as mock:
        (tmp_path / "c.toml").write_text(
            'name = "outage"\npersonas = 1\ndays = 7\n[provider]\nname = "openai"\nmodel = "mock-model"\n'
            f'base_url = "{mock.openai_url}"\napi_key_env = "LIFELOOM_TEST_KEY"\ntimeout_s = 2.0\n'
            'price_per_mtok_in = 0.0\nprice_per_mtok_out = 0.0\n')  # a server of one's own: no price to ask about
        argv, env = lifeloom_cmd(["build", "--config", str(tmp_path / "c.toml"), "--home", str(tmp_path / "home")])
        done = run(argv, env | {"LIFELOOM_TEST_KEY": KEY})
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "UnfinishedRun" not in done.stderr
    (line,) = errors(done.stderr)
    assert "429" in line and "a rerun resumes" in line and KEY not in done.stderr + done.stdout
    assert not (tmp_path / "home" / "releases" / "outage").exists()


@pytest.fixture
def small_disk(tmp_path):
    """A tmpfs of 11 MB: room for a tiny build's stages, not for its release (skipped where mounting is refused)."""
    target = tmp_path / "small"
    target.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=11m", "tmpfs", str(target)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or 'mount refused'}): the full-disk case "
                    "is not exercised")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def test_a_full_disk_is_one_message_and_leaves_no_staging_folder(lifeloom_cmd, small_disk):
    argv, env = lifeloom_cmd(["build", "--preset", "tiny", "--home", str(small_disk / "home")])
    done = run(argv, env)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "shutil.Error" not in done.stderr
    (line,) = errors(done.stderr)
    assert "disk full while writing" in line and "free space and rerun" in line
    releases = small_disk / "home" / "releases" / "tiny"
    assert not releases.exists() or not list(releases.iterdir())  # no version, no .vNNNN-* staging folder


def test_the_schedule_line_names_its_time_zone():
    """Issue 27: the deployment list showed the nightly cron without its time zone; `make nightly` prints it."""
    import asyncio
    from datetime import datetime

    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import DeploymentScheduleCreate
    from prefect.client.schemas.schedules import CronSchedule
    from prefect.states import Scheduled

    from flows.schedules import describe

    @flow(name="nightly-zone-probe")
    def probe() -> None:
        return None

    async def deploy() -> None:
        async with get_client() as client:
            flow_id = await client.create_flow(probe)
            deployment = await client.create_deployment(flow_id=flow_id, name="nightly", schedules=[
                DeploymentScheduleCreate(schedule=CronSchedule(cron="0 2 * * *", timezone="Europe/Berlin"),
                                         active=True)])
            # what the server's scheduler creates: the next run, here 02:00 in Berlin (01:00 UTC) on 2031-01-07
            await client.create_flow_run_from_deployment(deployment, state=Scheduled(
                scheduled_time=datetime(2031, 1, 7, 1, 0, tzinfo=UTC)))

    asyncio.run(deploy())
    assert ("schedule nightly-zone-probe/nightly: cron 0 2 * * * in Europe/Berlin (active); "
            "next run 2031-01-07 02:00 CET") in describe()
