"""Dialogue synthesis: each day's outcomes become atomic bullets, each bullet a topic of a conversation.

Rules decide everything but the wording (the model only narrates turns):

1. Bullets. For every non-baseline event, each fact it produced is one bullet (its clause, carrying
   that fact id), and up to `details_per_event` sentences of the event's outcome narrative that state
   no fact become detail bullets (no fact ids): small things the user mentions in passing.
2. Categories. A bullet's category (information sharing, advice seeking, status update, scheduling,
   attachment consultation) is drawn with the seeded RNG from weights set by the persona's likely
   intent and emotional context: a bad outcome pushes towards advice (more so for an anxious persona or
   a critical event), a changed attribute towards a status update (more so for a conscientious one),
   time-bound attributes towards scheduling, good news towards sharing (more so for an extravert); a
   document about the event that the user shares makes the event's first fact bullet an attachment
   consultation. The category shapes the turns (tasks/dialogue/shape.py): document talk is longer and
   more formal than a quick status update.
3. Days and times. An event is talked about on its own day, or (share `delay_share`) one to six days
   later while its facts still hold; the opening turn then says when it happened ("yesterday", "last
   Tuesday", "three days ago", tasks/dialogue/relativetime.py), recorded as a TimeRef the verifier checks
   against the calendar. A status update may call back an earlier related event the same way. A
   day's topics spread from morning to evening, each starting at a seeded time; turns advance the
   clock by a role-dependent gap and never leave the day.
4. Turns. Each topic is an initial user turn (a new thread, stating its facts by their first surface
   form), the assistant's reply, then `followups` follow-up user turns (deeper on the same topic,
   referring to the fact by paraphrase rather than repeating it) each answered. The assistant sees the
   last `context_window` turns of the session and is only ever told what the user said or uploaded.
   Attachment consultations open with `[Upload <doc_id>]` (RHELM's convention) and talk about the
   document's sections, points and tables without pasting it. Small talk and unrelated requests make
   up `filler_rate` of the topics, and some otherwise quiet days get a filler-only session.
5. Verification. Every turn is checked as it is written (tasks/dialogue/verify.py: claimed facts
   carried and valid that day, nothing from the future, relative-time phrases agree with the calendar,
   the assistant reveals nothing untold, no pasted document, the upload marker); a failing turn gets a
   fresh wording, up to `max_attempts`, then a rule-built template; a topic whose opening still fails is
   dropped. Each repair lands as a finding (Corpus.findings).

6. Memory rate. With `memory_rate` set, planned callbacks are thinned, or callback topics added (the user
   comes back to something told in an earlier session without restating it; their turns have
   `callback_of` set), until that share of user turns needs memory from outside the recent window
   (tasks/dialogue/recall.py); None leaves the dialogue exactly as the topics produce it.

Sessions are independent call chains advanced together in rounds (tasks/llm/rounds.py), so ids,
clocks and rows never depend on which call finishes first.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schemas.audit import Finding
from schemas.config import BuildConfig
from schemas.corpus import Bullet, Corpus, DialogueCategory, Document, FactCheck, Session, TimeRef, Turn, TurnText
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common.facttext import (
    attribute_phrase,
    capital,
    carried_ids,
    carries,
    carries_first,
    clause,
    event_context,
    event_title,
    facts_of,
    first_name,
    holder,
    is_baseline,
    mentions,
    must_include,
    persona_context,
    story_events,
    style_context,
)
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_date, local_datetime
from tasks.dialogue import recall as dialogue_recall
from tasks.dialogue import relativetime
from tasks.dialogue.filler import FILLER_TOPICS
from tasks.dialogue.shape import shape_of, shifted_formality
from tasks.dialogue.verify import Problem, TurnScope, heard_in, turn_problems, visible
from tasks.llm.gateway import CallSpec, Gateway
from tasks.llm.rounds import Chain, run_rounds

STAGE = "dialogue"
SCHEDULING_WORDS = frozenset(
    "appointment schedule date deadline meeting booking reservation trip class lesson session interview due "
    "exam flight course project doctor gym race visit".split()
)
"""An attribute named with one of these words is about arranging time: its bullet leans to `scheduling`."""
ATTACHMENT_SHARE = 0.6
"""Chance that a document about the event is brought into the conversation."""
ATTACHMENT_SOURCES = ("report", "email", "journal")
"""Which document about an event the user shares, in order of preference."""
CALLBACK_SHARE = 0.3
"""Chance that a bullet other than a status update calls back an earlier related event."""
MIN_DETAIL_WORDS = 5
INTRO_PER_DAY = 3
"""Background topics (the baseline facts) talked about per day at the start of the story."""
DAY_START, DAY_END = 8 * 60, 20 * 60 + 30
"""Topics start between 08:00 and 20:30 local time."""
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")
SENTENCE = re.compile(r"(?<=[.!?])\s+")
FILLER_CATEGORY: dict[str, DialogueCategory] = {"small_talk": "information_sharing", "request": "advice_seeking"}
FALLBACK_ASKS = {
    "information_sharing": "I just wanted to tell you.",
    "advice_seeking": "What would you suggest?",
    "status_update": "Just keeping you posted.",
    "scheduling": "Can you help me plan around it?",
    "attachment_consultation": "Could you help me make sense of it?",
}
FALLBACK_FOLLOWUP = "Could you say a bit more about that?"
FALLBACK_REPLY = (
    "Thank you for telling me.", "That sounds like a lot to think about.",
    "It may help to write down the next small step and when you want to take it.",
    "Keeping a short note of how things go can make the next decision easier.",
    "It is fine to take this one step at a time.", "I am happy to help you think it through.",
    "If anything changes, tell me and we can adjust the plan together.",
    "Would you like to go through the options together?",
)


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


def write_dialogue(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], gateway: Gateway
) -> Corpus:
    """Bullets, one session per day that has topics, the sessions' turns, and the stage's repairs."""
    bullets = make_bullets(config, persona, world, documents)
    topics = plan_topics(config, persona, world, documents, bullets)
    rate = config.stages.dialogue.memory_rate
    if rate is None:
        return written(config, persona, world, documents, gateway, bullets, topics)
    topics = dialogue_recall.thinned_callbacks(config, persona, topics, rate)
    corpus = written(config, persona, world, documents, gateway, bullets, topics)
    for round_no in range(dialogue_recall.PASSES):
        extra = dialogue_recall.recalls(config, persona, world, corpus.turns, rate, round_no)
        if not extra:
            break
        topics = with_recalls(topics, extra)
        corpus = written(config, persona, world, documents, gateway, bullets, topics)
    return corpus


def with_recalls(topics: list[Topic], recalls: Sequence[dialogue_recall.Recall]) -> list[Topic]:
    """`topics` with a callback topic per recall, placed at its seeded position among its day's topics."""
    out = list(topics)
    for recall in recalls:
        days = [i for i, t in enumerate(out) if t.day == recall.day]
        slot = min(len(days), int(recall.position * (len(days) + 1)))
        at = len(out) if not days else days[slot] if slot < len(days) else days[-1] + 1
        out.insert(at, Topic(day=recall.day, category=recall.category, recall=recall))
    return sorted(out, key=lambda t: t.day)


