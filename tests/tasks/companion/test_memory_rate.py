"""dialogue.memory_rate steers the share of user turns that need memory from outside the recent window."""

from __future__ import annotations

import pytest

from tasks.common.facttext import mentions
from tasks.companion import natural_rate, persona_needs
from tasks.dialogue.verify import scopes_for, turn_problems
from tests.tasks.companion.test_probes import simulated


@pytest.mark.parametrize("target", [0.03, 0.15])
def test_memory_rate_holds_within_tolerance(target):
    config, persona, world, corpus = simulated(45, target)
    rate = natural_rate(persona_needs(config, persona, world, corpus))
    assert abs(rate - target) <= max(0.015, 0.25 * target), rate


def test_steered_callbacks_are_flagged_answered_topics_that_need_memory():
    config, persona, world, corpus = simulated(45, 0.15)
    facts = {f.fact_id: f for f in world.facts}
    ordered = sorted(corpus.turns, key=lambda t: (t.timestamp, t.turn_id))
    needs = {n.turn.turn_id: n for n in persona_needs(config, persona, world, corpus)}
    openings = [t for t in ordered if t.callback_of and t.role == "user"]
    assert len(openings) >= 10
    for turn in openings:
        i = ordered.index(turn)
        reply = ordered[i + 1]
        assert reply.role == "assistant" and reply.session_id == turn.session_id
        assert reply.callback_of == turn.callback_of
        fact = facts[turn.callback_of]
        assert turn.paraphrase_ids == [fact.fact_id] and turn.fact_ids == []
        assert not any(mentions(turn.text, form) for form in fact.surface_forms)
        assert "mention" not in turn.text.lower()
        told = [t for t in ordered[:i] if t.role == "user" and fact.fact_id in t.fact_ids]
        assert told and told[0].session_id != turn.session_id
        assert needs[turn.turn_id].memory_need and fact.fact_id in needs[turn.turn_id].required_facts
    scopes = scopes_for(persona, world, corpus)
    bad = [(t.turn_id, p.check) for t in corpus.turns for p in turn_problems(t, scopes[t.turn_id])
           if p.check not in ("assistant_length", "assistant_reveals_untold") or t.callback_of]
    assert bad == []


def test_a_rate_below_the_natural_one_thins_the_callbacks():
    """Ninety days: a life that keeps to its change rates tells enough earlier facts again for a natural rate."""
    config, persona, world, natural = simulated(90, None)
    low_config, _, _, low = simulated(90, 0.005)
    assert natural_rate(persona_needs(config, persona, world, natural)) > 0.015
    assert natural_rate(persona_needs(low_config, persona, world, low)) <= 0.01


def test_no_memory_rate_never_steers(monkeypatch):
    from tasks.dialogue import recall as dialogue_recall

    def boom(*args, **kwargs):
        raise AssertionError("steered with memory_rate None")
    monkeypatch.setattr(dialogue_recall, "thinned_callbacks", boom)
    monkeypatch.setattr(dialogue_recall, "recalls", boom)
    simulated.cache_clear()
    _, _, _, corpus = simulated(20, None)
    assert not any(t.callback_of for t in corpus.turns)
    simulated.cache_clear()


def test_the_rate_holds_for_the_probes_window_when_companion_window_is_set():
    from schemas.config import BuildConfig
    from tasks.dialogue import stage as dialogue
    from tasks.llm.gateway import Gateway

    base, persona, world, corpus = simulated(45, None)
    data = base.model_dump(mode="json")
    data["stages"]["dialogue"]["memory_rate"] = 0.15
    data["stages"]["companion"]["window"] = 12
    config = BuildConfig.model_validate(data)
    talk = dialogue.write_dialogue(config, persona, world, corpus.documents, Gateway(config.provider))
    assert abs(natural_rate(persona_needs(config, persona, world, talk)) - 0.15) <= 0.0375
