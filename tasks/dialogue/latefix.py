"""Corrections in a later session (mention mode `corrected`, `dialogue.corrected_later`).

A corrected mention (tasks/dialogue/mentions.py) is a slip and its correction. Most are put right in the same
message; a share `corrected_later` of them waits: the opening says only the slip (`I went to Luigi's and had the
falafel wraps`), the topic goes on with what the user said (its follow-ups and the assistant's replies are told
the slip's value, never the real one, and the event's title and narrative say the slip too), and a one-turn topic
three days to four weeks later, in another session, puts it right, saying the whole value once and what it was not
(`I got something wrong when I told you about that dinner out last Tuesday. I said Luigi's, but I went to Kebab
Corner and had the falafel wraps.`; its time phrase is a recorded TimeRef to the day it was told).

The opening does not claim the fact (its `fact_mentions` row is the slip, `counts = false`); the correction
claims it (`counts = true`, its span the sentence with every part), so it is the evidence of the value and a
memory that keeps only what it heard first answers with the slip. The slip's turn never claims the fact, even where
it keeps a part the value shares (`Blue Door Coffee` of a wrong drink there), so it is no evidence of it. A slip is
put off only when the real part is not in the slip's words, nor in the topic's callback or another fact of its
event, the fact can be named without its value (`that dinner out`, `my gym`) and a later session falls in the
window while the fact still holds. Should the correction's topic be dropped all the same (every wording and the
template rejected), `settled` puts the slip right in its own message after all, and notes it.

The plan is made before the dialogue is written (`with_late_fixes`, from the same seeded mention plan the session
writer draws: tasks/dialogue/mentions.py `planned`), so every turn is worded and checked like any other;
`LateFixes` is the session writer's part that says each fact as planned.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Bullet, TimeRef, Turn
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common.facttext import (
    capital,
    carries_first,
    event_reference,
    is_event_fact,
    mentions,
    must_include,
    names_to_keep,
)
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_date
from tasks.dialogue import relativetime
from tasks.dialogue.bullets import STAGE
from tasks.dialogue.mentions import Realization, planned
from tasks.dialogue.recall import recall_phrase
from tasks.dialogue.topics import LateFix, Topic
from tasks.dialogue.verify import Problem
from tasks.world.ontology import ATTRIBUTES

SOONEST, LATEST, CHOICES = 3, 28, 4
"""The correction comes on one of the first CHOICES later session days SOONEST to LATEST days after the slip."""
SENTENCES = (
    "I got something wrong when I told you about {p} {d}. I said {wrong}, but {c}.",
    "A correction to what I told you {d} about {p}: I said {wrong}, but actually {c}.",
    "I realised I told you the wrong thing about {p} {d}: I said {wrong}, but {c}.",
    "Something I told you {d} about {p} was wrong. I said {wrong}, but in fact {c}.",
    "I need to correct what I told you {d} about {p}: I said {wrong} by mistake. {C}.",
)
"""How the user puts a slip right: every wording says the whole clause once and what it was not."""


def with_late_fixes(config: BuildConfig, persona: Persona, world: World, topics: list[Topic]) -> list[Topic]:
    """`topics` with each opening slip put off to a later session marked (`Topic.late`) and its correction topic
    (`Topic.fix`) placed at a seeded position among that day's topics."""
    share = config.stages.dialogue.corrected_later
    if not share:
        return topics
    facts = {f.fact_id: f for f in world.facts}
    days = sorted({t.day for t in topics})
    out, fixes = list(topics), []
    followed = config.stages.dialogue.followups > 0
    for i, topic in enumerate(topics):
        if topic.bullet is None or topic.intro or topic.recall or topic.fix:
            continue
        plan = planned(config, persona, world, [facts[f] for f in topic.bullet.fact_ids], topic.bullet.bullet_id,
                       topic.day, followed)  # what the session writer will draw for this opening
        rng = rng_for(config.seed, persona.persona_id, STAGE, topic.day, f"latefix:{topic.bullet.bullet_id}")
        late = []
        for r in plan.realized:
            if r is None or r.mode != "corrected" or rng.random() >= share:
                continue
            fix = late_fix(r, facts[r.fact_id], persona, world, topic, days, rng)
            if fix is not None:
                late.append(r.fact_id)
                fixes.append(fix)
        if late:
            out[i] = dataclasses.replace(topic, late=tuple(late))
    for fix in fixes:
        at = [i for i, t in enumerate(out) if t.day == fix.day]
        slot = min(len(at), int(fix.position * (len(at) + 1)))
        told = TimeRef(phrase=fix.when, date=fix.told_day, event_id=None)
        out.insert(at[slot] if slot < len(at) else at[-1] + 1,
                   Topic(day=fix.day, category="information_sharing", fix=fix, when=told))
    return out


