"""Questions computed from the fact store, with evidence found in the corpus and checked.

Every question is asked at question_time (09:00 persona-local on the day after the simulation). Its
answer is computed from the facts valid at that moment (or from the events' dates), and its
evidence is every turn and chunk that claims one of the facts used, actually carries one of its
surface forms and precedes question_time. A question whose facts have no such evidence is not
emitted. Templates (category / characteristic):

- fact / state_dependent_attribute: "What is <subject>'s current <attribute>?"
- fact / entity_disambiguation: "What is the current <attribute> of <persona>'s <role> <first name>?"
  (only when two related people share that first name)
- temporal / sequence_comprehension: "Which did <persona> do first: <title A>, or <title B>?"
  (two positive events at most SEQUENCE_WINDOW_DAYS apart, options in seeded order)
- temporal / implicit_temporal_lookup: "On what date did <persona> <title>?" (ISO date)

Selection: per category, characteristics take turns; within one, attributes that changed during the
simulation (and namesake questions) come first, then short entity-like answers, then statuses and
long phrases; ties are broken with the seeded RNG.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import Evidence, Question, QuestionSet
from schemas.world import Event, Fact, World
from tasks.facttext import (
    attribute_phrase,
    carries,
    event_title,
    first_name,
    mentions,
    story_events,
)
from tasks.rng import rng_for
from tasks.timeutil import human_date, local_date, question_time

STAGE = "questions"
CATEGORIES = ("fact", "temporal")
SEQUENCE_WINDOW_DAYS = 30
"""Sequence questions pair events at most this far apart: close events are the hard ones to order."""


@dataclass(frozen=True)
class Candidate:
    """A question before selection: its text, answers, the facts it rests on and its derivation."""

    category: str
    characteristic: str
    question: str
    answer: str
    reference_answer: str
    template: str
    query: str
    fact_ids: tuple[str, ...]
    priority: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def write_questions(config: BuildConfig, persona: Persona, world: World, corpus: Corpus) -> QuestionSet:
    """Up to `stages.questions.per_category` fact and temporal questions, with their evidence."""
    asked_at = question_time(config, persona)
    evidence = evidence_index(corpus, world.facts, asked_at)
    day = local_date(persona, asked_at)
    pool = state_questions(world, day) + disambiguation_questions(persona, world, day)
    dated = dated_events(world)
    pool += sequence_questions(config, persona, dated) + date_questions(persona, dated)
    usable = [c for c in pool if all(evidence.get(f) for f in c.fact_ids) and not leaks(c)]
    chosen = [
        c for cat in CATEGORIES for c in select(config, persona, [u for u in usable if u.category == cat])
    ]
    return assemble(persona, chosen, evidence, asked_at)


def evidence_index(
    corpus: Corpus, facts: list[Fact], before: dt.datetime
) -> dict[str, list[tuple[str, str]]]:
    """fact id -> [(kind, id)] of turns and chunks that claim the fact, carry it and precede `before`."""
    by_id = {f.fact_id: f for f in facts}
    index: dict[str, list[tuple[str, str]]] = defaultdict(list)
    items = [("turn", t.turn_id, t.timestamp, t.text, t.fact_ids) for t in corpus.turns]
    items += [("chunk", c.chunk_id, c.created_at, c.text, c.fact_ids) for c in corpus.chunks]
    for kind, item_id, stamp, text, fact_ids in items:
        for fid in fact_ids:
            if fid in by_id and stamp < before and carries(text, by_id[fid]):
                index[fid].append((kind, item_id))
    return index


def valid_on(fact: Fact, day: dt.date) -> bool:
    """True when the fact holds on `day` (valid_to is exclusive)."""
    return fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)


def current_fact(facts: list[Fact], day: dt.date) -> Fact | None:
    """The latest-starting fact among `facts` that holds on `day`."""
    valid = [f for f in facts if valid_on(f, day)]
    return max(valid, key=lambda f: (f.valid_from, f.fact_id)) if valid else None


def attribute_history(world: World) -> dict[tuple[str, str], list[Fact]]:
    """(subject, attribute) -> its facts ordered by valid_from."""
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for fact in sorted(world.facts, key=lambda f: (f.valid_from, f.fact_id)):
        groups[(fact.subject, fact.attribute)].append(fact)
    return groups


def state_query(subject: str, attribute: str, day: dt.date) -> str:
    """The fact-store query behind a current-value question."""
    return (
        f"SELECT value FROM facts WHERE subject = '{subject}' AND attribute = '{attribute}' "
        f"AND valid_from <= '{day}' AND (valid_to IS NULL OR valid_to > '{day}') "
        "ORDER BY valid_from DESC LIMIT 1"
    )


def current(phrase: str) -> str:
    """`city` -> `current city`; `current book` stays as it is."""
    return phrase if phrase.startswith("current ") else f"current {phrase}"


def answer_priority(attribute: str, value: str) -> int:
    """1 for a short entity-like answer, 2 for outcome statuses and long phrases (asked last)."""
    return 2 if attribute.endswith("_status") or len(value.split()) > 5 else 1


def state_questions(world: World, day: dt.date) -> list[Candidate]:
    """fact/state_dependent_attribute: the current value of each attribute; changed ones first."""
    out = []
    for (subject, attribute), history in attribute_history(world).items():
        now = current_fact(history, day)
        if now is None:
            continue
        phrase, before = attribute_phrase(attribute), [f for f in history if f.valid_from < now.valid_from]
        reference = f"As of {human_date(day)}, {subject}'s {phrase} is {now.value}."
        if before:
            reference += f" It changed from {before[-1].value} on {human_date(now.valid_from)}."
        out.append(
            Candidate(
                "fact",
                "state_dependent_attribute",
                f"What is {subject}'s {current(phrase)}?",
                now.value,
                reference,
                "fact.state_dependent_attribute",
                state_query(subject, attribute, day),
                (now.fact_id,),
                priority=0 if before else answer_priority(attribute, now.value),
                extra={"superseded_fact_ids": [f.fact_id for f in before]},
            )
        )
    return out


def namesakes(persona: Persona) -> dict[str, str]:
    """Full name -> role, for related people who share a first name with another related person."""
    rels = persona.profile.relationships
    counts = Counter(first_name(r.name) for r in rels)
    return {r.name: r.role for r in rels if counts[first_name(r.name)] > 1}


def disambiguation_questions(persona: Persona, world: World, day: dt.date) -> list[Candidate]:
    """fact/entity_disambiguation: an attribute of one of two same-first-name relations, named by role."""
    out = []
    twins = namesakes(persona)
    for (subject, attribute), history in attribute_history(world).items():
        now = current_fact(history, day)
        if subject not in twins or now is None or attribute_phrase(attribute) in ("role", "relationship"):
            continue
        role, phrase, first = twins[subject], attribute_phrase(attribute), first_name(subject)
        others = sorted(n for n in twins if n != subject and first_name(n) == first)
        out.append(
            Candidate(
                "fact",
                "entity_disambiguation",
                f"What is the {current(phrase)} of {first_name(persona.name)}'s {role} {first}?",
                now.value,
                f"{first_name(persona.name)}'s {role} is {subject} (not {', '.join(others)}); "
                f"as of {human_date(day)} {first}'s {phrase} is {now.value}.",
                "fact.entity_disambiguation",
                state_query(subject, attribute, day),
                (now.fact_id,),
                priority=0,
                extra={"resolved_entity": subject, "confusable_with": others},
            )
        )
    return out


class Dated(NamedTuple):
    """A positive event whose plan title names it uniquely, with the facts it produced."""

    event: Event
    title: str
    fact_ids: tuple[str, ...]


def dated_events(world: World) -> list[Dated]:
    """Positive events with facts and a unique title (so a title names exactly one event), by date."""
    story = story_events(world)
    titles = {e.event_id: event_title(e, world.plans) for e in story}
    counts = Counter(titles.values())
    produced: dict[str, list[str]] = defaultdict(list)
    for fact in sorted(world.facts, key=lambda f: f.fact_id):
        produced[fact.event_id].append(fact.fact_id)
    return [
        Dated(e, titles[e.event_id], tuple(produced[e.event_id]))
        for e in story
        if e.valence == "positive" and produced[e.event_id] and counts[titles[e.event_id]] == 1
    ]


def date_questions(persona: Persona, dated: list[Dated]) -> list[Candidate]:
    """temporal/implicit_temporal_lookup: the date of an event named by its plan title."""
    name = first_name(persona.name)
    return [
        Candidate(
            "temporal",
            "implicit_temporal_lookup",
            f"On what date did {name} {d.title}?",
            d.event.date.isoformat(),
            f"{name} did this on {human_date(d.event.date)} ({d.event.date.isoformat()}).",
            "temporal.implicit_temporal_lookup",
            f"SELECT date FROM events WHERE event_id = '{d.event.event_id}'",
            d.fact_ids,
            extra={"event_ids": [d.event.event_id]},
        )
        for d in dated
    ]


def close_pairs(dated: list[Dated]) -> list[tuple[Dated, Dated]]:
    """Pairs of events on different days at most SEQUENCE_WINDOW_DAYS apart, earlier one first."""
    pairs = []
    for i, a in enumerate(dated):
        for b in dated[i + 1 :]:
            if (b.event.date - a.event.date).days > SEQUENCE_WINDOW_DAYS:
                break
            if b.event.date > a.event.date:
                pairs.append((a, b))
    return pairs


def sequence_questions(config: BuildConfig, persona: Persona, dated: list[Dated]) -> list[Candidate]:
    """temporal/sequence_comprehension: which of two nearby events came first (options in seeded
    random order, so the first-named option is not always the answer)."""
    name, out = first_name(persona.name), []
    for a, b in close_pairs(dated):
        key = f"order:{a.event.event_id}:{b.event.event_id}"
        flip = rng_for(config.seed, persona.persona_id, STAGE, None, key).random() < 0.5
        options = (b.title, a.title) if flip else (a.title, b.title)
        out.append(
            Candidate(
                "temporal",
                "sequence_comprehension",
                f"Which did {name} do first: {options[0]}, or {options[1]}?",
                a.title,
                f"{name} did this first: {a.title} (on {human_date(a.event.date)}); "
                f"then {b.title} (on {human_date(b.event.date)}).",
                "temporal.sequence_comprehension",
                f"SELECT event_id, date FROM events WHERE event_id IN ('{a.event.event_id}', "
                f"'{b.event.event_id}') ORDER BY date LIMIT 1",
                a.fact_ids + b.fact_ids,
                extra={"event_ids": [a.event.event_id, b.event.event_id], "options_in_question": True},
            )
        )
    return out


def leaks(candidate: Candidate) -> bool:
    """True when the answer string appears in the question (the sequence template names both options)."""
    if candidate.characteristic == "sequence_comprehension":
        return False
    return mentions(candidate.question, candidate.answer)


def select(config: BuildConfig, persona: Persona, candidates: list[Candidate]) -> list[Candidate]:
    """Up to per_category candidates, taking characteristics in turn; within one, higher priority first
    and ties drawn with the seeded RNG."""
    if not candidates:
        return []
    rng = rng_for(config.seed, persona.persona_id, STAGE, None, f"select:{candidates[0].category}")
    groups: dict[str, list[tuple[int, float, Candidate]]] = defaultdict(list)
    for c in sorted(candidates, key=lambda c: (c.characteristic, c.question)):
        groups[c.characteristic].append((c.priority, rng.random(), c))
    queues = [sorted(g, key=lambda k: k[:2]) for _, g in sorted(groups.items())]
    picked: list[Candidate] = []
    while len(picked) < config.stages.questions.per_category and any(queues):
        for queue in queues:
            if queue and len(picked) < config.stages.questions.per_category:
                picked.append(queue.pop(0)[2])
    return sorted(picked, key=lambda c: (c.characteristic, c.question))


def assemble(
    persona: Persona,
    chosen: list[Candidate],
    evidence: dict[str, list[tuple[str, str]]],
    asked_at: dt.datetime,
) -> QuestionSet:
    """Numbered questions with their derivations, and one evidence row per (question, item, fact)."""
    questions, rows = [], []
    for n, c in enumerate(chosen, start=1):
        qid = f"{persona.persona_id}-q{n:04d}"
        derivation = {
            "template": c.template,
            "query": c.query,
            "computed_answer": c.answer,
            "fact_ids": list(c.fact_ids),
            "as_of": asked_at.isoformat(),
            **c.extra,
        }
        questions.append(
            Question(
                question_id=qid,
                persona_id=persona.persona_id,
                category=c.category,
                characteristics=[c.characteristic],
                question_time=asked_at,
                question=c.question,
                answer=c.answer,
                reference_answer=c.reference_answer,
                answer_type="short",
                derivation=derivation,
            )
        )
        rows += [
            Evidence(question_id=qid, evidence_id=item, evidence_kind=kind, fact_id=fid)
            for fid in c.fact_ids
            for kind, item in evidence[fid]
        ]
    return QuestionSet(questions=questions, evidence=rows)
