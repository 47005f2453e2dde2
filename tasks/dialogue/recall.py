"""dialogue.memory_rate: steer the share of user turns that need memory from outside their recent window
(the rule of tasks/common/memory_need.py, with the chat probes' window: companion.window, else
dialogue.context_window). None leaves the dialogue exactly as the topics produce it.

Two deterministic levers, both planned as topics BEFORE the dialogue is written, so every turn is worded by the
dialogue prompts and answered by the assistant like any other:
1. Fewer (thinned_callbacks): the planned callbacks (status updates naming the earlier event whose value they
   replace, the natural source of memory need) are thinned to a seeded subset when there are more than about
   THIN_SHARE x the target count, estimated from the planned topics; a dropped callback is simply not said.
2. More (recalls): the dialogue is written, the rate measured, and for the deficit, callback topics are added
   on seeded days after the first session: the user comes back to something told in an earlier session,
   naming it without its value ("my gym", "my previous employer"; prompt `user_turn_callback`), so the
   assistant needs memory to know which. The fact id goes to the opening's paraphrase_ids (checkable), every
   turn of the topic has `callback_of` = that fact id (filter them out for untouched dialogue), and the
   topic has no follow-ups: one user turn each. A share PREVIOUS_SHARE of them recalls a value that has since
   changed, both values told ("my previous gym"): the tier-edge case. Then the dialogue is written again
   (unchanged sessions repeat the same model calls: cached), at most PASSES times.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common.facttext import attribute_phrase, event_reference, holder
from tasks.common.memory_need import latest_of, needs, predecessors, same_value, window_of
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_date
from tasks.dialogue.bullets import STAGE

THIN_SHARE = 0.9
"""Planned callbacks kept, as a share of the estimated target count (recall topics add the rest)."""
PASSES = 2
"""Measure-and-add rounds after the first writing."""
PREVIOUS_SHARE = 0.25
"""Share of recall topics that name a value since replaced (when one was told with its replacement)."""
CATEGORIES = ("status_update", "advice_seeking", "information_sharing")
FRESH_WORDS = frozenset({"last", "new", "latest", "current", "recent", "next", "previous", "old"})
"""An attribute phrase starting with one of these takes no `previous` (no "my previous last session")."""


@dataclass(frozen=True)
class Recall:
    """A planned callback topic: the user comes back on `day` to the fact `fact_id`, naming it as `phrase`."""

    day: Any
    fact_id: str
    phrase: str
    told_on: str
    previous: bool
    category: str
    position: float
    """Where among the day's topics it goes (0 first, 1 last)."""

    def context(self) -> dict[str, Any]:
        """What the `user_turn_callback` prompt sees: the phrase, when it was told, whether it has changed."""
        return {"phrase": self.phrase, "told_on": self.told_on, "previous": self.previous}


def thinned_callbacks(config: BuildConfig, persona: Persona, topics: list[Any], rate: float) -> list[Any]:
    """The planned topics with callbacks beyond THIN_SHARE x the estimated target dropped (seeded)."""
    followups = config.stages.dialogue.followups
    users = sum(1 + (min(followups, 1) * 0.5 if t.filler else 0 if t.fix else followups) for t in topics)
    keep = max(0, int(THIN_SHARE * rate * users) - sum(1 for t in topics if t.fix))  # a later correction needs
    # memory too and is never dropped (tasks/dialogue/latefix.py): the callbacks kept make up the rest
    called = [i for i, t in enumerate(topics) if t.callback is not None]
    if len(called) <= keep:
        return topics
    rng = rng_for(config.seed, persona.persona_id, STAGE, None, "memory_rate:thin")
    kept = set(rng.sample(called, keep))
    return [dataclasses.replace(t, callback=None, callback_title="", callback_paraphrase="")
            if i in called and i not in kept else t for i, t in enumerate(topics)]


def missing(rate: float, flags: Sequence[bool]) -> int:
    """How many one-turn memory-bearing topics bring the share of True in `flags` up to `rate`."""
    short = rate * len(flags) - sum(flags)
    if short <= 0 or rate >= 1:
        return 0
    return math.floor(short / (1 - rate) + 0.5)


