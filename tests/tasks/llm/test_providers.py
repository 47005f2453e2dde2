"""The openai and anthropic providers through the gateway, against the local mock server."""

import pytest
from pydantic import BaseModel

from schemas.config import BuildConfig, ProviderConfig
from tasks.llm import prompts
from tasks.llm.cache import CallCache
from tasks.llm.gateway import CallSpec, Gateway
from tasks.llm.preflight import check_providers
from tasks.llm.providers import ProviderUnavailable
from tasks.llm.providers.common import redact, strict_schema
from tests.llm_mock.prompts import stand_in_prompts

KEY = "sk-unit-FAKE-Hq3Wz8Rk5Nm2Tv7Y"


class Note(BaseModel):
    text: str


@pytest.fixture(autouse=True)
def fake_prompt(monkeypatch):
    templates = {"note": 'Write a note. Include "{w}" verbatim.', "other": 'Another: "{w}".',
                 "chat": "Talk so far:\n" + prompts.CUT + "{turns}" + prompts.CACHE + prompts.CUT + 'Reply with "{w}".'}
    stand_in_prompts(monkeypatch, lambda name, ctx: templates[name].format(
        w=ctx["word"], turns="".join(f"{t}\n{prompts.CUT}" for t in ctx.get("turns", []))),
        dict.fromkeys(templates, lambda ctx, rng: {"text": f"template {ctx['word']}"}))
    monkeypatch.setenv("LLM_UNIT_KEY", KEY)
    return templates


def ctx(word):
    return {"word": word, "facts": [{"must_include": word}]}


def config(mock, name, **kw):
    url = mock.openai_url if name == "openai" else mock.anthropic_url
    return ProviderConfig(name=name, model="mock-model", base_url=url, api_key_env="LLM_UNIT_KEY", timeout_s=0.4,
                          **kw)


def gateway(mock, name, cache=None, **kw):
    return Gateway(config(mock, name, **kw), cache=cache)


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_faults_are_retried_or_repaired_and_counted(mock, name):
    gw = gateway(mock, name, price_per_mtok_in=1.0, price_per_mtok_out=4.0)
    mock.script("429", "500", "timeout", "badbody", "ok")
    assert gw.generate("note", ctx("blue kettle"), Note, stage="s", persona_id="p0").text == "blue kettle"
    for fault in ("malformed", "invalid", "truncate", "omit"):
        mock.script(fault)
        assert "amber" in gw.generate("note", ctx(f"amber {fault}"), Note, stage="s", persona_id="p0").text
    rows = gw.drain_ledger()
    assert [(r.outcome, r.requests, r.attempts) for r in rows] == [("ok", 5, 1)] + [("repaired", 2, 2)] * 4
    assert all(r.cost_usd > 0 and not r.fallback and r.confidence == 1.0 for r in rows)
    assert mock.calls == 5 + 8


def test_three_bad_answers_fall_back_and_are_not_paid_twice(mock, tmp_path):
    gw = gateway(mock, "openai", cache=CallCache(tmp_path))
    mock.script("invalid", "truncate", "omit")
    assert gw.generate("note", ctx("red"), Note, stage="s", persona_id=None).text == "template red"
    [row] = gw.drain_ledger()
    assert (row.outcome, row.fallback, row.confidence, row.attempts) == ("fallback", True, 0.2, 3)
    assert "phrases" in row.error
    again = gateway(mock, "openai", cache=CallCache(tmp_path))
    calls = mock.calls
    again.generate("note", ctx("red"), Note, stage="s", persona_id=None)
    assert mock.calls == calls and again.drain_ledger()[0].cached


def test_transient_failure_falls_back_but_is_retried_next_run(mock, tmp_path):
    gw = gateway(mock, "openai", cache=CallCache(tmp_path), max_retries=1)
    mock.script("500", "500")
    assert gw.generate("note", ctx("green"), Note, stage="s", persona_id=None).text == "template green"
    [row] = gw.drain_ledger()
    assert row.fallback and row.requests == 2 and "HTTP 500" in row.error
    assert CallCache(tmp_path).stats()["retry"] == 1
    again = gateway(mock, "openai", cache=CallCache(tmp_path))
    assert again.generate("note", ctx("green"), Note, stage="s", persona_id=None).text == "green"
    assert CallCache(tmp_path).stats() == {"ok": 1, "retry": 0}


