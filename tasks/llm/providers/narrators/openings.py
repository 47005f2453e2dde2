"""How the assistant's reply opens and how it leads into its advice: the reaction to what the user told (joy for
good news, sympathy for a setback, thanks for an update, interest in a document; in a follow-up, to the
suggestion they took up), the sentence that answers their question before the steps (`Here's how I'd approach the
lunch:`), a pointer back to a suggestion made earlier when none is left, and the offers a reply short of its
length ends with. Each names the event by its handle (`{h}`); none says anything about the user's life.
"""

from __future__ import annotations

import random

from tasks.llm.providers.narrators.lexicon import BAD, CALLED_OFF
from tasks.llm.providers.narrators.realize import capital

CONGRATULATED = frozenset({"new_job", "move_flat", "adopt_pet", "start_course", "join_gym", "buy_vehicle", "run_race",
                           "work_project", "promotion", "retire", "milestone"})
"""Event kinds that are an achievement or a milestone: good news about them is congratulated (`Congratulations on
the new job!`); good news about a coffee or a call is not (`Congratulations on the call with Charlie!`)."""


def reaction(tone: str, kind: str, category: str, handle: str, name: str, rng: random.Random,
             event_kind: str | None = None) -> str:
    """The first sentence: what the assistant feels about the news, naming what it is about; congratulations only
    for an achievement (CONGRATULATED)."""
    h, H = handle, capital(handle)
    if category == "attachment_consultation" and kind == "initial":
        return rng.choice((f"Thanks for sharing this about {h}.", f"Happy to look at this with you, {name}.",
                           f"Let's go through what it says about {h}.", f"Good idea to check it, {name}.",
                           f"Let's see what this means for {h}.", f"Sure, {name}, let's read it together.",
                           f"It's worth a careful look, {name}.", f"Thanks, {name}; I've had a look at it."))
    if kind == "followup":
        return rng.choice((f"Good question about {h}.", f"Let's think about {h} a bit more.",
                           f"That's a fair thing to wonder about {h}.", f"Yes, let's look at {h} again."))
    if tone == "positive":
        return rng.choice((f"That's great news about {h}!", f"Oh, {h} sounds like it went really well.",
                           f"I'm really glad {h} worked out.",
                           f"Congratulations on {h}!" if event_kind in CONGRATULATED else f"I'm so glad {h} went well.",
                           f"That sounds like a lovely result for {h}.", f"{H} sounds wonderful, {name}!",
                           f"How lovely that {h} went so well.", f"What good news about {h}, {name}.",
                           f"Oh, I'm pleased to hear about {h}!", f"{H} sounds like a real highlight."))
    if tone == CALLED_OFF:  # it did not take place: nothing about how it went
        return rng.choice((f"I'm sorry {h} fell through.", f"Oh no, {name}, what a shame about {h}.",
                           f"That's a shame about {h}.", f"I'm sorry, {name}, {h} sounds disappointing.",
                           f"What a pity about {h}.", f"Oh, {name}, that's rotten luck with {h}.",
                           f"I'm sorry to hear about {h}.", f"I'm sorry {h} didn't happen, {name}."))
    if tone == "negative":
        return rng.choice((f"I'm sorry {h} didn't go the way you hoped.", f"Oh no, {name}, {h} sounds frustrating.",
                           f"That's a shame about {h}.", f"I'm sorry, {name}, {h} sounds disappointing.",
                           f"What a pity about {h}.", f"Oh, {name}, that's rotten luck with {h}.",
                           f"I'm sorry to hear about {h}.", f"{H} sounds like it was hard going."))
    return rng.choice((f"Thanks for the update on {h}.", f"Thanks for letting me know about {h}, {name}.",
                       f"Good to hear how {h} is going.", f"Thanks for keeping me posted on {h}.",
                       f"It's good to hear where things are with {h}, {name}."))


def followup_reaction(taken: str, rng: random.Random) -> str:
    """A reply's first sentence when the user took up a suggestion: about that suggestion (`{taken}`, a gerund
    phrase in the assistant's words)."""
    return rng.choice((f"Glad {taken} sounds manageable.", f"Yes, {taken} is a good first step.",
                       f"{capital(taken)} shouldn't take long, and it pays off.",
                       f"I think {taken} will help more than it looks.", f"Good, start with {taken}, then.",
                       f"{capital(taken)} is a sensible place to begin.", f"I'm glad {taken} appeals.",
                       f"{capital(taken)} sounds like a plan.", f"Great, {taken} is an easy win."))


ANSWER_LEADS: dict[str, tuple[str, ...]] = {
    "tell": ("I'd tell the people {h} affects first, and everyone else when you feel ready.",
             "Yes, I think telling people about {h} is fine, starting with whoever it touches most.",
             "There's no rush to tell anyone about {h}; start with the people who'd want to know.",
             "Tell people about {h} when it feels right, beginning with those closest to you."),
    "remember": ("A short note about {h} today is enough; you don't need a system.",
                 "The easiest way is to write {h} down while it's fresh.",
                 "A line or two about {h} in your phone will do the job.",
                 "Jot down the key points of {h} now, before the details blur."),
    "schedule": ("Let's find {h} a proper slot.", "Start with what is fixed in your week and fit {h} around it.",
                 "The trick with {h} is to book it in before the week fills up.",
                 "Let's work out where {h} fits best."),
    "cope": ("It's completely normal to feel unsettled after {h}.",
             "Be kind to yourself first; the practical side of {h} can wait a day.",
             "Give yourself a little room after {h}; it's a lot to take in.",
             "It's fine if {h} takes a while to settle."),
    "plan": ("Here's how I'd approach {h}:", "A few things could help with {h}:", "I'd keep {h} simple:",
             "For {h}, this is what I'd do:", "Here's what I'd try with {h}:", "Here are a couple of thoughts on {h}:",
             "With {h}, I'd start small:", "This is how I'd tackle {h}:"),
    "negative": ("If it helps, here's what I'd do next about {h}:", "Here are a couple of ideas for {h}:",
                 "Here's how I'd pick things up after {h}:", "There are a few ways to move on from {h}:"),
}
"""The sentence that answers what the user asked before the steps, by the question's intent (`negative`: no
intent, after a setback); a lead ending in a colon introduces the steps."""


def answer_lead(intent: str | None, tone: str, handle: str, rng: random.Random) -> str | None:
    """The sentence that answers the question directly, before the steps."""
    key = intent if intent in ANSWER_LEADS else "negative" if tone in BAD else None
    return rng.choice(ANSWER_LEADS[key]).format(h=handle) if key else None


BACK_REFS = ("What I suggested earlier still stands: {g} is the main thing.",
             "I'd still go with {g}, as I said before.", "{G} is still where I'd start, as we said.",
             "My earlier suggestion still holds: {g}.", "I'd stick with {g} for now.",
             "As I said, {g} is the first thing I'd do.", "Nothing has changed my mind about {g}.")
"""A reply with no new suggestion left refers back to one it made earlier in the session."""


def offers_for(handle: str, rng: random.Random) -> list[str]:
    """Offers to go on with the topic, shuffled: what a reply short of its length range ends with."""
    offers = [f"If anything about {handle} changes, tell me and we can adjust the plan together.",
              f"We can come back to {handle} whenever you want to go through the options again.",
              f"Once you have tried that, tell me how {handle} looks and we'll take the next step.",
              f"I'm happy to go through {handle} in more detail whenever you want.",
              f"Let me know how {handle} goes from here, and we can plan the next bit.",
              f"If {handle} throws up anything new, we can look at it together."]
    rng.shuffle(offers)
    return offers
