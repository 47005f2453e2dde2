"""The named entities of a persona's world: people, places, organisations and items.

`standing_world` decides, once per persona, the entities that recur across routines (two colleagues
who share a first name, for entity-disambiguation questions). `collect_entities` lists every entity
the world holds: those of the initial profile, the standing ones, and each one a plan names (cafes,
restaurants, gyms, doctors, schools, companies, vehicles, pets), with the date it was first seen and
a link to a deliberately confusable entity (same first name; a place whose name shares a word).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from schemas.world import Plan, WorldEntity
from tasks.world import banks
from tasks.world.ontology import ATTRIBUTES

TEAMS = ("accounts", "logistics", "front desk", "night shift", "sales", "maintenance", "the kitchen", "IT")
ENTITY_FIELDS: dict[str, tuple[str, str]] = {
    "cafe": ("place", "cafe"),
    "restaurant": ("place", "restaurant"),
    "gym": ("place", "gym"),
    "venue": ("place", "venue"),
    "market": ("place", "shop"),
    "school": ("organisation", "school"),
    "org": ("organisation", "volunteering"),
    "company": ("organisation", "prospective employer"),
    "doctor": ("person", "doctor"),
    "colleague": ("person", "colleague"),
    "date_name": ("person", "date"),
    "new_name": ("person", "friend"),
    "vehicle": ("item", "vehicle"),
    "pet_name": ("item", "pet"),
}
NO_EMPLOYER = ATTRIBUTES["employer"].vacant
_GENERIC = frozenset({"the", "cafe", "café", "coffee", "club", "gym", "house", "bar", "studio", "and", "of", "at"})


def standing_world(rng: random.Random, profile: dict[str, Any], start: dt.date) -> dict[str, Any]:
    """Entities that recur in routines: two colleagues at the persona's employer with the same first name and
    different teams (a planted pair; a later job's colleagues are named as anyone met is, `new_colleagues`).
    `colleagues` are the current employer's; `sets` every employer's, with the day they began."""
    colleagues = _colleague_pair(rng, profile, set())
    employer = profile["identity"]["employer"]
    return {"colleagues": colleagues, "employer": employer, "sets": [(employer, start, colleagues)]}


def new_colleagues(rng: random.Random, profile: dict[str, Any], standing: dict[str, Any],
                   day: dt.date) -> dict[str, Any]:
    """The standing world after the persona's employer changed on `day`: a new job brings new colleagues (none
    while they have no employer); the former ones stay in `sets`."""
    employer = profile["identity"]["employer"]
    colleagues = [] if employer in NO_EMPLOYER else _new_colleagues(rng, profile)
    return {"colleagues": colleagues, "employer": employer, "sets": [*standing["sets"], (employer, day, colleagues)]}


def _colleague_pair(rng: random.Random, profile: dict[str, Any], taken: set[str]) -> list[tuple[str, str]]:
    used = {r["name"].split()[0] for r in profile["relationships"]} | {profile["identity"]["name"].split()[0]}
    shared = rng.choice([n for n in banks.SHARED_FIRST_NAMES if n not in used | taken] or banks.SHARED_FIRST_NAMES)
    surnames = rng.sample([s for group in banks.SURNAMES.values() for s in group], 2)
    teams = rng.sample(TEAMS, 2)
    return [(f"{shared} {s}", t) for s, t in zip(surnames, teams, strict=True)]


def _new_colleagues(rng: random.Random, profile: dict[str, Any]) -> list[tuple[str, str]]:
    """The two colleagues a new job brings, named as people the persona meets are (`banks.local_given_name`), so
    one may share a first name with someone they already know: confusable entities that come from the life."""
    surnames = rng.sample([s for group in banks.SURNAMES.values() for s in group], 2)
    return [(f"{banks.local_given_name(rng, profile)} {s}", t)
            for s, t in zip(surnames, rng.sample(TEAMS, 2), strict=True)]


def collect_entities(persona_id: str, profile: dict[str, Any], standing: dict[str, Any], plans: list[Plan],
                     start: dt.date) -> list[WorldEntity]:
    """Every named entity of the world, in order of first appearance, near-duplicates linked."""
    rows: list[tuple[str, str, str, dict[str, str], dt.date]] = []
    for rel in profile["relationships"]:
        rows.append(("person", rel["name"], rel["role"], dict(rel.get("attributes", {})), start))
    ident = profile["identity"]
    if ident["employer"] not in NO_EMPLOYER:
        rows.append(("organisation", ident["employer"], "employer", {"city": ident["city"]}, start))
    for item in profile["belongings"]:
        kind = "place" if item["kind"] == "home" else "item"
        rows.append((kind, item["name"], item["kind"], dict(item.get("attributes", {})), start))
    for employer, since, colleagues in standing["sets"]:
        if employer not in NO_EMPLOYER:
            for name, team in colleagues:
                rows.append(("person", name, "colleague", {"team": team, "works_at": employer}, since))
    for plan in sorted(plans, key=lambda p: (p.created_on, p.plan_id)):
        for key, (kind, role) in ENTITY_FIELDS.items():
            if plan.entity.get(key):
                rows.append((kind, plan.entity[key], role, {}, plan.created_on))
    return _numbered(persona_id, rows)


def _numbered(persona_id: str, rows) -> list[WorldEntity]:
    out: list[WorldEntity] = []
    seen: set[tuple[str, str]] = set()
    for kind, name, role, attrs, first in rows:
        if (kind, name) in seen:
            continue
        seen.add((kind, name))
        twin = next((e.entity_id for e in out if e.kind == kind and confusable(e.name, name, kind)), None)
        out.append(WorldEntity(entity_id=f"{persona_id}-n{len(out) + 1:04d}", persona_id=persona_id, kind=kind,
                               name=name, role=role, attributes=attrs, first_seen=first, near_duplicate_of=twin))
    return out


def confusable(a: str, b: str, kind: str) -> bool:
    """True when two different names are easy to mix up: people sharing a first name; places, organisations
    and items whose names share a distinctive word or begin alike."""
    if a == b:
        return False
    if kind == "person":
        return a.split()[0] == b.split()[0] and not a.startswith("Dr.")
    wa, wb = _words(a), _words(b)
    return bool(wa & wb) or (len(a) >= 5 and a[:5].lower() == b[:5].lower())


def _words(name: str) -> set[str]:
    return {w for w in re.findall(r"\w+", name.lower()) if len(w) >= 4 and w not in _GENERIC}
