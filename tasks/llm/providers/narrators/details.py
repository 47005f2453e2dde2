"""What the assistant says about the details of an event the user has told it: the dish they had, the rash that
took them to the doctor, the city they went to, the tip a colleague gave them. A person who listens picks up the
particulars ("Cold coffee and a forty-minute wait would put anyone off.", "Did you get to see much of Lisbon?")
rather than answering every message with the same advice.

A remark is made only about a detail of the event's own plan (its entity fields) that the user has said in what the
assistant sees of the session, and never about one that says a value they told whole (the reply does not echo the
fact store's words). Remarks are about the kind of thing the detail is, never a claim about the user's life that
they have not made; each is made once a session. A negative event (a visit that went wrong, a session rained off)
gets only the remarks that still fit when it did not go well.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from typing import Any

from tasks.common.english import INFLECT
from tasks.common.facttext import mentions, says_value
from tasks.llm.providers.narrators.lexicon import BAD
from tasks.llm.providers.narrators.realize import bare, capital, second_person

_ENGINE = INFLECT

Remarks = dict[str, tuple[str, ...]]
"""`any`, `positive` and `negative` remarks, and `ask` questions (asked only after an event that went well, or
`ask_any` whatever happened); `{x}` is the detail as the plan says it, `{X}` capitalized, `{bare}` without its
article, `{A}` with `a` or `an`, `{plural}` the bare detail in the plural, `{be}` `is` or `are` as it agrees;
`needs`: the starts a detail must have to be remarked on (`a karaoke night`, not `the weekend`)."""

FIELDS: dict[str, Remarks] = {
    "dish": {"positive": ("You can't go wrong with {bare} done well.", "There's nothing like good {bare} on a "
                          "night out.", "I can almost taste the {bare} from here.",
                          "Good {bare} {be} worth going out of your way for.",
                          "Done properly, {bare} {be} hard to beat.",
                          "I'd have ordered the {bare} too."),
             "ask": ("Did the {bare} live up to it?", "Would you order the {bare} again?")},
    "drink": {"positive": ("{X} is a nice way to give yourself ten minutes.", "Nothing fancy, but {x} can make a "
                           "morning.", "There's something about {a} in a quiet corner.", "{A} and a bit of "
                           "peace is a good combination.", "A well-made {bare} is a small luxury worth having.",
                           "{X} sounds like exactly the right order."),
              "ask": ("Do you always go for {x} there?",)},
    "problem": {"negative": ("{X} would put anyone off.", "Honestly, {x} is not what anyone pays for.",
                             "After {x}, I wouldn't be in a hurry to go back either.", "{X} is a fair thing to "
                             "be annoyed about.", "Nobody should have to put up with {x}.")},
    "city": {"positive": ("{X} is a great place to wander without a plan.", "There's always more to see in {x}."),
             "ask": ("Did you get to see much of {x}?", "What was your favourite corner of {x}?",
                     "Would you go back to {x}?")},
    "length": {"positive": ("A {bare} trip is just enough time to settle in.",)},
    "artist": {"positive": ("Seeing {x} live must have been something.", "Live music like {x} hits differently in "
                            "a room full of people."),
               "ask": ("What did {x} open with?", "Had you seen {x} before?")},
    "venue": {"positive": ("A good night at {x} can stay with you for weeks.", "{X} sounds like a great place for "
                           "it.", "Places like {x} make an evening feel like an occasion.",
                           "It's nice when {x} lives up to its reputation.", "{X} seems to know how to look after "
                           "a crowd.", "{X} is the kind of place people remember a night by.",
                           "An evening at {x} sounds hard to beat."),
              "ask": ("How was the sound at {x}?",)},
    "complaint": {"any": ("{X} can really wear you down.", "{X} {be} the kind of thing that is easy to put off and "
                          "hard to ignore.", "It's sensible to get {x} looked at rather than wait.",
                          "{X} {be} worth taking seriously, even when it seems minor.", "Living with {x} day to "
                          "day is tiring."),
                  "ask_any": ("How long had {x} been bothering you?",)},
    "injury": {"any": ("A {bare} takes patience to heal.", "A {bare} is frustrating, but it does get better with "
                       "rest.", "Rest is the only real cure for a {bare}, annoyingly."),
               "ask_any": ("Has someone had a proper look at the {bare}?",)},
    "goal": {"positive": ("{X} is a great thing to work towards.", "Having {x} to aim for makes each session count.",
                          "{X} sounds very doable at this rate.", "A clear goal like {x} makes it easier to "
                          "see progress.", "{X} is the kind of target that keeps you honest."),
             "ask": ("How far off {x} do you feel now?", "What's the next step towards {x}?")},
    "spot": {"ask": ("Do you usually go to {x}, or do you move around?",)},
    "book": {"positive": ("{X} sounds like a good one to get lost in.", "A new book like {x} is a nice thing to come "
                          "home to."),
             "ask": ("How far into {x} are you?", "Is {x} living up to its first chapters?")},
    "author": {"ask": ("Have you read anything else by {x}?",)},
    "subject": {"positive": ("{X} is a great thing to pick up as an adult.", "The first weeks of {x} are the "
                             "steepest, and then it gets fun."),
                "ask": ("What made you choose {x}?", "What's been the hardest part of {x} so far?")},
    "school": {"ask": ("How are the classes at {x} run?",)},
    "pet_kind": {"any": ("{Plural} make lovely company.", "{Plural} have such big personalities."),
                 "ask": ("How is the {bare} settling in?",)},
    "pet_name": {"positive": ("{X} is a lovely name.",), "ask": ("How did you choose the name {x}?",)},
    "bill": {"any": ("{A} is never a welcome expense.", "{A} always seems to come at the worst time.",
                     "Nobody budgets for {a} with any enthusiasm.", "{A} has a way of eating into a month.",
                     "It's a relief to know where you stand with {a}.", "Costs like {a} are easier to face "
                     "once they're in writing."),
             "ask_any": ("Did the {bare} come as a surprise?",)},
    "model": {"positive": ("A {bare} is a practical way to get about.",),
              "ask": ("How does the {bare} handle so far?",)},
    "occasion": {"positive": ("The {bare} sounds like a good excuse to get everyone together.",),
                 "ask": ("Whose idea was the {bare}?",), "needs": ("a ", "an ")},
    "reason": {"negative": ("{X} is nobody's fault, but it still stings when plans fall through.",
                            "You can't plan around {x}.", "{X} is one of those things nobody sees coming.",
                            "It's hard to be cross about {x}, but it's still a letdown.")},
    "tip": {"positive": ("{X} is a useful tip to get from a colleague.", "Tips like {x} are the best part of a lunch "
                         "with someone who knows the area."),
            },
    "gym": {"positive": ("Having {x} close by makes it easier to keep going.", "Finding a gym like {x} that "
                         "suits you is half the battle.", "A place like {x} makes the effort feel normal."),
            "ask": ("What's the atmosphere like at {x}?",)},
    "where": {"positive": ("{X} sounds like a good place to meet people.", "Places like {x} are where friendships "
                           "start without anyone planning them.", "Some of the best people turn up at places "
                           "like {x}.", "{X} sounds like a lucky place to have got talking.")},
    "milestone": {"positive": ("A {bare} is a big day for everyone.", "A {bare} is one of those days people "
                               "remember.", "There's nothing quite like a {bare} to bring people together.",
                               "A {bare} is worth every bit of the fuss."),
                  "ask": ("What was the best moment of the {bare}?",)},
    "street": {"ask": ("Is {x} on your way anywhere?",)},
    "task": {"positive": ("{X} is the kind of job that keeps a place running.", "Someone has to take on {x}, and "
                          "it makes a real difference.")},
    "project": {"positive": ("{X} sounds like a big piece of work.",),
                "ask": ("What's the next milestone for {x}?",)},
}
"""Entity field -> what an attentive listener says and asks about it."""

MASS = frozenset({"dental work"})
"""Details said without an article (`Dental work is never a welcome expense`)."""


def forms(value: str) -> dict[str, str]:
    """A detail's forms for a frame: `x` as said to them, `X` capitalized, `bare` without its article, `plural`,
    `Plural`, `a` with `a` or `an`, `A` capitalized, and `be`: the verb that agrees with it (`dizzy spells are`)."""
    return dict(_forms(value))


@functools.lru_cache(maxsize=16384)
def _forms(value: str) -> dict[str, str]:
    """`forms`, computed once per value (inflect is slow); callers get a copy."""
    value = second_person(value)  # `music so loud I couldn't hear myself think`, said to them
    plain = bare(value)
    many = bool(plain) and plain not in MASS and _ENGINE.singular_noun(plain.split()[-1]) not in (False, plain)
    plural = plain if many else _ENGINE.plural_noun(plain) if plain else plain  # not `grilled sardiness`
    a = plain if plain in MASS or many else _ENGINE.a(plain) if plain else plain  # not `a grilled sardines`
    return {"x": value, "X": capital(value), "bare": plain, "plural": plural, "Plural": capital(plural),
            "a": a, "A": capital(a), "be": "are" if many else "is"}


def told_details(entity: dict[str, Any] | None, seen: str, values: list[str] | tuple[str, ...] = (),
                 fields: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, str]:
    """The event's details the user has said in `seen` (what the assistant sees), none that says a told value
    whole, only fields there is something to say about (in `fields`: FIELDS, or another table of frames by field
    with the same `needs`)."""
    fields = FIELDS if fields is None else fields
    out = {}
    for key, value in (entity or {}).items():
        value = str(value or "").strip()
        plain = bare(value) or value
        if key in fields and value.lower().startswith(fields[key].get("needs", ("",))) and len(value.split()) <= 9 \
                and mentions(seen, plain) and not says_value(value, values) and not says_value(plain, values):
            out[key] = value
    return out


def _said(text: str, before: str) -> bool:
    return text.lower() in before


def remarks(details: dict[str, str], tone: str, rng: random.Random, before: str = "", limit: int = 2) -> list[str]:
    """Up to `limit` remarks about the told details, each about a different detail and none already said in the
    session (`before`: the assistant's earlier replies, lower-cased)."""
    out = []
    keys = list(details)
    rng.shuffle(keys)
    for key in keys:
        frames = FIELDS[key].get("any", ()) + FIELDS[key].get("negative" if tone in BAD else "positive", ())
        said = [f.format(**forms(details[key])) for f in frames]
        fresh = [s for s in said if not _said(s, before)]
        if fresh:
            out.append(rng.choice(fresh))
        if len(out) >= limit:
            break
    return out


def asks(details: dict[str, str], tone: str, rng: random.Random, before: str = "") -> list[str]:
    """Questions about the told details not asked yet in the session, shuffled."""
    out = []
    for key, value in details.items():
        frames = FIELDS[key].get("ask_any", ()) + (FIELDS[key].get("ask", ()) if tone not in BAD else ())
        out += [q for q in (f.format(**forms(value)) for f in frames) if not _said(q, before)]
    rng.shuffle(out)
    return out
