"""Multi-year lives (issue 57): one continuous life over `[world] years`, state carried across the new year, ages
that move on birthdays and the life stages they bring (tasks/world/ages.py)."""

from __future__ import annotations

import datetime as dt
import random

from schemas.config import BuildConfig, ProviderConfig
from tasks.llm.gateway import Gateway
from tasks.world import ages, loop, transitions
from tasks.world.catalog import KINDS
from tasks.world.profile import BUNDLED_SEEDS, enrich_persona
from tests.tasks.yearsworld import START, life

NEW_YEAR = dt.date(2024, 1, 1)


def holding(world, subject, attribute, day):
    found = [f for f in world.facts if (f.subject, f.attribute) == (subject, attribute) and f.valid_from <= day
             and (f.valid_to is None or day < f.valid_to)]
    assert len(found) == 1, found
    return found[0]


def snapshot_on(world, day):
    return max((s for s in world.profile_snapshots if s.as_of <= day), key=lambda s: s.as_of).profile


def test_two_years_are_one_continuous_life():
    cfg, persona, world = life()
    assert cfg.days == 731 and cfg.end_date == dt.date(2024, 12, 31)
    assert world.events[-1].date.year == 2024 and [e.kind for e in world.events].count("baseline") == 1
    plans = {p.plan_id: p for p in world.plans}  # plans made in December roll out in January
    assert any(e.date.year == 2024 and plans[e.plan_id].created_on.year == 2023 for e in world.events if e.plan_id)
    ids = [e.event_id for e in world.events]
    assert ids == sorted(ids) and len(ids) == len(set(ids))  # one numbering, no restart at the new year


def test_a_job_change_in_the_first_year_is_still_the_job_in_the_second():
    _, persona, world = life()
    me, first = persona.name, persona.profile.identity.employer
    (change,) = [e for e in world.events if e.kind == "new_job"]
    assert change.date.year == 2023 and change.valence == "positive"
    (new,) = [f for f in world.facts if f.event_id == change.event_id and f.attribute == "employer"]
    assert new.value != first and new.valid_from == change.date and new.valid_to is None
    assert holding(world, me, "employer", dt.date(2023, 12, 31)) == new == holding(world, me, "employer", NEW_YEAR)
    assert holding(world, me, "employer", cfg_end(world)) == new
    assert snapshot_on(world, NEW_YEAR)["identity"]["employer"] == new.value
    assert world.profile_snapshots[-1].profile["identity"]["employer"] == new.value
    assert holding(world, me, "employer", change.date - dt.timedelta(days=1)).value == first


def cfg_end(world):
    return max(e.date for e in world.events)


def test_ages_advance_on_birthdays_as_facts_and_profile_ops():
    cfg, persona, world = life()
    me, start_age = persona.name, persona.profile.identity.age
    birthdays = [e for e in world.events if e.kind == "birthday"]
    assert [e.date.year for e in birthdays] == [2023, 2024]
    ages_held = [f for f in world.facts if (f.subject, f.attribute) == (me, "age")]
    assert [f.value for f in ages_held] == [f"{start_age + n} years old" for n in range(3)]
    assert [f.valid_from for f in ages_held[1:]] == [e.date for e in birthdays]
    ops = [o for o in world.profile_ops if o.path == "identity.age"]
    assert [(o.date, o.old_value, o.new_value) for o in ops] == [
        (e.date, str(start_age + n), str(start_age + n + 1)) for n, e in enumerate(birthdays)]
    assert world.profile_snapshots[-1].profile["identity"]["age"] == start_age + 2
    assert snapshot_on(world, birthdays[0].date - dt.timedelta(days=1))["identity"]["age"] == start_age
    (daughter,) = [r for r in persona.profile.relationships if r.role == "daughter"]
    told = [f.value for f in world.facts if (f.subject, f.attribute) == (daughter.name, "age")]
    assert len(told) == 3 and len(set(told)) == 3  # the daughter ages too (and her profile entry says so)
    final = next(r for r in world.profile_snapshots[-1].profile["relationships"] if r["name"] == daughter.name)
    assert f"{final['attributes']['age']} years old" == told[-1]


def test_the_transition_rates_read_the_age_the_persona_has_reached():
    cfg = BuildConfig(name="t", seed=2, start_date=START, days=731)
    persona = enrich_persona(cfg, "p0000", BUNDLED_SEEDS[4], Gateway(ProviderConfig()))  # a 29-year-old chef
    assert persona.profile.identity.age == 29
    world = loop.simulate(cfg, persona, Gateway(ProviderConfig()))
    (turned_30,) = [e for e in world.events if e.kind == "birthday" and e.date.year == 2023]
    before = snapshot_on(world, turned_30.date - dt.timedelta(days=1))
    after = snapshot_on(world, turned_30.date)
    assert (before["identity"]["age"], after["identity"]["age"]) == (29, 30)
    assert transitions.move_home(before) == 0.3 and transitions.move_home(after) == 0.15


def test_life_stages_come_at_their_ages():
    me = ages.Born("Ana Lima", "self", dt.date(1990, 6, 10))
    girl = ages.Born("Rita Lima", "daughter", dt.date(2019, 11, 2))  # 5 in 2024, 6 in September 2025
    mother = ages.Born("Rosa Lima", "mother", dt.date(1959, 4, 20))  # 65 in April 2024
    found = ages.stages([me, girl, mother], "Portugal", dt.date(2024, 1, 1), dt.date(2033, 12, 31),
                        random.Random(1))
    schools = [(s.day, s.entity["level"]) for s in found if s.kind == "start_school"]
    assert schools == [(dt.date(2025, 9, 1), "primary"), (dt.date(2031, 9, 1), "secondary")]  # 6 and 12
    uk = ages.stages([girl], "United Kingdom", dt.date(2024, 1, 1), dt.date(2024, 12, 31), random.Random(1))
    assert [s.day for s in uk if s.kind == "start_school"] == [dt.date(2024, 9, 2)]  # 5 there; the 1st is a Sunday
    assert [(s.day, s.entity["person"]) for s in found if s.kind == "parent_retires"] == [(dt.date(2024, 5, 1),
                                                                                          "Rosa Lima")]
    mine = [s for s in found if s.kind == "birthday"]
    assert [s.entity["age"] for s in mine] == [str(n) for n in range(34, 44)]
    assert all(s.day == dt.date(s.day.year, 6, 10) for s in mine)
    assert all(KINDS[s.kind].scheduled for s in found)
    assert ages.baseline_drafts([mother], dt.date(2025, 1, 1))[1].value == "retired"  # past pension age at the start


def test_scheduled_kinds_are_never_drawn():
    assert {k.key for k in KINDS.values() if k.scheduled} == {"birthday", "family_birthday", "start_school",
                                                              "parent_retires"}
    assert not any(k.scheduled for k in loop.TRANSITIONS)
