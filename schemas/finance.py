"""The finance domain pack's records (FinPerMA): investor attributes, the dated event catalog, the
Impact Model's constraint per persona and event, and the narration the model writes under it.

Risk is one number in [0, 1] (0: keeps everything in cash, 1: all-in on the riskiest assets); an
event moves it by a signed amount the Impact Model bounds. Everything here is data: the rules live in
tasks/domains/finance/.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BIT_TYPES = ("preserver", "follower", "independent", "accumulator")
"""Pompian's four Behavioral Investor Types."""
BitType = Literal["preserver", "follower", "independent", "accumulator"]
EVENT_TYPES = ("macro", "industry", "personal")
DIRECTIONS = ("decrease", "hold", "increase")
EVOLUTION_TYPES = ("shock_retreat", "cautious_drift", "steady_hold", "opportunistic_increase", "windfall_expansion")
"""How a preference evolves after an event: a sharp cut in risk after a negative shock, a small cut, no
change, a raise that buys a dip or follows a rally, a raise on new means (inheritance, promotion)."""
BIASES = (
    "loss_aversion", "herding", "overconfidence", "recency_bias", "anchoring", "disposition_effect",
    "mental_accounting", "status_quo_bias", "confirmation_bias", "panic_selling",
)
"""Behavioural biases a narration may show; a constraint forbids the ones its type and event rule out."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FinanceOptions(_Strict):
    """The finance pack's settings: `[pack]` in a config whose `domain = "finance"`."""

    events_min: int = Field(5, ge=1, description="fewest catalog events a persona lives through")
    events_max: int = Field(8, ge=1, description="most catalog events a persona lives through")
    min_gap_days: int = Field(28, ge=0, description="least days between two of a persona's catalog events")
    type_floor: float = Field(0.2, ge=0, le=0.25, description="least share of the corpus per investor type")
    anti_typical_share: float = Field(
        0.15, ge=0, le=0.5, description="share of personas whose own reactions contradict their type"
    )
    personal_share: float = Field(
        0.3, ge=0, le=1, description="share of a persona's catalog events that are personal (job loss, inheritance)"
    )
    shock_severity: int = Field(4, ge=1, le=5, description="events of at least this severity are shocks (critical)")


class InvestorProfile(_Strict):
    """What the pack samples for one persona (stored in `personas.attributes`)."""

    age: int = Field(ge=18, le=90)
    annual_income: int = Field(ge=0, description="USD per year")
    wealth: int = Field(ge=0, description="investable assets, USD")
    experience_years: int = Field(ge=0, le=70, description="years of investing")
    goals: list[str] = Field(min_length=1)
    horizon_years: int = Field(ge=1, le=50)
    big_five: dict[str, float] = Field(
        description="openness, conscientiousness, extraversion, agreeableness, neuroticism, each 0 to 1"
    )
    risk_score: float = Field(ge=0, le=1, description="initial risk preference")
    bit_type: BitType
    anti_typical: bool = Field(
        False, description="reactions contradict the type (the evidence, not the label, is right)"
    )
    region: str


class ShockCoefficients(_Strict):
    """How an event moves an investor, each in [-1, 1]: returns of equities and of safe assets, rates,
    personal income and wealth; `uncertainty` in [0, 1]."""

    equity: float = Field(0.0, ge=-1, le=1)
    safe_assets: float = Field(0.0, ge=-1, le=1)
    rates: float = Field(0.0, ge=-1, le=1)
    income: float = Field(0.0, ge=-1, le=1)
    wealth: float = Field(0.0, ge=-1, le=1)
    uncertainty: float = Field(0.0, ge=0, le=1)


class CatalogEvent(_Strict):
    """One event of the bundled catalog (tasks/domains/finance/data/events.jsonl)."""

    catalog_id: str = Field(pattern=r"^[a-z0-9_]+$")
    date: dt.date | None = Field(description="when it happened; None for a personal event, dated per persona")
    type: Literal["macro", "industry", "personal"]
    title: str
    assets: list[str] = Field(description="affected asset classes or domains: equities, bonds, crypto, housing, ...")
    region: str
    summary: str
    typical_responses: list[str] = Field(min_length=1)
    severity: int = Field(ge=1, le=5)
    shock: ShockCoefficients
    source: str = Field("", description="where the date and facts can be checked")


class ImpactConstraint(_Strict):
    """Layer 1 of the Impact Model: what one event may do to one persona's risk preference (deterministic),
    with layer 2's narration and layer 3's verdict. Table `impact_constraints`, one row per persona and
    catalog event."""

    constraint_id: str = Field(description="`<persona>-ic<NNNN>`")
    persona_id: str
    event_id: str
    catalog_id: str
    date: dt.date
    bit_type: BitType
    anti_typical: bool
    severity: int = Field(ge=1, le=5)
    shock: float = Field(description="signed shock the persona feels: negative hurts, positive helps")
    big_five_multiplier: float = Field(gt=0)
    experience_factor: float = Field(gt=0)
    memory_ref: str | None = Field(description="the earlier event (id) whose memory shapes this reaction")
    risk_before: float = Field(ge=0, le=1)
    direction: Literal["decrease", "hold", "increase"]
    delta: float = Field(ge=0, description="size of the risk change the rules set")
    delta_min: float = Field(ge=0)
    delta_max: float = Field(ge=0)
    risk_after: float = Field(ge=0, le=1)
    evolution_type: Literal["shock_retreat", "cautious_drift", "steady_hold", "opportunistic_increase",
                            "windfall_expansion"]
    forbidden_biases: list[str]
    action: str = Field(description="what the persona does, from the event's typical responses")
    narrative: str = Field("", description="layer 2: the persona's reaction in their words")
    attempts: int = Field(0, ge=0, description="narrations tried before one passed layer 3")
    confidence: float = Field(1.0, ge=0, le=1, description="1 when a narration passed; 0.2 for the template fallback")


class ImpactNarration(_Strict):
    """Output of the `impact_reaction` prompt (layer 2); layer 3 checks every field against the constraint."""

    narrative: str = Field(min_length=1, description="2-5 first-person sentences: the event, the feeling, the action")
    risk_direction: Literal["decrease", "hold", "increase"]
    risk_change: float = Field(ge=0, le=1, description="size of the change in risk preference, 0 to 1")
    evolution_type: Literal["shock_retreat", "cautious_drift", "steady_hold", "opportunistic_increase",
                            "windfall_expansion"]
    biases: list[str] = Field(default_factory=list, description="behavioural biases the reaction shows")
