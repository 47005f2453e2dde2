"""The assistant's replies to small talk and unrelated requests (tasks/dialogue/filler.py topics): a request
answered concretely, small talk lightly, and the follow-up question answered rather than the first reply again."""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators import dialogue_filler
from tasks.llm.providers.narrators.corpus import recent
from tasks.llm.providers.narrators.realize import second_person, uncap

_SENT = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z\[])")
_HEAD = re.compile(r"^(?:a|an|the)\s+(?P<head>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?=\s+(?:for|about|to|of|after|on|"
                   r"with|that|in)\b|$)")
_MADE = frozenset({"recipe", "email", "note", "list", "plan", "workout", "routine", "message", "checklist", "haiku",
                   "explanation", "idea"})
"""What a request asks the assistant to make (a recommendation of a novel or a board game is not edited)."""
_PLAIN = frozenset({"quick", "easy", "simple", "short", "polite", "feel-good", "beginner", "five-minute",
                    "twenty-minute", "budget-friendly", "weeknight", "vegetarian"})


def thing(topic: str) -> str:
    """What a request asked the assistant to make, as a short noun phrase the reply can point at (`the packing
    list`, `the email`, `the banana bread recipe`), or `it` (`converting 5 miles to kilometres`, a novel to read)."""
    found = _HEAD.match(topic.strip())
    words = [w for w in found.group("head").split() if w not in _PLAIN] if found else []
    return f"the {' '.join(words[-3:])}" if words and words[-1] in _MADE else "it"


def filler_reply(context: dict[str, Any], rng: random.Random) -> str:
    """Small talk answered lightly, a request answered concretely (tasks/dialogue/filler.py topics)."""
    filler = context.get("filler") or {}
    topic = second_person(filler.get("topic", ""))  # `an old photo on my phone` said back as `your phone`
    said = filler.get("topic", "").strip().rstrip(".?")
    if said and any(mentions(t["text"], said) for t in recent(context) if t["role"] == "user"):
        return filler_followup_reply(filler, topic, context["user_message"], rng)
    if filler.get("kind") == "request":
        answer = dialogue_filler.ANSWERS.get(topic) or f"Here is a simple way to approach {topic}: keep it practical."
        return " ".join([rng.choice((f"Happy to help with {topic}.", f"Of course, I can help with {topic}.",
                                     f"Sure, let's sort out {topic}.", f"Good idea; let's look at {topic}.",
                                     f"Let's do {topic}.")), answer,
                         closing(thing(said), rng, topic)])
    remark = dialogue_filler.SMALL_TALK.get(topic) or f"I always enjoy hearing about {topic}."
    return " ".join([rng.choice((f"Ha, I know what you mean about {topic}.", f"Oh, {topic}, nice.",
                                 f"I like that you noticed {topic}.")), remark,
                     rng.choice((f"What made you think of {topic}?", f"Has {topic} been on your mind all week?",
                                 f"Do you often notice things like {topic}?"))])


def filler_followup_reply(filler: dict[str, Any], topic: str, message: str, rng: random.Random) -> str:
    """The second reply on a small-talk subject or a request: the follow-up question answered, not the first
    reply again (a request's answer is shortened or illustrated, small talk gets a light answer)."""
    low = message.lower()
    if filler.get("kind") == "request":
        answer = dialogue_filler.ANSWERS.get(filler.get("topic", "")) or ""
        first = _SENT.split(answer)[0] if answer else f"start small with {topic}"
        shorter = dialogue_filler.SHORTER.get(filler.get("topic", ""))
        if shorter and "example" not in low:  # a draft is redrafted shorter, not described
            after = closing(thing(filler.get("topic", "")), rng, topic)
            after = "Is that short enough?" if "shorter" in after else after
            return " ".join((rng.choice(("Here's a shorter one:", "A shorter version:", "Sure, trimmed down:")),
                             shorter, after))
        if "example" in low:
            body = f"Sure. Take the main point, {uncap(first.rstrip('.'))}, and try it once on something real today."
        elif "mistake" in low:
            body = f"The usual mistake is trying to do it all at once; {uncap(first)}"
        else:
            body = f"The short version: {uncap(first)}"
        t = thing(filler.get("topic", ""))
        return " ".join([body, rng.choice(("Once it clicks, the rest follows quickly.", "That's the core of it.",
                                           "Everything else is detail you can add later.",
                                           f"That is most of what matters for {t}." if t != "it" else
                                           "That is most of what matters.", "The rest comes with practice.",
                                           "Get that right and the details sort themselves out.",
                                           "That's the part worth getting right first.",
                                           "After that it's mostly practice.",
                                           "Start there and adjust as you go.",
                                           f"With {topic}, that one step does most of the work.")),
                         rng.choice(("Anything else you'd like on it?", "Does that work for you?",
                                     f"Shall I write {t} down as a note?", f"Would a second version of {t} help?",
                                     f"Is {t} any clearer now?" if t != "it" else "Is it any clearer now?",
                                     f"Would a worked example of {topic} help?",
                                     f"Is there a part of {topic} you'd like to go over again?"))])
    if "anything" in low or "should i" in low:
        body = rng.choice(("Not really, it's harmless; just enjoy it.", "Nothing you need to do, honestly.",
                           "No need, it usually sorts itself out."))
    else:
        body = rng.choice(("Mostly, yes, though it varies from place to place.", "Pretty much, yes.",
                           "More or less, it depends on the season and where you are.", "Usually, yes.",
                           "It depends, but more often than not, yes."))
    return " ".join([body, rng.choice(("Small things like that add up over a day.", "Thanks for sharing it with me.",
                                       "It's the kind of detail most people walk past.",
                                       f"It's funny how something like {topic} can colour a whole day.",
                                       f"I'm glad you told me about {topic}.",
                                       f"It's nice to notice something like {topic} in a busy week.")),
                     rng.choice(("Has anything else caught your eye lately?", "Have you noticed it before?",
                                 "Is it still going on?", "Did anyone else spot it?",
                                 f"What did {topic} remind you of?",
                                 "Does that happen to you often?"))])


def closing(t: str, rng: random.Random, topic: str = "") -> str:
    """The question after a request's answer, about what was made (`Want me to change anything in the haiku?`), or
    about what was asked (`topic`)."""
    if t == "it":
        about = (f"Is that the kind of help you wanted with {topic}?", f"Shall I say more about {topic}?",
                 f"Would you like a different take on {topic}?") if topic else ()
        return rng.choice(("Want me to change anything in it?", "Shall I make a shorter version?",
                           "Is that what you had in mind?", "Shall I go into more detail?", *about))
    return rng.choice((f"Want me to change anything in {t}?", f"Shall I make a shorter version of {t}?",
                       f"Is {t} what you had in mind?", f"Would you like {t} in a different style?",
                       f"Shall I add anything to {t}?"))
