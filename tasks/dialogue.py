"""Dialogue: each day's outcomes become atomic bullets, each bullet a topic in that evening's session.

Rules decide the bullets, their categories, the sessions and the timestamps; the model only
narrates the turns. A topic is an initial user turn that states the bullet's fact (it must contain
the fact's first surface form), an assistant reply, then `stages.dialogue.followups` follow-up
user turns, each answered. A user turn's fact_ids are the bullet's facts its text actually carries.

A session's turns form a chain (each sees the turns before it), but sessions are independent: each
session is a call chain and all of a persona's sessions advance together in rounds (tasks/llm/rounds.py),
one `generate_many` per round, so ids, clocks and rows never depend on which call finishes first.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from itertools import groupby
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Bullet, Corpus, DialogueCategory, Document, Session, Turn, TurnText
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.facttext import (
    attribute_phrase,
    capital,
    carried_ids,
    carries_first,
    clause,
    event_context,
    event_title,
    facts_of,
    first_name,
    mentions,
    must_include,
    persona_context,
    story_events,
    style_context,
)
from tasks.llm.gateway import CallSpec, Gateway
from tasks.llm.rounds import Chain, run_rounds
from tasks.rng import rng_for
from tasks.timeutil import human_date, local_date, local_datetime

STAGE = "dialogue"
SCHEDULING_WORDS = frozenset(
    "appointment schedule date deadline meeting booking reservation trip class lesson session interview due "
    "exam flight course project doctor gym race visit".split()
)
"""An attribute named with one of these words is about arranging time: its bullet is `scheduling`."""
ATTACHMENT_SHARE = 0.6
"""Chance that a same-day email about the event is brought into the conversation."""
REPLY_WORDS = (60, 200)


def write_dialogue(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], gateway: Gateway
) -> Corpus:
    """Bullets, one session per day that has bullets, and the sessions' turns."""
    bullets = make_bullets(config, persona, world, documents)
    facts = {f.fact_id: f for f in world.facts}
    sessions: list[Session] = []
    chains: list[Chain[list[Turn]]] = []
    for day, group in groupby(bullets, key=lambda b: b.date):
        day_bullets = list(group)
        session = make_session(config, persona, day, day_bullets, len(sessions) + 1)
        sessions.append(session)
        chains.append(SessionWriter(config, persona, world, documents, session, facts).write(day_bullets))
    turns = [turn for session_turns in run_rounds(gateway, chains) for turn in session_turns]
    return Corpus(bullets=bullets, sessions=sessions, turns=turns)


def make_bullets(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document]
) -> list[Bullet]:
    """One atomic bullet per fact of each non-baseline event, in date order, each with its category."""
    bullets: list[Bullet] = []
    for event in story_events(world):
        shared = shares_attachment(config, persona, event, documents)
        for i, fact in enumerate(facts_of(world, event)):
            category = classify(fact, event, world, has_attachment=shared and i == 0)
            bullets.append(
                Bullet(
                    bullet_id=f"{persona.persona_id}-b{len(bullets) + 1:04d}",
                    persona_id=persona.persona_id,
                    date=event.date,
                    event_id=event.event_id,
                    category=category,
                    text=bullet_text(fact, event, world, persona),
                    fact_ids=[fact.fact_id],
                )
            )
    return bullets


def shares_attachment(
    config: BuildConfig, persona: Persona, event: Event, documents: Sequence[Document]
) -> bool:
    """Whether the user brings the event's same-day email into the conversation (seeded draw)."""
    if attachment_for(persona, event, documents) is None:
        return False
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"attach:{event.event_id}")
    return rng.random() < ATTACHMENT_SHARE


def attachment_for(persona: Persona, event: Event, documents: Sequence[Document]) -> Document | None:
    """The first email about `event` that arrived on the event's own (local) day, if any."""
    for doc in documents:
        same_day = local_date(persona, doc.created_at) == event.date
        if doc.source_type == "email" and doc.event_id == event.event_id and same_day:
            return doc
    return None


