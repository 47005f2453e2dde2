"""External sources: emails (with threads and noise), journals and reports, and their retrieval chunks.

The rules plan every document (who, when, which facts, which table); the model only narrates, in
batched `generate_many` calls (concurrent on live providers, results in plan order):
1. event emails, noise emails, journal entries and the research step of each report;
2. replies (which quote their parent) and the reports themselves;
3. a fresh wording (`sample=1`) for every document the sources verifier rejected.
With a real model, each batch's wordings are checked by meaning first (tasks/sources/livecheck.py): a fact
the rules cannot find is put to the fact_check call, one conveyed is claimed, a contradiction rejects the
wording. A document still failing is dropped (with any reply to it). Documents are then numbered by creation
time, links are rewritten to final ids, and each document is chunked (tasks/sources/chunking.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.config import BuildConfig
from schemas.corpus import Corpus, Document
from schemas.profile import Persona
from schemas.world import World
from tasks.common import worldindex
from tasks.llm.gateway import Gateway
from tasks.sources import emails, journals, livecheck, noise, reports
from tasks.sources.chunking import chunk_document
from tasks.sources.docplan import STAGE, Planned
from tasks.sources.verify import document_problems

__all__ = ["STAGE", "chunk_document", "write_emails", "write_sources"]


def write_sources(config: BuildConfig, persona: Persona, world: World, gateway: Gateway) -> Corpus:
    """The persona's documents (emails, journals, reports) and their chunks, numbered in time order."""
    first = (emails.event_emails(config, persona, world) + noise.noise_emails(config, persona)
             + journals.journal_entries(config, persona, world))
    report_plans = reports.report_plans(config, persona, world)
    outputs = gateway.generate_many([p.call() for p in first] + [r.research() for r in report_plans])
    docs, rejected = narrated(first, outputs[: len(first)], gateway, persona)
    second = emails.replies(config, persona, world, [d for _, d in docs])
    second += [r.planned(q) for r, q in zip(report_plans, outputs[len(first):], strict=True)]
    more, also = narrated(second, gateway.generate_many([p.call() for p in second]), gateway, persona)
    kept = checked(docs + more, persona, world, gateway, rejected | also)
    documents = numbered(kept, persona)
    s = config.stages.sources
    facts = worldindex.index(world).facts
    chunks = [c for d in documents for c in chunk_document(d, s.chunk_tokens, facts, s.chunk_overlap)]
    return Corpus(documents=documents, chunks=livecheck.located(documents, chunks, world.facts, gateway, persona))


def write_emails(config: BuildConfig, persona: Persona, world: World, gateway: Gateway) -> Corpus:
    """Former name of `write_sources` (kept for callers written before journals and reports)."""
    return write_sources(config, persona, world, gateway)


def narrated(plans: Sequence[Planned], outputs: Sequence, gateway: Gateway | None = None,
             persona: Persona | None = None) -> tuple[list[tuple[Planned, Document]], set[str]]:
    """Each plan with the document its output renders, claiming what a real model's wording was judged to
    convey; and the keys of the wordings judged to contradict a fact (rejected)."""
    found = (livecheck.verdicts(plans, outputs, gateway, persona) if gateway is not None and persona is not None
             else [livecheck.NOTHING] * len(plans))
    docs = [(plan, plan.document(out, v.conveyed)) for plan, out, v in zip(plans, outputs, found, strict=True)]
    return docs, {plan.key for plan, v in zip(plans, found, strict=True) if v.contradicted}


def checked(docs: list[tuple[Planned, Document]], persona: Persona, world: World,
            gateway: Gateway, rejected: set[str] = frozenset()) -> list[Document]:
    """Documents that pass the sources verifier and whose wording contradicts no fact (`rejected`: the keys of
    those that do): failures get one fresh wording, then are dropped."""
    failing = [i for i, (p, d) in enumerate(docs) if p.key in rejected or document_problems(d, persona, world)]
    retried = gateway.generate_many([docs[i][0].call(sample=1) for i in failing]) if failing else []
    again, still = narrated([docs[i][0] for i in failing], retried, gateway, persona)
    for i, redone in zip(failing, again, strict=True):
        docs[i] = redone
    bad = {docs[i][1].doc_id for i in failing
           if docs[i][0].key in still or document_problems(docs[i][1], persona, world)}
    kept = []
    for _, doc in docs:  # parents precede their replies and revisions in `docs`
        if doc.doc_id in bad or doc.parent_doc_id in bad:
            bad.add(doc.doc_id)
        else:
            kept.append(doc)
    return kept


def numbered(docs: list[Document], persona: Persona) -> list[Document]:
    """Documents sorted by creation time, given ids `<pid>-dNNNN`, with links rewritten to those ids."""
    ordered = sorted(docs, key=lambda d: (d.created_at, d.doc_id))
    ids = {d.doc_id: f"{persona.persona_id}-d{n:04d}" for n, d in enumerate(ordered, start=1)}
    return [d.model_copy(update={
        "doc_id": ids[d.doc_id],
        "thread_id": ids.get(d.thread_id) if d.thread_id else None,
        "parent_doc_id": ids.get(d.parent_doc_id) if d.parent_doc_id else None,
    }) for d in ordered]
