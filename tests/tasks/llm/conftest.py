import pytest

from tasks.llm.limits import reset_limiters


@pytest.fixture(autouse=True)
def fresh_limiters(monkeypatch):
    monkeypatch.setattr("tasks.llm.limits.BACKOFF_BASE_S", 0.02)
    reset_limiters()
    yield
    reset_limiters()


@pytest.fixture
def mock():
    from tests.llm_mock.server import MockLLM

    with MockLLM(retry_after="0.05", timeout_sleep_s=0.6) as server:
        yield server
