"""The generator kit's tables and sections: a report's ground-truth tables as the chunks show them, their rows,
numbers and column pools; receipts; a document's sections; month windows for email counts."""

from __future__ import annotations

import datetime as dt
import functools
import html
import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.corpus import Chunk, Document
from tasks.common.timeutil import human_date
from tasks.questions.generators.kit.docs import DocView
from tasks.sources.chunking import heading_of
from tasks.sources.reports import cell

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass(frozen=True)
class TableKind:
    """How questions speak about one kind of table: its row noun and a phrase per numeric column."""

    noun: str  # what a row is ("category")
    cells: dict[str, str]  # column -> phrase for one cell, with {row}
    columns: dict[str, str]  # column -> phrase for the column as a whole
    over: dict[str, tuple[str, float]]  # column -> (question counting rows above a threshold, threshold)


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


def column_pool(tables: Sequence[Table], t: Table, col: int) -> Iterator[str]:
    """Cells of column `col` in `t` and then in tables of the same shape (distractor pool): those of the others
    once each, in the order first seen, read once per list of tables (a long life has hundreds of tables, and a
    question for each)."""
    own = [cell(r[col]) for r in body_rows(t.table) if len(r) > col]
    return itertools.chain(own, _shape_cells(tables).get((json.dumps(t.table.get("columns")), col), ()))


_SHAPES: dict[int, tuple[Sequence[Table], int, dict[tuple[str, int], list[str]]]] = {}


def _shape_cells(tables: Sequence[Table]) -> dict[tuple[str, int], list[str]]:
    """(the columns as JSON, a column) -> the distinct cells of that column over the tables of those columns."""
    kept = _SHAPES.get(id(tables))
    if kept is not None and kept[0] is tables and kept[1] == len(tables):
        return kept[2]
    found: dict[tuple[str, int], dict[str, None]] = {}
    for o in tables:
        shape = json.dumps(o.table.get("columns"))
        for r in body_rows(o.table):
            for col, value in enumerate(r):
                found.setdefault((shape, col), {})[cell(value)] = None
    if len(_SHAPES) >= 8:
        _SHAPES.clear()
    _SHAPES[id(tables)] = (tables, len(tables), {k: list(v) for k, v in found.items()})
    return _SHAPES[id(tables)][2]


RECEIPT = re.compile(r"\border (?:number |no\.? |#)?(\d{4,})\b.*?\b(\d+\.\d{2})\b", re.IGNORECASE | re.DOTALL)


def receipt_details(doc: Document) -> tuple[str, str] | None:
    """(order number, amount) stated once in a receipt's text."""
    text = doc.body.partition("\n\n")[2]
    found = RECEIPT.findall(text)
    return found[0] if len(found) == 1 else None


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


def heading_chunks(view: DocView, doc: Document, heading: str) -> list[Chunk]:
    return [c for c in view.chunks.get(doc.doc_id, [])
            if any(heading_of(block) == heading for block in re.split(r"\n\s*\n", c.text))]


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
         "events": ("how many kinds of event happened at least twice?", 1)},
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
