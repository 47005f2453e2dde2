"""The world model (issue 3): seeds spread, determinism, constraints, property test, rhelm floors, verifier."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas.config import BuildConfig, ProviderConfig, load_preset
from schemas.profile import Profile
from schemas.world import Constraint, Plan
from tasks.llm.gateway import Gateway
from tasks.world import loop, profile
from tasks.world.catalog import KINDS
from tasks.world.evolve import InvalidOp, WorldState, apply_op, facts_valid_at, validate_profile
from tasks.world.ontology import ATTRIBUTES
from tasks.world.verify import verify_world


def world_for(cfg: BuildConfig, pid: str, seed_text: str):
    gateway = Gateway(ProviderConfig())
    persona = profile.enrich_persona(cfg, pid, seed_text, gateway)
    return persona, loop.simulate(cfg, persona, gateway)


def test_bundled_seeds_are_spread_across_lives():
    rows = profile.bundled_seed_rows()
    assert len(rows) >= 60 and len({r["seed"] for r in rows}) == len(rows)
    for row in rows:
        hints = profile.parse_seed(row["seed"])
        assert (hints["age"], hints["occupation"]) == (row["age"], row["occupation"]), row["seed"]
    ages = [r["age"] for r in rows]
    assert min(ages) <= 19 and max(ages) >= 80
    assert all(any(lo <= a < lo + 10 for a in ages) for lo in range(20, 80, 10))
    assert len({r["country"] for r in rows}) >= 30
    occupations = {r["occupation"] for r in rows}
    assert len(occupations) >= 35
    for word in ("cleaner", "driver", "farmer", "care worker", "retail", "plumber", "student", "retired", "unemployed"):
        assert any(word in o for o in occupations), word


def test_same_seed_same_world_independent_of_order_and_count():
    cfg3 = BuildConfig(name="t", seed=9, personas=3, days=45)
    cfg1 = cfg3.model_copy(update={"personas": 1})
    ids, seeds = profile.persona_ids(cfg3), profile.seed_texts(cfg3)
    forward = {pid: world_for(cfg3, pid, s)[1].model_dump_json() for pid, s in zip(ids, seeds, strict=True)}
    pairs = list(zip(ids, seeds, strict=True))
    backward = {pid: world_for(cfg3, pid, s)[1].model_dump_json() for pid, s in reversed(pairs)}
    assert forward == backward
    assert profile.seed_texts(cfg1) == seeds[:1]
    assert world_for(cfg1, ids[0], seeds[0])[1].model_dump_json() == forward[ids[0]]


def test_a_critical_constraint_blocks_a_conflicting_plan():
    cfg = BuildConfig(name="t", seed=3, days=60, start_date=dt.date(2024, 1, 1))
    persona = profile.enrich_persona(cfg, "p0000", profile.BUNDLED_SEEDS[3], Gateway(ProviderConfig()))
    sim = loop._Simulation(cfg, persona, Gateway(ProviderConfig()))
    ban = Constraint(constraint_id="p0000-c0001", persona_id="p0000", event_id="p0000-e0000",
                     kind="running_restriction", description="no running until March 1, 2024",
                     blocks=["running", "sport"], valid_from=dt.date(2024, 1, 1), valid_to=dt.date(2024, 3, 1))
    race = KINDS["run_race"]
    rng = sim.rng(cfg.start_date, "test")
    sim.add_plan(rng, race, cfg.start_date)  # before the constraint exists: scheduled
    assert [p.kind for p in sim.pending] == ["run_race"]
    sim.state.constraints.append(ban)
    for day in range(40):
        when = cfg.start_date + dt.timedelta(days=day)
        assert sim.pick_kind(sim.rng(when, "pick"), when) is not race or when >= ban.valid_to
    plan = sim.pending[0]
    sim.roll_out(plan, plan.scheduled_for)
    assert sim.plans[0].blocked_by == "p0000-c0001" and sim.events == []
    sim.add_plan(rng, race, cfg.start_date)
    assert len(sim.plans) == 1  # a new conflicting plan is never created while the constraint holds


def test_constraints_are_recorded_as_facts_and_respected():
    cfg = load_preset("rhelm").model_copy(update={"personas": 1})
    persona, world = world_for(cfg, "p0000", profile.seed_texts(cfg)[0])
    assert world.constraints
    for c in world.constraints:
        fact = next(f for f in world.facts if f.event_id == c.event_id and f.value == c.description)
        assert fact.valid_from == c.valid_from and fact.valid_to <= c.valid_to
    assert [f for f in verify_world(persona, world) if f.severity == "error"] == []
    blocked = [p for p in world.plans if p.blocked_by]
    events = {e.plan_id for e in world.events}
    assert all(p.plan_id not in events for p in blocked)


@pytest.fixture(scope="module")
def rhelm_worlds():
    cfg = load_preset("rhelm")
    pairs = list(zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True))[:2]
    return [world_for(cfg, pid, s) for pid, s in pairs]


def test_rhelm_persona_years_meet_the_floors(rhelm_worlds):
    """350 events on 200 days for everyone, the student with no work kinds too (the preset's ten hold 383 to 437
    on 245 days or more; 238 to 301 before issue 55); critical events at least 4 each and 5 on average (the
    preset's ten average about 8: bench/world.py; moves and job changes come at life-stage rates,
    tasks/world/transitions.py, a student's year has no job to lose, and the ontology's rates keep illnesses and
    injuries apart)."""
    critical = []
    for _persona, world in rhelm_worlds:
        events = world.events[1:]
        assert len(events) >= 350 and len({e.date for e in events}) >= 200
        critical.append(sum(e.critical for e in events))
        assert {p.horizon for p in world.plans} == {"short", "long"}
        assert {o.phase for o in world.profile_ops} == {"factual", "state", "prune"}
    assert min(critical) >= 4 and sum(critical) / len(critical) >= 5, critical


def test_world_entities_hold_near_duplicates(rhelm_worlds):
    for _persona, world in rhelm_worlds:
        kinds = {e.kind for e in world.entities}
        assert kinds == {"person", "place", "organisation", "item"} or kinds >= {"person", "place", "item"}
        twins = [e for e in world.entities if e.near_duplicate_of]
        assert any(e.kind == "person" for e in twins) and any(e.kind != "person" for e in twins)
        ids = {e.entity_id for e in world.entities}
        assert all(e.near_duplicate_of in ids for e in twins)


def test_invalid_op_is_rejected(rhelm_worlds):
    persona, world = rhelm_worlds[0]
    state = WorldState("p0000", persona.profile.model_dump(mode="json"))
    with pytest.raises(InvalidOp):
        state.apply(dt.date(2024, 1, 2), "p0000-e0000", "state", "remove", "identity.name", "x", None)
    assert state.ops == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), index=st.integers(0, 63), p=st.floats(0.2, 0.9))
def test_profile_stays_valid_and_facts_never_contradict(seed, index, p):
    cfg = BuildConfig(name="t", seed=seed, days=90, rollout_p=p, prune_interval=20)
    persona, world = world_for(cfg, "p0000", profile.BUNDLED_SEEDS[index % len(profile.BUNDLED_SEEDS)])
    current = persona.profile.model_dump(mode="json")
    for op in world.profile_ops:
        apply_op(current, op)
        validate_profile(current, op)
    Profile.model_validate(current)
    assert current == world.profile_snapshots[-1].profile
    for offset in range(0, cfg.days, 7):
        values = defaultdict(set)
        for fact in facts_valid_at(world.facts, cfg.start_date + dt.timedelta(days=offset)):
            if not ATTRIBUTES[fact.attribute].event:  # what happened at events accumulates; state does not
                values[(fact.subject, fact.attribute)].add(fact.value)
        assert all(len(v) == 1 for v in values.values())


def test_two_plans_stating_one_fact_never_share_a_day():
    """A call and a visit both bringing news of one person go on different days, so no fact is superseded on
    the day it begins (an empty validity interval the verifier flags)."""
    cfg = BuildConfig(name="t", seed=3, days=60, start_date=dt.date(2024, 1, 1))
    persona = profile.enrich_persona(cfg, "p0000", profile.BUNDLED_SEEDS[3], Gateway(ProviderConfig()))
    sim = loop._Simulation(cfg, persona, Gateway(ProviderConfig()))
    who = sim.state.profile["relationships"][0]["name"]
    call, visit = KINDS["family_call"], KINDS["friend_visit"]
    pet = {"life_attribute": "pet", "life_value": "a cat named Miso", "life_short": "Miso"}
    assert (who, "pet") in sim.fact_keys(call, {"relative": who} | pet) & sim.fact_keys(visit, {"friend": who} | pet)
    day = dt.date(2024, 1, 10)
    sim.pending.append(Plan(plan_id="p0000-l0001", persona_id="p0000", created_on=cfg.start_date, horizon="short",
                            scheduled_for=day, title=f"call {who}", kind="family_call", entity={"relative": who} | pet))
    assert sim.free_day(day, 3, day, sim.fact_keys(visit, {"friend": who} | pet)) == day + dt.timedelta(days=1)
    assert sim.free_day(day, 0, day, sim.fact_keys(visit, {"friend": who} | pet)) is None
    assert sim.free_day(day, 3, day, sim.fact_keys(visit, {"friend": "Somebody Else"} | pet)) == day


def test_two_plans_naming_one_place_or_person_never_share_a_day():
    """An evening at Casa Lolita called off and a dinner at Casa Lolita that went well on one day make the day's
    texts say of one what is true of the other; plans naming one place or person go on different days, and in a
    whole simulated stretch no day's events share a name."""
    cfg = BuildConfig(name="t", seed=3, days=60, start_date=dt.date(2024, 1, 1))
    persona = profile.enrich_persona(cfg, "p0000", profile.BUNDLED_SEEDS[3], Gateway(ProviderConfig()))
    sim = loop._Simulation(cfg, persona, Gateway(ProviderConfig()))
    day = dt.date(2024, 1, 10)
    sim.pending.append(Plan(plan_id="p0000-l0001", persona_id="p0000", created_on=cfg.start_date, horizon="short",
                            scheduled_for=day, title="take Joaquim out to Casa Lolita", kind="partner_evening",
                            entity={"partner": "Joaquim", "place": "Casa Lolita"}))
    dinner = {"restaurant": "Casa Lolita", "companion": "Alex Ferreira", "dish": "falafel wraps"}
    assert loop.plan_names(dinner) == {"casa lolita", "alex ferreira"}
    assert sim.free_day(day, 3, day, names=loop.plan_names(dinner)) == day + dt.timedelta(days=1)
    elsewhere = dinner | {"restaurant": "Blue Fig"}
    assert sim.free_day(day, 3, day, names=loop.plan_names(elsewhere)) == day
    world = loop.simulate(cfg.model_copy(update={"days": 120}), persona, Gateway(ProviderConfig()))
    plans = {p.plan_id: p for p in world.plans}
    by_day = defaultdict(list)
    for event in world.events:
        if event.plan_id in plans:
            by_day[event.date].append(loop.plan_names(plans[event.plan_id].entity))
    assert sum(len(v) > 1 for v in by_day.values()) > 5  # days with more than one plan exist
    for names in by_day.values():
        assert all(not a & b for i, a in enumerate(names) for b in names[i + 1:])


@pytest.mark.parametrize(("preset", "personas", "pid"), [("rhelm", 40, "p0038"), ("rhelm", 120, "p0110"),
                                                           ("rhelm", 120, "p0115")])
def test_no_fact_is_superseded_on_the_day_it_begins(preset, personas, pid):
    """The personas whose worlds had a fact superseded on its first day before plans were kept apart."""
    cfg = load_preset(preset).model_copy(update={"personas": personas})
    seed = dict(zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True))[pid]
    persona = profile.enrich_persona(cfg, pid, seed, Gateway(cfg.provider))
    world = loop.simulate(cfg, persona, Gateway(cfg.provider))
    assert not [f.fact_id for f in world.facts if f.valid_to is not None and f.valid_to <= f.valid_from]
