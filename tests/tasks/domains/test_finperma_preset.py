"""The finperma preset meets the issue's quotas: types, anti-typical share, 5-8 spaced events, a shock each."""

from __future__ import annotations

import math
from collections import Counter

from schemas.config import load_preset
from schemas.finance import BIT_TYPES, InvestorProfile
from schemas.profile import Persona
from tasks.domains.finance import catalog, world


def test_finperma_personas_and_schedules_meet_the_quotas():
    cfg = load_preset("finperma")
    opts = world.options(cfg)
    assert (opts.type_floor, opts.events_min, opts.events_max, opts.min_gap_days) == (0.2, 5, 8, 28)
    world.check(cfg)
    seeds = world.persona_seeds(cfg)
    assert len(seeds) == cfg.personas == 8
    investors = [InvestorProfile.model_validate(s.attributes) for s in seeds]
    types = Counter(i.bit_type for i in investors)
    assert all(types[t] >= math.ceil(0.2 * cfg.personas) for t in BIT_TYPES), types
    assert all(types[t] / cfg.personas >= 0.2 for t in BIT_TYPES)
    assert sum(i.anti_typical for i in investors) == round(opts.anti_typical_share * cfg.personas) == 1
    assert world.persona_seeds(cfg) == seeds
    for i, seed in enumerate(seeds):
        persona = Persona.model_construct(persona_id=f"p{i:04d}", name=f"P{i}", attributes=seed.attributes)
        events = world.schedule(cfg, persona)
        assert 5 <= len(events) <= 8
        assert all((b.date - a.date).days >= 28 for a, b in zip(events, events[1:], strict=False))
        assert cfg.start_date <= events[0].date and events[-1].date <= cfg.end_date
        assert any(catalog.event(e.key).severity >= opts.shock_severity for e in events)
        assert all(world.personal_fits(e.key, investors[i].age) for e in events if e.kind.startswith("personal:"))
