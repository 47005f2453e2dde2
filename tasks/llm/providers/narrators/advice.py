"""Suggestions said about this event's own people and places, when the user has named them.

A suggestion of lexicon.py STEPS is a verb phrase for any event of its area of life ("send a quick message to say
you enjoyed it"). When the user has told the assistant who the event was with or where it was (in what it sees
of the session), the reply says the suggestion about them: "send Charlie a quick message to say you enjoyed it",
"go back to Kebab Corner when it is quieter". `PERSONAL` holds these forms with `{person}` (a first name) and
`{place}` (a place's name); a suggestion without one, or whose person or place the user has not named, stays
general. The assistant never names someone or somewhere it was not told about.
"""

from __future__ import annotations

import re
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators.lexicon import CALLED_OFF, STEPS, Step
from tasks.llm.providers.narrators.steps_more import MORE

PERSONAL: dict[str, str] = {
    # social and family: the person the event was with
    "send a quick message to say you enjoyed it": "send {person} a quick message to say you enjoyed it",
    "suggest a date for next time while it is fresh": "suggest a date to {person} for next time while it is fresh",
    "keep a note of what you talked about": "keep a note of what you and {person} talked about",
    "make it a regular thing if you both like the idea": "make it a regular thing with {person} if it suits you both",
    "introduce them to someone else you think they would like":
        "introduce {person} to someone else you think they would like",
    "keep the next meeting low-key, like a walk or a coffee":
        "keep the next meeting with {person} low-key, like a walk or a coffee",
    "ask about something they mentioned last time": "ask {person} about something they mentioned last time",
    "send a friendly message to rearrange": "send {person} a friendly message to rearrange",
    "propose two concrete dates instead of an open offer": "offer {person} two concrete dates instead of an open offer",
    "ask whether everything is all right on their side": "ask {person} whether everything is all right",
    "check your own week before suggesting a new date": "check your own week before suggesting a new date to {person}",
    "offer to help with anything they mentioned": "offer {person} a hand with anything they mentioned",
    "send the photos or news you talked about": "send {person} the photos or news you talked about",
    "plan the next visit while everyone is keen": "plan the next visit with {person} while everyone is keen",
    "send a short message so they know you tried": "send {person} a short message so they know you tried",
    "suggest a time that suits you both": "suggest a time to {person} that suits you both",
    "keep the next call short and easy": "keep the next call with {person} short and easy",
    "leave a short voicemail rather than trying again and again":
        "leave {person} a short voicemail rather than trying again and again",
    "pick a regular slot for calls": "pick a regular slot for calls with {person}",
    "check whether everything is all right at their end": "check whether everything is all right at {person}'s end",
    "tell them what you enjoyed": "tell {person} what you enjoyed",
    "plan the next evening together": "plan the next evening with {person}",
    # places: where the event was
    "go back when it is quieter": "go back to {place} when it is quieter",
    "save the place in your phone's map": "save {place} in your phone's map",
    "ask what the regulars order": "ask what the regulars order at {place}",
    "go at a different time of day": "go to {place} at a different time of day",
    "check opening times or book ahead next time": "check {place}'s opening times or book ahead next time",
    "have a second option nearby": "have a second option near {place}",
    "keep the place on your list for another time": "keep {place} on your list for another time",
    "leave a short review": "leave {place} a short review",
    "check reviews before going back": "check reviews of {place} before going back",
    "try somewhere new nearby instead": "try somewhere new near {place} instead",
    "give the place one more chance at a quieter time": "give {place} one more chance at a quieter time",
    "tell the staff what went wrong": "tell the staff at {place} what went wrong",
    "sign up for the venue's newsletter": "sign up for {place}'s newsletter",
    "ask the venue about a refund or an exchange": "ask {place} about a refund or an exchange",
    "check the schedule the day before": "check the schedule at {place} the day before",
    "ask the group how they handle cancellations": "ask the group at {place} how they handle cancellations",
    "check whether there is another date nearby": "check whether {place} has another date soon",
    # pastimes: what the session was
    "keep a small record of each session": "keep a small record of each {activity} session",
    "set aside the same time each week for it": "set aside the same time each week for {activity}",
    "try one new technique next time": "try one new technique in {activity} next time",
    "join a group that does the same": "join a group for {activity}",
    "move the session to another day this week": "move {activity} to another day this week",
    "pick one small target for the month": "pick one small target for {activity} this month",
    "find someone to go with now and then": "find someone to go {activity} with now and then",
    "ask someone more experienced for one tip": "ask someone more experienced at {activity} for one tip",
}
"""A STEPS verb phrase -> the same suggestion about the event's person (`{person}`), place (`{place}`) or
activity (`{activity}`: `knitting`)."""

PERSON_FIELDS = ("colleague", "companion", "relative", "friend", "partner", "new_name", "date_name", "person")
ACTIVITY_FIELDS = ("hobby", "subject")
PLACE_FIELDS = ("restaurant", "cafe", "venue", "market", "gym", "org", "place", "spot", "school")
_GENERIC_PLACE = re.compile(r"^(?:the|a|an|home|my|a friend's)\b", re.IGNORECASE)


