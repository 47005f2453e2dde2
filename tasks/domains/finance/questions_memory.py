"""FinPerMA's memory-fidelity generators: which event the persona lived through (by month, by the move it
prompted, the latest one, the one before or after another), how they reacted to it, and the goal, horizon and
allocation they stated.

Event items never give their answer away: an item asked by month skips an event whose title names a
month or year and offers no title that does, nor another catalog event of that month; an item asked by
the reaction quotes only the allocation move (`cut stocks from 60% to 45%`), not the catalog response
that may name the event, and is skipped when another of the persona's events made the same move.
"""

from __future__ import annotations

import datetime as dt

from tasks.common.facttext import capital, first_name
from tasks.common.timeutil import human_date
from tasks.domains.finance.questions_common import (
    DATED,
    FALLBACK_GOALS,
    FIXED,
    action_pool,
    alloc_pool,
    asked,
    cand,
    change_of,
    event_moment,
    lived,
    move_core,
    other_titles,
    pct,
    timed,
    typical_responses,
)
from tasks.questions.base import Candidate, QContext, generator


def _ids(item) -> dict:
    return {"event_id": item.event.event_id, "event_ids": [item.event.event_id]}


@generator("memory_fidelity", "event_recall")
def event_recall(ctx: QContext) -> list[Candidate]:
    """Which event the persona lived through in a month, and which event a remembered move answered."""
    items, who, out = lived(ctx, ctx.day), first_name(ctx.persona.name), []
    cores = [move_core(i.reaction.value) for i in items if i.reaction is not None]
    for n, item in enumerate(items):
        if item.reaction is None:
            continue
        moment, _ = asked(ctx, event_moment(ctx, n, [item.reaction.fact_id], item.event.event_id))
        month = f"{item.event.date:%B %Y}"
        title_extra = {**_ids(item), "title_options": True}
        if sum(f"{i.event.date:%B %Y}" == month for i in items) == 1 and not DATED.search(item.title):
            out.append(cand("memory_fidelity", "event_recall", "by_month",
                            f"Which market or life event shook up {who}'s finances in {month}?", item.title,
                            f"In {month} {who} went through {item.title}.", [item.reaction.fact_id], moment,
                            other_titles(ctx, items, item.title, month), extra=title_extra))
        core = move_core(item.reaction.value)
        if core is not None and cores.count(core) == 1:
            out.append(cand("memory_fidelity", "event_recall", "by_reaction",
                            f"Which event led {who} to {base_form(core)}?", item.title,
                            f"It was {item.title} ({human_date(item.event.date)}).", [item.reaction.fact_id],
                            moment, other_titles(ctx, items, item.title), extra=title_extra))
    out += neighbours(ctx, [i for i in items if i.reaction is not None], who)
    for moment, day, _, record in timed(ctx, [i.reaction for i in items], lambda d: latest_title(ctx, d)):
        told = [i for i in lived(ctx, day) if i.reaction is not None]
        last = told[-1]
        extra = {**_ids(last), "title_options": True,
                 "superseded_fact_ids": [i.reaction.fact_id for i in told[:-1]],  # type: ignore[union-attr]
                 **record}
        out.append(cand("memory_fidelity", "event_recall", "latest",
                        f"What is the latest market or life event {who} reacted to with a portfolio decision?",
                        last.title, f"{capital(last.title)} ({human_date(last.event.date)}).",
                        [last.reaction.fact_id], moment, other_titles(ctx, items, last.title),  # type: ignore[union-attr]
                        extra=extra))
    return out


NEIGHBOURS = {
    "next": "After {title}, what was the next market or life event {who} reacted to with a portfolio decision?",
    "previous": "Before {title}, what was the last market or life event {who} reacted to with a portfolio decision?",
}


