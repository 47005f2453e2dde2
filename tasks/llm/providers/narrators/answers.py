"""Direct answers to the questions users ask about an event: the assistant's first sentence says yes, no or how
much before any suggestion ("Am I overthinking the lunch?" -> "A little, maybe, and that's understandable ...").

Each entry matches the question by its words (the forms a user asks in: narrators/user.py's FOLLOW_ASKS and
AGAIN_ASKS, and the same questions worded by a model) and answers by the event's outcome, naming the event by
its handle `{h}`, or by what the question says they did (`{t}`, said in the second person; `{t_ing}` as a gerund):
"Would you go to Kebab Corner again in my place?" -> "Yes, I would go to Kebab Corner again: ...".
"""

from __future__ import annotations

import random
import re

from tasks.common.facttext import says_value
from tasks.llm.providers.narrators.lexicon import BAD
from tasks.llm.providers.narrators.realize import capital, gerund, second_person

ANSWERS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (r"\bshould i tell\b|\bwho else should know\b",
     ("Yes, tell people when you feel like it, starting with whoever {h} touches most.",
      "I'd share it with the people closest to you first; everyone else can hear about {h} later.",
      "Yes, why not: good news like {h} is nice to pass on.", "Sure, tell whoever you think would enjoy hearing "
      "about {h}."),
     ("Only if you want to; nobody needs an explanation of {h} straight away.",
      "Just the people it affects; there's no need to announce {h} to everyone.",
      "Tell the people who need to know about {h}; the rest can wait until you're ready.")),
    (r"\bkeep track of\b|\bwrite .* down\b",
     ("A short note is plenty: the date and the one detail of {h} you'd want to find again.",
      "Yes, a line or two about {h} while it's fresh is all you need.",
      "Keep it light: a sentence about {h} in your notes app does the job."),
     ("A short note is plenty: what happened with {h} and anything you still have to do.",
      "Yes, jot down {h} and what's left to sort; it's easier to let go once it's written.")),
    (r"\bis it normal to feel\b|\bdo people usually worry\b",
     ("Yes, very; something new like {h} often feels uncertain for a while.",
      "Completely normal: most people second-guess something like {h} at first.",
      "Of course; a bit of doubt about something like {h} is part of caring how it goes.",
      "Very normal, yes; a few nerves about {h} just mean it matters to you."),
     ("Yes, a lot of people would feel the same after {h}; it's a very common reaction.",
      "Completely normal: a setback like {h} stays on most people's minds for a few days.",
      "It is, yes; anyone would feel it after {h} for a little while.")),
    (r"\bam i overthinking\b",
     ("A little, maybe, but that's what happens when {h} matters to you.",
      "Probably a bit, and that's fine: {h} went well, so you can enjoy it."),
     ("A little, maybe, and that's understandable: {h} didn't go the way you hoped.",
      "Probably a bit: a setback like {h} says very little about the next time.")),
    (r"\bworth making a fuss\b",
     ("It's worth enjoying, at least: {h} is a nice thing to have happened.",
      "A small celebration of {h} seems fair to me."),
     ("Not a big fuss, no; it's worth a moment's thought and then letting {h} go.",
      "I wouldn't make a fuss about {h}; it's annoying, but it doesn't need more than that.")),
    (r"\bchange anything else\b",
     ("Probably not much; keep the rest of your month as it is and let {h} settle in.",
      "Not a lot, I'd guess: {h} can sit alongside what you already have planned."),
     ("Probably not much; the rest of your month can stay as planned, whatever happens with {h}.",
      "Only if {h} left something to rearrange; otherwise keep the month as it is.")),
    (r"\bhow soon should i follow up\b",
     ("Within a few days is good, while {h} is still fresh for everyone.",
      "Soon, ideally this week, so {h} is still on everyone's mind.",
      "A day or two after {h} is about right."),
     ("Give it a day or two, then follow up while {h} is still fresh.",
      "Leave it a couple of days after {h}, then get in touch.")),
    (r"\bcareful with\b|\bcould go wrong\b",
     ("Not much, realistically; the main risk is letting {h} slide once the novelty wears off.",
      "Only the usual: don't take on too much at once because {h} went well.",
      "Very little; just keep {h} in proportion with everything else.",
      "Not a lot, honestly; the only risk with {h} is overdoing it early on."),
     ("Mostly, don't let {h} decide how you feel about trying again.",
      "The main thing is not to read too much into {h}.",
      "Mainly, don't let one setback with {h} put you off for good.")),
    (r"\bi should (?P<t>.+?) again soon\b|\bwould you (?P<t2>.+?) again in my place\b|\btrying to (?P<t3>.+?) again\b"
     r"|\btry to (?P<t4>.+?) another time\b|\bagain soon\b|\bagain in my place\b|\banother time\b",
     ("Yes, I would {t} again: it went well, so there's every reason to.",
      "I think so; {t_ing} again while it still feels good is a nice idea.",
      "I'd {t} again, yes, and maybe make a habit of it."),
     ("Yes, I'd {t} again once things settle; one setback says little.",
      "I would, yes, but give it a little time before you {t} again.",
      "Probably, once the disappointment of {h} has worn off.")),
    (r"\btoo much to (?P<t>.+?) again next week\b",
     ("Not at all, if you enjoyed it; {t_ing} again next week sounds fine.",
      "Next week is fine; {t_ing} again that soon just shows it suits you.",
      "Not at all, if you enjoyed {h}; next week sounds fine."),
     ("Next week might be soon to {t} again; I'd give it a little longer.",
      "I'd wait a bit longer than a week before you {t} again.",
      "Next week might be soon after {h}; I'd give it a little longer.")),
    (r"\bhow often would you (?P<t>.+?)(?:,|\?|$)|\bshould i plan to (?P<t2>.+?) every month\b",
     ("{T_ing} once or twice a month sounds realistic and easy to keep up.",
      "I'd {t} about once a month, as long as it fits around everything else.",
      "Every few weeks feels right to me for {t_ing}.",
      "Once or twice a month sounds realistic for something like {h}, and easy to keep up."),
     ("I'd leave it a few weeks before you {t} again, then see how often feels right.",
      "After {h}, I'd {t} less often at first and build back up.",
      "After {h}, I'd leave it a few weeks before trying again, then see how often feels right.")),
)
"""(question pattern, answers after a good outcome, answers after a bad one): the first that matches answers."""

