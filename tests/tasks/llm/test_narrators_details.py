"""The assistant picks up the particulars the user told of an event (narrators/details.py), and only those."""

from __future__ import annotations

import random

from tasks.llm.providers.narrators import assistant
from tasks.llm.providers.narrators.details import FIELDS, asks, forms, remarks, told_details
from tests.tasks.llm.test_narrators_dialogue import assistant_context

DINNER = {"companion": "Lucía Morales", "dish": "tacos al pastor", "restaurant": "Casa Lolita"}


def test_only_told_details_are_remarked_on_and_never_a_told_value_whole():
    assert told_details(DINNER, "Dinner with Lucía at Casa Lolita.") == {}  # the dish was not said
    assert told_details(DINNER, "We had tacos al pastor.") == {"dish": "tacos al pastor"}
    assert told_details(DINNER, "We had tacos al pastor.", ["tacos al pastor"]) == {}
    assert told_details({"occasion": "the weekend"}, "over the weekend") == {}  # nothing to say about `the weekend`


def test_remarks_fit_the_detail_and_how_it_went():
    rng = random.Random(3)
    cafe = told_details({"problem": "music so loud I couldn't hear myself think"},
                        "There was music so loud I couldn't hear myself think.")
    said = remarks(cafe, "negative", rng, limit=3)
    assert said and all("you couldn't hear yourself think" in s.lower() for s in said)  # said to them
    assert remarks(cafe, "positive", rng) == []  # a complaint is no compliment
    bill = told_details({"bill": "dental work"}, "the dental work came to a lot")
    assert all(s.startswith("Dental work") or "dental work" in s for s in remarks(bill, "negative", rng, limit=3))
    pet = told_details({"pet_kind": "lop-eared rabbit"}, "we brought home a lop-eared rabbit")
    assert any("Lop-eared rabbits" in s for s in remarks(pet, "positive", random.Random(1), limit=1)
               + remarks(pet, "positive", random.Random(2), limit=1) + remarks(pet, "negative", rng))
    dinner = told_details(DINNER, "We had tacos al pastor.")
    assert asks(dinner, "negative", rng) == []  # no `Would you order it again?` after a dinner that fell through
    assert all("tacos al pastor" in q and q.endswith("?") for q in asks(dinner, "positive", rng))


def test_a_remark_is_made_once_a_session():
    details = told_details({"injury": "pulled hamstring"}, "It's a pulled hamstring.")
    seen = ""
    for _ in range(3):
        said = remarks(details, "negative", random.Random(len(seen)), seen)
        assert not said or said[0].lower() not in seen
        seen += " ".join(said).lower()
    assert remarks(details, "negative", random.Random(0), seen) == []


def test_a_reply_picks_up_what_the_user_told_of_the_event():
    event = {"kind": "dinner_out", "valence": "positive", "entity": DINNER}
    ctx = assistant_context("information_sharing", "positive", "initial", event=event, mentioned=["Casa Lolita"])
    told = "I had dinner with Lucía at Casa Lolita last night. We had tacos al pastor. It was lovely."
    replies = [assistant.assistant_turn(ctx | {"user_message": told}, random.Random(seed))["text"]
               for seed in range(12)]
    picked = remarks({"dish": "tacos al pastor"}, "positive", random.Random(0), limit=1)
    frames = FIELDS["dish"]["positive"] + FIELDS["dish"]["ask"]
    said = {f.format(**forms("tacos al pastor")) for f in frames}
    assert picked and picked[0] in said
    assert sum(any(s in r for s in said) for r in replies) >= 6, replies[:2]
    untold = [assistant.assistant_turn(ctx | {"user_message": "Dinner with Lucía at Casa Lolita was lovely."},
                                       random.Random(seed))["text"] for seed in range(12)]
    assert not any("tacos" in r.lower() for r in untold)  # never a detail they did not tell


def test_a_follow_up_adds_a_detail_of_the_event_once_and_never_a_fact_value():
    from tasks.llm.providers.narrators.user_details import detail_line
    lunch = {"valence": "positive", "values": ["lunch with Charlie Kapoor"],
             "details": {"colleague": "Charlie Kapoor", "team": "night shift", "tip": "a quiet running route"}}
    said = {detail_line(lunch, "Lunch with Charlie Kapoor today.", random.Random(s)) for s in range(20)}
    assert said <= {"Charlie put me onto a quiet running route.", "Charlie had a tip for me too: a quiet running "
                    "route.", "Charlie works with the night shift team."} and len(said) >= 2
    heard = "Lunch with Charlie. He put me onto a quiet running route. He works with the night shift team."
    assert detail_line(lunch, heard, random.Random(0)) is None  # nothing left to add
    called_off = {"valence": "negative", "values": ["dinner at Casa Lola"],
                  "details": {"dish": "ramen", "restaurant": "Casa Lola"}}
    assert detail_line(called_off, "", random.Random(0)) is None  # no dish for a dinner that did not happen
    told_dish = {"valence": "positive", "values": ["ramen at Casa Lola"], "details": {"dish": "ramen"}}
    assert all("ramen" in (detail_line(told_dish, "", random.Random(s)) or "ramen") for s in range(5))
    assert detail_line(told_dish | {"values": ["the ramen"]}, "", random.Random(0)) is None  # a value whole
