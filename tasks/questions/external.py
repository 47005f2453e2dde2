"""External generators: questions answered from the persona's documents (emails, journals, reports).

Every answer is computed from the documents the persona had before the question is asked (their
headers, sections and ground-truth `tables`) and from the fact store; evidence is the chunks that
hold what is needed (a fact-carrying chunk cites its fact; a chunk holding a table row, a heading or
an email cites none). Documents are named by title, sender and persona-local date; a name shared by
two documents is ambiguous and its document is skipped.

- attachment_fact_retrieval: "According to <document>, what is <holder>'s <attribute>?" (the value the
  document states, which may since have changed), and the order number or amount of a shop receipt;
- table_reasoning: one cell of a report's table, named by its row and column;
- structural_navigation: the heading of the section stating a fact, the heading of the Nth section,
  the row a revised report changed (version N against N-1), who replied to an email;
- table_aggregation: max/min row, conditional counts and pair sums over a table column;
- email_cross_time_count: emails from (or to) one correspondent in a calendar window, messages in a thread;
- email_localization: the date of the email about an event (or of a receipt), the subject of the
  thread that mentioned a fact.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import functools
import html
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from schemas.corpus import Chunk, Document
from schemas.world import Fact
from tasks.common.facttext import (
    attribute_phrase,
    carries,
    carries_first,
    event_title,
    first_name,
    fits_slot,
    holder,
    mentions,
)
from tasks.common.timeutil import human_date, local_date
from tasks.questions.base import Candidate, Generator, QContext, Ref, generator
from tasks.sources.chunking import heading_of
from tasks.sources.reports import cell

NOISE_KINDS = ("newsletter", "receipt", "notice")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
CELLS_PER_TABLE = 4
"""table_reasoning: at most this many cells asked per table (seeded choice), so no report floods the pool."""
COUNT_MIN = 1
"""email_cross_time_count: windows with fewer matching emails are not asked (windows are written as month spans
without day numbers, so any count, 1 included, can be asked without the leak filter dropping it; of a
correspondent's windows holding a single email only the first is asked, so 1s do not flood the pool)."""


# ---------------------------------------------------------------------------------------------- views


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


def possessive(ctx: QContext, fact: Fact) -> str:
    """`Maya's city`, `Daniel Okafor's city`."""
    return f"{holder(fact, ctx.persona, 'third')} {attribute_phrase(fact.attribute)}"


def doc_query(doc: Document) -> str:
    return f"SELECT * FROM documents WHERE doc_id = '{doc.doc_id}'"


# ----------------------------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class TableKind:
    """How questions speak about one kind of table: its row noun and a phrase per numeric column."""

    noun: str  # what a row is ("category")
    cells: dict[str, str]  # column -> phrase for one cell, with {row}
    columns: dict[str, str]  # column -> phrase for the column as a whole
    over: dict[str, tuple[str, float]]  # column -> (question counting rows above a threshold, threshold)


TABLE_KINDS: dict[tuple[str, ...], TableKind] = {
    ("category", "planned", "actual", "difference"): TableKind(
        "category",
        {"planned": "the planned amount for {row}", "actual": "the actual spending on {row}",
         "difference": "the difference between actual and planned spending for {row}"},
        {"planned": "planned amount", "actual": "actual spending",
         "difference": "difference between actual and planned spending"},
        {"difference": ("how many categories had actual spending above the planned amount?", 0)},
    ),
    ("kind", "events", "positive", "negative"): TableKind(
        "kind of event",
        {"events": "the number of '{row}' events", "positive": "the number of '{row}' events that went well",
         "negative": "the number of '{row}' events that went badly"},
        {"events": "number of events", "positive": "number of events that went well",
         "negative": "number of events that went badly"},
        {"negative": ("how many kinds of event had at least one event that went badly?", 0),
         "events": ("how many kinds of event happened more than once?", 1)},
    ),
    ("date", "minutes", "effort"): TableKind(
        "session",
        {"minutes": "the length in minutes of the session on {row}",
         "effort": "the effort rating of the session on {row}"},
        {"minutes": "session length in minutes", "effort": "effort rating"},
        {"effort": ("how many sessions had an effort rating of 7 or more?", 6.5),
         "minutes": ("how many sessions lasted longer than an hour?", 60)},
    ),
    ("metric", "value"): TableKind("metric", {"value": "the value recorded for '{row}'"}, {}, {}),
}


def table_kind(table: dict[str, Any]) -> TableKind:
    cols = tuple(str(c) for c in table.get("columns", []))
    if cols in TABLE_KINDS:
        return TABLE_KINDS[cols]
    return TableKind(cols[0] if cols else "row", {c: f"the {c} of {{row}}" for c in cols[1:]},
                     {c: c for c in cols[1:]}, {})


def number(value: Any) -> float | None:
    """A cell as a number (ints, floats and numeric strings with thousands separators); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def show(value: float) -> str:
    """A computed number as text: integers without a decimal point."""
    return str(int(value)) if float(value).is_integer() else f"{value:,.2f}"


def row_label(table: dict[str, Any], value: Any) -> str:
    """A row label as a question says it (ISO dates as human dates)."""
    text = str(value)
    try:
        return human_date(dt.date.fromisoformat(text))
    except ValueError:
        return text


def body_rows(table: dict[str, Any]) -> list[list[Any]]:
    """The table's rows without a `Total` row."""
    return [r for r in table.get("rows", []) if r and str(r[0]).strip().lower() != "total"]


TD = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.IGNORECASE | re.DOTALL)


