"""How a question reads: the check every candidate passes before it is prepared (`raw_wording`).

A question names what it asks about the way a person would. Two slips give a generated question away and
make it ill-formed English (issue 25: `news is "is learning to drive"`, `what is Rosa's bill paid?`):
- a raw attribute name: an identifier (`bill_paid`), or an attribute in words after a possessive or `the`
  where the ontology names it otherwise (`Rosa's bill paid`, `Ryan's turned away`: the ontology says
  `big bill`, `wasted volunteering trip`, and asks an event by its question, `which bill did Rosa pay`);
- a quoted slot value: a fact's value in quotation marks (`is "is moving to Vancouver"`). Quotation marks
  are for the names of documents, tables and rows, and for what a document or constraint says word for word.
"""

from __future__ import annotations

import functools
import re

from tasks.common.facttext import attribute_phrase
from tasks.questions.base import QContext
from tasks.world.ontology import ATTRIBUTES

IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
"""An attribute or table identifier (`bill_paid`)."""


@functools.cache
def _raw_pattern() -> re.Pattern[str]:
    """`'s <phrase>` / `the <phrase>` for every attribute whose words the ontology replaces with its noun
    (accents aside: `cafe visit` reads as `café visit`)."""
    raw = sorted({attribute_phrase(a.name) for a in ATTRIBUTES.values()
                  if a.noun and _plain(a.noun) != _plain(attribute_phrase(a.name))}, key=len, reverse=True)
    words = "|".join(re.escape(p) for p in raw)
    return re.compile(rf"(?:['’]s?|\bthe|\bher|\bhis|\btheir|\bmy|\byour) (?:{words})\b(?! (?:of|for|at|in|to)\b)",
                      re.IGNORECASE)


def _plain(text: str) -> str:
    return text.lower().replace("é", "e")


def raw_wording(ctx: QContext, question: str) -> str | None:
    """Why the question reads as generated (a drop reason), or None when it names things in words."""
    if IDENTIFIER.search(question):
        return "raw_attribute"
    if _raw_pattern().search(question):
        return "raw_attribute"
    if _quoted_values(ctx) & {q.strip().lower() for q in quoted(question)}:
        return "quoted_value"
    return None


def _quoted_values(ctx: QContext) -> set[str]:
    """Fact values (lower-cased) that are not also the name of a document or a plan (a quoted title is right)."""
    memo = ctx.__dict__.setdefault("_quoted_values", {})
    if not memo:
        titles = {d.title.strip().lower() for d in ctx.corpus.documents} | {p.title.lower() for p in ctx.world.plans}
        memo["values"] = {f.value.strip().lower() for f in ctx.world.facts} - titles
    return memo["values"]


QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'([^']+)'(?!\w)")
"""A quoted string in a question (a table's name, a row label, a document's words)."""


def quoted(text: str) -> list[str]:
    """The quoted strings of `text`, without their quote marks."""
    return [next(g for g in m.groups() if g is not None) for m in QUOTED.finditer(text)]