def late_fix(r: Realization, fact: Fact, persona: Persona, world: World, topic: Topic, days: list[dt.date],
             rng) -> LateFix | None:
    """The correction of the slip `r` in a later session, or None when it cannot be put off (see the module)."""
    if not (r.wrong and r.slip and r.right) or mentions(r.wrong, r.right) or mentions(r.wrong, fact.value):
        return None
    if mentions(f"{topic.callback_title} {topic.callback_paraphrase}", r.right) or any(
            f.event_id == fact.event_id and f.fact_id != fact.fact_id and mentions(f.value, r.right)
            for f in world.facts):  # the session would say the real part in another topic of the same event
        return None
    phrase = event_reference(fact, persona) or recall_phrase(fact, persona, False)
    later = [d for d in days if SOONEST <= (d - topic.day).days <= LATEST
             and (fact.valid_to is None or d < fact.valid_to)][:CHOICES]
    if not phrase or not later:
        return None
    frame, day = rng.choice(SENTENCES), rng.choice(later)
    when = relativetime.describe(topic.day, day, rng)  # when it was told, as said on the day it is put right
    said = r.slip if r.slip[:1].isupper() or r.slip[:1].isdigit() else f'"{r.slip}"'  # a name or number, else quoted
    fields = {"p": phrase, "d": when, "c": r.clause, "C": capital(r.clause), "right": r.right, "wrong": said}
    return LateFix(day=day, fact_id=fact.fact_id, phrase=phrase, told_on=human_date(topic.day), told_day=topic.day,
                   when=when, clause=r.clause, parts=r.parts, wrong=r.slip, right=r.right,
                   sentence=frame.format(**fields), position=rng.random())


def settled(config: BuildConfig, persona: Persona, world: World, bullets: list[Bullet], turns: list[Turn],
            said: list[dict[str, Any]]) -> tuple[list[Turn], list[dict[str, Any]], list[dict[str, str]]]:
    """`turns` and their mentions with every slip that no later turn put right corrected in its own message (the
    plan's same-message correction appended), and a note for each."""
    at = {t.turn_id: t for t in turns}
    fixed: dict[str, list] = {}
    for m in said:
        if m["mode"] == "corrected" and m["counts"]:
            fixed.setdefault(m["fact_id"], []).append(at[m["evidence_id"]].timestamp)
    facts, by_id = {f.fact_id: f for f in world.facts}, {b.bullet_id: b for b in bullets}
    out, notes = list(said), []
    for m in said:
        turn = at[m["evidence_id"]] if m["mode"] == "corrected" and not m["counts"] else None
        if turn is None or any(stamp >= turn.timestamp for stamp in fixed.get(m["fact_id"], [])):
            continue
        bullet = by_id[turn.bullet_id]
        plan = planned(config, persona, world, [facts[f] for f in bullet.fact_ids], bullet.bullet_id,
                       local_date(persona, turn.timestamp), config.stages.dialogue.followups > 0)
        r = next(r for r in plan.realized if r is not None and r.fact_id == m["fact_id"])
        turn = turn.model_copy(update={"text": f"{turn.text} {r.correction}", "fact_ids": [*turn.fact_ids,
                                                                                             r.fact_id]})
        at[turn.turn_id] = turn
        out.append({"checked_by": m["checked_by"], "fact_id": r.fact_id, "mode": "corrected", "counts": True,
                    "span": (r.correction or "").strip(), "evidence_id": turn.turn_id})
        notes.append({"artifact_id": turn.turn_id, "check": "late_correction", "severity": "warning",
                      "message": f"the later correction of {r.fact_id} was dropped; its slip is put right in the "
                                 "opening itself", "suggestion": "see tasks/dialogue/latefix.py"})
    return [at[t.turn_id] for t in turns], out, notes


