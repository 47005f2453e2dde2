"""`lifeloom plan` shown: the command line's table and lines (`text_lines`) and the Prefect artifact
(`plan_markdown`) of a `flows.plan.Plan`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flows.plan import Plan


def duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:,.1f} h"
    if seconds >= 90:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds:,.0f} s"


def money(value: float | None) -> str:
    return "unknown price" if value is None else f"${value:,.2f}"


def text_lines(plan: Plan) -> list[str]:
    """The plan as the command line prints it: a table of rows, the totals, the bounds and the assumptions."""
    head = f"{'stage':<10} {'provider/model':<34} {'calls':>8} {'hits':>7} {'input tok':>12} {'output tok':>11} " \
           f"{'cost':>12} {'batch':>12} {'batch+cache':>12} {'min wall':>9}"
    lines = [f"plan for {plan.name}: {plan.personas} personas", head, "-" * len(head)]
    for r in plan.rows:
        lines.append(f"{r.stage:<10} {(r.provider + ' ' + r.model)[:34]:<34} {r.calls:>8,} {r.cache_hits:>7,} "
                     f"{r.input_tokens:>12,} {r.output_tokens:>11,} {money(r.cost):>12} {money(r.batch_cost):>12} "
                     f"{money(r.batch_cache_cost):>12} {duration(r.min_wall_seconds):>9}")
    lines += ["-" * len(head),
              f"{'total':<45} {plan.calls:>8,} {plan.cache_hits:>7,} {plan.input_tokens:>12,} "
              f"{plan.output_tokens:>11,} {money(plan.cost):>12} {money(plan.batch_cost):>12} "
              f"{money(plan.batch_cache_cost):>12} {duration(plan.min_wall_seconds):>9}"]
    batched = sorted({f"{r.provider} {r.model}" for r in plan.rows if r.mode == "batch" and r.provider != "offline"})
    if plan.paid:
        lines.append(f"expected bill: {money(plan.expected_cost)}"
                     + (f" (batch mode for {', '.join(batched)}: at the batch price)" if batched else "")
                     + f"; {money(plan.cache_expected_cost)} if the prompt cache serves every repeated prefix")
        top = sorted(plan.prompts, key=lambda p: -p["input_tokens"])[:6]
        lines.append(f"repeated prefix: {plan.repeated_prefix_share:.1%} of the input tokens repeat the start of an "
                     "earlier request (what a prompt cache can serve); by prompt: "
                     + "; ".join(f"{p['prompt']} {p['share']:.1%}" for p in top))
    prices = sorted({f"{r.provider} {r.model}: {r.price}" for r in plan.rows if r.provider != "offline"})
    lines += [f"price: {p}" for p in prices]
    if plan.unknown_price:
        lines.append(f"unknown price for {', '.join(plan.unknown_price)}: set [provider] price_per_mtok_in and "
                     "price_per_mtok_out (the plan does not guess)")
    if plan.paid:
        top = max(plan.bounds, key=plan.bounds.get)
        lines.append(f"minimum wall time {duration(plan.min_wall_seconds)}, set by {top}; the other bounds: "
                     + "; ".join(f"{k} {duration(v)}" for k, v in plan.bounds.items() if k != top))
        lines += [f"assumes: {a}" for a in plan.assumptions]
        lines += [f"hint: {h}" for h in plan.hints]
        if batched:
            lines.append(f"batch mode: {plan.batch_rounds:,} rounds on the longest persona's path, each waiting for "
                         "its batch (minutes to a day): the build takes at least that many batch turnarounds, not "
                         "the minimum wall time above")
    else:
        lines.append("offline narrator only: no model cost, and these figures equal the build's ledger")
    return lines


def plan_markdown(plan: Plan) -> str:
    """The plan as a Prefect artifact: the command line's table in a code block, and the verdict on the ceiling."""
    return f"# Plan of `{plan.name}`\n\n```\n" + "\n".join(text_lines(plan)) + "\n```\n"
