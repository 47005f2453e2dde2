"""The symbolic world: plans, rolled-out events, facts with valid-time intervals, profile changes."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Plan(_Row):
    plan_id: str
    persona_id: str
    created_on: dt.date
    horizon: Literal["short", "long"]
    scheduled_for: dt.date
    title: str
    kind: str = Field(description="event template key the plan instantiates")
    entity: dict[str, str] = Field(
        default_factory=dict, description="the concrete entity the plan names, by template field"
    )
    blocked_by: str | None = Field(
        None, description="the constraint that cancelled this plan before it could roll out, if any"
    )


class Event(_Row):
    event_id: str
    persona_id: str
    date: dt.date
    plan_id: str | None = Field(None, description="the plan this event rolled out; None for the baseline event")
    kind: str
    valence: Literal["positive", "negative"]
    severity: int = Field(ge=1, le=5)
    critical: bool
    narrative: str


class Fact(_Row):
    """A typed statement about the world, true from valid_from until valid_to (exclusive; None = still true)."""

    fact_id: str
    persona_id: str
    event_id: str
    subject: str
    attribute: str
    value: str
    valid_from: dt.date
    valid_to: dt.date | None = None
    surface_forms: list[str] = Field(description="strings whose presence in a text shows it carries the fact")


class ProfileOp(_Row):
    op_id: str
    persona_id: str
    date: dt.date
    event_id: str
    phase: Literal["factual", "state", "prune"]
    op: Literal["add", "modify", "remove"]
    path: str
    old_value: str | None = None
    new_value: str | None = None


class Constraint(_Row):
    """A lasting restriction a critical event imposes (e.g. no running for six weeks), valid_to exclusive."""

    constraint_id: str
    persona_id: str
    event_id: str
    kind: str = Field(description="what it restricts, e.g. no_running, tight_budget")
    description: str
    blocks: list[str] = Field(description="event-kind tags a plan may not carry while the constraint holds")
    valid_from: dt.date
    valid_to: dt.date


class WorldEntity(_Row):
    """A named person, place, organisation or item in the persona's world."""

    entity_id: str
    persona_id: str
    kind: Literal["person", "place", "organisation", "item"]
    name: str
    role: str = Field(description="how the entity relates to the persona: colleague, cafe, employer, ...")
    attributes: dict[str, str] = Field(default_factory=dict)
    first_seen: dt.date
    near_duplicate_of: str | None = Field(None, description="entity_id of a deliberately confusable entity")


class ProfileSnapshot(_Row):
    persona_id: str
    as_of: dt.date
    profile: dict[str, Any]


class World(_Row):
    """Everything the LOOP simulator produced for one persona."""

    plans: list[Plan]
    events: list[Event]
    facts: list[Fact]
    profile_ops: list[ProfileOp]
    profile_snapshots: list[ProfileSnapshot]
    constraints: list[Constraint] = Field(default_factory=list)
    entities: list[WorldEntity] = Field(default_factory=list)
    extras: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="rows of the domain pack's own tables, by table name (finance: impact_constraints)",
    )

    def table_rows(self) -> dict[str, list]:
        """The rows this world lands, by table (the domain pack's `extras` land by their own table names)."""
        return {"profile_snapshots": self.profile_snapshots, "profile_ops": self.profile_ops, "plans": self.plans,
                "events": self.events, "facts": self.facts, "constraints": self.constraints,
                "entities": self.entities}


class EventNarration(BaseModel):
    """Output model of the `outcome` prompt: the first-person narrative of one event."""

    model_config = ConfigDict(extra="forbid")

    narrative: str = Field(min_length=1, description="2-4 sentences in the persona's voice stating the facts")
