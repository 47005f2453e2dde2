"""Coherence measures: within a turn, within a topic, within a session, and between a document and its event.

- `coherence.<role>.connected_turns`: of the turns with two or more sentences beyond a short opener, the share
  in which at least half of the sentences after the first share a content stem or a name with an earlier
  sentence of the turn (a shared referent, lexically).
- `coherence.<role>.single_intent_turns`: of the multi-sentence turns, the share whose speech acts follow one
  plan: openers (greeting, reaction) only first, then statements and at most one block of questions.
- `coherence.user.restating_followups`: of the user turns that continue a topic, the share that restate it:
  no question, and at least 60 percent of their content stems already said by the user in that topic. A topic
  is a run of a session's turns with one bullet (or, without bullets, one category, no gap over 45 minutes).
- `coherence.repeat_announcements`: of the sessions that announce a life event (a user turn opening a topic on
  one of the event's bullets; the baseline background is no event), the share announcing one event twice.
- `coherence.greetings_against_time`: of the greetings ("good morning", "evening!", "good night" ...) at the
  start of a turn, the share that contradict the persona's local time of day.
- `coherence.unrelated_senders`: of the emails an event caused, the share whose sender is neither the persona,
  nor named in the event (its plan's entities, narrative or facts), nor a person of the persona's world.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from schemas.metrics import ROLES, MeasureRow
from schemas.metrics import measure_row as row
from tasks.metrics.corpus import PersonaCorpus
from tasks.metrics.text import fold, names_in, sentences, speech_act, stems

TOPIC_GAP = dt.timedelta(minutes=45)
EXAMPLES = 5
RESTATED = 0.6
_GREETINGS = (
    (re.compile(r"^(?:good )?morning\b", re.I), range(4, 12)),
    (re.compile(r"^(?:good )?afternoon\b", re.I), range(12, 18)),
    (re.compile(r"^(?:good )?evening\b", re.I), (*range(17, 24), 0, 1, 2, 3)),
    (re.compile(r"^(?:good ?night|night night)\b", re.I), (*range(18, 24), *range(0, 5))),
)
_SENDER = re.compile(r"^\s*\"?([^<\"]+?)\"?\s*(?:<[^>]*>)?\s*$")


def intent_plan_ok(acts: list[str]) -> bool:
    """Openers only first, then statements and at most one block of questions."""
    i = 0
    while i < len(acts) and acts[i] in ("greet", "react"):
        i += 1
    rest = acts[i:]
    if any(a in ("greet", "react") for a in rest):
        return False
    blocks = sum(1 for j, a in enumerate(rest) if a == "ask" and (j == 0 or rest[j - 1] != "ask"))
    return blocks <= 1


def connected(sents: list[str], acts: list[str]) -> bool | None:
    """None for a turn with fewer than two sentences beyond its openers; else whether at least half of its later
    sentences share a content stem or a name with an earlier one."""
    body = [s for s, a in zip(sents, acts, strict=True) if a not in ("greet", "react")]
    if len(body) < 2:
        return None
    keys = [stems(s) | names_in(s) for s in body]
    linked = sum(1 for i in range(1, len(body)) if keys[i] & frozenset().union(*keys[:i]))
    return linked / (len(body) - 1) >= 0.5


@dataclass
class CoherenceTally:
    turns: dict[str, list[int]] = field(default_factory=lambda: {r: [0, 0, 0, 0] for r in ROLES})
    """role -> [multi-sentence turns, single-intent ones, turns with a body to connect, connected ones]"""
    followups: int = 0
    restating: int = 0
    restating_examples: list[str] = field(default_factory=list)
    announcing_sessions: int = 0
    repeating_sessions: int = 0
    repeat_examples: list[str] = field(default_factory=list)
    greetings: int = 0
    mistimed: int = 0
    mistimed_examples: list[str] = field(default_factory=list)
    event_emails: int = 0
    unrelated: int = 0
    unrelated_examples: list[str] = field(default_factory=list)
    has_events: bool = False

    def add(self, corpus: PersonaCorpus) -> None:
        turns = sorted(corpus.turns, key=lambda t: (t.session_id, t.timestamp, t.turn_id))
        for t in turns:
            self._turn(t)
        self._topics([t for t in turns if t.role == "user"])
        self._greetings(turns, corpus.zone)
        if corpus.events:
            self.has_events = True
            self._announcements(corpus, [t for t in turns if t.role == "user"])
            self._senders(corpus)

    def merge(self, other: CoherenceTally) -> None:
        """Add the tally of later personas, counted apart (the rows are those of one tally over all, in order)."""
        for role, counts in other.turns.items():
            mine = self.turns.setdefault(role, [0, 0, 0, 0])
            mine[:] = [a + b for a, b in zip(mine, counts, strict=True)]
        for name in ("followups", "restating", "announcing_sessions", "repeating_sessions", "greetings", "mistimed",
                     "event_emails", "unrelated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("restating_examples", "repeat_examples", "mistimed_examples", "unrelated_examples"):
            setattr(self, name, (getattr(self, name) + getattr(other, name))[:EXAMPLES])
        self.has_events = self.has_events or other.has_events

    def _turn(self, t) -> None:
        counts = self.turns.get(t.role)
        sents = list(sentences(t.text))
        if counts is None or len(sents) < 2:
            return
        acts = [speech_act(s) for s in sents]
        counts[0] += 1
        counts[1] += intent_plan_ok(acts)
        linked = connected(sents, acts)
        if linked is not None:
            counts[2] += 1
            counts[3] += linked

    def _topics(self, users) -> None:
        said: set[str] = set()
        previous = None
        for t in users:
            if previous is None or _new_topic(previous, t):
                said = set(stems(t.text))
                previous = t
                continue
            previous = t
            words = stems(t.text)
            asks = any(speech_act(s) == "ask" for s in sentences(t.text))
            self.followups += 1
            if words and not asks and len(words & said) / len(words) >= RESTATED:
                self.restating += 1
                if len(self.restating_examples) < EXAMPLES:
                    self.restating_examples.append(t.turn_id)
            said |= words

    def _greetings(self, turns, zone: dt.tzinfo) -> None:
        for t in turns:
            first = next(iter(sentences(t.text)), "")
            for pattern, hours in _GREETINGS:
                if pattern.match(first):
                    self.greetings += 1
                    if t.timestamp.astimezone(zone).hour not in hours:
                        self.mistimed += 1
                        if len(self.mistimed_examples) < EXAMPLES:
                            self.mistimed_examples.append(f"{t.turn_id} {first[:40]!r} at "
                                                          f"{t.timestamp.astimezone(zone):%H:%M}")
                    break

    def _announcements(self, corpus: PersonaCorpus, users) -> None:
        story = {e.event_id for e in corpus.events if e.plan_id is not None}
        event_of = {b.bullet_id: b.event_id for b in corpus.bullets}
        by_session: dict[str, dict[str, int]] = {}
        for t in users:
            event = event_of.get(t.bullet_id or "")
            if t.kind == "initial" and t.callback_of is None and event in story:
                counts = by_session.setdefault(t.session_id, {})
                counts[event] = counts.get(event, 0) + 1
        for sid, counts in sorted(by_session.items()):
            self.announcing_sessions += 1
            if max(counts.values()) > 1:
                self.repeating_sessions += 1
                if len(self.repeat_examples) < EXAMPLES:
                    self.repeat_examples.append(sid)

    def _senders(self, corpus: PersonaCorpus) -> None:
        events = {e.event_id: e for e in corpus.events}
        plans = {p.plan_id: p for p in corpus.plans}
        facts: dict[str, list[str]] = {}
        for f in corpus.facts:
            facts.setdefault(f.event_id, []).extend([f.subject, f.value])
        people = {fold(e.name).lower() for e in corpus.entities if e.kind == "person"}
        me = fold(corpus.name).lower()
        for d in corpus.documents:
            event = events.get(d.event_id or "")
            if d.source_type != "email" or event is None or event.plan_id is None:
                continue
            self.event_emails += 1
            sender = _sender_name(d.sender or "")
            plan = plans.get(event.plan_id)
            named = " ".join([event.narrative, *(plan.entity.values() if plan else ()), *facts.get(event.event_id, [])])
            if sender and (sender == me or sender in people or sender in fold(named).lower()):
                continue
            self.unrelated += 1
            if len(self.unrelated_examples) < EXAMPLES:
                self.unrelated_examples.append(f"{d.doc_id} from {sender!r} about {event.kind}")

    def rows(self) -> list[MeasureRow]:
        out = []
        for role, (multi, single, bodies, linked) in self.turns.items():
            none = "" if multi else f"no multi-sentence {role} turns"
            out.append(row(f"coherence.{role}.connected_turns", linked / bodies if bodies else None, bodies,
                           note=none))
            out.append(row(f"coherence.{role}.single_intent_turns", single / multi if multi else None, multi,
                           note=none))
        out.append(row("coherence.user.restating_followups",
                       self.restating / self.followups if self.followups else None, self.followups,
                       {"examples": self.restating_examples}, "" if self.followups else "no follow-up user turns"))
        no_world = "" if self.has_events else "needs the world's events (not in this corpus)"
        out.append(row("coherence.repeat_announcements",
                       self.repeating_sessions / self.announcing_sessions if self.announcing_sessions else None,
                       self.announcing_sessions, {"examples": self.repeat_examples},
                       no_world or ("" if self.announcing_sessions else "no session announces an event")))
        out.append(row("coherence.greetings_against_time", self.mistimed / self.greetings if self.greetings else None,
                       self.greetings, {"mistimed": self.mistimed, "examples": self.mistimed_examples},
                       "" if self.greetings else "no greetings"))
        out.append(row("coherence.unrelated_senders", self.unrelated / self.event_emails if self.event_emails else None,
                       self.event_emails, {"examples": self.unrelated_examples},
                       no_world or ("" if self.event_emails else "no email is linked to an event")))
        return out


def _new_topic(previous, t) -> bool:
    if t.bullet_id or previous.bullet_id:
        return t.bullet_id != previous.bullet_id or t.kind == "initial"
    if (t.callback_of or previous.callback_of) and t.callback_of != previous.callback_of:
        return True
    return (t.session_id != previous.session_id or t.category != previous.category or t.kind != previous.kind
            and "filler" in (t.kind, previous.kind) or t.timestamp - previous.timestamp > TOPIC_GAP)


def _sender_name(sender: str) -> str:
    m = _SENDER.match(sender)
    return fold(m.group(1) if m else sender).lower().strip()
