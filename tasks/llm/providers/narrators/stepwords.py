"""How the assistant words its suggestions: one step in a sentence of its own (`You could start by booking ...;
...`), or two steps aggregated into one sentence (`Start by booking the table, because ..., and then try asking
Ann along, since ...`), the way a person gives advice rather than reading a list. A step is a base-form verb phrase
and the reason it helps (lexicon.py, steps_more.py, detail_steps.py); nothing here knows what the event was.
"""

from __future__ import annotations

import datetime as dt
import random
import re

from tasks.llm.providers.narrators.realize import capital, gerund

Step = tuple[str, str]


def weekday_phrase(date: str, rng: random.Random) -> str:
    """A time to aim for, relative to the conversation's day (`before Friday`, `over the weekend`)."""
    try:
        day = dt.datetime.strptime(date, "%B %d, %Y").date()
    except ValueError:
        return rng.choice(("this week", "in the next few days"))
    ahead = day + dt.timedelta(days=rng.randint(2, 5))
    soon = "before the week is out" if day.weekday() < 4 else "early next week"
    return rng.choice((f"before {ahead:%A}", f"by {ahead:%A}", "this week", soon, "in the next few days",
                       f"ahead of {ahead:%A}"))


_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_OWNABLE = re.compile(rf"^(?:on )?((?:last |this )?(?:{_DAYS}|today|yesterday|week|weekend|month))$", re.IGNORECASE)


def timed_handle(handle: str, when: str, rng: random.Random) -> str:
    """The event named with when the user said it happened, in their words: `yesterday's lunch with Robin` or `the
    lunch with Robin yesterday`, `Tuesday's session` for `on Tuesday`, `the session two days ago`; a name stays as
    it is (not `Auckland earlier today`)."""
    owned = _OWNABLE.match(when.strip())
    head, _, rest = handle.partition(" ")
    if head.lower() != "the" or not rest:
        return handle
    if owned and head.lower() == "the" and rest[:1].islower() and rng.random() < 0.6:
        return f"{owned.group(1)}'s {rest}"
    return f"{handle} {when.strip()}"


LEADS = ("You could start by {g}; {r}.", "It could help to {b} {t}, because {r}.", "You might {b}; {r}.",
         "Try to {b} {t}: {r}.", "{G} {t} is worth it, because {r}.", "It's also worth trying to {b}: {r}.",
         "If you can, {b} {t}; {r}.", "One thing that helps is {g}: {r}.", "I'd suggest {g} {t}, because {r}.",
         "The next step could be to {b} {t}; {r}.", "It might be worth {g}, since {r}.",
         "If you have a spare moment {t}, {b}: {r}.", "Something small that works is {g}; {r}.",
         "You may find it useful to {b} {t}, since {r}.", "My suggestion would be {g}: {r}.")
"""One suggestion a sentence: `{b}` the verb phrase, `{g}` its gerund, `{r}` the reason, `{t}` a time phrase."""

PAIR_LEADS = ("Start by {g1}, because {r1}, and then try {g2}, since {r2}.",
              "I'd {b1} {t} and then {b2}: {r1}, and {r2}.",
              "{G1} would be a good start, because {r1}; after that, {b2}, since {r2}.",
              "Two things could help: {g1}, because {r1}, and {g2}, because {r2}.",
              "It could help to {b1} {t} and to {b2} as well; {r1}, and {r2}.",
              "First {b1}, since {r1}; then {b2} {t}, because {r2}.",
              "Both {g1} and {g2} are worth doing {t}: {r1}, and {r2}.")
"""Two suggestions in one sentence (`1` the first step's parts, `2` the second's)."""

PAIR_SHARE = 0.6
"""How often two suggestions that can go together are made in one sentence rather than two."""

TIMED = re.compile(r"\b(?:the day before|next time|this week|next week|each week|every week|in a month|"
                   r"for a few days|in the meantime|now and then|while it is fresh|the night before|on the first day|"
                   r"in the first week|first weeks|before you go|before you set off|after training|afterwards|"
                   r"one day|the next day|from time to time)$")
"""A suggestion that ends saying when (`put it in your calendar with a reminder the day before`) takes no other
time phrase after it."""

