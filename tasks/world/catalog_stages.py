"""Life-stage event kinds, merged into tasks/world/catalog.py's KINDS: what ages bring (tasks/world/ages.py).

They are `scheduled`: never drawn among the day's plans nor planned at a yearly rate; the simulator plans each on
its own day (a birthday, the first day of a school year, the month after a parent's 65th birthday) from the dates
of birth tasks/world/ages.py draws. Both outcomes take place and state the same change (a birthday comes whether
or not the party does): the negative one is a quiet birthday, a tearful first day, a low-key send-off.

Their draws make an entity from a profile alone (the next birthday of the persona, or of one of their people), for
narrators and tests; the simulator passes the entity tasks/world/ages.py computed.
"""

from __future__ import annotations

import random
from typing import Any

from tasks.world import ages
from tasks.world.eventkinds import Entity, EventKind, Outcome, fs, tags

_AGE = ("age", "{age} years old", "turned {age}")


def _people(profile: dict[str, Any], roles: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in profile["relationships"] if r["role"] in roles] or list(profile["relationships"])


def draw_birthday(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The persona's next birthday."""
    years = profile["identity"]["age"] + 1
    return {"age": str(years), "ordinal": ages.ordinal(years)}


def draw_family_birthday(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A child's or a parent's next birthday (their age in the profile, else a plausible one)."""
    person = rng.choice(_people(profile, ages.CHILD_ROLES | ages.PARENT_ROLES))
    known = person.get("attributes", {}).get("age", "")
    years = int(known) + 1 if known.isdigit() else rng.randint(4, 12)
    return {"person": person["name"], "relation": person["role"], "age": str(years), "ordinal": ages.ordinal(years)}


def draw_school(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A child's first day at a school."""
    person = rng.choice(_people(profile, ages.CHILD_ROLES))
    level = rng.choice(("primary", "secondary"))
    bank = ages.PRIMARY_SCHOOLS if level == "primary" else ages.SECONDARY_SCHOOLS
    return {"person": person["name"], "relation": person["role"], "school": rng.choice(bank), "level": level}


def draw_retirement(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A parent's retirement."""
    person = rng.choice(_people(profile, ages.PARENT_ROLES))
    return {"person": person["name"], "relation": person["role"]}


STAGE_KINDS: list[EventKind] = [
    EventKind(
        "birthday", "celebrate turning {age}", draw_birthday,
        Outcome((fs(*_AGE, path="identity.age", writes="{age}"),)),
        Outcome((fs(*_AGE, path="identity.age", writes="{age}"),)),
        weight=0, long_share=1.0, cooldown=300, tags=tags("celebration"), scheduled=True,
    ),
    EventKind(
        "family_birthday", "celebrate {person}'s {ordinal} birthday", draw_family_birthday,
        Outcome((fs(*_AGE, subject="person", path="relationships[name={person}].attributes.age", writes="{age}"),)),
        Outcome((fs(*_AGE, subject="person", path="relationships[name={person}].attributes.age", writes="{age}"),)),
        weight=0, long_share=1.0, cooldown=0, tags=tags("celebration", "family"), scheduled=True,
    ),
    EventKind(
        "start_school", "take {person} to {school} for the first day", draw_school,
        Outcome((fs("school", "{school}", subject="person", path="relationships[name={person}].attributes.school"),)),
        Outcome((fs("school", "{school}", subject="person", path="relationships[name={person}].attributes.school"),)),
        weight=0, long_share=1.0, cooldown=0, tags=tags("family"), scheduled=True,
    ),
    EventKind(
        "parent_retires", "mark {person}'s retirement", draw_retirement,
        Outcome((fs("work_life", "retired", subject="person",
                    path="relationships[name={person}].attributes.work_life"),)),
        Outcome((fs("work_life", "retired", subject="person",
                    path="relationships[name={person}].attributes.work_life"),)),
        weight=0, long_share=1.0, cooldown=0, tags=tags("family"), scheduled=True,
    ),
]
