"""Parts of SessionWriter (tasks/dialogue/session.py) kept apart: the second halves of split facts, and what a
reply or a follow-up is told of the topic's event."""

from __future__ import annotations

import string
from typing import Any

from schemas.corpus import Turn
from schemas.world import Fact, World
from tasks.common import worldindex
from tasks.common.happened import took_place, unrealized_fields
from tasks.dialogue.agreement import event_names
from tasks.dialogue.mentions import Realization, turn_mentions
from tasks.dialogue.topics import Topic
from tasks.world.catalog import KINDS


class SplitHalves:
    """Split facts (tasks/dialogue/mentions.py mode `split`): which second halves are still to be said, and the
    opening completed with them when no follow-up said them."""

    realized: dict[str, Realization]
    halves: dict[str, set[str]]
    turns: list[Turn]
    mentions: list[dict[str, Any]]
    facts: dict[str, Fact]

    def pending(self) -> list[Realization]:
        """The current topic's split realizations whose first half the opening said and whose second half no turn
        has said yet."""
        return [r for r in self.realized.values() if r.mode == "split" and r.fact_id in self.halves["first"]
                and r.fact_id not in self.halves["rest"]]

    def complete(self, opening: Turn) -> None:
        """Append the second half of each split fact still pending to the opening (a dropped or unsaid follow-up
        never leaves a value half told) and record it there."""
        left = self.pending()
        if not left or opening not in self.turns:
            return
        text = " ".join([opening.text] + [r.rest for r in left if r.rest])
        fixed = opening.model_copy(update={"text": text})
        self.turns[self.turns.index(opening)] = fixed
        self.mentions = [m for m in self.mentions if m["evidence_id"] != opening.turn_id]
        self.mentions += turn_mentions(fixed, self.facts, self.realized, [t for t in self.turns
                                                                          if t.timestamp < fixed.timestamp])
        self.halves["rest"] |= {r.fact_id for r in left}


class EventViews:
    """What a reply is about (the topic's event, its plan's title fields and all its details)."""

    world: World
    facts: dict[str, Fact]
    whens: dict[str, str]
    as_said: Any
    """The session writer's (tasks/dialogue/latefix.py LateFixes): plan fields as the user told them."""

    def reply_event(self, topic: Topic) -> dict[str, Any] | None:
        """What the assistant's reply is about: the topic's event (for a callback, the event of the fact called
        back); None for background and small talk."""
        event, back = topic.event, topic.recall or topic.fix  # a callback or a correction: the fact's event
        if back is not None:
            fact = self.facts.get(back.fact_id)
            event = next((e for e in self.world.events if fact and e.event_id == fact.event_id), None)
            event = None if event is None or event.plan_id is None else event
            topic = Topic(day=topic.day, category=topic.category, event=event) if event else topic
        if back is not None and event is None:  # a callback to background: named by its phrase
            fact = self.facts.get(back.fact_id)
            return {"kind": None, "valence": "neutral", "entity": {}, "phrase": back.phrase,
                    "attribute": fact.attribute if fact else ""}
        if event is None or topic.intro:
            return None
        return {"kind": event.kind, "valence": event.valence if back is None else "neutral",
                "took_place": took_place(event, self.world),  # a callback too: never asked `how was it`
                "entity": self.title_fields(topic), "details": self.plan_details(topic),
                "when": self.whens.get(event.event_id)}  # as the user said it this session

    def called_off_names(self, topic: Topic) -> tuple[str, ...]:
        """The names of the event a topic is about (the fact's a callback comes back to) when it did not take place
        (its plan's places and people: tasks/dialogue/agreement.py event_names); empty when it did."""
        back = self.facts.get((topic.recall or topic.fix).fact_id) if topic.recall or topic.fix else None
        found = worldindex.index(self.world)
        event = found.events.get(back.event_id, topic.event) if back else topic.event
        if event is None or topic.intro or took_place(event, self.world):
            return ()
        return tuple(event_names(event, found.plan_of(event)))

    def plan_details(self, topic: Topic) -> dict[str, str]:
        """All of the topic's plan fields, outcome too (the dish, the rash): the assistant remarks on one only once
        the user has said it (narrators/details.py), a follow-up may add one not yet told (user_details.py). Of a
        plan that did not take place, none that only its taking place brings (no dish for a cancelled dinner:
        tasks/common/happened.py unrealized_fields)."""
        plan = self.plan_of(topic)
        if plan is None or topic.intro:
            return {}
        never = unrealized_fields(plan.kind) if topic.event and not took_place(topic.event, self.world) else ()
        return self.as_said({k: str(v) for k, v in plan.entity.items() if k != "cause_event" and k not in never},
                            topic)

    def plan_of(self, topic: Topic):
        """The plan behind the topic's event, or None."""
        return worldindex.index(self.world).plan_of(topic.event)

    def title_fields(self, topic: Topic) -> dict[str, str]:
        """The fields of the topic's plan that its title names (`colleague`, `team`): what the event is, never
        its outcome (a tip, a diagnosis), so a narrator may name it from the start."""
        plan = self.plan_of(topic)
        kind = KINDS.get(plan.kind) if plan else None
        if plan is None or kind is None or topic.intro:
            return {}
        names = {name for _, name, _, _ in string.Formatter().parse(kind.title) if name}
        return self.as_said({k: str(v) for k, v in plan.entity.items() if k in names}, topic)
