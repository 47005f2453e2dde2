"""Offline narrator for the `impact_reaction` prompt (the finance pack's layer 2).

Two to five first-person sentences: how the event landed (by valence and event type), a line in the
acting investor type's voice, the recalled memory when there is one, the action phrase and, after a
change, the new allocation and risk band, all verbatim so layer 3 and the evidence checks find them.
The structured fields restate the constraint (direction, delta, evolution type) and name at most one
bias the type allows. It reads only its context, so it imports nothing of the finance pack: the offline
provider (which imports every narrator) works while the pack's modules are missing or broken. The
layer-3 hard check (`@hard_check("impact_reaction")`) lives in tasks/domains/finance/impact.py, which
the pack imports (world.py) before it makes any `impact_reaction` call.
"""

from __future__ import annotations

import random
from typing import Any

from tasks.llm.providers.offline import narrator

OPENERS = {
    ("market", "negative"): (
        "{Title} knocked the wind out of me.", "When {title} hit, my stomach dropped.",
        "I watched {title} unfold with a knot in my chest.", "{Title} was all anyone could talk about.",
        "Checking my account after {title} was not fun.",
    ),
    ("market", "positive"): (
        "{Title} was a welcome surprise.", "After {title}, the mood finally lifted.",
        "I read about {title} twice to make sure it was real.", "{Title} put a smile on my face.",
    ),
    ("personal", "negative"): (
        "{Title} turned my month upside down.", "Dealing with {title} has taken everything out of me.",
        "I never planned for {title}, and it shows.",
    ),
    ("personal", "positive"): (
        "{Title} changed the numbers for me overnight.", "I am still taking in {title}.",
        "With {title}, I suddenly have more room to breathe.",
    ),
}
VOICE = {
    ("preserver", "decrease"): ("Protecting what I have matters more than chasing gains.",
                                "I can't stomach watching my savings shrink."),
    ("preserver", "increase"): ("I allowed myself a small step, nothing more.",),
    ("follower", "decrease"): ("Everyone I talked to was pulling back, and so did I.",
                               "The headlines made the choice feel obvious."),
    ("follower", "increase"): ("Friends were talking about the rally and I didn't want to miss it.",),
    ("independent", "decrease"): ("I did my own reading and decided the price had run too far.",),
    ("independent", "increase"): ("Prices like these don't come around often, so I did my own homework.",
                                  "When others sell in a hurry, I start looking for bargains."),
    ("accumulator", "decrease"): ("Even I know when to take a little off the table.",),
    ("accumulator", "increase"): ("This is exactly the moment to lean in.", "I trust my plan, so I went bigger."),
}
HOLD_VOICE = ("I decided not to touch anything for now.", "Sitting still felt like the wise move.",
              "I read everything, then left the portfolio alone.")
MEMORY = ("It reminded me of the time I {memory}.", "I couldn't help thinking about how I {memory}.")
ACTION = ("So I {action}.", "In the end I {action}.", "My move: I {action}.")
AFTER = ("That leaves me at {alloc}.", "I'm now at {alloc}.")
BAND = ("Call it a {band} these days.", "I'd describe myself as having a {band} now.")


@narrator("impact_reaction")
def impact_reaction(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The reaction narration: restates the constraint and carries every fact phrase."""
    c, event = context["constraint"], context["event"]
    title = event["title"]
    kind = "personal" if event["type"] == "personal" else "market"
    sentences = [rng.choice(OPENERS[(kind, event["valence"])]).format(title=title, Title=title[:1].upper() + title[1:])]
    voice = HOLD_VOICE if c["direction"] == "hold" else VOICE[(context["investor"]["acts_as"], c["direction"])]
    if context["style"]["verbosity"] >= 0.3 or rng.random() < 0.5:
        sentences.append(rng.choice(voice))
    if context["memory"]:
        sentences.append(rng.choice(MEMORY).format(memory=context["memory"]))
    if context.get("status"):
        sentences.append(context["status"])
    sentences.append(rng.choice(ACTION).format(action=c["action"]))
    if c["direction"] != "hold":
        sentences.append(rng.choice(AFTER).format(alloc=context["allocation_after"]))
    sentences += [rng.choice(BAND).format(band=p) for p in context["phrases"] if p.endswith(" risk tolerance")]
    text = " ".join(sentences)
    if context["style"]["emoji"]:
        text += " " + rng.choice(("📉", "😬") if event["valence"] == "negative" else ("📈", "🙂"))
    biases = [rng.choice(context["allowed_biases"])] if context["allowed_biases"] and rng.random() < 0.6 else []
    return {"narrative": text, "risk_direction": c["direction"], "risk_change": c["delta"],
            "evolution_type": c["evolution_type"], "biases": biases}
