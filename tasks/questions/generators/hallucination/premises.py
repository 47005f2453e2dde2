"""Hallucination generators over a false event: misattribution and fabrication (see the package docstring)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from typing import Any

from schemas.world import Event, Fact, Plan
from tasks.common.facttext import (
    fits_slot,
    fits_slots,
    mentions,
)
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.hallucination.abstain import NO_RECORD, abstention_candidates, answerable_twin
from tasks.questions.generators.kit import (
    PEOPLE_FIELDS,
    absent,
    distinct,
    draw_view,
    facts_of_event,
    item_texts,
    month_name,
    plans_by_id,
    refs,
    relations,
    stable_pick,
    story,
    title_fields,
    who,
    world_text,
)
from tasks.world.catalog import KINDS

CATEGORY = "hallucination"
NOTABLE_KINDS = frozenset({
    "adopt_pet", "move_flat", "start_course", "join_gym", "buy_vehicle", "city_trip", "run_race", "new_job",
    "concert", "volunteer", "start_book", "new_cafe", "work_project", "doctor_visit", "first_date", "milestone",
})
"""Kinds memorable enough to be misremembered by person or month (routines like the weekly shop are not)."""
UNRELATED_ROLES = frozenset({"doctor", "ex-partner", "date"})
SWAP_FIELDS: dict[str, tuple[str, ...]] = {
    "dinner_out": ("companion", "restaurant"),
    "concert": ("venue", "artist"),
    "milestone": ("person", "venue"),
    "partner_evening": ("place",),
    "first_date": ("place",),
    "start_course": ("school",),
    "friend_visit": ("friend",),
    "visit_family": ("relative",),
    "colleague_lunch": ("colleague",),
    "family_call": ("relative",),
}
"""Kinds whose title names two or more fields, and the fields a misattribution may swap."""


def _dated_positive(ctx: QContext) -> list[tuple[Event, Plan, list[Fact]]]:
    """Positive events before the question day with a plan whose title is unique among all plans."""
    plans = plans_by_id(ctx)
    counts = Counter(p.title for p in ctx.world.plans)
    out = []
    for event in story(ctx, ctx.day):
        plan = plans.get(event.plan_id or "")
        if event.valence != "positive" or plan is None or counts[plan.title] != 1 or plan.kind not in KINDS:
            continue
        if not fits_slots(plan.entity):  # "start a new job as a plumber at self-employed"
            continue
        facts = facts_of_event(ctx, event.event_id)
        if facts:
            out.append((event, plan, facts))
    return out


@generator(CATEGORY, "misattribution")
def misattribution(ctx: QContext) -> list[Candidate]:
    """A real event credited to the wrong person, companion, place or month."""
    dated = _dated_positive(ctx)
    people, texts = relations(ctx, ctx.day), item_texts(ctx)
    out: list[Candidate] = []
    for event, plan, facts in dated:
        out += _agent_swap(ctx, event, plan, facts, people)
        out += _field_swaps(ctx, event, plan, facts, people, texts)
        out += _time_swap(ctx, event, plan, facts, dated)
    return out


def _facts_about(ctx: QContext) -> dict[str, list[Fact]]:
    """subject -> its facts in the world's order (once per context: asked for each event and person)."""
    memo = ctx.__dict__.setdefault("_facts_about", {})
    if not memo:
        for f in ctx.world.facts:
            memo.setdefault(f.subject, []).append(f)
    return memo


def _plans_of_kind(ctx: QContext) -> dict[str, Any]:
    """kind -> its plans in the world's order, and `""` -> every plan title (once per context)."""
    memo = ctx.__dict__.setdefault("_plans_of_kind", {})
    if not memo:
        for p in ctx.world.plans:
            memo.setdefault(p.kind, []).append(p)
        memo[""] = {p.title for p in ctx.world.plans}
    return memo


