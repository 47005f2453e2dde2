"""Offline narrator for the `outcome` prompt: a first-person account of one event.

Two to four sentences: an optional opener, a kind- and valence-specific core sentence that states the
event's facts verbatim, a detail and a feeling line, in the persona's style (formality picks the
openers and vocabulary, verbosity the length, emoji the closing glyph). The baseline event gets one
sentence per fact instead. Any fact the templates missed is appended, so every `mention` appears.
"""

from __future__ import annotations

import random
import string
from typing import Any

from tasks.llm.providers.narrators.realize import bare, past
from tasks.llm.providers.narrators.world_life import ASIDES, BECAUSE, CONSTRAINT_LINES, CONSTRAINT_SUFFIXES, LIFE_CORE
from tasks.llm.providers.offline import narrator

CORE: dict[str, dict[str, tuple[str, ...]]] = {
    "new_job": {
        "positive": (
            "First day as {a_m1} at {m0}, and the team already feels like a good fit.",
            "I officially started at {m0} today, working as {a_m1}.",
            "New badge, new desk: I'm now {a_m1} at {m0}.",
        ),
        "negative": (
            "The {m0} was withdrawn, so no start date for me.",
            "The phone call I dreaded came: they withdrew the {m0}.",
            "All that interviewing, and the {m0} has been withdrawn.",
        ),
    },
    "move_flat": {
        "positive": (
            "The last box is finally inside my new {m0}.",
            "We got the keys and I slept in the {m0} tonight.",
            "Moving day is done and the {m0} already feels like home.",
        ),
        "negative": (
            "The landlord backed out, so the {m0} fell through.",
            "Paperwork collapsed at the last minute and the {m0} is off.",
            "I'm still in the old place: the {m0} fell through.",
        ),
    },
    "adopt_pet": {
        "positive": (
            "Say hello to my new {m0}!",
            "We brought home a {m0} from the shelter today.",
            "The house has a new resident: a {m0}.",
        ),
        "negative": (
            "The shelter called: they turned down my {m0}, they want a home with a garden.",
            "I had the bed and the bowls ready, and then they refused the {m0}.",
            "Heartbroken that the {m0} was turned down; someone else got there first.",
        ),
    },
    "start_course": {
        "positive": (
            "First session of my {m0} tonight and I'm hooked.",
            "I walked into the {m0} nervous and left grinning.",
            "Signed in, got my name tag: the {m0} has begun.",
        ),
        "negative": (
            "Email this morning: the {m0} is cancelled, not enough sign-ups.",
            "I'd bought the materials and everything, so the cancelled {m0} hurts.",
            "No class for me tonight, they cancelled the {m0}.",
        ),
    },
    "join_gym": {
        "positive": (
            "I'm now a member at {m0} and did my first session straight away.",
            "Joined {m0} today; the induction nearly finished me off.",
            "Membership card from {m0} is in my wallet at last.",
        ),
        "negative": (
            "My sign-up at {m0} failed: the card machine refused and the waitlist is months long.",
            "I went all the way to {m0} and the sign-up failed.",
            "So much for getting fit: no membership at {m0} after all.",
        ),
    },
    "buy_vehicle": {
        "positive": (
            "I'm now the proud owner of a {m0}.",
            "Drove home the {m0} today, grinning like an idiot.",
            "The deal went through and the {m0} is parked outside.",
        ),
        "negative": (
            "The seller ghosted me, so the {m0} fell through.",
            "After the test drive the price jumped and the {m0} fell through.",
            "I've got the cash and no wheels: the {m0} fell through.",
        ),
    },
    "city_trip": {
        "positive": (
            "Back from a {m0} and my feet hate me.",
            "Just wrapped up a {m0}, camera roll full.",
            "That {m0} was exactly what I needed.",
        ),
        "negative": (
            "The strike wiped out my plans, so I called off the {m0}.",
            "Bags were packed, then I had to call off the {m0}.",
            "Nothing like calling off a {m0} to ruin a week.",
        ),
    },
    "doctor_visit": {
        "positive": (
            "Saw {m0} about {complaint} and it's nothing serious.",
            "{m0} checked me over for {complaint} and sent me home with good news.",
            "Good appointment with {m0}; the {complaint_bare} should settle down.",
        ),
        "negative": (
            "The appointment about {complaint} turned into a diagnosis: a {m0}.",
            "{doctor} was kind but clear: it's a {m0}.",
            "Not what I hoped to hear. It's a {m0}.",
        ),
    },
    "run_race": {
        "positive": (
            "I ran the {m0}, a personal best!",
            "Crossed the line: {m0}, medal around my neck.",
            "Race report: {m0}, legs like jelly.",
        ),
        "negative": (
            "Halfway through the {race} I went down with a {m0}.",
            "The {race} ended early for me with a {m0}.",
            "I limped off the course of the {race} with a {m0}.",
        ),
    },
    "start_book": {
        "positive": (
            "Started {m0} tonight and couldn't put it down.",
            "My bedside book is now {m0}.",
            "I'm three chapters into {m0} already.",
        ),
        "negative": (
            "I gave up on {m0} after fifty pages.",
            "Sorry, {m0}, it's not you, it's me.",
            "{m0} is going back to the library unfinished.",
        ),
    },
    "new_cafe": {
        "positive": (
            "Found my new favourite spot: {m0} on {street}.",
            "Tried {m0} on {street} and I'm converted.",
            "The flat white at {m0} is the best in town.",
        ),
        "negative": (
            "Tried {m0} on {street}: cold coffee, rude service.",
            "Never again at {m0}.",
            "I wanted to love {m0}, but the pastry was stale and the wait endless.",
        ),
    },
    "friend_visit": {
        "positive": (
            "{friend} came over for {occasion}, and the big news is that {friend} {news}.",
            "Over {occasion} {friend} told me the news: {friend} {news}.",
            "Lovely time hosting {friend} for {occasion}; turns out {friend} {news}.",
        ),
        "negative": (
            "The spare bed stays empty: {friend} cancelled {m0}.",
            "Message from {friend} at noon: {friend} cancelled {m0}.",
            "Disappointing news, since {friend} cancelled {m0}.",
        ),
    },
    "work_project": {
        "positive": (
            "We kicked off the {m0} today and I'm leading it.",
            "Kick-off meeting done: the {m0} is officially mine.",
            "Whiteboards full, coffee gone: the {m0} has started.",
        ),
        "negative": (
            "Budget freeze, so the {m0} is on hold for now.",
            "Management announced it today: the {m0} is on hold.",
            "All that planning, and now the {m0} is on hold until further notice.",
        ),
    },
}
CORE |= LIFE_CORE
DETAILS = {
    "positive": (
        "It took a while to get here, but it was worth it.",
        "Everything went more smoothly than I expected.",
        "I keep smiling when I think about it.",
        "I texted half my contacts about it already.",
        "I'd been looking forward to it all week.",
        "It was exactly what I needed.",
        "I didn't expect to enjoy it that much.",
        "I'm glad I didn't put it off again.",
        "It was easier than I'd feared.",
        "I came home in a great mood.",
    ),
    "negative": (
        "I'd been counting on this, so it stings.",
        "I'll have to rethink a few things.",
        "Trying not to take it personally.",
        "Not the day I had planned.",
        "I should have seen it coming.",
        "It threw the rest of my day off.",
        "I'm more tired than upset, honestly.",
        "I'll try again when things calm down.",
        "It's frustrating, but it's not the end of the world.",
        "Part of the day just went to waste.",
    ),
}
"""A detail sentence after the core one; it states no fact, so the dialogue may tell it as a detail of the day."""
FEELINGS = {
    "positive": ("Feeling really good about this", "This is a small win I'll take", "Honestly a great day",
                 "Pretty pleased with how it went", "A good day, all in all", "Quietly proud of this one",
                 "Glad that's done"),
    "negative": ("Feeling pretty flat tonight", "It's knocked me a bit", "I'll bounce back, but not today",
                 "Not my best day", "A bit deflated, to be honest", "Could have gone better", "One to forget"),
}
"""The closing feeling of an event's narrative (the persona's favourite word may follow)."""
OPENERS = {
    "casual": ("Okay, update.", "Big day.", "So, news."),
    "formal": ("A note for the record.", "Today was eventful."),
}
EMOJI = {"positive": ("🎉", "😊", "🙌", "✨"), "negative": ("😞", "🙃", "😩", "💔")}
BASELINE = {
    "occupation": ("I'm {a_m}.", "By profession, I'm {a_m}."),
    "employer": ("My employer is {m}.", "These days my working life revolves around {m}."),
    "city": ("I live in {m}.", "Home turf is {m}."),
    "hobby": ("In my free time I love {m}.", "My favourite way to unwind is {m}."),
    "home": ("Home is my {m}.", "I live in a {m}."),
    "vehicle": ("I get around with my {m}.", "I rely on my {m} to get about."),
    "relationship": (
        "There's my {m}, too.",
        "I'm close to my {m}.",
        "I can always count on my {m}.",
        "I talk to my {m} a lot.",
    ),
    "prized_possession": ("My pride and joy is my {m}.", "I treasure my {m}."),
    "pet": ("I share my life with a {m}.",),
    "age": ("I'm {m}.", "I'm {m}, for the record."),
    "age:other": ("{who} is {m}.", "{who} is {m} now."),
    "work_life:other": ("{who} is {m}.", "{who} is {m} these days."),
}
"""Baseline sentences by attribute (`<attribute>:other` for a fact about one of the persona's people, `{who}`)."""