def recall_phrase(fact: Fact, persona: Persona, previous: bool) -> str | None:
    """How the user names the fact without its value (`my gym`, `my previous gym`; an event fact by its ontology
    recall phrase, `that dinner out`, and never as a previous value: events are not superseded); None when it
    cannot."""
    event = event_reference(fact, persona)
    if event is not None:
        return None if previous else event
    attribute = attribute_phrase(fact.attribute)
    if not attribute or attribute == "relationship" or fact.value.strip().lower() in attribute:
        return None
    if previous and attribute.split()[0] in FRESH_WORDS:
        return None
    return f"{holder(fact, persona, 'first')} {'previous ' if previous else ''}{attribute}"


def told_by_session(turns: Sequence[Turn]) -> tuple[list[tuple[str, Any]], dict[str, list[str]]]:
    """Sessions in order with their first turn's time, and per session the fact ids user turns of EARLIER
    sessions carried (fact_ids), in first-told order."""
    order: list[tuple[str, Any]] = []
    told: dict[str, list[str]] = {}
    seen: dict[str, None] = {}
    for turn in sorted(turns, key=lambda t: (t.timestamp, t.turn_id)):
        if turn.session_id not in told:
            order.append((turn.session_id, turn.timestamp))
            told[turn.session_id] = list(seen)
        if turn.role == "user":
            seen.update(dict.fromkeys(turn.fact_ids))
    return order, told


def recalls(config: BuildConfig, persona: Persona, world: World, turns: Sequence[Turn], rate: float,
            round_no: int) -> list[Recall]:
    """The callback topics that lift the measured memory rate of `turns` to `rate` (none when it is reached)."""
    day_of = lambda ts: local_date(persona, ts)  # noqa: E731
    found = needs(turns, world.facts, window_of(config), day_of)
    count = missing(rate, [n.memory_need for n in found])
    order, told = told_by_session(turns)
    if not count or len(order) < 2:
        return []
    by_id = {f.fact_id: f for f in world.facts}
    after = {old: new for new, old in predecessors(world.facts).items()}
    first_told = {}
    for t in sorted(turns, key=lambda t: (t.timestamp, t.turn_id)):
        for fid in t.fact_ids if t.role == "user" else []:
            first_told.setdefault(fid, day_of(t.timestamp))
    rng = rng_for(config.seed, persona.persona_id, STAGE, None, f"memory_rate:recall:{round_no}")
    sessions = order[1:] * math.ceil(count / (len(order) - 1))
    out, used = [], set()
    for session, start in sorted(rng.sample(sessions, count), key=lambda s: (s[1], s[0])):
        day = day_of(start)
        pick = pick_fact(persona, told[session], by_id, after, day, used, rng)
        if pick is None or (day, pick[0].fact_id) in used:
            continue
        fact, previous = pick
        used.update({fact.fact_id, (day, fact.fact_id)})
        out.append(Recall(day=day, fact_id=fact.fact_id, phrase=recall_phrase(fact, persona, previous) or "",
                          told_on=human_date(first_told[fact.fact_id]), previous=previous,
                          category=rng.choice(CATEGORIES), position=rng.random()))
    return out


def pick_fact(persona: Persona, told: list[str], by_id: dict[str, Fact], after: dict[str, str], day, used: set,
              rng) -> tuple[Fact, bool] | None:
    """A seeded told fact to recall on `day`: current (its latest value), or with PREVIOUS_SHARE one replaced by
    a different value that was told as well (previous=True); unused ones first."""
    known = set(told)
    current, previous = [], []
    for fid in told:
        fact = by_id.get(fid)
        if fact is None or fact.valid_from > day:
            continue
        latest = latest_of(fid, after, by_id, day)
        if latest == fid and (fact.valid_to is None or day < fact.valid_to):
            current.append(fact)
        elif latest in known and not same_value(by_id[latest], fact) and (fact.valid_to or day) <= day:
            previous.append(fact)
    pools = [(previous, True), (current, False)] if rng.random() < PREVIOUS_SHARE else [(current, False)]
    for pool, is_previous in pools:
        usable = [f for f in pool if recall_phrase(f, persona, is_previous)]
        fresh = [f for f in usable if f.fact_id not in used] or usable
        if fresh:
            return rng.choice(fresh), is_previous
    return None
