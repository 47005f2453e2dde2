"""Finance pack personas: stated distributions, BIT rule, type floors, anti-typical share, config checks."""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import Counter

import pytest

from schemas.config import BuildConfig, ConfigError
from schemas.finance import BIT_TYPES, InvestorProfile
from tasks.domains.base import PersonaSeed
from tasks.domains.finance import investors as inv
from tasks.domains.finance import world
from tasks.world.profile import parse_seed


def config(**kw) -> BuildConfig:
    base = {"name": "fin", "seed": 7, "personas": 10, "domain": "finance", "start_date": dt.date(2020, 1, 1),
            "days": 365}
    return BuildConfig(**(base | kw))


def test_seeds_meet_type_floors_and_anti_typical_share():
    cfg = config(personas=12, pack={"type_floor": 0.25, "anti_typical_share": 0.3})
    seeds = world.persona_seeds(cfg)
    investors = [InvestorProfile.model_validate(s.attributes) for s in seeds]
    counts = Counter(i.bit_type for i in investors)
    assert len(seeds) == 12
    assert all(counts[t] >= math.ceil(0.25 * 12) for t in BIT_TYPES)
    anti = [i for i in investors if i.anti_typical]
    assert len(anti) == round(0.3 * 12)
    assert len({i.bit_type for i in anti}) > 1


def test_seeds_are_deterministic_and_depend_on_the_seed():
    assert world.persona_seeds(config()) == world.persona_seeds(config())
    assert world.persona_seeds(config()) != world.persona_seeds(config(seed=8))


def test_rejection_sampling_rejects_surplus_types():
    rng = random.Random(0)
    cands = inv.sample_corpus(rng, 4, 0.25, 0.0)
    assert sorted(c.investor.bit_type for c in cands) == sorted(BIT_TYPES)


def test_classification_rule():
    assert inv.classify(0.2, 0.3) == "preserver"
    assert inv.classify(0.5, 0.3) == "follower"
    assert inv.classify(0.4, 0.7) == "independent"
    assert inv.classify(0.8, 0.7) == "accumulator"
    calm = {"openness": 0.5, "conscientiousness": 0.5, "extraversion": 0.5, "agreeableness": 0.5, "neuroticism": 0.5}
    anxious = calm | {"neuroticism": 0.95}
    assert inv.risk_score(20, 5, anxious) < inv.risk_score(20, 5, calm) < inv.risk_score(30, 5, calm)


def test_seed_text_parses_back_to_the_attributes():
    for seed in world.persona_seeds(config(personas=12)):
        investor = InvestorProfile.model_validate(seed.attributes)
        parsed = parse_seed(seed.seed_text)
        hints = world.profile_hints(config(), seed)
        assert parsed["age"] == investor.age == hints["age"]
        assert parsed["income_band"] == inv.income_band(investor.annual_income) == hints["income_band"]
        assert parsed["city"] == hints["city"] and hints["country"] in seed.seed_text
        assert hints["occupation"] in seed.seed_text


def test_shape_persona_sets_big_five_and_investing_preferences():
    from schemas.config import ProviderConfig
    from tasks.llm.gateway import Gateway
    from tasks.world.profile import enrich_persona

    cfg = config(personas=4)
    seed = world.persona_seeds(cfg)[0]
    persona = enrich_persona(cfg, "p0000", seed.seed_text, Gateway(ProviderConfig()))
    shaped = world.shape_persona(cfg, persona, PersonaSeed(seed.seed_text, seed.attributes))
    investor = InvestorProfile.model_validate(seed.attributes)
    assert shaped.profile.personality.big_five.model_dump() == investor.big_five
    prefs = shaped.profile.traits.preferences
    assert prefs["risk_tolerance"] == inv.risk_band(investor.risk_score)
    assert prefs["stock_allocation"] == f"{inv.allocation(investor.risk_score)}% in stocks"
    assert prefs["investment_goal"] == investor.goals[0]
    assert shaped.profile.identity.age == investor.age


@pytest.mark.parametrize(("kw", "field"), [
    ({"personas": 3}, "personas"),
    ({"personas": 5, "pack": {"type_floor": 0.25}}, "pack.type_floor"),
    ({"pack": {"events_min": 6, "events_max": 5}}, "pack.events_min"),
    ({"days": 100}, "days"),
    ({"start_date": dt.date(2010, 1, 1)}, "start_date"),
])
def test_check_names_the_field(kw, field):
    with pytest.raises(ConfigError, match=f"field '{field}'"):
        world.check(config(**kw))


def test_check_accepts_a_working_config():
    world.check(config())