def test_rerun_makes_no_calls_and_a_changed_template_recalls_only_its_calls(mock, tmp_path, fake_prompt):
    items = [CallSpec("note", ctx(f"w{i}"), Note, "s") for i in range(4)]
    items += [CallSpec("other", ctx(f"w{i}"), Note, "s") for i in range(3)]
    gateway(mock, "openai", cache=CallCache(tmp_path)).generate_many(items)
    assert mock.calls == 7
    gateway(mock, "openai", cache=CallCache(tmp_path)).generate_many(items)
    assert mock.calls == 7
    fake_prompt["other"] = 'Another, reworded: "{w}".'
    gw = gateway(mock, "openai", cache=CallCache(tmp_path))
    gw.generate_many(items)
    assert mock.calls == 10
    assert [r.cached for r in gw.drain_ledger()] == [True] * 4 + [False] * 3


def test_generate_many_is_concurrent_and_keeps_input_order(mock):
    mock.latency_s = 0.05
    gw = gateway(mock, "anthropic", max_concurrency=6)
    words = [f"item {i:02d}" for i in range(24)]
    results = gw.generate_many([("note", ctx(w), Note, "s", "p0") for w in words])
    assert [r.text for r in results] == words
    assert [r.call_key for r in gw.drain_ledger()] == [gw.request("note", ctx(w), Note).call_key[:24] for w in words]
    assert 1 < mock.max_in_flight <= 6


def test_payloads_use_native_structured_output(mock):
    request = gateway(mock, "openai").request("note", ctx("x"), Note)
    body = gateway(mock, "openai").provider.payload(request)
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["messages"][0]["role"] == "system" and body["messages"][1]["content"] == request.prompt
    tool_body = gateway(mock, "anthropic").provider.payload(request)
    assert tool_body["tool_choice"] == {"type": "tool", "name": "write_note"}
    assert tool_body["tools"][0]["input_schema"]["properties"]["text"]["type"] == "string"

    class Loose(BaseModel):
        text: str = "default"

    assert strict_schema(Loose.model_json_schema()) is None


def test_anthropic_requests_carry_the_cache_mark_and_read_what_the_turn_before_wrote(mock):
    """A prompt of blocks goes to Anthropic as text blocks with `cache_control` on the block that ends its stable
    prefix (OpenAI gets the joined text and caches by itself); a session's next call, whose blocks start with the
    previous call's, reads that prefix from the cache and writes only what it adds."""
    turns = [f"user: turn {i} " + "about the allotment and the tomatoes " * 30 for i in range(3)]
    request = gateway(mock, "anthropic").request("chat", ctx("x") | {"turns": turns[:2]}, Note)
    assert request.cached_blocks == 3 and "".join(request.blocks) == request.prompt
    [message] = gateway(mock, "anthropic").provider.payload(request)["messages"]
    assert [b["text"] for b in message["content"]] == request.blocks
    assert [("cache_control" in b) for b in message["content"]] == [False, False, True, False]
    assert message["content"][2]["cache_control"] == {"type": "ephemeral"}
    body = gateway(mock, "openai").provider.payload(request)
    assert body["messages"][1]["content"] == request.prompt  # one string: no marks
    assert gateway(mock, "anthropic").provider.payload(gateway(mock, "anthropic").request(
        "note", ctx("x"), Note))["messages"][0]["content"] == 'Write a note. Include "x" verbatim.'

    from tests.llm_mock.server import MockLLM

    with MockLLM(api_key=KEY, prompt_cache=True) as cached:
        gw = gateway(cached, "anthropic", price_per_mtok_in=2.0, price_per_mtok_out=8.0)
        for n in (1, 2, 3):
            gw.generate("chat", ctx(f"w{n}") | {"turns": turns[:n]}, Note, stage="dialogue", persona_id="p0000")
    first, second, third = gw.drain_ledger()
    assert first.cached_input_tokens == 0 and first.cache_write_tokens > 0
    assert second.cached_input_tokens == first.cache_write_tokens  # the first call's prefix, read back
    assert third.cached_input_tokens == second.cached_input_tokens + second.cache_write_tokens
    assert third.cost_usd < first.cost_usd * 1.2  # most of a longer prompt is read at a tenth of the price


