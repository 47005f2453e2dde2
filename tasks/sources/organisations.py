"""Which organisation an event makes write to the persona, and what it can know.

An organisation email is caused by its event and comes from the place or body the event involved, named in the
event's plan: the restaurant about the booking, the venue with the tickets, the school about the enrolment, the
gym about the membership, the doctor after the appointment, the race organisers with the result, the shop with
the receipt, the employer about the project. An event that involved none (a call with a relative, a trip, a book)
causes no organisation email: the persona's people write about it instead.

The organisation states only the facts its own records hold (`Sender.attributes`), each in the sentence it would
write (LINES); the persona's feelings, companions and the rest of the event stay out of its email.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common import worldindex
from tasks.common.facttext import NOT_AN_EMPLOYER, must_include
from tasks.common.happened import took_place


@dataclass(frozen=True)
class Sender:
    """Per plan kind: the plan field naming the organisation, the kind of notice it sends, the mailbox it sends
    from and the fact attributes it may state."""

    field: str
    notice: str
    mailbox: str
    attributes: tuple[str, ...]


SENDERS: dict[str, Sender] = {
    "dinner_out": Sender("restaurant", "booking", "bookings", ("dinner_out", "dinner_cancelled")),
    "partner_evening": Sender("place", "booking", "bookings", ("evening_cancelled",)),
    "first_date": Sender("place", "booking", "bookings", ()),
    "concert": Sender("venue", "tickets", "tickets", ("concert", "gig_cancelled")),
    "start_course": Sender("school", "enrolment", "admissions", ("course", "course_cancelled")),
    "join_gym": Sender("gym", "membership", "members", ("gym", "gym_signup_failed")),
    "doctor_visit": Sender("doctor", "appointment", "appointments",
                           ("diagnosis", "doctor", "travel_restriction", "running_restriction")),
    "volunteer": Sender("org", "rota", "volunteers", ("volunteering", "turned_away")),
    "run_race": Sender("race", "results", "results", ("race_result",)),
    "weekly_shop": Sender("market", "receipt", "receipts", ("grocery_shop",)),
    "work_project": Sender("employer", "work", "hr", ("work_project", "project_on_hold")),
    "promotion": Sender("employer", "work", "hr", ("income_band",)),
    "restructure": Sender("employer", "work", "hr", ()),
    "new_job": Sender("company", "work", "hr", ("employer",)),
}
"""Plan kind -> who writes after its events (tasks/world/catalog.py names the plan fields)."""

LINES: dict[str, str] = {
    "dinner_out": "Thank you for dining with us; we hope you enjoyed the {v}",
    "dinner_cancelled": "This confirms that your booking for {v} has been cancelled",
    "evening_cancelled": "This confirms that your booking for the {v} has been cancelled",
    "concert": "Your e-tickets for {v} are attached to this email",
    "gig_cancelled": "We are sorry to tell you that the {v} has been cancelled and your tickets will be refunded",
    "course": "We are pleased to confirm your place on the {v}",
    "course_cancelled": "Unfortunately the {v} will not run this term, and any fees paid will be refunded",
    "gym": "Welcome to {v}: your membership is now active",
    "gym_signup_failed": "We were unable to complete your membership application at {v}",
    "diagnosis": "Following your appointment, this note confirms the diagnosis: {v}",
    "doctor": "You are now registered as a patient of {v}",
    "travel_restriction": "Our advice until your next review is {v}",
    "running_restriction": "Our advice until your next review is {v}",
    "volunteering": "Thank you for volunteering with us; you are on the rota for {v}",
    "turned_away": "We are sorry that {v} could not take on new volunteers this time",
    "race_result": "Congratulations on finishing; your official result is {v}",
    "grocery_shop": "Thank you for shopping at {v}; your receipt is below",
    "work_project": "As discussed, you are now assigned to the {v}",
    "project_on_hold": "Please note that the {v} is on hold until further notice",
    "income_band": "Following your promotion, your pay now sits in the {v} band",
    "employer": "Welcome to {v}: we are delighted to confirm your appointment",
}
"""Attribute -> the sentence its organisation writes, `{v}` its first surface form (the record, said as filed)."""


@dataclass(frozen=True)
class Writer:
    """The organisation an event makes write: its name, the notice, its mailbox and the facts it states."""

    name: str
    notice: str
    mailbox: str
    facts: tuple[Fact, ...]


def writer_for(persona: Persona, world: World, event: Event, facts: list[Fact]) -> Writer | None:
    """The organisation `event` involved that would write to the persona about it, with the facts of `facts`
    its records hold; None when the event involved none (or only a place without a name, `the park`), and when the
    plan did not take place and its records hold nothing of it (no receipt for a shop that never happened)."""
    plan = worldindex.index(world).plan_of(event)
    sender = SENDERS.get(plan.kind) if plan is not None else None
    if plan is None or sender is None:
        return None
    name = str(plan.entity.get(sender.field, "")).strip()
    if not proper(name) or (sender.notice == "work" and name.lower() in NOT_AN_EMPLOYER | {persona.name.lower()}):
        return None
    known = tuple(f for f in facts if f.attribute in sender.attributes)
    if not known and not took_place(event, world):
        return None
    return Writer(name[0].upper() + name[1:], sender.notice, sender.mailbox, known)


SMALL_WORDS = frozenset({"of", "and", "the", "at", "on", "in", "de", "la", "&"})


def proper(name: str) -> bool:
    """A name an organisation signs with (`Casa Lola`, `the Old Mill`, `Night Run 8K`), not a description (`the
    park`, `the Saturday farmers' market`): after a leading `the`, every word capitalised but the small ones."""
    words = name.split()
    if words[:1] and words[0].lower() == "the":
        words = words[1:]
    return bool(words) and all(w[0].isupper() or not w[0].isalpha() or w.lower() in SMALL_WORDS for w in words) \
        and words[0][0].isupper()


def line(fact: Fact) -> str:
    """The sentence the organisation writes to state `fact` (without its full stop)."""
    return LINES.get(fact.attribute, "Our records show: {v}").format(v=must_include(fact))
