"""Companion tracks (RealCompanion): chat probes with memory-need labels, and profile reconstruction.

A chat probe is a user turn taken verbatim from the generated dialogue, labelled from the simulation's
ground truth with the context it needs (recent-window turns, earlier episode turns, profile facts, each
earlier than the probe), a tier computed from that context's shape, a category by rule, a stratum and a
gold reply conditioned on that context only. A profile claim is one evidenced statement about the
persona (the reconstruction track's gold file); the portrait is the same knowledge in fixed slots.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

TIERS = ("basic", "intermediate", "hard", "edge")
STRATA = ("proportional", "enriched", "abstention")
PROBE_CATEGORIES = ("no_memory", "recent_followup", "episodic_callback", "state_update", "profile_grounded")
TEMPORALITIES = ("stable", "event", "transient")
PORTRAIT_SLOTS = (
    "identity", "work", "home", "relationships", "interests", "possessions", "health", "current_matters",
    "communication",
)
PHASES = ("referent", "verification", "tier", "gold_reply", "ship_check")
"""The derivation trace's phases, in the order a probe is built."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatProbe(_Row):
    """One chat-track item. Table `chat_probes`."""

    probe_id: str = Field(description="`<persona>-cp<NNNN>`")
    persona_id: str
    turn_id: str = Field(description="the user turn the probe is, verbatim")
    session_id: str
    probe_time: dt.datetime = Field(description="the turn's timestamp; every cited id precedes it")
    text: str = Field(description="the turn's text, unchanged")
    stratum: Literal["proportional", "enriched", "abstention"]
    memory_need: bool = Field(description="the probe needs something from outside its recent window")
    tier: Literal["basic", "intermediate", "hard", "edge"]
    category: Literal["no_memory", "recent_followup", "episodic_callback", "state_update", "profile_grounded"]
    window: int = Field(ge=0, description="turns before the probe that count as its recent window")
    required_recent: list[str] = Field(default_factory=list, description="turn ids inside the recent window")
    required_episodes: list[str] = Field(default_factory=list, description="earlier turn ids outside the window")
    required_facts: list[str] = Field(default_factory=list, description="fact ids the probe depends on")
    cold_open: bool = Field(description="the probe opens a session and needs nothing: no gold reply is owed")
    gold_reply: str = Field(
        "", description="the reply a memory-perfect assistant gives, from the required context only"
    )
    distance_days: float | None = Field(None, description="days from the earliest required episode turn to the probe")
    derivation: dict[str, Any] = Field(description="{'phases': [...]} recorded as the probe was built")


class ProfileClaim(_Row):
    """One evidenced claim of the reconstruction track's gold profile. Table `profile_claims`."""

    claim_id: str = Field(description="`<persona>-pc<NNNN>`")
    persona_id: str
    slot: Literal["identity", "work", "home", "relationships", "interests", "possessions", "health",
                  "current_matters", "communication"]
    subject: str
    attribute: str
    value: str
    text: str = Field(description="the claim as a sentence")
    fact_ids: list[str] = Field(default_factory=list)
    evidence_turn_ids: list[str] = Field(min_length=1, description="user turns that express the claim")
    first_seen: dt.datetime
    last_seen: dt.datetime
    temporality: Literal["stable", "event", "transient"]
    confidence: float = Field(ge=0, le=1)
    as_of: dt.date = Field(description="the profile's date: claims hold then (superseded values are left out)")


class PortraitSlot(_Row):
    """One fixed slot of a persona's portrait. Table `persona_portraits`, one row per persona and slot."""

    persona_id: str
    slot: Literal["identity", "work", "home", "relationships", "interests", "possessions", "health",
                  "current_matters", "communication"]
    text: str = Field(description="what the evidence says for this slot; empty when it says nothing")
    claim_ids: list[str] = Field(default_factory=list)
    as_of: dt.date


class CompanionSet(_Row):
    """The companion stage's output for one persona."""

    probes: list[ChatProbe] = Field(default_factory=list)
    claims: list[ProfileClaim] = Field(default_factory=list)
    portrait: list[PortraitSlot] = Field(default_factory=list)

    def table_rows(self) -> dict[str, list]:
        """The rows the companion tracks land, by table."""
        return {"chat_probes": self.probes, "profile_claims": self.claims, "persona_portraits": self.portrait}


class GoldReply(BaseModel):
    """Output of the `companion_reply` prompt: the assistant's reply to a probe, given only its context."""

    model_config = ConfigDict(extra="forbid")
    reply: str = Field(min_length=1)
