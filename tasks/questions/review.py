"""The aggregate QA verifier: scores each question and withdraws the ones that fail.

Each question is scored in [0, 1] on four dimensions, from its derivation and the fact store:

- correctness: the answer equals a recomputation. With the build config, the question's generator
  (the derivation's `generator`, registered in tasks/questions/) is run again on the world and corpus cut
  at the question's context time (`context_as_of`) and must yield the same template and question text
  (`template_question` when the text was reworded) at the same time with the same answer. In addition,
  with or without the config, wherever a generic rule exists the answer is recomputed independently of
  the generator (`independent`: the current value of an attribute at the question's day; the date of
  an event or dated email; counts of events by kind and valence or entity in a window, and of emails
  in a window; table cells and row counts from Document.tables; the earliest of a sequence's events),
  so a generator bug cannot confirm its own answer; a domain pack's rule (`DomainPack.recompute`, e.g.
  finance's from the Impact Model's constraints) must give the answer too. Without the config, a
  question no generic rule
  covers is checked against the derivation's computed answer. An MCQ item's gold option is its answer;
- uniqueness: only one answer fits (one value of a fact question's subject and attribute valid at
  question time; each event title the question names names one date; MCQ: six options, distinct after
  normalization, the answer exactly one of them);
- consistency: every fact the derivation uses resolves, and every evidence link cites one of those
  facts through a turn or chunk that exists, precedes question_time and carries the fact (structural
  evidence, with no fact, must exist and precede question_time);
- quality: non-empty answers, a question that asks, evidence present (zero-memory controls excepted),
  the answer not given away by the question (unless the derivation says the options are part of the
  question).

A question scoring below 1 on any dimension is withdrawn: it leaves the question set (and its evidence)
and keeps a `QuestionReview` row with status `withdrawn` and the failed dimension as `reason`. When the
withdrawals would leave a category above the selection's share cap, its last questions are withdrawn too
(`reason = "category_share"`), so the review never unbalances the set the selection balanced.
"""

from __future__ import annotations

import datetime as dt
import email.utils
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from schemas.audit import QuestionReview
from schemas.config import BuildConfig
from schemas.corpus import Corpus, Document
from schemas.profile import Persona
from schemas.qa import MCQ_OPTIONS, Evidence, Question, QuestionSet
from schemas.world import Event, Fact, World
from tasks.common.evidence import conveys, realized_spans
from tasks.common.facttext import event_title, is_event_fact, mentions, story_events
from tasks.common.timeutil import local_date
from tasks.domains import PACKS, DomainPack, pack_for, pack_named
from tasks.questions.select import category_cap, effective_share

DIMENSIONS = ("correctness", "uniqueness", "consistency", "quality")
Checks = list[tuple[bool, str]]
"""(passed, what was checked) pairs; a dimension's score is the share passed."""


@dataclass
class Store:
    """Lookups over one persona's world and corpus."""

    persona: Persona
    world: World
    corpus: Corpus
    config: BuildConfig | None = None

    def __post_init__(self) -> None:
        self.facts = {f.fact_id: f for f in self.world.facts}
        self.events = {e.event_id: e for e in self.world.events}
        self.items = {("turn", t.turn_id): (t.timestamp, t.text) for t in self.corpus.turns}
        self.items |= {("chunk", c.chunk_id): (c.created_at, c.text) for c in self.corpus.chunks}
        self.documents = {d.doc_id: d for d in self.corpus.documents}
        self.spans = realized_spans(self.corpus.mentions)
        self._reruns: dict[tuple[str, str], dict[tuple[str, str, str], list[str]]] = {}
        self._contexts: dict[str, object] = {}  # context_as_of -> QContext, shared by every generator
        self.pack = pack_of(self.config, self.persona)

    def title(self, event: Event) -> str:
        return event_title(event, self.world)

    def rerun(self, generator: str, context_as_of: str) -> dict[tuple[str, str, str], list[str]] | None:
        """(template, question, asked_at) -> answers, from running `generator` again in the context of
        `context_as_of`; None without a config or when no such generator exists."""
        from tasks.questions.assemble import CONTROL
        from tasks.questions.checkpoints import context_at, cut_of

        fn = self.pack.controls if generator == CONTROL else self.pack.generators().get(generator)
        if self.config is None or fn is None:
            return None
        key = (generator, context_as_of)
        if key not in self._reruns:
            ctx = self._contexts.get(context_as_of)
            if ctx is None:  # built once per context, as the question stage does (its caches are shared)
                moment = dt.datetime.fromisoformat(context_as_of)
                ctx = self._contexts[context_as_of] = context_at(
                    self.config, self.persona, self.world, self.corpus, cut_of(self.config, self.persona, moment))
            found: dict[tuple[str, str, str], list[str]] = {}
            for c in fn(ctx):
                stamp = (c.asked_at or ctx.asked_at).isoformat()
                found.setdefault((c.template, c.question, stamp), []).append(c.answer)
            self._reruns[key] = found
        return self._reruns[key]


