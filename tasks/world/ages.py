"""Ages move (issue 57, multi-year lives): a life of several years has birthdays, children who start school and
parents who retire, each a dated event the world records like any other change.

At the start of the simulation every person whose age matters gets a date of birth: the persona (from the
profile's age, on a birthday drawn from the seeded RNG), their children and grandchildren, and their parents.
The baseline states their ages as facts (`age`, `6 years old`; a relation's age is also written to the profile,
`relationships[name=...].attributes.age`), and the simulation then plans, a few weeks ahead and on a fixed date,
the life-stage events of the span (`stages`): each birthday (`birthday` for the persona, whose profile age
`identity.age` moves with it, so the life-stage rates of tasks/world/transitions.py read the current age;
`family_birthday` for a child or a parent), a child's first day at primary school and, six years on, at
secondary school (`start_school`, the child's `school`), and a parent's retirement on reaching pension age
(`parent_retires`, their `work_life`). The kinds are tasks/world/catalog_stages.py's; they are never drawn
among the day's plans (`EventKind.scheduled`).

Sources and reasoning (rounded; a plausible life, not a census):
- children: a mother's mean age at a birth is about 30 in the OECD (OECD Family Database SF2.3, 2021: 29 to 32
  in most members), so a child is 24 to 36 years younger than the parent who names them, a grandchild 50 to 64;
  a parent is 24 to 36 years older than the persona;
- school: compulsory primary school starts at 6 in most countries (UNESCO UIS, official entrance age to primary
  education, 2022) and at 5 in the United Kingdom, Ireland, the Netherlands, Australia and New Zealand, and
  children start school at 5 in the United States (kindergarten), with the school year of the calendar year they
  turn that age; primary school lasts six years in most systems (ISCED 1), so secondary school starts six years
  later. The school year starts in September in most of the
  northern hemisphere, in late January or February in Australia, New Zealand, South Africa, Brazil, Argentina and
  Chile, in March in South Korea and in April in Japan and India;
- retirement: the normal pension age is about 65 in the OECD (Pensions at a Glance 2023: 64.4 on average for a
  man entering the labour market in 2022, 66 and over for those entering later), so a parent retires on the
  first of the month after their 65th birthday; a parent already past it at the start is retired.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from tasks.common.english import INFLECT
from tasks.world.evolve import FactDraft

CHILD_ROLES = {"daughter": (24, 36), "son": (24, 36), "granddaughter": (50, 64)}
"""Role -> the range of years the persona is older than them."""
PARENT_ROLES = {"mother": (24, 36), "father": (24, 36)}
"""Role -> the range of years they are older than the persona."""
SCHOOL_AGES = {"United Kingdom": 5, "Ireland": 5, "Netherlands": 5, "Australia": 5, "New Zealand": 5,
               "United States": 5}
"""Country -> the age at which children start school (6 elsewhere)."""
PRIMARY_YEARS = 6
SCHOOL_YEAR_STARTS = {"Australia": (1, 29), "New Zealand": (2, 1), "South Africa": (1, 15), "Brazil": (2, 5),
                      "Argentina": (3, 1), "Chile": (3, 1), "South Korea": (3, 2), "Japan": (4, 6), "India": (6, 1)}
"""Country -> (month, day) the school year starts (September 1 elsewhere)."""
RETIREMENT_AGE = 65
MAX_AGE = 100
"""The profile's age bound (schemas/profile.py Identity.age): nobody is aged past it."""
LEAD_DAYS = 35
"""A life-stage event is planned this many days before it (longer than any drawn plan looks ahead, so the day's
other plans see it and keep clear of its person)."""
PRIMARY_SCHOOLS = ("Elm Grove Primary", "St Mary's Primary", "Riverside Primary", "Oakfield Primary",
                   "Hillcrest Primary School", "Riverside Primary Academy")
SECONDARY_SCHOOLS = ("Northfield Secondary", "Kingsway High", "Westbrook Academy", "Lakeside High School",
                     "Kingsway Academy", "St Anne's College")
_INFLECT = INFLECT


@dataclass(frozen=True)
class Born:
    """Someone whose age the world tracks: the persona (`role` "self") or a relation."""

    name: str
    role: str
    born: dt.date


@dataclass(frozen=True)
class Stage:
    """A life-stage event to plan: its kind, its day and its plan entity."""

    kind: str
    day: dt.date
    entity: dict[str, str]

    @property
    def planned_on(self) -> dt.date:
        return self.day - dt.timedelta(days=LEAD_DAYS)


