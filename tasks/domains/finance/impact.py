"""FinPerMA's Impact Model, layers 1 and 3 (layer 2, the narration, runs in world.narrate).

Layer 1 (`build_constraint`) is a pure function: the same persona, event, risk before, history and
memory give the same ImpactConstraint. Its rules:
- felt shock: market events (macro, industry) weigh the coefficients 0.6 equity + 0.15 safe assets
  - 0.15 rates + 0.15 wealth + 0.1 income; personal events act through income and wealth
  (0.6 income + 0.4 wealth + 0.1 equity). The magnitude is |base| * (1 + 0.5 uncertainty) *
  (0.5 + 0.1 severity), capped at 1; its sign is the base's. Valence: negative below 0, else positive.
- exposure (`exposure`): a market event is felt through what the persona holds and where: the
  magnitude is multiplied by an asset factor (1 for events touching broad assets: equities, bonds,
  cash, savings, pensions, income, housing; 0.3 + 0.7 x the persona's initial risk score for
  crypto-only events, whose holders are the risk-takers; 0.8 for other sector-only events) and a
  region factor (1 for global events and events of the persona's own region, 0.75 for a foreign one:
  home bias). Personal events have exposure 1. The portfolio is one number (the stock allocation), so
  this is a stand-in for holdings, not a position-level model.
- type rule (`GAINS`): a signed gain per type and shock sign; risk change = gain * shock. Preserver:
  loss-averse, cuts hard on bad news (1.4), barely raises on good (0.15). Follower: moves with the
  market both ways (0.9). Independent: contrarian on market shocks, buys dips (-0.6) and trims
  rallies (-0.2). Accumulator: raises on good news (1.2), cuts little on bad (0.3). Personal events
  (`PERSONAL_GAINS`) move every type with the shock: a job loss cuts risk for all, an inheritance or a
  raise can add risk. Anti-typical personas take the rule of the opposite type (preserver <->
  accumulator, follower <-> independent).
- Big Five multiplier: a cut is amplified by neuroticism and damped by conscientiousness
  (1 + 0.8 (N - 0.5) - 0.2 (C - 0.5)); a raise is amplified by openness and extraversion
  (1 + 0.6 (O - 0.5) + 0.3 (E - 0.5)); clamped to [0.6, 1.4].
- experience factor: 1 / (1 + 0.02 min(experience_years, 30) + 0.15 earlier same-valence events),
  at least 0.4: experience and earlier shocks of the same sign dampen the reaction.
- delta: |gain * shock| * multiplier * factor * 0.6, capped at 0.4 and rounded to 5-point steps (one
  step of the stock allocation); 0 is a hold. Risk after is clamped to [0.05, 0.95]; the delta is the
  change that remains. Bounds: 0.8 and 1.2 times delta (a hold: 0 to 0.02).
- evolution type: hold -> steady_hold; a cut of at least 0.15 (three allocation steps) on a negative
  shock -> shock_retreat, smaller cuts -> cautious_drift (by size, not by the event's severity: an
  accumulator who trims five points after a crash drifts, he does not retreat); a raise on a positive personal event ->
  windfall_expansion, other raises -> opportunistic_increase.
- forbidden biases: by direction (a cut forbids overconfidence; a raise forbids panic selling and loss
  aversion; a hold forbids panic selling and herding) and by acting type (the bias of the type at the
  other end: preserver overconfidence, follower confirmation bias, independent herding, accumulator
  panic selling).
- action: names the allocation change (`cut stocks from 60% to 45%`), plus the first of the event's
  typical responses that goes the same way and fits the change (`response_fits`): buying cash, bonds,
  gold or insurance counts as a cut, selling them as neither; no "all"/"everything" claim; "the dip"
  only on a negative shock; "panic" only for a cut of at least 0.15 that may show panic selling.
For the same persona and event kind, a harsher shock (higher severity, or coefficients further from 0
in the shock's direction) never gives a smaller |delta|: every step above is monotone in |shock|.

Layer 3 (`check_narration`) checks a narration against its constraint: risk direction, risk change
within [0.8 delta_min, 1.2 delta_max], no forbidden or unknown bias, the evolution type the rules give
(for a raise on a positive personal event either raise type), and the fact phrases present in the
narrative. It is also the gateway's hard check for the `impact_reaction` prompt (`reaction_check`), so a
live model gets the problem back for repair; world.narrate treats the gateway's own fallback as a failure.
"""

