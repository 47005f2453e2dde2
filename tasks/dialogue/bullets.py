"""Dialogue step 1 and 2 (see tasks/dialogue/stage.py): each event's facts and detail sentences become
atomic bullets, each with a category drawn from the persona's intent and emotional context, and the document a
user would share about an event. Also the stage's name and the day window topics start in."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Sequence
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Bullet, DialogueCategory, Document
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common import worldindex
from tasks.common.facttext import (
    attribute_phrase,
    capital,
    carries,
    clause,
    event_title,
    facts_of,
    is_baseline,
    is_event_fact,
    story_events,
)
from tasks.common.happened import outcome_phrase, took_place
from tasks.common.rng import rng_for
from tasks.common.timeutil import local_date, local_datetime

STAGE = "dialogue"
DAY_START, DAY_END = 8 * 60, 20 * 60 + 30
"""Topics start between 08:00 and 20:30 local time."""
SCHEDULING_WORDS = frozenset(
    "appointment schedule date deadline meeting booking reservation trip class lesson session interview due "
    "exam flight course project doctor gym race visit".split()
)
"""An attribute named with one of these words is about arranging time: its bullet leans to `scheduling`."""
ATTACHMENT_SHARE = 0.6
"""Chance that a document about the event is brought into the conversation."""
ATTACHMENT_SOURCES = ("report", "email", "journal")
"""Which document about an event the user shares, in order of preference."""
MIN_DETAIL_WORDS = 5


def make_bullets(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document]
) -> list[Bullet]:
    """Per story event (date order): one bullet per fact, then its detail sentences; each categorised."""
    bullets: list[Bullet] = []
    for fact in background_facts(world):
        bullets.append(Bullet(bullet_id=f"{persona.persona_id}-b{len(bullets) + 1:04d}", persona_id=persona.persona_id,
                              date=fact.valid_from, event_id=fact.event_id, category="information_sharing",
                              text=f"{capital(clause(fact, persona, 'third'))} (background).", fact_ids=[fact.fact_id]))
    for event in story_events(world):
        facts = facts_of(world, event)
        shared = shares_attachment(config, persona, event, documents, discussion_day(config, persona, event, facts))
        texts = [(bullet_text(f, event, world, persona), [f.fact_id], f) for f in facts]
        texts += [(d, [], None) for d in detail_sentences(event, facts, config.stages.dialogue.details_per_event)]
        for i, (text, fact_ids, fact) in enumerate(texts):
            bid = f"{persona.persona_id}-b{len(bullets) + 1:04d}"
            rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"category:{event.event_id}:{i}")
            category = classify(fact, event, world, persona, has_attachment=shared and i == 0, rng=rng)
            bullets.append(Bullet(bullet_id=bid, persona_id=persona.persona_id, date=event.date,
                                  event_id=event.event_id, category=category, text=text, fact_ids=fact_ids))
    return bullets


def background_facts(world: World) -> list[Fact]:
    """The facts of the baseline event (the persona's life when the story starts), in id order."""
    base = [e for e in world.events if is_baseline(e)]
    return facts_of(world, base[0]) if base else []


def detail_sentences(event: Event, facts: Sequence[Fact], limit: int) -> list[str]:
    """Up to `limit` sentences of the outcome narrative that carry none of the event's facts."""
    out = []
    for sentence in SENTENCE.split(EMOJI.sub("", event.narrative).strip()):
        sentence = " ".join(sentence.split())
        if len(out) >= limit:
            break
        if len(sentence.split()) >= MIN_DETAIL_WORDS and not any(carries(sentence, f) for f in facts):
            out.append(sentence)
    return out


def shares_attachment(
    config: BuildConfig, persona: Persona, event: Event, documents: Sequence[Document], day: dt.date
) -> bool:
    """Whether the user brings a document about the event into the conversation on `day` (seeded draw)."""
    if attachment_for(persona, event, documents, day) is None:
        return False
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"attach:{event.event_id}")
    return rng.random() < ATTACHMENT_SHARE


def attachment_for(
    persona: Persona, event: Event, documents: Sequence[Document], day: dt.date
) -> Document | None:
    """The document about `event` the user would share on `day`: a report, else an email, else a
    journal entry, created on the event's day or later, and before `day`'s last topic can start."""
    latest = local_datetime(persona, day, 0) + dt.timedelta(minutes=DAY_END)

    def usable(doc: Document) -> bool:
        made = local_date(persona, doc.created_at)
        return event.date <= made and doc.created_at < latest and doc.source_type in ATTACHMENT_SOURCES
    found = sorted((d for d in worldindex.documents_by_event(documents).get(event.event_id, ()) if usable(d)),
                   key=lambda d: (ATTACHMENT_SOURCES.index(d.source_type), d.created_at, d.doc_id))
    return found[0] if found else None


def classify(
    fact: Fact | None, event: Event, world: World, persona: Persona, has_attachment: bool, rng: random.Random
) -> DialogueCategory:
    """The bullet's category, drawn from weights set by intent and emotional context (module docstring)."""
    if has_attachment:
        return "attachment_consultation"
    return weighted_choice(category_weights(fact, event, world, persona), rng)


def category_weights(fact: Fact | None, event: Event, world: World, persona: Persona) -> dict[str, float]:
    """Unnormalised weights of the four conversational categories for one bullet."""
    big5 = persona.profile.personality.big_five
    w = {"information_sharing": 1.0, "advice_seeking": 0.25, "status_update": 0.3, "scheduling": 0.25}
    if event.valence == "negative":
        w["advice_seeking"] += 1.5 * (0.5 + big5.neuroticism) + (1.0 if event.critical else 0.0)
    else:
        w["information_sharing"] += 0.5 + big5.extraversion
    if fact is None:
        w["status_update"] += 0.3
        return w
    if SCHEDULING_WORDS & set(attribute_phrase(fact.attribute).split()):
        w["scheduling"] += 3.0
    if not is_event_fact(fact) and predecessor(fact, world) is not None:  # a changed value, not another dinner
        w["status_update"] += 1.5 * (0.5 + big5.conscientiousness)
    return w


def weighted_choice(weights: dict[str, float], rng: random.Random) -> Any:
    """A key of `weights` drawn in proportion to its weight (keys in their given order)."""
    x = rng.random() * sum(weights.values())
    for key, weight in weights.items():
        x -= weight
        if x < 0:
            return key
    return next(reversed(weights))


def predecessor(fact: Fact, world: World) -> Fact | None:
    """The fact that held the same subject's attribute just before `fact` replaced it, if any; for what happened
    at an event, the previous event of its kind (which it does not replace: both dinners out happened)."""
    return worldindex.index(world).predecessor(fact)


def bullet_text(fact: Fact, event: Event, world: World, persona: Persona) -> str:
    """`Maya's pet is now Biscuit (after: adopt a rescue dog named Biscuit; went well).`"""
    outcome = outcome_phrase(event.valence, took_place(event, world))
    return f"{capital(clause(fact, persona, 'third'))} (after: {event_title(event, world)}; {outcome})."


SENTENCE = re.compile(r"(?<=[.!?])\s+")
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")


def discussion_day(config: BuildConfig, persona: Persona, event: Event, facts: Sequence[Fact]) -> dt.date:
    """The event's own day, or (share `delay_share`) one to six days later if its facts still hold then."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"delay:{event.event_id}")
    if rng.random() >= config.stages.dialogue.delay_share:
        return event.date
    later = event.date + dt.timedelta(days=rng.randint(1, 6))
    holds = all(f.valid_from <= later and (f.valid_to is None or later < f.valid_to) for f in facts)
    return later if later <= config.end_date and holds else event.date
