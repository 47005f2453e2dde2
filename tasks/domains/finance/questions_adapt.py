"""FinPerMA's context-adaptation generators: the product that fits the persona's stock share (now, right
after an event, and long advice with a rubric), the plan the Impact Model's constraint allowed after an
event, and the bias advice must avoid given how the persona moved.

The bias item's gold is a bias the constraint forbids by the direction of the move (a cut rules out
overconfidence; a raise rules out panic selling and loss aversion; a hold rules out panic selling and
herding): the move is in the corpus, while the acting type, which forbids one more bias, is hidden.
Biases the constraint forbids for either reason are never offered as wrong options.
"""

from __future__ import annotations

import datetime as dt

from schemas.finance import BIASES
from tasks.common.facttext import capital, first_name
from tasks.domains.finance.impact import DIRECTION_FORBIDS
from tasks.domains.finance.questions_common import (
    FIXED,
    Lived,
    alloc,
    asked,
    cand,
    event_moment,
    lived,
    other_titles,
    pct,
    shock_record,
    timed,
)
from tasks.domains.finance.review import BIAS_WORDS, PLANS, PRODUCTS, product_for
from tasks.questions.base import Candidate, QContext, generator


def _ids(item: Lived) -> dict:
    return {"event_id": item.event.event_id, "event_ids": [item.event.event_id]}


def product_on(ctx: QContext, day: dt.date) -> str | None:
    """The product that suits the stock share holding on `day`."""
    fact = alloc(ctx, day)
    share = pct(fact.value) if fact is not None else None
    return product_for(share) if share is not None else None


def remembered(ctx: QContext, day: dt.date) -> Lived | None:
    """The persona's latest shock (critical event) up to `day`, else their latest event."""
    items = [i for i in lived(ctx, day) if i.reaction is not None]
    shocks = [i for i in items if i.event.critical]
    return (shocks or items or [None])[-1]


@generator("context_adaptation", "suitable_option")
def suitable_option(ctx: QContext) -> list[Candidate]:
    """The product that fits the persona's current stock share, and long advice that respects it."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    for moment, day, answer, record in timed(ctx, ctx.history(name, "stock_allocation"), lambda d: product_on(ctx, d)):
        fact = alloc(ctx, day)
        if fact is None:
            continue
        extra = {"superseded_fact_ids": [f.fact_id for f in ctx.history(name, "stock_allocation")
                                         if f.valid_from < fact.valid_from], **record}
        out.append(cand("context_adaptation", "suitable_option", "product",
                        f"Which option fits {who}'s current risk stance for new savings today?",
                        answer, f"With {fact.value}, {who} fits {answer}.", [fact.fact_id], moment, PRODUCTS,
                        extra=extra))
    for n, item in enumerate(lived(ctx, ctx.day)):
        after = alloc(ctx, item.event.date)
        if item.reaction is None or after is None or pct(after.value) is None:
            continue
        moment, _ = asked(ctx, event_moment(ctx, n, [after.fact_id, item.reaction.fact_id], item.event.event_id))
        answer = product_for(pct(after.value) or 0)
        out.append(cand("context_adaptation", "suitable_option", "after_event",
                        f"Which option would have fit {who}'s risk stance right after {item.title}?", answer,
                        f"After {item.title} {who} held {after.value}, which fits {answer}.",
                        [after.fact_id, item.reaction.fact_id], moment, PRODUCTS, priority=FIXED, extra=_ids(item)))
    out += _first_fits(ctx, who) + _advice(ctx, who)
    return out


def _first_fits(ctx: QContext, who: str) -> list[Candidate]:
    """The event that first made a product the one that fits the persona's stock share (a product their first
    stated allocation did not already fit); options are catalog titles."""
    items = [i for i in lived(ctx, ctx.day) if i.reaction is not None]
    start = ctx.history(ctx.persona.name, "stock_allocation")
    seen = {product_for(pct(start[0].value) or 0)} if start and pct(start[0].value) is not None else set()
    out = []
    for n, item in enumerate(items):
        after = alloc(ctx, item.event.date)
        if after is None or pct(after.value) is None or (answer := product_for(pct(after.value) or 0)) in seen:
            continue
        seen.add(answer)
        facts = [after.fact_id, item.reaction.fact_id]  # type: ignore[union-attr]
        moment, _ = asked(ctx, event_moment(ctx, n, facts, item.event.event_id))
        out.append(cand("context_adaptation", "suitable_option", "first_fit",
                        f"Which event first made a product like {answer} the right fit for {who}'s risk stance?",
                        item.title,
                        f"{capital(item.title)}: after it {who} held {after.value}, which fits {answer}.", facts,
                        moment, other_titles(ctx, items, item.title),
                        extra={**_ids(item), "product": answer, "title_options": True}))
    return out


def _advice(ctx: QContext, who: str) -> list[Candidate]:
    """Long advice on investing a bonus: the current stance, the remembered shock, no forbidden bias."""
    item, fact = remembered(ctx, ctx.day), alloc(ctx, ctx.day)
    if item is None or item.reaction is None or fact is None or pct(fact.value) is None:
        return []
    forbidden = sorted(item.row.forbidden_biases) if item.row else []
    answer = product_for(pct(fact.value) or 0)
    avoid = ", ".join(BIAS_WORDS.get(b, b) for b in forbidden) or "panic or hype"
    rubric = (f"Recommends something matching {fact.value} (e.g. {answer}); acknowledges {item.title} "
              f"and that {who} {item.reaction.value} then; does not appeal to {avoid}.")
    return [cand("context_adaptation", "suitable_option", "advice",
                 f"How should {who} invest a bonus, given what you know about {who}'s situation?",
                 answer, f"Keep to {fact.value}: {answer}. Remember {item.title}, after which {who} "
                 f"{item.reaction.value}; steer clear of {avoid}.",
                 [fact.fact_id, item.reaction.fact_id], None, answer_type="long", rubric=rubric,
                 extra={**_ids(item), "forbidden_biases": forbidden,
                        **shock_record(ctx, answer, ctx.day, lambda d: product_on(ctx, d))})]


@generator("context_adaptation", "constraint_compliance")
def constraint_compliance(ctx: QContext) -> list[Candidate]:
    """The plan the Impact Model's constraint allowed right after one of the persona's events."""
    who, out = first_name(ctx.persona.name), []
    for n, item in enumerate(lived(ctx, ctx.day)):
        if item.row is None or item.reaction is None:
            continue
        answer = PLANS[item.row.evolution_type]
        moment, _ = asked(ctx, event_moment(ctx, n, [item.reaction.fact_id], item.event.event_id))
        out.append(cand("context_adaptation", "constraint_compliance", "plan",
                        f"Which plan would have matched {who}'s reaction right after {item.title}?",
                        answer, f"{answer[0].upper() + answer[1:]}: {who} {item.reaction.value} "
                        f"({item.row.direction}, {item.row.evolution_type.replace('_', ' ')}).",
                        [item.reaction.fact_id], moment, tuple(PLANS.values()),
                        extra={**_ids(item), "constraint_id": item.row.constraint_id}))
    return out + _plan_events(ctx, who)


def _plan_events(ctx: QContext, who: str) -> list[Candidate]:
    """The one event of the persona's whose reaction a plan matched (a plan no other of their events up to the
    context's day matched, so none up to the question day either); options are catalog titles."""
    items = [i for i in lived(ctx, ctx.day) if i.row is not None and i.reaction is not None]
    kinds = [i.row.evolution_type for i in items]  # type: ignore[union-attr]
    out = []
    for n, item in enumerate(items):
        kind = item.row.evolution_type  # type: ignore[union-attr]
        if kinds.count(kind) != 1:
            continue
        moment, _ = asked(ctx, event_moment(ctx, n, [item.reaction.fact_id], item.event.event_id))  # type: ignore[union-attr]
        out.append(cand("context_adaptation", "constraint_compliance", "event",
                        f"For which event would it have suited {who} to {PLANS[kind]}?", item.title,
                        f"{capital(item.title)}: {who} {item.reaction.value}.", [item.reaction.fact_id],  # type: ignore[union-attr]
                        moment, other_titles(ctx, items, item.title),
                        extra={**_ids(item), "evolution_type": kind, "constraint_id": item.row.constraint_id,  # type: ignore[union-attr]
                               "title_options": True}))
    return out


