"""LOOP's evOlve and Prune steps: the mutable world state of one persona during simulation.

`WorldState` holds the evolving profile (a JSON dict), the fact store with valid-time intervals, the
profile ops, the ongoing matters and the active constraints. Every profile change is a typed
`ProfileOp` (add, modify or remove on a profile path) applied through `apply_op` and re-validated
against the `Profile` schema before it is recorded, so an op that would break the schema fails loudly.
Facts are committed in the factual phase (closing, never deleting, the previous fact for the same
subject and attribute); mood, health, hobbies and ongoing matters change in the state phase; finished
matters and expired constraints are removed in the prune phase.

Profile paths are dotted, with list selectors: `identity.employer`, `traits.hobbies` (a list of
strings: add appends, remove drops the old value), `belongings[kind=pet]` (a list item: add creates it
named by the new value, modify renames it, remove deletes it), `relationships[name=Sam Ortiz].attributes.pet`.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError

from schemas.profile import Profile
from schemas.world import Constraint, Fact, ProfileOp
from tasks.world.ontology import EVENT_ATTRIBUTES

_SEGMENT = re.compile(r"(\w+)(?:\[(\w+)=([^\]]*)\])?")
MATTERS_PATH = "current_status.ongoing_matters"
BASELINE_SUFFIX = "-e0000"
"""The baseline event's id ends so (`<persona>-e0000`): its facts state the initial profile, not changes."""
HOBBIES_PATH = "traits.hobbies"


class InvalidOp(ValueError):
    """A profile op that cannot be applied or leaves the profile invalid against its schema."""


@dataclass(frozen=True)
class FactDraft:
    """A fact decided by the world model but not yet committed (no id, no event)."""

    subject: str
    attribute: str
    value: str
    forms: tuple[str, ...]
    path: str | None = None
    until: dt.date | None = None
    path_value: str | None = None

    @property
    def mention(self) -> str:
        return self.forms[0]


@dataclass
class Matter:
    """An ongoing matter in the profile until `until`; on prune it may restore health or clear a path."""

    text: str
    event_id: str
    until: dt.date
    health_after: str | None = None
    clears: str | None = None


