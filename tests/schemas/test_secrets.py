"""The one redactor: configured keys are masked wherever 8 of their characters appear, before any cut."""

import logging

import pytest

from schemas.config import ProviderConfig
from schemas.secrets import clip, display_url, install_log_redaction, redact, register_secret, url_problem

KEY = "sk-test-Zq8RmV2xT4kLp9Wn3Yb6Hd1Fc5Gs7Ja0"


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """Keys registered by other tests of the session stay out of these."""
    import schemas.secrets as secrets

    monkeypatch.setattr(secrets, "_secrets", set())
    monkeypatch.setattr(secrets, "_key_envs", set(secrets.DEFAULT_KEY_ENVS))


def runs(text: str, secret: str = KEY, n: int = 8) -> list[str]:
    return [secret[i:i + n] for i in range(len(secret) - n + 1) if secret[i:i + n] in text]


def test_a_key_cut_by_truncation_or_echoed_in_part_is_masked():
    body = "x" * 290 + f"Incorrect API key provided: {KEY}. " + "y" * 100
    assert runs(clip(body, 300, KEY)) == []
    assert runs(redact(f"partial {KEY[5:19]} and {KEY[-9:]}", KEY)) == []
    assert redact(f"key {KEY} here", KEY) == "key *** here"


def test_registered_keys_and_key_variables_are_masked_without_being_passed(monkeypatch):
    register_secret(KEY)
    assert runs(redact(f"echo {KEY[3:30]}")) == []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-AAAABBBBCCCCDDDDEEEE")
    assert "BBBBCCCC" not in redact("got AAAABBBBCCCCDDDD back")


@pytest.mark.parametrize("text", [
    "api_key=Q1w2E3r4T5y6U7i8", '{"api_key": "Q1w2E3r4T5y6U7i8"}', "Authorization: Bearer Q1w2E3r4T5y6U7i8",
    "x-api-key: Q1w2E3r4T5y6U7i8", "https://h/v1?key=Q1w2E3r4T5y6U7i8", "access_token='Q1w2E3r4T5y6U7i8'",
    "API key provided: Q1w2E3r4T5y6U7i8", "sk-ant-Q1w2E3r4T5y6U7i8",
])
def test_anything_shaped_like_a_key_next_to_a_key_name_is_masked(text):
    assert "Q1w2E3r4" not in redact(text)


def test_ordinary_text_and_variable_names_survive():
    text = 'set the environment variable OPENAI_API_KEY; api_key_env="LIFELOOM_KEY"; cache_key=abcdef0123456789'
    assert redact(text) == text


def test_base_urls_with_key_like_query_or_fragment_are_refused_and_never_printed_whole():
    assert url_problem("http://127.0.0.1:8000/v1?api-version=2024-06-01") is None
    for bad in ("http://h/v1?api_key=abc", "http://h/v1?token=abc", "http://h/v1#access_token=abc",
                "http://h/v1?x=sk-abcdefghijkl", "http://u:p@h/v1"):
        assert url_problem(bad), bad
        with pytest.raises(ValueError, match="credential"):
            ProviderConfig(name="openai", base_url=bad)
    assert display_url("https://u:p@host:8080/v1?api-version=1#f") == "https://host:8080/v1"


def test_every_log_record_is_redacted_message_arguments_and_traceback(caplog):
    install_log_redaction()
    register_secret(KEY)
    log = logging.getLogger("lifeloom.test.secrets")
    with caplog.at_level(logging.INFO):
        log.info("answer %s", f"body {KEY}")
        try:
            raise RuntimeError(f"401: {KEY[2:]}")
        except RuntimeError:
            log.exception("failed")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert runs(text) == [] and "answer body ***" in text


def test_a_key_in_a_command_line_base_url_is_refused_without_being_printed(tmp_path):
    from typer.testing import CliRunner

    from flows.cli import app

    url = "http://127.0.0.1:9/v1?token=Zq8RmV2xT4kLp9Wn3Yb6Hd1F"
    result = CliRunner().invoke(app, ["eval", "--release", "x/v0001", "--provider", "openai", "--model", "m",
                                      "--base-url", url, "--home", str(tmp_path)])
    assert result.exit_code == 2 and "looks like a credential" in result.output
    assert runs(result.output, "Zq8RmV2xT4kLp9Wn3Yb6Hd1F") == []