from __future__ import annotations

import datetime as dt
import math
import re

from schemas.finance import BIASES, CatalogEvent, ImpactConstraint, ImpactNarration, InvestorProfile
from schemas.world import Event
from tasks.common.facttext import mentions
from tasks.domains.finance.investors import acting_type, allocation, allocation_phrase, risk_band
from tasks.llm.checks import hard_check

MARKET_WEIGHTS = {"equity": 0.6, "safe_assets": 0.15, "rates": -0.15, "wealth": 0.15, "income": 0.1}
PERSONAL_WEIGHTS = {"income": 0.6, "wealth": 0.4, "equity": 0.1}
GAINS = {  # type -> (gain on a negative shock, gain on a positive shock), market events
    "preserver": (1.4, 0.15), "follower": (0.9, 0.9), "independent": (-0.6, -0.2), "accumulator": (0.3, 1.2),
}
PERSONAL_GAINS = {
    "preserver": (1.2, 0.3), "follower": (0.9, 0.6), "independent": (0.7, 0.7), "accumulator": (0.5, 1.0),
}
SCALE, MAX_DELTA, STEP, HOLD_MAX, TOLERANCE, RETREAT = 0.6, 0.4, 0.05, 0.02, 0.2, 0.15
RISK_FLOOR, RISK_CAP = 0.05, 0.95
TYPE_FORBIDS = {"preserver": ("overconfidence",), "follower": ("confirmation_bias",),
                "independent": ("herding",), "accumulator": ("panic_selling",)}
DIRECTION_FORBIDS = {"decrease": ("overconfidence",), "increase": ("panic_selling", "loss_aversion"),
                     "hold": ("panic_selling", "herding")}
TYPE_BIASES = {"preserver": ("loss_aversion", "status_quo_bias", "anchoring", "mental_accounting"),
               "follower": ("herding", "recency_bias"),
               "independent": ("confirmation_bias", "overconfidence", "anchoring"),
               "accumulator": ("overconfidence", "confirmation_bias", "recency_bias")}
"""Biases a type's reactions typically show (narrators pick among those not forbidden)."""
_VERBS = {"decrease": ("sold", "cut", "trim", "reduc", "moved to cash", "into cash", "paused", "pulled"),
          "increase": ("bought", "invested", "added", "increas", "raised", "put more"),
          "hold": ("held", "kept", "waited", "stayed", "did nothing")}
_SAFE = ("cash", "bond", "treasur", "gilt", "bund", "franc", "gold", "insurance", "savings", "emergency fund")
"""Safe assets: buying them goes with a cut in stocks, selling them with no stock move at all."""
BROAD_ASSETS = frozenset({"equities", "bonds", "cash", "savings", "pensions", "income", "housing"})
HOME_REGIONS = {"North America": ("US",), "Europe": ("Europe", "UK"),
                "Asia-Pacific": ("China", "Japan", "South Korea"), "Latin America": (), "Africa": ()}
"""Persona region -> catalog regions that are home markets for it."""
WORK_STATUS = {"job_loss": ("out of work", "For now I'm out of work."),
               "job_loss_no_savings": ("out of work", "For now I'm out of work."),
               "layoff_with_severance": ("out of work", "For now I'm out of work, living on the severance."),
               "new_job_higher_pay": ("a better-paid job", "I'm starting a better-paid job."),
               "retirement": ("retired", "I'm officially retired now.")}
