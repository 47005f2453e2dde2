"""Temporal questions: events identified, ordered, spaced and dated through the calendar.

- indirect_identification: an event named by its relation to another ("What did Maya do the day after she
  adopted a dog named Biscuit?", "Which café did Maya try in the week after ...?"); the anchor's title names
  exactly one event and exactly one event fits the relation.
- sequence_comprehension: which of two (or three) positive events, at most SEQUENCE_WINDOW_DAYS apart and on
  different days, came first, or which of three came last; the options are named in the question in seeded
  order.
- long_horizon_synthesis: spans of months: how many months passed between two events of the same kind (or two
  long-horizon plans); how long a value held; what an attribute was in one month and what it was months later.
- implicit_temporal_lookup: the ISO date of an event named by what it did to the world ("On what date did
  Café Lumen stop being Maya's favourite café?", "... did Bean There become ..."), or by its plan title.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections import defaultdict

from tasks.common.facttext import mentions
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.kit import (
    NOT_ENTITIES,
    Story,
    as_noun,
    date_pool,
    entity_pool,
    histories,
    known,
    month_end,
    month_name,
    month_start,
    pool,
    possessive,
    sql,
    stories,
    unique_titles,
    who,
)

SEQUENCE_WINDOW_DAYS = 30
"""Sequence questions pair events at most this far apart: close events are the hard ones to order."""
PAIRS_PER_EVENT = 3
"""Each event is paired with at most this many later ones (keeps the pool linear in the events)."""
MONTH_DAYS = 30.44

# Wording of "which <entity> ..." per kind: (entity field, question opening with {p}).
KIND_ASK: dict[str, tuple[str, str]] = {
    "new_cafe": ("cafe", "Which café did {p} try"),
    "start_book": ("book", "Which book did {p} start reading"),
    "concert": ("artist", "Which act did {p} see live"),
    "dinner_out": ("restaurant", "At which restaurant did {p} have dinner"),
    "colleague_lunch": ("colleague", "Which colleague did {p} have lunch with"),
    "city_trip": ("city", "Which city did {p} visit"),
    "volunteer": ("org", "Where did {p} volunteer"),
    "weekly_shop": ("market", "Where did {p} do the weekly shop"),
    "doctor_visit": ("doctor", "Which doctor did {p} see"),
    "join_gym": ("gym", "Which gym did {p} join"),
    "start_course": ("school", "At which school did {p} start a course"),
    "friend_visit": ("friend", "Who did {p} host"),  # a sister or a neighbour is hosted too: no "friend"
    "family_call": ("relative", "Who did {p} call"),
    "milestone": ("person", "Whose celebration did {p} go to"),
    "hobby_session": ("hobby", "Which hobby did {p} spend a session on"),
    "work_project": ("project", "Which work project did {p} kick off"),
}

# Persona attributes as nouns ("{p}'s favourite café").
ATTRIBUTE_NOUNS: dict[str, str] = {
    "favourite_cafe": "favourite café",
    "home": "home",
    "employer": "employer",
    "occupation": "job",
    "doctor": "doctor",
    "gym": "gym",
    "grocery_shop": "usual shop for the weekly shop",
    "current_book": "current book",
    "work_project": "current work project",
    "volunteering": "volunteering role",
    "course": "course",
    "vehicle": "vehicle",
    "pet": "pet",
    "income_band": "income band",
    "relationship_status": "relationship status",
    "city": "city",
    "hobby": "main hobby",
}


def positive(ctx: QContext) -> list[Story]:
    """Positive stories whose title names one event, strictly before the question day, by date."""
    return [s for s in unique_titles([s for s in stories(ctx) if s.date < ctx.day]) if s.event.valence == "positive"]


def event_query(*stories_: Story, order: str = "date") -> str:
    ids = ", ".join(f"'{s.event.event_id}'" for s in stories_)
    return f"SELECT event_id, date FROM events WHERE event_id IN ({ids}) ORDER BY {order}"


def months(days: int) -> int | None:
    """The whole number of months `days` rounds to, or None when the rounding is not clear-cut."""
    n = round(days / MONTH_DAYS)
    return n if n >= 2 and abs(days / MONTH_DAYS - n) <= 0.2 else None


def month_text(n: int) -> str:
    return "1 month" if n == 1 else f"{n} months"


def month_pool(n: int) -> tuple[str, ...]:
    return tuple(month_text(k) for k in (n - 1, n + 1, n - 2, n + 2, n + 3, n - 3) if k >= 1)


# ----------------------------------------------------------------------------- indirect_identification


@generator("temporal", "indirect_identification")
def indirect_identification(ctx: QContext) -> list[Candidate]:
    """An event identified by its calendar relation to another: the one event the day after, or the one
    event of a kind in the week after / before an anchor event."""
    p, out = who(ctx), []
    items = [s for s in stories(ctx) if s.date < ctx.day]  # by date
    starts = [s.date for s in items]
    anchors = positive(ctx)
    by_day: dict[dt.date, list[Story]] = defaultdict(list)
    by_kind: dict[tuple[str, str], list[str]] = {}  # a kind's field values, read once rather than per anchor
    for s in items:
        by_day[s.date].append(s)
    titled = {s.event.event_id for s in anchors}

    def around(day: dt.date, lo: int, hi: int) -> list[Story]:
        """The stories from `lo` to `hi` days after `day` (a long life's thousands are not scanned per anchor)."""
        return items[bisect_left(starts, day + dt.timedelta(days=lo)):bisect_right(starts, day + dt.timedelta(days=hi))]

    for a in anchors:
        nxt = by_day.get(a.date + dt.timedelta(days=1), [])
        if len(nxt) == 1 and nxt[0].event.event_id in titled:
            b = nxt[0]
            near = [s.title for s in around(a.date, -10, 10) if s.title not in (a.title, b.title)]
            out.append(_identified(ctx, f"What did {p} do on the day after {p} set out to {a.title}?",
                                   b.title, a, b, "day_after", near,
                                   f"{p} did '{a.title}' on {human_date(a.date)}; the next day, "
                                   f"{human_date(b.date)}, {p} did '{b.title}'."))
        for direction, lo, hi in (("after", 1, 7), ("before", -7, -1)):
            week = around(a.date, lo, hi)
            window = [s for s in week if s.event.valence == "positive"]
            for kind, (field_name, opening) in KIND_ASK.items():
                hits = [s for s in window if s.kind == kind]
                if kind == a.kind or len(hits) != 1 or field_name not in hits[0].entity:
                    continue
                if any(s.kind == kind and s.event.valence == "negative" for s in week):
                    continue
                b = hits[0]
                answer = b.entity[field_name]
                if mentions(a.title, answer):
                    continue
                if (kind, field_name) not in by_kind:
                    by_kind[(kind, field_name)] = [s.entity.get(field_name, "") for s in items if s.kind == kind]
                others = list(by_kind[(kind, field_name)])
                others += entity_pool(ctx, field_name)
                question = f"{opening.format(p=p)} in the week {direction} {p} set out to {a.title}?"
                out.append(_identified(ctx, question, answer, a, b, f"week_{direction}", others,
                                       f"{p} did '{a.title}' on {human_date(a.date)}; within the week {direction}, "
                                       f"on {human_date(b.date)}, {p} did '{b.title}'."))
    return [c for c in out if c is not None]


def _identified(ctx: QContext, question: str, answer: str, a: Story, b: Story, variant: str,
                others: list[str], reference: str) -> Candidate | None:
    fact_ids = a.fact_ids + b.fact_ids
    if not known(ctx, fact_ids, ctx.asked_at):
        return None
    return Candidate(
        "temporal", ("indirect_identification",), question, answer, reference,
        f"temporal.indirect_identification.{variant}",
        f"SELECT b.event_id FROM events a JOIN events b ON b.date - a.date = {(b.date - a.date).days} "
        f"WHERE a.event_id = '{a.event.event_id}' AND b.kind = '{b.kind}'",
        fact_ids, distractors=pool(others, answer), priority=0 if variant.startswith("week") else 1,
        extra={"event_ids": [a.event.event_id, b.event.event_id], "anchor_event_id": a.event.event_id},
    )


# ------------------------------------------------------------------------------ sequence_comprehension


@generator("temporal", "sequence_comprehension")
def sequence_comprehension(ctx: QContext) -> list[Candidate]:
    """Which of two or three nearby positive events came first, and which of three came last (options in
    seeded order)."""
    p, items, out = who(ctx), positive(ctx), []
    for i, a in enumerate(items):
        later = [b for b in items[i + 1:] if a.date < b.date <= a.date + dt.timedelta(days=SEQUENCE_WINDOW_DAYS)]
        for b in later[:PAIRS_PER_EVENT]:
            out.append(_ordered(ctx, p, [a, b]))
        if len(later) >= 2:
            b = later[0]
            c = next((x for x in later[1:] if x.date > b.date), None)
            if c is not None:
                out.append(_ordered(ctx, p, [a, b, c]))
                out.append(_ordered(ctx, p, [a, b, c], last=True))
    return [c for c in out if c is not None]


SEQUENCE_FORMS = ("Which did {p} do {which}: {listed}?", "Which of these did {p} do {which}: {listed}?",
                  "What did {p} do {which}: {listed}?")
"""How a sequence question lists what happened: plan titles are verb phrases in their base form, which `do`
takes ("Which did Maya do first: ask for a promotion at Casa Verde or buy a bike?"); never `Of ask for ...`."""


COUNTED_THINGS = frozenset({"vehicle", "pet", "prized_possession"})
"""Attributes whose values are things a sentence names with an article (`the black Trek gravel bike`)."""


def _subject(attribute: str, value: str) -> str:
    """A value as the subject of `stop being` / `become`: `the black Trek gravel bike`, `the flat at ...`."""
    if attribute in COUNTED_THINGS and value[:1].islower() and not value.startswith(("the ", "a ", "an ")):
        return f"the {value}"
    return as_noun(value)


def _ordered(ctx: QContext, p: str, events: list[Story], last: bool = False) -> Candidate | None:
    """Which of `events` (in date order) came first, or with `last` which came last."""
    fact_ids = tuple(f for s in events for f in s.fact_ids)
    if not known(ctx, fact_ids, ctx.asked_at):
        return None
    ids = ":".join(s.event.event_id for s in events)
    shown = list(events)
    ctx.rng(f"order:{ids}").shuffle(shown)
    names = [s.title for s in shown]
    listed = f"{names[0]} or {names[1]}" if len(names) == 2 else f"{names[0]}, {names[1]}, or {names[2]}"
    asks = ctx.rng(f"order-form:{ids}").choice(SEQUENCE_FORMS)
    answer = events[-1] if last else events[0]
    reference = "; then ".join(f"{s.title} (on {human_date(s.date)})" for s in events)
    variant = "last" if last else "pair" if len(events) == 2 else "triple"
    question = asks.format(p=p, which="last" if last else "first", listed=listed)
    return Candidate(
        "temporal", ("sequence_comprehension",), question, answer.title,
        f"{answer.title} came {'last' if last else 'first'} (on {human_date(answer.date)}); in order: {reference}.",
        f"temporal.sequence_comprehension.{variant}",
        event_query(*events, order=f"date{' DESC' if last else ''} LIMIT 1"), fact_ids,
        distractors=tuple(s.title for s in events if s is not answer), priority=0 if len(events) == 3 else 1,
        extra={"event_ids": [s.event.event_id for s in events], "options_in_question": True,
               "order": [s.event.event_id for s in events], "asks": "last" if last else "first"},
    )


# ------------------------------------------------------------------------------ long_horizon_synthesis


@generator("temporal", "long_horizon_synthesis")
def long_horizon_synthesis(ctx: QContext) -> list[Candidate]:
    """Spans of months between events of one kind, how long a value held, and what an attribute was in
    one month versus months later."""
    return _spans(ctx) + _durations(ctx) + _changes(ctx)


def _spans(ctx: QContext) -> list[Candidate]:
    """How many months passed between two consecutive events of one kind (or two long-horizon plans)."""
    p, items, out = who(ctx), positive(ctx), []
    long_plans = {pl.plan_id for pl in ctx.world.plans if pl.horizon == "long"}
    groups: dict[str, list[Story]] = defaultdict(list)
    for s in items:
        groups[s.kind].append(s)
        if s.event.plan_id in long_plans:
            groups["long"].append(s)
    seen = set()
    for key, group in sorted(groups.items()):
        for a, b in zip(group, group[1:], strict=False):
            n = months((b.date - a.date).days)
            if n is None or (a.event.event_id, b.event.event_id) in seen:
                continue
            seen.add((a.event.event_id, b.event.event_id))
            fact_ids = a.fact_ids + b.fact_ids
            if not known(ctx, fact_ids, ctx.asked_at):
                continue
            answer = f"{n} months"
            out.append(Candidate(
                "temporal", ("long_horizon_synthesis",),
                f"About how many months passed between the day {p} set out to {a.title} and the day {p} set out "
                f"to {b.title}?",
                answer, f"{human_date(a.date)} to {human_date(b.date)} is {(b.date - a.date).days} days, about "
                f"{n} months.", "temporal.long_horizon_synthesis.span",
                f"SELECT ROUND((b.date - a.date) / {MONTH_DAYS}) FROM events a, events b WHERE a.event_id = "
                f"'{a.event.event_id}' AND b.event_id = '{b.event.event_id}'",
                fact_ids, distractors=month_pool(n), priority=0 if key == "long" else 1,
                extra={"event_ids": [a.event.event_id, b.event.event_id], "days": (b.date - a.date).days},
            ))
    return out


def _durations(ctx: QContext) -> list[Candidate]:
    """For about how many months a persona value held before it was replaced."""
    p, out = who(ctx), []
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if subject != ctx.persona.name or attribute not in ATTRIBUTE_NOUNS:
            continue
        values = [f.value for f in history]
        for old, new in zip(history, history[1:], strict=False):
            n = months((new.valid_from - old.valid_from).days)
            if n is None or values.count(old.value) != 1 or new.valid_from >= ctx.day or old.value in NOT_ENTITIES:
                continue
            if not known(ctx, [old.fact_id, new.fact_id], ctx.asked_at):
                continue
            answer = f"{n} months"
            out.append(Candidate(
                "temporal", ("long_horizon_synthesis",),
                f"For about how many months was {_subject(attribute, old.value)} {possessive(p)} "
                f"{ATTRIBUTE_NOUNS[attribute]}?",
                answer, f"{old.value} was {possessive(p)} {ATTRIBUTE_NOUNS[attribute]} from "
                f"{human_date(old.valid_from)} until {human_date(new.valid_from)}, when it became {new.value}: "
                f"about {n} months.", "temporal.long_horizon_synthesis.duration",
                f"SELECT ROUND((valid_to - valid_from) / {MONTH_DAYS}) FROM facts WHERE fact_id = '{old.fact_id}'",
                (old.fact_id, new.fact_id), distractors=month_pool(n),
                extra={"event_ids": [old.event_id, new.event_id], "days": (new.valid_from - old.valid_from).days},
            ))
    return out


def _full_months(ctx: QContext, start: dt.date, end: dt.date | None) -> list[dt.date]:
    """First days of the months lying wholly inside [start, end) and before the question day."""
    limit = min(end or ctx.day, ctx.day)
    out, m = [], month_start(start)
    if m < start:
        m = month_start(month_end(m) + dt.timedelta(days=1))
    while month_end(m) < limit:
        out.append(m)
        m = month_end(m) + dt.timedelta(days=1)
    return out


def value_at(subject: str, attribute: str, month: dt.date) -> str:
    """The query for the value holding through a whole month."""
    return (f"SELECT value FROM facts WHERE subject = '{sql(subject)}' AND attribute = '{attribute}' AND valid_from "
            f"<= '{month}' AND (valid_to IS NULL OR valid_to > '{month_end(month)}')")


def _changes(ctx: QContext) -> list[Candidate]:
    """What a persona attribute was in one month and what it was at least three months later."""
    p, out = who(ctx), []
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if subject != ctx.persona.name or attribute not in ATTRIBUTE_NOUNS or len(history) < 2:
            continue
        spans = [(f, _full_months(ctx, f.valid_from, f.valid_to)) for f in history]
        spans = [(f, ms) for f, ms in spans if ms]
        for i, (old, old_months) in enumerate(spans):
            for new, new_months in spans[i + 1:]:
                m1, m2 = old_months[0], new_months[-1]
                if old.value == new.value or (m2.year - m1.year) * 12 + m2.month - m1.month < 3:
                    continue
                if old.value in NOT_ENTITIES or new.value in NOT_ENTITIES:
                    continue  # "in March Samir's employer was unemployed"
                if not known(ctx, [old.fact_id, new.fact_id], ctx.asked_at):
                    continue
                between = [f.value for f in history if old.valid_from < f.valid_from < new.valid_from]
                noun = ATTRIBUTE_NOUNS[attribute]
                answer = f"{old.value}, then {new.value}"
                others = list(dict.fromkeys(f.value for f in history if f.value not in (old.value, new.value)))
                distract = [f"{new.value}, then {old.value}"] + [f"{old.value}, then {v}" for v in others]
                distract += [f"{v}, then {new.value}" for v in others]
                distract += [f"{a}, then {b}" for a in [old.value, new.value] + others
                             for b in [old.value, new.value] + others if a != b]
                reference = (f"In {month_name(m1)} {possessive(p)} {noun} was {old.value}; in {month_name(m2)} it was "
                             f"{new.value}" + (f" (in between: {', '.join(between)})." if between else "."))
                out.append(Candidate(
                    "temporal", ("long_horizon_synthesis",),
                    f"What was {possessive(p)} {noun} in {month_name(m1)}, and what was it in {month_name(m2)}?",
                    answer, reference, "temporal.long_horizon_synthesis.change",
                    f"{value_at(subject, attribute, m1)} UNION ALL {value_at(subject, attribute, m2)}",
                    (old.fact_id, new.fact_id), distractors=pool(distract, answer), priority=0,
                    extra={"months": [m1.isoformat(), m2.isoformat()], "between": between},
                ))
    return out


# ---------------------------------------------------------------------------- implicit_temporal_lookup


@generator("temporal", "implicit_temporal_lookup")
def implicit_temporal_lookup(ctx: QContext) -> list[Candidate]:
    """The date of an event named by the change it made ("stop being <persona>'s favourite café"), or by its
    plan title."""
    p, out = who(ctx), []
    titled = {s.event.event_id: s for s in positive(ctx)}
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if subject != ctx.persona.name or attribute not in ATTRIBUTE_NOUNS:
            continue
        values = [f.value for f in history]
        for old, new in zip(history, history[1:], strict=False):
            event = ctx.events.get(new.event_id)
            if event is None or event.date != new.valid_from or values.count(old.value) != 1:
                continue
            if old.value in NOT_ENTITIES:
                continue
            if new.valid_from >= ctx.day or not known(ctx, [old.fact_id, new.fact_id], ctx.asked_at):
                continue
            noun = ATTRIBUTE_NOUNS[attribute]
            answer = event.date.isoformat()
            reference = (f"On {human_date(event.date)} ({answer}) {possessive(p)} {noun} changed from {old.value} to "
                         f"{new.value}.")
            asks = [("change", f"{_subject(attribute, old.value)} stop being", "valid_to", old)]
            if values.count(new.value) == 1 and new.value not in NOT_ENTITIES:
                asks.append(("start", f"{_subject(attribute, new.value)} become", "valid_from", new))
            for variant, what, column, fact in asks:  # the day one value ended, or the day the next began
                out.append(Candidate(
                    "temporal", ("implicit_temporal_lookup",), f"On what date did {what} {possessive(p)} {noun}?",
                    answer, reference, f"temporal.implicit_temporal_lookup.{variant}",
                    f"SELECT {column} FROM facts WHERE fact_id = '{fact.fact_id}'", (old.fact_id, new.fact_id),
                    distractors=date_pool(ctx, event.date), priority=0,
                    extra={"event_ids": [event.event_id], "variant": variant},
                ))
    for s in titled.values():
        if not known(ctx, s.fact_ids, ctx.asked_at):
            continue
        answer = s.date.isoformat()
        out.append(Candidate(
            "temporal", ("implicit_temporal_lookup",), f"On what date did {p} {s.title}?", answer,
            f"{p} did this on {human_date(s.date)} ({answer}).", "temporal.implicit_temporal_lookup.title",
            f"SELECT date FROM events WHERE event_id = '{s.event.event_id}'", s.fact_ids,
            distractors=date_pool(ctx, s.date), priority=1, extra={"event_ids": [s.event.event_id], "variant": "title"},
        ))
    return out
