"""The sources verifier: each fact a document claims is in its text, no document contradicts the fact
store at its date, and every table is consistent (totals add up; a review's counts match the world).

`document_problems` is used twice: inside the sources stage (a failing document is regenerated, then
dropped) and by the per-persona verifier (tasks/verify.py), whose findings land in verifier_findings.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from schemas.corpus import Document
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common import worldindex
from tasks.common.facttext import attribute_phrase, carries, carries_first, holder, mentions
from tasks.common.timeutil import local_date
from tasks.sources.realized import said_so
from tasks.sources.reports import review_table


class Problem(NamedTuple):
    check: str
    message: str


def document_problems(doc: Document, persona: Persona, world: World) -> list[Problem]:
    """Everything wrong with one document (empty when it may ship)."""
    facts = worldindex.index(world).facts
    day = local_date(persona, doc.created_at)
    out = [Problem("document_carries_fact", f"document claims {fid} but lacks its first surface form, any "
                                            "recorded paraphrase and a fact_check verdict")
           for fid in doc.fact_ids if fid in facts and not states(doc, facts[fid])]
    out += [Problem("document_fact_not_valid", f"document states {fid} on {day}, outside its valid time")
            for fid in doc.fact_ids if fid in facts and not valid_on(facts[fid], day)]
    out += contradictions(doc, persona, world, day)
    out += table_problems(doc, world)
    return out


def states(doc: Document, fact: Fact, text: str | None = None) -> bool:
    """Whether the document (or `text`, one of its chunks) states the fact: its first surface form (any surface
    form in a chunk), every phrase the document records it said in other words (`Document.realized`), or a
    fact_check verdict on a real model's words (`Document.judged`: the chunks holding it were judged too)."""
    body = doc.body if text is None else text
    found = carries_first(body, fact) if text is None else carries(body, fact)
    return found or said_so(body, doc.realized.get(fact.fact_id)) or fact.fact_id in doc.judged


def valid_on(fact: Fact, day: dt.date) -> bool:
    """True when the fact holds on `day` (a fact superseded that very day still counts)."""
    return fact.valid_from <= day and (fact.valid_to is None or day <= fact.valid_to)


def own_text(doc: Document) -> str:
    """The document's text without quoted lines (a reply's quote of its parent says nothing new)."""
    return "\n".join(line for line in doc.body.splitlines() if not line.startswith(">"))


def contradictions(doc: Document, persona: Persona, world: World, day: dt.date) -> list[Problem]:
    """Statements `<holder> <attribute> is now <value>` whose value was not a valid one on `day`."""
    text, out = own_text(doc).lower(), []
    found = worldindex.index(world)  # by attribute: the phrase test first, then only its keys' facts
    keys = [key for attribute, keys in found.keys_of().items() if f"{attribute_phrase(attribute)} is now " in text
            for key in keys]
    for facts in sorted((found.by_key[key] for key in keys), key=lambda fs: fs[0].fact_id):
        valid = {f.value for f in facts if valid_on(f, day)}
        phrase = f"{attribute_phrase(facts[0].attribute)} is now "
        if not valid or phrase not in text:
            continue
        for fact in (f for f in facts if f.value not in valid):
            stated = [f"{holder(fact, persona, p)} {phrase}{fact.value}" for p in ("first", "second", "third")]
            if any(mentions(text, s) for s in stated):
                out.append(Problem("document_contradicts_facts",
                                   f"states {fact.subject}'s {attribute_phrase(fact.attribute)} is {fact.value!r} "
                                   f"on {day}, but the fact store says {sorted(valid)[0]!r}"))
    return out


def table_problems(doc: Document, world: World) -> list[Problem]:
    """Totals that do not add up, cells missing from the body, review counts that differ from the world."""
    out = []
    for table in doc.tables:
        rows = table.get("rows", [])
        if rows and rows[-1][:1] == ["Total"]:
            body = rows[:-1]
            for i, value in enumerate(rows[-1][1:], start=1):
                if value != sum(r[i] for r in body if isinstance(r[i], int | float)):
                    out.append(Problem("table_total", f"{table['caption']}: Total of column {i} is {value}"))
        if any(not mentions(doc.body, str(r[0])) for r in rows):
            out.append(Problem("table_in_body", f"{table['caption']}: a row of the table is missing from the text"))
        if doc.kind == "review" and "period" in table:
            first, last = (dt.date.fromisoformat(d) for d in table["period"])
            if review_table(world, first, last)["rows"] != rows:
                out.append(Problem("table_matches_world", "review counts differ from the world's events"))
    return out