def article(phrase: str) -> str:
    """The phrase with "a" or "an" in front."""
    vowel = phrase[:1].lower() in "aeiou" and not phrase.lower().startswith(("uni", "use", "eu", "one"))
    return f"{'an' if vowel else 'a'} {phrase}"


@narrator("outcome")
def narrate_outcome(context: dict[str, Any], rng: random.Random) -> dict[str, str]:
    """The event narrative for the `outcome` prompt."""
    facts = context["facts"]
    restrictions = [f for f in facts if f["attribute"].endswith(CONSTRAINT_SUFFIXES)]
    mentions = [f["mention"] for f in facts if f not in restrictions]
    if context["event"]["kind"] == "baseline":
        text = _baseline(facts, rng, context["persona"]["name"])
    else:
        text = _event_story(context, mentions, rng, [f for f in facts if f["attribute"] in ASIDES])
    said = [f for f in facts if f not in restrictions]
    text += "".join(f" For the record: {f['mention']}." for f in said if f["mention"] not in text)
    text += "".join(" " + rng.choice(CONSTRAINT_LINES).format(m=f["mention"]) for f in restrictions)
    return {"narrative": text}


def _event_story(context: dict[str, Any], mentions: list[str], rng: random.Random,
                 asides: list[dict[str, Any]]) -> str:
    """The core sentence (with the reason for a change, and an aside for a fact the core does not state, in place
    of the detail sentence), a detail, a feeling, maybe an opener: two to four sentences."""
    event, style = context["event"], context["style"]
    valence = event["valence"]
    fields = dict(context["entity"]) | {f"m{i}": m for i, m in enumerate(mentions)}
    fields |= {f"{k}_bare": bare(str(v)) for k, v in context["entity"].items()}
    fields |= {f"a_m{i}": article(m) for i, m in enumerate(mentions)}
    core = _core(CORE[event["kind"]][valence], fields, event, rng)
    if fields.get("cause"):
        core += " " + rng.choice(BECAUSE).format(cause=fields["cause"])
    extra = [rng.choice(ASIDES[f["attribute"]]).format(m=f["mention"]) for f in asides if f["mention"] not in core]
    sentences = [core, *(extra or [rng.choice(DETAILS[valence])]), _feeling(style, valence, event["severity"], rng)]
    if not extra and (style["verbosity"] < 0.4 or rng.random() < 0.3):
        sentences.pop(1)
    if style["verbosity"] > 0.6 and rng.random() < 0.6:
        tone = "formal" if style["formality"] >= 0.5 else "casual"
        sentences.insert(0, rng.choice(OPENERS[tone]))
    text = " ".join(sentences)
    return f"{text} {rng.choice(EMOJI[valence])}" if style["emoji"] else text


