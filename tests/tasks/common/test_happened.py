"""Whether an event took place is declared on each outcome (tasks/world/eventkinds.py Outcome.took_place) and read
through tasks/common/happened.py."""

from __future__ import annotations

import datetime as dt
import re

from schemas.world import Event, Plan, World
from tasks.common.happened import (
    CALLED_OFF_ATTRIBUTES,
    outcome_phrase,
    outcome_took_place,
    took_place,
    unrealized_fields,
)
from tasks.world.catalog import KINDS

CALLED_OFF_NAMES = re.compile(r"cancelled|fell_through|refused|postponed|rained_off|turned_away|missed|withdrawn|"
                              r"failed|on_hold|wasted")


def event(kind: str, valence: str, plan_id: str | None = "p1-pl1") -> Event:
    return Event(event_id="p1-e0001", persona_id="p1", date=dt.date(2024, 3, 1), plan_id=plan_id, kind=kind,
                 valence=valence, severity=2, critical=False, narrative="")


def test_every_negative_named_as_called_off_is_declared_so_and_positives_take_place():
    for kind in KINDS.values():
        assert kind.positive.took_place, kind.key
        named = any(CALLED_OFF_NAMES.search(f.attribute) for f in kind.negative.facts)
        assert kind.negative.took_place is not named, kind.key


def test_declared_outcomes_of_the_core_kinds():
    assert not outcome_took_place("dinner_out", "negative")
    assert not outcome_took_place("volunteer", "negative")  # turned away at the door: no volunteering
    assert outcome_took_place("doctor_visit", "negative")  # a diagnosis: the appointment happened
    assert outcome_took_place("run_race", "negative")  # injured halfway: the race was run
    assert outcome_took_place("dinner_out", "positive")
    assert outcome_took_place("market_event", "negative")  # a kind the catalog does not declare
    assert outcome_took_place("dinner_out", "neutral")
    assert {"dinner_cancelled", "turned_away", "missed_call"} <= CALLED_OFF_ATTRIBUTES
    assert "diagnosis" not in CALLED_OFF_ATTRIBUTES and "bad_visit" not in CALLED_OFF_ATTRIBUTES


def test_took_place_of_an_event_reads_the_plan_kind_when_its_own_is_not_the_catalogs():
    assert not took_place(event("dinner_out", "negative"))
    assert took_place(event("cafe_visit", "negative"))
    world = World(plans=[Plan(plan_id="p1-pl1", persona_id="p1", created_on=dt.date(2024, 3, 1), horizon="short",
                              scheduled_for=dt.date(2024, 3, 1), title="have dinner", kind="dinner_out")],
                  events=[], facts=[], profile_ops=[], profile_snapshots=[])
    assert not took_place(event("dinner_out:pack", "negative"), world)
    assert took_place(event("dinner_out:pack", "negative"))


def test_what_only_taking_place_brings():
    assert unrealized_fields("dinner_out") == ("dish",)
    assert unrealized_fields("colleague_lunch") == ("tip",)
    assert unrealized_fields("friend_visit") == ("life_short", "life_value")  # the news heard at the visit
    assert unrealized_fields("hobby_session") == ()  # a goal is the persona's own, kept from session to session
    assert unrealized_fields("doctor_visit") == ()  # took place: nothing to withhold
    assert unrealized_fields("retire") == ()  # the persona's own job is no outcome


def test_outcome_phrase():
    assert outcome_phrase("positive", True) == "went well"
    assert outcome_phrase("negative", True) == "went badly"
    assert outcome_phrase("negative", False) == "did not happen"