def named_parties(entity: dict[str, Any] | None, seen: str) -> dict[str, str]:
    """The event's person (first name), place and activity (`knitting`) that the user has named in `seen` (what
    the assistant sees)."""
    out: dict[str, str] = {}
    for key in PERSON_FIELDS:
        name = str((entity or {}).get(key) or "").strip()
        first = name.split()[0] if name.split() else ""
        if first[:1].isupper() and mentions(seen, first):
            out["person"] = first
            break
    for key in PLACE_FIELDS:
        place = str((entity or {}).get(key) or "").strip()
        if place and not _GENERIC_PLACE.match(place) and place[:1].isupper() and mentions(seen, place):
            out["place"] = place
            break
    for key in ACTIVITY_FIELDS:
        activity = str((entity or {}).get(key) or "").strip()
        if activity and len(activity.split()) <= 3 and not _GENERIC_PLACE.match(activity) and mentions(seen, activity):
            out["activity"] = activity
            break
    return out


def personal(vp: str, parties: dict[str, str]) -> str:
    """`vp` said about the event's named person or place when it has such a form and they are named, else `vp`."""
    form = PERSONAL.get(vp)
    if form is None:
        return vp
    needs = [k for k in ("person", "place", "activity") if "{" + k + "}" in form]
    return form.format(**parties) if all(k in parties for k in needs) else vp


MAKING = frozenset({"sourdough baking", "watercolour painting", "knitting", "woodworking", "film photography",
                    "gardening"})
"""Hobbies that make something to show: only for these is `share what you made` advice."""

ACTIVITY_STEPS: dict[str, dict[str, tuple[Step, ...]]] = {
    "sport": {
        "positive": (
            ("note the time or the distance somewhere", "you will see the progress from week to week"),
            ("plan an easy day after a hard session", "that is when the body gets stronger"),
            ("warm up properly next time", "it keeps the small injuries away"),
            ("find someone to go with now and then", "it is harder to skip"),
            ("set aside the same time each week for it", "habits need a slot"),
            ("join a group that does the same", "other people keep you going"),
            ("pick one small target for the month", "a goal gives each session a purpose"),
        ),
        "negative": (
            ("do a short workout at home instead", "you keep the habit"),
            ("check the forecast the day before", "you avoid a wasted trip"),
            ("have a backup plan for bad weather", "the weather will not decide for you"),
            ("move the session to another day this week", "you keep the rhythm"),
            ("ask the group how they handle cancellations", "they will have a plan"),
            ("stretch and rest instead", "a rest day is never wasted"),
        ),
    },
    "practice": {
        "positive": (
            ("keep a small record of each session", "you will see how far you have come"),
            ("try one new technique next time", "it keeps it interesting"),
            ("set aside the same time each week for it", "habits need a slot"),
            ("join a group that does the same", "other people keep you going"),
            ("go over one thing that did not work afterwards", "mistakes teach the most"),
            ("ask someone more experienced for one tip", "a single tip can save weeks"),
        ),
        "negative": STEPS["hobby"]["negative"],
    },
    "volunteering": {
        "positive": (
            ("ask the coordinator what they need most next month", "your time goes where it counts"),
            ("keep a note of the hours you give", "it is useful for a reference one day"),
            ("bring someone along one week", "they may want to join too"),
            ("agree a regular shift", "the organisers can plan around you"),
            ("say no to extra shifts when you are tired", "helping should not wear you out"),
        ),
        "negative": (
            ("check the rota the day before", "you avoid a wasted trip"),
            ("ask the coordinator what happened", "it may be a one-off"),
            ("offer another day this week", "they will know you are still keen"),
            ("let it go without reading too much into it", "these things are usually about staffing"),
        ),
    },
}
"""Suggestions for a pastime by what it is (a sport, a practice like chess or fishing, volunteering); a hobby that
makes something keeps lexicon.py STEPS["hobby"] (`share what you made with someone`)."""


def steps_for(domain: str, kind: str | None, entity: dict[str, Any] | None) -> dict[str, tuple[Step, ...]]:
    """The suggestions of the event's area of life (lexicon.py STEPS and steps_more.py MORE), and for a pastime
    those of what the pastime is: a run is not shared like a loaf."""
    key = domain if domain in STEPS else "social"
    hobby = str((entity or {}).get("hobby") or "")
    if kind == "volunteer":
        key = "volunteering"
    elif kind == "hobby_session" and "sport" in str((entity or {}).get("tags") or "").split():
        key = "sport"
    elif kind == "hobby_session" and hobby and hobby not in MAKING:
        key = "practice"
    steps = ACTIVITY_STEPS.get(key) or STEPS[key]
    out = {tone: tuple(steps.get(tone, ())) + MORE.get(key, {}).get(tone, ())
           for tone in ("positive", "negative", CALLED_OFF)}
    return {tone: found for tone, found in out.items() if found}  # `called_off` only where the area has one
