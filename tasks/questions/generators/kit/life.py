"""The generator kit's views of the simulated life: stories (events with their plans and facts), attribute
histories, entity and value pools, relations, the profile and preferences on a day, and the world's whole text
for absence checks."""

from __future__ import annotations

import datetime as dt
import json
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from schemas.world import Event, Fact
from tasks.common import worldindex
from tasks.common.facttext import is_baseline, mentions
from tasks.questions.base import QContext
from tasks.questions.generators.kit.core import NOT_ENTITIES, pool
from tasks.world.standing import ENTITY_FIELDS, TEAMS


@dataclass(frozen=True)
class Story:
    """A non-baseline event with its plan's title and entity, and the facts it produced."""

    event: Event
    title: str
    entity: dict
    facts: tuple[Fact, ...]

    @property
    def kind(self) -> str:
        return self.event.kind

    @property
    def date(self) -> dt.date:
        return self.event.date

    @property
    def fact_ids(self) -> tuple[str, ...]:
        return tuple(f.fact_id for f in self.facts)


def stories(ctx: QContext) -> list[Story]:
    """Every non-baseline event with facts before the question day, by date (built once per context and
    day, stored on it: generators ask for it hundreds of times; callers get a fresh list)."""
    memo = ctx.__dict__.setdefault("_stories", {})
    if ctx.day not in memo:
        memo[ctx.day] = _stories(ctx)
    return list(memo[ctx.day])


def _stories(ctx: QContext) -> list[Story]:
    """`stories`, computed."""
    plans = {p.plan_id: p for p in ctx.world.plans}
    produced: dict[str, list[Fact]] = defaultdict(list)
    for fact in sorted(ctx.world.facts, key=lambda f: f.fact_id):
        produced[fact.event_id].append(fact)
    out = []
    for e in sorted(ctx.world.events, key=lambda e: (e.date, e.event_id)):
        if is_baseline(e) or not produced[e.event_id] or e.date >= ctx.day:
            continue
        plan = plans.get(e.plan_id or "")
        title = plan.title if plan else e.kind.replace("_", " ")
        out.append(Story(e, title, dict(plan.entity) if plan else {}, tuple(produced[e.event_id])))
    return out


def unique_titles(items: list[Story]) -> list[Story]:
    """The stories whose title names exactly one event (so a title identifies it)."""
    counts = Counter(s.title for s in items)
    return [s for s in items if counts[s.title] == 1]


def histories(ctx: QContext) -> dict[tuple[str, str], list[Fact]]:
    """(subject, attribute) -> facts by valid_from, only those begun before the question day (what comes
    later never shapes a question)."""
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for fact in sorted(ctx.world.facts, key=lambda f: (f.valid_from, f.fact_id)):
        if fact.valid_from < ctx.day:
            groups[(fact.subject, fact.attribute)].append(fact)
    return groups


PEOPLE_FIELDS = frozenset({"friend", "relative", "person", "companion", "partner", "colleague", "date_name"})
ATTRIBUTE_FIELDS = {"favourite_cafe": "cafe", "disliked_cafe": "cafe", "doctor": "doctor", "gym": "gym",
                    "grocery_shop": "market", "team": "team"}
"""Persona attributes whose values are plan entities of one field (for same-form distractors)."""


def entity_pool(ctx: QContext, field_name: str | None) -> list[str]:
    """Same-form names for a plan-entity field: that field's values in every plan made before the question
    day, then world entities of the field's role (all cafés for `cafe`, all doctors for `doctor`)."""
    if field_name is None:
        return []
    if field_name == "team":
        return list(TEAMS)
    memo = ctx.__dict__.setdefault("_entity_pools", {})  # per context and day: generators ask per candidate
    if (field_name, ctx.day) not in memo:
        memo[(field_name, ctx.day)] = _entity_pool(ctx, field_name)
    return list(memo[(field_name, ctx.day)])