"""Personal templates that change what the persona does for a living: (phrase the new occupation fact
and the narrative carry, the sentence narrators use)."""


def is_impact_event(event: Event) -> bool:
    """True for a rolled-out catalog event (kind `market:<id>` or `personal:<id>`)."""
    return event.kind.startswith(("market:", "personal:"))


def felt_shock(event: CatalogEvent, investor: InvestorProfile | None = None) -> float:
    """The signed shock a persona feels from a catalog event, in [-1, 1] (rules in the module docstring);
    without an investor, the shock at full exposure (its sign is the same either way)."""
    weights = PERSONAL_WEIGHTS if event.type == "personal" else MARKET_WEIGHTS
    base = sum(w * getattr(event.shock, key) for key, w in weights.items())
    size = abs(base) * (1 + 0.5 * event.shock.uncertainty) * (0.5 + 0.1 * event.severity)
    size *= exposure(event, investor) if investor is not None else 1.0
    return round(math.copysign(min(1.0, size), base), 4) if base else 0.0


def exposure(event: CatalogEvent, investor: InvestorProfile) -> float:
    """How much of a market event reaches this persona: asset factor x region factor (module docstring)."""
    if event.type == "personal":
        return 1.0
    if BROAD_ASSETS & set(event.assets):
        assets = 1.0
    elif "crypto" in event.assets:
        assets = 0.3 + 0.7 * investor.risk_score
    else:
        assets = 0.8
    home = event.region == "global" or event.region in HOME_REGIONS.get(investor.region, ())
    return round(assets * (1.0 if home else 0.75), 3)


def type_gain(rule_type: str, event: CatalogEvent, shock: float) -> float:
    """The signed gain of the type's rule for this event kind and shock sign."""
    table = PERSONAL_GAINS if event.type == "personal" else GAINS
    negative, positive = table[rule_type]
    return negative if shock < 0 else positive


def big_five_multiplier(big_five: dict[str, float], change: float) -> float:
    """Neuroticism amplifies cuts (conscientiousness damps them); openness and extraversion amplify raises."""
    if change < 0:
        value = 1 + 0.8 * (big_five["neuroticism"] - 0.5) - 0.2 * (big_five["conscientiousness"] - 0.5)
    elif change > 0:
        value = 1 + 0.6 * (big_five["openness"] - 0.5) + 0.3 * (big_five["extraversion"] - 0.5)
    else:
        value = 1.0
    return round(min(1.4, max(0.6, value)), 3)


def experience_factor(experience_years: int, same_sign_before: int) -> float:
    """Damping from years of investing and from earlier events of the same valence (at least 0.4)."""
    return round(max(0.4, 1 / (1 + 0.02 * min(experience_years, 30) + 0.15 * same_sign_before)), 3)


def raw_delta(gain: float, shock: float, multiplier: float, factor: float) -> float:
    """The rule's change in risk before clamping: capped at 0.4 and rounded to 5-point steps."""
    size = min(MAX_DELTA, abs(gain * shock) * multiplier * factor * SCALE)
    return round(STEP * math.floor(size / STEP + 0.5), 2)


def evolution_type(direction: str, shock: float, delta: float, personal: bool) -> str:
    """How the preference evolves, by the rule in the module docstring (a retreat is a big cut)."""
    if direction == "hold":
        return "steady_hold"
    if direction == "decrease":
        return "shock_retreat" if shock < 0 and delta >= RETREAT - 1e-9 else "cautious_drift"
    return "windfall_expansion" if personal and shock > 0 else "opportunistic_increase"


def allowed_evolutions(constraint: ImpactConstraint, personal: bool) -> set[str]:
    """Evolution types consistent with the constraint's direction and shock."""
    if constraint.direction == "hold":
        return {"steady_hold"}
    if constraint.direction == "decrease":
        return {evolution_type("decrease", constraint.shock, constraint.delta, personal)}
    return {"opportunistic_increase"} | ({"windfall_expansion"} if personal and constraint.shock > 0 else set())


