"""Question times and checkpoints.

A question is asked in a *context*: the world and corpus as they stood at its question time. The main
context asks at 09:00 persona-local on the day after the simulation; `probe_days` picks a few
mid-timeline cut days (from the corpus's sessions) and `context_at` builds the same view as if the
simulation had ended on such a day: facts, events, plans, documents, turns and dated rows of the domain
pack's tables (`World.extras`) after the cut are gone and
facts still open at the cut are open (valid_to None). A generator run on a probe context cannot see the
future, so its answers are right at that moment by construction.

Checkpoints (schemas/qa.py CHECKPOINTS):

- zero_memory: a control answerable from the question alone (`control_candidates` below; no evidence);
- post_shock: its answer changed because of a critical event: a critical event after the question's
  first evidence and by its question time touched its facts' (subject, attribute) histories or is named
  by its derivation (`shock_events`: a suspicion, used while selecting), AND the same generator, run on
  the world and corpus cut just before that event, gave the same question a different answer
  (`ShockCheck`, run on the selected questions only);
- post_distraction: at least `distraction_sessions` sessions unrelated to the question's facts and
  events were held between its last evidence and its question time;
- in_timeline: everything else (asked while the history it needs is recent).

Generators may call `distraction_time` to ask a question of their own right after such a block.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Iterable

from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.world import World
from tasks.common.facttext import first_name
from tasks.common.timeutil import human_date, local_date, question_time
from tasks.questions.base import Candidate, QContext, Ref

PROBE_MARGIN = 0.2
"""Probe cut days lie between this share of the sessions and 1 - PROBE_MARGIN / 2 of them."""
SHOCK_WINDOW_DAYS = 366
"""A shock is a critical event of the year before the question (every critical event of a one-year life): over a
long life, a question about something first told years ago would otherwise be recomputed before each critical
event since, each time over the world as it was then (ShockCheck), a cost growing with the square of the years."""


# -- contexts ---------------------------------------------------------------------------------------
def context_at(config: BuildConfig, persona: Persona, world: World, corpus: Corpus,
               cut: dt.date | None = None) -> QContext:
    """The context of questions asked the morning after `cut` (None: after the simulation)."""
    if cut is None or cut >= config.end_date:  # the world as simulated (a later fact is invisible anyway)
        asked_at = question_time(config, persona)
        return QContext(config, persona, world_until(world, config.end_date), corpus_before(corpus, asked_at),
                        asked_at, local_date(persona, asked_at))
    config = config.model_copy(update={"days": (cut - config.start_date).days + 1})
    asked_at = question_time(config, persona)
    return QContext(config, persona, world_until(world, cut), corpus_before(corpus, asked_at), asked_at,
                    local_date(persona, asked_at))


def world_until(world: World, cut: dt.date) -> World:
    """The world as known at the end of `cut`: nothing that starts later; facts open at the cut stay open."""
    facts = [f if f.valid_to is None or f.valid_to <= cut else f.model_copy(update={"valid_to": None})
             for f in world.facts if f.valid_from <= cut]
    constraints = [c for c in world.constraints if c.valid_from <= cut]
    kept = {c.constraint_id for c in constraints}
    plans = [p if p.blocked_by is None or p.blocked_by in kept else p.model_copy(update={"blocked_by": None})
             for p in world.plans if p.created_on <= cut]
    return World(
        plans=plans,
        events=[e for e in world.events if e.date <= cut],
        facts=facts,
        profile_ops=[o for o in world.profile_ops if o.date <= cut],
        profile_snapshots=[s for s in world.profile_snapshots if s.as_of <= cut],
        constraints=constraints,
        entities=[e for e in world.entities if e.first_seen <= cut],
        extras={table: [r for r in rows if not dated_after(r, cut)] for table, rows in world.extras.items()},
    )


def dated_after(row, cut: dt.date) -> bool:
    """True when a domain pack's row (model or dict) has a `date` later than `cut` (undated rows stay)."""
    day = row.get("date") if isinstance(row, dict) else getattr(row, "date", None)
    if isinstance(day, str):
        day = dt.date.fromisoformat(day[:10])
    if isinstance(day, dt.datetime):
        day = day.date()
    return isinstance(day, dt.date) and day > cut


