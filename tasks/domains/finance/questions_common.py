"""What FinPerMA's generators share: reading the persona's catalog events, allocations and impact rows as
of a day, the question moments (soon after the telling, after a distraction block, at the context's
time), the shock record a time-dependent item carries, and the option pools.

Every option pool is a closed set the candidate hands the MCQ builder as its only distractors
(`extra["own_distractors"]`, tasks/questions/mcq.py): catalog titles, allocations on the 5-point grid, the
shifts into the gold's end allocation from other starts on that grid, the catalog's responses, the six
products, plans and bias words. Nothing is filled in from outside the set, so no option is made up.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from schemas.finance import CatalogEvent, ImpactConstraint
from schemas.world import Event, Fact
from tasks.common.timeutil import local_date
from tasks.domains.finance import catalog
from tasks.questions.base import Candidate, QContext
from tasks.questions.checkpoints import distraction_time

FALLBACK_BANDS = ("cautious", "conservative", "moderate", "balanced growth", "growth-seeking", "aggressive")
FALLBACK_GOALS = ("retirement", "buying a home", "children's education", "building an emergency fund",
                  "early financial independence", "wealth preservation", "a comfortable income stream")
PCT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
FIXED = 2
"""Priority of per-event items that cite the allocation history but whose answer is fixed in time: the
framework suspects a shock in that history, so they go after the time-dependent items of their
characteristic (whose suspicions are real) rather than crowd them out."""
KEPT = re.compile(r"^kept stocks at (\d+)%$")
MOVED = re.compile(r"^(cut|raised) stocks from (\d+)% to (\d+)%(?: and (.+))?$")
GRID = tuple(range(0, 101, 5))
"""Stock shares the pools offer (the allocation facts move in 5-point steps)."""
DATED = re.compile(r"\b(?:19|20)\d\d\b|\b(?:January|February|March|April|May|June|July|August|September|"
                   r"October|November|December)\b")
"""A title that names a year or a month (it would answer a question asked by month)."""
TITLE_POOL = 30


# -- reading the finance world --------------------------------------------------------------------
@dataclass(frozen=True)
class Lived:
    """One catalog event the persona lived through: the event, its title, its reaction fact, its impact row."""

    event: Event
    title: str
    reaction: Fact | None
    row: ImpactConstraint | None


def is_catalog(event: Event) -> bool:
    """True for an event of the finance catalog (kind `market:<id>` or `personal:<id>`)."""
    return event.kind.startswith(("market:", "personal:"))


def impact_rows(ctx: QContext, day: dt.date) -> dict[str, ImpactConstraint]:
    """event id -> the Impact Model's row for the persona's events up to `day`."""
    out = {}
    for raw in ctx.world.extras.get("impact_constraints", []):
        row = raw if isinstance(raw, ImpactConstraint) else ImpactConstraint.model_validate(raw)
        if row.persona_id == ctx.persona.persona_id and row.date <= day:
            out[row.event_id] = row
    return out


def lived(ctx: QContext, day: dt.date) -> list[Lived]:
    """The persona's catalog events up to `day`, in date order."""
    rows = impact_rows(ctx, day)
    reactions = {f.event_id: f for f in ctx.world.facts if f.attribute == "reaction"}
    out = []
    for e in sorted(ctx.events.values(), key=lambda e: (e.date, e.event_id)):
        if is_catalog(e) and e.date <= day:
            fact = reactions.get(e.event_id)
            out.append(Lived(e, fact.subject if fact else catalog_title(e), fact, rows.get(e.event_id)))
    return out


def catalog_row(event: Event) -> CatalogEvent | None:
    """The catalog's row of the event (None when the catalog does not hold it)."""
    try:
        return catalog.event(event.kind.split(":", 1)[1])
    except catalog.CatalogError:
        return None


def catalog_title(event: Event) -> str:
    """The catalog's title of the event (its id when the catalog does not hold it)."""
    row = catalog_row(event)
    return row.title if row else event.kind.split(":", 1)[1].replace("_", " ")


def typical_responses(event: Event) -> tuple[str, ...]:
    """The catalog's typical responses to the event (empty when the catalog does not hold it)."""
    row = catalog_row(event)
    return tuple(row.typical_responses) if row else ()


