"""The aggregate QA verifier: scores each question and withdraws the ones that fail.

Each question is scored in [0, 1] on four dimensions, from its derivation and the fact store:

- correctness: the answer equals a recomputation from the fact store (the current value of the
  derivation's subject and attribute at question time; the date of the named event; the earlier of
  two events); templates it does not know are checked against the derivation's computed answer;
- uniqueness: only one answer fits (one value of that subject and attribute valid at question time;
  one event with that title, on one date; two events on different dates; MCQ options distinct);
- consistency: every fact the derivation uses resolves, and every evidence link cites one of those
  facts through a turn or chunk that exists, precedes question_time and carries the fact;
- quality: non-empty answers, a question that asks, evidence present, the answer not given away by the
  question (unless the derivation says the options are part of the question).

A question scoring below 1 on any dimension is withdrawn: it leaves the question set (and its evidence)
and keeps a `QuestionReview` row with status `withdrawn` and the failed dimension as `reason`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from schemas.audit import QuestionReview
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import Evidence, Question, QuestionSet
from schemas.world import Event, Fact, World
from tasks.facttext import carries, event_title, mentions, story_events

DIMENSIONS = ("correctness", "uniqueness", "consistency", "quality")
Checks = list[tuple[bool, str]]
"""(passed, what was checked) pairs; a dimension's score is the share passed."""


@dataclass
class Store:
    """Lookups over one persona's world and corpus."""

    persona: Persona
    world: World
    corpus: Corpus

    def __post_init__(self) -> None:
        self.facts = {f.fact_id: f for f in self.world.facts}
        self.events = {e.event_id: e for e in self.world.events}
        self.items = {("turn", t.turn_id): (t.timestamp, t.text) for t in self.corpus.turns}
        self.items |= {("chunk", c.chunk_id): (c.created_at, c.text) for c in self.corpus.chunks}

    def title(self, event: Event) -> str:
        return event_title(event, self.world.plans)


def review_questions(
    persona: Persona, world: World, corpus: Corpus, qset: QuestionSet
) -> tuple[QuestionSet, list[QuestionReview]]:
    """Score every question; return the kept questions with their evidence, and one review per question."""
    store = Store(persona, world, corpus)
    reviews = [review(store, q, [e for e in qset.evidence if e.question_id == q.question_id]) for q in qset.questions]
    kept = {r.question_id for r in reviews if r.status == "kept"}
    return QuestionSet(
        questions=[q for q in qset.questions if q.question_id in kept],
        evidence=[e for e in qset.evidence if e.question_id in kept],
    ), reviews


def review(store: Store, q: Question, evidence: list[Evidence]) -> QuestionReview:
    """One question's scores and verdict."""
    checks = {
        "correctness": correctness(store, q),
        "uniqueness": uniqueness(store, q),
        "consistency": consistency(store, q, evidence),
        "quality": quality(q, evidence),
    }
    scores = {d: sum(ok for ok, _ in c) / len(c) if c else 1.0 for d, c in checks.items()}
    failed = [d for d in DIMENSIONS if scores[d] < 1.0]
    details = [f"{d}: {what}" for d in DIMENSIONS for ok, what in checks[d] if not ok]
    return QuestionReview(
        question_id=q.question_id, persona_id=q.persona_id, category=q.category,
        template=str(q.derivation.get("template", "")), question=q.question, answer=q.answer,
        **{d: round(scores[d], 4) for d in DIMENSIONS},
        overall=round(sum(scores.values()) / len(scores), 4),
        status="withdrawn" if failed else "kept", reason=failed[0] if failed else "", details=details,
    )


def as_of(q: Question) -> dt.date:
    """The persona-local day the question is asked (the derivation's `as_of`, else question_time's date)."""
    stamp = q.derivation.get("as_of")
    return dt.datetime.fromisoformat(stamp).date() if isinstance(stamp, str) else q.question_time.date()


def valid_on(fact: Fact, day: dt.date) -> bool:
    return fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)


def rivals(store: Store, fact: Fact, day: dt.date) -> list[Fact]:
    """Facts about the same subject and attribute that hold on `day`, latest first."""
    same = [
        f for f in store.world.facts
        if f.subject == fact.subject and f.attribute == fact.attribute and valid_on(f, day)
    ]
    return sorted(same, key=lambda f: (f.valid_from, f.fact_id), reverse=True)


def _events(store: Store, q: Question) -> list[Event] | None:
    ids = q.derivation.get("event_ids") or []
    found = [store.events.get(i) for i in ids]
    return None if not ids or None in found else found