class LateFixes:
    """The session writer's part that says each fact as planned: a slip put off to a later session, and its
    correction (for tasks/dialogue/session.py SessionWriter)."""

    realized: dict[str, Realization]
    facts: dict[str, Fact]

    def realizations(self, topic: Topic, plan) -> dict[str, Realization]:
        """The topic's planned realizations by fact id: the opening's slips put off marked `slip`; a correction
        topic's fact as its `fix`."""
        if topic.fix is not None:
            f = topic.fix
            return {f.fact_id: Realization(f.fact_id, "corrected", f.clause, f.parts, slip=f.wrong, right=f.right,
                                           late="fix")}
        out = {r.fact_id: r for r in plan.realized if r is not None} if plan else {}
        out |= {i: dataclasses.replace(out[i], late="slip") for i in topic.late if i in out}
        if topic.event is not None:  # every later topic of the event this session goes on with the slip too
            self.slips().setdefault(topic.event.event_id, {}).update(
                {r.right: r.slip for r in out.values() if r.late == "slip" and r.right and r.slip})
        return out

    def slips(self) -> dict[str, dict[str, str]]:
        """Per event told with a slip this session, each slip's real part -> the slip."""
        return self.__dict__.setdefault("_slips", {})

    def swaps(self, topic: Topic) -> dict[str, str]:
        """The real parts the topic's event was told with wrongly this session -> what the user said instead."""
        return self.slips().get(topic.event.event_id, {}) if topic.event is not None and not topic.fix else {}

    def slip_of(self, fact: Fact) -> Realization | None:
        """The fact's planned slip when its correction comes in a later session."""
        r = self.realized.get(fact.fact_id)
        return r if r is not None and r.late == "slip" else None

    def fact_context(self, topic: Topic, fact: Fact) -> dict[str, Any]:
        """What a prompt is told of a fact to convey: its clause (a paraphrase when one is planned; the slip alone
        when it is put right later), the phrase that must appear, and the mode."""
        r = self.realized.get(fact.fact_id)
        event = is_event_fact(fact) and topic.event is not None and fact.event_id == topic.event.event_id
        if r is None:
            return {"clause": self.fact_clause(topic, fact), "must_include": must_include(fact), "mode": "explicit",
                    "event": event, "names": names_to_keep(fact)}
        if r.late == "slip":  # said as the user believes it today: the later session puts it right
            return {"clause": r.wrong, "must_include": r.slip, "mode": "paraphrased", "event": event,
                    "names": [r.slip], "constraint": False}
        said = f"{r.wrong} {r.correction}" if r.wrong else r.clause
        names = names_to_keep(fact, said)
        form = next((f for f in reversed(fact.surface_forms) if mentions(said, f)), r.parts[-1])
        out = {"clause": r.clause, "must_include": form, "mode": r.mode, "event": event, "names": names,
               "constraint": getattr(ATTRIBUTES.get(fact.attribute), "domain", "") == "constraint"}
        return out | ({"wrong": r.wrong, "correction": r.correction} if r.wrong else {})

    def said(self, text: str, fact: Fact) -> bool:
        """Whether `text` says the fact as planned: its first surface form, or its planned paraphrase (a slip put
        off is not the fact)."""
        r = self.realized.get(fact.fact_id)
        if r is not None and r.late == "slip":
            return False
        return carries_first(text, fact) or (r is not None and all(mentions(text, p) for p in r.parts))

    def as_said(self, fields: dict[str, str], topic: Topic) -> dict[str, str]:
        """Plan fields as the user told them this session: a slip's real part replaced by the slip (the event's
        follow-ups, replies and later topics go on with what was said)."""
        swap = self.swaps(topic)
        return {k: swap.get(v, v) for k, v in fields.items()}

    def as_told(self, text: str, topic: Topic) -> str:
        """`text` (the event's title, narrative or a detail) with a slip's real part replaced by the slip."""
        for right, slip in self.swaps(topic).items():
            text = text.replace(right, slip)
        return text

    def slip_line(self, text: str, fact: Fact) -> str | None:
        """The slip's sentence for an opening that left it out (its repair says the slip, never the value)."""
        r = self.slip_of(fact)
        return None if r is None or r.wrong is None or mentions(text, r.slip or "") else f"{capital(r.wrong)}."

    def fix_claims(self, topic: Topic, text: str) -> tuple[list[str], list[Problem]]:
        """A correction turn claims its fact when one sentence says every part and the text says what it was not;
        an opening with a slip put off must not say the real value (the correction would correct nothing)."""
        if topic.fix is not None:
            f = topic.fix
            if all(mentions(text, p) for p in f.parts) and mentions(text, f.wrong) and mentions(text, f.phrase):
                return [f.fact_id], []
            return [], [Problem("late_correction", f"the correction must say {f.clause!r}, not {f.wrong!r}, about "
                                                   f"{f.phrase!r}")]
        swaps = self.swaps(topic)
        return [], [Problem("late_slip", f"the turn says {right!r}, which the user told as {slip!r} and a later "
                            "session puts right") for right, slip in swaps.items() if mentions(text, right)]