def age_on(born: dt.date, day: dt.date) -> int:
    """Whole years from `born` to `day`."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def ordinal(years: int) -> str:
    """`36th`."""
    return str(_INFLECT.ordinal(years))


def age_value(years: int) -> str:
    """An age as a fact states it: `1 year old`, `36 years old`."""
    return f"{years} year{'s' if years != 1 else ''} old"


def births(rng: random.Random, profile: dict[str, Any], start: dt.date) -> list[Born]:
    """The persona's date of birth (their profile age on `start`, a drawn birthday) and those of their children,
    grandchildren and parents (ages drawn from the ranges above, at least 1, at most MAX_AGE)."""
    ident = profile["identity"]
    out = [Born(ident["name"], "self", _born(rng, ident["age"], start))]
    for person in profile["relationships"]:
        role = person["role"]
        if role in CHILD_ROLES:
            years = max(1, ident["age"] - rng.randint(*CHILD_ROLES[role]))
        elif role in PARENT_ROLES:
            years = min(MAX_AGE - 5, ident["age"] + rng.randint(*PARENT_ROLES[role]))
        else:
            continue
        out.append(Born(person["name"], role, _born(rng, years, start)))
    return out


def _born(rng: random.Random, years: int, start: dt.date) -> dt.date:
    """A date of birth `years` before `start` on a drawn day of the year (never February 29)."""
    birthday = dt.date(2001, 1, 1) + dt.timedelta(days=rng.randrange(365))
    born = birthday.replace(year=start.year - years)
    return born if age_on(born, start) == years else born.replace(year=born.year - 1)


def baseline_drafts(people: list[Born], start: dt.date) -> list[FactDraft]:
    """The ages on `start` (the persona's is in the profile already; a relation's is written to it), and
    `work_life` retired for a parent already past pension age."""
    out = []
    for who in people:
        years = age_on(who.born, start)
        path = None if who.role == "self" else f"relationships[name={who.name}].attributes.age"
        out.append(FactDraft(who.name, "age", age_value(years), (age_value(years),), path, path_value=str(years)))
        if who.role in PARENT_ROLES and years >= RETIREMENT_AGE:
            out.append(FactDraft(who.name, "work_life", "retired", ("retired",),
                                 f"relationships[name={who.name}].attributes.work_life"))
    return out


def stages(people: list[Born], country: str, start: dt.date, end: dt.date, rng: random.Random) -> list[Stage]:
    """Every life-stage event from the day after `start` to `end`, by day: birthdays (none past MAX_AGE),
    children's first days at primary and at secondary school, and parents' retirements."""
    out: list[Stage] = []
    entry = SCHOOL_AGES.get(country, 6)
    month, day = SCHOOL_YEAR_STARTS.get(country, (9, 1))
    for who in people:
        for year in range(start.year, end.year + 1):
            birthday = who.born.replace(year=year)
            years = age_on(who.born, birthday)
            if start < birthday <= end and years <= MAX_AGE:
                out.append(_birthday(who, birthday, years))
            if who.role in CHILD_ROLES:
                first_day = _weekday_on_or_after(dt.date(year, month, day))
                out += _school(who, first_day, entry, start, end, rng)
            if who.role in PARENT_ROLES and years == RETIREMENT_AGE and age_on(who.born, start) < RETIREMENT_AGE:
                retired = (birthday.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
                if start < retired <= end:
                    out.append(Stage("parent_retires", retired, {"person": who.name, "relation": who.role}))
    return sorted(out, key=lambda s: (s.day, s.kind, sorted(s.entity.items())))


def _birthday(who: Born, day: dt.date, years: int) -> Stage:
    if who.role == "self":
        return Stage("birthday", day, {"age": str(years), "ordinal": ordinal(years)})
    return Stage("family_birthday", day, {"person": who.name, "relation": who.role, "age": str(years),
                                          "ordinal": ordinal(years)})


def _school(who: Born, first_day: dt.date, entry: int, start: dt.date, end: dt.date,
            rng: random.Random) -> list[Stage]:
    """The child's first day at primary (at `entry`) or secondary school (PRIMARY_YEARS later): the school year
    starting on `first_day` in the calendar year they turn that age (the usual cut-off by year of birth), when it
    falls in the span."""
    if not start < first_day <= end:
        return []
    turning = first_day.year - who.born.year
    for threshold, bank, level in ((entry, PRIMARY_SCHOOLS, "primary"),
                                   (entry + PRIMARY_YEARS, SECONDARY_SCHOOLS, "secondary")):
        if turning == threshold:
            school = rng.choice(bank)
            return [Stage("start_school", first_day, {"person": who.name, "relation": who.role, "school": school,
                                                      "level": level})]
    return []


def _weekday_on_or_after(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day