def _first_fact(store: Store, q: Question) -> Fact | None:
    ids = q.derivation.get("fact_ids") or []
    return store.facts.get(ids[0]) if ids else None


def recompute(store: Store, q: Question) -> str | None:
    """The answer recomputed from the fact store for the question's template; None when it cannot be."""
    template = str(q.derivation.get("template", ""))
    if template.startswith("fact."):
        fact = _first_fact(store, q)
        now = rivals(store, fact, as_of(q)) if fact else []
        return now[0].value if now else None
    events = _events(store, q)
    if not events:
        return None
    if template == "temporal.implicit_temporal_lookup":
        return events[0].date.isoformat()
    if template == "temporal.sequence_comprehension":
        return store.title(min(events, key=lambda e: (e.date, e.event_id)))
    return None


KNOWN = ("fact.", "temporal.implicit_temporal_lookup", "temporal.sequence_comprehension")


def correctness(store: Store, q: Question) -> Checks:
    template = str(q.derivation.get("template", ""))
    if not template.startswith(KNOWN):
        computed = str(q.derivation.get("computed_answer", ""))
        return [(computed == q.answer, f"answer equals the derivation's computed answer {computed!r}")]
    value = recompute(store, q)
    checks = [(value is not None, "the fact store yields an answer"), (value == q.answer, f"answer equals {value!r}")]
    if q.answer_type == "mcq":
        gold = q.options[q.gold_option] if q.gold_option is not None and 0 <= q.gold_option < len(q.options) else None
        checks.append((gold == q.answer, "gold option is the answer"))
    return checks


def uniqueness(store: Store, q: Question) -> Checks:
    template = str(q.derivation.get("template", ""))
    checks: Checks = []
    if template.startswith("fact.") and (fact := _first_fact(store, q)):
        values = {f.value for f in rivals(store, fact, as_of(q))}
        checks.append((len(values) <= 1, f"one value of {fact.subject}'s {fact.attribute} holds ({sorted(values)})"))
    elif template.startswith("temporal.") and (events := _events(store, q)):
        checks += _unique_events(store, events)
    if q.answer_type == "mcq":
        checks.append((len(set(q.options)) == len(q.options), "options are distinct"))
        checks.append((q.options.count(q.answer) == 1, "the answer is exactly one option"))
    return checks


def _unique_events(store: Store, events: list[Event]) -> Checks:
    titles = {}
    for e in story_events(store.world):
        titles.setdefault(store.title(e), set()).add(e.date)
    checks = [(len(titles.get(store.title(e), {e.date})) == 1, f"'{store.title(e)}' names one date") for e in events]
    if len(events) > 1:
        checks.append((len({e.date for e in events}) == len(events), "the events fall on different dates"))
    return checks


def consistency(store: Store, q: Question, evidence: list[Evidence]) -> Checks:
    used = q.derivation.get("fact_ids") or []
    checks = [(fid in store.facts, f"fact {fid} resolves") for fid in used]
    mine = [f for f in used if f in store.facts]
    checks += [(store.facts[f].persona_id == q.persona_id, f"fact {f} is the persona's") for f in mine]
    for row in evidence:
        checks += _evidence_checks(store, q, row, used)
    return checks


def _evidence_checks(store: Store, q: Question, row: Evidence, used: list[str]) -> Checks:
    item, fact = store.items.get((row.evidence_kind, row.evidence_id)), store.facts.get(row.fact_id)
    checks = [(row.fact_id in used, f"{row.evidence_id} cites a fact the derivation uses ({row.fact_id})"),
              (item is not None, f"{row.evidence_kind} {row.evidence_id} exists")]
    if item is not None:
        checks.append((item[0] < q.question_time, f"{row.evidence_id} precedes question_time"))
        checks.append((fact is not None and carries(item[1], fact), f"{row.evidence_id} carries {row.fact_id}"))
    return checks


QUALITY: tuple[tuple[str, Callable[[Question, list[Evidence]], bool]], ...] = (
    ("answer is not empty", lambda q, ev: bool(q.answer.strip())),
    ("reference answer is not empty", lambda q, ev: bool(q.reference_answer.strip())),
    ("question ends with a question mark", lambda q, ev: q.question.rstrip().endswith("?")),
    ("question has evidence", lambda q, ev: bool(ev)),
    ("answer is not given away by the question", lambda q, ev: not leaks(q)),
)


def leaks(q: Question) -> bool:
    """True when the answer appears in the question and the derivation does not say options are asked."""
    return not q.derivation.get("options_in_question") and mentions(q.question, q.answer)


def quality(q: Question, evidence: list[Evidence]) -> Checks:
    return [(test(q, evidence), what) for what, test in QUALITY]
