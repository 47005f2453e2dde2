"""The value an attribute held when something else happened, where it has changed since (issue 57: questions that
span years, "What was my job when we moved to Porto?"): `fact.state_dependent_attribute.at_event`.

The moment is an event named by its plan title (one a unique title names, that went well and whose facts were told
before the question); the value is the persona's attribute (their job, employer, city, home, pet, ..., age) holding
on that day, a week either side (so a day's slack in when it is told never changes the answer), and different from
the value holding when the question is asked. The event must not change the attribute itself ("what was Maya's
employer when she started the new job" has two answers). Both facts, the value's and the event's, need evidence
before the question. Over a long life the moment and the question lie years apart (`extra["years_apart"]`); such
items go first.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right

from lemminflect import getInflection

from schemas.world import Fact
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext
from tasks.questions.generators.kit.core import known, pool, possessive, sql, who
from tasks.questions.generators.kit.life import Story, attribute_pool, histories, stories, unique_titles, values_of

THEN_QUESTIONS: dict[str, str] = {
    "occupation": "What was {ps} job when {p} {did}?",
    "employer": "Who was {ps} employer when {p} {did}?",
    "city": "Which city did {p} live in when {p} {did}?",
    "home": "Where was {ps} home when {p} {did}?",
    "pet": "What pet did {p} have when {p} {did}?",
    "vehicle": "What vehicle did {p} own when {p} {did}?",
    "gym": "Which gym was {p} a member of when {p} {did}?",
    "doctor": "Who was {ps} doctor when {p} {did}?",
    "favourite_cafe": "Which café was {ps} favourite when {p} {did}?",
    "grocery_shop": "Where did {p} do the weekly shop when {p} {did}?",
    "volunteering": "What volunteering did {p} do when {p} {did}?",
    "income_band": "What was {ps} income band when {p} {did}?",
    "relationship_status": "What was {ps} relationship status when {p} {did}?",
    "age": "How old was {p} when {p} {did}?",
}
"""Persona attribute -> the question asking its value at an event; `{did}` is the event's plan title in the past."""
MARGIN_DAYS = 7
"""The value must hold this many days before and after the event's day."""
ANCHORS_PER_VALUE = 2
"""Events asked about per value held (the earliest and the latest that fit): the candidates stay linear in the
values, not in values times events."""


def past_title(title: str) -> str:
    """`move into a flat at 8 Elm Road` -> `moved into a flat at 8 Elm Road` (the head verb in the past)."""
    verb, _, rest = title.partition(" ")
    found = getInflection(verb, "VBD")
    return f"{found[0] if found else verb + 'ed'} {rest}".strip()


def value_at_event(ctx: QContext) -> list[Candidate]:
    """`fact.state_dependent_attribute.at_event` candidates (see the module doc)."""
    p, me = who(ctx), ctx.persona.name
    anchors = sorted((s for s in unique_titles(stories(ctx)) if s.event.valence == "positive"),
                     key=lambda s: (s.date, s.event.event_id))
    days = [s.date for s in anchors]
    out = []
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if subject != me or attribute not in THEN_QUESTIONS or len({f.value for f in history}) < 2:
            continue
        now = ctx.current(subject, attribute, ctx.day)
        for then in history:
            if now is None or then.value == now.value or not known(ctx, [then.fact_id], ctx.asked_at):
                continue
            lo = then.valid_from + dt.timedelta(days=MARGIN_DAYS)
            hi = (then.valid_to or ctx.day) - dt.timedelta(days=MARGIN_DAYS + 1)
            last = min(hi, ctx.day - dt.timedelta(days=1))
            fits = [s for s in anchors[bisect_left(days, lo):bisect_right(days, last)]
                    if not any(f.subject == subject and f.attribute == attribute for f in s.facts)
                    and known(ctx, s.fact_ids, ctx.asked_at)]
            for story in [fits[0], fits[-1]][:ANCHORS_PER_VALUE] if len(fits) > 1 else fits:
                out.append(_candidate(ctx, p, then, now, story, history))
    return out


def _candidate(ctx: QContext, p: str, then: Fact, now: Fact, story: Story, history: list[Fact]) -> Candidate:
    did = past_title(story.title)
    question = THEN_QUESTIONS[then.attribute].format(p=p, ps=possessive(p), did=did)
    years = (ctx.day - story.date).days / 365.25
    reference = (f"On {human_date(story.date)}, when {p} {did}, the answer was {then.value} (from "
                 f"{human_date(then.valid_from)}); it is {now.value} now.")
    query = (f"SELECT f.value FROM facts f JOIN events e ON e.event_id = '{story.event.event_id}' WHERE f.subject = "
             f"'{sql(then.subject)}' AND f.attribute = '{then.attribute}' AND f.valid_from <= e.date AND "
             f"(f.valid_to IS NULL OR f.valid_to > e.date)")
    return Candidate(
        "fact", ("state_dependent_attribute",), question, then.value, reference,
        "fact.state_dependent_attribute.at_event", query, (then.fact_id, *story.fact_ids),
        distractors=pool([f.value for f in reversed(history)] + values_of(ctx, then.attribute)
                         + attribute_pool(ctx, then.attribute), then.value),
        priority=0 if years >= 1 else 1,
        extra={"subject": then.subject, "attribute": then.attribute, "answer_rule": "value_at_event",
               "event_ids": [story.event.event_id], "event_date": story.date.isoformat(),
               "years_apart": round(years, 1), "later_fact_ids": [f.fact_id for f in history
                                                                   if f.valid_from > then.valid_from]},
    )