def _core(templates: tuple[str, ...], fields: dict[str, str], event: dict[str, Any], rng: random.Random) -> str:
    """A core sentence whose every field has a value (a routine that changed nothing has no fact mention to name):
    one of `templates` drawn as before when it can be filled, else another, else the plan's title in the past."""
    first = rng.choice(templates)
    for template in (first, *[t for t in templates if t != first]):
        names = [n for _, n, _, _ in string.Formatter().parse(template) if n]
        if all(str(fields.get(n) or "").strip() for n in names):
            return template.format_map(_Blank(fields))
    title = str(event.get("title") or "").strip()
    return f"I {past(title)}." if title else "It happened today."


def _feeling(style: dict[str, Any], valence: str, severity: int, rng: random.Random) -> str:
    line = rng.choice(FEELINGS[valence])
    if severity >= 4:
        line += ", and it's a big one" if valence == "positive" else ", and it's a heavy one"
    word = rng.choice(style["vocabulary"]) if style["vocabulary"] and rng.random() < 0.6 else ""
    return f"{line}, {word}." if word else f"{line}."


def _baseline(facts: list[dict[str, Any]], rng: random.Random, name: str = "") -> str:
    lines = []
    for fact in facts:
        key = fact["attribute"] if fact["subject"] == name else f"{fact['attribute']}:other"
        template = rng.choice(BASELINE.get(key, BASELINE.get(fact["attribute"], ("Worth knowing: {m}.",))))
        lines.append(template.format(m=fact["mention"], a_m=article(fact["mention"]), who=fact["subject"]))
    return " ".join(lines)


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""
