"""Preferences change from experience (issue 23, tasks/world/causes.py): a favourite café, the usual shop, the
volunteering or the doctor change only after a reason (a bad experience at the current value, or a move), which
the plan making the change records."""

from __future__ import annotations

import datetime as dt

from schemas.world import Event, Plan
from tasks.world import causes

START = dt.date(2024, 1, 1)


def happened(n: int, on: int, kind: str, valence: str, **entity: str) -> tuple[Event, Plan]:
    day = START + dt.timedelta(days=on)
    plan = Plan(plan_id=f"p0000-l{n:04d}", persona_id="p0000", created_on=day, horizon="short", scheduled_for=day,
                title=kind, kind=kind, entity=entity)
    return Event(event_id=f"p0000-e{n:04d}", persona_id="p0000", date=day, plan_id=plan.plan_id, kind=kind,
                 valence=valence, severity=2, critical=False, narrative=""), plan


def reason_in(rows, switch: str, current: str, since: int = 0):
    events, plans = zip(*rows, strict=True)
    return causes.reason(causes.SWITCHES[switch], current, START + dt.timedelta(days=since), events,
                         {p.plan_id: p for p in plans})


def test_a_bad_visit_at_the_favourite_is_a_reason_and_one_elsewhere_is_not():
    rows = [happened(1, 10, "cafe_visit", "negative", cafe="Little Fig"),
            happened(2, 20, "cafe_visit", "positive", cafe="Café Lumen")]
    assert reason_in(rows, "new_cafe", "Café Lumen") is None
    rows.append(happened(3, 30, "cafe_visit", "negative", cafe="Café Lumen"))
    found = reason_in(rows, "new_cafe", "Café Lumen")
    assert found == causes.Reason("p0000-e0003", "a bad visit at Café Lumen")
    assert found.entity() == {"cause_event": "p0000-e0003", "cause": "a bad visit at Café Lumen"}
    assert reason_in(rows, "new_cafe", "Café Lumen", since=31) is None  # one reason, one change


def test_a_move_is_a_reason_for_every_local_preference_and_volunteering_matches_by_its_org():
    rows = [happened(1, 5, "volunteer", "negative", org="Northside Food Bank"),
            happened(2, 40, "move_flat", "positive", address="8 Birch Road")]
    assert reason_in(rows, "volunteer", "sorting donations at Northside Food Bank", since=41) is None
    assert reason_in(rows[:1], "volunteer", "sorting donations at Northside Food Bank").text == \
        "being turned away at Northside Food Bank"
    for switch, current in (("doctor_visit", "Dr. Lee"), ("weekly_shop", "FreshMart"), ("new_cafe", "Daily Grind")):
        assert reason_in(rows, switch, current).text == "the move to 8 Birch Road"
    failed = [happened(3, 50, "move_flat", "negative", address="3 Elm Road")]
    assert reason_in(failed, "weekly_shop", "FreshMart") is None  # a move that fell through changes nothing