def pct(value: str) -> int | None:
    """The stock share in a value such as `45% in stocks`."""
    m = PCT.search(value)
    return round(float(m.group(1))) if m else None


def alloc(ctx: QContext, day: dt.date) -> Fact | None:
    """The stock-allocation fact that holds on `day`."""
    return ctx.current(ctx.persona.name, "stock_allocation", day)


def alloc_text(share: int) -> str:
    """`45% in stocks`: the allocation in the facts' wording."""
    return f"{share}% in stocks"


def value_on(ctx: QContext, attribute: str, day: dt.date) -> str | None:
    """The persona's value of `attribute` (stock_allocation, risk_tolerance) that holds on `day`."""
    fact = ctx.current(ctx.persona.name, attribute, day)
    return fact.value if fact is not None else None


def change_of(ctx: QContext, item: Lived) -> tuple[Fact | None, Fact | None]:
    """The allocation fact before the event (the day before) and the one after it (on its day)."""
    return alloc(ctx, item.event.date - dt.timedelta(days=1)), alloc(ctx, item.event.date)


def move_core(action: str) -> str | None:
    """The allocation part of a reaction (`cut stocks from 60% to 45%`, `kept stocks at 60%`), without the
    catalog response that may name the event; None for another wording."""
    kept, moved = KEPT.match(action), MOVED.match(action)
    if kept:
        return action
    return f"{moved.group(1)} stocks from {moved.group(2)}% to {moved.group(3)}%" if moved else None


# -- option pools ----------------------------------------------------------------------------------
def shift_text(before: int, after: int) -> str:
    """`cut stocks from 60% to 45%`, `raised stocks from 25% to 30%` or `kept stocks at 60%`: what the investor did,
    as they would say it (issue 55: `held: stayed at 60% in stocks` was a label, and its reference read `Nuno held
    stayed at ...`)."""
    if after == before:
        return f"kept stocks at {after}%"
    verb = "cut" if after < before else "raised"
    return f"{verb} stocks from {before}% to {after}%"


def shift_pool(before: int, after: int) -> tuple[str, ...]:
    """Shifts into the same end allocation from other starts on the 5-point grid: holding, then the
    closest lowering and raising starts in turn (so both directions reach the options)."""
    lower = sorted((s for s in GRID if s > after and s != before), key=lambda s: (abs(s - before), s))
    upper = sorted((s for s in GRID if s < after and s != before), key=lambda s: (abs(s - before), s))
    starts = [after] if after != before else []
    for i in range(max(len(lower), len(upper))):
        starts += [s[i] for s in (lower, upper) if i < len(s)]
    return tuple(shift_text(s, after) for s in starts[:14])


def alloc_pool(share: int) -> tuple[str, ...]:
    """Allocations on the 5-point grid around `share`, closest first."""
    grid = sorted(GRID, key=lambda v: (abs(v - share), v))
    return tuple(alloc_text(v) for v in grid if v != share)[:12]


def action_pool(gold: str, tails: tuple[str, ...]) -> tuple[str, ...]:
    """Actions in the gold's own wording (`cut stocks from 60% to 45% and ...`, `kept stocks at 60%`): other
    moves from the same start on the grid, with the gold's own or the event's other typical responses."""
    kept, moved = KEPT.match(gold), MOVED.match(gold)
    if kept:
        start = int(kept.group(1))
        return tuple(f"kept stocks at {start + d}%" for d in (-5, 5, -10, 10, -15, 15, 20) if 5 <= start + d <= 95)
    if not moved:
        return ()
    start, tails = int(moved.group(2)), tuple(t.strip().rstrip(".") for t in (moved.group(4), *tails) if t)
    ends = [start + d for d in (-5, 5, -10, 10, -15, 15, -20, 20)
            if 5 <= start + d <= 95 and start + d != int(moved.group(3))]
    return tuple(dict.fromkeys(f"{'cut' if end < start else 'raised'} stocks from {start}% to {end}% and {tail}"
                               for tail in tails[:3] for end in ends))


