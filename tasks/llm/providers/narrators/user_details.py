"""A detail the user adds in a follow-up: the discourse of a topic goes announce, react, add detail, ask, so a
later message tells something new about the event ("I had the jollof rice.", "Charlie put me onto a good
dentist.", "It was a cancelled train that did it in the end.") instead of only reacting and asking.

A detail is one of the event's plan fields (what the world holds: nothing is made up), not yet said in the session,
that does not say one of the event's fact values whole (a fact is told as planned, tasks/dialogue/mentions.py,
never restated on the side) and fits how the event went (no dish for a dinner that was called off).
"""

from __future__ import annotations

import random
from typing import Any

from tasks.common.facttext import mentions, says_value
from tasks.llm.providers.narrators.advice import PERSON_FIELDS
from tasks.llm.providers.narrators.realize import bare, capital, sentence

DETAILS: dict[str, dict[str, tuple[str, ...]]] = {
    "dish": {"positive": ("I had the {bare}", "The {bare} really hit the spot", "We both went for the {bare}")},
    "drink": {"positive": ("I had {x}, as usual", "{X} was just right")},
    "duration": {"positive": ("I was at it for {x} in the end", "{X} went by in no time")},
    "spot": {"positive": ("I went to {x} for it this time",), "negative": ("I'd been looking forward to {x} all "
                                                                           "week",)},
    "occasion": {"positive": ("It was {x}, in the end",), "negative": ("It was meant to be {x}",)},
    "reason": {"negative": ("It was {x} that did it in the end", "In the end it came down to {x}")},
    "tip": {"positive": ("{Who} put me onto {x}", "{Who} had a tip for me too: {x}")},
    "team": {"positive": ("{Who} works with the {bare} team",)},
    "where": {"positive": ("We got talking at {x}",), "negative": ("We'd got talking at {x}",)},
    "author": {"positive": ("It's by {x}",)},
    "street": {"positive": ("It's on {x}",)},
    "school": {"positive": ("The classes are at {x}",)},
}
"""Plan field -> how the user adds it, by how the event went (`{Who}`: the event's person, by first name)."""

_NEEDS = {"occasion": ("a ", "an ")}


def detail_line(event: dict[str, Any], heard: str, rng: random.Random, told: list[str] | tuple[str, ...] = ()
                ) -> str | None:
    """A sentence adding one detail of the event not yet said in the session (`heard`: its turns so far), or None
    when there is none left that may be said."""
    fields = dict(event.get("details") or {})
    who = next((str(fields[k]).split()[0] for k in PERSON_FIELDS if str(fields.get(k) or "").split()), "")
    values = list(event.get("values") or []) + list(told)
    valence = "negative" if event.get("valence") == "negative" else "positive"
    options = []
    for key, value in fields.items():
        frames = DETAILS.get(key, {}).get(valence, ())
        plain = bare(value)
        if not frames or not plain or mentions(heard, plain) or not value.lower().startswith(_NEEDS.get(key, ("",))):
            continue
        for frame in frames:
            if "{Who}" in frame and not who:
                continue
            line = frame.format(x=value, X=capital(value), bare=plain, Who=who)
            if not says_value(line, values):
                options.append(line)
    return sentence(rng.choice(options)) if options else None