def pack_of(config: BuildConfig | None, persona: Persona) -> DomainPack:
    """The build's domain pack; without a config, the pack the persona was built with (general when
    its domain names no pack, e.g. an imported corpus)."""
    if config is not None:
        return pack_for(config)
    return pack_named(persona.domain) if persona.domain in PACKS else DomainPack()


def _pack_rule(store: Store, q: Question) -> Recomputed:
    """The domain pack's recomputation of the answer, when it has a rule for the question."""
    value = store.pack.recompute(q, store.persona, store.world, store.corpus)
    return [] if value is None else [(value, f"the {store.pack.name} pack's rule")]


def review_questions(
    persona: Persona, world: World, corpus: Corpus, qset: QuestionSet, config: BuildConfig | None = None
) -> tuple[QuestionSet, list[QuestionReview]]:
    """Score every question; return the kept questions with their evidence, and one review per question.
    With `config` (the build's), every answer is recomputed by running its generator again."""
    store = Store(persona, world, corpus, config)
    cited: dict[str, list[Evidence]] = {}
    for e in qset.evidence:
        cited.setdefault(e.question_id, []).append(e)
    reviews = [review(store, q, cited.get(q.question_id, [])) for q in qset.questions]
    if config is not None:
        reviews = rebalance(reviews, qset.questions, config)
    kept = {r.question_id for r in reviews if r.status == "kept"}
    return QuestionSet(
        questions=[q for q in qset.questions if q.question_id in kept],
        evidence=[e for e in qset.evidence if e.question_id in kept],
    ), reviews


def rebalance(reviews: list[QuestionReview], questions: list[Question], config: BuildConfig) -> list[QuestionReview]:
    """The reviews with, after withdrawals, the last questions of a category over the selection's share cap
    (`stages.questions.max_category_share`, the zero-memory controls aside) withdrawn too, reason
    `category_share`: the selection balanced the set, and a withdrawal elsewhere must not unbalance it."""
    options = config.stages.questions
    checkpoint = {q.question_id: q.checkpoint for q in questions}
    out = list(reviews)
    while True:
        kept = [i for i, r in enumerate(out) if r.status == "kept" and checkpoint.get(r.question_id) != "zero_memory"]
        counts = Counter(out[i].category for i in kept)
        share = effective_share(options, len(counts))
        over = [c for c, n in sorted(counts.items()) if n > category_cap(options, len(kept), share)]
        if not over:
            return out
        last = max(i for i in kept if out[i].category == over[0])
        out[last] = out[last].model_copy(update={"status": "withdrawn", "reason": "category_share", "details": [
            f"category_share: {over[0]} would hold more than {share:.0%} of the persona's questions after "
            "the review's withdrawals"]})


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
    """Facts about the same subject and attribute that hold on `day`, latest first; for what happened at events
    (an event attribute: every earlier dinner out still happened), those of the most recent event day."""
    same = [
        f for f in store.world.facts
        if f.subject == fact.subject and f.attribute == fact.attribute and valid_on(f, day)
    ]
    same = sorted(same, key=lambda f: (f.valid_from, f.fact_id), reverse=True)
    if same and is_event_fact(fact):
        same = [f for f in same if f.valid_from == same[0].valid_from]
    return same


def _events(store: Store, q: Question) -> list[Event] | None:
    ids = q.derivation.get("event_ids") or []
    found = [store.events.get(i) for i in ids]
    return None if not ids or None in found else found


def _first_fact(store: Store, q: Question) -> Fact | None:
    ids = q.derivation.get("fact_ids") or []
    return store.facts.get(ids[0]) if ids else None


# -- independent recomputations ---------------------------------------------------------------------
Recomputed = list[tuple[str | None, str]]
"""(value recomputed without the question's generator, what was recomputed) pairs; None: it cannot be."""