@generator("context_adaptation", "bias_guard")
def bias_guard(ctx: QContext) -> list[Candidate]:
    """The bias advice must not show after an event (one the move rules out), and long advice."""
    who, out = first_name(ctx.persona.name), []
    for n, item in enumerate(lived(ctx, ctx.day)):
        if item.row is None or item.reaction is None:
            continue
        forbidden = sorted(b for b in item.row.forbidden_biases if b in BIAS_WORDS)
        golds = [b for b in forbidden if b in DIRECTION_FORBIDS.get(item.row.direction, ())]
        if not golds:
            continue
        allowed = [BIAS_WORDS[b] for b in BIASES if b not in item.row.forbidden_biases and b in BIAS_WORDS]
        pick = golds[sum(map(ord, item.event.event_id)) % len(golds)]
        moment, _ = asked(ctx, event_moment(ctx, n + 1, [item.reaction.fact_id], item.event.event_id))
        extra = {**_ids(item), "bias": pick, "constraint_id": item.row.constraint_id}
        out.append(cand("context_adaptation", "bias_guard", "bias",
                        f"Which tendency should advice to {who} about {item.title} avoid, given {who}'s "
                        "reaction?", BIAS_WORDS[pick],
                        f"{BIAS_WORDS[pick]}: {who} {item.reaction.value}, so it is out of character.",
                        [item.reaction.fact_id], moment, allowed, extra=extra))
        rubric = (f"Advice on {item.title} consistent with what {who} did then ({item.reaction.value}); shows "
                  f"none of: {', '.join(BIAS_WORDS[b] for b in forbidden)}.")
        out.append(cand("context_adaptation", "bias_guard", "advice",
                        f"Looking back at {item.title}, what should you tell {who} if something similar happened?",
                        f"stay with what they did: {item.reaction.value}",
                        f"Remind {who} that after {item.title} they {item.reaction.value}; keep to that, "
                        f"without {', '.join(BIAS_WORDS[b] for b in forbidden)}.", [item.reaction.fact_id], None,
                        answer_type="long", rubric=rubric, extra={**extra, "forbidden_biases": forbidden}))
    return out
