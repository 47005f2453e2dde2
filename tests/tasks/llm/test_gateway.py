import pytest
from pydantic import BaseModel

from schemas.config import ProviderConfig
from tasks.llm import gateway as gw_module
from tasks.llm.cache import CallCache
from tasks.llm.gateway import Gateway, GatewayError, LLMResponse
from tasks.llm.providers.offline import NARRATORS
from tests.llm_mock.prompts import stand_in_prompts


class Greeting(BaseModel):
    text: str


@pytest.fixture(autouse=True)
def fake_prompt(monkeypatch):
    stand_in_prompts(monkeypatch, lambda name, ctx: f"say hello to {ctx['who']}",
                     {"greeting": lambda ctx, rng: {"text": f"hello {ctx['who']} #{rng.randint(0, 9)}"}})


class Scripted:
    """A provider that answers with the given texts in order and records what it was asked."""

    name, model = "scripted", "m1"

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def complete(self, request):
        self.requests.append(request)
        text, truncated = self.answers.pop(0)
        return LLMResponse(text=text, input_tokens=10, output_tokens=5, truncated=truncated)


def test_offline_is_deterministic_and_ledgered():
    gw = Gateway(ProviderConfig())
    a = gw.generate("greeting", {"who": "Ana"}, Greeting, stage="s", persona_id="p0000")
    b = Gateway(ProviderConfig()).generate("greeting", {"who": "Ana"}, Greeting, stage="s", persona_id="p0000")
    assert a == b and a.text.startswith("hello Ana")
    [row] = gw.drain_ledger()
    assert (row.provider, row.prompt_name, row.outcome) == ("offline", "greeting", "ok")
    assert (row.cached, row.attempts) == (False, 1)
    assert row.input_tokens > 0 and row.output_tokens > 0
    assert gw.drain_ledger() == []


def test_second_identical_call_is_served_from_cache():
    gw = Gateway(ProviderConfig())
    gw.generate("greeting", {"who": "Ana"}, Greeting, stage="s", persona_id=None)
    gw.generate("greeting", {"who": "Ana"}, Greeting, stage="s", persona_id=None)
    assert [r.cached for r in gw.drain_ledger()] == [False, True]


def test_disk_cache_survives_a_new_gateway(tmp_path):
    provider = Scripted(('{"text": "hi"}', False))
    Gateway(ProviderConfig(), provider=provider, cache=CallCache(tmp_path)).generate(
        "greeting", {"who": "B"}, Greeting, stage="s", persona_id=None)
    again = Gateway(ProviderConfig(), provider=Scripted(), cache=CallCache(tmp_path))
    assert again.generate("greeting", {"who": "B"}, Greeting, stage="s", persona_id=None).text == "hi"
    assert again.drain_ledger()[0].cached


def test_invalid_then_valid_is_repaired_with_the_error_fed_back():
    provider = Scripted(('{"txt": 1}', False), ('{"text": "fixed"}', False))
    gw = Gateway(ProviderConfig(), provider=provider)
    assert gw.generate("greeting", {"who": "C"}, Greeting, stage="s", persona_id=None).text == "fixed"
    assert provider.requests[0].repair_note is None
    assert "did not validate" in provider.requests[1].repair_note
    [row] = gw.drain_ledger()
    assert (row.outcome, row.attempts, row.input_tokens) == ("repaired", 2, 20)


def test_truncated_and_invalid_answers_fall_back_to_the_template_narrator():
    provider = Scripted(('{"text": "cut', True), ("not json", False), ("{}", False))
    gw = Gateway(ProviderConfig(), provider=provider)
    result = gw.generate("greeting", {"who": "D"}, Greeting, stage="s", persona_id=None)
    assert result.text.startswith("hello D")
    assert "cut off" in provider.requests[1].repair_note
    [row] = gw.drain_ledger()
    assert (row.outcome, row.attempts) == ("fallback", 3)


def test_fallback_that_cannot_validate_raises(monkeypatch):
    monkeypatch.setitem(NARRATORS, "greeting", lambda ctx, rng: {"nope": 1})
    gw = Gateway(ProviderConfig(), provider=Scripted(("x", False), ("x", False), ("x", False)))
    with pytest.raises(GatewayError, match="greeting"):
        gw.generate("greeting", {"who": "E"}, Greeting, stage="s", persona_id=None)


def test_provider_without_key_is_refused(monkeypatch):
    from tasks.llm.providers import ProviderUnavailable, make_provider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="OPENAI_API_KEY"):
        make_provider(ProviderConfig(name="openai", model="gpt-x"))
    assert gw_module.estimate_tokens("abcd" * 10) == 10