def forbidden_biases(rule_type: str, direction: str) -> list[str]:
    """Biases the narration may not show: by direction and by the acting type."""
    return sorted(set(DIRECTION_FORBIDS[direction]) | set(TYPE_FORBIDS[rule_type]))


def action_phrase(direction: str, before: int, after: int, responses: list[str], shock: float = -1.0,
                  forbidden: tuple[str, ...] | list[str] = ()) -> str:
    """What the persona does: the allocation change, plus a typical response that goes the same way."""
    core = {"decrease": f"cut stocks from {before}% to {after}%",
            "increase": f"raised stocks from {before}% to {after}%",
            "hold": f"kept stocks at {before}%"}[direction]
    if direction == "hold":
        return core
    big = abs(after - before) >= round(RETREAT * 100)
    match = next((r for r in responses if response_fits(r, direction, shock, big, forbidden)), None)
    return f"{core} and {match.strip().rstrip('.')}" if match else core


def response_fits(response: str, direction: str, shock: float, big: bool, forbidden) -> bool:
    """True when a typical response goes the action's way and claims no more than the change (docstring)."""
    text = f" {response.lower()} "
    if _direction_of(response) != direction or any(w in text for w in (" all ", " everything", " entire")):
        return False
    if "dip" in text and shock >= 0:
        return False
    return "panic" not in text or (big and "panic_selling" not in forbidden)


def _direction_of(response: str) -> str | None:
    """The stock move a typical response describes (buying safe assets is a cut), or None when unclear."""
    text = response.lower()
    if any(word in text for word in _SAFE):
        sale = re.search(r"\b(?:sold|drew down)\b(.*?)(?:\b(?:into|to|for|at)\b|$)", text)
        if sale:
            return None if any(word in sale.group(1) for word in _SAFE) else "decrease"
        buys = ("bought", "added", "moved", "into", "raised", "put", "built", "kept", "parked")
        return "decrease" if any(v in text for v in buys) else None
    hits = [d for d, verbs in _VERBS.items() if any(v in text for v in verbs)]
    return hits[0] if len(hits) == 1 else None


def build_constraint(*, persona_id: str, number: int, event_id: str, investor: InvestorProfile,
                     event: CatalogEvent, date: dt.date, risk_before: float, history: list[Event],
                     memory_ref: str | None, shock_severity: int) -> ImpactConstraint:
    """Layer 1: the deterministic ImpactConstraint of one event for one persona."""
    shock = felt_shock(event, investor)
    rule = acting_type(investor)
    gain = type_gain(rule, event, shock)
    valence = "negative" if shock < 0 else "positive"
    same = sum(1 for e in history if is_impact_event(e) and e.valence == valence)
    multiplier = big_five_multiplier(investor.big_five, gain * shock)
    factor = experience_factor(investor.experience_years, same)
    step = raw_delta(gain, shock, multiplier, factor)
    signed = step if gain * shock > 0 else -step
    after = round(min(RISK_CAP, max(RISK_FLOOR, risk_before + signed)), 2)
    delta = round(abs(after - risk_before), 2)
    direction = "hold" if delta == 0 else ("increase" if after > risk_before else "decrease")
    forbidden = forbidden_biases(rule, direction)
    return ImpactConstraint(
        constraint_id=f"{persona_id}-ic{number:04d}", persona_id=persona_id, event_id=event_id,
        catalog_id=event.catalog_id, date=date, bit_type=investor.bit_type, anti_typical=investor.anti_typical,
        severity=event.severity, shock=shock, big_five_multiplier=multiplier, experience_factor=factor,
        memory_ref=memory_ref, risk_before=risk_before, direction=direction, delta=delta,
        delta_min=round(0.8 * delta, 3), delta_max=round(1.2 * delta, 3) if delta else HOLD_MAX,
        risk_after=after,
        evolution_type=evolution_type(direction, shock, delta, event.type == "personal"),
        forbidden_biases=forbidden,
        action=action_phrase(direction, allocation(risk_before), allocation(after), event.typical_responses,
                             shock, forbidden),
    )


