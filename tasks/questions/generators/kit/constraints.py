"""The generator kit's views of constraints (an injury, a budget, a move): which hold on a day, their facts and
causes, when a question about one may be asked, and how its restrictions are written."""

from __future__ import annotations

import datetime as dt

from schemas.world import Constraint, Fact
from tasks.common.facttext import attribute_phrase, fits_slot
from tasks.common.timeutil import human_date, local_date
from tasks.questions.base import QContext
from tasks.questions.generators.kit.core import facts_of_event, moment, plans_by_id

MAX_GAP_DAYS = 10
"""D is 1..MAX_GAP_DAYS days after the first evidence (seeded), clamped into the active period."""


def constraint_fact(ctx: QContext, constraint: Constraint) -> Fact | None:
    """The fact recording the constraint (same event, attribute = the constraint's kind)."""
    facts = [f for f in facts_of_event(ctx, constraint.event_id) if f.attribute == constraint.kind]
    return next((f for f in facts if f.value == constraint.description), facts[0] if facts else None)


def cause_facts(ctx: QContext, constraint: Constraint) -> list[Fact]:
    """The other facts of the critical event (the injury, the diagnosis, the new flat, ...)."""
    return [f for f in facts_of_event(ctx, constraint.event_id) if f.attribute != constraint.kind]


def holds(ctx: QContext, constraint: Constraint, day: dt.date) -> bool:
    """True when the constraint is active on `day` by the constraints table (the source of truth for
    restrictions: its fact may be closed early by a newer fact of the same attribute, e.g. a second
    spending restriction, while the first still holds) and it has a fact recording it."""
    return constraint.valid_from <= day < constraint.valid_to and constraint_fact(ctx, constraint) is not None


def in_force(ctx: QContext, day: dt.date) -> list[Constraint]:
    """Every constraint active on `day` by the constraints table, told before the question or not."""
    return sorted((c for c in ctx.world.constraints if c.valid_from <= day < c.valid_to),
                  key=lambda c: (c.valid_from, c.constraint_id))


def active_constraints(ctx: QContext, day: dt.date) -> list[Constraint]:
    """The constraints active on `day` whose fact is mentioned before that day's question time."""
    when = moment(ctx, day)
    out = []
    for c in sorted(ctx.world.constraints, key=lambda c: (c.valid_from, c.constraint_id)):
        fact = constraint_fact(ctx, c)
        if holds(ctx, c, day) and fact is not None and ctx.evidence_for(fact.fact_id, when):
            out.append(c)
    return out


def question_day(ctx: QContext, fact: Fact, start: dt.date, end: dt.date, key: str) -> dt.date | None:
    """A day strictly after the fact's first evidence and `start`, before `end` (exclusive) and not
    after the default question day: first evidence day + a seeded 1..MAX_GAP_DAYS, clamped."""
    index = ctx.evidence_index.get(fact.fact_id, [])
    if not index:
        return None
    earliest = max(local_date(ctx.persona, index[0][0]), start) + dt.timedelta(days=1)
    last = min(end - dt.timedelta(days=1), ctx.day)
    if earliest > last:
        return None
    wanted = earliest + dt.timedelta(days=ctx.rng(key).randint(1, MAX_GAP_DAYS) - 1)
    return min(wanted, last)


def constraint_end(ctx: QContext, constraint: Constraint, fact: Fact) -> dt.date:
    """The exclusive end of the constraint's period (the constraints table's, not its fact's: a newer fact
    of the same attribute closes the fact without lifting the constraint)."""
    return constraint.valid_to


def cause_text(ctx: QContext, constraint: Constraint) -> str:
    """`run the Forest Park 5K on July 27, 2024 — injury: twisted right knee`."""
    event = ctx.events.get(constraint.event_id)
    plan = plans_by_id(ctx).get(event.plan_id or "") if event else None
    title = plan.title if plan else (event.kind.replace("_", " ") if event else constraint.kind)
    what = "; ".join(f"{attribute_phrase(f.attribute)}: {f.value}" if fits_slot(f.attribute, f.value) else f.value
                     for f in cause_facts(ctx, constraint))  # "employer: unemployed" -> "unemployed"
    when = human_date(event.date) if event else human_date(constraint.valid_from)
    return f"{title} on {when}" + (f" — {what}" if what else "")


def until_text(constraint: Constraint) -> str:
    return human_date(constraint.valid_to)


def lifted(constraints: list[Constraint]) -> Constraint:
    """The constraint of `constraints` that ends last (the day the request becomes possible again)."""
    return max(constraints, key=lambda c: (c.valid_to, c.constraint_id))


def restriction_list(ctx: QContext, constraints: list[Constraint]) -> str:
    """`"no running until ..." (run the Canal 5K on ...); "no travel until ..." (...)`."""
    return "; ".join(f"\"{c.description}\" ({cause_text(ctx, c)})" for c in constraints)


def next_weekday(day: dt.date, weekday: int) -> dt.date:
    """The first date strictly after `day` falling on `weekday` (Monday 0)."""
    return day + dt.timedelta(days=(weekday - day.weekday()) % 7 or 7)


def constraint_query(constraints: list[Constraint], day: dt.date, tag: str | None = None) -> str:
    first = constraints[0]
    return (
        f"SELECT c.constraint_id, c.kind, c.description, c.blocks, c.valid_to, e.event_id, e.kind FROM constraints c "
        f"JOIN events e USING (event_id) WHERE c.persona_id = '{first.persona_id}' AND c.valid_from <= '{day}' "
        f"AND c.valid_to > '{day}'" + (f" AND '{tag}' IN c.blocks" if tag else "")
        + f" -- returns {', '.join(c.constraint_id for c in constraints)}"
    )
