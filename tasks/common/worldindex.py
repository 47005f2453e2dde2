"""Lookups into a World built once per world: a plan or an event by id, the facts an event produced, the facts
of a (subject, attribute) in time order and the one before a given fact; and a persona's documents by event.

Stages used to find these by scanning the whole world for each turn, topic, document or question (every plan to
title one event, every fact to find one event's). Over a long life (`[world] years`, up to fifteen) each scan grew
with the history behind it, and so did the cost of each simulated year; with the index a year costs the same
whatever came before (bench/years.py). An index is built on first use and kept while the World lives (a weak
reference); a World whose lists changed length since (the simulator's, being built) gets a fresh one.
"""

from __future__ import annotations

import datetime as dt
import re
import weakref
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from schemas.corpus import Document
from schemas.world import Event, Fact, Plan, World


@dataclass
class WorldIndex:
    plans: dict[str, Plan]
    events: dict[str, Event]
    facts: dict[str, Fact]
    by_event: dict[str, list[Fact]]
    """event id -> its facts, in the order they were made."""
    by_key: dict[tuple[str, str], list[Fact]]
    """(subject, attribute) -> its facts by (valid_from, fact_id)."""
    starts: dict[tuple[str, str], list[dt.date]] = field(default_factory=dict)
    """(subject, attribute) -> the valid_from of each of its facts, in `by_key`'s order."""
    _keys_of: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    _forms: dict[str, list[str]] = field(default_factory=dict)
    _stories: list[Event] = field(default_factory=list)
    _story_days: list[dt.date] = field(default_factory=list)

    def facts_of(self, event_id: str) -> list[Fact]:
        return self.by_event.get(event_id, [])

    def predecessor(self, fact: Fact) -> Fact | None:
        """The latest fact of the same (subject, attribute) begun before `fact` (by valid_from, then fact id)."""
        history = self.by_key.get((fact.subject, fact.attribute), [])
        n = bisect_left(self.starts.get((fact.subject, fact.attribute), []), fact.valid_from)
        return history[n - 1] if n else None

    def keys_of(self) -> dict[str, list[tuple[str, str]]]:
        """attribute -> its (subject, attribute) keys, in `by_key`'s order."""
        if not self._keys_of:
            for key in self.by_key:
                self._keys_of.setdefault(key[1], []).append(key)
        return self._keys_of

    def forms_by_word(self) -> dict[str, list[str]]:
        """Every surface form of the store's facts by its longest word (lower case; `""`: forms with no word). A
        form that occurs in a text as a whole phrase has each of its words among the text's words, so a text need
        only be tested against the forms of its own words."""
        if not self._forms:
            for fact in self.facts.values():
                for form in fact.surface_forms:
                    words = re.findall(r"\w+", form.lower())
                    bucket = self._forms.setdefault(max(words, key=len) if words else "", [])
                    if form not in bucket:
                        bucket.append(form)
        return self._forms

    def stories(self) -> list[Event]:
        """The events but the baseline, by (date, event id) (facttext.story_events)."""
        if not self._stories:
            self._stories = sorted((e for e in self.events.values() if e.event_id != f"{e.persona_id}-e0000"),
                                   key=lambda e: (e.date, e.event_id))
            self._story_days = [e.date for e in self._stories]
        return self._stories

    def stories_between(self, first: dt.date, last: dt.date) -> list[Event]:
        """`stories` dated from `first` to `last` (a period's report reads its own, not the whole life's)."""
        stories = self.stories()
        return stories[bisect_left(self._story_days, first):bisect_right(self._story_days, last)]

    def plan_of(self, event: Event | None) -> Plan | None:
        return self.plans.get(event.plan_id) if event is not None and event.plan_id else None


_INDEXES: dict[int, tuple[weakref.ref, tuple[int, int, int], WorldIndex]] = {}


def index(world: World) -> WorldIndex:
    """The world's index (built on first use, rebuilt when its plans, events or facts changed in number)."""
    sizes = (len(world.plans), len(world.events), len(world.facts))
    kept = _INDEXES.get(id(world))
    if kept is not None and kept[0]() is world and kept[1] == sizes:
        return kept[2]
    by_event: dict[str, list[Fact]] = defaultdict(list)
    by_key: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for fact in world.facts:  # in the order made (fact id order, also past f9999)
        by_event[fact.event_id].append(fact)
    for fact in sorted(world.facts, key=lambda f: (f.valid_from, f.fact_id)):
        by_key[(fact.subject, fact.attribute)].append(fact)
    built = WorldIndex(plans={p.plan_id: p for p in world.plans}, events={e.event_id: e for e in world.events},
                       facts={f.fact_id: f for f in world.facts}, by_event=dict(by_event), by_key=dict(by_key),
                       starts={key: [f.valid_from for f in facts] for key, facts in by_key.items()})
    if kept is None:
        weakref.finalize(world, _INDEXES.pop, id(world), None)
    _INDEXES[id(world)] = (weakref.ref(world), sizes, built)
    return built


_DOCS: dict[int, tuple[Sequence[Document], int, dict[str, list[Document]]]] = {}


def documents_by_event(documents: Sequence[Document]) -> dict[str, list[Document]]:
    """event id -> its documents, in the sequence's order; built once per sequence (the same list is passed for
    every event of a persona), kept for the last few sequences."""
    kept = _DOCS.get(id(documents))
    if kept is not None and kept[0] is documents and kept[1] == len(documents):
        return kept[2]
    found: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        if doc.event_id:
            found[doc.event_id].append(doc)
    if len(_DOCS) >= 8:
        _DOCS.clear()
    _DOCS[id(documents)] = (documents, len(documents), dict(found))
    return _DOCS[id(documents)][2]
