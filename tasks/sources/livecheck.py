"""Verification by meaning for the documents a real model writes (issue 24), as tasks/dialogue/livecheck.py does
for turns.

A real model is asked for each email, journal entry and report in the writer's own words, keeping only the
proper names of a value (the gateway's hard check holds it to those names: tasks/llm/checks.py). The rule check
goes first (a surface form, or the planned paraphrase's words: `Planned.told`); a fact it cannot find in the
model's text is put to the `fact_check` call:

- conveyed, not contradicted, names kept: the document claims it without a postscript, `Document.judged` lists
  it, and the chunks it is in are found the same way (a document of one chunk: that chunk); its chunk mentions
  say `checked_by = fact_check`;
- contradicted: the wording is rejected and asked for again (`sample=1`); a second contradiction drops the
  document, as a document failing the sources verifier is dropped;
- not conveyed, or a name dropped: the postscript states it (the offline behaviour for a fact left out).

Offline (the realizer wrote the text) nothing is asked: the rules find every fact by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel

from schemas.corpus import Chunk, Document
from schemas.profile import Persona
from schemas.world import Fact
from tasks.dialogue.livecheck import check_call, problem_of
from tasks.llm.checks import output_text
from tasks.llm.gateway import Gateway
from tasks.sources.docplan import STAGE, Planned


class Verdict(NamedTuple):
    """The fact_check verdicts on one planned document's wording."""

    conveyed: frozenset[str]
    """Facts the rule check could not find that the wording conveys."""
    contradicted: tuple[str, ...]
    """Facts the wording contradicts (the wording is rejected)."""


NOTHING = Verdict(frozenset(), ())


def unsaid(plan: Planned, output: BaseModel) -> list[Fact]:
    """The planned document's facts that the rule check does not find in the model's text."""
    text = output_text(output)
    return [f for f in plan.facts if f.surface_forms and not plan.told(text, f)]


def verdicts(plans: Sequence[Planned], outputs: Sequence[BaseModel], gateway: Gateway,
             persona: Persona) -> list[Verdict]:
    """Per planned document, what the fact_check call finds of the facts the rules cannot (all in one batch);
    nothing is asked of an offline gateway."""
    if not gateway.live:
        return [NOTHING] * len(plans)
    asked = [(i, f, output_text(out)) for i, (plan, out) in enumerate(zip(plans, outputs, strict=True))
             for f in unsaid(plan, out)]
    found = gateway.generate_many([check_call(text, f, persona, STAGE, "third") for _, f, text in asked])
    conveyed: list[set[str]] = [set() for _ in plans]
    contradicted: list[list[str]] = [[] for _ in plans]
    for (i, fact, text), verdict in zip(asked, found, strict=True):
        problem = problem_of(verdict, fact, text, "document")
        if problem is None:
            conveyed[i].add(fact.fact_id)
        elif problem.check == "document_contradicts_fact":
            contradicted[i].append(fact.fact_id)
    return [Verdict(frozenset(c), tuple(x)) for c, x in zip(conveyed, contradicted, strict=True)]


def located(documents: Sequence[Document], chunks: list[Chunk], facts: Sequence[Fact], gateway: Gateway,
            persona: Persona) -> list[Chunk]:
    """`chunks` with each document's judged facts added to the chunks that convey them: the only chunk of a
    document of one, else those the fact_check call finds it in (all of the document's chunks when none
    conveys it alone: the fact needs them together)."""
    by_id = {f.fact_id: f for f in facts}
    of_doc: dict[str, list[int]] = {}
    for n, chunk in enumerate(chunks):
        of_doc.setdefault(chunk.doc_id, []).append(n)
    add: dict[int, list[str]] = {}
    asked: list[tuple[int, str, Fact]] = []
    for doc in documents:
        own = of_doc.get(doc.doc_id, [])
        for fid in (f for f in doc.judged if f in by_id):
            if len(own) == 1:
                add.setdefault(own[0], []).append(fid)
            else:
                asked += [(n, doc.doc_id, by_id[fid]) for n in own]
    found = gateway.generate_many([check_call(chunks[n].text, f, persona, STAGE, "third") for n, _, f in asked])
    held: dict[tuple[str, str], list[int]] = {}
    for (n, doc_id, fact), verdict in zip(asked, found, strict=True):
        key = (doc_id, fact.fact_id)
        held.setdefault(key, [])
        if problem_of(verdict, fact, chunks[n].text, "chunk") is None:
            held[key].append(n)
    for (doc_id, fid), where in held.items():
        for n in where or of_doc[doc_id]:
            add.setdefault(n, []).append(fid)
    return [c.model_copy(update={"fact_ids": [*c.fact_ids, *(f for f in add[n] if f not in c.fact_ids)]})
            if n in add else c for n, c in enumerate(chunks)]
