"""The question-generation framework's shared vocabulary: candidates, evidence refs, the per-persona
context generators read, and the generator registry.

A generator is a function `QContext -> list[Candidate]` registered with `@generator(category,
characteristic)`. It returns every candidate it can build; the framework (tasks/questions/select.py,
mcq.py, checkpoints.py, assemble.py) selects, balances, builds multiple-choice options, assigns
checkpoints, numbers ids and writes evidence rows and derivations. Answers are computed from the
world and corpus, never from a model.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Corpus, Document
from schemas.profile import Persona
from schemas.qa import CHARACTERISTICS, TAXONOMIES  # noqa: F401  (CHARACTERISTICS: RHELM's, re-exported)
from schemas.world import Event, Fact, World
from tasks.common.evidence import conveys, realized_spans
from tasks.common.rng import rng_for

STAGE = "questions"


TAXONOMY: dict[str, tuple[str, ...]] = {cat: chars for tax in TAXONOMIES.values() for cat, chars in tax.items()}
"""Every taxonomy's categories -> characteristics (RHELM's seven, FinPerMA's three, ...); `CHARACTERISTICS`
stays RHELM's alone. A domain pack's own taxonomy is `pack_for(config).taxonomy()`."""
CATEGORY_OF: dict[str, str] = {ch: cat for cat, chars in TAXONOMY.items() for ch in chars}
"""characteristic -> its category (characteristic names are unique across taxonomies)."""


@dataclass(frozen=True)
class Ref:
    """One evidence item: a turn or chunk, and the fact it carries (None for structural evidence)."""

    kind: str  # "turn" | "chunk"
    item_id: str
    fact_id: str | None = None


@dataclass(frozen=True)
class Candidate:
    """A question before selection: text, answers, the facts and evidence it rests on, its derivation."""

    category: str
    characteristics: tuple[str, ...]  # first is the primary one
    question: str
    answer: str  # the short computed answer (what scoring compares); for long items a short gist
    reference_answer: str  # full answer
    template: str  # "<category>.<characteristic>[.<variant>]"
    query: str  # the query over facts/events/documents/calendar that computed the answer
    fact_ids: tuple[str, ...]  # facts used (may be empty for pure document/structure items)
    answer_type: str = "short"  # "short" | "long"
    asked_at: dt.datetime | None = None  # None -> ctx.asked_at
    evidence: tuple[Ref, ...] = ()  # explicit evidence; empty -> every item carrying each fact before asked_at
    all_instances: bool = False  # evidence must list every instance that counts
    distractors: tuple[str, ...] = ()  # MCQ distractor pool, same form as the answer
    rubric: str = ""  # for long answers: what a judge must see
    checkpoint: str | None = None  # None -> computed by the framework
    priority: int = 1  # lower first within a characteristic
    extra: dict[str, Any] = field(default_factory=dict)  # extra derivation fields

    @property
    def characteristic(self) -> str:
        """The primary characteristic."""
        return self.characteristics[0]


@dataclass
class QContext:
    """What generators read, built once per persona by the framework."""

    config: BuildConfig
    persona: Persona
    world: World
    corpus: Corpus
    asked_at: dt.datetime  # default question time
    day: dt.date  # persona-local date of asked_at
    facts: dict[str, Fact] = field(default_factory=dict)
    events: dict[str, Event] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    _index: dict[str, list[tuple[dt.datetime, Ref]]] | None = field(default=None, repr=False)
    _history: dict[tuple[str, str], list[Fact]] | None = field(default=None, repr=False)
    _items: dict[tuple[str, str], tuple[dt.datetime, str]] | None = field(default=None, repr=False)
    _spans: dict[tuple[str, str, str], tuple[str, ...]] | None = field(default=None, repr=False)
    _sources: dict[tuple[str, str], str] | None = field(default=None, repr=False)
    _timeline: list[tuple[dt.datetime, str, str, str]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.facts:
            self.facts = {f.fact_id: f for f in self.world.facts}
        if not self.events:
            self.events = {e.event_id: e for e in self.world.events}
        if not self.documents:
            self.documents = {d.doc_id: d for d in self.corpus.documents}

    def rng(self, key: str) -> random.Random:
        """A private RNG for one purpose: rng_for(seed, persona_id, "questions", None, key)."""
        return rng_for(self.config.seed, self.persona.persona_id, STAGE, None, key)

    @property
    def evidence_index(self) -> dict[str, list[tuple[dt.datetime, Ref]]]:
        """fact id -> [(timestamp, Ref)] of every turn/chunk that claims and conveys the fact (a surface form, or
        a recorded mention in other words: tasks/common/evidence.py), by time."""
        if self._index is None:
            index: dict[str, list[tuple[dt.datetime, Ref]]] = defaultdict(list)
            items = [("turn", t.turn_id, t.timestamp, t.text, t.fact_ids) for t in self.corpus.turns]
            items += [("chunk", c.chunk_id, c.created_at, c.text, c.fact_ids) for c in self.corpus.chunks]
            for kind, item_id, stamp, text, fact_ids in items:
                for fid in fact_ids:
                    fact = self.facts.get(fid)
                    if fact is not None and conveys(text, fact, kind, item_id, self.spans):
                        index[fid].append((stamp, Ref(kind, item_id, fid)))
            for rows in index.values():
                rows.sort(key=lambda r: (r[0], r[1].kind, r[1].item_id))
            self._index = dict(index)
        return self._index

    @property
    def spans(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        """Where the corpus says a fact in other words: (kind, item id, fact id) -> recorded spans."""
        if self._spans is None:
            self._spans = realized_spans(self.corpus.mentions)
        return self._spans

    def conveys(self, ref: Ref, text: str) -> bool:
        """Whether `text`, the item `ref` names, states the fact `ref` cites."""
        fact = self.facts.get(ref.fact_id) if ref.fact_id is not None else None
        return fact is not None and conveys(text, fact, ref.kind, ref.item_id, self.spans)

    def evidence_for(self, fact_id: str, before: dt.datetime | None = None) -> list[Ref]:
        """Turns/chunks that claim AND carry the fact, strictly before `before` (default asked_at)."""
        limit = before or self.asked_at
        return [ref for stamp, ref in self.evidence_index.get(fact_id, []) if stamp < limit]

    def item(self, ref: Ref) -> tuple[dt.datetime, str] | None:
        """(timestamp, text) of the turn or chunk `ref` names, or None when it does not exist."""
        if self._items is None:
            items = {("turn", t.turn_id): (t.timestamp, t.text) for t in self.corpus.turns}
            items |= {("chunk", c.chunk_id): (c.created_at, c.text) for c in self.corpus.chunks}
            self._items = items
        return self._items.get((ref.kind, ref.item_id))

    @property
    def timeline(self) -> list[tuple[dt.datetime, str, str, str]]:
        """Every turn and chunk as (timestamp, kind, item id, text), in that order: a scan for the earliest
        items saying something stops at the first few it finds."""
        if self._timeline is None:
            items = [(t.timestamp, "turn", t.turn_id, t.text) for t in self.corpus.turns]
            items += [(c.created_at, "chunk", c.chunk_id, c.text) for c in self.corpus.chunks]
            self._timeline = sorted(items, key=lambda r: r[:3])
        return self._timeline

    def source(self, ref: Ref) -> str | None:
        """Where the item `ref` names was said: its session (a turn) or its document (a chunk)."""
        if self._sources is None:
            found = {("turn", t.turn_id): t.session_id for t in self.corpus.turns}
            found |= {("chunk", c.chunk_id): c.doc_id for c in self.corpus.chunks}
            self._sources = found
        return self._sources.get((ref.kind, ref.item_id))

    def valid_on(self, fact: Fact, day: dt.date) -> bool:
        """True when the fact holds on `day` (valid_to is exclusive)."""
        return fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)

    def current(self, subject: str, attribute: str, day: dt.date) -> Fact | None:
        """The latest-starting fact of (subject, attribute) that holds on `day`."""
        valid = [f for f in self.history(subject, attribute) if self.valid_on(f, day)]
        return max(valid, key=lambda f: (f.valid_from, f.fact_id)) if valid else None

    def history(self, subject: str, attribute: str) -> list[Fact]:
        """The facts of (subject, attribute) ordered by valid_from."""
        if self._history is None:
            groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
            for fact in sorted(self.world.facts, key=lambda f: (f.valid_from, f.fact_id)):
                groups[(fact.subject, fact.attribute)].append(fact)
            self._history = dict(groups)
        return list(self._history.get((subject, attribute), []))


Generator = Callable[[QContext], list[Candidate]]

GENERATORS: dict[str, Generator] = {}
"""`category.characteristic` -> the function building its candidates."""


def generator(category: str, characteristic: str) -> Callable[[Generator], Generator]:
    """Register the decorated function as the generator of `category.characteristic` (a characteristic
    of any taxonomy in schemas.qa.TAXONOMIES; a pack's `generators()` keeps those of its own taxonomy)."""
    if characteristic not in TAXONOMY.get(category, ()):
        raise ValueError(f"unknown characteristic {category}.{characteristic}")

    def register(fn: Generator) -> Generator:
        key = f"{category}.{characteristic}"
        known = GENERATORS.get(key)
        if known is not None and (known.__module__, known.__qualname__) != (fn.__module__, fn.__qualname__):
            raise ValueError(f"{key} already has a generator ({known.__module__}.{known.__qualname__}); "
                             "one function per characteristic: return every variant's candidates from it")
        GENERATORS[key] = fn
        return fn

    return register