def line_cells(line: str) -> list[str] | None:
    """The cells of a Markdown or HTML table row line; None for other lines."""
    s = line.strip()
    if s.startswith("|"):
        return [c.strip() for c in s.strip("|").split("|")]
    if s.lower().startswith("<tr"):
        return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in TD.findall(s)]
    return None


@functools.lru_cache(maxsize=4096)
def text_rows(text: str) -> frozenset[tuple[str, ...]]:
    """The cells of every table row line in `text` (parsed once per distinct text)."""
    return frozenset(tuple(cells) for line in text.splitlines() if (cells := line_cells(line)) is not None)


def row_chunks(chunks: Sequence[Chunk], row: Sequence[Any]) -> list[Chunk]:
    """The chunks whose text holds the row (all its cells, in order, on one line)."""
    want = tuple(cell(v) for v in row)
    return [c for c in chunks if want in text_rows(c.text)]


@dataclass(frozen=True)
class Table:
    doc: Document
    index: int
    table: dict[str, Any]
    label: str
    kind: TableKind

    @property
    def caption(self) -> str:
        return str(self.table.get("caption", "table"))

    @property
    def name(self) -> str:
        return f'the "{self.caption}" table of {self.label}'

    def numeric_columns(self) -> list[int]:
        rows = body_rows(self.table)
        cols = self.table.get("columns", [])
        return [i for i in range(1, len(cols)) if rows and all(number(r[i]) is not None for r in rows if len(r) > i)]

    def query(self, extra: str = "") -> str:
        return (f"SELECT rows FROM document_tables WHERE doc_id = '{self.doc.doc_id}' AND table_index = {self.index}"
                + (f" -- {extra}" if extra else ""))


def known_tables(view: DocView) -> list[Table]:
    """Tables of the known, unambiguously named documents whose rows are all found in the chunks, with
    unique row labels."""
    out = []
    for doc in view.docs:
        label = view.label(doc)
        if label is None:
            continue
        for i, table in enumerate(doc.tables):
            rows, chunks = table.get("rows", []), view.chunks.get(doc.doc_id, [])
            labels = [str(r[0]) for r in rows if r]
            if not rows or len(set(labels)) != len(labels) or not all(row_chunks(chunks, r) for r in rows):
                continue
            out.append(Table(doc, i, table, label, table_kind(table)))
    return out


def column_pool(tables: Sequence[Table], t: Table, col: int) -> list[str]:
    """Cells of column `col` in `t` and then in tables of the same shape (distractor pool)."""
    same = [t] + [o for o in tables if o is not t and o.table.get("columns") == t.table.get("columns")]
    return [cell(r[col]) for o in same for r in body_rows(o.table) if len(r) > col]


# -------------------------------------------------------------------------------- attachment_fact_retrieval


RECEIPT = re.compile(r"\border (?:number |no\.? |#)?(\d{4,})\b.*?\b(\d+\.\d{2})\b", re.IGNORECASE | re.DOTALL)


def receipt_details(doc: Document) -> tuple[str, str] | None:
    """(order number, amount) stated once in a receipt's text."""
    text = doc.body.partition("\n\n")[2]
    found = RECEIPT.findall(text)
    return found[0] if len(found) == 1 else None


