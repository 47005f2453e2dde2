"""No key ever leaks: a matrix over every path a secret can take, each followed by a scan of every byte written
under the data root, PREFECT_HOME and the Prefect server's database (plus everything printed and logged) for any
8-character run of the fake key.

Paths: preflight against an endpoint that rejects the key and echoes it in a short or a long body; a build whose
endpoint starts rejecting the key mid-build (short and long echoes) through the Prefect result store, the task
states, logs and events of the session's Prefect server, and the ledger; a build that succeeds while some calls
fail with the key deep in the error body, so the ledger's error column, the manifest and the card are written.
Both providers each time.
"""

import json
import logging
import os
import secrets
import time
from pathlib import Path

import pytest
from prefect.settings import get_current_settings
from typer.testing import CliRunner

from flows.build import build_corpus
from flows.cli import app
from schemas.config import ProviderConfig, load_preset
from tasks.llm.limits import reset_limiters
from tests.llm_mock.server import MockLLM, Oracle

FAKE_KEY = "sk-" + "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
                           for _ in range(32))
RUNS = {FAKE_KEY[i:i + 8] for i in range(len(FAKE_KEY) - 7)}
PROVIDERS = ("openai", "anthropic")


def leaks(data: bytes | str) -> list[str]:
    data = data.encode() if isinstance(data, str) else data
    return sorted(r for r in RUNS if r.encode() in data)


def server_database() -> Path:
    url = str(get_current_settings().server.database.connection_url.get_secret_value())
    return Path(url.split(":///", 1)[1])


def flush_prefect() -> None:
    """Send every buffered log and event to the server, and give it time to write them."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all()
    EventsWorker.drain_all()
    time.sleep(1.0)


def server_holds(needle: bytes, timeout_s: float = 20.0) -> bool:
    """Whether the server's database files (the WAL included) hold `needle`, polled while the server writes."""
    deadline = time.monotonic() + timeout_s
    while True:
        folder = server_database().parent
        if any(needle in p.read_bytes() for p in folder.glob(server_database().name + "*") if p.is_file()):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


def scanned_roots(home: Path) -> list[Path]:
    return [home, Path(get_current_settings().home), server_database().parent]


def assert_nothing_leaked(home: Path, *texts: str) -> int:
    """No 8-character run of the key in any file under the roots or in the texts; returns the bytes scanned."""
    flush_prefect()
    scanned = 0
    for text in texts:
        assert not leaks(text), leaks(text)
    for root in scanned_roots(home):
        for folder, _, files in os.walk(root):
            for name in files:
                path = Path(folder) / name
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                scanned += len(data)
                assert not leaks(data), (path, leaks(data))
    return scanned


@pytest.fixture()
def mock(monkeypatch):
    monkeypatch.setenv("LIFELOOM_SECRET_TEST_KEY", FAKE_KEY)
    monkeypatch.setattr("tasks.llm.limits.BACKOFF_BASE_S", 0.01)
    oracle = Oracle().install(monkeypatch)
    reset_limiters()
    with MockLLM(answer=oracle.answer, api_key=FAKE_KEY, retry_after="0.05", timeout_sleep_s=1.0) as server:
        yield server
    reset_limiters()


def config_for(provider: str, mock: MockLLM, **update):
    url = mock.openai_url if provider == "openai" else mock.anthropic_url
    llm = ProviderConfig(name=provider, model="mock-model", base_url=url, api_key_env="LIFELOOM_SECRET_TEST_KEY",
                         timeout_s=1.0, max_concurrency=4, max_retries=1)
    return load_preset("tiny").model_copy(update={"provider": llm, **update})


def write_config(path: Path, provider: str, url: str) -> Path:
    path.write_text(f'name = "leak"\npersonas = 1\ndays = 7\n[provider]\nname = "{provider}"\nmodel = "mock-model"\n'
                    f'base_url = "{url}"\napi_key_env = "LIFELOOM_SECRET_TEST_KEY"\ntimeout_s = 2.0\n')
    return path


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("reject", ["401echo", "401long"])
def test_preflight_with_a_rejected_key_echoed_by_the_endpoint(provider, reject, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LIFELOOM_SECRET_TEST_KEY", FAKE_KEY)
    with MockLLM(api_key="sk-the-right-key-is-something-else", reject=reject) as server, \
            caplog.at_level(logging.DEBUG):
        url = server.openai_url if provider == "openai" else server.anthropic_url
        cfg = write_config(tmp_path / "c.toml", provider, url)
        result = CliRunner().invoke(app, ["build", "--config", str(cfg), "--home", str(tmp_path / "home")])
    assert result.exit_code == 2 and "rejected the key in $LIFELOOM_SECRET_TEST_KEY (HTTP 401)" in result.output
    assert not (tmp_path / "home" / "releases").exists()
    assert_nothing_leaked(tmp_path, result.output, caplog.text)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("fault", ["401echo", "401long"])
def test_a_key_rejected_mid_build_and_echoed_never_lands(provider, fault, mock, tmp_path, caplog, capfd):
    mock.script(*["ok"] * 6, *[fault] * 5000)  # the key stops working: every retry is refused too
    with caplog.at_level(logging.DEBUG), pytest.raises(Exception) as info:
        build_corpus(config=config_for(provider, mock), home=str(tmp_path / "home"))
    assert "HTTP 401" in str(info.value)
    out, err = capfd.readouterr()
    flush_prefect()
    assert server_holds(b"HTTP 401")  # the failure reached the server (its message, without the key) before the scan
    scanned = assert_nothing_leaked(tmp_path, str(info.value), caplog.text, out, err)
    assert scanned > 100_000  # the data root, Prefect's home and its database were all there to scan


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_build_whose_failed_calls_echo_the_key_writes_ledger_manifest_and_card_without_it(provider, mock, tmp_path,
                                                                                           caplog, capfd):
    mock.script("400long", "500long", "500long", "400long", *["ok"] * 3, "400long")
    config = config_for(provider, mock)
    # the fallbacks change a few turns of this tiny corpus; its validity measures are not what is tested here
    config = config.model_copy(update={"gates": config.gates.model_copy(update={"measures": {}})})
    with caplog.at_level(logging.DEBUG):
        result = build_corpus(config=config, home=str(tmp_path / "home"))
    folder = Path(result["release"]["path"])
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["ledger"]["outcomes"].get("fallback", 0) >= 2
    import duckdb

    con = duckdb.connect()
    errors = [e for (e,) in con.execute(
        f"select error from read_parquet('{folder / 'llm_calls.parquet'}') where error is not null").fetchall()]
    assert errors and all("Key provided: ***" in e for e in errors), errors[:2]
    out, err = capfd.readouterr()
    assert "lifeloom verify" in (folder / "README.md").read_text()
    assert_nothing_leaked(tmp_path, caplog.text, out, err)
