import os

import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")


@pytest.fixture(scope="session", autouse=True)
def prefect_backend(request, tmp_path_factory):
    """One temporary Prefect API for the whole e2e session (starting one costs 12 to 15 s). When tests
    need a real `prefect server`, it starts first, so both start up at the same time."""
    from prefect.testing.utilities import prefect_test_harness

    if any("prefect_server" in item.fixturenames for item in request.session.items):
        _SERVER["started"] = _start_server(tmp_path_factory.mktemp("prefect_home"))
    with prefect_test_harness(server_startup_timeout=120):
        yield


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SERVER: dict = {}


def _start_server(home):
    """Start `prefect server` on a free loopback port with its own PREFECT_HOME; returns (process, url, home).

    The port is set with PREFECT_SERVER_API_PORT (not --port) so the UI it serves calls the same API."""
    import subprocess
    import sys

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_API_HOST": "127.0.0.1",
           "PREFECT_SERVER_API_PORT": str(port), "PREFECT_UI_API_URL": f"{url}/api",
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    env.pop("PREFECT_API_URL", None)
    with open(home / "server.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start"], env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return proc, url, home


@pytest.fixture(scope="session")
def prefect_server(prefect_backend, tmp_path_factory):
    """A real `prefect server` on a free loopback port (started with the session); yields its base URL."""
    import signal
    import subprocess
    import time
    import urllib.request

    proc, url, home = _SERVER.pop("started", None) or _start_server(tmp_path_factory.mktemp("prefect_home"))
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/health", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"prefect server did not start: {(home / 'server.log').read_text()[-2000:]}")
                time.sleep(0.3)
        yield url
    finally:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="session")
def lifeloom_cmd():
    """(argv, env) for a `lifeloom` subprocess: telemetry off, reporting to `api_url` when given (else the
    subprocess starts its own temporary API)."""
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("lifeloom")

    def make(args: list[str], api_url: str | None = None) -> tuple[list[str], dict[str, str]]:
        env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1",
               "PREFECT_LOGGING_LEVEL": "WARNING", "COLUMNS": "160"}
        env.pop("PREFECT_API_URL", None)
        if api_url:
            env["PREFECT_API_URL"] = f"{api_url}/api"
        return [str(exe), *args], env

    return make