@registered("external", "attachment_fact_retrieval")
def attachment_fact_retrieval(ctx: QContext) -> list[Candidate]:
    view, out = doc_view(ctx), []
    for doc in view.docs:
        label = view.label(doc)
        if label is None:
            continue
        stated = Counter((ctx.facts[f].subject, ctx.facts[f].attribute) for f in doc.fact_ids if f in ctx.facts)
        for fid in doc.fact_ids:
            fact = ctx.facts.get(fid)
            chunks = view.chunks_carrying(doc, fact) if fact else []
            if not fact or not chunks or fact.valid_from > view.day(doc) or stated[(fact.subject, fact.attribute)] > 1:
                continue  # a document stating two values of one attribute does not answer "what is it?"
            if not fits_slot(fact.attribute, fact.value):
                continue  # "what is Samir's employer?" -> "unemployed"
            question = f"According to {label}, what is {possessive(ctx, fact)}?"
            if leaks(question, fact.value):
                continue
            now = ctx.current(fact.subject, fact.attribute, ctx.day)
            stale = now is not None and now.value != fact.value
            reference = f"{label[:1].upper() + label[1:]} says {possessive(ctx, fact)} {be(fact.value)}."
            if stale:
                reference += f" (It has since changed to {now.value}.)"
            out.append(Candidate(
                "external", ("attachment_fact_retrieval",), question, fact.value, reference,
                f"external.attachment_fact_retrieval.{doc.source_type}",
                f"SELECT f.value FROM documents d JOIN facts f ON f.fact_id = ANY(d.fact_ids) "
                f"WHERE d.doc_id = '{doc.doc_id}' AND f.subject = '{fact.subject}' "
                f"AND f.attribute = '{fact.attribute}'",
                (fact.fact_id,),
                evidence=tuple(Ref("chunk", c.chunk_id, fact.fact_id) for c in chunks),
                distractors=value_pool(ctx, fact),
                priority=0 if stale else 1,
                extra={"doc_ids": [doc.doc_id], "document_value_superseded": stale},
            ))
    out += receipt_questions(view)
    return out


def receipt_questions(view: DocView) -> list[Candidate]:
    """The amount of a shop receipt, named by shop and order number."""
    receipts = [(d, r) for d in view.emails() if d.kind == "receipt" and (r := receipt_details(d))]
    orders = Counter(r[0] for _, r in receipts)
    amounts = [r[1] for _, r in receipts][::-1]
    out = []
    for doc, (order, amount) in receipts:
        if orders[order] != 1:
            continue
        shop, when = view.who(doc.sender), human_date(view.day(doc))
        owner = f"{shop}'" if shop.endswith("s") else f"{shop}'s"
        question = f"According to {owner} receipt for order {order}, what was the order total?"
        out.append(Candidate(
            "external", ("attachment_fact_retrieval",), question, amount,
            f"The receipt {shop} sent on {when} confirms order {order} for {amount}.",
            "external.attachment_fact_retrieval.receipt",
            f"SELECT regexp_extract(body, 'order {order} for ([0-9.]+)') FROM documents "
            f"WHERE doc_id = '{doc.doc_id}'",
            (), evidence=view.chunks_with(doc, order, amount),
            distractors=dedupe(amounts + [f"{float(amount) * k:.2f}" for k in (1.1, 0.9, 1.25, 0.75, 2, 0.5)], amount),
            priority=2,
            extra={"doc_ids": [doc.doc_id]},
        ))
    return out


# ------------------------------------------------------------------------------------------ table_reasoning


