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
  each), hobby goal 6 (what they work towards in a hobby: a first 10k, a dovetailed box; a new one every two
  months at most, kept from session to session most of the time), volunteering 2, hobby 3, disliked café 4: the
  small things that change often.
- the lives of the persona's people (what a friend or a relative tells them): job title, workplace, partner and
  the city they are moving to 1, a side project, a race they train for and a club 3, a home project and the next
  holiday 4 (their pet and course as the persona's).
- what ages bring (tasks/world/ages.py): anyone's age 1 (a birthday a year), a child's school 1 (primary, then
  secondary six years on) and a parent's working life 1 (retired at pension age).
- health: injury 4, diagnosis 4, illness 6; relations: relationship 2 and relationship status 2 per person;
  a colleague's team 1.

What happened at an event is not state. Event attributes (`domain="event"`) say what happened at one event: the
dinner out (`risotto at Luigi's`), the call a relative made that was missed, what a colleague recommended at
lunch. An event fact holds from its event's day and is never superseded: a second dinner out does not make the
first one false, so `valid_to` stays empty, no rate bounds them and two alike are two events, not a restatement.
"The most recent dinner out" is the latest of them, a question about events. Each event attribute carries a
`frame`, the past-tense clause that tells it (`{who} had {value}`: `I had risotto at Luigi's`).

Records (`domain="record"`) are pseudo-attributes: an event's outcome stored as if it were state that the next
event of its kind overwrites ("call_status = missed call about family news", "last_dinner_out"). The core
declares none (issue 23 turned them into event attributes or state); a domain pack that declares one gets the
world verifier's `pseudo_attributes` warning with their share, and so does a state attribute named like one
(`*_status`, `last_*`, `news`, `tip`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Holder = Literal["persona", "person", "other", "any"]
Domain = Literal["work", "home", "relations", "health", "possessions", "routine", "preference", "project",
                 "life", "finance", "constraint", "event", "record"]


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

    frame: str | None = None
    """For an event attribute: the past-tense clause telling it, with `{who}` (the subject as the speaker names
    them: `I`, `you`, `Maya`, `my sister Ann`) and `{value}`."""
    recall: str | None = None
    """For an event attribute: how the persona refers back to it without its value (`that dinner out`; a person's
    with `{whose}`: `my sister Ann's missed call`)."""
    noun: str | None = None
    """How a question names it after a possessive (`Maya's cancelled lunch`); None: the name in words."""
    ask: str | None = None
    """For an event attribute: the question its value answers, with `{who}` (`which lunch did {who} have to
    cancel`); questions never ask an event as if it were state ("what is Maya's lunch cancelled?")."""

    @property
    def record(self) -> bool:
        """True for a pseudo-attribute: an event's outcome stored as state (a declared record, or a state
        attribute named like one)."""
        return self.domain == "record" or (self.domain != "event" and self.name not in STATE_STATUSES
                                           and bool(RECORD_NAME.search(self.name)))

    @property
    def event(self) -> bool:
        """True for an event attribute: what happened at one event, never superseded."""
        return self.domain == "event"

    @property
    def min_days(self) -> int | None:
        """The fewest days between two changes of value (None: not rate-bound)."""
        return None if self.per_year is None else round(365 / self.per_year)


def _state(holder: Holder, domain: Domain, rates: dict[str, float]) -> list[Attribute]:
    return [Attribute(name, holder, domain, rate, noun=STATE_NOUNS.get(name)) for name, rate in rates.items()]


def _events(holder: Holder, frames: dict[str, tuple[str, str]]) -> list[Attribute]:
    return [Attribute(name, holder, "event", frame=frame, recall=recall, noun=EVENT_WORDS[name][0],
                      ask=EVENT_WORDS[name][1]) for name, (frame, recall) in frames.items()]


EVENT_WORDS: dict[str, tuple[str, str]] = {
    # an event attribute: (its noun after a possessive, the question its value answers)
    "trip": ("trip", "what trip did {who} go on"),
    "concert": ("concert", "what did {who} see live"),
    "dinner_out": ("dinner out", "what did {who} have when eating out"),
    "cafe_visit": ("café visit", "what did {who} order at the café"),
    "hobby_session": ("hobby session", "what did {who} spend a hobby session on"),
    "bill_paid": ("big bill", "which bill did {who} pay"),
    "family_visit": ("family visit", "which family visit did {who} make"),
    "evening_out": ("evening out", "where did {who} go for the evening"),
    "race_result": ("race result", "which race did {who} run, and in what time"),
    "sold_item": ("sale", "what did {who} sell"),
    "abandoned_book": ("abandoned book", "which book did {who} give up on"),
    "restructuring_survived": ("restructuring", "how did {who} come through the restructuring"),
    "financial_shock": ("unexpected bill", "what unexpected bill did {who} get hit by"),
    "bad_visit": ("bad visit", "what went wrong on the bad visit {who} had"),
    "job_offer_withdrawn": ("withdrawn job offer", "which job offer did {who} lose when it was withdrawn"),
    "move_fell_through": ("failed move", "which move fell through for {who}"),
    "adoption_refused": ("refused adoption", "which adoption did {who} have turned down"),
    "course_cancelled": ("cancelled course", "which course did {who} have cancelled"),
    "gym_signup_failed": ("failed gym sign-up", "where did {who} fail to sign up"),
    "purchase_fell_through": ("failed purchase", "which purchase fell through for {who}"),
    "trip_cancelled": ("cancelled trip", "which trip did {who} call off"),
    "session_rained_off": ("rained-off session", "which session was {who} rained off"),
    "wasted_shop": ("wasted shopping trip", "which shopping trip was wasted for {who}"),
    "dinner_cancelled": ("cancelled dinner", "which dinner did {who} have to cancel"),
    "gig_cancelled": ("cancelled gig", "which gig did {who} miss when it was cancelled"),
    "turned_away": ("wasted volunteering trip", "where did {who} get turned away"),
    "evening_cancelled": ("cancelled evening", "which evening did {who} have to cancel"),
    "project_on_hold": ("project on hold", "which project did {who} see put on hold"),
    "passed_over": ("promotion round", "what happened to {who} in the promotion round"),
    "retirement_postponed": ("retirement plans", "what did {who} decide about retiring"),
    "no_second_date": ("first date", "who did {who} get no second date with"),
    "went_nowhere": ("chance meeting", "who did {who} get talking to, without it going anywhere"),
    "lunch_cancelled": ("cancelled lunch", "which lunch did {who} have to cancel"),
    "recommendation": ("recommendation", "what did {who} recommend"),
    "celebration": ("celebration", "what did {who} celebrate"),
    "celebration_postponed": ("postponed celebration", "which celebration did {who} postpone"),
    "missed_call": ("missed call", "what did {who} ring about when the call was missed"),
    "visit_cancelled": ("cancelled visit", "which visit did {who} cancel"),
    "appointment": ("appointment", "what did {who} have an appointment for"),
    "appointment_missed": ("missed appointment", "which appointment did {who} miss"),
}
"""Event attributes as questions name and ask them (`Attribute.noun`, `Attribute.ask`)."""
STATE_NOUNS = {"favourite_cafe": "favourite café", "disliked_cafe": "least favourite café",
               "grocery_shop": "usual grocery shop", "prized_possession": "most prized possession",
               "race_goal": "target race", "next_city": "next city"}
"""State attributes a question names otherwise than by their name in words."""


RECORD_NAME = re.compile(r"(^last_|_status$|^news$|^tip$|^status$)")
"""Names that give a pseudo-attribute away: the last of something, a status, news, a tip."""
STATE_STATUSES = frozenset({"relationship_status", "marital_status", "work_status", "employment_status"})
"""Statuses that are state (a standard demographic term: single, married; employed, retired), not records."""


CORE: tuple[Attribute, ...] = (
    Attribute("employer", "persona", "work", 1, vacant=("unemployed", "retired")),
    *_state("persona", "work", {"occupation": 0.5, "income_band": 1}),
    *_state("persona", "project", {"work_project": 4, "current_book": 12, "hobby_goal": 6}),
    *_state("any", "project", {"course": 4}),
    *_state("persona", "home", {"home": 1, "city": 1}),
    *_state("persona", "possessions", {"vehicle": 1, "prized_possession": 1}),
    *_state("any", "possessions", {"pet": 1}),
    *_state("person", "life", {"job_title": 1, "workplace": 1, "partner": 1, "next_city": 1, "side_project": 3,
                               "race_goal": 3, "club": 3, "home_project": 4, "next_holiday": 4, "school": 1,
                               "work_life": 1}),
    *_state("any", "life", {"age": 1}),
    *_state("persona", "routine", {"grocery_shop": 2, "gym": 1, "doctor": 1, "volunteering": 2, "hobby": 3}),
    *_state("persona", "preference", {"favourite_cafe": 3, "disliked_cafe": 4}),
    *_state("persona", "health", {"injury": 4, "diagnosis": 4, "illness": 6}),
    *_state("persona", "relations", {"relationship_status": 2}),
    *_state("person", "relations", {"relationship": 2}),
    *_state("person", "work", {"team": 1}),
    *(Attribute(name, "persona", "constraint") for name in (
        "spending_restriction", "travel_restriction", "running_restriction", "dating_pause")),
    *_events("persona", {
        # what the persona did: (how it is told, how they refer back to it without its value)
        "trip": ("{who} went on a {value}", "that trip"), "concert": ("{who} saw {value}", "that concert"),
        "dinner_out": ("{who} had {value}", "that dinner out"), "cafe_visit": ("{who} had {value}", "that coffee"),
        "hobby_session": ("{who} spent a session on {value}", "that last session"),
        "bill_paid": ("{who} paid off the {value}", "that big bill"),
        "family_visit": ("{who} paid {value}", "that family visit"),
        "evening_out": ("{who} went to {value}", "that evening out"),
        "race_result": ("{who} ran the {value}", "that race"),
        "sold_item": ("{who} sold the {value}", "what I had to sell"),
        "abandoned_book": ("{who} gave up on {value}", "that book I gave up on"),
        "restructuring_survived": ("{who} {value}", "the restructuring"),
        "financial_shock": ("{who} got hit by a {value}", "that nasty bill"),
        # what went wrong
        "bad_visit": ("{who} had a bad visit: {value}", "that bad visit"),
        "job_offer_withdrawn": ("{who} lost the {value} when it was withdrawn", "that job offer"),
        "move_fell_through": ("{who} saw the {value} fall through", "that move"),
        "adoption_refused": ("{who} had the {value} turned down", "the adoption"),
        "course_cancelled": ("{who} had the {value} cancelled", "that course"),
        "gym_signup_failed": ("{who} tried to sign up at {value} and it failed", "the gym sign-up"),
        "purchase_fell_through": ("{who} saw the {value} fall through", "that purchase"),
        "trip_cancelled": ("{who} called off the {value}", "the trip I called off"),
        "session_rained_off": ("{who} got rained off a {value}", "the rained-off session"),
        "wasted_shop": ("{who} made a wasted {value}", "that wasted shopping trip"),
        "dinner_cancelled": ("{who} had to cancel {value}", "the dinner I cancelled"),
        "gig_cancelled": ("{who} missed the {value} when it was cancelled", "that cancelled gig"),
        "turned_away": ("{who} got turned away at {value}", "being turned away"),
        "evening_cancelled": ("{who} had to cancel the {value}", "the evening I cancelled"),
        "project_on_hold": ("{who} saw the {value} put on hold", "the project on hold"),
        "passed_over": ("{who} got {value}", "the promotion"),
        "retirement_postponed": ("{who} {value}", "putting off retirement"),
        "no_second_date": ("{who} got no second date with {value}", "that date"),
        "went_nowhere": ("{who} got talking to {value}, but it went nowhere", "that person I met"),
        "lunch_cancelled": ("{who} had to cancel {value}", "that cancelled lunch"),
        "appointment": ("{who} had a {value}", "that appointment"),
        "appointment_missed": ("{who} missed the {value}", "the appointment I missed")}),
    *_events("person", {
        "recommendation": ("{who} recommended {value}", "{whose} recommendation"),
        "celebration": ("{who} celebrated a {value}", "{whose} celebration"),
        "celebration_postponed": ("{who} postponed the {value} celebration", "{whose} postponed celebration"),
        "missed_call": ("{who} rang about {value} and the call was missed", "{whose} missed call"),
        "visit_cancelled": ("{who} cancelled {value}", "{whose} cancelled visit")}),
)
"""The core attributes (the event catalog's, the baseline's and the constraints')."""

ATTRIBUTES: dict[str, Attribute] = {a.name: a for a in CORE}
EVENT_ATTRIBUTES = frozenset(a.name for a in CORE if a.event)
"""The core's event attributes (a pack's join them in the simulation: `event_names(ontology(...))`)."""


def ontology(extra: tuple[Attribute, ...] = ()) -> dict[str, Attribute]:
    """The core attributes plus a domain pack's (`DomainPack.attributes()`); a pack may not redeclare one."""
    clash = sorted(a.name for a in extra if a.name in ATTRIBUTES)
    if clash:
        raise ValueError(f"domain pack redeclares core attributes: {', '.join(clash)}")
    return ATTRIBUTES | {a.name: a for a in extra}


def event_names(attributes: dict[str, Attribute]) -> frozenset[str]:
    """The names of the event attributes among `attributes`."""
    return frozenset(name for name, a in attributes.items() if a.event)