def fact_phrases(constraint: ImpactConstraint) -> list[str]:
    """Phrases a narration must contain: the action, the new work status (job loss, new job, retirement),
    and after a change the new allocation and risk band."""
    phrases = [constraint.action]
    if constraint.catalog_id in WORK_STATUS:
        phrases.append(WORK_STATUS[constraint.catalog_id][0])
    if constraint.direction != "hold":
        phrases.append(allocation_phrase(allocation(constraint.risk_after)))
        if risk_band(constraint.risk_after) != risk_band(constraint.risk_before):
            phrases.append(band_phrase(constraint.risk_after))
    return phrases


def band_phrase(risk: float) -> str:
    """`moderate risk tolerance`: how texts state the risk-tolerance fact."""
    return f"{risk_band(risk)} risk tolerance"


def is_personal(constraint: ImpactConstraint) -> bool:
    """True when the constraint's catalog event is a personal one (job loss, inheritance, ...)."""
    from tasks.domains.finance import catalog

    try:
        return catalog.event(constraint.catalog_id).type == "personal"
    except catalog.CatalogError:
        return False


def check_narration(narration: ImpactNarration, constraint: ImpactConstraint) -> str | None:
    """Layer 3: the first problem of a narration against its constraint, or None when it passes."""
    if narration.risk_direction != constraint.direction:
        return (f"risk_direction is {narration.risk_direction!r} but the rules set {constraint.direction!r}; "
                f"the reaction must {constraint.direction} risk")
    low, high = constraint.delta_min * (1 - TOLERANCE), constraint.delta_max * (1 + TOLERANCE)
    if not low - 1e-9 <= narration.risk_change <= high + 1e-9:
        return f"risk_change {narration.risk_change} is outside [{low:.3f}, {high:.3f}]; use {constraint.delta}"
    unknown = sorted(set(narration.biases) - set(BIASES))
    if unknown:
        return f"unknown biases {unknown}; choose from {list(BIASES)}"
    banned = sorted(set(narration.biases) & set(constraint.forbidden_biases))
    if banned:
        return f"the reaction may not show {banned} (forbidden: {constraint.forbidden_biases})"
    allowed = allowed_evolutions(constraint, is_personal(constraint))
    if narration.evolution_type not in allowed:
        return (f"evolution_type {narration.evolution_type!r} is inconsistent with the shock; "
                f"use one of {sorted(allowed)}")
    missing = [p for p in fact_phrases(constraint) if not mentions(narration.narrative, p)]
    if missing:
        return "the narrative must contain these phrases verbatim: " + "; ".join(f'"{p}"' for p in missing)
    return None


@hard_check("impact_reaction")
def reaction_check(output: ImpactNarration, context: dict) -> str | None:
    """Layer 3 as the gateway's hard check, so live models get the problem back for repair."""
    return check_narration(output, ImpactConstraint.model_validate(context["constraint"]))


def fallback_narrative(constraint: ImpactConstraint, title: str, memory: str) -> str:
    """The rule-written template narrative used after three failed narrations (confidence 0.2)."""
    feel = "It shook me" if constraint.shock < 0 else "It felt like good news"
    parts = [f"{feel} when {title} happened."]
    if memory:
        parts.append(f"It brought back how I {memory}.")
    if constraint.catalog_id in WORK_STATUS:
        parts.append(WORK_STATUS[constraint.catalog_id][1])
    parts.append(f"So I {constraint.action}.")
    if constraint.direction != "hold":
        after = allocation_phrase(allocation(constraint.risk_after))
        parts.append(f"That leaves me with {after} and a {band_phrase(constraint.risk_after)}.")
    return " ".join(parts)