def written(config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], gateway: Gateway,
            bullets: list[Bullet], topics: list[Topic]) -> Corpus:
    """The planned topics written: one session per day that has topics, its turns and the stage's repairs."""
    by_day: dict[dt.date, list[Topic]] = defaultdict(list)
    for topic in topics:
        by_day[topic.day].append(topic)
    facts = {f.fact_id: f for f in world.facts}
    live = config.provider_for(STAGE).name != "offline"
    sessions: list[Session] = []
    chains: list[Chain[tuple[list[Turn], list[dict[str, str]]]]] = []
    for day in sorted(by_day):
        day_topics = by_day[day]
        starts = topic_starts(config, persona, day, day_topics)
        session = Session(
            session_id=f"{persona.persona_id}-s{len(sessions) + 1:04d}",
            persona_id=persona.persona_id,
            started_at=starts[0] - dt.timedelta(minutes=1),
            category=day_topics[0].category,
        )
        sessions.append(session)
        writer = SessionWriter(config, persona, world, documents, session, facts, live)
        chains.append(writer.write(list(zip(day_topics, starts, strict=True))))
    turns: list[Turn] = []
    notes: list[dict[str, str]] = []
    for session_turns, session_notes in run_rounds(gateway, chains):
        turns += session_turns
        notes += session_notes
    sessions, turns, notes = renumbered(persona, sessions, turns, notes)
    return Corpus(bullets=bullets, sessions=sessions, turns=turns, findings=findings(persona, notes))


