"""Finance pack world hooks: baseline facts, the schedule and LOOP with the pack wired in."""

from __future__ import annotations

import datetime as dt

import pytest

from schemas.config import BuildConfig, ConfigError, ProviderConfig
from schemas.finance import ImpactConstraint, InvestorProfile
from tasks.common.facttext import carries
from tasks.domains.finance import catalog, world
from tasks.domains.finance import impact as im
from tasks.domains.finance import investors as inv
from tasks.llm.gateway import Gateway
from tasks.world.evolve import facts_valid_at
from tasks.world.loop import simulate
from tasks.world.profile import enrich_persona, persona_ids, seed_texts


def config(**kw) -> BuildConfig:
    base = {"name": "fin", "seed": 3, "personas": 4, "domain": "finance", "start_date": dt.date(2020, 1, 1),
            "days": 400, "pack": {"personal_share": 0.4}}
    return BuildConfig(**(base | kw))


@pytest.fixture(scope="module")
def cfg() -> BuildConfig:
    return config()


@pytest.fixture(scope="module")
def personas(cfg):
    gateway = Gateway(ProviderConfig())
    pairs = zip(persona_ids(cfg), seed_texts(cfg), strict=True)
    return [enrich_persona(cfg, pid, text, gateway) for pid, text in pairs]


@pytest.fixture(scope="module")
def world_of(cfg, personas):
    return simulate(cfg, personas[0], Gateway(ProviderConfig()))


def test_schedule_counts_spacing_window_and_kinds(cfg, personas):
    opts = world.options(cfg)
    for persona in personas:
        events = world.schedule(cfg, persona)
        assert opts.events_min <= len(events) <= opts.events_max
        dates = [e.date for e in events]
        assert dates == sorted(dates) and cfg.start_date <= dates[0] and dates[-1] <= cfg.end_date
        assert all((b - a).days >= opts.min_gap_days for a, b in zip(dates, dates[1:], strict=False))
        assert len({e.key for e in events}) == len(events)
        for e in events:
            row = catalog.event(e.key)
            assert e.kind == f"{'personal' if row.type == 'personal' else 'market'}:{e.key}" and e.title == row.title
            assert row.type == "personal" or e.date == row.date
        assert world.schedule(cfg, persona) == events
    kinds = [e.kind.split(":")[0] for p in personas for e in world.schedule(cfg, p)]
    assert "personal" in kinds and "market" in kinds


def test_baseline_facts_state_the_investor(cfg, personas):
    persona = personas[0]
    investor = InvestorProfile.model_validate(persona.attributes)
    facts = {d.attribute: d for d in world.baseline_facts(cfg, persona)}
    assert facts["risk_tolerance"].value == inv.risk_band(investor.risk_score)
    assert facts["risk_tolerance"].path == "traits.preferences.risk_tolerance"
    assert facts["stock_allocation"].value == f"{inv.allocation(investor.risk_score)}% in stocks"
    assert facts["investment_horizon"].path == "traits.preferences.investment_horizon"
    old_hand = investor.model_copy(update={"experience_years": 15})
    assert world.formative_memory(old_hand, cfg.start_date) == "lost money in the 2008 crash"
    assert world.formative_memory(investor.model_copy(update={"experience_years": 1}), cfg.start_date) is None


def test_loop_rolls_out_the_pack_events(cfg, personas, world_of):
    persona = personas[0]
    scheduled = world.schedule(cfg, persona)
    pack_events = [e for e in world_of.events if im.is_impact_event(e)]
    assert [(e.date, e.kind) for e in pack_events] == [(s.date, s.kind) for s in scheduled]
    assert [e.event_id for e in world_of.events] == [f"p0000-e{i:04d}" for i in range(len(world_of.events))]
    assert all(e.plan_id is None and e.narrative for e in pack_events)
    rows = world_of.extras["impact_constraints"]
    assert [r.event_id for r in rows] == [e.event_id for e in pack_events]
    assert all(isinstance(r, ImpactConstraint) and r.narrative and r.confidence in (1.0, 0.2) for r in rows)
    for event, row in zip(pack_events, rows, strict=True):
        assert row.narrative == event.narrative
        assert event.valence == ("negative" if row.shock < 0 else "positive")
        facts = [f for f in world_of.facts if f.event_id == event.event_id]
        assert facts and all(carries(event.narrative, f) for f in facts)
        assert any(f.attribute == "reaction" and f.value == row.action for f in facts)
    for earlier, later in zip(rows, rows[1:], strict=False):
        assert later.risk_before == earlier.risk_after
    last_day = cfg.end_date
    current = {f.attribute: f.value for f in facts_valid_at(world_of.facts, last_day) if f.subject == persona.name}
    final = world_of.profile_snapshots[-1].profile["traits"]["preferences"]
    assert current["stock_allocation"] == final["stock_allocation"] == f"{round(rows[-1].risk_after * 100)}% in stocks"


