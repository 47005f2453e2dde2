"""Offline narrators for `user_turn_callback`, where the user comes back to something told in an earlier session,
naming it by its phrase (`my gym`) without its value and without saying it was mentioned before, and for
`user_turn_correction`, where the user puts right something told wrong in an earlier session."""

from __future__ import annotations

import random
from typing import Any

from tasks.common.facttext import capital, mentions
from tasks.llm.providers.narrators.dialogue import build
from tasks.llm.providers.narrators.user import ask
from tasks.llm.providers.offline import narrator

CURRENT = (
    "Back to {p} for a second.", "I've been thinking about {p} again.", "Quick thing about {p}.",
    "So, {p} is on my mind today.", "Something came up with {p}.", "Okay, {p} again.",
    "I keep coming back to {p}.", "A small update on {p}: nothing dramatic, just thinking it over.",
)
PREVIOUS = (
    "I caught myself thinking about {p} today.", "Funny, {p} came to mind this morning.",
    "I keep comparing things with {p}.", "Thinking back to {p} for a moment.",
)
FEELINGS = (
    "Still not sure how I feel about it.", "It's been on my mind more than I expected.",
    "I think it's going okay, mostly.", "Part of me wonders if I should change something.",
)


@narrator("user_turn_callback")
def user_turn_callback(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"text": the recall line, a question about it, maybe a feeling}, in the persona's voice."""
    recall = context["recall"]
    phrase = recall["phrase"]
    line = rng.choice(PREVIOUS if recall.get("previous") else CURRENT).format(p=phrase)
    text = build([capital(line), ask(context["category"], "it", rng)], [rng.choice(FEELINGS)], context, rng)
    return {"text": text if mentions(text, phrase) else f"{capital(line)} {text}"}


AFTERWORDS = ("Sorry for the mix-up.", "Just so you have it right.", "I don't know how I got that muddled.",
              "It's been bugging me since.", "I wanted to set that straight.", "My memory isn't what it was!")


@narrator("user_turn_correction")
def user_turn_correction(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"text": the correction of something told wrong in an earlier session (tasks/dialogue/latefix.py), which
    says the whole clause and what it was not, maybe with a word about the mix-up}, in the persona's voice."""
    fix = context["fix"]
    return {"text": build([fix["sentence"]], [rng.choice(AFTERWORDS)], context, rng)}
