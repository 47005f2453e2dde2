"""The generator kit's document view: the persona's documents, chunks and emails as of a question time
(`DocView`, built once per context), correspondents, leak filtering (`registered`), value pools and phrasing."""

from __future__ import annotations

import datetime as dt
import email.utils
import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from schemas.corpus import Chunk, Document
from schemas.world import Fact
from tasks.common.facttext import (
    attribute_noun,
    carries,
    clause,
    event_question,
    first_name,
    holder,
    mentions,
)
from tasks.common.timeutil import human_date, local_date
from tasks.questions.base import Candidate, Generator, QContext, Ref, generator

NOISE_KINDS = ("newsletter", "receipt", "notice")


@dataclass
class DocView:
    """The documents known at `before`, their chunks and unambiguous names."""

    ctx: QContext
    before: dt.datetime

    def __post_init__(self) -> None:
        self.docs = sorted((d for d in self.ctx.corpus.documents if d.created_at < self.before),
                           key=lambda d: (d.created_at, d.doc_id))
        self.by_id = {d.doc_id: d for d in self.docs}
        chunks: dict[str, list[Chunk]] = defaultdict(list)
        for c in self.ctx.corpus.chunks:
            if c.doc_id in self.by_id and c.created_at < self.before:
                chunks[c.doc_id].append(c)
        self.chunks = {k: sorted(v, key=lambda c: c.ordinal) for k, v in chunks.items()}
        self.citing: dict[str, list[Document]] = defaultdict(list)
        """fact id -> the documents claiming it, in `docs`' order."""
        for d in self.docs:
            for fid in dict.fromkeys(d.fact_ids):
                self.citing[fid].append(d)
        self._labels = Counter(self.raw_label(d) for d in self.docs)
        self._short = Counter(self.raw_short_label(d) for d in self.docs)

    def day(self, doc: Document) -> dt.date:
        return local_date(self.ctx.persona, doc.created_at)

    @property
    def first(self) -> str:
        return first_name(self.ctx.persona.name)

    def raw_label(self, doc: Document) -> str:
        when = human_date(self.day(doc))
        if doc.source_type == "journal":
            return f"{self.first}'s journal entry of {when}"
        if doc.source_type == "report":
            return f'the report "{doc.title}" of {when}'
        return f'the email "{doc.title}" that {self.who(doc.sender)} sent on {when}'

    def raw_short_label(self, doc: Document) -> str:
        if doc.source_type == "journal":
            return ""
        if doc.source_type == "report":
            return f'the report "{doc.title}"'
        if party(doc.sender) == self.ctx.persona.name and doc.recipients:
            return f'the email "{doc.title}" {self.first} sent to {self.who(doc.recipients[0])}'
        return f'the email "{doc.title}" from {self.who(doc.sender)}'

    def short_label(self, doc: Document) -> str | None:
        """The document named without its date; None for journals and names shared by two known documents."""
        text = self.raw_short_label(doc)
        return text if text and self._short[text] == 1 else None

    def label(self, doc: Document) -> str | None:
        """How a question names the document; None when another known document shares the name."""
        text = self.raw_label(doc)
        return text if self._labels[text] == 1 else None

    def who(self, header: str | None) -> str:
        """The display name of a `Name <address>` header (the persona's first name for the persona)."""
        name = party(header)
        return self.first if name == self.ctx.persona.name else name

    def emails(self) -> list[Document]:
        return [d for d in self.docs if d.source_type == "email"]

    def chunks_carrying(self, doc: Document, fact: Fact) -> list[Chunk]:
        """The document's chunks that claim and carry the fact."""
        return [c for c in self.chunks.get(doc.doc_id, []) if fact.fact_id in c.fact_ids and carries(c.text, fact)]

    def chunk_refs(self, doc: Document) -> tuple[Ref, ...]:
        return tuple(Ref("chunk", c.chunk_id) for c in self.chunks.get(doc.doc_id, []))

    def head_and_facts(self, doc: Document) -> tuple[Ref, ...]:
        """The document's first chunk (its title, or an email's header with sender and date) and every chunk
        carrying one of its claimed facts (citing the first such fact)."""
        out = []
        for i, c in enumerate(self.chunks.get(doc.doc_id, [])):
            fid = next((f for f in c.fact_ids if f in doc.fact_ids and f in self.ctx.facts
                        and carries(c.text, self.ctx.facts[f])), None)
            if i == 0 or fid:
                out.append(Ref("chunk", c.chunk_id, fid))
        return tuple(out)

    def chunks_with(self, doc: Document, *texts: str) -> tuple[Ref, ...]:
        """The document's chunks containing any of `texts`, plus its first chunk (header)."""
        cs = self.chunks.get(doc.doc_id, [])
        return tuple(Ref("chunk", c.chunk_id) for i, c in enumerate(cs) if i == 0 or any(t in c.text for t in texts))


def doc_view(ctx: QContext) -> DocView:
    """The context's document view at its question time, built once per context and shared by every
    generator that reads it (cached on the context object)."""
    view = ctx.__dict__.get("_doc_view")
    if view is None:
        view = ctx.__dict__["_doc_view"] = DocView(ctx, ctx.asked_at)
    return view


@functools.lru_cache(maxsize=4096)
def party(header: str | None) -> str:
    """`Daniel Okafor <daniel@x>` -> `Daniel Okafor` (parsed once per distinct header)."""
    name, addr = email.utils.parseaddr(header or "")
    return name or addr


