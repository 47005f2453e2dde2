"""Whether an event took place: the one reading of `Outcome.took_place` (tasks/world/eventkinds.py) that
narration, documents and the history checker (tasks/dialogue/agreement.py) share.

A negative outcome either means the plan did not happen at all (the dinner was cancelled, the move fell through,
the volunteer was turned away at the door) or that it happened and went badly (a bad visit, a race ended by an
injury). The catalog declares which on each outcome; nothing here guesses it from words. What did not take place
has no staff, no dish, no review, no "how was it" and no receipt; what the plan would have brought (the dish, the
tip a colleague gave at lunch, the friend's news told at the visit) is not said of it either.
"""

from __future__ import annotations

import string
from functools import cache

from schemas.world import Event, World
from tasks.world.catalog import KINDS
from tasks.world.ontology import ATTRIBUTES


def outcome_took_place(kind: str | None, valence: str | None) -> bool:
    """True when the outcome of `valence` of event kind `kind` means the plan happened (well or badly); True for
    a kind the core catalog does not declare (a domain pack's market event, the baseline) and for a neutral
    valence."""
    declared = KINDS.get(kind or "")
    if declared is None or valence not in ("positive", "negative"):
        return True
    return declared.outcome(valence).took_place


def took_place(event: Event, world: World | None = None) -> bool:
    """True when `event` happened (well or badly), False when its outcome means the plan was called off, fell
    through or was refused. `world` names the plan's kind when the event's own kind is not the catalog's."""
    kind = event.kind
    if kind not in KINDS and world is not None and event.plan_id:
        kind = next((p.kind for p in world.plans if p.plan_id == event.plan_id), kind)
    return outcome_took_place(kind, event.valence)


CALLED_OFF_ATTRIBUTES: frozenset[str] = frozenset(
    spec.attribute for kind in KINDS.values() for spec in kind.negative.facts if not kind.negative.took_place)
"""The fact attributes that record a plan that did not take place (`dinner_cancelled`, `turned_away`)."""


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@cache
def unrealized_fields(kind: str | None) -> tuple[str, ...]:
    """The plan fields only a positive outcome of `kind` brings about: what was had there (the value of an event
    attribute: the `dish` of a dinner out, a colleague's `tip` at lunch) and what was heard there (another
    person's news told at a visit or on a call). Never said of an event of this kind that did not take place.
    Fields its title or its negative outcome names are not among them, nor the persona's own state the plan only
    carries forward (a hobby goal, a volunteering task)."""
    declared = KINDS.get(kind or "")
    if declared is None or declared.negative.took_place:
        return ()

    def named(specs) -> set[str]:
        return {f for spec in specs for part in (spec.attribute, spec.value, spec.subject, *spec.forms)
                for f in _fields(part)}

    brought = [s for s in declared.positive.facts if s.subject != "persona" or s.attribute in ATTRIBUTES
               and ATTRIBUTES[s.attribute].event]
    negative = declared.negative
    kept = _fields(declared.title) | named(negative.facts) | OWN_FIELDS
    kept |= _fields(negative.matter.text) if negative.matter else set()
    return tuple(sorted(named(brought) - kept))


OWN_FIELDS = frozenset({"life_attribute"})
"""Plan fields that name no outcome: which attribute a person's news is about (`next_city`), not the news."""


def outcome_phrase(valence: str, happened: bool) -> str:
    """How a bullet says the outcome after the plan's title: `went well`, `went badly` or `did not happen`."""
    if not happened:
        return "did not happen"
    return "went well" if valence == "positive" else "went badly"
