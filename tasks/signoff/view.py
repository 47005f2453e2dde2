"""The world and history as the item sign-off reads them: who each person is to the persona on a day, what each
event was, and what the history had said by a moment. Built from the landed tables only."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from dataclasses import dataclass, field

from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import Question
from schemas.world import Event, Plan, World
from tasks.common.timeutil import local_date

NAME = re.compile(r"[A-Z][\w'’-]+(?:\s+(?:de |da |van |von |del )?[A-Z][\w'’-]+)+")
"""A person's full name as the world writes it (`Andrés de Vries`, `Mai Santos`)."""


@dataclass
class View:
    persona: Persona
    world: World
    corpus: Corpus
    plans: dict[str, Plan] = field(init=False)
    events: dict[str, Event] = field(init=False)

    def __post_init__(self) -> None:
        self.plans = {p.plan_id: p for p in self.world.plans}
        self.events = {e.event_id: e for e in self.world.events}
        self.first = self.persona.name.split()[0]
        self._roles: dict[str, list[tuple[dt.date, dt.date | None, str]]] = {}
        for f in self.world.facts:
            if f.attribute == "relationship" and f.subject != self.persona.name:
                self._roles.setdefault(f.subject, []).append((f.valid_from, f.valid_to, f.value))
        for r in self.persona.profile.relationships:
            self._roles.setdefault(r.name, []).append((dt.date.min, None, r.role))
        for e in self.world.entities:
            if e.kind == "person":
                self._roles.setdefault(e.name, []).append((e.first_seen, None, e.role))
        self.people = frozenset(self._roles)
        texts = [(t.timestamp, t.text) for t in self.corpus.turns]
        texts += [(d.created_at, f"{d.title}\n{d.body}") for d in self.corpus.documents]
        texts.sort(key=lambda x: x[0])
        self._times = [t for t, _ in texts]
        self._texts = [x for _, x in texts]
        self.titles: dict[str, list[dt.date]] = {}
        for d in self.corpus.documents:
            self.titles.setdefault(d.title, []).append(local_date(self.persona, d.created_at))

    def roles(self, name: str, day: dt.date) -> set[str]:
        """What `name` is to the persona on `day` (every relationship holding then; the first-told otherwise)."""
        spans = self._roles.get(name, [])
        held = {role for start, end, role in spans if start <= day and (end is None or day < end)}
        return held or {role for _, _, role in spans[:1]}

    def roles_before(self, name: str, day: dt.date) -> set[str]:
        """Every relationship `name` had with the persona before `day` (a false premise may name a stale one)."""
        return {role for start, _, role in self._roles.get(name, []) if start < day}

    def said_before(self, text: str, moment: dt.datetime) -> bool:
        """True when a turn or document (title or body) from before `moment` holds `text` verbatim."""
        end = bisect.bisect_left(self._times, moment)
        return any(text in t for t in self._texts[:end])

    def day(self, q: Question) -> dt.date:
        """The persona-local day the question is asked."""
        return local_date(self.persona, q.question_time)

    def event_people(self, event_id: str) -> set[str]:
        """The people an event's plan names (host whom, dinner with whom)."""
        event = self.events.get(event_id)
        plan = self.plans.get(event.plan_id) if event is not None and event.plan_id else None
        if plan is None:
            return set()
        return {v for v in plan.entity.values() if v in self.people}

    def referents(self, q: Question) -> set[str]:
        """The people a question is about: those its answer, reference, options and derivation name, the subjects
        of the facts it rests on and the people of its events."""
        texts = [q.answer, q.reference_answer, *q.options]
        texts += [str(v) for v in q.derivation.values() if isinstance(v, str)]
        for item in q.derivation.get("indirect") or []:
            texts.append(str(item.get("refers_to", "")))
        found = {p for p in self.people if any(p in t for t in texts)}
        facts = {f.fact_id: f for f in self.world.facts}
        for fid in q.derivation.get("fact_ids") or []:
            fact = facts.get(fid)
            if fact is not None and fact.subject in self.people:
                found.add(fact.subject)
        for eid in q.derivation.get("event_ids") or []:
            found |= self.event_people(eid)
        return found