@registered("external", "table_reasoning")
def table_reasoning(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    tables, out = known_tables(view), []
    for t in tables:
        rows, cols = body_rows(t.table), t.table["columns"]
        cells = [(r, i) for r in rows for i in t.numeric_columns() if cols[i] in t.kind.cells]
        rng = ctx.rng(f"table_reasoning:{t.doc.doc_id}:{t.index}")
        rng.shuffle(cells)
        kept = 0
        for row, i in cells:
            answer = cell(row[i])
            phrase = t.kind.cells[cols[i]].format(row=row_label(t.table, row[0]))
            question = f"In {t.name}, what is {phrase}?"
            chunks = row_chunks(view.chunks.get(t.doc.doc_id, []), row)
            if leaks(question, answer) or kept >= CELLS_PER_TABLE:
                continue
            kept += 1
            out.append(Candidate(
                "external", ("table_reasoning",), question, answer,
                f"In {t.name}, the row '{row[0]}' has {cols[i]} = {answer}.",
                f"external.table_reasoning.{t.doc.kind or 'table'}",
                t.query(f"row where {cols[0]} = '{row[0]}', column '{cols[i]}'"),
                (), evidence=tuple(Ref("chunk", c.chunk_id) for c in chunks),
                distractors=dedupe(column_pool(tables, t, i), answer),
                extra={"doc_ids": [t.doc.doc_id], "row": str(row[0]), "column": str(cols[i])},
            ))
    return out


# ---------------------------------------------------------------------------------------- table_aggregation


@registered("external", "table_aggregation")
def table_aggregation(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    tables, out = known_tables(view), []
    for t in tables:
        rows, cols = body_rows(t.table), t.table["columns"]
        if len(rows) < 3:
            continue
        chunks = view.chunks.get(t.doc.doc_id, [])
        every = tuple(Ref("chunk", c.chunk_id) for c in chunks if any(c in row_chunks(chunks, r) for r in rows))
        labels = [row_label(t.table, r[0]) for r in rows]

        def add(variant: str, question: str, answer: str, reference: str, query: str, distractors: Iterable[str],
                evidence: tuple[Ref, ...] = every, priority: int = 1, t: Table = t, cols: list = cols) -> None:
            if leaks(question, answer):
                return
            out.append(Candidate(
                "external", ("table_aggregation",), question, answer, reference,
                f"external.table_aggregation.{variant}", t.query(query), (), evidence=evidence, all_instances=True,
                distractors=dedupe(distractors, answer), priority=priority,
                extra={"doc_ids": [t.doc.doc_id], "column": str(cols[0])},
            ))

        for i in t.numeric_columns():
            col = cols[i]
            phrase = t.kind.columns.get(col)
            if phrase is None:
                continue
            nums = [number(r[i]) for r in rows]
            for word, pick in (("highest", max), ("lowest", min)):
                best = pick(nums)
                if nums.count(best) != 1:
                    continue
                at = nums.index(best)
                add(f"{word}_row", f"In {t.name}, which {t.kind.noun} has the {word} {phrase}?", labels[at],
                    f"{labels[at]}, with {phrase} {show(best)} ({word} of {len(rows)} rows).",
                    f"argmax/argmin of '{col}' over rows without Total", labels)
            if col in t.kind.over:
                what, limit = t.kind.over[col]
                hits = [lab for lab, v in zip(labels, nums, strict=True) if v > limit]
                n = len(hits)
                add("count_over", f"In {t.name}, {what}", str(n),
                    f"{n} of the {len(rows)} rows" + (": " + ", ".join(hits) if hits else "") + ".",
                    f"COUNT rows where '{col}' > {limit}", number_distractors(n))
            rng = ctx.rng(f"table_aggregation:{t.doc.doc_id}:{t.index}:{col}")
            a, b = sorted(rng.sample(range(len(rows)), 2))
            total = nums[a] + nums[b]
            pair = tuple(Ref("chunk", c.chunk_id) for c in chunks
                         if c in row_chunks(chunks, rows[a]) or c in row_chunks(chunks, rows[b]))
            step = 1 if all(v.is_integer() and abs(v) < 20 for v in nums) else 10
            pool = [nums[a] + nums[k] for k in range(len(rows)) if k not in (a, b)]
            pool += [total + d * step for d in (1, -1, 2, -2, 3, -3)]
            if min(nums) >= 0:
                pool = [v for v in pool if v >= 0]
            add("pair_sum", f"In {t.name}, what is the {phrase} of '{labels[a]}' and '{labels[b]}' combined?",
                show(total), f"{show(nums[a])} + {show(nums[b])} = {show(total)}.",
                f"SUM('{col}') where {cols[0]} IN ('{rows[a][0]}', '{rows[b][0]}')",
                [show(v) for v in pool], evidence=pair, priority=2)
        if t.kind.noun == "session":
            n = len(rows)
            add("count_rows", f"How many sessions does {t.name} list?", str(n),
                f"{n} sessions: " + ", ".join(labels) + ".", "COUNT rows without Total", number_distractors(n))
    return out


# ------------------------------------------------------------------------------------- structural_navigation


def sections(doc: Document) -> list[tuple[str, list[str]]]:
    """(heading, texts) of the document's sections after its title, in order (Markdown or HTML headings)."""
    out: list[tuple[str, list[str]]] = []
    title_seen = False
    for block in (b.strip() for b in re.split(r"\n\s*\n", doc.body)):
        head = heading_of(block) if block else None
        if head is not None:
            level = block[:3].lower()
            if not title_seen and (level.startswith("# ") or level.startswith("<h1")):
                title_seen = True
                continue
            out.append((head, []))
        elif block and out:
            out[-1][1].append(block)
    return out


@registered("external", "structural_navigation")
def structural_navigation(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    return section_of_fact(ctx, view) + nth_section(ctx, view) + revisions(ctx, view) + replies(ctx, view)


def heading_chunks(view: DocView, doc: Document, heading: str) -> list[Chunk]:
    return [c for c in view.chunks.get(doc.doc_id, [])
            if any(heading_of(block) == heading for block in re.split(r"\n\s*\n", c.text))]


def section_of_fact(ctx: QContext, view: DocView) -> list[Candidate]:
    """Under which heading a report or journal states a fact."""
    out = []
    pool: dict[str, list[str]] = defaultdict(list)  # headings of other documents of the same kind, latest first
    for doc in reversed(view.docs):
        pool[doc.kind] += [h for h, _ in sections(doc) if h not in pool[doc.kind]]
    for doc in view.docs:
        label = view.label(doc)
        if label is None or doc.source_type == "email":
            continue
        secs = sections(doc)
        heads = [h for h, _ in secs]
        captions = {str(t.get("caption")) for t in doc.tables}
        for fid in doc.fact_ids:
            fact = ctx.facts.get(fid)
            if fact is None or not fits_slot(fact.attribute, fact.value):
                continue
            where = [h for h, texts in secs if any(carries_first(t, fact) for t in texts)]
            chunks = view.chunks_carrying(doc, fact)
            if len(where) != 1 or where[0] in captions or heads.count(where[0]) != 1 or not chunks:
                continue
            question = f"Under which heading of {label} is {possessive(ctx, fact)} mentioned?"
            if leaks(question, where[0]):
                continue
            out.append(Candidate(
                "external", ("structural_navigation",), question, where[0],
                f"In {label}, {possessive(ctx, fact)} ({fact.value}) is stated under the heading '{where[0]}'.",
                "external.structural_navigation.section_of_fact",
                f"SELECT section FROM chunks WHERE doc_id = '{doc.doc_id}' AND '{fact.fact_id}' = ANY(fact_ids)",
                (fact.fact_id,),
                evidence=tuple(Ref("chunk", c.chunk_id, fact.fact_id) for c in chunks)
                + tuple(Ref("chunk", c.chunk_id) for c in heading_chunks(view, doc, where[0]) if c not in chunks),
                distractors=dedupe(heads + sorted(captions) + pool[doc.kind], where[0]),
                priority=1 if len(set(heads) - captions) > 1 else 2, extra={"doc_ids": [doc.doc_id]},
            ))
    return out


def nth_section(ctx: QContext, view: DocView) -> list[Candidate]:
    """The heading of the Nth section of a report (one seeded position per report)."""
    out = []
    for doc in view.docs:
        label = view.label(doc)
        heads = [h for h, _ in sections(doc)]
        if label is None or doc.source_type != "report" or len(heads) < 3 or len(set(heads)) != len(heads):
            continue
        n = ctx.rng(f"nth_section:{doc.doc_id}").randrange(min(len(heads), len(ORDINALS)))
        chunks = heading_chunks(view, doc, heads[n])
        question = f"After its title, what is the heading of the {ORDINALS[n]} section of {label}?"
        if not chunks or leaks(question, heads[n]):
            continue
        out.append(Candidate(
            "external", ("structural_navigation",), question, heads[n],
            f"The sections of {label} are, in order: " + "; ".join(heads) + f". The {ORDINALS[n]} is '{heads[n]}'.",
            "external.structural_navigation.nth_section",
            f"SELECT heading FROM document_sections WHERE doc_id = '{doc.doc_id}' ORDER BY position "
            f"LIMIT 1 OFFSET {n}",
            (), evidence=tuple(Ref("chunk", c.chunk_id) for c in chunks),
            distractors=dedupe(heads, heads[n]), priority=2,
            extra={"doc_ids": [doc.doc_id], "position": n + 1},
        ))
    return out


def revisions(ctx: QContext, view: DocView) -> list[Candidate]:
    """Which row of a report's table a later version changed (version N against N-1)."""
    out = []
    for doc in view.docs:
        parent = view.by_id.get(doc.parent_doc_id or "")
        if parent is None or doc.source_type != "report" or not doc.tables or not parent.tables:
            continue
        old_label = view.label(parent)
        new, old = doc.tables[0], parent.tables[0]
        olds = {str(r[0]): r for r in body_rows(old)}
        changed = [r for r in body_rows(new) if str(r[0]) in olds and olds[str(r[0])] != r]
        later = [d for d in view.docs if d.parent_doc_id == parent.doc_id]
        if old_label is None or len(changed) != 1 or len(olds) != len(body_rows(new)) or len(later) != 1:
            continue
        row, before = changed[0], olds[str(changed[0][0])]
        diffs = [f"{c} from {cell(a)} to {cell(b)}" for c, a, b in zip(new["columns"][1:], before[1:], row[1:],
                                                                      strict=False) if a != b]
        # the revision's own title may name the changed row, so it is named through its parent
        question = (f"{old_label[:1].upper() + old_label[1:]} was revised on {human_date(view.day(doc))} "
                    f"(version {doc.version}). Which {table_kind(new).noun} in its \"{old.get('caption', 'table')}\" "
                    "table did the revision change?")
        if leaks(question, str(row[0])):
            continue
        evidence = tuple(Ref("chunk", c.chunk_id) for d, r in ((parent, before), (doc, row))
                         for c in row_chunks(view.chunks.get(d.doc_id, []), r))
        out.append(Candidate(
            "external", ("structural_navigation",), question, str(row[0]),
            f"The revision changed the row '{row[0]}': " + "; ".join(diffs) + ".",
            "external.structural_navigation.revision",
            f"SELECT n.row_label FROM document_table_rows n JOIN document_table_rows o ON o.row_label = n.row_label "
            f"WHERE n.doc_id = '{doc.doc_id}' AND o.doc_id = '{parent.doc_id}' AND n.cells <> o.cells",
            (), evidence=evidence, distractors=dedupe([str(r[0]) for r in body_rows(new)], str(row[0])),
            priority=0, extra={"doc_ids": [parent.doc_id, doc.doc_id], "version": doc.version},
        ))
    return out


def replies(ctx: QContext, view: DocView) -> list[Candidate]:
    """Who replied to an email (thread structure)."""
    out = []
    related = [r.name for r in ctx.persona.profile.relationships]
    people = related + sorted({view.who(d.sender) for d in view.emails() if d.kind not in NOISE_KINDS})
    answered = Counter(d.parent_doc_id for d in view.emails() if d.parent_doc_id)
    for doc in view.emails():
        parent = view.by_id.get(doc.parent_doc_id or "")
        label = view.label(parent) if parent else None
        if parent is None or label is None or answered[parent.doc_id] != 1:
            continue
        who = view.who(doc.sender)
        question = f"Who replied to {label}?"
        if leaks(question, who) or who == view.first:
            continue
        out.append(Candidate(
            "external", ("structural_navigation",), question, who,
            f"{who} replied on {human_date(view.day(doc))} with \"{doc.title}\".",
            "external.structural_navigation.reply",
            f"SELECT sender FROM documents WHERE parent_doc_id = '{parent.doc_id}' AND source_type = 'email'",
            (), evidence=view.chunk_refs(doc)[:1], distractors=dedupe(people, who), priority=1,
            extra={"doc_ids": [parent.doc_id, doc.doc_id]},
        ))
    return out


# --------------------------------------------------------------------------------- email_cross_time_count


def month_windows(first: dt.date, last: dt.date) -> list[tuple[dt.date, dt.date]]:
    """Calendar months and pairs of months from `first`'s month on, up to `last`'s month (the question day's:
    it counts "so far"), each as (first day, last day of its last month)."""
    months = []
    day = first.replace(day=1)
    while day <= last:
        nxt = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        months.append((day, nxt - dt.timedelta(days=1)))
        day = nxt
    pairs = [(months[i][0], months[i + 1][1]) for i in range(0, len(months) - 1, 2)]
    return list(dict.fromkeys(months + pairs))


def month_span(lo: dt.date, hi: dt.date, today: dt.date) -> str:
    """`in March 2024`, `from March to April 2024`, `from December 2024 to January 2025`, plus ` so far` when the
    window reaches `today`: no day numbers, so a count never collides with a date in the question."""
    if (lo.year, lo.month) == (hi.year, hi.month):
        text = f"in {lo:%B} {lo.year}"
    elif lo.year == hi.year:
        text = f"from {lo:%B} to {hi:%B} {hi.year}"
    else:
        text = f"from {lo:%B} {lo.year} to {hi:%B} {hi.year}"
    return text + (" so far" if hi >= today else "")


@registered("external", "email_cross_time_count")
def email_cross_time_count(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    me, out = ctx.persona.name, []
    mails = view.emails()
    if not mails:
        return out
    received: dict[str, list[Document]] = defaultdict(list)
    sent: dict[str, list[Document]] = defaultdict(list)
    for d in mails:
        if party(d.sender) == me:
            for r in d.recipients:
                sent[party(r)].append(d)
        elif me in {party(r) for r in d.recipients + d.cc}:
            received[party(d.sender)].append(d)
    windows = month_windows(view.day(mails[0]), ctx.day)
    for direction, groups in (("from", received), ("to", sent)):
        for who, docs in sorted(groups.items()):
            lone = False
            for lo, hi in windows:
                hits = [d for d in docs if lo <= view.day(d) <= hi]
                if len(hits) < COUNT_MIN or (len(hits) == 1 and lone):
                    continue  # one window with a lone email per correspondent: 1 is asked, not flooding the pool
                lone = lone or len(hits) == 1
                span = month_span(lo, hi, ctx.day)
                question = (f"How many emails did {who} send {view.first} {span}?" if direction == "from"
                            else f"How many emails did {view.first} send to {who} {span}?")
                n = len(hits)
                nearby = [sum(1 for d in docs if lo - dt.timedelta(days=k) <= view.day(d) <= hi) for k in (15, 31)]
                sender, target = (who, me) if direction == "from" else (me, who)
                out.append(Candidate(
                    "external", ("email_cross_time_count",), question, str(n),
                    f"{n} emails: " + "; ".join(f"\"{d.title}\" ({human_date(view.day(d))})" for d in hits) + ".",
                    f"external.email_cross_time_count.{direction}",
                    f"SELECT COUNT(*) FROM documents WHERE source_type = 'email' AND sender_name = '{sender}' "
                    f"AND '{target}' IN recipient_names AND local_date(created_at) BETWEEN '{lo}' AND "
                    f"'{min(hi, ctx.day)}' AND created_at < '{ctx.asked_at.isoformat()}'",
                    (), evidence=tuple(r for d in hits for r in view.chunk_refs(d)), all_instances=True,
                    distractors=number_distractors(n, nearby),
                    priority=1 if hi.month != lo.month else 2,
                    extra={"doc_ids": [d.doc_id for d in hits],
                           "window": [lo.isoformat(), min(hi, ctx.day).isoformat()]},
                ))
    out += thread_counts(view)
    return out


def thread_counts(view: DocView) -> list[Candidate]:
    """How many messages a thread holds (threads of two or more messages)."""
    threads: dict[str, list[Document]] = defaultdict(list)
    for d in view.emails():
        threads[d.thread_id or d.doc_id].append(d)
    out = []
    for root_id, docs in sorted(threads.items()):
        root = view.by_id.get(root_id)
        label = (view.short_label(root) or view.label(root)) if root else None
        if root is None or label is None or len(docs) < 2:
            continue
        n = len(docs)
        out.append(Candidate(
            "external", ("email_cross_time_count",), f"How many messages does the email thread that began with "
            f"{label} hold?", str(n),
            f"{n} messages: " + "; ".join(f"\"{d.title}\" from {view.who(d.sender)} ({human_date(view.day(d))})"
                                          for d in docs) + ".",
            "external.email_cross_time_count.thread",
            f"SELECT COUNT(*) FROM documents WHERE thread_id = '{root_id}'",
            (), evidence=tuple(r for d in docs for r in view.chunk_refs(d)), all_instances=True,
            distractors=number_distractors(n), priority=2, extra={"doc_ids": [d.doc_id for d in docs]},
        ))
    return out


# ------------------------------------------------------------------------------------- email_localization


@registered("external", "email_localization")
def email_localization(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    return email_dates(ctx, view) + receipt_dates(view) + thread_subjects(ctx, view)


def email_dates(ctx: QContext, view: DocView) -> list[Candidate]:
    """On what date an email about an event went from one party to the other."""
    about: dict[tuple[str, str, str], list[Document]] = defaultdict(list)
    for d in view.emails():
        event = ctx.events.get(d.event_id or "")
        if event is None or d.parent_doc_id or d.kind in NOISE_KINDS or not d.recipients:
            continue
        about[(view.who(d.sender), view.who(d.recipients[0]), event_title(event, ctx.world.plans))].append(d)
    dates = [view.day(d).isoformat() for d in view.emails()][::-1]
    by_sender: dict[str, list[str]] = defaultdict(list)
    for d in reversed(view.emails()):
        by_sender[view.who(d.sender)].append(view.day(d).isoformat())
    out = []
    for (sender, to, title), docs in sorted(about.items()):
        if len(docs) != 1:
            continue
        doc = docs[0]
        answer = view.day(doc).isoformat()
        question = f"On what date did {sender} email {to} about the plan to {title}?"
        out.append(Candidate(
            "external", ("email_localization",), question, answer,
            f"{sender} emailed {to} about it on {human_date(view.day(doc))} (\"{doc.title}\").",
            "external.email_localization.date",
            f"SELECT local_date(created_at) FROM documents WHERE source_type = 'email' AND sender_name = '{sender}' "
            f"AND event_id = '{doc.event_id}' AND parent_doc_id IS NULL",
            (), evidence=(refs := view.head_and_facts(doc)), distractors=dedupe(by_sender[sender] + dates, answer),
            extra={"doc_ids": [doc.doc_id], "event_ids": [doc.event_id]},
        ))
        out[-1] = replace(out[-1], fact_ids=tuple(dict.fromkeys(r.fact_id for r in refs if r.fact_id)))
    return out


def receipt_dates(view: DocView) -> list[Candidate]:
    """On what date a shop's receipt for an order arrived."""
    receipts = [(d, r) for d in view.emails() if d.kind == "receipt" and (r := receipt_details(d))]
    orders = Counter(r[0] for _, r in receipts)
    dates = [view.day(d).isoformat() for d, _ in receipts][::-1] + [view.day(d).isoformat() for d in view.emails()]
    out = []
    for doc, (order, _) in receipts:
        if orders[order] != 1:
            continue
        shop, answer = view.who(doc.sender), view.day(doc).isoformat()
        out.append(Candidate(
            "external", ("email_localization",), f"On what date did {shop} email {view.first} the receipt for "
            f"order {order}?", answer, f"On {human_date(view.day(doc))} (\"{doc.title}\").",
            "external.email_localization.receipt_date",
            f"SELECT local_date(created_at) FROM documents WHERE kind = 'receipt' AND body LIKE '%order {order}%'",
            (), evidence=view.chunks_with(doc, order), distractors=dedupe(dates, answer), priority=2,
            extra={"doc_ids": [doc.doc_id]},
        ))
    return out


def thread_subjects(ctx: QContext, view: DocView) -> list[Candidate]:
    """The subject line of the only email thread that mentioned a value of an attribute (every fact with
    that subject, attribute and value counts, so the value names one thread)."""
    roots: dict[str, Document] = {}
    for d in view.emails():
        roots.setdefault(d.thread_id or d.doc_id, d)
    subjects = Counter(d.title for d in roots.values())
    carried: dict[tuple[str, str, str], list[tuple[Document, Chunk, str]]] = defaultdict(list)
    for d in view.emails():
        for c in view.chunks.get(d.doc_id, []):
            for fid in c.fact_ids:
                if fid in ctx.facts and carries(c.text, f := ctx.facts[fid]):
                    carried[(f.subject, f.attribute, f.value)].append((d, c, fid))
    out = []
    for _, hits in sorted(carried.items()):
        fact = ctx.facts[hits[0][2]]
        threads = {d.thread_id or d.doc_id for d, _, _ in hits}
        if len(threads) != 1:
            continue
        root = roots[threads.pop()]
        if subjects[root.title] != 1 or fact.valid_from > view.day(root) or not fits_slot(fact.attribute, fact.value):
            continue  # (not "that Samir's employer was unemployed")
        question = (f"Which email thread mentioned that {possessive(ctx, fact)} {be(fact.value, 'was')}? "
                    "Give its subject line.")
        if leaks(question, root.title):
            continue
        fids = tuple(dict.fromkeys(fid for _, _, fid in hits))
        others = [t for t in subjects if t != root.title]
        same_sender = [r.title for r in roots.values() if r.sender == root.sender]
        out.append(Candidate(
            "external", ("email_localization",), question, root.title,
            f"The thread \"{root.title}\" started by {view.who(root.sender)} on {human_date(view.day(root))}.",
            "external.email_localization.thread_subject",
            f"SELECT DISTINCT t.title FROM chunks c JOIN documents d USING (doc_id) JOIN documents t "
            f"ON t.doc_id = d.thread_id JOIN facts f ON f.fact_id = ANY(c.fact_ids) WHERE f.subject = "
            f"'{fact.subject}' AND f.attribute = '{fact.attribute}' AND f.value = '{fact.value}' "
            "AND d.source_type = 'email'",
            fids, evidence=tuple(Ref("chunk", c.chunk_id, fid) for _, c, fid in hits),
            distractors=dedupe(same_sender[::-1] + sorted(others, key=lambda t: (abs(len(t) - len(root.title)), t)),
                               root.title),
            priority=2 if carries(root.title, fact) else 1,  # a subject naming the value is the easy case
            extra={"doc_ids": sorted({d.doc_id for d, _, _ in hits})},
        ))
    return out