def leaks(question: str, answer: str) -> bool:
    return mentions(question, answer)


def unleaked(cands: list[Candidate]) -> list[Candidate]:
    """The candidates whose answer is not in their question (unless the question lists the options)."""
    return [c for c in cands if c.extra.get("options_in_question") or not leaks(c.question, c.answer)]


def registered(category: str, characteristic: str) -> Callable[[Generator], Generator]:
    """`@generator` for a function whose leaking candidates (the answer in the question, e.g. a count that
    is also a day of the month in a date the question names) are dropped here rather than by the framework."""

    def wrap(fn: Generator) -> Generator:
        @functools.wraps(fn)
        def run(ctx: QContext) -> list[Candidate]:
            return unleaked(fn(ctx))

        return generator(category, characteristic)(run)

    return wrap


def dedupe(values: Iterable[str], answer: str, limit: int = 8) -> tuple[str, ...]:
    """Distinct non-empty values other than the answer, in first-seen order."""
    out: list[str] = []
    seen: set[str] = {answer}
    for v in values:
        if len(out) >= limit:
            break
        if v and v not in seen:
            seen.add(v)
            if not overlaps(v, answer):
                out.append(v)
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def overlaps(a: str, b: str) -> bool:
    """True when either text mentions the other as a whole phrase (cached: distractor pools repeat)."""
    return mentions(a, b) or mentions(b, a)


def number_distractors(n: int, others: Iterable[int] = ()) -> tuple[str, ...]:
    """`others`, then nearby non-negative integers on both sides of `n`, as strings (mcq.py decides how
    many lie below the gold)."""
    pool = list(others) + [v for v in range(n - 6, n + 7) if v != n]
    return dedupe((str(v) for v in pool if v >= 0), str(n), limit=16)


def value_pool(ctx: QContext, fact: Fact, limit: int = 8) -> tuple[str, ...]:
    """Distractors for a fact's value: other values of the same attribute only (any subject, stale values
    included, latest first; facts known at the question time). Fewer than five: the item stays
    short-answer rather than borrow values of another kind."""
    key = fact.attribute.rsplit(".", 1)[-1]
    return dedupe(_values_by_attribute(ctx).get(key, ()), fact.value, limit)


def _values_by_attribute(ctx: QContext) -> dict[str, list[str]]:
    """Values of the facts known on ctx.day by attribute (last dotted part), latest first; computed once
    per context (stored on it), as a persona's generators ask for thousands of value pools."""
    memo = ctx.__dict__.setdefault("_values_by_attribute", {})
    if ctx.day not in memo:
        facts = sorted((f for f in ctx.facts.values() if f.valid_from <= ctx.day),
                       key=lambda f: (f.valid_from, f.fact_id), reverse=True)
        grouped: dict[str, list[str]] = {}
        for f in facts:
            grouped.setdefault(f.attribute.rsplit(".", 1)[-1], []).append(f.value)
        memo[ctx.day] = grouped
    return memo[ctx.day]


AUXILIARIES = ("is", "are", "was", "were", "has", "have", "had")


def be(value: str, verb: str = "is") -> str:
    """`is Boston`; a value that is itself a verb phrase is quoted: `is "is moving to Vancouver"`."""
    first = value.split(" ", 1)[0].lower()
    return f'{verb} "{value}"' if first in AUXILIARIES else f"{verb} {value}"


def person_of(ctx: QContext, subject: str) -> str:
    """How a fact's subject is named in a question (the persona by first name)."""
    return first_name(ctx.persona.name) if subject == ctx.persona.name else subject


def attribute_of(ctx: QContext, fact: Fact) -> str:
    """`Maya's city`, `Daniel Okafor's city`, `Maya's cancelled lunch` (tasks/common/facttext.py attribute_noun)."""
    return f"{holder(fact, ctx.persona, 'third')} {attribute_noun(fact.attribute)}"


NOW_WORDS = re.compile(r",? \b(?:now|these days|at the moment|at present)\b")
"""The present-time adverbs of a state clause (`Maya lives in Boston now`), which a question about a past
telling drops."""


def said(ctx: QContext, fact: Fact) -> str:
    """The fact as a clause a question can hold (tasks/common/facttext.py `clause`, without `now`): `Maya lives
    in Boston`, `Maya had to cancel lunch with Sam`, never `Maya's lunch cancelled is lunch with Sam`."""
    if fact.attribute == "relationship" and fact.valid_to is not None and fact.valid_to <= ctx.day:
        # a relation that no longer holds on the question's day is said as it held then (`Joaquim was Sofía's
        # partner`), never as if it held now (`Sofía gets on well with her partner Joaquim`, of her ex)
        return f"{fact.subject} was {first_name(ctx.persona.name)}'s {fact.value}"
    return NOW_WORDS.sub("", clause(fact, ctx.persona, "third"))


def asking(ctx: QContext, fact: Fact) -> str:
    """The question the fact's value answers, without its mark: `what is Maya's city`, and for an event what
    happened (`which lunch did Maya have to cancel`), never `what is Maya's lunch cancelled`."""
    return event_question(fact.attribute, person_of(ctx, fact.subject)) or f"what is {attribute_of(ctx, fact)}"


def doc_query(doc: Document) -> str:
    return f"SELECT * FROM documents WHERE doc_id = '{doc.doc_id}'"