def classify(fact: Fact, event: Event, world: World, has_attachment: bool) -> DialogueCategory:
    """The bullet's dialogue category, by rule: attachment, scheduling, advice, status update, sharing."""
    if has_attachment:
        return "attachment_consultation"
    if SCHEDULING_WORDS & set(attribute_phrase(fact.attribute).split()):
        return "scheduling"
    if event.valence == "negative":
        return "advice_seeking"
    if any(is_predecessor(other, fact) for other in world.facts):
        return "status_update"
    return "information_sharing"


def is_predecessor(old: Fact, new: Fact) -> bool:
    """True when `old` held the same subject's attribute before `new` replaced it."""
    return (
        old.fact_id != new.fact_id
        and old.subject == new.subject
        and old.attribute == new.attribute
        and old.valid_from < new.valid_from
    )


def bullet_text(fact: Fact, event: Event, world: World, persona: Persona) -> str:
    """`Maya's pet is now Biscuit (after: adopt a rescue dog named Biscuit; went well).`"""
    outcome = "went well" if event.valence == "positive" else "went badly"
    return f"{capital(clause(fact, persona, 'third'))} (after: {event_title(event, world.plans)}; {outcome})."


def make_session(
    config: BuildConfig, persona: Persona, day: dt.date, bullets: list[Bullet], n: int
) -> Session:
    """The day's session, starting some time between 19:00 and 21:30 local time."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, day, "session_start")
    start = local_datetime(persona, day, 19) + dt.timedelta(minutes=rng.randint(0, 150))
    return Session(
        session_id=f"{persona.persona_id}-s{n:04d}",
        persona_id=persona.persona_id,
        started_at=start,
        category=bullets[0].category,
    )


class SessionWriter:
    """Writes one session's turns, keeping the clock and the conversation history.

    Its writing methods are call chains: they yield each model call and receive its output.
    """

    def __init__(
        self,
        config: BuildConfig,
        persona: Persona,
        world: World,
        documents: Sequence[Document],
        session: Session,
        facts: dict[str, Fact],
    ) -> None:
        self.config, self.persona, self.world = config, persona, world
        self.documents, self.session, self.facts = documents, session, facts
        self.rng = rng_for(
            config.seed, persona.persona_id, STAGE, session.started_at.date(), f"clock:{session.session_id}"
        )
        self.clock = session.started_at
        self.turns: list[Turn] = []

    def write(self, bullets: list[Bullet]) -> Chain[list[Turn]]:
        """All turns of the session: per bullet, initial turn and reply, then follow-ups and replies."""
        for bullet in bullets:
            yield from self.topic(bullet)
        return self.turns

    def topic(self, bullet: Bullet) -> Chain[None]:
        event = next(e for e in self.world.events if e.event_id == bullet.event_id)
        doc = (
            attachment_for(self.persona, event, self.documents)
            if bullet.category == "attachment_consultation"
            else None
        )
        self.user_turn(bullet, event, doc, (yield from self.initial_text(bullet, event, doc)))
        yield from self.assistant_turn(bullet, event, doc, "initial")
        for k in range(1, self.config.stages.dialogue.followups + 1):
            self.user_turn(bullet, event, None, (yield from self.followup_text(bullet, event, k)))
            yield from self.assistant_turn(bullet, event, None, "followup")

    def initial_text(self, bullet: Bullet, event: Event, doc: Document | None) -> Chain[str]:
        """The opening user message; any fact the model left out is appended as a plain sentence."""
        facts = [self.facts[i] for i in bullet.fact_ids]
        context = self.user_context(bullet, event) | {
            "date": human_date(bullet.date),
            "attachment": attachment_context(doc, self.persona),
            "facts": [
                {"clause": clause(f, self.persona, "first"), "must_include": must_include(f)} for f in facts
            ],
        }
        text = yield from self.generate("user_turn_initial", context)
        missing = [f for f in facts if f.surface_forms and not carries_first(text, f)]
        return " ".join([text] + [f"{capital(clause(f, self.persona, 'first'))}." for f in missing])

    def followup_text(self, bullet: Bullet, event: Event, k: int) -> Chain[str]:
        last = next(t.text for t in reversed(self.turns) if t.role == "assistant")
        context = self.user_context(bullet, event) | {"followup_index": k, "last_assistant": last}
        return (yield from self.generate("user_turn_followup", context))

    def user_context(self, bullet: Bullet, event: Event) -> dict[str, Any]:
        return {
            "persona": persona_context(self.persona),
            "style": style_context(self.persona),
            "category": bullet.category,
            "event": event_context(event, self.world),
            "history": self.history(),
        }

    def assistant_turn(self, bullet: Bullet, event: Event, doc: Document | None, kind: str) -> Chain[None]:
        context = {
            "user_first_name": first_name(self.persona.name),
            "category": bullet.category,
            "tone": event.valence,
            "history": self.history()[:-1],
            "user_message": self.turns[-1].text,
            "turn_kind": kind,
            "attachment": attachment_context(doc, self.persona),
            "mentioned": self.mentioned(),
            "min_words": REPLY_WORDS[0],
            "max_words": REPLY_WORDS[1],
        }
        self.add("assistant", (yield from self.generate("assistant_turn", context)), bullet, [], [])

    def user_turn(self, bullet: Bullet, event: Event, doc: Document | None, text: str) -> None:
        facts = [self.facts[i] for i in bullet.fact_ids]
        self.add("user", text, bullet, [doc.doc_id] if doc else [], carried_ids(text, facts))

    def add(self, role: str, text: str, bullet: Bullet, doc_ids: list[str], fact_ids: list[str]) -> None:
        """Append a turn, advancing the clock by a role-dependent gap."""
        self.clock += turn_gap(role, self.rng)
        self.turns.append(
            Turn(
                turn_id=f"{self.session.session_id}-t{len(self.turns) + 1:02d}",
                session_id=self.session.session_id,
                persona_id=self.persona.persona_id,
                timestamp=self.clock,
                role=role,
                text=text,
                bullet_id=bullet.bullet_id,
                doc_ids=doc_ids,
                fact_ids=fact_ids,
            )
        )

    def history(self) -> list[dict[str, str]]:
        """The last `context_window` turns of the session, oldest first."""
        window = self.config.stages.dialogue.context_window
        return [{"role": t.role, "text": t.text} for t in self.turns[-window:]] if window else []

    def mentioned(self) -> list[str]:
        """First surface forms of this session's facts that the user's own turns have stated."""
        said = " ".join(t.text for t in self.turns if t.role == "user")
        ids = dict.fromkeys(i for t in self.turns if t.role == "user" for i in t.fact_ids)
        return [must_include(self.facts[i]) for i in ids if mentions(said, must_include(self.facts[i]))]

    def generate(self, prompt: str, context: dict[str, Any]) -> Chain[str]:
        """One model call: yielded to the round runner, which sends back the validated output."""
        out = yield CallSpec(prompt, context, TurnText, STAGE, self.persona.persona_id)
        return out.text.strip()


def attachment_context(doc: Document | None, persona: Persona) -> dict[str, str] | None:
    """What the prompts may say about a shared email: title, sender and a short description."""
    if doc is None:
        return None
    sender = display_name(doc.sender or "an unknown sender")
    if sender == persona.name:
        to = ", ".join(display_name(r) for r in doc.recipients) or "someone"
        return {"title": doc.title, "sender": sender, "description": f"an email I sent to {to}"}
    return {"title": doc.title, "sender": sender, "description": f"an email from {sender}"}


def display_name(header: str) -> str:
    """`Daniel Okafor <daniel@x.example>` -> `Daniel Okafor`."""
    return header.split("<", 1)[0].strip() or header.strip()


def turn_gap(role: str, rng: random.Random) -> dt.timedelta:
    """Time before a turn: a user takes 1-8 minutes to write, the assistant 10-60 seconds."""
    seconds = rng.randint(60, 480) if role == "user" else rng.randint(10, 60)
    return dt.timedelta(seconds=seconds)
