"""A state fact is said as it now is in its attribute's own words, with agreement and articles, never as the slot
template `X's <attribute> is now <value>`; the value stays verbatim, so the clause is an explicit mention."""

from __future__ import annotations

import datetime as dt

import pytest

from schemas.world import Fact
from tasks.common.facttext import carries_first, clause
from tasks.common.stateframes import STATE_FRAMES, agree, state_clause, with_article
from tasks.world.ontology import ATTRIBUTES
from tests.tasks.worldfixture import PID, make_persona

DAY = dt.date(2024, 3, 1)


def fact(attribute: str, value: str, subject: str = "Maya Okafor", n: int = 900) -> Fact:
    return Fact(fact_id=f"{PID}-f{n:04d}", persona_id=PID, event_id=f"{PID}-e0000", subject=subject,
                attribute=attribute, value=value, valid_from=DAY, surface_forms=[value])


def test_every_state_attribute_of_the_ontology_has_frames_and_every_frame_is_for_one():
    state = {name for name, a in ATTRIBUTES.items() if not a.event}
    assert state == set(STATE_FRAMES)


@pytest.mark.parametrize("attribute, value", [
    ("employer", "Delta Foods"), ("occupation", "nurse"), ("course", "night classes in bookkeeping"),
    ("home", "studio flat at 67 Willow Crescent"), ("pet", "a greyhound named Comet"), ("club", "the church choir"),
    ("next_holiday", "Crete"), ("injury", "sprained left ankle"), ("travel_restriction", "no travel until May 2, 2024"),
    ("prized_possession", "grandmother's sewing machine"), ("employer", "self-employed"),
])
def test_each_frame_says_the_value_verbatim_in_natural_words(attribute, value):
    persona = make_persona()
    for n in range(900, 912):  # the frame is fixed by the fact's id: a dozen ids reach every frame
        f = fact(attribute, value, n=n)
        for person in ("first", "second", "third"):
            text = clause(f, persona, person)
            assert carries_first(text, f), text
            assert " is now " + value not in text and "(" not in text, text


def test_verbs_agree_with_the_holder_and_the_first_person_is_contracted():
    assert agree("work", "I") == "work" and agree("work", "you") == "work" and agree("work", "Maya") == "works"
    assert agree("be", "I") == "am" and agree("be", "my sister Ann") == "is" and agree("have", "Ann") == "has"
    said = state_clause("gym", "Pulse Gym", "x", "I", "my", "Maya Okafor", "my", "I")
    assert said is not None and not said.startswith("I am ") and not said.startswith("I goes")
    third = state_clause("occupation", "nurse", "p0001-f0001", "Maya", "Maya's", "Maya Okafor", "Maya's", "Maya")
    assert third is not None and third.startswith("Maya ") and " a nurse" in third


def test_articles_come_only_where_english_puts_them():
    assert with_article("sprained left ankle") == "a sprained left ankle"
    assert with_article("upright piano") == "an upright piano"
    assert with_article("night classes in bookkeeping") == "night classes in bookkeeping"
    assert with_article("the church choir") == "the church choir"
    assert with_article("Pulse Gym") == "Pulse Gym"
    assert with_article("Spanish course at Fernhill") == "a Spanish course at Fernhill"
    assert with_article("grandmother's sewing machine", "my") == "my grandmother's sewing machine"


def test_a_relationship_is_said_of_the_person_with_its_role():
    persona = make_persona()
    text = clause(fact("relationship", "classmate", subject="Charlie Watanabe"), persona, "first")
    assert "my classmate Charlie Watanabe" in text and "relationship" not in text


def test_an_attribute_without_frames_keeps_the_generic_clause():
    persona = make_persona()
    text = clause(fact("loyalty_tier", "gold"), persona, "first")
    assert text == "my loyalty tier is now gold"