def _entity_pool(ctx: QContext, field_name: str) -> list[str]:
    """`entity_pool`, computed."""
    names = [p.entity[field_name] for p in sorted(ctx.world.plans, key=lambda p: p.plan_id)
             if p.entity.get(field_name) and p.created_on < ctx.day]
    role = ENTITY_FIELDS.get(field_name, ("", ""))[1]
    names += [e.name for e in ctx.world.entities if role and e.role == role and e.first_seen < ctx.day]
    if field_name in PEOPLE_FIELDS:  # other people the persona knows
        names += [r.name for r in ctx.persona.profile.relationships]
        names += [e.name for e in ctx.world.entities
                  if e.kind == "person" and e.first_seen < ctx.day and not e.name.startswith("Dr.")]
    return [n for n in names if n not in NOT_ENTITIES]


def attribute_pool(ctx: QContext, attribute: str) -> list[str]:
    """Same-form values for a persona attribute from the plans and entities (homes from planned moves)."""
    if attribute == "home":
        return [f"flat at {a}" for a in entity_pool(ctx, "address")]
    return entity_pool(ctx, ATTRIBUTE_FIELDS.get(attribute))


def values_of(ctx: QContext, attribute: str) -> list[str]:
    """Every value the attribute takes in the world, in fact order (a distractor family)."""
    memo = ctx.__dict__.setdefault("_values_of", {})  # per context and day: every attribute's, in one pass
    if ctx.day not in memo:
        found: dict[str, list[str]] = defaultdict(list)
        for f in sorted(ctx.world.facts, key=lambda f: f.fact_id):
            if f.valid_from < ctx.day:
                found[f.attribute].append(f.value)
        memo[ctx.day] = found
    return list(memo[ctx.day].get(attribute, ()))


def relations(ctx: QContext, day: dt.date) -> dict[str, str]:
    """Related person -> role on `day`, from the relationship facts (else the initial profile)."""
    out = {}
    for fact in ctx.world.facts:
        if fact.attribute == "relationship" and ctx.valid_on(fact, day) and fact.subject != ctx.persona.name:
            now = ctx.current(fact.subject, "relationship", day)
            if now is not None:
                out[fact.subject] = now.value
    if not out:
        out = {r.name: r.role for r in ctx.persona.profile.relationships}
    return dict(sorted(out.items()))


def profile_at(ctx: QContext, day: dt.date) -> dict[str, Any]:
    """The profile as of `day` (latest snapshot not after it; else the initial profile)."""
    snaps = [s for s in ctx.world.profile_snapshots if s.as_of <= day]
    if snaps:
        return max(snaps, key=lambda s: s.as_of).profile
    return ctx.persona.profile.model_dump(mode="json")


def world_text(ctx: QContext) -> str:
    """Every text of the world and corpus, for absence checks (facts, events, plans, entities, profiles,
    turns, chunks, documents)."""
    parts: list[str] = [ctx.persona.name, json.dumps(ctx.persona.profile.model_dump(mode="json"))]
    parts += [f.value + "\n" + "\n".join(f.surface_forms) for f in ctx.world.facts]
    parts += [e.narrative for e in ctx.world.events]
    parts += [p.title + "\n" + "\n".join(p.entity.values()) for p in ctx.world.plans]
    parts += [e.name + "\n" + "\n".join(e.attributes.values()) for e in ctx.world.entities]
    parts += [c.description for c in ctx.world.constraints]
    parts += [o.new_value or "" for o in ctx.world.profile_ops]
    parts += [t.text for t in ctx.corpus.turns]
    parts += [c.text for c in ctx.corpus.chunks]
    parts += [d.title + "\n" + d.body for d in ctx.corpus.documents]
    return "\n".join(parts)


def absent(text: str, forms: Iterable[str], low: str | None = None) -> bool:
    """True when none of `forms` occurs in `text` as a whole phrase, ignoring case (a near-duplicate
    name such as `Copper Kettle Café` next to a real `Copper Kettle Coffee` is a welcome distractor).
    `low` is `text.lower()`, passed when checking many forms against one text."""
    low = text.lower() if low is None else low
    return not any(form.lower() in low and mentions(text, form) for form in forms)


