"""Preferences change from experience (issue 23): a favourite place, or the place of a routine, changes only after
something happened that gives the persona a reason to change it, and the reason is an event a question can ask
about.

A reason is one of:
- a bad experience at the current value: a negative outcome of one of the switch's `bad` kinds whose plan names
  the current value in the switch's field (a bad visit at the favourite café, a wasted trip to the usual shop,
  being turned away where they volunteer);
- a move home: a rolled-out `move_flat` (a new neighbourhood means a new local café, shop and doctor).

Only reasons since the current value was set count (one reason, one change). The simulator records the reason on
the plan that makes the change: `entity["cause_event"]` (the event id) and `entity["cause"]` (how it is told:
"a bad visit at Café Lumen"), which the narration tells and the question generators ask about (`Why is Café Lumen
no longer Maya's favourite café?`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.world import Event, Plan


@dataclass(frozen=True)
class Switch:
    """What a kind changes (`attribute`, a persona attribute of the ontology), which entity field names that
    value (`field`), and the kinds whose negative outcome at the current value is a reason to change it."""

    attribute: str
    field: str
    bad: tuple[str, ...] = ()


SWITCHES: dict[str, Switch] = {
    "new_cafe": Switch("favourite_cafe", "cafe", ("cafe_visit",)),
    "weekly_shop": Switch("grocery_shop", "market", ("weekly_shop",)),
    "volunteer": Switch("volunteering", "org", ("volunteer",)),
    "doctor_visit": Switch("doctor", "doctor"),
}
"""Event kind -> the preference it switches. A kind that keeps its value (`EventKind.keep`) switches only with a
reason; `new_cafe` is only planned with one (or while there is no favourite yet)."""

TOLD: dict[str, str] = {
    "cafe_visit": "a bad visit at {cafe}",
    "weekly_shop": "a wasted trip to {market}",
    "volunteer": "being turned away at {org}",
    "move_flat": "the move to {address}",
}
"""How a reason is told, from its plan's entity."""

SWITCH_SHARE = 0.6
"""The chance that a routine with a reason to change changes at its next rollout (people often give a place
another go)."""


@dataclass(frozen=True)
class Reason:
    event_id: str
    text: str

    def entity(self) -> dict[str, str]:
        """The plan fields that record it."""
        return {"cause_event": self.event_id, "cause": self.text}


CUE_KINDS = frozenset({"move_flat", *(k for s in SWITCHES.values() for k in s.bad)})
"""The kinds whose events may be a reason: the simulator keeps their events apart (`is_cue`), so finding the latest
reason reads those, not a long life's every event."""


def is_cue(kind: str, valence: str) -> bool:
    """Whether an event of `kind` and `valence` may be a reason to change a preference (a move, a bad outcome)."""
    return kind in CUE_KINDS and (valence == "negative") != (kind == "move_flat")


def reason(switch: Switch, current: str | None, since: dt.date, events: Sequence[Event],
           plans: dict[str, Plan]) -> Reason | None:
    """The latest reason to change `switch.attribute` from `current` since `since` (None when there is none).
    Values are matched on the plan's field (the café's name; the volunteering `{task} at {org}` by its org).
    `events` are in the order they happened (all of them, or only those `is_cue` keeps): read from the latest
    back to `since`, the first reason met is the latest."""
    for event in reversed(events):
        if event.date < since:
            break
        plan = plans.get(event.plan_id or "")
        if plan is None:
            continue
        moved = plan.kind == "move_flat" and event.valence == "positive"
        value = plan.entity.get(switch.field, "")
        bad = (plan.kind in switch.bad and event.valence == "negative" and current is not None and value != ""
               and (current == value or current.endswith(f" at {value}")))
        if moved or bad:
            return Reason(event.event_id, TOLD[plan.kind].format(**plan.entity))
    return None