def renumbered(persona: Persona, sessions: list[Session], turns: list[Turn], notes: list[dict[str, str]]):
    """Sessions left with turns, numbered without gaps (a session whose every topic was dropped goes), with
    their turns' ids and the notes' artifact ids following."""
    kept = [s for s in sessions if s.session_id in {t.session_id for t in turns}]
    rename = {s.session_id: f"{persona.persona_id}-s{n:04d}" for n, s in enumerate(kept, start=1)}
    if all(old == new for old, new in rename.items()):
        return kept, turns, notes

    def moved(item_id: str) -> str:
        session = item_id[:len(kept[0].session_id)]
        return rename[session] + item_id[len(session):] if session in rename else item_id

    sessions = [s.model_copy(update={"session_id": rename[s.session_id]}) for s in kept]
    turns = [t.model_copy(update={"session_id": rename[t.session_id], "turn_id": moved(t.turn_id)}) for t in turns]
    return sessions, turns, [n | {"artifact_id": moved(n["artifact_id"])} for n in notes]


def findings(persona: Persona, notes: list[dict[str, str]]) -> list[Finding]:
    """The stage's repairs as findings `<pid>-dlgNNNN`, in session order."""
    pid = persona.persona_id
    return [Finding(finding_id=f"{pid}-dlg{n:04d}", persona_id=pid, stage=STAGE, **note)
            for n, note in enumerate(notes, start=1)]


