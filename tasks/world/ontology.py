"""The ontology of the fact store: every attribute a fact may carry, declared once with what it belongs to and
how fast it may plausibly change.

A fact is a value of one attribute of one holder (the persona, or a person of their life) over a validity
interval. Each attribute is declared here (a domain pack declares its own in `DomainPack.attributes()`), with:
- `holder`: `persona`, `person` (a relation, a colleague), `any` (both: a pet, a course) or `other` (what the
  persona reacted to, say);
- `domain`: what part of the life it describes (work, home, relations, health, possessions, routine,
  preference, project, finance, constraint; `life` for what the persona's people are up to in their own lives),
  or `record` for a pseudo-attribute (below);
- `per_year`: the most changes of value a plausible life makes in a year. The simulator does not plan an event
  that would change the value sooner than `365 / per_year` days after its last change, a plan whose change
  became too soon by its day is cancelled, and the world verifier fails a world where it happens anyway
  (`change_rate`). None: not rate-bound (a constraint lasts its own interval; a record is not state).

Rates, and why (caps, not averages: the catalog's weights decide how often a change is drawn at all):
- employer 1 (leaving for no employer aside), home 1, city 1: a median job tenure of about four years (US BLS,
  Employee Tenure 2022) and about one adult in ten moving home in a year (US Census CPS, geographic mobility) make
  a second job change or a second move within a year rare; occupation 0.5: careers change rarer still than
  employers; income band 1: pay is reviewed yearly.
- doctor 1, gym 1, pet 1, vehicle 1, prized possession 1: chosen once and kept; changing sooner needs a cause
  (a move) the simulation does not yet model.
- favourite café 3, grocery shop 2: habits; a favourite place changes after experience, a few times a year at
  most (issue 23's target: favourite places at most 3 a year).
- current book 12 (about a book a month for a keen reader), course 4 (a term each), work project 4 (a quarter
  each), volunteering 2, hobby 3, disliked café 4: the small things that change often.
- the lives of the persona's people (what a friend or a relative tells them): job title, workplace, partner and
  the city they are moving to 1, a side project, a race they train for and a club 3, a home project and the next
  holiday 4 (their pet and course as the persona's).
- health: injury 4, diagnosis 4, illness 6; relations: relationship 2 and relationship status 2 per person;
  a colleague's team 1.

Records (`domain="record"`) are pseudo-attributes: what happened at an event stored as if it were state
("tip", "last_dinner_out", "call_status = missed call about family news"). What happened on a day is an
event, not state; they remain while the question generators still read them (issue 23 replaces them with
state and event questions) and the world verifier reports their share (`pseudo_attributes`, a warning).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Holder = Literal["persona", "person", "other", "any"]
Domain = Literal["work", "home", "relations", "health", "possessions", "routine", "preference", "project",
                 "life", "finance", "constraint", "record"]


@dataclass(frozen=True)
class Attribute:
    name: str
    holder: Holder
    domain: Domain
    per_year: float | None = None
    """Most value changes a year (see the module doc); None: not rate-bound."""
    vacant: tuple[str, ...] = ()
    """Values meaning the holder has none (no employer: `unemployed`, `retired`). Leaving counts from the last time
    they left (one layoff a year at most) and the next value from the last value that was not vacant (a new job
    half a year after a layoff is no job-hopping)."""

    @property
    def record(self) -> bool:
        """True for a pseudo-attribute: an event's outcome stored as state."""
        return self.domain == "record"

    @property
    def min_days(self) -> int | None:
        """The fewest days between two changes of value (None: not rate-bound)."""
        return None if self.per_year is None else round(365 / self.per_year)


def _state(holder: Holder, domain: Domain, rates: dict[str, float]) -> list[Attribute]:
    return [Attribute(name, holder, domain, rate) for name, rate in rates.items()]


def _records(holder: Holder, *names: str) -> list[Attribute]:
    return [Attribute(name, holder, "record") for name in names]


CORE: tuple[Attribute, ...] = (
    Attribute("employer", "persona", "work", 1, vacant=("unemployed", "retired")),
    *_state("persona", "work", {"occupation": 0.5, "income_band": 1}),
    *_state("persona", "project", {"work_project": 4, "current_book": 12}),
    *_state("any", "project", {"course": 4}),
    *_state("persona", "home", {"home": 1, "city": 1}),
    *_state("persona", "possessions", {"vehicle": 1, "prized_possession": 1}),
    *_state("any", "possessions", {"pet": 1}),
    *_state("person", "life", {"job_title": 1, "workplace": 1, "partner": 1, "next_city": 1, "side_project": 3,
                               "race_goal": 3, "club": 3, "home_project": 4, "next_holiday": 4}),
    *_state("persona", "routine", {"grocery_shop": 2, "gym": 1, "doctor": 1, "volunteering": 2, "hobby": 3}),
    *_state("persona", "preference", {"favourite_cafe": 3, "disliked_cafe": 4}),
    *_state("persona", "health", {"injury": 4, "diagnosis": 4, "illness": 6}),
    *_state("persona", "relations", {"relationship_status": 2}),
    *_state("person", "relations", {"relationship": 2}),
    *_state("person", "work", {"team": 1}),
    *(Attribute(name, "persona", "constraint") for name in (
        "spending_restriction", "travel_restriction", "running_restriction", "dating_pause")),
    *_records("persona", "last_trip", "last_concert", "last_dinner_out", "last_hobby_session", "last_big_bill",
              "last_family_visit", "last_evening_out", "race_result", "financial_shock", "sold_item",
              "abandoned_book", "job_security", "job_offer_status", "move_status", "adoption_status", "course_status",
              "gym_status", "vehicle_status", "trip_status", "hobby_session_status", "shopping_status",
              "dinner_status", "concert_status", "volunteering_status", "evening_status", "work_project_status",
              "promotion_status", "retirement_status", "dating_status"),
    *_records("person", "tip", "milestone", "milestone_status", "call_status", "visit_status",
              "lunch_status"),
)
"""The core attributes (the event catalog's, the baseline's and the constraints')."""

ATTRIBUTES: dict[str, Attribute] = {a.name: a for a in CORE}


def ontology(extra: tuple[Attribute, ...] = ()) -> dict[str, Attribute]:
    """The core attributes plus a domain pack's (`DomainPack.attributes()`); a pack may not redeclare one."""
    clash = sorted(a.name for a in extra if a.name in ATTRIBUTES)
    if clash:
        raise ValueError(f"domain pack redeclares core attributes: {', '.join(clash)}")
    return ATTRIBUTES | {a.name: a for a in extra}
