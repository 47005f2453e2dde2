"""LOOP's evOlve and Prune steps: the mutable world state of one persona during simulation.

`WorldState` holds the evolving profile (a JSON dict), the fact store with valid-time intervals, the
profile ops and the ongoing matters. Facts are committed in the factual phase (closing the previous
fact for the same subject and attribute); mood, health and ongoing matters change in the state phase;
finished matters are removed in the prune phase. Profile paths are dotted, with list selectors:
`identity.employer`, `belongings[kind=pet]`, `relationships[name=Sam Ortiz].attributes.news`.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from schemas.world import Fact, ProfileOp

_SEGMENT = re.compile(r"(\w+)(?:\[(\w+)=([^\]]*)\])?")
MATTERS_PATH = "current_status.ongoing_matters"


@dataclass(frozen=True)
class FactDraft:
    """A fact decided by the world model but not yet committed (no id, no event)."""

    subject: str
    attribute: str
    value: str
    forms: tuple[str, ...]
    path: str | None = None

    @property
    def mention(self) -> str:
        return self.forms[0]


@dataclass
class Matter:
    text: str
    event_id: str
    until: dt.date
    health_after: str | None = None


@dataclass
class WorldState:
    persona_id: str
    profile: dict[str, Any]
    facts: list[Fact] = field(default_factory=list)
    ops: list[ProfileOp] = field(default_factory=list)
    matters: list[Matter] = field(default_factory=list)
    _open: dict[tuple[str, str], int] = field(default_factory=dict)

    def commit_facts(self, drafts: list[FactDraft], event_id: str, date: dt.date) -> list[Fact]:
        """Factual phase: record the facts, close superseded ones, apply their profile changes."""
        return [self._commit(d, event_id, date) for d in drafts]

    def _commit(self, draft: FactDraft, event_id: str, date: dt.date) -> Fact:
        key = (draft.subject, draft.attribute)
        if key in self._open:
            index = self._open[key]
            self.facts[index] = self.facts[index].model_copy(update={"valid_to": date})
        fact = Fact(
            fact_id=f"{self.persona_id}-f{len(self.facts) + 1:04d}",
            persona_id=self.persona_id,
            event_id=event_id,
            subject=draft.subject,
            attribute=draft.attribute,
            value=draft.value,
            valid_from=date,
            surface_forms=list(draft.forms),
        )
        self._open[key] = len(self.facts)
        self.facts.append(fact)
        if draft.path:
            self.set_path(draft.path, draft.value, date, event_id, "factual")
        return fact

    def set_path(self, path: str, value: str, date: dt.date, event_id: str, phase: str) -> None:
        """Set a profile value, recording an `add` or `modify` op (nothing when unchanged)."""
        old = get_path(self.profile, path)
        if old == value:
            return
        container, key = _locate(self.profile, path)
        container[key] = value
        self._op(date, event_id, phase, "modify" if old else "add", path, old or None, value)

    def add_matter(self, matter: Matter, date: dt.date) -> None:
        """State phase: open an ongoing matter (or extend it when already open)."""
        self.matters = [m for m in self.matters if m.text != matter.text] + [matter]
        items = self.profile["current_status"]["ongoing_matters"]
        if matter.text not in items:
            items.append(matter.text)
            self._op(date, matter.event_id, "state", "add", MATTERS_PATH, None, matter.text)

    def prune(self, date: dt.date) -> None:
        """Prune phase: remove finished matters (their `until` reached); restore health where set."""
        finished = [m for m in self.matters if m.until <= date]
        self.matters = [m for m in self.matters if m.until > date]
        items = self.profile["current_status"]["ongoing_matters"]
        for matter in finished:
            if matter.text in items:
                items.remove(matter.text)
                self._op(date, matter.event_id, "prune", "remove", MATTERS_PATH, matter.text, None)
            if matter.health_after:
                self.set_path("current_status.health", matter.health_after, date, matter.event_id, "state")

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the profile as it stands now."""
        return copy.deepcopy(self.profile)

    def _op(
        self, date: dt.date, event_id: str, phase: str, op: str, path: str, old: str | None, new: str | None
    ) -> None:
        self.ops.append(
            ProfileOp(
                op_id=f"{self.persona_id}-o{len(self.ops) + 1:04d}",
                persona_id=self.persona_id,
                date=date,
                event_id=event_id,
                phase=phase,
                op=op,
                path=path,
                old_value=old,
                new_value=new,
            )
        )


def get_path(profile: dict[str, Any], path: str) -> str | None:
    """The profile value at `path`, or None when absent (a list selector yields the item's name)."""
    node: Any = profile
    for name, key, value in _SEGMENT.findall(path):
        node = node.get(name) if isinstance(node, dict) else None
        if key:
            node = next((item for item in node or [] if item.get(key) == value), None)
        if node is None:
            return None
    if isinstance(node, dict):
        node = node.get("name")
    return node if isinstance(node, str) else None


def _locate(profile: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    segments = _SEGMENT.findall(path)
    node = profile
    for i, (name, key, value) in enumerate(segments):
        last = i == len(segments) - 1
        if not key:
            if last:
                return node, name
            node = node.setdefault(name, {})
            continue
        item = next((x for x in node[name] if x.get(key) == value), None)
        if item is None:
            item = {"name": value, key: value, "attributes": {}}
            node[name].append(item)
        if last:
            return item, "name"
        node = item
    raise ValueError(f"empty profile path {path!r}")


def facts_valid_at(facts: list[Fact], date: dt.date) -> list[Fact]:
    """The facts true on `date`: valid_from <= date < valid_to (or still open)."""
    return [f for f in facts if f.valid_from <= date and (f.valid_to is None or date < f.valid_to)]
