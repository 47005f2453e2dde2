"""Offline narrator for the `profile` prompt: a full six-dimension profile from the seed hints.

It follows the structured hints (name, age, city, occupation, family, ...) and fills the rest from
the data banks with its RNG. Relationships hold 4-6 people with distinct roles, two of whom share a
first name (a colleague and a neighbour, say) so memory systems meet a near-duplicate entity.
"""

from __future__ import annotations

import random
from typing import Any

from tasks.llm.providers.offline import narrator
from tasks.world import banks

_FILLER_ROLES = ("best friend", "sister", "brother", "cousin", "mentor", "gym buddy", "old school friend")
_HOUSEHOLD = frozenset({"wife", "husband", "partner", "daughter", "son", "flatmate"})
_CONTACT = ("daily", "a few times a week", "weekly", "every other week", "monthly")


@narrator("profile")
def narrate_profile(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A Profile dict for the persona the hints describe."""
    hints = context["hints"]
    city = banks.CITY_BY_NAME.get(hints["city"]) or banks.City(
        hints["city"], hints["country"], hints["timezone"], "anglo"
    )
    identity = _identity(hints, city, rng)
    return {
        "identity": identity,
        "personality": _personality(hints["age"], rng),
        "traits": _traits(hints, rng),
        "relationships": _relationships(hints, identity, city, rng),
        "belongings": _belongings(rng),
        "current_status": {
            "health": rng.choice(("good", "good", "generally good", "mild hay fever")),
            "mood": rng.choice(banks.MOODS_GOOD),
            "ongoing_matters": rng.sample(banks.MATTERS, rng.randint(1, 2)),
        },
    }


def _identity(hints: dict[str, Any], city: banks.City, rng: random.Random) -> dict[str, Any]:
    occupation = next((o for o in banks.OCCUPATIONS if o.title == hints["occupation"]), None)
    if hints["occupation"].startswith("retired"):
        employer, education = (
            "retired",
            rng.choice(("teaching degree", "secondary school", "BA in Economics")),
        )
    elif occupation:
        employer, education = rng.choice(occupation.employers).format(city=city.name), occupation.education
    else:
        employer, education = rng.choice(("Greenleaf Partners", "Cedar Street Studio")), "bachelor's degree"
    return {
        "name": hints["name"],
        "age": hints["age"],
        "gender": hints["gender"],
        "occupation": hints["occupation"],
        "employer": employer,
        "city": city.name,
        "country": city.country,
        "timezone": city.timezone,
        "education": education,
        "income_band": hints["income_band"],
    }


def _personality(age: int, rng: random.Random) -> dict[str, Any]:
    big5 = {
        k: round(rng.uniform(0.1, 0.9), 2)
        for k in ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
    }
    mbti = "".join(
        a if big5[k] >= 0.5 else b
        for k, a, b in (
            ("extraversion", "E", "I"),
            ("openness", "N", "S"),
            ("agreeableness", "F", "T"),
            ("conscientiousness", "J", "P"),
        )
    )
    formality = round(min(0.95, rng.uniform(0.05, 0.7) + (0.25 if age >= 55 else 0.0)), 2)
    emoji = rng.random() < (0.7 if age < 40 and formality < 0.6 else 0.15)
    vocab = banks.VOCAB_FORMAL if formality >= 0.5 else banks.VOCAB_CASUAL
    return {
        "inner_character": rng.choice(banks.INNER_CHARACTERS),
        "behaviour_patterns": rng.sample(banks.BEHAVIOURS, 3),
        "ideals": rng.sample(banks.IDEALS, 2),
        "mbti": mbti,
        "big_five": big5,
        "communication": {
            "formality": formality,
            "verbosity": round(rng.uniform(0.1, 0.9), 2),
            "emoji": emoji,
            "vocabulary": rng.sample(vocab, 3),
        },
    }


def _traits(hints: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    parent = any(w in hints["family"] for w in ("children", "kids", "daughter", "son"))
    lifestyle = (
        "busy parent juggling schedules" if parent and hints["age"] < 60 else rng.choice(banks.LIFESTYLES)
    )
    return {
        "hobbies": rng.sample(banks.HOBBIES, 3),
        "preferences": {
            "food": rng.choice(banks.FOODS),
            "music": rng.choice(banks.MUSIC),
            "drink": rng.choice(banks.DRINKS),
        },
        "lifestyle": lifestyle,
    }


def _family_roles(hints: dict[str, Any], rng: random.Random) -> list[str]:
    family, roles = hints["family"], []
    if "married" in family and "widowed" not in family and "divorced" not in family:
        roles.append(rng.choice(("wife", "husband")))
    if "relationship" in family or "expecting" in family and not roles:
        roles.append("partner")
    if "divorced" in family and rng.random() < 0.5:
        roles.append("ex-partner")
    roles += [r for r in ("daughter", "son") if r in family]
    if ("children" in family or "kids" in family) and not {"daughter", "son"} & set(roles):
        roles.append(rng.choice(("daughter", "son")))
    roles += ["granddaughter"] if "grandchildren" in family else []
    roles += ["mother"] if "parents" in family else []
    roles += ["flatmate"] if "flatmate" in family else []
    return roles


def _relationships(
    hints: dict[str, Any], identity: dict[str, Any], city: banks.City, rng: random.Random
) -> list[dict[str, Any]]:
    working = not identity["occupation"].startswith("retired")
    student = identity["occupation"] == "university student"
    pair = ("classmate" if student else "colleague" if working else "old friend", "neighbour")
    total = rng.randint(4, 6)
    roles = [r for r in _family_roles(hints, rng) if r not in pair][: total - 3]
    roles += [r for r in rng.sample(_FILLER_ROLES, len(_FILLER_ROLES)) if r not in roles][
        : total - 2 - len(roles)
    ]
    given, surname = identity["name"].split(" ", 1)
    used = {given}
    people = [_person(role, surname, city, used, rng) for role in roles]
    shared = rng.choice([n for n in banks.SHARED_FIRST_NAMES if n not in used])
    surnames = rng.sample([s for r in banks.SURNAMES.values() for s in r if s != surname], 2)
    for role, last in zip(pair, surnames, strict=True):
        attrs = (
            {"works_at": identity["employer"]}
            if role in ("colleague", "classmate")
            else {"lives_in": city.name}
        )
        people.append(
            {
                "name": f"{shared} {last}",
                "role": role,
                "attributes": attrs | {"contact": rng.choice(_CONTACT)},
            }
        )
    rng.shuffle(people)
    return people


def _person(role: str, surname: str, city: banks.City, used: set[str], rng: random.Random) -> dict[str, Any]:
    female = role in ("wife", "daughter", "granddaughter", "mother", "sister") or (
        role not in ("husband", "son", "brother") and rng.random() < 0.5
    )
    kin = role in ("daughter", "son", "granddaughter", "mother", "sister", "brother")
    region = city.region if kin or rng.random() < 0.8 else rng.choice(sorted(banks.GIVEN_NAMES))
    options = [n for n in banks.GIVEN_NAMES[region]["female" if female else "male"] if n not in used]
    first = rng.choice(options)
    used.add(first)
    last = surname if kin else rng.choice([s for s in banks.SURNAMES[region] if s != surname])
    home = city.name if role in _HOUSEHOLD or rng.random() < 0.7 else rng.choice(banks.CITIES).name
    return {
        "name": f"{first} {last}",
        "role": role,
        "attributes": {"lives_in": home, "contact": rng.choice(_CONTACT)},
    }


def _belongings(rng: random.Random) -> list[dict[str, Any]]:
    home_kind = rng.choice(("flat", "house", "studio flat"))
    address = f"{rng.randint(2, 98)} {rng.choice(banks.STREETS)}"
    items = [
        {
            "name": f"{home_kind} at {address}",
            "kind": "home",
            "attributes": {"since": str(rng.randint(2008, 2023))},
        }
    ]
    treasure, kind = rng.choice(banks.TREASURES)
    items.append(
        {"name": treasure, "kind": kind, "attributes": {"condition": rng.choice(("well loved", "like new"))}}
    )
    if kind != "vehicle" and rng.random() < 0.4:
        items.append({"name": rng.choice(banks.VEHICLES)[0], "kind": "vehicle", "attributes": {}})
    return items
