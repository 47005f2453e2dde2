"""Journals: the persona's own Markdown entry on each day with events, in their voice, stating the
day's facts (a share in other words: tasks/sources/realized.py) and how they feel about them."""

from __future__ import annotations

import datetime as dt
from itertools import groupby

from schemas.config import BuildConfig
from schemas.corpus import Document, JournalDraft
from schemas.profile import Persona
from schemas.world import World
from tasks.common.facttext import event_context, facts_of, persona_context, story_events, style_context
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_datetime
from tasks.sources import realized
from tasks.sources.docplan import STAGE, Planned
from tasks.sources.emails import with_missing_facts


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
        "events": [event_context(e, world) | {"facts": [said[f.fact_id] for f in facts_of(world, e)]}
                   for e in events],
        "facts": list(said.values()),
    }

    def render(draft: JournalDraft) -> Document:
        body = with_missing_facts(f"# {draft.title.strip()}\n\n{draft.body.strip()}", facts, persona, "first",
                                  say=lambda f: said[f.fact_id]["clause"], told=lambda t, f: realized.said(t, f, plan))
        record = realized.realized_in(body, facts, realized.parts_of(plan))
        return Document(doc_id=key, persona_id=persona.persona_id, created_at=written, source_type="journal",
                        format="md", title=draft.title.strip()[:200], sender=persona.name, body=body,
                        event_id=events[0].event_id, fact_ids=realized.claimed(body, facts, record),
                        kind="journal", realized=record)

    return Planned(key, written, "journal", context, JournalDraft, persona.persona_id, render)
