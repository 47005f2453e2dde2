"""Aggregation questions: counts, trends, extremes and absences over the persona's events and facts.

Every instance that counts is an event with facts; the evidence lists every such instance's turns and
chunks (all_instances=True), so a checker can see that none is missing.

- conditional_counting: how many events of a kind went badly (or happened, or involved one person or place)
  in a quarter or half-year window that ended before the question.
- trend_analysis: how the frequency of a kind of event moved quarter by quarter (rising, falling, the same each
  quarter, up then down, down then up: `trend_of`), or first half against second half (or about equally);
  how an ordered attribute (income band) moved.
- extreme_value: the entity a kind of event involved most often; the value an attribute kept longest; the
  month with the most events of a kind; the first entity of a kind in the year.
- absence_detection: "Between <start> and <date>, did <persona> ever <do X>?" (no: the first time came later;
  or yes, asked the same way of a span that holds the first time); "Did any of <persona>'s <kind> go badly
  between ...?" (no: all went well; or yes: one or two did); the one month of the span with no event of a
  frequent kind. Yes and no items share their wording, so the question never gives the answer away.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass

from tasks.common.facttext import fits_slot
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.kit import (
    Story,
    ask_on,
    attribute_pool,
    entity_pool,
    histories,
    known,
    month_end,
    month_name,
    month_start,
    pool,
    possessive,
    refs,
    stories,
    values_of,
    when,
    who,
)
from tasks.world.banks import INCOME_BANDS


@dataclass(frozen=True)
class KindText:
    """How a kind of event is counted and named: plural noun, `ever <verb>` phrase, entity field and noun."""

    plural: str
    verb: str
    field: str
    noun: str


KIND_TEXT: dict[str, KindText] = {
    "hobby_session": KindText("hobby sessions", "spend a session on a hobby", "hobby", "hobby"),
    "weekly_shop": KindText("weekly shops", "do the weekly shop", "market", "shop"),
    "family_call": KindText("planned calls with family and friends", "call a relative", "relative", "person"),
    "dinner_out": KindText("planned dinners out", "have dinner out", "restaurant", "restaurant"),
    "colleague_lunch": KindText("planned lunches with colleagues", "have lunch with a colleague", "colleague",
                                "colleague"),
    "concert": KindText("planned concerts", "go to a concert", "artist", "act"),
    "volunteer": KindText("volunteering attempts", "volunteer", "org", "organisation"),
    "partner_evening": KindText("planned evenings out with a partner", "take a partner out for the evening",
                                "place", "place"),
    "visit_family": KindText("family visits", "visit family", "relative", "person"),
    "big_bill": KindText("big bills", "deal with a big bill", "bill", "bill"),
    "milestone": KindText("planned celebrations", "celebrate someone's milestone", "person", "person"),
    "doctor_visit": KindText("doctor visits", "see a doctor", "doctor", "doctor"),
    "start_book": KindText("attempts at a new book", "start a new book", "book", "book"),
    "new_cafe": KindText("visits to new cafés", "try a new café", "cafe", "café"),
    "friend_visit": KindText("plans to host someone", "host someone", "friend", "person"),
    "work_project": KindText("work project kick-offs", "kick off a work project", "project", "project"),
    "start_course": KindText("attempts to start a course", "start a course", "school", "school"),
    "city_trip": KindText("planned trips", "take a trip", "city", "city"),
    "run_race": KindText("races", "run a race", "race", "race"),
    "join_gym": KindText("gym sign-ups", "try to join a gym", "gym", "gym"),
}
MID_DELAY_DAYS = 7
"""A windowed question is asked this many days after its window closes (when its evidence is all in)."""
YES_POOL = ("Yes, once", "Yes, twice", "Yes, three times", "Yes, four times", "Yes, five times")


def sim_months(ctx: QContext) -> list[dt.date]:
    """First days of the months the simulation covers wholly before the question (the question day may be
    the month's last day: nothing has happened on it yet)."""
    start, out = ctx.config.start_date, []
    m = month_start(start) if start.day == 1 else month_start(month_end(start) + dt.timedelta(days=1))
    while month_end(m) <= ctx.day:
        out.append(m)
        m = month_end(m) + dt.timedelta(days=1)
    return out


def partial_ok(ctx: QContext, items: list[Story]) -> bool:
    """True when the months only partly simulated (a first month begun mid-way, the current month) each hold
    an instance, so "which month had none" has one answer."""
    full = set(sim_months(ctx))
    partial = {month_start(ctx.config.start_date), month_start(ctx.day)} - full
    if ctx.day == month_start(ctx.day):
        partial.discard(month_start(ctx.day))
    have = {month_start(s.date) for s in items}
    return all(m in have for m in partial)


def span_text(first: dt.date, last: dt.date) -> str:
    """`from April to June 2024` / `from November 2024 to January 2025` (no day numbers: counts stay unleaked)."""
    if first.year == last.year:
        return f"from {first:%B} to {last:%B} {last.year}"
    return f"from {month_name(first)} to {month_name(last)}"


def windows(ctx: QContext) -> list[tuple[dt.date, dt.date, str]]:
    """Quarter and half-year windows (first day, last day, wording) inside the simulated months."""
    months_, out = sim_months(ctx), []
    for size in (3, 6):
        for i in range(0, len(months_) - size + 1, size):
            first, last = months_[i], month_end(months_[i + size - 1])
            out.append((first, last, span_text(first, last)))
    return out


def by_kind(ctx: QContext) -> dict[str, list[Story]]:
    """Stories of the counted kinds strictly before the question day, by kind, in date order."""
    groups: dict[str, list[Story]] = defaultdict(list)
    for s in stories(ctx):
        if s.kind in KIND_TEXT and s.date < ctx.day:
            groups[s.kind].append(s)
    return groups


def instance_ids(items: list[Story]) -> tuple[str, ...]:
    return tuple(f for s in items for f in s.fact_ids)


def count_pool(n: int) -> tuple[str, ...]:
    """Other counts on both sides of `n` (>= 0), ascending: mcq.py decides how many lie below the gold."""
    return tuple(str(k) for k in range(max(n - 6, 0), n + 7) if k != n)


def _counted(ctx: QContext, characteristic: str, variant: str, question: str, answer: str, reference: str,
             query: str, items: list[Story], distractors: tuple[str, ...], priority: int = 1,
             extra: dict | None = None, after: dt.date | None = None) -> Candidate | None:
    """An all-instances candidate over `items` (every one must have evidence before the question). With
    `after` (a window's last day) it is asked mid-timeline a week later, when all evidence is in by then."""
    fact_ids = instance_ids(items)
    if not items or not known(ctx, fact_ids, ctx.asked_at):
        return None
    asked_at = ctx.asked_at
    if after is not None:
        early = ask_on(ctx, after + dt.timedelta(days=MID_DELAY_DAYS))
        if early < ctx.asked_at and known(ctx, fact_ids, early):
            asked_at = early
    return Candidate(
        "aggregation", (characteristic,), question, answer, reference, f"aggregation.{characteristic}.{variant}",
        query, fact_ids, asked_at=when(ctx, asked_at), evidence=refs(ctx, fact_ids, asked_at), all_instances=True,
        distractors=pool(distractors, answer), priority=priority,
        extra={"event_ids": [s.event.event_id for s in items], **(extra or {})},
    )


def dates_of(items: list[Story]) -> str:
    return ", ".join(human_date(s.date) for s in items)


# --------------------------------------------------------------------------------- conditional_counting


@generator("aggregation", "conditional_counting")
def conditional_counting(ctx: QContext) -> list[Candidate]:
    """How many events of a kind went badly / went well in a window; how many times one entity came up."""
    p, out = who(ctx), []
    for kind, items in sorted(by_kind(ctx).items()):
        text = KIND_TEXT[kind]
        for first, last, span in windows(ctx):
            inside = [s for s in items if first <= s.date <= last]
            bad = [s for s in inside if s.event.valence == "negative"]
            good = [s for s in inside if s.event.valence == "positive"]
            query = (f"SELECT COUNT(*) FROM events WHERE kind = '{kind}' AND date BETWEEN '{first}' AND '{last}' "
                     "AND valence = '{v}'")
            if bad and good and len(bad) <= 8:
                n = len(bad)
                out.append(_counted(
                    ctx, "conditional_counting", "went_badly",
                    f"How many of {possessive(p)} {text.plural} went badly {span}?", str(n),
                    f"{n} went badly: {dates_of(bad)} ({len(good)} others went fine).", query.format(v="negative"),
                    bad, count_pool(n), priority=0, extra={"window": [first.isoformat(), last.isoformat()]},
                    after=last if (last - first).days < 95 else None))
            if len(good) >= 2 and bad and len(good) <= 10:
                n = len(good)
                out.append(_counted(
                    ctx, "conditional_counting", "went_well",
                    f"How many of {possessive(p)} {text.plural} went well {span}?", str(n),
                    f"{n} went well: {dates_of(good)} ({len(bad)} went badly).", query.format(v="positive"),
                    good, count_pool(n), extra={"window": [first.isoformat(), last.isoformat()]},
                    after=last if (last - first).days < 95 else None))
        out += _entity_counts(ctx, kind, items)
    return [c for c in out if c is not None]


def _entity_counts(ctx: QContext, kind: str, items: list[Story]) -> list[Candidate | None]:
    """How many times a kind of event involved one entity (a colleague, a shop) during the year."""
    p, text = who(ctx), KIND_TEXT[kind]
    counts = Counter(s.entity.get(text.field) for s in items if s.entity.get(text.field))
    out = []
    for entity, n in sorted(counts.items()):
        if not 2 <= n <= 10:
            continue
        hits = [s for s in items if s.entity.get(text.field) == entity]
        named = f"the {entity}" if entity[:1].islower() and not entity.startswith(("the ", "a ", "an ")) else entity
        question = (f"So far, how many of {possessive(p)} {text.plural} involved {named}, whether or not they went "
                    "well?")  # "involved the roof leak repair", a common noun with its article
        out.append(_counted(
            ctx, "conditional_counting", "entity", question, str(n), f"{n}: {dates_of(hits)}.",
            f"SELECT COUNT(*) FROM events e JOIN plans p USING (plan_id) WHERE e.kind = '{kind}' AND "
            f"p.entity->>'{text.field}' = '{entity}' AND e.date < '{ctx.day}'",
            hits, count_pool(n), priority=1))
    return out


# -------------------------------------------------------------------------------------- trend_analysis

TREND_POOL = ("it rose each quarter", "it fell each quarter", "it stayed the same each quarter",
              "it rose, then fell", "it fell, then rose", "it went up and down with no clear pattern")
HALF_POOL = ("the first half", "the second half", "about equally often in both halves", "only in the first half",
             "only in the second half", "in neither half")


def trend_of(run: list[int]) -> str | None:
    """The TREND_POOL answer a run of quarterly counts (three or more) gives without doubt, else None: strictly
    rising or falling; the same count each quarter (at least two); or a clear rise then fall (or fall then rise),
    each step at least two, so a wobble (3, 4, 3) is never called a peak."""
    steps = [b - a for a, b in zip(run, run[1:], strict=False)]
    if all(d > 0 for d in steps):
        return TREND_POOL[0]
    if all(d < 0 for d in steps):
        return TREND_POOL[1]
    if all(d == 0 for d in steps) and run[0] >= 2:
        return TREND_POOL[2]
    turn = next((i for i, d in enumerate(steps) if (d > 0) != (steps[0] > 0)), len(steps))
    if 0 < turn < len(steps) and all(abs(d) >= 2 for d in steps):
        head, tail = steps[:turn], steps[turn:]
        if all(d > 0 for d in head) and all(d < 0 for d in tail):
            return TREND_POOL[3]
        if all(d < 0 for d in head) and all(d > 0 for d in tail):
            return TREND_POOL[4]
    return None


@generator("aggregation", "trend_analysis")
def trend_analysis(ctx: QContext) -> list[Candidate]:
    """Frequency trends of a kind of event (quarters, halves) and the direction of the income band."""
    p, out = who(ctx), []
    quarters = [w for w in windows(ctx) if (w[1] - w[0]).days < 95]
    halves = [w for w in windows(ctx) if (w[1] - w[0]).days >= 95]
    for kind, items in sorted(by_kind(ctx).items()):
        text = KIND_TEXT[kind]
        counts = [[s for s in items if q[0] <= s.date <= q[1]] for q in quarters]
        for start in range(0, len(quarters) - 2):
            for end in range(len(quarters), start + 2, -1):
                run = [len(c) for c in counts[start:end]]
                answer = trend_of(run)
                if answer is None:
                    continue
                used = [s for c in counts[start:end] for s in c]
                first, last = quarters[start][0], quarters[end - 1][1]
                out.append(_counted(
                    ctx, "trend_analysis", "quarters",
                    f"Quarter by quarter from {month_name(first)} to {month_name(last)}, how did the number of "
                    f"{possessive(p)} {text.plural} change?", answer,
                    f"{answer[:1].upper()}{answer[1:]}: {', '.join(str(n) for n in run)} per quarter.",
                    f"SELECT quarter, COUNT(*) FROM events WHERE kind = '{kind}' AND date BETWEEN '{first}' AND "
                    f"'{last}' GROUP BY quarter ORDER BY quarter", used, TREND_POOL, priority=0,
                    extra={"counts": run}))
                break
        if len(halves) >= 2:
            a = [s for s in items if halves[0][0] <= s.date <= halves[0][1]]
            b = [s for s in items if halves[1][0] <= s.date <= halves[1][1]]
            lo, hi = sorted((len(a), len(b)))
            answer = None
            if hi - lo >= 3 and hi >= 1.5 * max(lo, 1):
                answer = HALF_POOL[0] if len(a) > len(b) else HALF_POOL[1]
            elif lo == hi >= 3:
                answer = HALF_POOL[2]
            if answer is not None:
                out.append(_counted(
                    ctx, "trend_analysis", "halves",
                    f"Did {p} have {text.plural} more often in the first half ({month_name(halves[0][0])} to "
                    f"{month_name(halves[0][1])}), more often in the second half ({month_name(halves[1][0])} to "
                    f"{month_name(halves[1][1])}), or about equally often in both?", answer,
                    f"{answer[:1].upper()}{answer[1:]}: {len(a)} in the first half, {len(b)} in the second.",
                    f"SELECT half, COUNT(*) FROM events WHERE kind = '{kind}' GROUP BY half", a + b, HALF_POOL,
                    extra={"counts": [len(a), len(b)], "options_in_question": True}))
    out += _income(ctx)
    return [c for c in out if c is not None]


def _income(ctx: QContext) -> list[Candidate | None]:
    """The direction of the income band (an ordered attribute) over the simulation."""
    p = who(ctx)
    history = [f for f in ctx.history(ctx.persona.name, "income_band") if f.valid_from < ctx.day]
    start = ctx.persona.profile.identity.income_band
    if not history or start not in INCOME_BANDS or any(f.value not in INCOME_BANDS for f in history):
        return []
    ranks = [INCOME_BANDS.index(v) for v in [start] + [f.value for f in history]]
    steps = [b - a for a, b in zip(ranks, ranks[1:], strict=False)]
    if not all(s > 0 for s in steps) and not all(s < 0 for s in steps):
        return []
    word = "rose" if steps[0] > 0 else "fell"
    answer = f"it {word} from {start} to {history[-1].value}"
    others = [f"it {w} from {a} to {b}" for w in ("rose", "fell") for a in INCOME_BANDS for b in INCOME_BANDS
              if a != b and (w == "rose") == (INCOME_BANDS.index(b) > INCOME_BANDS.index(a))]
    others.sort(key=lambda o: (not o.startswith(f"it {'fell' if word == 'rose' else 'rose'} from {start}"), o))
    fact_ids = tuple(f.fact_id for f in history)
    if not known(ctx, fact_ids, ctx.asked_at):
        return []
    return [Candidate(
        "aggregation", ("trend_analysis",), f"How did {possessive(p)} income band move over the year?", answer,
        f"{answer[:1].upper()}{answer[1:]}: " + ", then ".join(
            f"{f.value} from {human_date(f.valid_from)}" for f in history) + ".",
        "aggregation.trend_analysis.income_band",
        f"SELECT value, valid_from FROM facts WHERE subject = '{ctx.persona.name}' AND attribute = 'income_band' "
        "ORDER BY valid_from", fact_ids, evidence=refs(ctx, fact_ids, ctx.asked_at), all_instances=True,
        distractors=pool(others, answer), priority=0, extra={"start": start},
    )]


# --------------------------------------------------------------------------------------- extreme_value


@generator("aggregation", "extreme_value")
def extreme_value(ctx: QContext) -> list[Candidate]:
    """The most frequent entity of a kind, the longest-held value of an attribute, the busiest month of a
    kind and the first entity of a kind in the year (ties are skipped)."""
    p, out = who(ctx), []
    year = ctx.config.start_date.year
    for kind, items in sorted(by_kind(ctx).items()):
        text = KIND_TEXT[kind]
        counts = Counter(s.entity.get(text.field) for s in items if s.entity.get(text.field))
        ranked = counts.most_common()
        if len(ranked) >= 2 and ranked[0][1] >= 3 and ranked[0][1] > ranked[1][1]:
            top = ranked[0][0]
            out.append(_counted(
                ctx, "extreme_value", "most_frequent",
                f"Which {text.noun} came up most often in {possessive(p)} {text.plural}, whether or not they went "
                "well?", top, "Counts: " + ", ".join(f"{e} {n}" for e, n in ranked[:5]) + ".",
                f"SELECT p.entity->>'{text.field}', COUNT(*) FROM events e JOIN plans p USING (plan_id) WHERE "
                f"e.kind = '{kind}' GROUP BY 1 ORDER BY 2 DESC LIMIT 1", items,
                tuple(e for e, _ in ranked[1:]) + tuple(entity_pool(ctx, text.field)),
                priority=0, extra={"counts": dict(ranked)}))
        per_month = Counter(month_start(s.date) for s in items)
        ranked_m = sorted(per_month.items(), key=lambda kv: (-kv[1], kv[0]))
        if len(ranked_m) >= 3 and ranked_m[0][1] >= 3 and ranked_m[0][1] > ranked_m[1][1]:
            month = ranked_m[0][0]
            out.append(_counted(
                ctx, "extreme_value", "busiest_month",
                f"In which month did {p} have the most {text.plural}?", month_name(month),
                f"{month_name(month)} had {ranked_m[0][1]}; the next busiest had {ranked_m[1][1]}.",
                f"SELECT month, COUNT(*) FROM events WHERE kind = '{kind}' GROUP BY month ORDER BY 2 DESC LIMIT 1",
                items, tuple(month_name(m) for m, _ in ranked_m[1:]), extra={"counts": {
                    m.isoformat(): n for m, n in ranked_m}}))
        good = [s for s in items if s.event.valence == "positive" and s.entity.get(text.field)]
        if len(good) >= 3 and good[0].date.year == year and good[0].date < good[1].date:
            first = good[0]
            answer = first.entity[text.field]
            if sum(s.entity.get(text.field) == answer for s in good) == 1:
                out.append(_counted(
                    ctx, "extreme_value", "earliest",
                    f"Of {possessive(p)} {text.plural} that went well in {year}, which {text.noun} did the earliest "
                    "one involve?", answer, f"The earliest was on {human_date(first.date)}: {first.title}.",
                    f"SELECT p.entity->>'{text.field}' FROM events e JOIN plans p USING (plan_id) WHERE e.kind = "
                    f"'{kind}' AND e.valence = 'positive' ORDER BY e.date LIMIT 1", good,
                    tuple(s.entity[text.field] for s in good[1:]) + tuple(entity_pool(ctx, text.field)), priority=2))
    out += _longest(ctx)
    return [c for c in out if c is not None]


LONGEST_NOUNS: dict[str, tuple[str, str]] = {
    "favourite_cafe": ("café", "favourite café"), "grocery_shop": ("shop", "usual shop for the weekly shop"),
    "doctor": ("doctor", "doctor"), "current_book": ("book", "current book"), "home": ("flat", "home"),
    "volunteering": ("volunteering", "volunteering"), "employer": ("employer", "employer"), "gym": ("gym", "gym"),
    "work_project": ("project", "work project"), "course": ("course", "course"),
}
"""Attribute -> (the head noun of "which <head>", the attribute as a noun)."""


def _longest(ctx: QContext) -> list[Candidate | None]:
    """Which value an attribute kept for the longest time (the current one counts up to the question day)."""
    p, out = who(ctx), []
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if subject != ctx.persona.name or attribute not in LONGEST_NOUNS or len(history) < 3:
            continue
        history = [f for f in history if f.valid_from < ctx.day]
        span: Counter[str] = Counter()
        for f in history:
            if not fits_slot(attribute, f.value):
                continue  # being unemployed is no employer held "for the longest time"
            span[f.value] += ((min(f.valid_to, ctx.day) if f.valid_to else ctx.day) - f.valid_from).days
        ranked = span.most_common()
        if len(ranked) < 3 or ranked[0][1] - ranked[1][1] < 7:
            continue
        fact_ids = tuple(f.fact_id for f in history)
        if not known(ctx, fact_ids, ctx.asked_at):
            continue
        (head, noun), answer = LONGEST_NOUNS[attribute], ranked[0][0]
        question = f"Which {head} was {possessive(p)} {noun} for the longest time in total?"
        if attribute == "volunteering":
            question = f"Which volunteering did {p} keep up for the longest time in total?"
        out.append(Candidate(
            "aggregation", ("extreme_value",), question,
            answer, "Days held: " + ", ".join(f"{v} {d}" for v, d in ranked[:5]) + ".",
            "aggregation.extreme_value.longest",
            f"SELECT value, SUM(COALESCE(valid_to, '{ctx.day}') - valid_from) FROM facts WHERE subject = "
            f"'{subject}' AND attribute = '{attribute}' GROUP BY value ORDER BY 2 DESC LIMIT 1", fact_ids,
            evidence=refs(ctx, fact_ids, ctx.asked_at), all_instances=True,
            distractors=pool([v for v, _ in ranked[1:]] + values_of(ctx, attribute) + attribute_pool(ctx, attribute),
                             answer),
            priority=0, extra={"days": dict(ranked)},
        ))
    return out


# ----------------------------------------------------------------------------------- absence_detection


@generator("aggregation", "absence_detection")
def absence_detection(ctx: QContext) -> list[Candidate]:
    """Absences: not before a date (the first time came later), none went badly in a window, the one month
    without a frequent kind of event."""
    p, out = who(ctx), []
    start = ctx.config.start_date
    months_ = sim_months(ctx)
    for kind, items in sorted(by_kind(ctx).items()):
        text = KIND_TEXT[kind]
        # 1. never before a date: the first instance came at least a month into the simulation ("No"); or, asked
        # the same way, a span that ends after the first instance ("Yes": the instances inside it)
        cutoff = month_start(items[0].date)
        ever = f"SELECT COUNT(*) FROM events WHERE kind = '{kind}' AND date BETWEEN '{start}' AND '{{end}}'"
        if (cutoff - start).days >= 28 and (items[0].date - cutoff).days >= 7 and len(items) <= 12:
            end = cutoff - dt.timedelta(days=1)
            out.append(_counted(
                ctx, "absence_detection", "never_before",
                f"Between {human_date(start)} and {human_date(end)}, did {p} ever {text.verb}?", "No",
                f"No: the first time was on {human_date(items[0].date)} ({items[0].title}); all instances: "
                f"{dates_of(items)}.", ever.format(end=end),
                items, YES_POOL, priority=0, extra={"cutoff": cutoff.isoformat(), "count": 0}))
        end = month_end(items[0].date)
        inside = [s for s in items if s.date <= end]
        done = [s for s in inside if s.event.valence == "positive"]  # a visit that fell through is no visit
        if (end - start).days >= 27 and (end - items[0].date).days >= 7 and len(inside) <= 3 and done:
            out.append(_counted(
                ctx, "absence_detection", "never_before",
                f"Between {human_date(start)} and {human_date(end)}, did {p} ever {text.verb}?", "Yes",
                f"Yes: {dates_of(done)} ({done[0].title}).", ever.format(end=end) + " AND valence = 'positive'",
                done, ("No",), priority=0, extra={"cutoff": (end + dt.timedelta(days=1)).isoformat(),
                                                  "count": len(done)}))
        # 2. whether any went badly in a window that had instances: none did ("No"), or some did ("Yes")
        for first, last, span in windows(ctx):
            inside = [s for s in items if first <= s.date <= last]
            bad = [s for s in inside if s.event.valence == "negative"]
            if len(inside) >= 2 and (not bad or len(bad) <= 2 and len(bad) < len(inside)):
                answer = "Yes" if bad else "No"
                reference = (f"Yes: {len(bad)} of {len(inside)} went badly ({dates_of(bad)})." if bad else
                             f"No: all {len(inside)} went well ({dates_of(inside)}).")
                out.append(_counted(
                    ctx, "absence_detection", "none_badly",
                    f"Did any of {possessive(p)} {text.plural} go badly {span}?", answer, reference,
                    f"SELECT COUNT(*) FROM events WHERE kind = '{kind}' AND valence = 'negative' AND date BETWEEN "
                    f"'{first}' AND '{last}'", inside, YES_POOL if not bad else ("No",), priority=1,
                    extra={"window": [first.isoformat(), last.isoformat()], "count": len(bad)},
                    after=last if (last - first).days < 95 else None))
        # 3. the one month without any instance of a frequent kind (every simulated month is considered)
        per_month = Counter(month_start(s.date) for s in items)
        empty = [m for m in months_ if per_month[m] == 0]
        if len(months_) >= 4 and len(empty) == 1 and partial_ok(ctx, items):
            gap = empty[0]
            out.append(_counted(
                ctx, "absence_detection", "empty_month",
                f"Since {human_date(start)}, which calendar month had none of {possessive(p)} {text.plural}?",
                month_name(gap), f"{month_name(gap)} had none; every other month had at least one.",
                f"SELECT month FROM calendar_months LEFT JOIN events ON kind = '{kind}' GROUP BY month HAVING "
                "COUNT(event_id) = 0", items, tuple(month_name(m) for m in months_ if m != gap), priority=0,
                extra={"counts": {m.isoformat(): per_month[m] for m in months_}}))
    return [c for c in out if c is not None]
