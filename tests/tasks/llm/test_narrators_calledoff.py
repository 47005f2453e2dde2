"""What did not take place is never narrated as if it had (tasks/common/happened.py): the assistant's advice,
observations and questions about a cancelled dinner, a callback to it, the user's announcement and second
thoughts, and the organisation's email; what took place and went badly is told as having happened."""

from __future__ import annotations

import random

from tasks.dialogue.agreement import happened_cues
from tasks.llm.providers.narrators import assistant, corpus, user
from tasks.llm.providers.narrators.advice import steps_for
from tasks.llm.providers.narrators.lexicon import CALLED_OFF, STEPS, tone_key
from tests.tasks.llm.test_narrators_dialogue import STYLE, assistant_context, followup_context, initial_context

CANCELLED = {"kind": "dinner_out", "valence": "negative", "took_place": False,
             "entity": {"restaurant": "Kebab Corner", "companion": "Kim Kamau"},
             "details": {"restaurant": "Kebab Corner", "companion": "Kim Kamau"}}
MESSAGE = "Kim was unwell, so we cancelled dinner at Kebab Corner. I'm a bit down about Kebab Corner. What now?"
SEEDS = range(40)


def replies(event: dict, tone: str, kind: str = "initial", message: str = MESSAGE) -> list[str]:
    return [assistant.assistant_turn(assistant_context(category, tone=tone, kind=kind, event=event,
                                                       user_message=message, mentioned=["Kebab Corner", "Kim"]),
                                     random.Random(seed))["text"]
            for seed in SEEDS for category in ("advice_seeking", "information_sharing", "status_update")]


def test_replies_about_a_cancelled_dinner_never_presuppose_it_happened():
    said = replies(CANCELLED, "negative") + replies(CANCELLED, "negative", "followup",
                                                     "Good point about rebooking. Was it my fault? Kebab Corner "
                                                     "still bothers me a bit.")
    assert all(happened_cues(r) == [] for r in said), next((r, happened_cues(r)) for r in said if happened_cues(r))
    assert any("rebook" in r or "rearrange" in r for r in said)
    took_place = dict(CANCELLED, took_place=True)  # the same words for a bad night out do speak of the place
    assert any(happened_cues(r) for r in replies(took_place, "negative"))


def test_a_reply_to_a_callback_of_a_cancelled_dinner_asks_nothing_of_how_it_was():
    back = dict(CANCELLED, valence="neutral")
    said = replies(back, "neutral", message="The dinner I cancelled has been on my mind again. What now?")
    assert all(happened_cues(r) == [] for r in said), next((r, happened_cues(r)) for r in said if happened_cues(r))


def test_called_off_material_where_the_negative_presupposes_it_happened():
    steps = steps_for("outing", "dinner_out", CANCELLED["entity"])
    assert tone_key(CALLED_OFF, steps) == CALLED_OFF
    assert not any(happened_cues(f"{vp}: {why}") for vp, why in steps[CALLED_OFF])
    assert any(happened_cues(f"{vp}: {why}") for vp, why in steps["negative"])  # a bad night: the staff, a review
    assert tone_key(CALLED_OFF, STEPS["travel"]) == "negative"  # its negative steps fit a trip called off
    assert tone_key("negative", steps) == "negative" and tone_key("neutral", steps) == "positive"


def announce_all(event: dict) -> set[str]:
    context = initial_context("information_sharing", event=event)
    return {user.announce(context, random.Random(seed), "") for seed in SEEDS}


def test_the_user_announces_a_called_off_plan_as_meant_and_a_bad_one_as_done():
    base = {"title": "see Dr. Lee about my knee", "date": "March 2, 2024", "kind": "doctor_visit",
            "valence": "negative", "narrative": ""}
    done = announce_all(base | {"took_place": True})
    assert all("I saw Dr. Lee about my knee" in a for a in done), done
    assert not any("fell through" in a or "didn't happen" in a or "called off" in a for a in done)
    off = announce_all(base | {"title": "have dinner at Kebab Corner", "kind": "dinner_out", "took_place": False})
    assert all(" to have dinner at Kebab Corner" in a for a in off), off
    assert any("fell through" in a or "didn't happen" in a or "called off" in a or "didn't work out" in a for a in off)


def test_a_callback_to_a_called_off_plan_says_it_was_meant_to_happen():
    back = {"phrase": "two weeks ago", "title": "have dinner at Kebab Corner", "paraphrase": "that dinner",
            "took_place": False}
    lines = {user.callback_line(back, random.Random(seed)) for seed in SEEDS}
    assert all("had dinner" not in line and "didn't happen" in line for line in lines), lines
    assert all("had dinner at Kebab Corner" in user.callback_line(dict(back, took_place=True), random.Random(seed))
               for seed in SEEDS)


def test_second_thoughts_about_a_called_off_plan_are_about_it_falling_through():
    event = dict(followup_context("information_sharing")["event"], valence="negative", took_place=False)
    worries = {user.worry(event, "the dinner", random.Random(seed)) for seed in SEEDS}
    assert worries and all(happened_cues(w) == [] for w in worries), worries
    assert not any("go wrong again" in w or "pictured" in w for w in worries)


def test_an_organisation_email_about_a_cancelled_booking_is_no_visit():
    context = {"direction": "organisation", "notice": "booking", "style": STYLE, "facts": [],
               "event": {"title": "have dinner at Kebab Corner", "valence": "negative", "took_place": False,
                         "date": "March 2, 2024"},
               "sender": {"name": "Kebab Corner"}, "recipient": {"name": "Maya Okafor"}}
    mails = [corpus.email(context, random.Random(seed)) for seed in SEEDS]
    assert not any(m["subject"].startswith("Your visit") for m in mails)
    assert all(happened_cues(m["subject"] + "\n" + m["body"]) == [] for m in mails)
    mine = context | {"direction": "outgoing", "notice": None, "sender": {"name": "Maya Okafor"},
                      "recipient": {"name": "Kim Kamau"}}
    assert not any(corpus.email(mine, random.Random(seed))["subject"] == "Guess what I did" for seed in SEEDS)