def test_loop_is_deterministic(cfg, personas, world_of):
    again = simulate(cfg, personas[0], Gateway(ProviderConfig()))
    assert again.model_dump(mode="json") == world_of.model_dump(mode="json")


def test_every_persona_gets_a_shock_even_where_the_window_holds_none(personas):
    for cfg_ in (config(), config(start_date=dt.date(2021, 6, 1), days=260)):  # the second window: no market shock
        opts = world.options(cfg_)
        assert bool(world.market_shocks(cfg_)) == (cfg_.start_date.year == 2020)
        for persona in personas:
            events = world.schedule(cfg_, persona)
            assert any(catalog.event(e.key).severity >= opts.shock_severity for e in events)


def test_check_refuses_a_window_and_share_that_give_no_shock():
    world.check(config(start_date=dt.date(2021, 6, 1), days=260))
    with pytest.raises(ConfigError, match="shock_severity"):
        world.check(config(start_date=dt.date(2021, 6, 1), days=260, pack={"personal_share": 0}))


def test_personal_events_fit_the_persona(personas):
    assert not world.personal_fits("job_loss", 70) and not world.personal_fits("promotion_raise", 67)
    assert not world.personal_fits("new_child", 60) and world.personal_fits("new_child", 30)
    assert world.personal_fits("medical_emergency", 80) and world.personal_fits("retirement", 63)
    cfg_ = config(days=2008, pack={"personal_share": 0.6, "events_min": 6, "events_max": 8})
    for persona in personas:
        for age in (30, 70):
            aged = persona.model_copy(update={"attributes": persona.attributes | {"age": age}})
            keys = [e.key for e in world.schedule(cfg_, aged) if e.kind.startswith("personal:")]
            assert all(world.personal_fits(k, age) for k in keys), (age, keys)
            assert len(set(keys) & world.JOB_LOSS) <= 1
            lost = next((i for i, k in enumerate(keys) if k in world.JOB_LOSS), None)
            assert lost is None or not {"promotion_raise", "pay_cut", "bonus_windfall"} & set(keys[lost:]), keys


def test_horizon_of_one_year_is_singular():
    profile = InvestorProfile(age=30, annual_income=1, wealth=1, experience_years=1,
                              goals=["building an emergency fund"], horizon_years=1,
                              big_five=dict.fromkeys(inv.TRAITS, 0.5), risk_score=0.5,
                              bit_type="follower", region="Europe")
    assert world.preferences(profile)["investment_horizon"] == "1 year"
    cand = inv.Candidate(profile, inv.CITIES[0], "female", "nurse")
    assert "investing for 1 year (since 2019)" in inv.seed_text(cand, 2020)


def test_a_job_loss_sets_the_work_status_and_ends_the_employer(cfg, personas):
    from tasks.domains.base import ScheduledEvent

    persona = personas[1]
    job = persona.profile.identity.occupation
    state = type("S", (), {"profile": persona.profile.model_dump(mode="json"), "facts": []})()
    sched = ScheduledEvent("job_loss", dt.date(2020, 6, 1), "personal:job_loss", "losing a job")
    out = world.roll_out(cfg, persona, state, sched, "p0001-e0009", [])
    [status] = [d for d in out.drafts if d.attribute == "work_status"]
    assert (status.value, status.forms) == (f"out of work (formerly {job})", ("out of work",))
    assert not [d for d in out.drafts if d.attribute == "occupation"]  # the trade stays what it is
    if persona.profile.identity.employer not in ("unemployed", "retired"):
        [employer] = [d for d in out.drafts if d.attribute == "employer"]
        assert (employer.value, employer.forms, employer.path) == ("unemployed", ("out of work",), "identity.employer")
    c = out.rows["impact_constraints"][0]
    assert "out of work" in im.fact_phrases(c)
    narrative = im.fallback_narrative(c, sched.title, "")
    assert "out of work" in narrative
    assert world.work_drafts(persona.name, catalog.event("inheritance"), state) == []
