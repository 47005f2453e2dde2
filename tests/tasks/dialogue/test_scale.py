"""RHELM's scale on the rhelm preset: one persona-year of dialogue and documents, offline."""

from __future__ import annotations

from collections import Counter

import pytest

from schemas.config import ProviderConfig, load_preset
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import Gateway
from tasks.metrics.text import normal, sentences, skeleton
from tasks.sources import stage as sources
from tasks.sources.chunking import count_tokens
from tasks.world import loop, profile


@pytest.fixture(scope="module")
def persona_year():
    config = load_preset("rhelm")
    gateway = Gateway(ProviderConfig())
    pid, seed = profile.persona_ids(config)[0], profile.seed_texts(config)[0]
    persona = profile.enrich_persona(config, pid, seed, gateway)
    world = loop.simulate(config, persona, gateway)
    docs = sources.write_sources(config, persona, world, gateway)
    return config, world, docs, dialogue.write_dialogue(config, persona, world, docs.documents, gateway)



def test_a_persona_year_has_rhelm_scale(persona_year):
    _, _, docs, talk = persona_year
    users = [t for t in talk.turns if t.role == "user"]
    assert len(users) >= 1000
    tokens = sum(count_tokens(t.text) for t in talk.turns) + sum(count_tokens(d.body) for d in docs.documents)
    assert 550_000 <= tokens <= 1_000_000  # from a fuller year (the student: 610,457), not from padded replies


def test_user_turns_are_varied_and_every_category_and_kind_occurs(persona_year):
    _, _, _, talk = persona_year
    users = [t for t in talk.turns if t.role == "user"]
    said = [s for t in users for s in sentences(t.text)]
    assert len({normal(s) for s in said}) / len(said) >= 0.6
    assert sum(n for _, n in Counter(skeleton(s) for s in said).most_common(50)) / len(said) <= 0.2
    assert set(Counter(t.category for t in users)) == {
        "information_sharing", "advice_seeking", "status_update", "scheduling", "attachment_consultation"}
    kinds = Counter(t.kind for t in users)
    assert kinds["filler"] > 0 and kinds["followup"] >= kinds["initial"]
    assert any(t.time_refs for t in users)