def neighbours(ctx: QContext, told: list, who: str) -> list[Candidate]:
    """The event the persona told about right after (before) another of their events: asked once both were told
    (soon after the later one, or after a distraction block); the order is the events' own (catalog events are
    weeks apart), the options catalog titles."""
    out = []
    for n, (a, b) in enumerate(zip(told, told[1:], strict=False)):
        facts = [a.reaction.fact_id, b.reaction.fact_id]
        moment, _ = asked(ctx, event_moment(ctx, n, facts, b.event.event_id))
        ids = [a.event.event_id, b.event.event_id]
        for variant, anchor, gold in (("next", a, b), ("previous", b, a)):
            out.append(cand("memory_fidelity", "event_recall", variant,
                            NEIGHBOURS[variant].format(title=anchor.title, who=who), gold.title,
                            f"{capital(gold.title)} ({human_date(gold.event.date)}), {variant} to {anchor.title}.",
                            facts, moment, other_titles(ctx, told, gold.title),
                            extra={"event_id": anchor.event.event_id, "event_ids": ids, "title_options": True}))
    return out


def base_form(core: str) -> str:
    """A move in the base form, to follow `led Maya to`: `cut stocks ...`, `raise stocks ...`, `keep stocks ...`."""
    verb, _, rest = core.partition(" ")
    return f"{ {'raised': 'raise', 'kept': 'keep'}.get(verb, verb)} {rest}"


def latest_title(ctx: QContext, day: dt.date) -> str | None:
    """The title of the latest event up to `day` the persona reacted to."""
    told = [i for i in lived(ctx, day) if i.reaction is not None]
    return told[-1].title if told else None


@generator("memory_fidelity", "reaction_recall")
def reaction_recall(ctx: QContext) -> list[Candidate]:
    """What the persona did in response to one of their events."""
    items, who, out = lived(ctx, ctx.day), first_name(ctx.persona.name), []
    others = [i.reaction.value for i in items if i.reaction is not None]
    for n, item in enumerate(items):
        if item.reaction is None:
            continue
        moment, _ = asked(ctx, event_moment(ctx, n + 1, [item.reaction.fact_id], item.event.event_id))
        pool = [v for v in others if v != item.reaction.value] + \
            list(action_pool(item.reaction.value, typical_responses(item.event)))
        out.append(cand("memory_fidelity", "reaction_recall", "action",
                        f"How did {who} respond to {item.title}?", item.reaction.value,
                        f"After {item.title}, {who} {item.reaction.value}.",
                        [item.reaction.fact_id], moment, pool, extra=_ids(item)))
    return out


@generator("memory_fidelity", "stated_preference_recall")
def stated_preference_recall(ctx: QContext) -> list[Candidate]:
    """The goal and horizon the persona stated, and the allocation they held just before an event."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    goal = ctx.current(name, "investment_goal", ctx.day)
    if goal is not None:
        known = [f.value for f in ctx.world.facts if f.attribute == "investment_goal"]
        out.append(cand("memory_fidelity", "stated_preference_recall", "goal",
                        f"What investment goal did {who} describe?", goal.value,
                        f"{who}'s stated investment goal is {goal.value}.", [goal.fact_id], None,
                        tuple(known) + FALLBACK_GOALS, extra={"subject": name, "attribute": "investment_goal"}))
    horizon = ctx.current(name, "investment_horizon", ctx.day)
    if horizon is not None:  # whole years: the MCQ builder fills nearby year counts
        out.append(cand("memory_fidelity", "stated_preference_recall", "horizon",
                        f"What investment horizon did {who} describe?", horizon.value,
                        f"{who} plans to invest over {horizon.value}.", [horizon.fact_id], None,
                        extra={"subject": name, "attribute": "investment_horizon", "own_distractors": False}))
    for n, item in enumerate(lived(ctx, ctx.day)):
        before, _ = change_of(ctx, item)
        if before is None or item.reaction is None or pct(before.value) is None:
            continue
        moment, _ = asked(ctx, event_moment(ctx, n, [before.fact_id, item.reaction.fact_id], item.event.event_id))
        out.append(cand("memory_fidelity", "stated_preference_recall", "allocation_before",
                        f"What stock allocation had {who} told you about just before {item.title}?",
                        before.value, f"Just before {item.title}, {who} held {before.value}.",
                        [before.fact_id, item.reaction.fact_id], moment, alloc_pool(pct(before.value) or 0),
                        priority=FIXED, extra=_ids(item)))
    return out
