"""A hand-built tiny persona and world for testing the corpus stages without the simulator.

Maya Okafor (America/New_York) over ten days, 2024-03-01..10 (DST starts on 03-10):
- baseline e0000: city Boston, employer Brightwave Labs, brother Daniel Okafor lives in Chicago,
  manager Daniel Reyes lives in Denver (two relations share the first name Daniel);
- e0001 03-02 adopt a rescue dog named Biscuit (pet = Biscuit);
- e0002 03-04 start a pottery class at Clay Studio (weekly_class, a scheduling fact);
- e0003 03-06 move to a flat in Cambridge (city Boston -> Cambridge: a modification);
- e0004 03-06 ask for a raise at Brightwave Labs (negative: raise declined);
- e0005 03-09 help Daniel Okafor move to Austin (Daniel Okafor's city Chicago -> Austin).
"""

from __future__ import annotations

import datetime as dt

from schemas.config import BuildConfig, ProviderConfig
from schemas.profile import (
    Belonging,
    BigFive,
    CommunicationStyle,
    CurrentStatus,
    Identity,
    Persona,
    Personality,
    Profile,
    Relationship,
    Traits,
)
from schemas.world import Event, Fact, Plan, World
from tasks.llm.gateway import Gateway

PID = "p0001"
START = dt.date(2024, 3, 1)


def make_config(**overrides) -> BuildConfig:
    """A ten-day config in which every event yields an email."""
    data = {
        "name": "unit",
        "seed": 11,
        "personas": 1,
        "start_date": START,
        "days": 10,
        "stages": {"sources": {"email_probability": 1.0, "chunk_tokens": 40}},
    }
    data.update(overrides)
    return BuildConfig.model_validate(data)


def make_gateway() -> Gateway:
    """An offline gateway with an in-memory cache."""
    return Gateway(ProviderConfig())


def make_persona(formality: float = 0.3, emoji: bool = True) -> Persona:
    """Maya Okafor, a casual, emoji-using designer in Boston."""
    style = CommunicationStyle(
        formality=formality, verbosity=0.6, emoji=emoji, vocabulary=["honestly", "lowkey"]
    )
    personality = Personality(
        inner_character="curious and warm",
        behaviour_patterns=["plans ahead"],
        ideals=["kindness"],
        mbti="ENFP",
        big_five=BigFive(
            openness=0.8, conscientiousness=0.6, extraversion=0.7, agreeableness=0.8, neuroticism=0.3
        ),
        communication=style,
    )
    profile = Profile(
        identity=Identity(
            name="Maya Okafor",
            age=31,
            gender="female",
            occupation="product designer",
            employer="Brightwave Labs",
            city="Boston",
            country="USA",
            timezone="America/New_York",
            education="BA Design",
            income_band="middle",
        ),
        personality=personality,
        traits=Traits(hobbies=["ceramics"], preferences={"food": "ramen"}, lifestyle="active"),
        relationships=[
            Relationship(name="Daniel Okafor", role="brother"),
            Relationship(name="Daniel Reyes", role="manager"),
            Relationship(name="Priya Shah", role="friend"),
        ],
        belongings=[Belonging(name="Honda Fit", kind="car")],
        current_status=CurrentStatus(health="good", mood="upbeat", ongoing_matters=["flat hunting"]),
    )
    return Persona(
        persona_id=PID,
        name="Maya Okafor",
        seed_text="a designer in Boston",
        domain="general",
        profile=profile,
    )


def day(n: int) -> dt.date:
    return START + dt.timedelta(days=n - 1)


def fact(
    n: int,
    event: int,
    subject: str,
    attribute: str,
    value: str,
    start: int,
    forms: list[str],
    end: int | None = None,
) -> Fact:
    return Fact(
        fact_id=f"{PID}-f{n:04d}",
        persona_id=PID,
        event_id=f"{PID}-e{event:04d}",
        subject=subject,
        attribute=attribute,
        value=value,
        valid_from=day(start),
        valid_to=day(end) if end else None,
        surface_forms=forms,
    )


def event(n: int, on: int, title: str | None, valence: str = "positive", severity: int = 2) -> Event:
    return Event(
        event_id=f"{PID}-e{n:04d}",
        persona_id=PID,
        date=day(on),
        plan_id=f"{PID}-pl{n:04d}" if title else None,
        kind="baseline" if title is None else "life_event",
        valence=valence,
        severity=severity,
        critical=False,
        narrative=f"Maya set out to {title}." if title else "Initial state.",
    )


PLANS = {
    1: "adopt a rescue dog named Biscuit",
    2: "start a pottery class at Clay Studio",
    3: "move to a flat in Cambridge",
    4: "ask for a raise at Brightwave Labs",
    5: "help Daniel Okafor move to Austin",
}


def make_world() -> World:
    """The ten-day world described in the module docstring."""
    plans = [
        Plan(
            plan_id=f"{PID}-pl{n:04d}",
            persona_id=PID,
            created_on=day(1),
            horizon="short",
            scheduled_for=day(on),
            title=PLANS[n],
            kind="life_event",
        )
        for n, on in [(1, 2), (2, 4), (3, 6), (4, 6), (5, 9)]
    ]
    events = [
        event(0, 1, None),
        event(1, 2, PLANS[1]),
        event(2, 4, PLANS[2]),
        event(3, 6, PLANS[3]),
        event(4, 6, PLANS[4], valence="negative", severity=3),
        event(5, 9, PLANS[5]),
    ]
    facts = [
        fact(1, 0, "Maya Okafor", "city", "Boston", 1, ["Boston"], end=6),
        fact(2, 0, "Maya Okafor", "employer", "Brightwave Labs", 1, ["Brightwave Labs", "Brightwave"]),
        fact(3, 0, "Daniel Okafor", "city", "Chicago", 1, ["Chicago"], end=9),
        fact(4, 0, "Daniel Reyes", "city", "Denver", 1, ["Denver"]),
        fact(5, 1, "Maya Okafor", "pet", "Biscuit", 2, ["Biscuit", "rescue dog"]),
        fact(
            6, 2, "Maya Okafor", "weekly_class", "pottery at Clay Studio", 4, ["Clay Studio", "pottery class"]
        ),
        fact(7, 3, "Maya Okafor", "city", "Cambridge", 6, ["Cambridge"]),
        fact(8, 4, "Maya Okafor", "raise_request", "declined", 6, ["raise was declined", "declined"]),
        fact(9, 5, "Daniel Okafor", "city", "Austin", 9, ["Austin"]),
    ]
    return World(plans=plans, events=events, facts=facts, profile_ops=[], profile_snapshots=[])


def make_corpus(
    config: BuildConfig | None = None, persona: Persona | None = None, world: World | None = None
):
    """Run sources and dialogue on the fixture; returns the merged Corpus."""
    from schemas.corpus import Corpus
    from tasks.dialogue.stage import write_dialogue
    from tasks.sources.stage import write_emails

    config, persona, world = config or make_config(), persona or make_persona(), world or make_world()
    gateway = make_gateway()
    docs = write_emails(config, persona, world, gateway)
    talk = write_dialogue(config, persona, world, docs.documents, gateway, docs.chunks)
    return Corpus(
        documents=docs.documents,
        chunks=docs.chunks,
        bullets=talk.bullets,
        sessions=talk.sessions,
        turns=talk.turns,
        mentions=talk.mentions,
    )
