"""Dialogue step 3 and 6 (see tasks/dialogue/stage.py): bullets become topics on the day they are talked
about (their own day or a few days later, with callbacks to earlier events and filler topics), with seeded
start times; recall topics from tasks/dialogue/recall.py join them."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.config import BuildConfig
from schemas.corpus import Bullet, DialogueCategory, Document, TimeRef
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common.facttext import (
    attribute_phrase,
    event_reference,
    event_title,
    holder,
    is_baseline,
    story_events,
)
from tasks.common.rng import rng_for
from tasks.common.timeutil import local_datetime
from tasks.dialogue import recall as dialogue_recall
from tasks.dialogue import relativetime
from tasks.dialogue.bullets import DAY_END, DAY_START, STAGE, attachment_for, discussion_day, predecessor
from tasks.dialogue.filler import FILLER_TOPICS

CALLBACK_SHARE = 0.3
"""Chance that a bullet other than a status update calls back an earlier related event."""
INTRO_PER_DAY = 3
"""Background topics (the baseline facts) talked about per day at the start of the story."""
FILLER_CATEGORY: dict[str, DialogueCategory] = {"small_talk": "information_sharing", "request": "advice_seeking"}


@dataclass(frozen=True)
class Topic:
    """One thread of a conversation: a bullet (or small talk), when it is talked about, and how."""

    day: dt.date
    category: DialogueCategory
    bullet: Bullet | None = None
    event: Event | None = None
    filler: dict[str, str] | None = None
    when: TimeRef | None = None
    callback: TimeRef | None = None
    callback_title: str = ""
    callback_paraphrase: str = ""
    doc: Document | None = None
    intro: bool = False
    """A background topic: the user tells the assistant about their life as it was when the story starts."""
    recall: dialogue_recall.Recall | None = None
    """A callback topic added by memory_rate: the user comes back to an earlier-told fact (no follow-ups)."""
    late: tuple[str, ...] = ()
    """Facts the opening says with a slip that a later session's `fix` topic puts right (tasks/dialogue/latefix.py)."""
    fix: LateFix | None = None
    """A correction topic: the user puts right a slip told in an earlier session (one user turn, no follow-ups)."""


@dataclass(frozen=True)
class LateFix:
    """A planned correction in a later session (tasks/dialogue/latefix.py): on `day` the user says that what they
    told on `told_on` about `phrase` was wrong, in `sentence` (which says `clause`, every part of `parts`, and
    `wrong`, the slip's part, as what it was not)."""

    day: dt.date
    fact_id: str
    phrase: str
    told_on: str
    told_day: dt.date
    """The slip's day, which `when` names as said on `day`."""
    when: str
    clause: str
    parts: tuple[str, ...]
    wrong: str
    right: str
    sentence: str
    position: float
    """Where among the day's topics it goes (0 first, 1 last)."""

    def context(self) -> dict[str, str]:
        """What the `user_turn_correction` prompt sees."""
        return {"phrase": self.phrase, "told_on": self.told_on, "when": self.when, "clause": self.clause,
                "wrong": self.wrong, "right": self.right, "sentence": self.sentence}


def with_recalls(topics: list[Topic], recalls: Sequence[dialogue_recall.Recall]) -> list[Topic]:
    """`topics` with a callback topic per recall, placed at its seeded position among its day's topics."""
    out = list(topics)
    for recall in recalls:
        days = [i for i, t in enumerate(out) if t.day == recall.day]
        slot = min(len(days), int(recall.position * (len(days) + 1)))
        at = len(out) if not days else days[slot] if slot < len(days) else days[-1] + 1
        out.insert(at, Topic(day=recall.day, category=recall.category, recall=recall))
    return sorted(out, key=lambda t: t.day)


def plan_topics(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], bullets: Sequence[Bullet]
) -> list[Topic]:
    """Every bullet as a topic on its discussion day, with fillers mixed in, in day order."""
    events = {e.event_id: e for e in world.events}
    facts = {f.fact_id: f for f in world.facts}
    by_event: dict[str, list[Bullet]] = defaultdict(list)
    for b in bullets:
        by_event[b.event_id].append(b)
    topics: list[Topic] = []
    base = next((e for e in world.events if is_baseline(e)), None)
    for i, bullet in enumerate(by_event.get(base.event_id, []) if base else []):
        topics.append(Topic(day=background_day(config, bullet, [facts[f] for f in bullet.fact_ids], i),
                            category=bullet.category, bullet=bullet, event=base, intro=True))
    for event in story_events(world):
        group = by_event.get(event.event_id, [])
        if not group:
            continue
        day = discussion_day(config, persona, event, [facts[i] for b in group for i in b.fact_ids])
        rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"when:{event.event_id}")
        when = None
        if day != event.date or rng.random() < 0.4:
            when = TimeRef(phrase=relativetime.describe(event.date, day, rng), date=event.date,
                           event_id=event.event_id)
        for i, bullet in enumerate(group):
            doc = (attachment_for(persona, event, documents, day)
                   if bullet.category == "attachment_consultation" else None)  # found: make_bullets checked
            back, title = callback_for(config, persona, world, events, bullet, facts, day)
            old = predecessor(facts[bullet.fact_ids[0]], world) if back and bullet.fact_ids else None
            topics.append(Topic(day=day, category=bullet.category, bullet=bullet, event=event,
                                when=when if i == 0 else None, callback=back, callback_title=title,
                                callback_paraphrase=old_value_phrase(old, persona) if old else "", doc=doc))
    topics = sorted(topics, key=lambda t: t.day)  # stable: events in date order within a day
    return with_fillers(config, persona, topics)


