"""The vocabulary of the event catalog: what an event kind is and what its outcomes establish.

An `EventKind` draws its concrete entity, titles a plan for it and says which facts, profile changes,
ongoing matters and (for critical outcomes) lasting constraints a positive or negative rollout
produces. Templates use `str.format` fields taken from the entity dict. Tags name what a plan
involves (running, travel, spending, ...) so constraints can forbid conflicting plans.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tasks.common.english import INFLECT

Entity = dict[str, str]


@dataclass(frozen=True)
class FactSpec:
    """A fact an outcome establishes. `subject` is "persona" or the entity field naming the subject; `attribute`
    may name an entity field too (`{life_attribute}`: what a friend's news is about)."""

    attribute: str
    value: str
    forms: tuple[str, ...] = ()
    path: str | None = None
    subject: str = "persona"
    writes: str | None = None
    """What the profile path receives, when not the fact's value (a relationship's name, say)."""

    def attribute_for(self, entity: Entity | None) -> str | None:
        """The attribute for `entity` (None when it is a template and no entity is given)."""
        if "{" not in self.attribute:
            return self.attribute
        return None if entity is None else self.attribute.format(**entity)


@dataclass(frozen=True)
class MatterSpec:
    """An ongoing matter an outcome opens, finished after `days`; `health_after` is set when it ends and
    `clears` (a profile path) is removed at the prune that drops it."""

    text: str
    days: tuple[int, int]
    health: str | None = None
    health_after: str | None = None
    clears: str | None = None


@dataclass(frozen=True)
class ConstraintSpec:
    """A lasting restriction: `kind` is the fact attribute, `text` its value (fields: entity, {until}),
    `short` a shorter surface form, `blocks` the tags it forbids for a number of days in `days`."""

    kind: str
    text: str
    short: str
    blocks: tuple[str, ...]
    days: tuple[int, int]


@dataclass(frozen=True)
class Outcome:
    """What one valence of a kind establishes.

    facts: committed in the factual phase; removes: profile paths removed in the factual phase;
    matter, health, hobby (added to hobbies), drop_hobby (removed from hobbies), lifestyle: state phase;
    constraint: a lasting restriction (critical outcomes); took_place: whether the planned thing happened at all
    (see `took_place`)."""

    facts: tuple[FactSpec, ...]
    matter: MatterSpec | None = None
    health: str | None = None
    critical: bool = False
    constraint: ConstraintSpec | None = None
    removes: tuple[str, ...] = ()
    hobby: str | None = None
    drop_hobby: str | None = None
    lifestyle: str | None = None
    took_place: bool = True
    """False when this outcome means the plan did not happen at all: called off, fell through, refused, rained
    off, turned away at the door, postponed, a call that never connected (`dinner_cancelled`, `move_fell_through`,
    `adoption_refused`). True when it happened, well or badly (a bad visit, a race ended by an injury, a flu caught
    on a family visit, a first date without a second). Narration, documents and the history checker
    (tasks/dialogue/agreement.py) read it through tasks/common/happened.py: what did not take place has no staff,
    no dish, no review and no "how was it"."""


_ARTICLE = re.compile(r"\b(a|an) ([A-Za-z][\w'-]*)")


_INFLECT = INFLECT


def agree_articles(text: str) -> str:
    """`a`/`an` before a word as inflect says that word takes it."""
    return _ARTICLE.sub(lambda m: _INFLECT.a(m.group(2)), text)


@dataclass(frozen=True)
class EventKind:
    key: str
    title: str
    draw: Callable[[random.Random, dict[str, Any]], Entity]
    positive: Outcome
    negative: Outcome
    weight: float = 2
    """Relative chance of being chosen when one of the day's plans is drawn."""
    long_share: float = 0.5
    cooldown: int = 14
    spare_cooldown: int | None = None
    """The cooldown for a persona with no job to go to (a student, a retiree, the unemployed), when shorter: the
    days a job takes go to hobbies, friends, family and volunteering instead (`cooldown_for`)."""
    requires: Callable[[dict[str, Any]], bool] = field(default=lambda profile: True)
    tags: frozenset[str] = frozenset()
    keep: str | None = None
    """A persona attribute of a routine that mostly goes where it went before (the usual shop, the same doctor,
    the same volunteering): with probability `keep_share`, and always while the ontology's rate forbids a change,
    the plan takes the entity fields that attribute's value is made of from the plan that set it, so the
    rollout changes no state."""
    keep_share: float = 0.0
    keep_with: tuple[str, ...] = ()
    """Entity fields kept together with `keep`'s value because the value belongs to them (a hobby goal to its
    hobby, and the place that hobby is done): a kept goal for salsa is never worked towards on a bike."""
    yearly: Callable[[dict[str, Any]], float] | None = None
    """For a life transition (a move, a job change, a layoff): the chance a year that a plan of this kind is made,
    given the profile (life-stage-aware: tasks/world/transitions.py). Such a kind is not drawn among the day's
    plans; each day it is planned with probability `yearly(profile) / 365`, so it stays as rare as lives are."""
    scheduled: bool = False
    """For a life stage (a birthday, a first day at school, a parent's retirement; tasks/world/catalog_stages.py):
    never drawn nor planned at a rate; the simulator plans it on the day tasks/world/ages.py gives it."""

    def value_fields(self, attribute: str) -> tuple[str, ...]:
        """The entity fields the positive outcome's value of `attribute` is made of (`{task} at {org}`)."""
        specs = [s for s in self.positive.facts if s.attribute == attribute]
        return tuple(name for s in specs for _, name, _, _ in string.Formatter().parse(s.value) if name)

    def title_for(self, entity: Entity) -> str:
        """The plan title for this entity, its articles agreeing with what follows ("start an Italian cooking
        course", not "a Italian")."""
        return agree_articles(self.title.format(**entity))

    def cooldown_for(self, spare_time: bool) -> int:
        """The days between two plans of this kind: `spare_cooldown` for a persona with no job to go to."""
        return self.spare_cooldown if spare_time and self.spare_cooldown is not None else self.cooldown

    def outcome(self, valence: str) -> Outcome:
        """What a positive or a negative rollout of this kind establishes."""
        return self.positive if valence == "positive" else self.negative

    def tags_for(self, entity: Entity) -> frozenset[str]:
        """The kind's tags plus any the entity adds (a running hobby adds `running`)."""
        return self.tags | frozenset(entity.get("tags", "").split())


def fs(attribute: str, value: str, *forms: str, path: str | None = None, subject: str = "persona",
       writes: str | None = None) -> FactSpec:
    """Shorthand for a FactSpec."""
    return FactSpec(attribute, value, forms, path, subject, writes)


def tags(*names: str) -> frozenset[str]:
    """Shorthand for a tag set."""
    return frozenset(names)
