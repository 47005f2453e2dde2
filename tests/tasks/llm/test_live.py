"""Opt-in calls to the real APIs (`pytest -m live`); skipped without keys."""

import os

import pytest
from pydantic import BaseModel

from schemas.config import ProviderConfig
from tasks.llm.gateway import Gateway
from tests.llm_mock.prompts import stand_in_prompts

pytestmark = pytest.mark.live

MODELS = {"openai": ("OPENAI_API_KEY", "gpt-4o-mini"), "anthropic": ("ANTHROPIC_API_KEY", "claude-haiku-4-5")}


class Note(BaseModel):
    text: str


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_real_model_answers_with_the_required_phrase(name, monkeypatch):
    env, model = MODELS[name]
    if not os.environ.get(env):
        pytest.skip(f"{env} not set")
    stand_in_prompts(monkeypatch, lambda n, ctx: 'Write one sentence that includes "a teal bicycle".', hash_="live")
    gw = Gateway(ProviderConfig(name=name, model=model, max_output_tokens=200))
    out = gw.generate("note", {"facts": [{"must_include": "a teal bicycle"}]}, Note, stage="live", persona_id=None)
    row = gw.drain_ledger()[0]
    assert "teal bicycle" in out.text.lower() or row.fallback
    assert row.input_tokens > 0 and row.outcome in ("ok", "repaired", "fallback")