def background_day(config: BuildConfig, bullet: Bullet, facts: Sequence[Fact], i: int) -> dt.date:
    """Background comes up over the first days, INTRO_PER_DAY topics a day, while its facts still hold."""
    day = config.start_date + dt.timedelta(days=i // INTRO_PER_DAY)
    holds = all(f.valid_from <= day and (f.valid_to is None or day < f.valid_to) for f in facts)
    return day if holds and day <= config.end_date else max(config.start_date, bullet.date)


def callback_for(
    config: BuildConfig, persona: Persona, world: World, events: dict[str, Event], bullet: Bullet,
    facts: dict[str, Fact], day: dt.date,
) -> tuple[TimeRef | None, str]:
    """An earlier related event the user mentions with a relative-time phrase: the event that set the
    value this bullet's fact replaces (always for a status update, else with CALLBACK_SHARE)."""
    if not bullet.fact_ids:
        return None, ""
    old = predecessor(facts[bullet.fact_ids[0]], world)
    earlier = events.get(old.event_id) if old else None
    if earlier is None or earlier.event_id.endswith("-e0000") or earlier.date >= bullet.date:
        return None, ""
    rng = rng_for(config.seed, persona.persona_id, STAGE, bullet.date, f"callback:{bullet.bullet_id}")
    if bullet.category != "status_update" and rng.random() >= CALLBACK_SHARE:
        return None, ""
    phrase = relativetime.describe(earlier.date, day, rng)
    return TimeRef(phrase=phrase, date=earlier.date, event_id=earlier.event_id), event_title(earlier, world)


def old_value_phrase(fact: Fact, persona: Persona) -> str:
    """How the user may call the value a change replaced (`my previous city`), or the earlier event of a kind by its
    ontology recall phrase (`that dinner out`)."""
    event = event_reference(fact, persona)
    return event or f"{holder(fact, persona, 'first')} previous {attribute_phrase(fact.attribute)}"


def with_fillers(config: BuildConfig, persona: Persona, topics: list[Topic]) -> list[Topic]:
    """Fillers making up `filler_rate` of all topics: some days without topics get a filler-only session
    (one or two fillers, with chance `filler_rate`, lowered when the quiet days are so many that their sessions
    alone would pass that share: a long, sparse life would otherwise talk mostly small talk), the rest of the
    budget is spread over the other days' topics at seeded positions."""
    rate = config.stages.dialogue.filler_rate
    by_day: dict[dt.date, list[Topic]] = defaultdict(list)
    for t in topics:
        by_day[t.day].append(t)
    days = {config.start_date + dt.timedelta(days=n) for n in range(config.days)} | set(by_day)
    rngs = {day: rng_for(config.seed, persona.persona_id, STAGE, day, "fillers") for day in days}
    total = len(topics) * rate / (1 - rate)  # the fillers that make `rate` of all topics
    quiet_days = sorted(day for day in days if day not in by_day)
    chance = min(rate, total / (QUIET_FILLERS * len(quiet_days))) if quiet_days else rate
    quiet = {day: (1 + (rngs[day].random() < 0.5)) if rngs[day].random() < chance else 0 for day in quiet_days}
    budget = max(0.0, total - sum(quiet.values()))
    per_topic = budget / len(topics) if topics else 0.0
    out: list[Topic] = []
    for day in sorted(days):
        rng, todays = rngs[day], list(by_day.get(day, []))
        expected = len(todays) * per_topic
        n = quiet.get(day, 0) or int(expected) + (1 if rng.random() < expected - int(expected) else 0)
        for _ in range(n):
            topic = filler_topic(day, rng)
            for _ in range(3):  # a subject comes up once a day
                if all((t.filler or {}).get("topic") != topic.filler["topic"] for t in todays):
                    break
                topic = filler_topic(day, rng)
            todays.insert(rng.randint(0, len(todays)), topic)
        out += todays
    return out


QUIET_FILLERS = 1.5
"""Fillers a quiet day's filler-only session holds on average (one or two)."""


def filler_topic(day: dt.date, rng: random.Random) -> Topic:
    """Small talk or an unrelated request, its subject drawn from tasks/dialogue/filler.py's banks."""
    kind = "small_talk" if rng.random() < 0.45 else "request"
    subject = rng.choice(FILLER_TOPICS[kind])
    return Topic(day=day, category=FILLER_CATEGORY[kind], filler={"kind": kind, "topic": subject})


def topic_starts(config: BuildConfig, persona: Persona, day: dt.date, topics: Sequence[Topic]) -> list[dt.datetime]:
    """Seeded start times between 08:00 and 20:30, in order, each after any document it shares."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, day, "topic_starts")
    minutes = sorted(rng.randint(DAY_START, DAY_END) for _ in topics)
    starts, previous = [], None
    for topic, minute in zip(topics, minutes, strict=True):
        start = local_datetime(persona, day, 0) + dt.timedelta(minutes=minute)
        if topic.doc is not None:
            start = max(start, topic.doc.created_at + dt.timedelta(minutes=10))
        if previous is not None:
            start = max(start, previous + dt.timedelta(minutes=1))
        starts.append(start)
        previous = start
    return starts