def independent(store: Store, q: Question) -> Recomputed:
    """The question's answer recomputed from the world and corpus by a generic rule, not by its generator
    (so a generator bug cannot confirm itself): the current value of an attribute at the question's day;
    the date of an event or of a dated email; a count of events by kind and valence (or entity) in a
    window (the entity: the one value the counted events' plans share and the question names), or of
    emails in a window; a table cell or row count from Document.tables; the earlier of the
    events a sequence names. Empty when no generic rule covers the question."""
    template = str(q.derivation.get("template", ""))
    for prefix, rule in INDEPENDENT:
        if template.startswith(prefix):
            return rule(store, q)
    if q.derivation.get("answer_rule") in ("current_value", "latest_event"):
        return _current_value(store, q)
    return []


def _current_value(store: Store, q: Question) -> Recomputed:
    subject, attribute = q.derivation.get("subject"), q.derivation.get("attribute")
    if not (subject and attribute):
        fact = _first_fact(store, q)
        if fact is None:
            return [(None, "the question's first fact resolves")]
        subject, attribute = fact.subject, fact.attribute
    holding = sorted((f for f in store.world.facts if f.subject == subject and f.attribute == attribute
                      and valid_on(f, as_of(q))), key=lambda f: (f.valid_from, f.fact_id), reverse=True)
    return [(holding[0].value if holding else None, f"{subject}'s {attribute} on {as_of(q)} in the fact store")]


def _value_at_event(store: Store, q: Question) -> Recomputed:
    """The value the derivation's subject and attribute held on the day of its event (`.at_event`)."""
    subject, attribute, events = q.derivation.get("subject"), q.derivation.get("attribute"), _events(store, q)
    held = [f for f in store.world.facts if events and f.subject == subject and f.attribute == attribute
            and valid_on(f, events[0].date)]
    found = max(held, key=lambda f: (f.valid_from, f.fact_id)).value if held else None
    return [(found, f"{subject}'s {attribute} on the day of {events[0].event_id if events else 'its event'}")]


def _event_date(store: Store, q: Question) -> Recomputed:
    events = _events(store, q)
    if not events or not _is_date(q.answer):
        return []
    return [(events[0].date.isoformat(), f"the date of event {events[0].event_id}")]


def _sequence(store: Store, q: Question) -> Recomputed:
    events = _events(store, q)
    if not events:
        return [(None, "the sequence's events resolve")]
    if q.derivation.get("asks") == "last":
        return [(store.title(max(events, key=lambda e: (e.date, e.event_id))), "the latest named event")]
    return [(store.title(min(events, key=lambda e: (e.date, e.event_id))), "the earliest named event")]


def _email_date(store: Store, q: Question) -> Recomputed:
    docs = _docs(store, q)
    if len(docs) != 1 or not _is_date(q.answer):
        return []
    return [(local_date(store.persona, docs[0].created_at).isoformat(), f"the date of email {docs[0].doc_id}")]


def _event_count(store: Store, q: Question) -> Recomputed:
    """Events of the counted events' kind, before the question's day, in the derivation's window, of the
    variant's valence (went_well / went_badly) or naming the entity all counted events share."""
    events, variant = _events(store, q), str(q.derivation.get("template", "")).rsplit(".", 1)[-1]
    if not events or not q.answer.isdigit() or len({e.kind for e in events}) != 1:
        return []
    kind, day = events[0].kind, as_of(q)
    window = q.derivation.get("window") or [None, None]
    lo = dt.date.fromisoformat(window[0]) if window[0] else dt.date.min
    hi = dt.date.fromisoformat(window[1]) if window[1] else dt.date.max
    produced = {f.event_id for f in store.world.facts}
    pool = [e for e in store.world.events if e.kind == kind and e.plan_id is not None and e.event_id in produced
            and lo <= e.date <= hi and e.date < day]
    if variant in ("went_well", "went_badly"):
        valence = "positive" if variant == "went_well" else "negative"
        pool = [e for e in pool if e.valence == valence]
        what = f"{valence} '{kind}' events from {lo} to {min(hi, day)}"
    elif variant == "entity":
        plans = {p.plan_id: p for p in store.world.plans}
        shared = set.intersection(*({(k, v) for k, v in plans[e.plan_id].entity.items()} if e.plan_id in plans
                                    else set() for e in events))
        text = str(q.derivation.get("template_question", q.question))
        shared = {(k, v) for k, v in shared if mentions(text, v)}
        if len(shared) != 1:
            return [(None, "the counted events share the one entity the question names")]
        field_, value = next(iter(shared))
        pool = [e for e in pool if e.plan_id in plans and plans[e.plan_id].entity.get(field_) == value]
        what = f"'{kind}' events with {field_} {value} before {day}"
    else:
        return []
    return [(str(len(pool)), f"the count of {what}")]