def _agent_swap(ctx: QContext, event: Event, plan: Plan, facts: list[Fact],
                people: dict[str, str]) -> list[Candidate]:
    """'When did <persona>'s <role> <Name> <title>?' for something the persona did."""
    if PEOPLE_FIELDS & set(plan.entity) or plan.kind not in NOTABLE_KINDS:
        return []
    evidence = refs(ctx, [f.fact_id for f in facts])
    own = {f.subject for f in facts}
    forms = [s for f in facts for s in f.surface_forms]
    # a relation whose own facts mention the event's entity might really have done something similar
    clean = [
        name for name, role in people.items()
        if name not in own and role not in UNRELATED_ROLES and not mentions(plan.title, name)
        and not any(mentions(f.value, form) for f in _facts_about(ctx).get(name, ()) for form in forms)
    ]
    if not evidence or not clean:
        return []
    other = stable_pick(ctx, f"misattribution:agent:{event.event_id}", clean)
    role, name, when = people[other], who(ctx), human_date(event.date)
    answer = f"{ctx.persona.name}, on {when}"
    distractors = [f"{p}, on {when}" for p in [other] + [p for p in clean if p != other]][:5]
    return [
        Candidate(
            CATEGORY, ("misattribution",),
            f"When did {name}'s {role} {other} {plan.title}?",
            answer,
            f"The question misattributes the event: it was {name} ({ctx.persona.name}), not {name}'s {role} "
            f"{other}, who did this. On {when} {name} managed to {plan.title}; nothing on record says {other} "
            "ever did.",
            "hallucination.misattribution.agent",
            f"SELECT e.event_id, e.date, p.title FROM events e JOIN plans p USING (plan_id) WHERE p.title = "
            f"'{plan.title}' AND e.valence = 'positive'; -- agent is the persona, not '{other}'",
            tuple(f.fact_id for f in facts),
            answer_type="long",
            evidence=evidence,
            distractors=tuple(distractors),
            rubric=(
                f"Required: (1) says the premise is wrong: {other} did not {plan.title}; (2) attributes it to "
                f"{name} themself; (3) gives the date, {when} (the month is enough). Wrong: answering with a "
                f"date for {other} as if the premise were true."
            ),
            priority=1,
            extra={"event_ids": [event.event_id], "false_premise": f"{other} ({role}) did it",
                   "true_attribution": ctx.persona.name, "variant": "agent"},
        )
    ]


def _field_swaps(ctx: QContext, event: Event, plan: Plan, facts: list[Fact], people: dict[str, str],
                 texts: dict[tuple[str, str], str]) -> list[Candidate]:
    """'When did <persona> <title with one field swapped>?': wrong companion, place or artist."""
    fields = title_fields(plan.kind)
    same_kind, titles = _plans_of_kind(ctx).get(plan.kind, []), _plans_of_kind(ctx)[""]
    name, when = who(ctx), human_date(event.date)
    out = []
    for swap in SWAP_FIELDS.get(plan.kind, ()):
        true = plan.entity.get(swap)
        rest = [f for f in fields if f != swap]
        if not true or not rest:
            continue
        twins = [p for p in same_kind if all(p.entity.get(f) == plan.entity.get(f) for f in rest)]
        if len(twins) != 1:  # the unswapped fields must name exactly this plan
            continue
        pool = [p.entity.get(swap, "") for p in ctx.world.plans if p.kind == plan.kind]
        if swap in PEOPLE_FIELDS:
            pool += [n for n, role in people.items() if role not in UNRELATED_ROLES]
        alternatives = [
            v for v in distinct(sorted(set(pool)), [true, ctx.persona.name])
            if KINDS[plan.kind].title_for(plan.entity | {swap: v}) not in titles
            and not mentions(v, true) and not mentions(true, v) and fits_slot(swap, v)
        ]
        keep = lambda r, t=true: mentions(texts.get((r.kind, r.item_id), ""), t)  # noqa: E731
        evidence = refs(ctx, [f.fact_id for f in facts], keep=keep)
        if not alternatives or not evidence:
            continue
        wrong = stable_pick(ctx, f"misattribution:{swap}:{event.event_id}", alternatives)
        asked = KINDS[plan.kind].title_for(plan.entity | {swap: wrong})
        what = swap.replace("_", " ")
        answer = f"{true}, on {when}"
        others = [wrong] + [v for v in alternatives if v != wrong]
        out.append(
            Candidate(
                CATEGORY, ("misattribution",),
                f"When did {name} {asked}?",
                answer,
                f"The question gets the {what} wrong: {name} never did '{asked}'. The real event was on {when}, "
                f"when {name} managed to {plan.title} — the {what} was {true}, not {wrong}.",
                f"hallucination.misattribution.{swap}",
                f"SELECT e.event_id, e.date, p.entity FROM events e JOIN plans p USING (plan_id) WHERE p.kind = "
                f"'{plan.kind}' AND " + " AND ".join(f"p.entity.{f} = '{plan.entity.get(f)}'" for f in rest)
                + f"; -- {swap} = '{true}', not '{wrong}'",
                tuple(f.fact_id for f in facts),
                answer_type="long",
                evidence=evidence,
                distractors=tuple(f"{v}, on {when}" for v in others[:5]),
                rubric=(
                    f"Required: (1) says the premise is wrong: the {what} was not {wrong}; (2) gives the true "
                    f"{what}, {true}; (3) dates the real event to {when} (the month is enough). Wrong: a date "
                    f"for '{asked}' as if it had happened."
                ),
                priority=0,
                extra={"event_ids": [event.event_id], "false_premise": asked, "true_attribution": true,
                       "swapped_field": swap, "variant": swap},
            )
        )
    return out