def corpus_before(corpus: Corpus, moment: dt.datetime) -> Corpus:
    """The corpus items written strictly before `moment`, with the fact mentions they hold."""
    chunks = [c for c in corpus.chunks if c.created_at < moment]
    turns = [t for t in corpus.turns if t.timestamp < moment]
    kept = {c.chunk_id for c in chunks} | {t.turn_id for t in turns}
    return Corpus(
        documents=[d for d in corpus.documents if d.created_at < moment],
        chunks=chunks,
        bullets=[b for b in corpus.bullets if b.date < moment.date()],
        sessions=[s for s in corpus.sessions if s.started_at < moment],
        turns=turns,
        mentions=[m for m in corpus.mentions if m.evidence_id in kept],
    )


def quiet_day(world: World, day: dt.date) -> bool:
    """True when no event happens and no fact starts or ends on `day` (a cut before it is exact)."""
    return not any(e.date == day for e in world.events) and not any(
        f.valid_from == day or f.valid_to == day for f in world.facts
    )


def probe_days(config: BuildConfig, persona: Persona, world: World, corpus: Corpus, k: int) -> list[dt.date]:
    """Up to `k` cut days spread over the corpus's sessions, each followed by a quiet day (so the cut
    world equals the full world at the probe's question time)."""
    if k <= 0 or not corpus.sessions:
        return []
    days = sorted({local_date(persona, s.started_at) for s in corpus.sessions})
    low, high = int(len(days) * PROBE_MARGIN), int(len(days) * (1 - PROBE_MARGIN / 2))
    cuts: list[dt.date] = []
    for i in range(1, k + 1):
        if high <= low:
            break
        target = days[min(len(days) - 1, low + (high - low) * i // (k + 1))]
        for shift in range(0, 15):
            cut = target + dt.timedelta(days=shift)
            nxt = cut + dt.timedelta(days=1)
            if nxt > config.end_date:
                break
            if quiet_day(world, nxt) and cut not in cuts:
                cuts.append(cut)
                break
    return sorted(cuts)


def cut_of(config: BuildConfig, persona: Persona, context_time: dt.datetime) -> dt.date | None:
    """The cut day of the context whose question time is `context_time` (None for the main context)."""
    if context_time >= question_time(config, persona):
        return None
    return local_date(persona, context_time) - dt.timedelta(days=1)


# -- sessions ---------------------------------------------------------------------------------------
def session_facts(ctx: QContext) -> list[tuple[dt.datetime, set[str], set[str]]]:
    """Per session, by start time: (started_at, fact ids its turns claim or paraphrase, event ids)."""
    cached = getattr(ctx, "_sessions", None)
    if cached is not None:
        return cached
    bullets = {b.bullet_id: b.event_id for b in ctx.corpus.bullets}
    facts: dict[str, set[str]] = {s.session_id: set() for s in ctx.corpus.sessions}
    events: dict[str, set[str]] = {s.session_id: set() for s in ctx.corpus.sessions}
    for t in ctx.corpus.turns:
        facts.setdefault(t.session_id, set()).update(t.fact_ids, t.paraphrase_ids)
        if t.bullet_id in bullets:
            events.setdefault(t.session_id, set()).add(bullets[t.bullet_id])
    rows = sorted((s.started_at, facts[s.session_id], events[s.session_id]) for s in ctx.corpus.sessions)
    ctx._sessions = rows  # type: ignore[attr-defined]
    return rows


def related_ids(ctx: QContext, fact_ids: Iterable[str], event_ids: Iterable[str] = ()) -> tuple[set[str], set[str]]:
    """The facts and events a question is about: its facts, their (subject, attribute) histories and
    the events that produced them, plus the events it names."""
    facts, events = set(), set(event_ids)
    for fid in fact_ids:
        fact = ctx.facts.get(fid)
        if fact is None:
            continue
        for f in ctx.history(fact.subject, fact.attribute):
            facts.add(f.fact_id)
            events.add(f.event_id)
    return facts, events


def unrelated_block(ctx: QContext, facts: set[str], events: set[str], after: dt.datetime,
                    before: dt.datetime, enough: int | None = None) -> int:
    """How many sessions started in (after, before) since the last one related to the question (counting
    back from `before`; stops at `enough` when given)."""
    rows = session_facts(ctx)
    starts = [r[0] for r in rows] if not hasattr(ctx, "_starts") else ctx._starts  # type: ignore[attr-defined]
    ctx._starts = starts  # type: ignore[attr-defined]
    block = 0
    for i in range(bisect.bisect_left(starts, before) - 1, -1, -1):
        started, claimed, told = rows[i]
        if started <= after or claimed & facts or told & events or (enough is not None and block >= enough):
            break
        block += 1
    return block


def distraction_time(ctx: QContext, fact_ids: Iterable[str], after: dt.datetime, n: int | None = None,
                     event_ids: Iterable[str] = ()) -> dt.datetime | None:
    """The start of the first session that follows `n` sessions unrelated to the facts (and events)
    after `after` (default n: config's distraction_sessions), one minute before it; None if there is none
    before ctx.asked_at. A generator asking then must compute its answer as of that moment."""
    n = n or ctx.config.stages.questions.distraction_sessions
    facts, events = related_ids(ctx, fact_ids, event_ids)
    block = 0
    for started, claimed, told in session_facts(ctx):
        if started <= after or started >= ctx.asked_at:
            continue
        if block >= n:
            return started - dt.timedelta(minutes=1)
        block = 0 if claimed & facts or told & events else block + 1
    return None


# -- checkpoints ------------------------------------------------------------------------------------
def shock_events(ctx: QContext, cand: Candidate, first: dt.datetime, asked_at: dt.datetime) -> list[str]:
    """The critical events that may have changed the question's answer: critical events after its first
    evidence and by asked_at, in the SHOCK_WINDOW_DAYS before it, that produced a fact in the history of one of
    its facts (or of a value its facts superseded), or that the derivation names. A suspicion only: `post_shock`
    is given when the answer recomputed just before such an event differs (`changed_by_shock`)."""
    asked_day, first_day = local_date(ctx.persona, asked_at), local_date(ctx.persona, first)
    first_day = max(first_day, asked_day - dt.timedelta(days=SHOCK_WINDOW_DAYS))
    ids = list(cand.fact_ids) + [str(f) for f in cand.extra.get("superseded_fact_ids", []) or []]
    found: list[str] = []
    for fid in ids:
        fact = ctx.facts.get(fid)
        if fact is None:
            continue
        for later in ctx.history(fact.subject, fact.attribute):
            event = ctx.events.get(later.event_id)
            if event is not None and event.critical and first_day < event.date <= asked_day:
                found.append(event.event_id)
    for eid in cand.extra.get("event_ids", []) or []:
        event = ctx.events.get(str(eid))
        if event is not None and event.critical and first_day < event.date <= asked_day:
            found.append(event.event_id)
    return sorted(set(found), key=lambda e: (ctx.events[e].date, e))


def first_seen(ctx: QContext, cand: Candidate, refs: list[Ref], asked_at: dt.datetime) -> dt.datetime | None:
    """The earliest moment the question's history (its evidence, and the evidence of the values its facts
    superseded) was told."""
    times = [item[0] for ref in refs if (item := ctx.item(ref)) is not None]
    older = [str(fid) for fid in cand.extra.get("superseded_fact_ids", []) or []]
    for fid in cand.fact_ids:
        fact = ctx.facts.get(fid)
        if fact is not None:
            older += [old.fact_id for old in ctx.history(fact.subject, fact.attribute)
                      if old.valid_from < fact.valid_from]
    for fid in dict.fromkeys(older):
        times += [item[0] for r in ctx.evidence_for(fid, asked_at) if (item := ctx.item(r)) is not None]
    return min(times) if times else None


def checkpoint_of(ctx: QContext, cand: Candidate, refs: list[Ref], asked_at: dt.datetime,
                  shock: bool = True) -> str:
    """The candidate's checkpoint: its own, else post_shock (when `shock` and a critical event may have
    changed its answer: see `shock_events`; assemble confirms it by recomputation after selection),
    post_distraction or in_timeline."""
    if cand.checkpoint:
        return cand.checkpoint
    if not refs:
        return "in_timeline"
    if shock:
        first = first_seen(ctx, cand, refs, asked_at)
        if first is not None and shock_events(ctx, cand, first, asked_at):
            return "post_shock"
    stamps = [item[0] for r in refs if (item := ctx.item(r)) is not None]
    last = max(stamps) if stamps else asked_at
    facts, events = related_ids(ctx, cand.fact_ids, cand.extra.get("event_ids", []) or [])
    facts |= {r.fact_id for r in refs if r.fact_id}
    n = ctx.config.stages.questions.distraction_sessions
    if unrelated_block(ctx, facts, events, last, asked_at, n) >= n:
        return "post_distraction"
    return "in_timeline"


class ShockCheck:
    """Confirms post_shock by recomputation: the candidate's generator runs again on the world and corpus
    cut just before each suspected critical event (the day before it), and the question is post_shock only
    when the answer it gave then (to the same template and question text) differs from its answer at
    question time (for a current-value question the generator did not ask then, the value its subject and
    attribute held that day: `value_before`). A question that could not be asked before the event, or
    whose answer did not change
    (a fabrication, a day count between dated things, an order of events, a value fixed by a dated
    document), is not. Runs are cached per (generator, cut), so only the selected questions' generators
    run, once per critical day."""

    def __init__(self, config: BuildConfig, persona: Persona, world: World, corpus: Corpus,
                 generators: dict[str, Callable[[QContext], list[Candidate]]]) -> None:
        self.config, self.persona, self.world, self.corpus, self.generators = config, persona, world, corpus, generators
        self._contexts: dict[dt.date, QContext] = {}
        self._runs: dict[tuple[str, dt.date], dict[tuple[str, str], str]] = {}

    def answer_before(self, key: str, cand: Candidate, day: dt.date) -> str | None:
        """The answer `key`'s generator gave to the same question asked just before `day` (the latest
        question time when it asks it more than once); None when it did not ask it."""
        fn = self.generators.get(key)
        if fn is None:
            return None
        cut = day - dt.timedelta(days=1)
        if (key, cut) not in self._runs:
            if cut not in self._contexts:
                self._contexts[cut] = context_at(self.config, self.persona, self.world, self.corpus, cut)
            ctx = self._contexts[cut]
            found: dict[tuple[str, str], tuple[dt.datetime, str]] = {}
            for c in fn(ctx):
                stamp = c.asked_at or ctx.asked_at
                k = (c.template, c.question)
                if k not in found or stamp >= found[k][0]:
                    found[k] = (stamp, c.answer)
            self._runs[(key, cut)] = {k: v[1] for k, v in found.items()}
        return self._runs[(key, cut)].get((cand.template, cand.question))

    def changed_by_shock(self, ctx: QContext, key: str, cand: Candidate, refs: list[Ref],
                         asked_at: dt.datetime) -> bool:
        """True when some suspected critical event (`shock_events`) has an answer just before it that
        differs from the candidate's answer at question time."""
        first = first_seen(ctx, cand, refs, asked_at)
        if first is None:
            return False
        for eid in shock_events(ctx, cand, first, asked_at):
            day = ctx.events[eid].date
            before = self.answer_before(key, cand, day)
            if before is None:
                before = value_before(ctx, cand, day)
            if before is not None and before != cand.answer:
                return True
        return False


def value_before(ctx: QContext, cand: Candidate, day: dt.date) -> str | None:
    """For a current-value question (`answer_rule` current_value, or a derivation naming subject and
    attribute), the value its (subject, attribute) held the day before `day`; None otherwise or when it
    held none (the per-template recomputation used when the generator did not ask the question then,
    e.g. because the attribute had not changed yet)."""
    subject, attribute = cand.extra.get("subject"), cand.extra.get("attribute")
    if not (subject and attribute) and cand.extra.get("answer_rule") == "current_value" and cand.fact_ids:
        fact = ctx.facts.get(cand.fact_ids[0])
        subject, attribute = (fact.subject, fact.attribute) if fact is not None else (None, None)
    if not (subject and attribute):
        return None
    held = ctx.current(str(subject), str(attribute), day - dt.timedelta(days=1))
    return held.value if held is not None else None


# -- zero-memory controls ---------------------------------------------------------------------------
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def control_candidates(ctx: QContext) -> list[Candidate]:
    """Zero-memory controls: questions that state everything needed to answer them (a day count between
    two stated dates, the weekday of a stated date, a count of listed dates), built from the persona's own
    events so they read like the rest of the set. They need no evidence."""
    name = first_name(ctx.persona.name)
    dated = sorted({e.date for e in ctx.world.events if e.plan_id is not None and e.date < ctx.day})
    out: list[Candidate] = []
    rng = ctx.rng("controls")
    for i, (a, b) in enumerate(zip(dated, dated[2:], strict=False)):
        if i % 3:
            continue
        days = (b - a).days
        out.append(Candidate(
            "temporal", ("long_horizon_synthesis",),
            f"{name} had plans on {human_date(a)} and on {human_date(b)}. How many days passed between those two "
            "dates?",
            str(days), f"{human_date(a)} and {human_date(b)} are {days} days apart.",
            "control.days_between", f"SELECT DATE '{b}' - DATE '{a}'", (), checkpoint="zero_memory",
            distractors=tuple(str(days + d) for d in (-3, -2, -1, 1, 2, 3, 7) if days + d >= 0),
            extra={"control": True, "dates": [a.isoformat(), b.isoformat()]},
        ))
    for i, day in enumerate(dated):
        if i % 4 != 1:
            continue
        weekday = WEEKDAYS[day.weekday()]
        out.append(Candidate(
            "temporal", ("implicit_temporal_lookup",),
            f"{name} noted a plan for {human_date(day)}. On which day of the week did that fall?",
            weekday, f"{human_date(day)} was a {weekday}.", "control.weekday",
            f"SELECT dayname(DATE '{day}')", (), checkpoint="zero_memory",
            distractors=tuple(w for w in WEEKDAYS if w != weekday), extra={"control": True, "date": day.isoformat()},
        ))
    months = sorted({(d.year, d.month) for d in dated})
    for year, month in months:
        inside = [d for d in dated if (d.year, d.month) == (year, month)]
        outside = [d for d in dated if (d.year, d.month) != (year, month)][:2]
        if len(inside) < 2:
            continue
        # how many of the month's dates are listed is drawn (1 to 6), so the count is no constant to learn
        listed = sorted(rng.sample(inside, rng.randint(1, min(6, len(inside)))) + outside, key=lambda d: rng.random())
        month_name = f"{dt.date(year, month, 1):%B} {year}"
        count = sum((d.year, d.month) == (year, month) for d in listed)
        out.append(Candidate(
            "aggregation", ("conditional_counting",),
            f"{name}'s calendar lists plans on {', '.join(d.isoformat() for d in listed)}. "
            f"How many of those dates fall in {month_name}?",
            str(count), f"{count} of the listed dates fall in {month_name}.", "control.count_in_month",
            f"SELECT count(*) FROM listed_dates WHERE month = '{year}-{month:02d}'", (), checkpoint="zero_memory",
            distractors=tuple(str(count + d) for d in (-2, -1, 1, 2, 3, 4) if count + d >= 0),
            extra={"control": True, "dates": [d.isoformat() for d in listed], "month": f"{year}-{month:02d}"},
        ))
    return out
