"""World prompts and their offline narrators: rendered prompts, narrative shape, style, validity."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter

import jinja2
import pytest

from schemas.config import BuildConfig, ProviderConfig
from schemas.profile import Profile
from schemas.world import EventNarration
from tasks.llm import prompts
from tasks.llm.gateway import Gateway
from tasks.llm.providers.narrators.world import EMOJI, article, narrate_outcome
from tasks.llm.providers.narrators.world_profile import narrate_profile
from tasks.world.catalog import KINDS
from tasks.world.loop import baseline_drafts, fact_drafts, outcome_context
from tasks.world.profile import BUNDLED_SEEDS, profile_context

CFG = BuildConfig(name="t", seed=3, start_date=dt.date(2024, 3, 1))


def profile_dict(seed_text: str = BUNDLED_SEEDS[0]) -> dict:
    context = profile_context(CFG, "p0001", seed_text)
    return Profile.model_validate(narrate_profile(context, random.Random(1))).model_dump(mode="json")


def event_context(
    kind: str, valence: str, *, emoji: bool = False, verbosity: float = 0.5, seed: int = 0
) -> dict:
    profile = profile_dict()
    profile["personality"]["communication"] |= {"emoji": emoji, "verbosity": verbosity}
    entity = KINDS[kind].draw(random.Random(seed), profile)
    drafts = fact_drafts(KINDS[kind].outcome(valence), entity, profile["identity"]["name"])
    event = {
        "kind": kind,
        "title": KINDS[kind].title_for(entity),
        "valence": valence,
        "severity": 2,
        "date": "2024-03-05",
        "weekday": "Tuesday",
    }
    return outcome_context(profile, event, entity, drafts)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.replace("Dr. ", "Dr ")) if s.strip()]


def test_outcome_prompt_renders_the_key_lines():
    context = event_context("adopt_pet", "positive")
    name = context["persona"]["name"]
    fact = context["facts"][0]
    text = prompts.render("outcome", context)
    assert text.startswith("You write short diary-style notes for a simulated person")
    assert f"Person: {name}, " in text
    assert "Date: Tuesday 2024-03-05" in text
    assert f"What was planned: {context['event']['title']}" in text
    assert "How it turned out: positive (severity 2 of 5)" in text
    assert f'- "{fact["mention"]}" ({name}, pet: {fact["value"]})' in text
    assert "2 to 4 sentences" in text and text.rstrip().endswith(
        'Return only JSON: {"narrative": "<the note>"}'
    )


def test_profile_prompt_renders_the_key_lines():
    context = profile_context(CFG, "p0004", BUNDLED_SEEDS[0])
    text = prompts.render("profile", context)
    assert "Persona id: p0004" in text and f"Seed description: {BUNDLED_SEEDS[0]}" in text
    assert "starting on 2024-03-01" in text
    assert "- city: Lisbon, Portugal (time zone Europe/Lisbon)" in text
    assert "- age: 34" in text and "- occupation: nurse" in text
    assert "Two of them must share a first name" in text


def test_prompts_are_strict_about_missing_context():
    context = event_context("new_cafe", "positive")
    del context["style"]
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("outcome", context)
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("profile", {"persona_id": "p0000", "seed_text": "x", "start_date": "2024-01-01"})


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("valence", ["positive", "negative"])
def test_every_kind_states_its_facts_in_two_to_four_sentences(kind, valence):
    for seed in range(6):
        context = event_context(kind, valence, verbosity=seed / 5, seed=seed)
        text = narrate_outcome(context, random.Random(seed))["narrative"]
        for fact in context["facts"]:
            assert fact["mention"] in text
        assert "For the record" not in text, text
        assert 2 <= len(sentences(text)) <= 4, text
        assert not re.search(r"\{\w+\}|  ", text)


def test_style_controls_emoji_and_phrasing_varies():
    plain = [
        narrate_outcome(event_context("start_book", "positive", seed=s), random.Random(s))["narrative"]
        for s in range(20)
    ]
    glyphs = {g for v in EMOJI.values() for g in v}
    assert not any(g in text for text in plain for g in glyphs)
    with_emoji = narrate_outcome(event_context("start_book", "negative", emoji=True), random.Random(3))
    assert with_emoji["narrative"][-1] in EMOJI["negative"]
    assert len(set(plain)) >= 15
    assert max(Counter(sentences(t)[0] for t in plain).values()) < 10


def test_baseline_narration_states_every_profile_fact():
    profile = profile_dict(BUNDLED_SEEDS[5])
    drafts = baseline_drafts(profile, profile["identity"]["name"])
    event = {
        "kind": "baseline",
        "title": "baseline",
        "valence": "positive",
        "severity": 1,
        "date": "2024-03-01",
        "weekday": "Friday",
    }
    context = outcome_context(profile, event, {}, drafts)
    text = narrate_outcome(context, random.Random(0))["narrative"]
    assert all(d.mention in text for d in drafts) and "For the record" not in text
    assert "a self-introduction" in prompts.render("outcome", context)


def test_profile_narrator_output_is_a_valid_profile_for_every_seed():
    for i, seed_text in enumerate(BUNDLED_SEEDS):
        context = profile_context(CFG, f"p{i:04d}", seed_text)
        profile = Profile.model_validate(narrate_profile(context, random.Random(i)))
        assert profile.identity.name == context["hints"]["name"]
        if profile.identity.occupation.startswith("retired"):
            assert profile.identity.employer == "retired"
        assert "pet" not in {b.kind for b in profile.belongings}


def test_gateway_round_trip_records_the_outcome_call():
    gateway = Gateway(ProviderConfig())
    context = event_context("city_trip", "negative")
    result = gateway.generate("outcome", context, EventNarration, stage="loop", persona_id="p0001")
    assert context["facts"][0]["mention"] in result.narrative
    (row,) = gateway.drain_ledger()
    assert (row.provider, row.prompt_name, row.stage, row.outcome) == ("offline", "outcome", "loop", "ok")


def test_article():
    assert article("university student") == "a university student"
    assert article("accountant") == "an accountant"
    assert article("rescue dog") == "a rescue dog"
