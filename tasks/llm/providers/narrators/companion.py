"""Offline narrator for the `companion_reply` prompt: a one-to-three-sentence gold reply built only from the
probe's required context (the forms of its required facts when memory is needed)."""

from __future__ import annotations

import random
from typing import Any

from tasks.llm.providers.offline import narrator

OPENERS = ("Thanks for telling me.", "Good to hear from you.", "I appreciate you keeping me posted.",
           "Thanks for sharing that.")
ASKS = ("How are you feeling about it?", "What would you like to do next?", "Want to talk it through?",
        "Is there anything I can help you plan?")
RECALLS = ("I remember you told me about {forms}.", "That connects with {forms}, which you mentioned before.",
           "You brought up {forms} earlier, so I have that in mind.")
CHANGES = ("So it is {new} now rather than {old}.", "Noted: {old} is behind you, and now it is {new}.")
REPLACED = ("So that replaces {old}, which you told me about before.",
            "Got it, so {old} no longer holds; I will go by the new one.")


@narrator("companion_reply")
def companion_reply(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"reply": opener, what it remembers (memory-bearing probes only), a question}."""
    facts = list(context.get("facts") or [])
    parts = [rng.choice(OPENERS)]
    if context.get("memory_need") and facts:
        current = [f["form"] for f in facts if f.get("current", True)]
        old = [f["form"] for f in facts if not f.get("current", True)]
        if old and current:
            parts.append(rng.choice(CHANGES).format(new=" and ".join(current), old=" and ".join(old)))
        elif old:
            parts.append(rng.choice(REPLACED).format(old=" and ".join(old)))
        else:
            parts.append(rng.choice(RECALLS).format(forms=" and ".join(current or old)))
    parts.append(rng.choice(ASKS))
    return {"reply": " ".join(parts)}
