"""What the assistant thinks about the news itself, before any advice: one observation about this kind of event
and how it went, said about the event (`{h}`: its handle) and, when the user has named them, its person
(`{person}`) or place (`{place}`) ("Lunches like the one with Charlie are often where work friendships start.").

A frame that names a person or a place is used only when the user has named them (advice.py `named_parties`);
the rest need only the handle. The observation is about the kind of thing that happened, never a claim about the
user's life that they have not made.
"""

from __future__ import annotations

import random

from tasks.llm.providers.narrators.lexicon import CALLED_OFF, tone_key

OBSERVATIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "work": {
        "positive": ("Things like {h} tend to shape how the next few months at work feel.",
                     "It sounds like {h} was earned, not handed to you.",
                     "Good news at work like {h} has a way of lifting the rest of the week too.",
                     "Progress at work like {h} is worth noticing while it's fresh."),
        "negative": ("Setbacks like {h} often say more about timing than about you.",
                     "Work news like {h} can sting for a while, even when you half expected it.",
                     "It's hard when {h} is out of your hands.",
                     "Something like {h} can take a few days to put in perspective."),
    },
    "social": {
        "positive": ("Time with {person} like that is often what people remember of a month.",
                     "Moments like {h} are how friendships grow, a little at a time.",
                     "It sounds like you and {person} get on easily.",
                     "Plans like {h} are easy to skip, so it's good you made it happen.",
                     "An easy catch-up like {h} can do more for a week than people expect.",
                     "It's the ordinary get-togethers like {h} that keep people close."),
        "negative": ("Plans with {person} falling through can leave a bit of a gap in the week.",
                     "A cancelled plan like {h} usually says more about a busy week than about the friendship.",
                     "It's disappointing when something like {h} you were looking forward to doesn't happen.",
                     "A plan like {h} slipping is rarely the end of anything."),
    },
    "family": {
        "positive": ("Catching up with {person} like that keeps a family close, even at a distance.",
                     "Family time like {h} often matters more afterwards than it seems at the time.",
                     "It sounds like {h} meant a lot to both of you.",
                     "Time like {h} is easy to take for granted, so it's good you noticed it."),
        "negative": ("Missing each other like that with {person} can feel bigger than it is.",
                     "It's frustrating when {h} doesn't come together, especially with family.",
                     "Family plans like {h} fall through for all sorts of ordinary reasons.",
                     "Family things like {h} rarely go to plan, and that's nobody's fault."),
    },
    "outing": {
        "positive": ("A place like {place} is worth having up your sleeve.",
                     "Finding somewhere you like, as with {h}, makes a week feel a bit richer.",
                     "It sounds like {place} got the important things right.",
                     "It's nice to have a new favourite like {place} in the rotation.",
                     "A good find like {h} is worth passing on."),
        "negative": ("One bad experience at {place} can colour the whole place, even if it was an off day.",
                     "It's annoying when {h} doesn't live up to what you hoped.",
                     "An outing like {h} going wrong takes the shine off the day.",
                     "Even good places have bad days, and {h} may have been one of them."),
        CALLED_OFF: ("A plan like {h} falling through can leave a gap in the evening.",
                     "Evenings out get called off for all sorts of ordinary reasons, and {h} will keep.",
                     "It's a shame when {h} doesn't happen after you'd been looking forward to it.",
                     "You can always try {place} another night.",
                     "A cancelled plan like {h} is usually easy to rebook."),
    },
    "hobby": {
        "positive": ("Sessions like {h} are where progress quietly adds up.",
                     "It sounds like {h} gave you a proper break from everything else.",
                     "Keeping a hobby going, as you did with {h}, is harder than it looks.",
                     "A good session like {h} makes the next one easier to show up for.",
                     "Time spent on something like {h} is rarely wasted."),
        "negative": ("Losing a session like {h} is frustrating when you had the time set aside.",
                     "A missed session like {h} is a small thing, but it breaks the rhythm.",
                     "A session like {h} going sideways happens to everyone who keeps at something.",
                     "Rhythm comes back quickly after a hiccup like {h}.",
                     "Something like {h} depends on the weather and on other people's plans.",
                     "When {h} falls through, the time set aside for it can feel oddly empty.",
                     "One lost session like {h} won't undo the ones before it."),
    },
    "fitness": {
        "positive": ("Sticking with something like {h} is what makes the difference over a year.",
                     "It sounds like {h} is becoming part of your routine.",
                     "The first weeks of something like {h} are the hardest, so this is a good sign.",
                     "Showing up for something like {h} is most of the battle.",
                     "Consistency like {h} is what training really runs on."),
        "negative": ("Setbacks like {h} are part of almost everyone's training at some point.",
                     "It's frustrating when {h} doesn't work out after you made the effort.",
                     "A hiccup like {h} rarely matters much in the long run.",
                     "Bodies have off days, and {h} sounds like one of them."),
        CALLED_OFF: ("It's frustrating when {h} doesn't work out after you made the effort.",
                     "A hitch like {h} is usually about paperwork, not about you.",
                     "Getting started with something like {h} often takes two tries."),
    },
    "learning": {
        "positive": ("Starting something like {h} takes more courage than people admit.",
                     "It sounds like {h} has caught your interest properly.",
                     "Learning something like this tends to spill over into other parts of life.",
                     "The early stages of something like {h} are where habits form."),
        "negative": ("It's a shame when {h} falls through before it really began.",
                     "Plans to learn something like {h} often survive a false start.",
                     "A setback like {h} doesn't undo the wish to learn.",
                     "A slow start with something like {h} tells you little about where it ends up."),
    },
    "money": {
        "positive": ("Getting something like {h} sorted takes a weight off.",
                     "It sounds like {h} was handled carefully.",
                     "Money matters like {h} feel much lighter once they're dealt with.",
                     "Dealing with {h} takes a lot of background worry away."),
        "negative": ("An unexpected cost like {h} can throw a whole month off.",
                     "Bills like {h} always seem to arrive at the worst moment.",
                     "It's stressful when {h} lands without warning.",
                     "A cost like {h} is annoying, but it's better faced than left."),
    },
    "travel": {
        "positive": ("A trip like {h} tends to stay with you long after you're home.",
                     "It sounds like {h} was a real change of scene.",
                     "Getting away, even briefly, as with {h}, resets a lot.",
                     "Even a short trip like {h} can change how the next weeks feel."),
        "negative": ("Calling off something like {h} is disappointing after all the looking forward.",
                     "Travel plans like {h} fall apart for reasons nobody can control.",
                     "It's a real letdown when {h} doesn't happen.",
                     "A trip like {h} going wrong tends to make a good story later, even if not yet."),
    },
    "health": {
        "positive": ("It's a relief when something like {h} goes smoothly.",
                     "Looking after yourself, as with {h}, is worth the time it takes.",
                     "Health things like {h} are easier once you know where you stand.",
                     "Getting {h} done is one less thing hanging over you."),
        "negative": ("Health worries like {h} can take up a lot of room in your head.",
                     "It's draining when something like {h} stays unresolved.",
                     "Waiting on something like {h} is often the hardest part.",
                     "Health things like {h} take patience, which is its own kind of tiring."),
    },
    "partner": {
        "positive": ("Evenings like {h} are what keep a relationship feeling close.",
                     "It sounds like you and {person} had a lovely time.",
                     "Making time for each other, as with {h}, matters more than any grand gesture.",
                     "Quiet time together like {h} is worth protecting."),
        "negative": ("When something like {h} doesn't go to plan, it's easy to read too much into it.",
                     "Plans with {person} falling through can feel personal even when they aren't.",
                     "It's disappointing when {h} doesn't work out the way you pictured.",
                     "One evening like {h} going wrong says little about the rest."),
        CALLED_OFF: ("Plans with {person} falling through can feel personal even when they aren't.",
                     "It's a shame when {h} doesn't happen after you'd both been looking forward to it.",
                     "An evening like {h} is easy to rebook once things settle.",
                     "A cancelled evening says nothing about how the two of you are."),
    },
    "errand": {
        "positive": ("A routine like {h} going smoothly frees up the rest of the day.",
                     "It sounds like {place} is working out well for you.",
                     "Small routines like {h} are what keep a week running.",
                     "A smooth run like {h} is one less thing to think about this week.",
                     "Getting something like {h} out of the way makes the rest of the week lighter."),
        "negative": ("A wasted trip like {h} eats into time you don't get back.",
                     "It's irritating when {place} lets you down on something so ordinary.",
                     "Errands like {h} going wrong are small, but they add up.",
                     "Ordinary jobs like {h} are the most annoying to see go wrong.",
                     "Something as routine as {h} shouldn't be this much effort."),
        CALLED_OFF: ("A wasted trip like {h} eats into time you don't get back.",
                     "Errands like {h} going wrong are small, but they add up.",
                     "Ordinary jobs like {h} are the most annoying to see go wrong.",
                     "Something as routine as {h} shouldn't be this much effort."),
    },
    "home": {
        "positive": ("A change like {h} makes a big difference to everyday life.",
                     "It sounds like {h} is a real fresh start.",
                     "Settling into something like {h} takes a while, and that's normal.",
                     "Home changes like {h} take a while to feel normal, in a good way."),
        "negative": ("Something like {h} falling through is unsettling when you'd already pictured it.",
                     "Housing plans like {h} are stressful because so much hangs on them.",
                     "It's hard when {h} doesn't come off after all the effort.",
                     "Setbacks with something like {h} hit hard because home matters so much."),
    },
    "pet": {
        "positive": ("A new animal like that changes the rhythm of a home in the best way.",
                     "It sounds like {h} is the start of something lovely.",
                     "The first weeks after {h} are full of small discoveries.",
                     "Animals settle at their own pace after something like {h}."),
        "negative": ("It's really disappointing when {h} doesn't go through.",
                     "Being turned down for something like {h} can feel personal, though it rarely is.",
                     "Shelters are careful for good reasons, but it still hurts when {h} falls through.",
                     "Something like {h} not working out is hard when you'd already made room for it."),
    },
    "culture": {
        "positive": ("A night like {h} is the kind you talk about for weeks.",
                     "It sounds like {h} was worth every minute.",
                     "Live music like that has an energy you can't get at home.",
                     "Nights like {h} are a good reminder to book the next one."),
        "negative": ("A cancelled night like {h} is a real letdown when you'd planned around it.",
                     "It's a shame when {h} doesn't happen after the build-up.",
                     "Losing a night out like {h} leaves a gap in the week.",
                     "Missing out on something like {h} stings more when you'd been counting down."),
    },
}
"""Area of life -> outcome -> observations (`{h}` the event's handle; `{person}`, `{place}` only when named);
`called_off` where an area's negative ones presuppose the plan happened (a bad night at the place)."""


def observation(domain: str, tone: str, handle: str, parties: dict[str, str], rng: random.Random,
                said: str = "") -> str | None:
    """One observation about the news that the reply's window has not said already (`said`), or None."""
    table = OBSERVATIONS.get(domain, OBSERVATIONS["social"])
    frames = table[tone_key(tone, table)]
    usable = [f for f in frames if all("{" + k + "}" not in f or k in parties for k in ("person", "place"))]
    options = [f.format(h=handle, **parties) for f in usable]
    options = [o for o in options if o.lower() not in said]
    return rng.choice(options) if options else None