NO_DEED_GOOD = ("Yes, I would: {h} went well, so there's every reason to do it again.",
                "I think so; doing it again while {h} still feels good is a nice idea.",
                "I would, and I wouldn't wait too long after {h} either.")
NO_DEED_BAD = ("Probably, once things settle; one setback like {h} says little.",
               "I'd give {h} another go, but not straight away.")
"""The answers to a question about doing it again that does not say what (or says it in the store's words)."""

_COMPILED = tuple((re.compile(p, re.IGNORECASE), good, bad) for p, good, bad in ANSWERS)


def direct_answer(question: str, tone: str, handle: str, rng: random.Random,
                  values: tuple[str, ...] | list[str] = (), said: str = "") -> str | None:
    """The sentence that answers `question` itself (yes, no, how soon, how often), or None when no entry fits.
    An entry whose question names what the user did (`Would you go to Kebab Corner again in my place?`) answers
    with it (`Yes, I would go to Kebab Corner again: ...`); one that does not, by the event's handle. An answer
    already given in what the assistant sees (`said`, lower-cased) is not given again while another fits."""
    for pattern, good, bad in _COMPILED:
        found = pattern.search(question)
        if not found:
            continue
        done = next((g for k, g in found.groupdict().items() if k.startswith("t") and g), None)
        if done and says_value(done, values):
            done = None  # what they did names a value they told: answered by the handle, not said back whole
        options = bad if tone in BAD else good
        if done is not None:  # what they did, said back, where an answer can
            options = tuple(o for o in options if "{t" in o or "{T" in o) or options
        else:
            options = tuple(o for o in options if "{t" not in o and "{T" not in o) or (
                NO_DEED_GOOD if tone not in BAD else NO_DEED_BAD)
        vp = second_person(done.strip(" ,")) if done else ""
        answers = [o.format(h=handle, t=vp, t_ing=gerund(vp) if vp else "", T_ing=capital(gerund(vp)) if vp else "")
                   for o in options]
        fresh = [a for a in answers if a.lower() not in said]  # never the same answer twice in the window
        return rng.choice(fresh or answers)
    return None
