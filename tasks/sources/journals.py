"""Journals: the persona's own Markdown entry on each day with events, in their voice, stating the
day's facts (a share in other words: tasks/sources/realized.py) and how they feel about them."""

from __future__ import annotations

import datetime as dt
import string
from itertools import groupby

from schemas.config import BuildConfig
from schemas.corpus import Document, JournalDraft
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common import worldindex
from tasks.common.facttext import (
    capital,
    event_context,
    facts_of,
    persona_context,
    says_value,
    story_events,
    style_context,
)
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_datetime
from tasks.llm.providers.narrators.lexicon import handle_of, short_handle
from tasks.sources import realized
from tasks.sources.docplan import STAGE, Planned
from tasks.sources.emails import with_missing_facts
from tasks.world.catalog import KINDS


def journal_entries(config: BuildConfig, persona: Persona, world: World) -> list[Planned]:
    """One planned entry per day with events, written that evening."""
    return [journal(config, persona, world, day, list(events))
            for day, events in groupby(story_events(world), key=lambda e: e.date)]


def journal(config: BuildConfig, persona: Persona, world: World, day: dt.date, events: list) -> Planned:
    """The entry for `day`: every event of the day and its facts, in the first person."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, day, "journal")
    written = local_datetime(persona, day, rng.randint(20, 23), rng.randint(0, 59))
    facts = [f for e in events for f in facts_of(world, e)]
    key = f"journal:{day.isoformat()}"
    plan = realized.planned(config, persona, world, facts, key)
    said = {f.fact_id: realized.fact_context(f, persona, "first", plan) for f in facts}
    context = {
        "persona": persona_context(persona), "style": style_context(persona), "date": human_date(day),
        "mood": persona.profile.current_status.mood,
        "events": [event_context(e, world) | {"facts": [said[f.fact_id] for f in facts_of(world, e)],
                                              "heading": heading(e, world)} for e in events],
        "facts": list(said.values()),
    }

    def told(text: str, fact: Fact) -> bool:
        return realized.said(text, fact, plan)

    def render(draft: JournalDraft, conveyed: frozenset[str] = frozenset()) -> Document:
        body = with_missing_facts(f"# {draft.title.strip()}\n\n{draft.body.strip()}", facts, persona, "first",
                                  say=lambda f: said[f.fact_id]["clause"], told=told, conveyed=conveyed)
        record = realized.realized_in(body, facts, realized.parts_of(plan))
        return Document(doc_id=key, persona_id=persona.persona_id, created_at=written, source_type="journal",
                        format="md", title=draft.title.strip()[:200], sender=persona.name, body=body,
                        event_id=events[0].event_id, fact_ids=realized.claimed(body, facts, record, conveyed),
                        kind="journal", realized=record, judged=realized.judged_of(body, facts, record, conveyed))

    return Planned(key, written, "journal", context, JournalDraft, persona.persona_id, render, facts=tuple(facts),
                   told=told)


def heading(event: Event, world: World) -> str:
    """A journal section's heading, as a person heads their own notes: the event by a detail of its plan (`The
    watercolour painting`, `Budi's call`, `Kebab Corner`), never a fact's value whole (the section would state
    it in the store's words above any paraphrase) nor the plan's imperative title; by its kind when nothing
    else fits (`The dinner`)."""
    plan = worldindex.index(world).plan_of(event)
    kind = KINDS.get(plan.kind) if plan is not None else None
    names = {n for _, n, _, _ in string.Formatter().parse(kind.title) if n} if kind is not None else set()
    entity = {k: str(v) for k, v in plan.entity.items() if k in names} if plan is not None else {}
    kind_name = plan.kind if plan is not None else event.kind
    generic = capital(handle_of(kind_name, "the day"))
    short = short_handle(kind_name, entity)
    if short is None or says_value(short, (f.value for f in facts_of(world, event))):
        return generic
    return capital(short)