def _email_count(store: Store, q: Question) -> Recomputed:
    """Emails of the counted emails' sender (`.from`) or to their common recipient (`.to`) in the window."""
    docs, window = _docs(store, q), q.derivation.get("window")
    if not docs or not window or not q.answer.isdigit():
        return []
    lo, hi = (dt.date.fromisoformat(w) for w in window)
    emails = [d for d in store.corpus.documents if d.source_type == "email" and d.created_at < q.question_time
              and lo <= local_date(store.persona, d.created_at) <= hi]
    senders = {_party(d.sender) for d in docs}
    if len(senders) != 1:
        return [(None, "the counted emails share a sender")]
    hits = [d for d in emails if _party(d.sender) in senders]
    if not str(q.derivation.get("template", "")).endswith(".from"):
        common = set.intersection(*({_party(r) for r in d.recipients} for d in docs)) - senders
        if len(common) != 1:
            return [(None, "the counted emails share a recipient")]
        hits = [d for d in hits if common & {_party(r) for r in d.recipients}]
    return [(str(len(hits)), f"the count of emails in {lo}..{hi}")]


def _table(store: Store, q: Question) -> list[dict]:
    """The tables of the question's documents, the one its quoted caption names first."""
    text = str(q.derivation.get("template_question", q.question))
    tables = [t for d in _docs(store, q) for t in d.tables]
    return sorted(tables, key=lambda t: f'"{t.get("caption", "")}"' not in text)


def _table_cell(store: Store, q: Question) -> Recomputed:
    from tasks.sources.reports import cell

    row, column = q.derivation.get("row"), q.derivation.get("column")
    if row is None or column is None:
        return []
    for table in _table(store, q):
        cols = list(table.get("columns", []))
        if column in cols:
            i = cols.index(column)
            for r in table.get("rows", []):
                if r and str(r[0]) == str(row) and len(r) > i:
                    return [(cell(r[i]), f"the cell ({row}, {column}) of Document.tables")]
    return [(None, f"the cell ({row}, {column}) is in Document.tables")]


def _table_rows(store: Store, q: Question) -> Recomputed:
    tables = _table(store, q)
    if not tables:
        return [(None, "the table is in Document.tables")]
    rows = [r for r in tables[0].get("rows", []) if r and str(r[0]).strip().lower() != "total"]
    return [(str(len(rows)), "the number of rows of Document.tables")]


def _party(header: str | None) -> str:
    """`Daniel Okafor <daniel@x>` -> `Daniel Okafor` (the address when there is no name)."""
    name, address = email.utils.parseaddr(header or "")
    return name or address


def _docs(store: Store, q: Question) -> list[Document]:
    ids = q.derivation.get("doc_ids") or []
    return [store.documents[i] for i in ids if i in store.documents]


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


INDEPENDENT: tuple[tuple[str, Callable[[Store, Question], Recomputed]], ...] = (
    ("fact.state_dependent_attribute.at_event", _value_at_event),
    ("fact.state_dependent_attribute", _current_value),
    ("temporal.implicit_temporal_lookup", _event_date),
    ("temporal.sequence_comprehension", _sequence),
    ("external.email_localization.date", _email_date),
    ("aggregation.conditional_counting.", _event_count),
    ("external.email_cross_time_count.from", _email_count),
    ("external.email_cross_time_count.to", _email_count),
    ("external.table_reasoning.", _table_cell),
    ("external.table_aggregation.count_rows", _table_rows),
)
"""Template prefix -> its generic recomputation (first match wins; others with answer_rule current_value
use the current value)."""


def _gold(q: Question) -> Checks:
    if q.answer_type != "mcq":
        return []
    gold = q.options[q.gold_option] if q.gold_option is not None and 0 <= q.gold_option < len(q.options) else None
    return [(gold == q.answer, "gold option is the answer")]


