"""How the assistant's reply ends: a question about the user's situation that follows from this message. When
they took up a suggestion it asks about doing it ("What might get in the way of writing down how it felt?"); when
they asked to tell, remember, cope or plan, about that ("Who will you tell first?"); else about who or where it
was, or how they feel about the event. Two questions may be asked in one sentence ("Is Fresh Market easy to get to
from yours, and how are you feeling about the weekly shop?"), as people do. Each question is asked once a session
where another is left (`before`: what the assistant already said in the window).
"""

from __future__ import annotations

import random

from tasks.llm.providers.narrators.lexicon import BAD, CALLED_OFF
from tasks.llm.providers.narrators.realize import capital

TAKEN_QUESTIONS = ("When do you think you'll get round to {t}?", "What might get in the way of {t}?",
                   "Would a reminder in your calendar help with {t}?", "Is {t} something you can do on your own?",
                   "How will you know {t} has worked?")
"""About the suggestion the user took up (`{t}`: it as a gerund phrase in their words, `writing down how it felt`),
asked when the reply has not already opened on it."""

INTENT_QUESTIONS = {
    "tell": ("Who do you think you'll tell first about {h}?", "Is there anyone you're nervous about telling about "
             "{h}?", "How do you think people will take the news about {h}?", "Who would most like to hear about "
             "{h}?", "Would you rather tell people about {h} in person or by message?"),
    "remember": ("Where do you usually keep notes about things like {h}?", "Is there anything about {h} you're "
                 "afraid of forgetting?", "Would a reminder on your phone help with {h}?", "What about {h} would "
                 "you most like to remember in a year?", "Do you keep a diary or notes app for things like {h}?"),
    "cope": ("What usually helps you unwind after something like {h}?", "Is there someone you can talk {h} over "
             "with?", "How are you sleeping with {h} on your mind?", "What would make the rest of the week "
             "easier after {h}?", "Have you had any time to yourself since {h}?"),
    "plan": ("What's the first thing you want to sort out for {h}?", "How much time can you give {h} this week?",
             "Would it help to have someone with you for {h}?", "What would a good outcome for {h} look like "
             "to you?", "Is anything about {h} already fixed, or is it all open?"),
}
"""About what the user asked for help with (assistant.py `intent_of`)."""
INTENT_SHARE = 0.5


def fresh(options: tuple[str, ...] | list[str], before: str) -> list[str]:
    """The options not said yet in the window (`before`, lower-cased), or all of them when every one has been."""
    return [o for o in options if o.lower() not in before] or list(options)


def followup_question(tone: str, category: str, handle: str, intent: str | None, mentioned: list[str],
                      rng: random.Random, taken: str | None = None, before: str = "") -> str:
    """The closing question: about their situation (naming what they told, when it fits), not a generic offer."""
    named = [m for m in mentioned if len(m.split()) <= 4 and all(w[:1].isupper() or w in ("of", "the", "&", "de")
                                                                 for w in m.split())]
    if category == "attachment_consultation":
        return rng.choice(fresh((f"Is there a part of it about {handle} you'd like me to look at more closely?",
                                 f"Does anything in it change your plans for {handle}?",
                                 f"Is anything in it about {handle} unclear to you?",
                                 f"Was there anything in it about {handle} you didn't expect?",
                                 f"Do you need to reply to any of it about {handle}?",
                                 f"Which part of it matters most for {handle}?"), before))
    if taken:  # the suggestion they took up, named here and nowhere else in the reply
        return rng.choice(fresh([q.format(t=taken) for q in TAKEN_QUESTIONS], before))
    if intent in INTENT_QUESTIONS and rng.random() < INTENT_SHARE:
        return rng.choice(fresh([q.format(h=handle) for q in INTENT_QUESTIONS[intent]], before))
    if category == "scheduling" or intent == "schedule":
        return rng.choice(fresh((f"Which days are already full for you around {handle}?",
                                 f"Is there a deadline for {handle}?",
                                 f"When would you ideally like {handle} to happen?",
                                 f"Would mornings or evenings suit {handle} better?",
                                 f"How much notice do you need for {handle}?"), before))
    if named and rng.random() < 0.4:
        m = rng.choice(named)
        how = () if tone == CALLED_OFF else (f"What was it like with {m}?",)  # not of what never happened
        return rng.choice(fresh((f"How do you feel about {m} now?", *how, f"Is {m} something you want to keep?"),
                                before))
    if tone in BAD:
        return rng.choice(fresh((f"Do you want to try {handle} again, or leave it for now?",
                                 f"How are you feeling about {handle} now?",
                                 f"Is there anything about {handle} I can help you sort out first?",
                                 f"What would make {handle} easier next time?",
                                 f"What bothered you most about {handle}?",
                                 f"Has {handle} changed how you feel about trying again?",
                                 f"What would you do differently about {handle}, looking back?"), before))
    return rng.choice(fresh((f"What was the best part of {handle}?", f"How are you feeling about {handle}?",
                             f"Is there a next step for {handle} you're thinking about?",
                             f"What surprised you most about {handle}?",  # not `Would you do the bill again?`
                             f"What will you remember most about {handle}?",
                             f"How did {handle} compare with what you expected?",
                             f"Has {handle} given you any ideas for what's next?",
                             f"What's next for you after {handle}?"), before))


_OPENERS = ("What", "How", "Is", "Was", "Do", "Did", "Does", "Would", "Have", "Had", "Which", "When", "Where", "Who")


def joined_questions(first: str, second: str) -> str | None:
    """Two questions asked in one sentence (`Is X easy to get to from yours, and how are you feeling about Y?`), or
    None when they do not join: a question that is not one clause, or a second that starts with a name."""
    if not (first.endswith("?") and second.endswith("?")) or "," in first or "," in second:
        return None
    head = second.split(" ", 1)[0]
    if head not in _OPENERS or len((first + " " + second).split()) > 26:
        return None
    return f"{first[:-1]}, and {head.lower()}{second[len(head):]}"


def closing(asked: list[str], close: str, rng: random.Random, join: float = 0.5) -> str:
    """The reply's last words: a question about who or where (`asked`, first) before the closing question, in one
    sentence `join` of the time where they join, or the one question alone."""
    if not asked or rng.random() >= 0.6:
        return close
    if rng.random() < 0.5:
        return asked[0]
    joined = joined_questions(asked[0], close) if rng.random() < join else None
    return joined or f"{capital(asked[0])} {close}"