def other_titles(ctx: QContext, items: list[Lived], title: str, month: str | None = None) -> tuple[str, ...]:
    """Catalog titles of the persona's other events, then of catalog events of the window they did not live
    through (latest first). Asked by `month` (`March 2024`): no title naming a month or year, and no catalog
    event of that month."""
    titles = set(catalog_titles())
    mine = [i.title for i in items if i.title != title and i.title in titles]
    rest = [e.title for e in reversed(catalog.events_between(ctx.config.start_date, ctx.day))
            if month is None or e.date is None or f"{e.date:%B %Y}" != month]
    pool = dict.fromkeys(t for t in mine + rest if t != title and (month is None or not DATED.search(t)))
    return tuple(pool)[:TITLE_POOL]


def catalog_titles() -> tuple[str, ...]:
    """Every title of the bundled catalog (market and personal events)."""
    return tuple(sorted({e.title for e in catalog.catalog().values()}))


# -- moments and shocks ----------------------------------------------------------------------------
def asked(ctx: QContext, moment: dt.datetime | None) -> tuple[dt.datetime | None, dt.date]:
    """(asked_at for the candidate, its persona-local day); None means the context's own time."""
    if moment is None or moment >= ctx.asked_at:
        return None, ctx.day
    return moment, local_date(ctx.persona, moment)


def soon_after(ctx: QContext, fact_ids: list[str]) -> dt.datetime | None:
    """One hour after the last of the facts was first told (None when one was never told)."""
    firsts = []
    for fid in fact_ids:
        refs = ctx.evidence_for(fid)
        stamps = [item[0] for r in refs[:1] if (item := ctx.item(r)) is not None]
        if not stamps:
            return None
        firsts.append(stamps[0])
    return max(firsts) + dt.timedelta(hours=1) if firsts else None


def event_moment(ctx: QContext, n: int, fact_ids: list[str], event_id: str) -> dt.datetime | None:
    """When an event item is asked: soon after it was told (even n) or after a distraction block (odd n)."""
    soon = soon_after(ctx, fact_ids)
    if soon is None or n % 2 == 0:
        return soon
    return distraction_time(ctx, fact_ids, soon, event_ids=[event_id]) or soon


def shock_record(ctx: QContext, answer: str, day: dt.date, compute) -> dict:
    """The latest critical catalog event up to `day` whose eve had another answer (`compute(day)`)."""
    for item in reversed(lived(ctx, day)):
        if item.event.critical:
            before = compute(item.event.date - dt.timedelta(days=1))
            if before is not None and before != answer:
                return {"shock_event_id": item.event.event_id, "shock_date": item.event.date.isoformat(),
                        "answer_before_shock": before}
    return {}


def timed(ctx: QContext, facts: list, compute) -> list[tuple[dt.datetime | None, dt.date, str, dict]]:
    """(moment, day, answer, shock record) of a time-dependent item (`compute(day)`), asked at the context's
    time and one hour after each of `facts` was first told; a soon moment is kept only when no shock
    precedes it or a shock changed its answer (so post_shock suspicions are real ones)."""
    moments = [None] + [soon_after(ctx, [f.fact_id]) for f in facts if f is not None]
    out = []
    for moment in dict.fromkeys(m for i, m in enumerate(moments) if i == 0 or m is not None):
        moment, day = asked(ctx, moment)
        answer = compute(day)
        if answer is None:
            continue
        record = shock_record(ctx, answer, day, compute)
        if moment is None or record or not any(i.event.critical for i in lived(ctx, day)):
            out.append((moment, day, answer, record))
    return out


def cand(category: str, characteristic: str, variant: str, question: str, answer: str, reference: str,
         fact_ids: list[str], moment: dt.datetime | None, distractors=(), **kw) -> Candidate:
    """A finance candidate with template `finance.<characteristic>.<variant>`; its distractors are its only
    options (`own_distractors`) unless `extra` says otherwise. One that carries a shock record (a critical event
    changed its answer: `shock_record`) goes first in its characteristic, and before an item of the same text asked
    when no shock had changed it (selection keeps one item a text), unless a priority is given."""
    extra = {"own_distractors": True, **kw.pop("extra", {})}
    kw.setdefault("priority", 0 if "shock_event_id" in extra else 1)
    return Candidate(category, (characteristic,), question, answer, reference,
                     f"finance.{characteristic}.{variant}", kw.pop("query", f"finance {variant}"),
                     tuple(dict.fromkeys(fact_ids)), asked_at=moment,
                     distractors=tuple(d for d in distractors if d != answer), extra=extra, **kw)
