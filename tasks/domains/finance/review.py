"""The QA review's independent recomputation of finance answers, and the finance gate's.

`answer_as_of` reads only the template and parameters a derivation records (event id, bias, control
numbers) and recomputes the answer from the facts, events and impact rows valid on a day. It holds the
wording tables (products, plans, bias words, the control rule) that tasks/domains/finance/questions.py reads, but
shares none of its code paths, so a generator bug shows up as a disagreement. Bias-guard advice is not covered.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

from schemas.finance import ImpactConstraint
from schemas.profile import Persona
from schemas.world import Event, Fact
from tasks.common.timeutil import local_date

_PCT = re.compile(r"(\d+(?:\.\d+)?)\s*%")

# -- the wording tables and the type rule questions.py and this module share ----------------------------
PRODUCTS = (
    "high-yield savings and short-term Treasury bills",
    "a conservative income fund holding mostly high-grade bonds",
    "a cautious balanced fund tilted towards bonds",
    "a classic balanced fund split between stocks and bonds",
    "a growth fund tilted towards global stock index funds",
    "an all-equity portfolio with small caps and emerging markets",
)
"""Products by stock share: below 15%, 30%, 45%, 60%, 80%, and 80% or more (`product_for`)."""
PRODUCT_EDGES = (15, 30, 45, 60, 80)
PLANS = {
    "shock_retreat": "move a big part of the stocks into bonds and cash now",
    "cautious_drift": "trim the stock share a bit and keep the rest invested",
    "steady_hold": "keep the current mix and simply rebalance it as usual",
    "opportunistic_increase": "add to stocks bit by bit for as long as the move runs",
    "windfall_expansion": "put most of the new money into a stock index fund now",
    "panic": "sell every last holding at once and sit fully in cash",
}
"""The plan each evolution type allows after an event; `panic` is never compliant (a distractor). All six
have the same length, so the gold is never the unique longest option."""
BIAS_WORDS = {
    "loss_aversion": "loss aversion", "herding": "following the crowd", "overconfidence": "overconfidence",
    "recency_bias": "recency bias", "anchoring": "anchoring on an old price",
    "disposition_effect": "selling winners too early", "mental_accounting": "mental accounting",
    "status_quo_bias": "status quo bias", "confirmation_bias": "confirmation bias",
    "panic_selling": "panic selling",
}


def product_for(share: int) -> str:
    """The product whose stock share matches `share` (PRODUCTS' buckets)."""
    return PRODUCTS[sum(share >= edge for edge in PRODUCT_EDGES)]



MOVE_FORBIDS = {"decrease": ("overconfidence",), "increase": ("panic_selling", "loss_aversion"),
                "hold": ("panic_selling", "herding")}
"""The biases a move rules out whatever the persona's type (the review's own copy of impact.py's
DIRECTION_FORBIDS: a drift between the two shows up as a review disagreement)."""
MOVES = ("cut risk sharply", "cut risk slightly", "keep risk unchanged", "raise risk slightly",
         "raise risk sharply", "sell everything for cash")
TYPE_RULES = {
    "preserver": ("a preserver dislikes losses: a big reduction after bad news, no change after good news",
                  {-1: MOVES[0], 1: MOVES[2]}),
    "follower": ("a follower goes with the crowd: a small reduction after bad news, a small increase after good news",
                 {-1: MOVES[1], 1: MOVES[3]}),
    "independent": ("an independent is contrarian: a small increase when markets fall, no change after a rally",
                    {-1: MOVES[3], 1: MOVES[2]}),
    "accumulator": ("an accumulator is bold: a big increase after good news, no change after bad news",
                    {-1: MOVES[2], 1: MOVES[4]}),
}
"""The type rule the zero-memory controls state in their question and ask about: a simplified reading of
Pompian's types, not the Impact Model's own table (impact.py GAINS, where e.g. a preserver still raises a
little on good news and an independent trims rallies). A control's answer follows from the rule its
question quotes, so the two tables may differ without making a control wrong."""
PERSONAL_RULE = ("personal blows such as a job loss mean a small reduction for every type, and windfalls a small "
                 "increase", {-1: MOVES[1], 1: MOVES[3]})


def rule_move(bit_type: str, personal: bool, sign: int) -> str:
    """What the stated type rule implies for an event of that sign (personal events: PERSONAL_RULE)."""
    return (PERSONAL_RULE if personal else TYPE_RULES[bit_type])[1][sign]



def recompute(question: Any, persona: Persona, world: Any, corpus: Any) -> str | None:
    """The answer of a finance question recomputed as of its question day; None for items not covered."""
    derivation = dict(question.derivation or {})
    rows = [r if isinstance(r, ImpactConstraint) else ImpactConstraint.model_validate(r)
            for r in world.extras.get("impact_constraints", [])]
    day = local_date(persona, question.question_time)
    return answer_as_of(str(derivation.get("template", "")), derivation, persona.name,
                        dict(persona.attributes), world.facts, world.events, rows, day)


def held(facts: Iterable[Fact], subject: str, attribute: str, day: dt.date) -> Fact | None:
    """The latest-starting fact of (subject, attribute) valid on `day` (valid_to exclusive)."""
    valid = [f for f in facts if f.subject == subject and f.attribute == attribute and f.valid_from <= day
             and (f.valid_to is None or day < f.valid_to)]
    return max(valid, key=lambda f: (f.valid_from, f.fact_id)) if valid else None


def share(fact: Fact | None) -> int | None:
    """The stock percentage a `NN% in stocks` fact states."""
    m = _PCT.search(fact.value) if fact is not None else None
    return round(float(m.group(1))) if m else None


def moves(facts: list[Fact], events: list[Event], name: str, day: dt.date) -> list[tuple[Event, str, int]]:
    """(event, title, change of the stock share) for each catalog event up to `day` with a reaction fact."""
    titles = {f.event_id: f.subject for f in facts if f.attribute == "reaction"}
    out = []
    for e in sorted(events, key=lambda e: (e.date, e.event_id)):
        if e.date <= day and e.kind.startswith(("market:", "personal:")) and e.event_id in titles:
            a = share(held(facts, name, "stock_allocation", e.date - dt.timedelta(days=1)))
            b = share(held(facts, name, "stock_allocation", e.date))
            out.append((e, titles[e.event_id], (b - a) if a is not None and b is not None else 0))
    return out


def answer_as_of(template: str, derivation: Mapping[str, Any], name: str, attributes: Mapping[str, Any],
                 facts: list[Fact], events: list[Event], rows: list[ImpactConstraint], day: dt.date) -> str | None:
    """The answer `template` gives on `day` (None when the template is not covered or has no answer)."""
    if not template.startswith("finance."):
        return None
    kind = template.removeprefix("finance.")
    event_id = str(derivation.get("event_id", ""))
    by_event = {e.event_id: e for e in events}
    now = held(facts, name, "stock_allocation", day)
    if kind in ("current_risk_stance.allocation", "current_risk_stance.since_allocation"):
        return now.value if now else None
    if kind in ("current_risk_stance.band", "current_risk_stance.since_band", "stated_preference_recall.goal",
                "stated_preference_recall.horizon"):
        attribute = {"band": "risk_tolerance", "since_band": "risk_tolerance", "goal": "investment_goal",
                     "horizon": "investment_horizon"}
        fact = held(facts, name, attribute[kind.rsplit(".", 1)[1]], day)
        return fact.value if fact else None
    if kind == "suitable_option.after_event" and event_id in by_event:
        now = held(facts, name, "stock_allocation", by_event[event_id].date)
    if kind in ("suitable_option.product", "suitable_option.after_event", "suitable_option.advice"):
        return _product(share(now))
    if kind in ("event_recall.by_month", "event_recall.by_reaction", "reaction_recall.action"):
        fact = next((f for f in facts if f.event_id == event_id and f.attribute == "reaction"), None)
        return None if fact is None else fact.value if kind.startswith("reaction") else fact.subject
    if kind == "event_recall.latest":
        found = moves(facts, events, name, day)
        return found[-1][1] if found else None
    if kind in ("event_recall.next", "event_recall.previous"):
        found = moves(facts, events, name, day)
        at = next((i for i, (e, _, _) in enumerate(found) if e.event_id == event_id), None)
        other = None if at is None else at + (1 if kind.endswith("next") else -1)
        return found[other][1] if other is not None and 0 <= other < len(found) else None
    if kind in ("shift_cause.first_move", "shift_direction.first_hold"):
        moved = kind.endswith("first_move")
        return next((title for _, title, delta in moves(facts, events, name, day) if (delta != 0) == moved), None)
    if kind in ("shift_cause.band_change", "shift_cause.reached"):
        attribute = "risk_tolerance" if kind.endswith("band_change") else "stock_allocation"
        titles = {f.event_id: f.subject for f in facts if f.attribute == "reaction"}
        first = min((f for f in facts if f.subject == name and f.attribute == attribute and f.valid_from <= day
                     and f.value == derivation.get("value")), key=lambda f: (f.valid_from, f.fact_id), default=None)
        return titles.get(first.event_id) if first else None
    if kind in ("shift_direction.event", "stated_preference_recall.allocation_before") and event_id in by_event:
        eve = by_event[event_id].date - dt.timedelta(days=1)
        before = held(facts, name, "stock_allocation", eve)
        if kind.endswith("allocation_before"):
            return before.value if before else None
        return _shift(share(before), share(held(facts, name, "stock_allocation", by_event[event_id].date)))
    if kind == "shift_direction.net":
        first = min((f for f in facts if f.subject == name and f.attribute == "stock_allocation"
                     and f.valid_from <= day), key=lambda f: (f.valid_from, f.fact_id), default=None)
        return _shift(share(first), share(now))
    if kind in ("shift_cause.largest_cut", "shift_cause.largest_raise"):
        sign = -1 if kind.endswith("cut") else 1
        best = [(sign * d, -i, t) for i, (_, t, d) in enumerate(moves(facts, events, name, day)) if sign * d > 0]
        return max(best)[2] if best else None
    if kind == "suitable_option.first_fit":
        first = min((f for f in facts if f.subject == name and f.attribute == "stock_allocation"),
                    key=lambda f: (f.valid_from, f.fact_id), default=None)
        seen = {_product(share(first))}
        for e, title, _ in moves(facts, events, name, day):
            now_product = _product(share(held(facts, name, "stock_allocation", e.date)))
            if now_product == derivation.get("product") and now_product not in seen:
                return title
            seen.add(now_product)
        return None
    if kind == "constraint_compliance.event":
        told = {e.event_id: title for e, title, _ in moves(facts, events, name, day)}
        found = [told[r.event_id] for r in rows if r.event_id in told and r.evolution_type == derivation.get(
            "evolution_type")]
        return found[0] if len(found) == 1 else None
    row = next((r for r in rows if r.event_id == event_id), None)
    if kind == "constraint_compliance.plan":
        return PLANS[row.evolution_type] if row else None
    if kind == "bias_guard.bias":  # a bias the move itself rules out (not the hidden type's)
        bias = str(derivation.get("bias", ""))
        by_move = row is not None and bias in MOVE_FORBIDS.get(row.direction, ())
        return BIAS_WORDS[bias] if row and by_move and bias in row.forbidden_biases and bias in BIAS_WORDS else None
    return _control(kind, derivation, attributes)


def _product(s: int | None) -> str | None:
    """The product of PRODUCTS' bucket for stock share `s`."""
    return None if s is None else PRODUCTS[sum(s >= e for e in PRODUCT_EDGES)]


def _shift(a: int | None, b: int | None) -> str | None:
    """The shift wording from share `a` to share `b`."""
    if a is None or b is None:
        return None
    if a == b:
        return f"kept stocks at {b}%"
    return f"{'cut' if b < a else 'raised'} stocks from {a}% to {b}%"


def _control(kind: str, derivation: Mapping[str, Any], attributes: Mapping[str, Any]) -> str | None:
    """The zero-memory controls' answers, from the numbers and type their question states."""
    if kind == "shift_direction.control_rule":
        bit = str(attributes.get("bit_type", derivation.get("bit_type", "")))
        return rule_move(bit, bool(derivation.get("personal")), int(derivation.get("sign", 1)))
    if kind == "suitable_option.control_product":
        s = int(derivation.get("share", 0))
        return PRODUCTS[sum(s >= e for e in PRODUCT_EDGES)]
    if kind == "stated_preference_recall.control_arithmetic":
        end = int(derivation["start"]) - int(derivation["down"]) + int(derivation["up"])
        return f"{end}% in stocks"
    return None