# --- bullets -------------------------------------------------------------------------------------------


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
    found = sorted((d for d in documents if d.event_id == event.event_id and usable(d)),
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
    if predecessor(fact, world) is not None:
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
    """The fact that held the same subject's attribute just before `fact` replaced it, if any."""
    older = [o for o in world.facts if o.fact_id != fact.fact_id and o.subject == fact.subject
             and o.attribute == fact.attribute and o.valid_from < fact.valid_from]
    return max(older, key=lambda o: (o.valid_from, o.fact_id)) if older else None


def bullet_text(fact: Fact, event: Event, world: World, persona: Persona) -> str:
    """`Maya's pet is now Biscuit (after: adopt a rescue dog named Biscuit; went well).`"""
    outcome = "went well" if event.valence == "positive" else "went badly"
    return f"{capital(clause(fact, persona, 'third'))} (after: {event_title(event, world.plans)}; {outcome})."


# --- topics and days -----------------------------------------------------------------------------------


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


def discussion_day(config: BuildConfig, persona: Persona, event: Event, facts: Sequence[Fact]) -> dt.date:
    """The event's own day, or (share `delay_share`) one to six days later if its facts still hold then."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"delay:{event.event_id}")
    if rng.random() >= config.stages.dialogue.delay_share:
        return event.date
    later = event.date + dt.timedelta(days=rng.randint(1, 6))
    holds = all(f.valid_from <= later and (f.valid_to is None or later < f.valid_to) for f in facts)
    return later if later <= config.end_date and holds else event.date


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
    return TimeRef(phrase=phrase, date=earlier.date, event_id=earlier.event_id), event_title(earlier, world.plans)


def old_value_phrase(fact: Fact, persona: Persona) -> str:
    """How the user may call the value a change replaced: `my previous city`."""
    return f"{holder(fact, persona, 'first')} previous {attribute_phrase(fact.attribute)}"


def with_fillers(config: BuildConfig, persona: Persona, topics: list[Topic]) -> list[Topic]:
    """Fillers making up `filler_rate` of all topics: some days without topics get a filler-only session
    (one or two fillers, with chance `filler_rate`), the rest of the budget is spread over the other days'
    topics at seeded positions."""
    rate = config.stages.dialogue.filler_rate
    by_day: dict[dt.date, list[Topic]] = defaultdict(list)
    for t in topics:
        by_day[t.day].append(t)
    days = {config.start_date + dt.timedelta(days=n) for n in range(config.days)} | set(by_day)
    rngs = {day: rng_for(config.seed, persona.persona_id, STAGE, day, "fillers") for day in days}
    quiet = {day: (1 + (rngs[day].random() < 0.5)) if rngs[day].random() < rate else 0
             for day in sorted(days) if day not in by_day}
    budget = max(0.0, len(topics) * rate / (1 - rate) - sum(quiet.values()))
    per_topic = budget / len(topics) if topics else 0.0
    out: list[Topic] = []
    for day in sorted(days):
        rng, todays = rngs[day], list(by_day.get(day, []))
        expected = len(todays) * per_topic
        n = quiet.get(day, 0) or int(expected) + (1 if rng.random() < expected - int(expected) else 0)
        for _ in range(n):
            todays.insert(rng.randint(0, len(todays)), filler_topic(day, rng))
        out += todays
    return out


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


# --- writing a session ---------------------------------------------------------------------------------


class SessionWriter:
    """Writes one session's turns, keeping its clock, the conversation so far and its repair notes.

    Its writing methods are call chains: they yield each model call and receive its output.
    """

    def __init__(self, config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document],
                 session: Session, facts: dict[str, Fact], live: bool) -> None:
        self.config, self.persona, self.world = config, persona, world
        self.documents = {d.doc_id: d for d in documents}
        self.session, self.facts, self.live = session, facts, live
        self.day = local_date(persona, session.started_at)
        self.rng = rng_for(config.seed, persona.persona_id, STAGE, self.day, f"clock:{session.session_id}")
        self.clock = session.started_at
        self.turns: list[Turn] = []
        self.notes: list[dict[str, str]] = []
        self.refs: list[TimeRef] = []
        """Time refs recorded so far on the current topic (its opening's `when` and callback)."""

    def write(self, topics: list[tuple[Topic, dt.datetime]]) -> Chain[tuple[list[Turn], list[dict[str, str]]]]:
        """All turns of the session, topic by topic, and the notes on what was repaired or dropped."""
        for topic, start in topics:
            self.clock = max(self.clock, start)
            yield from self.topic(topic)
        return self.turns, self.notes

    def topic(self, topic: Topic) -> Chain[None]:
        self.refs = []
        opening = yield from self.user_turn(topic, "initial", 0)
        if opening is None:
            return
        self.refs = list(opening.time_refs)
        yield from self.assistant_turn(topic, "filler" if topic.filler else "initial")
        rounds = 0 if topic.recall else self.config.stages.dialogue.followups
        if topic.filler:
            rounds = min(rounds, 1 if self.rng.random() < 0.5 else 0)
        for k in range(1, rounds + 1):
            if (yield from self.user_turn(topic, "followup", k)) is None:
                return
            yield from self.assistant_turn(topic, "filler" if topic.filler else "followup")

    # user turns

    def user_turn(self, topic: Topic, kind: str, k: int) -> Chain[Turn | None]:
        """A user turn that passes the checks: up to max_attempts wordings, then a template, else none."""
        turn_kind = "filler" if topic.filler else kind
        prompt = {"filler": "user_turn_filler", "initial": "user_turn_initial"}.get(turn_kind, "user_turn_followup")
        prompt = "user_turn_callback" if topic.recall else prompt
        context = self.user_context(topic, turn_kind, k)
        attempts = self.config.stages.dialogue.max_attempts
        problems: list[Problem] = []
        for sample in range(attempts):
            text = yield from self.generate(prompt, context, sample)
            turn, contradicted = yield from self.user_draft(topic, turn_kind, self.repaired(topic, turn_kind, text))
            problems = contradicted + self.problems(turn, topic)
            if not problems:
                return self.commit(turn)
            self.note(topic, turn, problems, "info", f"wording {sample + 1} of {attempts} rejected; regenerated")
        turn, contradicted = yield from self.user_draft(topic, turn_kind, self.template_text(topic, turn_kind))
        if not contradicted + self.problems(turn, topic):
            self.note(topic, turn, problems, "warning", "every wording was rejected; used the rule template")
            return self.commit(turn)
        self.note(topic, None, problems, "warning", f"dropped the rest of the topic at its {turn_kind} turn")
        return None

    def user_context(self, topic: Topic, kind: str, k: int) -> dict[str, Any]:
        style = style_context(self.persona)
        style["formality"] = shifted_formality(float(style["formality"]), topic.category, kind)
        lo, hi = shape_of(topic.category, kind).user_sentences
        context: dict[str, Any] = {
            "persona": persona_context(self.persona), "style": style, "category": topic.category,
            "history": self.history(), "length": {"min_sentences": lo, "max_sentences": hi},
            "date": human_date(self.day), "part_of_day": self.part_of_day(),
        }
        if kind == "filler":
            return context | {"filler": dict(topic.filler or {})}
        if topic.recall is not None:
            return context | {"recall": topic.recall.context()}
        event = event_context(topic.event, self.world) if topic.event else {}
        if topic.intro:
            event |= {"title": "my background", "kind": "introduction"}
        attachment = attachment_context(topic.doc, self.persona, self.facts)
        if kind == "followup":
            last = next((t.text for t in reversed(self.turns) if t.role == "assistant"), "")
            return context | {"event": event, "followup_index": k, "last_assistant": last,
                              "paraphrase": self.paraphrase(topic), "attachment": attachment}
        facts = self.bullet_facts(topic)
        return context | {
            "event": event, "attachment": attachment,
            "facts": [{"clause": self.fact_clause(topic, f), "must_include": must_include(f)} for f in facts],
            "detail": None if facts or topic.bullet is None else topic.bullet.text,
            "when": topic.when.phrase if topic.when else None,
            "callback": ({"phrase": topic.callback.phrase, "title": topic.callback_title,
                          "paraphrase": topic.callback_paraphrase} if topic.callback else None),
            "intro": topic.intro,
        }

    def fact_clause(self, topic: Topic, fact: Fact) -> str:
        """The clause stating a fact; for background, the persona's own sentence that carries it."""
        if topic.intro and topic.event is not None:
            for line in SENTENCE.split(EMOJI.sub("", topic.event.narrative)):
                if carries_first(line, fact):
                    return line.strip().rstrip(".!")
        return clause(fact, self.persona, "first")

    def repaired(self, topic: Topic, kind: str, text: str) -> str:
        """Deterministic repairs of an opening turn: the upload marker first, left-out facts appended."""
        if kind != "initial":
            return text
        if topic.doc is not None and f"[Upload {topic.doc.doc_id}]" not in text:
            text = f"[Upload {topic.doc.doc_id}] {text}"
        missing = [f for f in self.bullet_facts(topic) if f.surface_forms and not carries_first(text, f)]
        return " ".join([text] + [f"{capital(clause(f, self.persona, 'first'))}." for f in missing])

    def template_text(self, topic: Topic, kind: str) -> str:
        """The rule-built wording used when every model wording failed its checks."""
        if kind == "filler":
            return f"Unrelated question: could you help me with {(topic.filler or {}).get('topic', 'something')}?"
        if topic.recall is not None:
            return f"{capital(topic.recall.phrase)} has been on my mind again. {FALLBACK_ASKS[topic.category]}"
        if kind == "followup":
            return FALLBACK_FOLLOWUP
        parts = [f"[Upload {topic.doc.doc_id}]"] if topic.doc else []
        if topic.when and topic.event:
            parts.append(f"{capital(topic.when.phrase)} I set out to {event_title(topic.event, self.world.plans)}.")
        if topic.callback:
            parts.append(f"{capital(topic.callback.phrase)} I set out to {topic.callback_title}.")
        facts = self.bullet_facts(topic)
        parts += [f"{capital(clause(f, self.persona, 'first'))}." for f in facts]
        if not facts and topic.bullet is not None:
            parts.append(topic.bullet.text)
        parts.append(FALLBACK_ASKS[topic.category])
        return " ".join(parts)

    def user_draft(self, topic: Topic, kind: str, text: str) -> Chain[tuple[Turn, list[Problem]]]:
        """The turn `text` would become (not yet added): its claims, time references and paraphrases, and
        the facts a live model judged it to contradict."""
        facts = self.bullet_facts(topic) if kind != "filler" else []
        refs = [r for r in (topic.when, topic.callback) if r is not None and kind == "initial" and
                relativetime_in(text, r.phrase)]
        paraphrased: list[str] = []
        contradicted: list[Problem] = []
        if kind == "followup" and facts:
            phrase = self.paraphrase(topic)
            unclaimed = [f for f in facts if not carries(text, f)]
            if phrase and mentions(text, phrase):
                paraphrased = [f.fact_id for f in unclaimed]
            elif self.live and unclaimed:
                paraphrased, contradicted = yield from self.checked_paraphrases(text, unclaimed)
        if topic.recall is not None:
            said = mentions(text, topic.recall.phrase)
            paraphrased = [topic.recall.fact_id] if said else []
            contradicted += [] if said else [Problem("recall_phrase", f"the callback must say {topic.recall.phrase!r}")]
        missing = [r for r in (topic.when, topic.callback) if r is not None and kind == "initial" and r not in refs]
        contradicted += [Problem("time_ref_in_text", f"the opening must say {r.phrase!r} (the event was on {r.date})")
                         for r in missing]
        return self.draft("user", text, topic, kind, carried_ids(text, facts), refs, paraphrased), contradicted

    def checked_paraphrases(self, text: str, facts: list[Fact]) -> Chain[tuple[list[str], list[Problem]]]:
        """With a live model (the fact_check prompt): the facts `text` refers to without a surface form, and a
        problem for each fact it contradicts."""
        referred, contradicted = [], []
        for fact in facts:
            context = {"text": text, "fact": {"clause": clause(fact, self.persona, "first"), "value": fact.value,
                                              "surface_forms": list(fact.surface_forms)}}
            verdict = yield CallSpec("fact_check", context, FactCheck, STAGE, self.persona.persona_id)
            if verdict.contradicts:
                contradicted.append(Problem("turn_contradicts_fact", f"the model judged the turn to contradict "
                                            f"{fact.fact_id} ({fact.value!r})"))
            elif verdict.refers:
                referred.append(fact.fact_id)
        return referred, contradicted

    # assistant turns

    def assistant_turn(self, topic: Topic, kind: str) -> Chain[None]:
        """The assistant's reply: up to max_attempts wordings, then a safe rule-built reply."""
        lo, hi = shape_of(topic.category, kind).reply_words
        context = {
            "user_first_name": first_name(self.persona.name), "category": topic.category,
            "tone": topic.event.valence if topic.event else "neutral",
            "history": self.history(before_last=True), "user_message": self.turns[-1].text, "turn_kind": kind,
            "attachment": attachment_context(topic.doc, self.persona, self.facts),
            "mentioned": self.mentioned(), "filler": dict(topic.filler) if topic.filler else None,
            "min_words": lo, "max_words": hi, "date": human_date(self.day), "part_of_day": self.part_of_day(),
        }
        attempts = self.config.stages.dialogue.max_attempts
        problems: list[Problem] = []
        for sample in range(attempts):
            text = yield from self.generate("assistant_turn", context, sample)
            turn = self.draft("assistant", text, topic, kind, [], [], [])
            problems = self.problems(turn, topic)
            if not problems:
                self.commit(turn)
                return
            self.note(topic, turn, problems, "info", f"wording {sample + 1} of {attempts} rejected; regenerated")
        self.commit(self.draft("assistant", fallback_reply(lo), topic, kind, [], [], []))
        self.note(topic, self.turns[-1], problems, "warning", "every wording was rejected; used a generic reply")

    # shared

    def draft(self, role: str, text: str, topic: Topic, kind: str, fact_ids: list[str], refs: list[TimeRef],
              paraphrased: list[str]) -> Turn:
        """A turn at the clock's next tick (the clock only moves when the turn is committed)."""
        return Turn(
            turn_id=f"{self.session.session_id}-t{len(self.turns) + 1:02d}",
            session_id=self.session.session_id, persona_id=self.persona.persona_id,
            timestamp=self.next_tick(role), role=role, text=text.strip(),
            bullet_id=topic.bullet.bullet_id if topic.bullet else None,
            doc_ids=[topic.doc.doc_id] if topic.doc and kind != "filler" else [],
            fact_ids=fact_ids, category=topic.category, kind=kind if kind in ("initial", "followup") else "filler",
            time_refs=refs, paraphrase_ids=paraphrased, callback_of=topic.recall.fact_id if topic.recall else None,
        )

    def next_tick(self, role: str) -> dt.datetime:
        """The clock plus a role-dependent gap drawn from a copy of the session RNG (no draw is spent)."""
        state = self.rng.getstate()
        moment = self.clock + turn_gap(role, self.rng, self.clock.timetz() > dt.time(22, 30, tzinfo=self.clock.tzinfo))
        self.rng.setstate(state)
        return moment

    def commit(self, turn: Turn) -> Turn:
        """Add the turn and move the clock to it (spending the gap's draw)."""
        turn_gap(turn.role, self.rng, False)
        self.clock = turn.timestamp
        self.turns.append(turn)
        return turn

    def problems(self, turn: Turn, topic: Topic) -> list[Problem]:
        """What the verifier would reject in `turn` (tasks/dialogue/verify.py), with the same scope the final
        verifier builds (scopes_for): what the assistant sees of the session and the recorded time refs."""
        session = [*self.turns, turn]
        heard = heard_in(visible(session, len(session) - (1 if turn.role == "assistant" else 0), self.window),
                         self.documents)
        refs = [*self.refs, *turn.time_refs]
        dates = tuple(dict.fromkeys([topic.event.date] if topic.event else []) | dict.fromkeys(r.date for r in refs))
        scope = TurnScope(persona=self.persona, facts=self.facts, day=self.day, heard=heard,
                          documents=self.documents, topic_dates=dates, topic_text=self.topic_text(topic, refs))
        return [p for p in turn_problems(turn, scope) if p.check != "assistant_length"]

    def topic_text(self, topic: Topic, refs: Sequence[TimeRef]) -> str:
        """Titles and narratives of the events the topic is about (what they name is known that day)."""
        events = {e.event_id: e for e in self.world.events}
        ids = [topic.event.event_id if topic.event else None] + [r.event_id for r in refs]
        return "\n".join(f"{event_title(events[i], self.world.plans)}\n{events[i].narrative}"
                         for i in dict.fromkeys(ids) if i in events)

    def note(self, topic: Topic, turn: Turn | None, problems: Sequence[Problem], severity: str, action: str) -> None:
        """One finding per failed check: on the turn that shipped, else on the topic's bullet (or session)."""
        shipped = turn is not None and severity == "warning"
        artifact = turn.turn_id if shipped else topic.bullet.bullet_id if topic.bullet else self.session.session_id
        for check in dict.fromkeys(p.check for p in problems):
            message = f"{action}: " + "; ".join(p.message for p in problems if p.check == check)
            self.notes.append({"artifact_id": artifact, "check": check, "severity": severity, "message": message,
                               "suggestion": "see tasks/dialogue/verify.py for the check"})

    def bullet_facts(self, topic: Topic) -> list[Fact]:
        return [self.facts[i] for i in topic.bullet.fact_ids] if topic.bullet else []

    def paraphrase(self, topic: Topic) -> str | None:
        """How a follow-up may refer to the topic's fact without its value: `my new gym`."""
        facts = self.bullet_facts(topic)
        if not facts or topic.intro:
            return None
        attribute = attribute_phrase(facts[0].attribute)
        fresh = "" if attribute.split()[0] in ("new", "last", "latest", "current", "recent", "next") else "new "
        return f"{holder(facts[0], self.persona, 'first')} {fresh}{attribute}"

    @property
    def window(self) -> int:
        return self.config.stages.dialogue.context_window

    def history(self, before_last: bool = False) -> list[dict[str, str]]:
        """The `context_window` turns of the session before the next turn (or before the message the
        assistant answers, `before_last`), oldest first."""
        turns = self.turns[:-1] if before_last else self.turns
        return [{"role": t.role, "text": t.text} for t in turns[len(turns) - self.window:]] if self.window else []

    def part_of_day(self) -> str:
        """`morning`, `afternoon` or `evening` on the session's clock."""
        hour = self.clock.hour
        return "morning" if hour < 12 else "afternoon" if hour < 17 else "evening"

    def mentioned(self) -> list[str]:
        """Phrases the assistant may repeat: the first surface forms of the facts stated in what it sees of
        the session (the context window and the message it answers: user turns and cited documents)."""
        seen = visible(self.turns, len(self.turns), self.window)
        heard = heard_in(seen, self.documents)
        ids = dict.fromkeys(i for t in seen if t.role == "user" for i in t.fact_ids)
        ids.update(dict.fromkeys(i for t in seen for d in t.doc_ids if d in self.documents
                                 for i in self.documents[d].fact_ids if i in self.facts))
        return [must_include(self.facts[i]) for i in ids if mentions(heard, must_include(self.facts[i]))]

    def generate(self, prompt: str, context: dict[str, Any], sample: int = 0) -> Chain[str]:
        """One model call: yielded to the round runner, which sends back the validated output."""
        out = yield CallSpec(prompt, context, TurnText, STAGE, self.persona.persona_id, sample)
        return out.text.strip()


def relativetime_in(text: str, phrase: str) -> bool:
    """True when the relative-time phrase occurs in `text` (whole words, any case)."""
    return mentions(text, phrase)


HEADING = re.compile(r"^\s*#{1,3}\s+(.+?)\s*$|<h[1-3][^>]*>(.*?)</h[1-3]>", re.MULTILINE | re.IGNORECASE)


def attachment_context(doc: Document | None, persona: Persona, facts: dict[str, Fact]) -> dict[str, Any] | None:
    """What the prompts may say about a shared document: id, title, sender, a description, its section
    headings, its points (the facts it states, in the user's words) and its tables' captions and columns."""
    if doc is None:
        return None
    sender = display_name(doc.sender or persona.name)
    if doc.source_type == "report":
        description = "a report I put together"
    elif doc.source_type == "journal":
        description = "an entry from my journal"
    elif sender == persona.name:
        description = f"an email I sent to {', '.join(display_name(r) for r in doc.recipients) or 'someone'}"
    else:
        description = f"an email from {sender}"
    sections = [next(g for g in m.groups() if g) for m in HEADING.finditer(doc.body)]
    return {
        "doc_id": doc.doc_id, "title": doc.title, "sender": sender, "description": description,
        "source_type": doc.source_type, "format": doc.format,
        "sections": [re.sub(r"<[^>]+>", "", s).strip() for s in sections if s.strip()][:8],
        "points": [clause(facts[i], persona, "first") for i in doc.fact_ids if i in facts],
        "tables": [{"caption": str(t.get("caption", "")), "columns": [str(c) for c in t.get("columns", [])]}
                   for t in doc.tables],
    }


def display_name(header: str) -> str:
    """`Daniel Okafor <daniel@x.example>` -> `Daniel Okafor`."""
    return header.split("<", 1)[0].strip() or header.strip()


def fallback_reply(min_words: int) -> str:
    """A generic, fact-free reply of at least `min_words` words."""
    out: list[str] = []
    i = 0
    while len(" ".join(out).split()) < min_words:
        out.append(FALLBACK_REPLY[i % len(FALLBACK_REPLY)])
        i += 1
    return " ".join(out)


def turn_gap(role: str, rng: random.Random, hurried: bool) -> dt.timedelta:
    """Time before a turn: a user takes 1-8 minutes to write, the assistant 10-60 seconds; late in the
    evening everything is quicker (10-40 seconds) so the conversation stays on its day."""
    if hurried:
        return dt.timedelta(seconds=rng.randint(10, 40))
    seconds = rng.randint(60, 480) if role == "user" else rng.randint(10, 60)
    return dt.timedelta(seconds=seconds)