def draw_view(ctx: QContext, day: dt.date) -> dict[str, Any]:
    """The profile as the catalog's draw functions see it, with the standing colleagues."""
    colleagues = [(e.name, e.attributes.get("team", "")) for e in ctx.world.entities if e.role == "colleague"]
    return profile_at(ctx, day) | {"_world": {"colleagues": colleagues} if colleagues else {}}


def preference_paths(ctx: QContext) -> dict[str, str]:
    """Profile preference path -> the fact attribute recording it (from factual-phase ops)."""
    by_event: dict[str, list[Fact]] = defaultdict(list)
    for fact in ctx.world.facts:
        if fact.subject == ctx.persona.name:
            by_event[fact.event_id].append(fact)
    out: dict[str, str] = {}
    for op in ctx.world.profile_ops:
        if op.phase != "factual" or not op.path.startswith("traits.preferences.") or op.new_value is None:
            continue
        match = next((f for f in by_event[op.event_id] if f.value == op.new_value), None)
        if match is not None:
            out.setdefault(op.path, match.attribute)
    return dict(sorted(out.items()))


def preferences_on(ctx: QContext, day: dt.date) -> dict[str, str]:
    """Profile path -> value of the traits.preferences entries on `day`, replaying the ops."""
    prefs: dict[str, str] = {}
    for op in sorted(ctx.world.profile_ops, key=lambda o: (o.date, o.op_id)):
        if op.date > day or not op.path.startswith("traits.preferences."):
            continue
        if op.op == "remove":
            prefs.pop(op.path, None)
        elif op.new_value is not None:
            prefs[op.path] = op.new_value
    return prefs


@dataclass(frozen=True)
class Change:
    """A preference the persona changed for a reason (tasks/world/causes.py): the value left, the new one, the
    reason as told and the facts of the event that gave it."""

    old: Fact
    new: Fact
    cause: str
    cause_event: Event
    cause_facts: tuple[Fact, ...]


def changes_with_reasons(ctx: QContext) -> list[Change]:
    """Every change of a persona preference made before the question day whose plan records its reason."""
    plans = {p.plan_id: p for p in ctx.world.plans}
    out = []
    for fact in sorted(ctx.world.facts, key=lambda f: (f.valid_from, f.fact_id)):
        event = ctx.events.get(fact.event_id)
        plan = plans.get(event.plan_id or "") if event else None
        if plan is None or fact.valid_from >= ctx.day or fact.subject != ctx.persona.name:
            continue
        cause = ctx.events.get(plan.entity.get("cause_event", ""))
        before = [f for f in ctx.history(fact.subject, fact.attribute) if f.valid_from < fact.valid_from]
        if cause is None or not before or before[-1].value == fact.value:
            continue
        facts = tuple(sorted(worldindex.index(ctx.world).facts_of(cause.event_id), key=lambda f: f.fact_id))
        if facts:
            out.append(Change(before[-1], fact, plan.entity["cause"], cause, facts))
    return out


def date_pool(ctx: QContext, answer: dt.date) -> tuple[str, ...]:
    """Other ISO dates: neighbouring days and the dates of nearby events."""
    memo = ctx.__dict__.setdefault("_story_days", {})
    if ctx.day not in memo:
        memo[ctx.day] = sorted({s.date for s in stories(ctx)})
    days_ = memo[ctx.day]
    span = days_[bisect_left(days_, answer - dt.timedelta(days=21)):bisect_right(days_, answer + dt.timedelta(days=21))]
    near = sorted((d for d in span if d != answer), key=lambda d: (abs((d - answer).days), d))
    days = [answer + dt.timedelta(days=k) for k in (1, -1, 2, -2, 7, -7)]
    return pool([d.isoformat() for d in near[:6] + days], answer.isoformat())