_SMALL = frozenset({"with", "about", "your", "them", "they", "that", "this", "what", "from", "into", "when", "then",
                    "there", "their", "some", "more", "before", "after", "over", "each", "every", "will", "have",
                    "just", "it's", "you're", "make", "take", "keep"})


def _tidy(text: str) -> str:
    text = re.sub(r" +([:;,.])", r"\1", re.sub(r"  +", " ", text))
    return re.sub(r"\b([Tt])ry to try\b", r"\1ry", text)  # `try to try one new technique`


def lower_first(text: str) -> str:
    """A sentence of the realizer's own (never starting with a name) with its first letter lower-cased."""
    return text if text.startswith(("I ", "I'")) else text[:1].lower() + text[1:]


AIM_SHARE = 0.35
"""How often a lead that says no time (`You might {b}; {r}.`) aims its suggestion at one all the same."""
ABOUT = ("For {h}, {s}", "With {h}, {s}", "As for {h}, {s}", "When it comes to {h}, {s}", "With {h} in mind, {s}",
         "Thinking about {h}, {s}")
"""A suggestion said about the event (`As for the lunch, you might ...`), ABOUT_SHARE of the time."""
ABOUT_SHARE = 0.4


def step_sentence(step: Step, lead: str, handle: str, date: str, rng: random.Random) -> str:
    """One suggestion in the sentence form `lead` asks for (`You could start by booking ...; ...`)."""
    vp, reason = step
    when = "" if TIMED.search(vp) else weekday_phrase(date, rng)  # not `the day before before Friday`
    if "{t}" not in lead and when and rng.random() < AIM_SHARE:  # `One thing that helps is noting it this week`
        lead = lead.replace("{g}", "{g} {t}", 1) if "{g}" in lead else lead.replace("{b}", "{b} {t}", 1)
    text = _tidy(lead.format(b=vp, B=capital(vp), g=gerund(vp), G=capital(gerund(vp)), r=reason, R=capital(reason),
                             t=when))
    if handle not in text and rng.random() < ABOUT_SHARE and not re.search(r"\b[A-Z][a-z]", text[1:]):  # one named
        text = rng.choice(ABOUT).format(h=handle, s=lower_first(text))
    return text


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z']+", text.lower()) if len(w) >= 4 and w not in _SMALL}


def can_pair(first: Step, second: Step) -> bool:
    """Two steps go in one sentence only when they share no content word (`booking the table` and `confirming the
    table` would say the table twice) and neither is already a coordination (`... and ...` twice reads as a list)."""
    if any(" and " in vp for vp, _ in (first, second)):
        return False
    return not (_content(first[0] + " " + first[1]) & _content(second[0] + " " + second[1]))


def pair_sentence(first: Step, second: Step, lead: str, date: str, rng: random.Random) -> str:
    """Two suggestions in the one sentence form `lead` (PAIR_LEADS) asks for."""
    (vp1, r1), (vp2, r2) = first, second
    when = "" if TIMED.search(vp1) or TIMED.search(vp2) else weekday_phrase(date, rng)
    return _tidy(lead.format(b1=vp1, g1=gerund(vp1), G1=capital(gerund(vp1)), r1=reason_clause(r1),
                             b2=vp2, g2=gerund(vp2), r2=reason_clause(r2), t=when))


def reason_clause(reason: str) -> str:
    """A reason inside a longer sentence: without a final stop."""
    return reason.rstrip(".")


def said_steps(steps: list[Step], handle: str, date: str, rng: random.Random,
               leads: tuple[str, ...] | list[str] = LEADS, start: int = 0) -> list[str]:
    """Sentences for `steps` in order: two at a time when they go together (PAIR_SHARE of the time), else one; the
    single leads taken in turn from `leads`, from `start`."""
    out: list[str] = []
    i = 0
    while i < len(steps):
        if i + 1 < len(steps) and can_pair(steps[i], steps[i + 1]) and rng.random() < PAIR_SHARE:
            out.append(pair_sentence(steps[i], steps[i + 1], rng.choice(PAIR_LEADS), date, rng))
            i += 2
            continue
        out.append(step_sentence(steps[i], leads[(start + len(out)) % len(leads)], handle, date, rng))
        i += 1
    return out
