"""Concurrency changes nothing: stages run on a many-worker 'live' gateway give the offline run's rows.

The fake live provider answers each request as the offline narrator would (via the mock's Oracle) after
a random sleep, so calls overlap and finish out of order; every stage's output and the order of its
ledger rows must still equal the sequential offline run.
"""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from schemas.config import ProviderConfig, load_preset
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import Gateway, LLMResponse, estimate_tokens
from tasks.llm.limits import reset_limiters
from tasks.sources import stage as sources
from tasks.world import loop, profile
from tests.llm_mock.server import Oracle


class Shuffled:
    """A 'live' provider: the offline narrator's answer after 0-6 ms, recording overlap and finish order."""

    name, model = "shuffled", "offline-twin"

    def __init__(self, oracle: Oracle) -> None:
        self.oracle, self.rng, self.lock = oracle, random.Random(7), threading.Lock()
        self.in_flight = self.max_in_flight = 0
        self.started: list[str] = []
        self.finished: list[str] = []

    def complete(self, request):
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.started.append(request.call_key)
            pause = self.rng.uniform(0, 0.006)
        time.sleep(pause)
        text = json.dumps(self.oracle.answer(request.prompt_name, request.prompt, request.output_schema))
        with self.lock:
            self.in_flight -= 1
            self.finished.append(request.call_key)
        return LLMResponse(text=text, input_tokens=estimate_tokens(request.prompt), output_tokens=len(text) // 4)


@pytest.fixture
def oracle(monkeypatch):
    reset_limiters()
    yield Oracle().install(monkeypatch)
    reset_limiters()


def build_stages(gateway: Gateway) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """Simulate, write sources and dialogue for the tiny preset's first persona; rows as JSON and the ledger."""
    cfg = load_preset("tiny")
    pid, seed = profile.persona_ids(cfg)[0], profile.seed_texts(cfg)[0]
    persona = profile.enrich_persona(cfg, pid, seed, Gateway(ProviderConfig()))
    world = loop.simulate(cfg, persona, gateway)
    docs = sources.write_sources(cfg, persona, world, gateway)
    talk = dialogue.write_dialogue(cfg, persona, world, docs.documents, gateway)
    ledger = [(r.stage, r.prompt_name, r.persona_id) for r in gateway.drain_ledger()]
    return [world.model_dump_json(), docs.model_dump_json(), talk.model_dump_json()], ledger


def test_stages_give_the_same_rows_on_many_workers_as_offline(oracle):
    rows, ledger = build_stages(Gateway(ProviderConfig()))
    fake = Shuffled(oracle)
    live = Gateway(ProviderConfig(name="openai", model="offline-twin", max_concurrency=8), provider=fake)
    assert live.live
    live_rows, live_ledger = build_stages(live)
    assert fake.max_in_flight > 1 and fake.finished != fake.started  # calls overlapped and finished out of order
    assert len(fake.finished) == len(ledger)
    for stage, (want, got) in zip(("loop", "sources", "dialogue"), zip(rows, live_rows, strict=True), strict=True):
        assert got == want, f"{stage} rows differ under concurrency"
    assert live_ledger == ledger
    prompts = {p for _, p, _ in ledger}
    assert {"outcome", "email", "email_notice", "journal", "report_questions", "report", "user_turn_initial",
            "user_turn_followup", "assistant_turn"} <= prompts
    kinds = json.loads(rows[1])["documents"]
    assert {d["source_type"] for d in kinds} == {"email", "journal", "report"}
    assert {d["format"] for d in kinds} == {"txt", "md", "html"}
