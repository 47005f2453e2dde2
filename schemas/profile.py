"""The six-dimension persona profile (RHELM): identity, personality, traits, relationships,
belongings and current status. Strict models: unknown keys are rejected, so the generated JSON
schema is the contract an LLM must fill."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Identity(_Strict):
    name: str
    age: int = Field(ge=18, le=100)
    gender: str
    occupation: str
    employer: str
    city: str
    country: str
    timezone: str = Field(description="IANA time zone name, e.g. Europe/Lisbon")
    education: str
    income_band: str


class BigFive(_Strict):
    openness: float = Field(ge=0, le=1)
    conscientiousness: float = Field(ge=0, le=1)
    extraversion: float = Field(ge=0, le=1)
    agreeableness: float = Field(ge=0, le=1)
    neuroticism: float = Field(ge=0, le=1)


class CommunicationStyle(_Strict):
    formality: float = Field(ge=0, le=1, description="0 casual, 1 formal")
    verbosity: float = Field(ge=0, le=1, description="0 terse, 1 expansive")
    emoji: bool
    vocabulary: list[str] = Field(description="words and phrases this person tends to use")


class Personality(_Strict):
    inner_character: str
    behaviour_patterns: list[str]
    ideals: list[str]
    mbti: str = Field(pattern=r"^[EI][SN][TF][JP]$")
    big_five: BigFive
    communication: CommunicationStyle


class Traits(_Strict):
    hobbies: list[str]
    preferences: dict[str, str] = Field(description="preference kind -> liked thing")
    lifestyle: str


class Relationship(_Strict):
    name: str
    role: str = Field(description="e.g. sister, colleague, manager, friend")
    attributes: dict[str, str] = Field(default_factory=dict)


class Belonging(_Strict):
    name: str
    kind: str
    attributes: dict[str, str] = Field(default_factory=dict)


class CurrentStatus(_Strict):
    health: str
    mood: str
    ongoing_matters: list[str]


class Profile(_Strict):
    identity: Identity
    personality: Personality
    traits: Traits
    relationships: list[Relationship]
    belongings: list[Belonging]
    current_status: CurrentStatus


class Persona(_Strict):
    persona_id: str
    name: str
    seed_text: str
    domain: str
    profile: Profile
    attributes: dict[str, Any] = Field(
        default_factory=dict,
        description="what the domain pack sampled for this persona (finance: investor type, wealth, horizon, ...)",
    )

    def table_rows(self) -> dict[str, list]:
        """The rows this persona lands, by table."""
        return {"personas": [self]}