def correctness(store: Store, q: Question) -> Checks:
    template = str(q.derivation.get("template", ""))
    generator, context = q.derivation.get("generator"), q.derivation.get("context_as_of")
    found = store.rerun(str(generator), str(context)) if generator and context else None
    recomputed = [(value is not None and value == q.answer, f"answer equals {value!r}, recomputed independently: "
                                                            f"{what}")
                  for value, what in independent(store, q) + _pack_rule(store, q)]
    if found is not None:
        text = str(q.derivation.get("template_question", q.question))
        answers = found.get((template, text, q.question_time.isoformat()), [])
        return [(bool(answers), f"{generator} still asks this question at {q.question_time.isoformat()}"),
                (set(answers) == {q.answer}, f"answer equals the recomputed {sorted(set(answers))!r}")] + \
            recomputed + _gold(q)
    if not recomputed:
        computed = str(q.derivation.get("computed_answer", ""))
        return [(computed == q.answer, f"answer equals the derivation's computed answer {computed!r}")] + _gold(q)
    return recomputed + _gold(q)


def uniqueness(store: Store, q: Question) -> Checks:
    template = str(q.derivation.get("template", ""))
    checks: Checks = []
    fact = _first_fact(store, q) if template.startswith("fact.") else None
    if fact is not None and valid_on(fact, as_of(q)):
        values = {f.value for f in rivals(store, fact, as_of(q))}
        checks.append((len(values) <= 1, f"one value of {fact.subject}'s {fact.attribute} holds ({sorted(values)})"))
    elif template.startswith("temporal.") and (events := _events(store, q)):
        checks += _unique_events(store, q, events)
    if q.answer_type == "mcq":
        from tasks.questions.scales import normalize

        checks.append((len(q.options) == MCQ_OPTIONS, f"{MCQ_OPTIONS} options"))
        checks.append((len({normalize(o) for o in q.options}) == len(q.options), "options are distinct"))
        checks.append((q.options.count(q.answer) == 1, "the answer is exactly one option"))
    return checks


def _unique_events(store: Store, q: Question, events: list[Event]) -> Checks:
    """Each event title the question names names one date (and a sequence's events differ in date)."""
    titles: dict[str, set[dt.date]] = {}
    for e in story_events(store.world):
        if e.date <= as_of(q):  # a title that recurs only after the question is asked is not ambiguous yet
            titles.setdefault(store.title(e), set()).add(e.date)
    named = [e for e in events if mentions(q.question, store.title(e))]
    checks = [(len(titles.get(store.title(e), {e.date})) == 1, f"'{store.title(e)}' names one date") for e in named]
    if len(named) > 1 and str(q.derivation.get("template", "")).startswith("temporal.sequence_comprehension"):
        checks.append((len({e.date for e in named}) == len(named), "the events fall on different dates"))
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
    item = store.items.get((row.evidence_kind, row.evidence_id))
    checks = [(item is not None, f"{row.evidence_kind} {row.evidence_id} exists")]
    if item is not None:
        checks.append((item[0] < q.question_time, f"{row.evidence_id} precedes question_time"))
    if row.fact_id is None:  # structural evidence: a chunk holding a table or section
        return checks
    fact = store.facts.get(row.fact_id)
    checks.append((row.fact_id in used, f"{row.evidence_id} cites a fact the derivation uses ({row.fact_id})"))
    if item is not None:
        said = fact is not None and conveys(item[1], fact, row.evidence_kind, row.evidence_id, store.spans)
        checks.append((said, f"{row.evidence_id} carries {row.fact_id}"))
    return checks


QUALITY: tuple[tuple[str, Callable[[Question, list[Evidence]], bool]], ...] = (
    ("answer is not empty", lambda q, ev: bool(q.answer.strip())),
    ("reference answer is not empty", lambda q, ev: bool(q.reference_answer.strip())),
    ("question asks (has a question mark)", lambda q, ev: "?" in q.question),
    ("question has evidence (zero-memory controls need none)", lambda q, ev: bool(ev) or q.checkpoint == "zero_memory"),
    ("answer is not given away by the question", lambda q, ev: not leaks(q)),
)


def leaks(q: Question) -> bool:
    """True when the answer appears in the question and the derivation does not say options are asked."""
    return not q.derivation.get("options_in_question") and mentions(q.question, q.answer)


def quality(q: Question, evidence: list[Evidence]) -> Checks:
    return [(test(q, evidence), what) for what, test in QUALITY]