def test_a_rejected_key_stops_with_a_clear_message_and_no_secret(mock, monkeypatch):
    mock.api_key = "sk-the-right-one-000000"
    gw = gateway(mock, "openai")
    with pytest.raises(ProviderUnavailable) as info:
        gw.generate("note", ctx("k"), Note, stage="s", persona_id=None)
    assert "HTTP 401" in str(info.value) and KEY not in str(info.value) and KEY[-8:] not in str(info.value)
    assert redact(f"key {KEY} here", KEY) == "key *** here"


def build_config(**providers):
    return BuildConfig(name="t", provider=providers.pop("default"), stages={"providers": providers})


def test_preflight_checks_every_provider_in_use(mock, monkeypatch):
    check_providers(BuildConfig(name="t"))  # offline needs nothing
    check_providers(build_config(default=config(mock, "openai"), loop=config(mock, "anthropic")))
    monkeypatch.delenv("LLM_UNIT_KEY")
    with pytest.raises(ProviderUnavailable, match=r"set the environment variable LLM_UNIT_KEY .*stages loop"):
        check_providers(build_config(default=ProviderConfig(), loop=config(mock, "anthropic")))


def test_preflight_names_unreachable_endpoints_rejected_keys_and_unknown_models(mock, monkeypatch):
    dead = config(mock, "openai").model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(ProviderUnavailable, match="cannot reach http://127.0.0.1:9/v1"):
        check_providers(build_config(default=dead), timeout_s=0.5)
    wrong_model = config(mock, "openai").model_copy(update={"model": "gpt-nope"})
    with pytest.raises(ProviderUnavailable, match="does not offer model 'gpt-nope'"):
        check_providers(build_config(default=wrong_model))
    mock.api_key = "sk-other-0000000000"
    with pytest.raises(ProviderUnavailable, match=r"rejected the key in \$LLM_UNIT_KEY") as info:
        check_providers(build_config(default=config(mock, "anthropic")))
    assert KEY not in str(info.value)


def test_the_mock_server_can_enforce_a_limit_and_report_what_it_saw():
    """bench/gateway.py runs the mock in a child process with a limit of its own: a request beyond `limit_rpm` in a
    minute gets a 429, and GET /_stats says how many it refused."""
    import json
    import urllib.request

    from tasks.llm.limits import reset_limiters
    from tests.llm_mock.server import MockLLM

    reset_limiters()
    with MockLLM(api_key=KEY, limit_rpm=4, retry_after="0") as mock:
        eager = gateway(mock, "openai", requests_per_minute=6000, max_retries=0)  # far above the server's 4 a minute
        rows = [row for _, row in eager.generate_many_traced([CallSpec("note", ctx(f"w{i}"), Note, "s")
                                                              for i in range(6)])]
        stats = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{mock.port}/_stats", timeout=5).read())
    assert stats["requests"] == 6 and stats["rate_limited"] == 2
    assert sum(r.fallback for r in rows) == 2  # the two refused calls fell back (and are retried next run)


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_prompt_cache_tokens_are_recorded_and_priced(name):
    """A provider that reports cached prompt tokens (OpenAI in prompt_tokens_details, Anthropic as cache reads and
    writes beside input_tokens): the ledger holds them within the input, and the cost prices them (reads at the
    cached price, Anthropic's writes at 1.25 times the input price)."""
    from tasks.llm.limits import reset_limiters
    from tests.llm_mock.server import MockLLM

    reset_limiters()
    write = 0.25 if name == "anthropic" else 0.0
    with MockLLM(api_key=KEY, cached_share=0.5, cache_write_share=write) as mock:
        gw = gateway(mock, name, price_per_mtok_in=2.0, price_per_mtok_out=8.0, price_per_mtok_cached_in=0.5)
        gw.generate("note", ctx("kettle " * 400), Note, stage="s", persona_id="p0000")
    [row] = gw.drain_ledger()
    assert row.input_tokens > 0 and row.cached_input_tokens == pytest.approx(row.input_tokens / 2, abs=1)
    assert row.cache_write_tokens == (0 if name == "openai" else pytest.approx(row.input_tokens / 4, abs=1))
    plain = row.input_tokens - row.cached_input_tokens - row.cache_write_tokens
    writes_at = 0.0 if name == "openai" else 2.5  # Anthropic bills a write at 1.25 times the input price
    expected = (plain * 2.0 + row.cached_input_tokens * 0.5 + row.cache_write_tokens * (writes_at or 2.0)
                + row.output_tokens * 8.0) / 1e6
    assert row.cost_usd == pytest.approx(expected, rel=1e-6)
