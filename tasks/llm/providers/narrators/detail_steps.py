"""Suggestions about a particular the user told: the dish they had, the rash that took them to the doctor, the city
they went to, the bill that came in. Advice that names what this person said ("ask for the jollof rice recipe next
time", "keep the receipt for the boiler repair") is advice to them, not to anyone; the area-of-life steps of
lexicon.py fill in around it.

A step is a base-form verb phrase and the reason it helps, as in lexicon.py; `{x}` is the detail as the plan says
it, `{bare}` without its article, `{a}` with `a` or `an`, `{plural}` in the plural (details.py `forms`). A
particular is suggested about only when the user has said it in what the assistant sees (details.py
`told_details`: never one that says a told value whole), and only in the steps that fit how the event went.
"""

from __future__ import annotations

import random
from typing import Any

from tasks.llm.providers.narrators.details import forms, told_details
from tasks.llm.providers.narrators.lexicon import BAD

Step = tuple[str, str]

FIELD_STEPS: dict[str, dict[str, tuple]] = {
    "dish": {"positive": (("ask how they make the {bare} next time", "it might be easier to cook at home than it "
                           "sounds"),
                          ("try a different dish next time and keep the {bare} as your fallback", "you get to "
                           "explore the menu without risking the evening"))},
    "drink": {"positive": (("make {x} your small treat after a long morning", "little rituals make a week feel "
                            "kinder"),
                           ("try {x} somewhere new one day", "comparing is half the fun"))},
    "problem": {"negative": (("mention {x} politely when you book next time", "places fix what they hear about"),
                             ("leave a short, fair review about {x}", "it helps the next person choose"))},
    "bill": {"any": (("keep the paperwork for the {bare} in one folder", "it saves a hunt if anything is queried"),
                     ("check whether the {bare} can be paid in instalments", "spreading it out eases the month"),
                     ("put a little aside each month for the next {bare}", "it will not be a shock next time"))},
    "complaint": {"any": (("write down when {x} started and what makes it worse", "a doctor can do more with "
                           "specifics"),
                          ("book a follow-up if {x} is not better in a week or two", "it is better to check than "
                           "to guess"))},
    "injury": {"any": (("rest the {bare} properly before training again", "going back too soon often brings "
                        "it back"),
                       ("ask a physio for two or three exercises for the {bare}", "the right exercises speed up "
                        "healing"))},
    "occasion": {"positive": (("send round a few photos from the {bare}", "people love to relive a good day"),),
                 "negative": (("suggest another date for the {bare}", "it still sounds worth doing"),),
                 "needs": ("a ", "an ")},
    "reason": {"negative": (("build a little slack into the next plan in case of {x} again", "you cannot "
                             "control everything, but you can soften it"),)},
    "book": {"positive": (("read a few pages of {x} before bed instead of the phone", "it helps you wind down"),
                          ("jot down a line you like from {x}", "it is nice to have later"))},
    "author": {"positive": (("look up what else {x} has written", "you may have found a new favourite"),)},
    "artist": {"positive": (("look up when {x} is touring next", "tickets for good shows go fast"),
                            ("put together a playlist of {x} for the week", "it keeps the night going a little "
                             "longer"))},
    "venue": {"positive": (("sign up for what is on at {x}", "you will hear about the next good night first"),),
              "negative": (("check how {x} handles refunds", "you may be owed something"),)},
    "city": {"positive": (("write down the places in {x} you would go back to", "it makes the next trip easy to "
                           "plan"),
                          ("print a few of the photos from {x}", "they are easier to enjoy off the phone"))},
    "milestone": {"positive": (("write a card to mark the {bare}", "a few words last longer than the day"),)},
    "subject": {"any": (("spend ten minutes on {x} between classes", "little and often is how it sticks"),
                        ("find one person who is learning {x} too", "it is easier with company"))},
    "school": {"any": (("ask {x} whether they have extra practice material", "most places have more than they "
                        "hand out"),)},
    "project": {"any": (("split {x} into two or three smaller milestones", "progress is easier to see"),
                        ("keep a short list of open questions on {x}", "nothing gets lost between meetings"))},
    "where": {"positive": (("go back to {x} in a week or two", "familiar faces make it easier each time"),)},
    "pet_name": {"any": (("register {x} with a vet early", "it is easier before anything goes wrong"),)},
    "pet_kind": {"any": (("read up on what {plural} need in the first month", "the first weeks set the habits"),)},
    "model": {"any": (("book the {bare} in for its first service on time", "it keeps the warranty safe"),
                      ("learn the {bare}'s controls before a long drive", "you will feel calmer on the road"))},
    "task": {"any": (("agree how long you will keep doing {x}", "it is easier to give your best with an end in "
                      "sight"),)},
    "tip": {"positive": (("try {x} this week while you remember", "tips are easy to forget"),)},
    "goal": {"any": (("break {x} into monthly steps", "a big goal feels closer in pieces"),
                     ("tell someone about {x}", "saying it out loud makes it real"))},
    "duration": {"positive": (("aim for {x} again next time", "it is a good length to build on"),)},
}
"""Entity field -> suggestions that name the particular, by how the event went (`any` whatever happened); `needs`:
the starts a detail must have (`a surprise party`, not `the weekend`)."""


def detail_steps(entity: dict[str, Any] | None, seen: str, tone: str, values: list[str] | tuple[str, ...] = (),
                 rng: random.Random | None = None) -> list[Step]:
    """The suggestions about the particulars the user has told (`seen`: what the assistant sees), shuffled when
    `rng` is given; none about a detail that says a told value whole (`values`)."""
    told = told_details(entity, seen, values, FIELD_STEPS)
    out: list[Step] = []
    for key, value in told.items():
        steps = FIELD_STEPS[key].get("any", ()) + FIELD_STEPS[key].get("negative" if tone in BAD else "positive", ())
        words = forms(value)
        out += [(vp.format(**words), reason) for vp, reason in steps]
    if rng is not None:
        rng.shuffle(out)
    return out
