"""A value taken apart by its shape and said in other words: every part said, the value never verbatim."""

from __future__ import annotations

import datetime as dt

import pytest

from schemas.world import Fact
from tasks.common.facttext import mentions
from tasks.dialogue.mentions import paraphrase
from tasks.dialogue.valueparts import short_name, spoken_date, value_parts
from tests.tasks.worldfixture import PID, make_persona, make_world

DAY = dt.date(2024, 3, 1)


def fact(attribute: str, value: str, subject: str = "Maya Okafor") -> Fact:
    return Fact(fact_id=f"{PID}-f0900", persona_id=PID, event_id=f"{PID}-e0000", subject=subject,
                attribute=attribute, value=value, valid_from=DAY, surface_forms=[value])


@pytest.mark.parametrize("name, short", [("Blue Door Coffee", "Blue Door"), ("Pulse Gym", "Pulse"),
                                         ("Copper Kettle Café", "the Copper Kettle"), ("Café Lumen", "Lumen"),
                                         ("Bluewave Swim Club", "Bluewave"), ("Fresh Market", None),
                                         ("Two Sparrows", None), ("Core Collective", None)])
def test_a_place_is_named_without_its_generic_head_only_when_something_distinctive_is_left(name, short):
    assert short_name(name) == short


def test_dates_are_said_as_people_say_them_with_the_year_only_when_it_is_another():
    assert spoken_date("March 20, 2024", 2024) == "20 March"
    assert spoken_date("January 3, 2025", 2024) == "3 January 2025"
    assert spoken_date("soon", 2024) is None


def test_a_first_name_stands_for_a_person_only_when_it_picks_out_one_of_them():
    persona = make_persona()  # Daniel Okafor (brother) and Daniel Reyes (manager) share a first name
    assert value_parts(fact("lunch_cancelled", "lunch with Priya Shah"), persona)["colleague_first"] == "Priya"
    assert "colleague_first" not in value_parts(fact("lunch_cancelled", "lunch with Daniel Reyes"), persona)
    assert "colleague_first" not in value_parts(fact("lunch_cancelled", "lunch with Sam Stranger"), persona)


@pytest.mark.parametrize("attribute, value, parts", [
    ("running_restriction", "no running until March 20, 2024", ("20 March",)),
    ("travel_restriction", "no travel or hard exercise until April 2, 2024", ("2 April", "strenuous")),
    ("doctor", "Dr. Emi Watanabe", ("Dr Watanabe",)),
    ("gym", "Pulse Gym", ("Pulse",)),
    ("vehicle", "second-hand silver Toyota Yaris", ("Toyota Yaris", "second-hand silver")),
    ("injury", "sprained left ankle", ("sprained", "left ankle")),
    ("work_project", "Kestrel redesign project", ("Kestrel", "redesign")),
    ("visit_cancelled", "the visit for a pancake breakfast because of a cancelled train",
     ("pancake breakfast", "a cancelled train")),
    ("recommendation", "a quiet running route", ("running route", "quiet")),
    ("home_project", "re-tiling the bathroom", ("re-tile", "the bathroom")),
    ("course", "bookkeeping course at Fernhill Adult School", ("bookkeeping", "Fernhill Adult School")),
    ("current_book", "Nine Rivers by Tomás Reyes", ("Nine Rivers", "Tomás Reyes")),
    ("race_goal", "the Berlin Marathon", ("a marathon", "Berlin")),
    ("race_goal", "the Lisbon half marathon", ("a half marathon", "Lisbon")),
    ("race_goal", "the Porto 10K", ("a 10K", "Porto")),
    ("appointment", "dental check-up at Bright Smile Dental", ("dental check-up", "Bright Smile Dental")),
    ("appointment_missed", "haircut at Clip & Curl", ("haircut", "Clip & Curl")),
])
def test_state_and_background_values_are_said_by_their_parts_never_verbatim(attribute, value, parts):
    world, persona = make_world(), make_persona()
    others = ("visit_cancelled", "recommendation", "home_project", "race_goal")
    f = fact(attribute, value, "Priya Shah" if attribute in others else "Maya Okafor")
    seen = set()
    for pick in (0.0, 0.99):
        r = paraphrase(f, persona, world, pick)
        assert r is not None and r.mode == "paraphrased", (attribute, pick)
        assert not mentions(r.clause, value), r.clause
        assert all(mentions(r.clause, p) for p in r.parts), r
        seen.add(r.clause)
        if attribute != "travel_restriction" or "strenuous" in r.clause:
            assert all(mentions(r.clause, p) for p in parts), r.clause
    assert len(seen) == 2  # the frames differ


def test_values_without_their_shape_or_held_by_someone_else_take_no_value_frame():
    world, persona = make_world(), make_persona()
    assert paraphrase(fact("gym", "Core Collective"), persona, world, 0.0) is None  # nothing left once shortened
    assert paraphrase(fact("doctor", "the walk-in clinic"), persona, world, 0.0) is None  # not `Dr. <name>`
    assert paraphrase(fact("gym", "Pulse Gym", "Priya Shah"), persona, world, 0.0) is None  # `I've joined` is mine


def test_a_relationship_is_implied_by_what_the_two_do_together_never_named():
    world, persona = make_world(), make_persona()
    r = paraphrase(fact("relationship", "neighbour", "Priya Shah"), persona, world, 0.0)
    assert r is not None and r.parts == ("Priya Shah",)
    assert "next door" in r.clause or "down the road" in r.clause
    assert not mentions(r.clause, "neighbour")
    assert paraphrase(fact("relationship", "sister", "Priya Shah"), persona, world, 0.0) is None  # no frame