@dataclass
class WorldState:
    persona_id: str
    profile: dict[str, Any]
    facts: list[Fact] = field(default_factory=list)
    ops: list[ProfileOp] = field(default_factory=list)
    matters: list[Matter] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    _open: dict[tuple[str, str], int] = field(default_factory=dict)
    history: dict[tuple[str, str], list[tuple[dt.date, str]]] = field(default_factory=dict)
    """(subject, attribute) -> (day, value) of each of its facts not from the baseline (the rate limits count
    from them)."""
    _ended: int = 0
    """Constraints before this index ended by the last prune."""
    event_attributes: frozenset[str] = EVENT_ATTRIBUTES
    """The ontology's event attributes (tasks/world/ontology.py): what happened at one event, never superseded."""

    def commit_facts(self, drafts: list[FactDraft], event_id: str, date: dt.date) -> list[Fact]:
        """Factual phase: record the facts, close superseded ones, apply their profile changes. A draft that
        repeats the value its key already holds is not a new fact (state did not change): callers pass
        `changes(drafts, date)`."""
        return [self._commit(d, event_id, date) for d in drafts]

    def current(self, subject: str, attribute: str, date: dt.date) -> str | None:
        """The value (subject, attribute) holds on `date`, if any."""
        index = self._open.get((subject, attribute))
        if index is None:
            return None
        fact = self.facts[index]
        return fact.value if fact.valid_to is None or fact.valid_to > date else None

    def changes(self, drafts: list[FactDraft], date: dt.date) -> list[FactDraft]:
        """The drafts that change state on `date`: a value its key does not already hold (constraint facts,
        which carry their own end, and event facts, each its own event, always count)."""
        return [d for d in drafts if d.until is not None or d.attribute in self.event_attributes
                or self.current(d.subject, d.attribute, date) != d.value]

    def _commit(self, draft: FactDraft, event_id: str, date: dt.date) -> Fact:
        key = (draft.subject, draft.attribute)
        if not event_id.endswith(BASELINE_SUFFIX):
            self.history.setdefault(key, []).append((date, draft.value))
        if key in self._open and draft.attribute not in self.event_attributes:  # an event supersedes no event
            old = self.facts[self._open[key]]
            if old.valid_to is None or old.valid_to > date:
                self.facts[self._open[key]] = old.model_copy(update={"valid_to": date})
        fact = Fact(
            fact_id=f"{self.persona_id}-f{len(self.facts) + 1:04d}",
            persona_id=self.persona_id,
            event_id=event_id,
            subject=draft.subject,
            attribute=draft.attribute,
            value=draft.value,
            valid_from=date,
            valid_to=draft.until,
            surface_forms=list(draft.forms),
        )
        self._open[key] = len(self.facts)
        self.facts.append(fact)
        if draft.path:
            self.set_path(draft.path, draft.path_value or draft.value, date, event_id, "factual")
        return fact

    def set_path(self, path: str, value: str, date: dt.date, event_id: str, phase: str) -> None:
        """Set a profile value, recording an `add` or `modify` op (nothing when unchanged)."""
        old = get_path(self.profile, path)
        if old != value:
            self.apply(date, event_id, phase, "modify" if old else "add", path, old or None, value)

    def remove_path(self, path: str, date: dt.date, event_id: str, phase: str, value: str | None = None) -> None:
        """Remove a profile value (or one string of a list, `value`), if present."""
        present = value if value is not None and value in (get_list(self.profile, path) or []) else None
        old = present if value is not None else get_path(self.profile, path)
        if old is not None:
            self.apply(date, event_id, phase, "remove", path, old, None)

    def add_to_list(self, path: str, value: str, date: dt.date, event_id: str, phase: str) -> None:
        """Append a string to a list (hobbies, ongoing matters), if it is not there yet."""
        if value not in (get_list(self.profile, path) or []):
            self.apply(date, event_id, phase, "add", path, None, value)

    def apply(self, date: dt.date, event_id: str, phase: str, op: str, path: str, old: str | None,
              new: str | None) -> ProfileOp:
        """Apply one op to the profile, re-validate the profile and record the op."""
        row = ProfileOp(
            op_id=f"{self.persona_id}-o{len(self.ops) + 1:04d}", persona_id=self.persona_id, date=date,
            event_id=event_id, phase=phase, op=op, path=path, old_value=old, new_value=new,
        )
        candidate = copied_along(self.profile, path)
        apply_op(candidate, row)
        validate_section(candidate, row)
        self.profile = candidate
        self.ops.append(row)
        return row

    def add_matter(self, matter: Matter, date: dt.date) -> None:
        """State phase: open an ongoing matter (or extend it when already open)."""
        self.matters = [m for m in self.matters if m.text != matter.text] + [matter]
        self.add_to_list(MATTERS_PATH, matter.text, date, matter.event_id, "state")

    def live(self) -> list[Constraint]:
        """The constraints that may still hold (those before `_ended`, all ended by the last prune, are skipped: a
        long life's constraints are not all read for every plan)."""
        return self.constraints[self._ended:]

    def holding(self, kind: str, day: dt.date) -> list[Constraint]:
        """The constraints of `kind` holding on `day`."""
        return [c for c in self.live() if c.kind == kind and c.valid_from <= day < c.valid_to]

    def add_constraint(self, constraint: Constraint) -> None:
        """State phase: a critical event's lasting restriction, shown as an ongoing matter until it ends. One of
        the same kind still holding is replaced: it ends the day the new one begins (as its fact does, superseded),
        and its matter with it, so the constraint store and the fact store agree on what holds."""
        day = constraint.valid_from
        for old in self.holding(constraint.kind, day):
            self.constraints[self._ended + self.live().index(old)] = old.model_copy(update={"valid_to": day})
            self.matters = [m for m in self.matters if m.text != old.description]
            self.remove_path(MATTERS_PATH, day, constraint.event_id, "state", old.description)
        self.constraints.append(constraint)
        self.add_matter(Matter(constraint.description, constraint.event_id, constraint.valid_to), day)

    def blocked_tags(self, day: dt.date) -> set[str]:
        """The event-kind tags that the constraints holding on `day` forbid."""
        return {t for c in self.live() if c.valid_from <= day < c.valid_to for t in c.blocks}

    def blocker(self, tags: frozenset[str], day: dt.date) -> Constraint | None:
        """The first constraint holding on `day` that forbids one of `tags`."""
        return next((c for c in self.live() if c.valid_from <= day < c.valid_to and tags & set(c.blocks)), None)

    def prune(self, date: dt.date) -> None:
        """Prune phase: remove finished matters and expired constraints, clear the transient preferences
        they held, restore health where set. Constraints ended by `date` at the front of the list are skipped from
        now on (`live`): the simulator asks about no day before the prune's."""
        while self._ended < len(self.constraints) and self.constraints[self._ended].valid_to <= date:
            self._ended += 1
        finished = [m for m in self.matters if m.until <= date]
        self.matters = [m for m in self.matters if m.until > date]
        for matter in finished:
            self.remove_path(MATTERS_PATH, date, matter.event_id, "prune", matter.text)
            if matter.clears:
                self.remove_path(matter.clears, date, matter.event_id, "prune")
            if matter.health_after:
                self.set_path("current_status.health", matter.health_after, date, matter.event_id, "state")

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the profile as it stands now."""
        return copy.deepcopy(self.profile)


def copied_along(profile: dict[str, Any], path: str) -> dict[str, Any]:
    """A copy of `profile` in which every container on `path` is a fresh copy and the rest is shared: an op applied
    to it leaves `profile` as it was, and costs the same however much the profile has grown (a long life's
    relations and what is known of them), unlike a deep copy of the whole."""
    root = dict(profile)
    node: Any = root
    for name, key, value in _SEGMENT.findall(path):
        child = node.get(name) if isinstance(node, dict) else None
        if isinstance(child, list | dict):
            child = list(child) if isinstance(child, list) else dict(child)
            node[name] = child
        if key and isinstance(child, list):
            at = next((i for i, x in enumerate(child) if isinstance(x, dict) and x.get(key) == value), None)
            if at is None:
                return root
            child[at] = dict(child[at])
            child = child[at]
        if not isinstance(child, dict):
            return root
        node = child
    return root


_SECTIONS = {name: TypeAdapter(field.annotation) for name, field in Profile.model_fields.items()}
"""The Profile's top-level sections (identity, traits, relationships, ...), each validated on its own."""


