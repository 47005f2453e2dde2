"""Stage `loop`: plans, rollout, two-phase evolve, prune, snapshots, ids and determinism."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter, defaultdict

import pytest

from schemas.config import BuildConfig, ProviderConfig
from schemas.profile import Persona, Profile
from schemas.world import World
from tasks.llm.gateway import Gateway
from tasks.world.ages import LEAD_DAYS
from tasks.world.catalog import KINDS
from tasks.world.loop import fact_drafts, facts_valid_at, simulate
from tasks.world.ontology import ATTRIBUTES
from tasks.world.profile import BUNDLED_SEEDS, enrich_persona

CRITICAL = {(k.key, v) for k in KINDS.values() for v in ("positive", "negative") if k.outcome(v).critical}


def config(**kw) -> BuildConfig:
    base = {"name": "t", "seed": 5, "start_date": dt.date(2024, 1, 1), "days": 365, "prune_interval": 30}
    return BuildConfig(**(base | kw))


def persona_for(cfg: BuildConfig, pid: str = "p0000", seed_text: str = BUNDLED_SEEDS[3]) -> Persona:
    return enrich_persona(cfg, pid, seed_text, Gateway(ProviderConfig()))


@pytest.fixture(scope="module")
def cfg() -> BuildConfig:
    return config()


@pytest.fixture(scope="module")
def persona(cfg) -> Persona:
    return persona_for(cfg)


@pytest.fixture(scope="module")
def world(cfg, persona) -> World:
    return simulate(cfg, persona, Gateway(ProviderConfig()))


def test_catalog_has_at_least_ten_kinds():
    assert len(KINDS) >= 10


def test_ids_follow_the_patterns(world):
    for rows, letter in ((world.plans, "l"), (world.facts, "f"), (world.profile_ops, "o")):
        ids = [getattr(r, {"l": "plan_id", "f": "fact_id", "o": "op_id"}[letter]) for r in rows]
        assert ids == [f"p0000-{letter}{i:04d}" for i in range(1, len(ids) + 1)]
    assert [e.event_id for e in world.events] == [f"p0000-e{i:04d}" for i in range(len(world.events))]
    assert all(re.fullmatch(r"p\d{4}-e\d{4}", f.event_id) for f in world.facts)


def test_baseline_event_restates_the_profile(world, persona):
    base = world.events[0]
    assert (base.date, base.plan_id, base.kind, base.valence, base.severity, base.critical) == (
        dt.date(2024, 1, 1),
        None,
        "baseline",
        "positive",
        1,
        False,
    )
    facts = {(f.subject, f.attribute): f.value for f in world.facts if f.event_id == base.event_id}
    ident = persona.profile.identity
    assert facts[(persona.name, "employer")] == ident.employer
    assert facts[(persona.name, "city")] == ident.city
    assert facts[(persona.name, "hobby")] in persona.profile.traits.hobbies
    assert facts[(persona.name, "home")] == next(
        b.name for b in persona.profile.belongings if b.kind == "home"
    )
    for rel in persona.profile.relationships:
        assert facts[(rel.name, "relationship")] == rel.role


def test_plans_respect_horizons_and_daily_limit(world, cfg):
    for plan in world.plans:
        ahead = (plan.scheduled_for - plan.created_on).days
        assert plan.kind in KINDS and plan.title == plan.title.lower()[:1] + plan.title[1:]
        assert any(value in plan.title for value in plan.entity.values())
        if KINDS[plan.kind].scheduled:  # a life stage: LEAD_DAYS ahead of its own day, or from the first day
            assert ahead == LEAD_DAYS or plan.created_on == cfg.start_date and 0 < ahead <= LEAD_DAYS
            continue
        assert (0 <= ahead <= 3) if plan.horizon == "short" else (7 <= ahead <= 30)
    per_day = Counter(p.created_on for p in world.plans if not KINDS[p.kind].scheduled)
    assert max(per_day.values()) <= cfg.stages.loop.max_plans_per_day
    assert {p.horizon for p in world.plans} == {"short", "long"}


def test_events_roll_out_due_plans_in_order(world):
    plans = {p.plan_id: p for p in world.plans}
    events = world.events[1:]
    assert [(e.date, e.plan_id) for e in events] == sorted((e.date, e.plan_id) for e in events)
    for event in events:
        plan = plans[event.plan_id]
        assert event.date == plan.scheduled_for and event.kind == plan.kind
        assert 1 <= event.severity <= 5
        assert event.critical == ((event.kind, event.valence) in CRITICAL)


@pytest.mark.parametrize("p", [0.7, 0.25])
def test_positive_share_is_near_rollout_p(persona, p):
    outcomes = [
        e.valence
        for seed in (5, 6)
        for e in simulate(config(rollout_p=p, seed=seed), persona, Gateway(ProviderConfig())).events[1:]
    ]
    assert len(outcomes) > 200
    assert abs(outcomes.count("positive") / len(outcomes) - p) < 0.1


def constraint_facts(world):
    return {(c.event_id, c.description) for c in world.constraints}


def test_valid_time_intervals_never_overlap(world):
    """State: each value of a key ends where the next begins. Events (what happened at one) never end."""
    history = defaultdict(list)
    expiring = constraint_facts(world)
    events = [f for f in world.facts if ATTRIBUTES[f.attribute].event]
    assert events and all(f.valid_to is None for f in events)
    for fact in world.facts:
        if not ATTRIBUTES[fact.attribute].event:
            history[(fact.subject, fact.attribute)].append(fact)
    for facts in history.values():
        for before, after in zip(facts, facts[1:], strict=False):
            assert before.valid_to <= after.valid_from and before.valid_from < before.valid_to
            assert before.valid_to == after.valid_from or (before.event_id, before.value) in expiring
        assert facts[-1].valid_to is None or (facts[-1].event_id, facts[-1].value) in expiring


def test_closed_facts_have_a_later_fact(world):
    expiring = constraint_facts(world)
    closed = [f for f in world.facts if f.valid_to is not None and (f.event_id, f.value) not in expiring]
    assert closed
    for old in closed:
        later = [
            f
            for f in world.facts
            if (f.subject, f.attribute) == (old.subject, old.attribute) and f.valid_from == old.valid_to
        ]
        assert len(later) == 1 and later[0].fact_id > old.fact_id


def test_factual_modify_ops_close_the_previous_fact(world):
    modifies = [o for o in world.profile_ops if o.phase == "factual" and o.op == "modify"]
    assert modifies
    for op in modifies:  # an age is written as its number (identity.age: 36; the fact: 36 years old)
        value = f"{op.new_value} years old" if op.path.endswith("age") else op.new_value
        (new,) = [f for f in world.facts if f.event_id == op.event_id and f.value == value]
        (old,) = [
            f
            for f in world.facts
            if (f.subject, f.attribute) == (new.subject, new.attribute) and f.valid_to == op.date
        ]
        assert old.value == (f"{op.old_value} years old" if op.path.endswith("age") else op.old_value)
        assert op.date == new.valid_from


def test_facts_valid_at_gives_one_value_per_state_attribute(world, cfg):
    """State has one value a day; what happened at events accumulates (every dinner out so far holds)."""
    for offset in (0, 100, 364):
        day = cfg.start_date + dt.timedelta(days=offset)
        valid = facts_valid_at(world.facts, day)
        keys = [(f.subject, f.attribute) for f in valid if not ATTRIBUTES[f.attribute].event]
        assert len(keys) == len(set(keys))
        assert all(f.valid_from <= day for f in valid)
    assert facts_valid_at(world.facts, cfg.start_date - dt.timedelta(days=1)) == []


def test_narratives_state_every_fact_verbatim(world):
    by_event = defaultdict(list)
    for fact in world.facts:
        by_event[fact.event_id].append(fact)
    for event in world.events:
        for fact in by_event[event.event_id]:
            assert fact.surface_forms[0] in event.narrative
            assert fact.surface_forms[0] == fact.value or fact.attribute == "relationship"


def test_an_event_states_no_fact_only_when_its_outcome_changed_nothing(world, persona):
    """What is true is state: an outcome restating a value already held (the weekly shop at the usual shop)
    makes no new fact; every other event establishes one."""
    plans = {p.plan_id: p for p in world.plans}
    stated = {f.event_id for f in world.facts}
    quiet = [e for e in world.events if e.event_id not in stated]
    assert quiet and len(quiet) < len(world.events) / 2
    for event in quiet:
        plan = plans[event.plan_id]
        drafts = fact_drafts(KINDS[plan.kind].outcome(event.valence), plan.entity, persona.name)
        held = {(f.subject, f.attribute, f.value) for f in facts_valid_at(world.facts, event.date)}
        assert drafts and all((d.subject, d.attribute, d.value) in held for d in drafts), event.event_id


def test_evolve_runs_factual_before_state(world):
    phases = defaultdict(list)
    for op in world.profile_ops:
        if op.phase != "prune":
            phases[(op.date, op.event_id)].append(op.phase)
    for sequence in phases.values():
        assert sequence == sorted(sequence, key=["factual", "state"].index)
    assert Counter(o.phase for o in world.profile_ops).keys() == {"factual", "state", "prune"}


def test_prune_ops_fall_on_schedule(world, cfg):
    prunes = [o for o in world.profile_ops if o.phase == "prune"]
    assert prunes and all(o.op == "remove" for o in prunes)
    assert {o.path for o in prunes} <= {"current_status.ongoing_matters", "traits.preferences.book",
                                        "traits.preferences.course"}
    for op in prunes:
        offset = (op.date - cfg.start_date).days
        assert offset > 0 and offset % cfg.prune_interval == 0


def test_snapshots_track_profile_changes(world, cfg, persona):
    snaps = world.profile_snapshots
    assert snaps[0].as_of == cfg.start_date
    assert len({s.as_of for s in snaps}) == len(snaps)
    assert {s.as_of for s in snaps[1:]} == {o.date for o in world.profile_ops} - {cfg.start_date}
    for snap in snaps:
        Profile.model_validate(snap.profile)
    last = snaps[-1].profile
    current = {(f.subject, f.attribute): f.value for f in facts_valid_at(world.facts, cfg.end_date)}
    assert last["identity"]["employer"] == current[(persona.name, "employer")]


def test_simulation_is_deterministic_and_seed_dependent(persona):
    small = config(days=40)
    first = simulate(small, persona, Gateway(ProviderConfig()))
    again = simulate(small, persona, Gateway(ProviderConfig()))
    other = simulate(config(days=40, seed=6), persona, Gateway(ProviderConfig()))
    assert first.model_dump_json() == again.model_dump_json()
    assert first.model_dump_json() != other.model_dump_json()


def test_short_runs_and_other_personas(persona):
    one_day = simulate(config(days=1), persona, Gateway(ProviderConfig()))
    assert [e.kind for e in one_day.events] == ["baseline"]
    assert len(one_day.profile_snapshots) == 1  # the baseline writes only the ages of children and parents
    assert all(o.event_id.endswith("-e0000") and o.path.endswith(".attributes.age") for o in one_day.profile_ops)
    retired = persona_for(config(), "p0007", BUNDLED_SEEDS[2])
    world = simulate(config(days=120), retired, Gateway(ProviderConfig()))
    assert not {"new_job", "work_project"} & {p.kind for p in world.plans}
    assert all(
        re.fullmatch(r"p0007-[elfo]\d{4}", i)
        for i in [e.event_id for e in world.events] + [f.fact_id for f in world.facts]
    )