def _time_swap(ctx: QContext, event: Event, plan: Plan, facts: list[Fact],
               dated: list[tuple[Event, Plan, list[Fact]]]) -> list[Candidate]:
    """'Why did <persona> <title> in <wrong month>?' (two or more months off)."""
    if plan.kind not in NOTABLE_KINDS:
        return []
    evidence = refs(ctx, [f.fact_id for f in facts])
    start = ctx.config.start_date
    months, cursor = [], dt.date(start.year, start.month, 1)
    while cursor <= ctx.day:
        gap = (cursor.year - event.date.year) * 12 + cursor.month - event.date.month
        if abs(gap) >= 2:
            months.append(cursor)
        cursor = dt.date(cursor.year + cursor.month // 12, cursor.month % 12 + 1, 1)
    if not evidence or not months:
        return []
    rng = ctx.rng(f"misattribution:time:{event.event_id}")
    wrong = month_name(stable_pick(ctx, f"misattribution:time:{event.event_id}", months))
    name, when = who(ctx), human_date(event.date)
    others = distinct((human_date(e.date) for e, _, _ in dated), [when])
    rng.shuffle(others)
    return [
        Candidate(
            CATEGORY, ("misattribution",),
            f"Why did {name} {plan.title} in {wrong}?",
            when,
            f"The question gets the time wrong: {name} did not {plan.title} in {wrong}. It happened on {when} "
            f"({month_name(event.date)}).",
            "hallucination.misattribution.time",
            f"SELECT date FROM events e JOIN plans p USING (plan_id) WHERE p.title = '{plan.title}'",
            tuple(f.fact_id for f in facts),
            answer_type="long",
            evidence=evidence,
            distractors=tuple(others[:5]),
            rubric=(
                f"Required: (1) says the premise is wrong: it did not happen in {wrong}; (2) gives the real time, "
                f"{when} (the month, {month_name(event.date)}, is enough). Wrong: explaining why it happened in "
                f"{wrong}."
            ),
            priority=2,
            extra={"event_ids": [event.event_id], "false_premise": f"in {wrong}", "true_attribution": when,
                   "variant": "time"},
        )
    ]


FABRICATION_KEYS: dict[str, Callable[[dict[str, str]], list[str]]] = {
    "adopt_pet": lambda e: [e["pet_name"]],
    "move_flat": lambda e: [e["address"]],
    "start_course": lambda e: [f"{e['subject']} course"],
    "join_gym": lambda e: [e["gym"]],
    "buy_vehicle": lambda e: [e["model"], e["vehicle"]],
    "city_trip": lambda e: [e["city"]],
    "doctor_visit": lambda e: [e["doctor"]],
    "run_race": lambda e: [e["race"]],
    "start_book": lambda e: [e["book"]],
    "new_cafe": lambda e: [e["cafe"]],
    "work_project": lambda e: [e["project"]],
    "concert": lambda e: [e["artist"]],
    "volunteer": lambda e: [e["org"]],
    "dinner_out": lambda e: [e["restaurant"]],
    "first_date": lambda e: [e["date_name"]],
    "new_job": lambda e: [e["company"]],
}
"""Kinds a fabricated event may take, and the entity strings that must be absent from the whole world."""
FABRICATION_DRAWS = 30


@generator(CATEGORY, "fabrication")
def fabrication(ctx: QContext) -> list[Candidate]:
    """'When did <persona> <plausible event that never happened>?': answered 'no record'."""
    dated = _dated_positive(ctx)
    latest: dict[str, tuple[Event, Plan, list[Fact]]] = {}
    for event, plan, facts in dated:
        if plan.kind in FABRICATION_KEYS and refs(ctx, [f.fact_id for f in facts]):
            latest[plan.kind] = (event, plan, facts)
    if not latest:
        return abstention_candidates(ctx)
    text, titles = world_text(ctx), {p.title for p in ctx.world.plans}
    low = text.lower()
    view = draw_view(ctx, ctx.day)
    name = who(ctx)
    dates = distinct(human_date(e.date) for e, _, _ in dated)
    out = []
    for kind, (event, plan, facts) in sorted(latest.items()):
        rng = ctx.rng(f"fabrication:{kind}")
        entity = None
        for _ in range(FABRICATION_DRAWS):
            try:
                drawn = KINDS[kind].draw(rng, view)
            except (KeyError, IndexError, ValueError):
                break
            keys = FABRICATION_KEYS[kind](drawn)
            if not fits_slots(drawn):  # "start a new job as a stay-at-home parent at unemployed"
                continue
            if KINDS[kind].title_for(drawn) not in titles and absent(text, keys, low):
                entity = drawn
                break
        if entity is None:
            continue
        title, keys = KINDS[kind].title_for(entity), FABRICATION_KEYS[kind](entity)
        real, when = plan.title, human_date(event.date)
        wrong_dates = [d for d in dates if d != when]
        rng.shuffle(wrong_dates)
        out.append(
            Candidate(
                CATEGORY, ("fabrication",),
                f"When did {name} {title}?",
                NO_RECORD,
                f"There is no record of this: {name} never mentioned planning or doing it, and nothing in the "
                f"conversations or documents mentions {keys[0]}. The closest real event of that kind is that "
                f"{name} managed to {real} on {when}.",
                f"hallucination.fabrication.{kind}",
                f"SELECT count(*) FROM facts, events, plans, turns, chunks, documents WHERE text ILIKE "
                f"'%{keys[0]}%' -- 0 rows; closest real event: SELECT event_id, date FROM events e JOIN plans p "
                f"USING (plan_id) WHERE p.kind = '{kind}' AND e.valence = 'positive' ORDER BY date DESC LIMIT 1",
                tuple(f.fact_id for f in facts),
                answer_type="long",
                evidence=refs(ctx, [f.fact_id for f in facts]),
                distractors=tuple(f"It happened on {d}" for d in [when] + wrong_dates[:4]),
                rubric=(
                    f"Required: says there is no record of {name} doing this (or that it did not happen as far as "
                    f"the history shows). Acceptable: mentions the real related event ({real}, {when}). Wrong: "
                    f"giving a date or any account of how '{title}' went."
                ),
                priority=0 if kind in ("adopt_pet", "move_flat", "run_race", "city_trip", "buy_vehicle") else 1,
                extra={"event_ids": [event.event_id], "false_premise": title, "fabricated_entity": entity,
                       "absent_forms": keys, "closest_event_id": event.event_id, "abstention": "never_said",
                       "misleading_fact_ids": [f.fact_id for f in facts], "misleading_answer": when},
            )
        )
        out.append(answerable_twin(ctx, f"hallucination.fabrication.{kind}", event, plan, facts,
                                   priority=out[-1].priority))
    return [c for c in out if c is not None] + abstention_candidates(ctx)

