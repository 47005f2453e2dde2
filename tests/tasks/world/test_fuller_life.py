"""A fuller life (issue 55). Thin lives are not thin years: a persona with no job to go to (a student, a retiree,
the unemployed) lives as many events a year as a working one, from the hobbies, friends, family and volunteering
the days a job takes would have held (`EventKind.spare_cooldown`); a friend's news comes from a part of their life
that may change now instead of the plan being dropped; friends ring between visits (`friend_call`) and the admin
of a life has its appointments (`appointment`)."""

from __future__ import annotations

import datetime as dt
import statistics

from schemas.config import BuildConfig, ProviderConfig
from tasks.llm.gateway import Gateway
from tasks.world import loop, profile
from tasks.world.catalog import KINDS
from tasks.world.entities_life import employed
from tasks.world.ontology import ATTRIBUTES
from tasks.world.verify import verify_world

CFG = BuildConfig(name="t", seed=2025, days=365, start_date=dt.date(2024, 1, 1))


def _thin(seed: str) -> bool:
    occupation = profile.parse_seed(seed)["occupation"]
    return "student" in occupation or occupation.startswith("retired") or occupation == "unemployed"


def _year(index: int, seed: str):
    gateway = Gateway(ProviderConfig())
    persona = profile.enrich_persona(CFG, f"p{index:04d}", seed, gateway)
    return persona, loop.simulate(CFG, persona, gateway)


def test_a_persona_with_no_job_lives_as_many_events_a_year_as_a_working_one():
    """The bundled students, retirees and unemployed against as many working people: the mean events a year are
    within 5 percent (0.91 before spare time: a year without work kinds held about 25 events fewer), none of the
    thin years falls below 85 percent of the working mean, and every world still passes the loop verifier."""
    thin, working = [], []
    for index, seed in enumerate(profile.BUNDLED_SEEDS):
        if not _thin(seed) and len(working) >= 12:
            continue
        persona, world = _year(index, seed)
        (thin if not employed(persona.profile.model_dump(mode="json")) else working).append(len(world.events) - 1)
        errors = [f for f in verify_world(persona, world) if f.severity == "error"]
        assert not errors, errors[:3]
    assert len(thin) >= 10 and len(working) >= 12
    mean = statistics.mean(working)
    assert statistics.mean(thin) >= 0.95 * mean, (thin, working)
    assert min(thin) >= 0.85 * mean, (thin, working)


def test_spare_time_shortens_only_the_routines_of_free_time():
    """Only routines of free time come round sooner without a job (never work, money or health), and no kind
    waits less than three days."""
    spare = {k.key: k.cooldown_for(True) for k in KINDS.values() if k.cooldown_for(True) != k.cooldown}
    assert set(spare) >= {"hobby_session", "volunteer", "friend_visit", "friend_call", "family_call"}
    assert not set(spare) & {"colleague_lunch", "work_project", "promotion", "big_bill", "doctor_visit",
                             "dinner_out", "city_trip", "concert", "weekly_shop"}
    assert all(3 <= days < KINDS[key].cooldown for key, days in spare.items())
    assert all(k.cooldown_for(False) == k.cooldown for k in KINDS.values())


def test_a_friends_call_tells_of_their_own_life_and_an_appointment_is_an_event_of_the_persona():
    """`friend_call`: what a friend tells is an attribute of theirs (a side project, a race, a move), missed calls
    keep the topic; `appointment`: a kept or missed slot is what happened (event attributes, never superseded)."""
    persona, world = _year(3, profile.BUNDLED_SEEDS[3])
    plans = {p.plan_id: p for p in world.plans}
    calls = [e for e in world.events if e.kind == "friend_call"]
    visits = [e for e in world.events if e.kind == "appointment"]
    assert len(calls) >= 15 and len(visits) >= 10
    friends = {r.name for r in persona.profile.relationships}
    for event in calls:
        facts = [f for f in world.facts if f.event_id == event.event_id]
        friend = plans[event.plan_id].entity["friend"]
        assert facts and {f.subject for f in facts} == {friend}
        assert friend in friends or any(e.kind == "meet_someone" for e in world.events)
        assert {ATTRIBUTES[f.attribute].domain for f in facts} <= ({"life", "relations", "possessions", "project"}
                                                                    if event.valence == "positive" else {"event"})
    for event in visits:
        (fact,) = [f for f in world.facts if f.event_id == event.event_id]
        assert fact.attribute == ("appointment" if event.valence == "positive" else "appointment_missed")
        assert ATTRIBUTES[fact.attribute].event and fact.valid_to is None
        assert plans[event.plan_id].entity["place"] in fact.value
