"""Direct answers to the questions users ask about an event: the assistant's first sentence says yes, no or how
much before any suggestion ("Am I overthinking the lunch?" -> "A little, maybe, and that's understandable ...").

Each entry matches the question by its words (the forms a user asks in: narrators/user.py's FOLLOW_ASKS and
AGAIN_ASKS, and the same questions worded by a model) and answers by the event's outcome, naming the event by
its handle `{h}`.
"""

from __future__ import annotations

import random
import re

ANSWERS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (r"\bshould i tell\b|\bwho else should know\b",
     ("Yes, tell people when you feel like it, starting with whoever {h} touches most.",
      "I'd share it with the people closest to you first; everyone else can hear about {h} later."),
     ("Only if you want to; nobody needs an explanation of {h} straight away.",
      "Just the people it affects; there's no need to announce {h} to everyone.")),
    (r"\bkeep track of\b|\bwrite .* down\b",
     ("A short note is plenty: the date and the one detail of {h} you'd want to find again.",
      "Yes, a line or two about {h} while it's fresh is all you need."),
     ("A short note is plenty: what happened with {h} and anything you still have to do.",
      "Yes, jot down {h} and what's left to sort; it's easier to let go once it's written.")),
    (r"\bis it normal to feel\b|\bdo people usually worry\b",
     ("Yes, very; something new like {h} often feels uncertain for a while.",
      "Completely normal: most people second-guess something like {h} at first."),
     ("Yes, a lot of people would feel the same after {h}; it's a very common reaction.",
      "Completely normal: a setback like {h} stays on most people's minds for a few days.")),
    (r"\bam i overthinking\b",
     ("A little, maybe, but that's what happens when {h} matters to you.",
      "Probably a bit, and that's fine: {h} went well, so you can enjoy it."),
     ("A little, maybe, and that's understandable: {h} didn't go the way you hoped.",
      "Probably a bit: one {h} that went wrong says very little about the next time.")),
    (r"\bworth making a fuss\b",
     ("It's worth enjoying, at least: {h} is a nice thing to have happened.",
      "A small celebration of {h} seems fair to me."),
     ("Not a big fuss, no; it's worth a moment's thought and then letting {h} go.",
      "I wouldn't make a fuss about {h}; it's annoying, but it doesn't need more than that.")),
    (r"\bchange anything else\b",
     ("Probably not much; keep the rest of your month as it is and let {h} settle in.",
      "Not a lot, I'd guess: {h} can sit alongside what you already have planned."),
     ("Probably not much; the rest of your month can stay as planned.",
      "Only if {h} left something to rearrange; otherwise keep the month as it is.")),
    (r"\bhow soon should i follow up\b",
     ("Within a few days is good, while {h} is still fresh for everyone.",),
     ("Give it a day or two, then follow up while {h} is still fresh.",)),
    (r"\bcareful with\b|\bcould go wrong\b",
     ("Not much, realistically; the main risk is letting {h} slide once the novelty wears off.",
      "Only the usual: don't take on too much at once because {h} went well."),
     ("Mostly, don't let one {h} decide how you feel about trying again.",
      "The main thing is not to read too much into {h}.")),
    (r"\bagain soon\b|\bagain in my place\b|\btrying to .* again\b|\banother time\b",
     ("Yes, I would: it went well, so there's every reason to do it again.",
      "I think so; doing it again while it still feels good is a nice idea."),
     ("Yes, I'd give it another go once things settle; one setback says little.",
      "I would, yes, but give it a little time first so it doesn't feel like a repeat of {h}.")),
    (r"\btoo much to .* again next week\b",
     ("Not at all, if you enjoyed it; next week sounds fine.",),
     ("Next week might be soon; I'd give it a little longer.",)),
    (r"\bhow often would you\b|\bevery month\b",
     ("Once or twice a month sounds realistic and easy to keep up.",
      "Monthly sounds like a good rhythm, as long as it fits around everything else."),
     ("I'd leave it a few weeks before trying again, then see how often feels right.",)),
)
"""(question pattern, answers after a good outcome, answers after a bad one): the first that matches answers."""

_COMPILED = tuple((re.compile(p, re.IGNORECASE), good, bad) for p, good, bad in ANSWERS)


def direct_answer(question: str, tone: str, handle: str, rng: random.Random) -> str | None:
    """The sentence that answers `question` itself (yes, no, how soon, how often), or None when no entry fits."""
    for pattern, good, bad in _COMPILED:
        if pattern.search(question):
            return rng.choice(bad if tone == "negative" else good).format(h=handle)
    return None