def validate_section(profile: dict[str, Any], op: ProfileOp) -> None:
    """Raise InvalidOp when the section of the profile `op` changed no longer validates (the others, unchanged, still
    do: Profile has no check across sections), or when the op left the profile without a section or with another."""
    section = op.path.split(".", 1)[0].split("[", 1)[0]
    if section not in _SECTIONS or set(profile) != set(_SECTIONS):
        validate_profile(profile, op)
        return
    try:
        _SECTIONS[section].validate_python(profile[section])
    except ValidationError as exc:
        raise InvalidOp(f"profile invalid after {op.op_id} ({op.op} {op.path}): {exc.errors()[0]['msg']}") from None


def validate_profile(profile: dict[str, Any], op: ProfileOp | None = None) -> None:
    """Raise InvalidOp when the profile no longer validates against the Profile schema."""
    try:
        Profile.model_validate(profile)
    except ValidationError as exc:
        where = f" after {op.op_id} ({op.op} {op.path})" if op else ""
        raise InvalidOp(f"profile invalid{where}: {exc.errors()[0]['msg']}") from None


def apply_op(profile: dict[str, Any], op: ProfileOp) -> None:
    """Apply one add/modify/remove op to a profile dict in place (InvalidOp when the path is wrong)."""
    segments = _SEGMENT.findall(op.path)
    if not segments:
        raise InvalidOp(f"empty profile path in {op.op_id}")
    *parents, (name, key, value) = segments
    node = _walk(profile, parents, op)
    if key:
        _apply_item(node, name, key, value, op)
    elif isinstance(node.get(name), list):
        _apply_list(node[name], op)
    elif op.op == "remove":
        if name not in node:
            raise InvalidOp(f"{op.op_id}: nothing at {op.path} to remove")
        del node[name]
    else:
        current = node.get(name)
        node[name] = int(op.new_value) if isinstance(current, int) and op.new_value is not None else op.new_value


def _walk(profile: dict[str, Any], segments: list[tuple[str, str, str]], op: ProfileOp) -> dict[str, Any]:
    node: Any = profile
    for name, key, value in segments:
        node = node.get(name) if isinstance(node, dict) else None
        if key:
            node = next((x for x in node or [] if isinstance(x, dict) and x.get(key) == value), None)
        if not isinstance(node, dict):
            raise InvalidOp(f"{op.op_id}: path {op.path} does not exist")
    return node


def _apply_item(node: dict[str, Any], name: str, key: str, value: str, op: ProfileOp) -> None:
    items = node.get(name)
    if not isinstance(items, list):
        raise InvalidOp(f"{op.op_id}: {name} is not a list")
    item = next((x for x in items if x.get(key) == value), None)
    if op.op == "remove":
        if item is None:
            raise InvalidOp(f"{op.op_id}: no item {op.path} to remove")
        items.remove(item)
    elif item is None:
        items.append({"name": op.new_value, key: value, "attributes": {}} if key != "name"
                     else {"name": value, "attributes": {}})
    else:
        item["name"] = op.new_value


def _apply_list(items: list[Any], op: ProfileOp) -> None:
    if op.op in ("remove", "modify") and op.old_value not in items:
        raise InvalidOp(f"{op.op_id}: {op.old_value!r} is not in {op.path}")
    if op.op == "add":
        items.append(op.new_value)
    elif op.op == "remove":
        items.remove(op.old_value)
    else:
        items[items.index(op.old_value)] = op.new_value


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
    return str(node) if isinstance(node, str | int) and not isinstance(node, bool) else None


def get_list(profile: dict[str, Any], path: str) -> list[str] | None:
    """The list of strings at `path` (hobbies, ongoing matters), or None."""
    node: Any = profile
    for name, _, _ in _SEGMENT.findall(path):
        node = node.get(name) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None


def replay(profile: dict[str, Any], ops: list[ProfileOp]) -> dict[str, Any]:
    """The profile after applying `ops` in order to a copy of `profile`, validating after each one."""
    current = copy.deepcopy(profile)
    for op in ops:
        apply_op(current, op)
        validate_profile(current, op)
    return current


def facts_valid_at(facts: list[Fact], date: dt.date) -> list[Fact]:
    """The facts true on `date`: valid_from <= date < valid_to (or still open)."""
    return [f for f in facts if f.valid_from <= date and (f.valid_to is None or date < f.valid_to)]
