"""Hallucination generators: questions resting on a false premise, with a long reference answer that
names the premise and gives the truth, and a rubric for judging long answers.

- misattribution: a real event credited to the wrong person (a relation instead of the persona), the
  wrong companion or place (one field of the plan's entity swapped for another value of the world) or
  the wrong month. The reference names the false premise and the true attribution.
- fabrication: a plausible event that never happened, drawn from the event catalog for the persona's
  profile with entity values verified absent from every fact, event, plan, turn and document; the answer
  is that there is no record of it, citing the closest real event of the same kind.
- preference_conflict: a question presupposing a preference the persona no longer holds (the profile
  ops and the fact store agree that it changed); the reference names the current preference and when it
  changed.
- contextual_contradiction: a question presupposing a wrong value for a known attribute (an earlier
  value, a move or job offer that fell through, another race's time, the namesake colleague's team);
  the reference corrects it with the value true at question time.

Every answer is computed from facts valid at asked_at (the default question time) and every evidence
item precedes it, so facts added later never change an item.
"""

from __future__ import annotations

import datetime as dt
import json
import string
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from schemas.world import Event, Fact, Plan
from tasks.common.facttext import (
    NOT_AN_EMPLOYER,
    attribute_phrase,
    first_name,
    fits_slot,
    fits_slots,
    is_baseline,
    mentions,
)
from tasks.common.rng import stable_hash
from tasks.common.timeutil import human_date, local_datetime
from tasks.questions.base import Candidate, QContext, Ref, generator
from tasks.world.catalog import KINDS

CATEGORY = "hallucination"
NO_RECORD = "There is no record of it"
PEOPLE_FIELDS = frozenset({"friend", "relative", "companion", "person", "partner", "colleague", "date_name"})
NOTABLE_KINDS = frozenset({
    "adopt_pet", "move_flat", "start_course", "join_gym", "buy_vehicle", "city_trip", "run_race", "new_job",
    "concert", "volunteer", "start_book", "new_cafe", "work_project", "doctor_visit", "first_date", "milestone",
})
"""Kinds memorable enough to be misremembered by person or month (routines like the weekly shop are not)."""
UNRELATED_ROLES = frozenset({"doctor", "ex-partner", "date"})


# ---------------------------------------------------------------------------------------------------
# shared helpers (also used by tasks/questions/misleading.py)


def first(ctx: QContext) -> str:
    """The persona's first name."""
    return first_name(ctx.persona.name)


def at(ctx: QContext, day: dt.date) -> dt.datetime | None:
    """asked_at for a question asked on `day` (09:00 persona-local); None for the default day."""
    return None if day == ctx.day else local_datetime(ctx.persona, day, 9)


def moment(ctx: QContext, day: dt.date) -> dt.datetime:
    """The question time of a question asked on `day`."""
    return ctx.asked_at if day == ctx.day else local_datetime(ctx.persona, day, 9)


def refs(ctx: QContext, fact_ids: Iterable[str], before: dt.datetime | None = None,
         keep: Callable[[Ref], bool] | None = None) -> tuple[Ref, ...]:
    """Evidence for the facts (each turn/chunk claiming and carrying one), strictly before `before`."""
    out: list[Ref] = []
    for fid in fact_ids:
        out += [r for r in ctx.evidence_for(fid, before) if keep is None or keep(r)]
    return tuple(dict.fromkeys(out))


def item_texts(ctx: QContext) -> dict[tuple[str, str], str]:
    """(kind, id) -> text of every turn and chunk."""
    texts = {("turn", t.turn_id): t.text for t in ctx.corpus.turns}
    texts.update({("chunk", c.chunk_id): c.text for c in ctx.corpus.chunks})
    return texts


def plans_by_id(ctx: QContext) -> dict[str, Plan]:
    return {p.plan_id: p for p in ctx.world.plans}


def facts_of_event(ctx: QContext, event_id: str) -> list[Fact]:
    return sorted((f for f in ctx.world.facts if f.event_id == event_id), key=lambda f: f.fact_id)


def story(ctx: QContext, before: dt.date) -> list[Event]:
    """Non-baseline events dated before `before`, in date order."""
    events = [e for e in ctx.world.events if not is_baseline(e) and e.date < before]
    return sorted(events, key=lambda e: (e.date, e.event_id))


def title_fields(kind: str) -> list[str]:
    """The entity fields a kind's plan title names, in order."""
    return [name for _, name, _, _ in string.Formatter().parse(KINDS[kind].title) if name]


def relations(ctx: QContext, day: dt.date) -> dict[str, str]:
    """Related person -> role on `day`, from the relationship facts (else the initial profile)."""
    out = {}
    for fact in ctx.world.facts:
        if fact.attribute == "relationship" and ctx.valid_on(fact, day) and fact.subject != ctx.persona.name:
            now = ctx.current(fact.subject, "relationship", day)
            if now is not None:
                out[fact.subject] = now.value
    if not out:
        out = {r.name: r.role for r in ctx.persona.profile.relationships}
    return dict(sorted(out.items()))


def profile_at(ctx: QContext, day: dt.date) -> dict[str, Any]:
    """The profile as of `day` (latest snapshot not after it; else the initial profile)."""
    snaps = [s for s in ctx.world.profile_snapshots if s.as_of <= day]
    if snaps:
        return max(snaps, key=lambda s: s.as_of).profile
    return ctx.persona.profile.model_dump(mode="json")


def month_name(day: dt.date) -> str:
    return f"{day:%B} {day.year}"


def fact_query(subject: str, attribute: str, day: dt.date) -> str:
    return (
        f"SELECT fact_id, value, valid_from, valid_to FROM facts WHERE subject = '{subject}' "
        f"AND attribute = '{attribute}' ORDER BY valid_from; -- current: valid_from <= '{day}' "
        f"AND (valid_to IS NULL OR valid_to > '{day}')"
    )


def stable_pick(ctx: QContext, key: str, options: Iterable[Any]) -> Any:
    """The option with the smallest seeded hash: unlike a draw from the list, the pick stays the same
    when a later context (a longer world) adds options, unless a new one hashes lower."""
    seed = f"{ctx.config.seed}:{ctx.persona.persona_id}:{key}"
    return min(options, key=lambda o: stable_hash(seed, o))


def distinct(values: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """Distinct non-empty values in order, without those in `exclude`."""
    banned = set(exclude)
    return [v for v in dict.fromkeys(values) if v and v not in banned]


# ---------------------------------------------------------------------------------------------------
# misattribution

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
        and not any(mentions(f.value, form) for f in ctx.world.facts if f.subject == name for form in forms)
    ]
    if not evidence or not clean:
        return []
    other = stable_pick(ctx, f"misattribution:agent:{event.event_id}", clean)
    role, name, when = people[other], first(ctx), human_date(event.date)
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
    same_kind = [p for p in ctx.world.plans if p.kind == plan.kind]
    titles = {p.title for p in ctx.world.plans}
    name, when = first(ctx), human_date(event.date)
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
    name, when = first(ctx), human_date(event.date)
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


# ---------------------------------------------------------------------------------------------------
# fabrication

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


def world_text(ctx: QContext) -> str:
    """Every text of the world and corpus, for absence checks (facts, events, plans, entities, profiles,
    turns, chunks, documents)."""
    parts: list[str] = [ctx.persona.name, json.dumps(ctx.persona.profile.model_dump(mode="json"))]
    parts += [f.value + "\n" + "\n".join(f.surface_forms) for f in ctx.world.facts]
    parts += [e.narrative for e in ctx.world.events]
    parts += [p.title + "\n" + "\n".join(p.entity.values()) for p in ctx.world.plans]
    parts += [e.name + "\n" + "\n".join(e.attributes.values()) for e in ctx.world.entities]
    parts += [c.description for c in ctx.world.constraints]
    parts += [o.new_value or "" for o in ctx.world.profile_ops]
    parts += [t.text for t in ctx.corpus.turns]
    parts += [c.text for c in ctx.corpus.chunks]
    parts += [d.title + "\n" + d.body for d in ctx.corpus.documents]
    return "\n".join(parts)


def absent(text: str, forms: Iterable[str], low: str | None = None) -> bool:
    """True when none of `forms` occurs in `text` as a whole phrase, ignoring case (a near-duplicate
    name such as `Copper Kettle Café` next to a real `Copper Kettle Coffee` is a welcome distractor).
    `low` is `text.lower()`, passed when checking many forms against one text."""
    low = text.lower() if low is None else low
    return not any(form.lower() in low and mentions(text, form) for form in forms)


def draw_view(ctx: QContext, day: dt.date) -> dict[str, Any]:
    """The profile as the catalog's draw functions see it, with the standing colleagues."""
    colleagues = [(e.name, e.attributes.get("team", "")) for e in ctx.world.entities if e.role == "colleague"]
    return profile_at(ctx, day) | {"_world": {"colleagues": colleagues} if colleagues else {}}


@generator(CATEGORY, "fabrication")
def fabrication(ctx: QContext) -> list[Candidate]:
    """'When did <persona> <plausible event that never happened>?': answered 'no record'."""
    dated = _dated_positive(ctx)
    latest: dict[str, tuple[Event, Plan, list[Fact]]] = {}
    for event, plan, facts in dated:
        if plan.kind in FABRICATION_KEYS and refs(ctx, [f.fact_id for f in facts]):
            latest[plan.kind] = (event, plan, facts)
    if not latest:
        return []
    text, titles = world_text(ctx), {p.title for p in ctx.world.plans}
    low = text.lower()
    view = draw_view(ctx, ctx.day)
    name = first(ctx)
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
                       "absent_forms": keys, "closest_event_id": event.event_id},
            )
        )
    return out


# ---------------------------------------------------------------------------------------------------
# preference_conflict

PREFERENCE_QUESTIONS: dict[str, str] = {
    "cafe": "What should {name} order next time at {old}, their favourite cafe?",
    "grocery_shop": "Which day is quietest for {name}'s weekly shop at {old}, their usual grocery shop?",
    "gym": "Which class should {name} try next at {old}, their gym?",
    "volunteering": "What does {name} enjoy most about their volunteering ({old})?",
    "book": "What does {name} think so far of {old}, the book they are reading?",
    "course": "What has {name} learned lately in the {old}?",
}
GENERIC_PREFERENCE_QUESTION = "Given that {name}'s {phrase} is {old}, what would they enjoy next?"


def preference_paths(ctx: QContext) -> dict[str, str]:
    """Profile preference path -> the fact attribute recording it (from factual-phase ops)."""
    by_event: dict[str, list[Fact]] = defaultdict(list)
    for fact in ctx.world.facts:
        if fact.subject == ctx.persona.name:
            by_event[fact.event_id].append(fact)
    out: dict[str, str] = {}
    for op in ctx.world.profile_ops:
        if op.phase != "factual" or not op.path.startswith("traits.preferences.") or op.new_value is None:
            continue
        match = next((f for f in by_event[op.event_id] if f.value == op.new_value), None)
        if match is not None:
            out.setdefault(op.path, match.attribute)
    return dict(sorted(out.items()))


def preferences_on(ctx: QContext, day: dt.date) -> dict[str, str]:
    """Profile path -> value of the traits.preferences entries on `day`, replaying the ops."""
    prefs: dict[str, str] = {}
    for op in sorted(ctx.world.profile_ops, key=lambda o: (o.date, o.op_id)):
        if op.date > day or not op.path.startswith("traits.preferences."):
            continue
        if op.op == "remove":
            prefs.pop(op.path, None)
        elif op.new_value is not None:
            prefs[op.path] = op.new_value
    return prefs


@generator(CATEGORY, "preference_conflict")
def preference_conflict(ctx: QContext) -> list[Candidate]:
    """A question presupposing a preference the persona held earlier but no longer holds."""
    day, name, me = ctx.day, first(ctx), ctx.persona.name
    held = preferences_on(ctx, day)
    out = []
    for path, attribute in preference_paths(ctx).items():
        now = ctx.current(me, attribute, day)
        if now is None or held.get(path) != now.value:
            continue  # the profile and the fact store must agree on the current preference
        evidence = refs(ctx, [now.fact_id])
        history = [f for f in ctx.history(me, attribute) if f.valid_from <= day]
        stale = [f for f in history if f.valid_from < now.valid_from and f.value != now.value and f.valid_to]
        last_of: dict[str, Fact] = {}
        for fact in stale:
            last_of[fact.value] = fact
        if not evidence or not last_of:
            continue
        key, phrase = path.rsplit(".", 1)[-1], attribute_phrase(attribute)
        values = [f.value for f in history]
        for rank, old in enumerate(sorted(last_of.values(), key=lambda f: (f.valid_to, f.fact_id), reverse=True)):
            template = PREFERENCE_QUESTIONS.get(key, GENERIC_PREFERENCE_QUESTION)
            question = template.format(name=name, old=old.value, phrase=phrase)
            if mentions(question, now.value):
                continue
            since = human_date(now.valid_from)
            out.append(
                Candidate(
                    CATEGORY, ("preference_conflict",),
                    question,
                    now.value,
                    f"The question assumes an outdated preference: {old.value} was {name}'s {phrase} only until "
                    f"{human_date(old.valid_to)}. As of {human_date(day)} it is {now.value} (since {since}).",
                    f"hallucination.preference_conflict.{key}",
                    f"SELECT new_value, date FROM profile_ops WHERE path = '{path}' AND date <= '{day}' ORDER BY "
                    f"date DESC LIMIT 1; " + fact_query(me, attribute, day),
                    (now.fact_id,),
                    answer_type="long",
                    evidence=evidence,
                    distractors=tuple(distinct([old.value] + values[::-1], [now.value])[:5]),
                    rubric=(
                        f"Required: (1) points out that {old.value} is no longer {name}'s {phrase}; (2) names the "
                        f"current one, {now.value}; (3) says when it changed ({since}; the month is enough). Wrong: "
                        f"answering as if {old.value} were still the {phrase}."
                    ),
                    priority=0 if rank == 0 else 1,
                    extra={"false_premise": f"{phrase} = {old.value}", "superseded_fact_ids": [old.fact_id],
                           "profile_path": path, "changed_on": now.valid_from.isoformat()},
                )
            )
    return out


# ---------------------------------------------------------------------------------------------------
# contextual_contradiction

CONTRADICTION_QUESTIONS: dict[str, str] = {
    "home": "How is {name} settling into their home, the {wrong}?",
    "employer": "How is {name} finding work at {wrong} these days?",
    "occupation": "How is {name} getting on in their job as a {wrong}?",
    "city": "What does {name} like most about living in {wrong}?",
    "doctor": "When is {name}'s next check-up with {wrong}, their doctor?",
    "pet": "How is {name}'s {wrong} doing these days?",
    "vehicle": "How is {name} getting on with their {wrong}?",
    "relationship": "How are things going with {name}'s {wrong} {subject}?",
    "team": "How long has {subject} been on the {wrong} team?",
    "race_result": "Was finishing the {wrong} a personal best for {name}?",
}
"""Attributes a contradiction can target, and the question presupposing the wrong value."""
FAILED: dict[str, tuple[str, str, str]] = {
    "move_status": ("home", "flat at {address}", "the move to {address} fell through"),
    "job_offer_status": ("employer", "{company}", "the job offer from {company} was withdrawn"),
    "vehicle_status": ("vehicle", "{vehicle}", "the purchase of the {vehicle} fell through"),
}
"""Negative-outcome facts naming a value that never became true: status attribute -> (attribute it would
have set, the premise value, what happened)."""


def _contradiction(ctx: QContext, now: Fact, wrong: str, why: str, extra_facts: list[Fact],
                   variant: str, priority: int, pool: list[str]) -> Candidate | None:
    day, name = ctx.day, first(ctx)
    attribute = now.attribute
    template = CONTRADICTION_QUESTIONS[attribute]
    shown = wrong[4:] if attribute == "team" and wrong.startswith("the ") else wrong
    question = template.format(name=name, wrong=shown, subject=now.subject)
    if mentions(question, now.value) or wrong == now.value:
        return None
    evidence = refs(ctx, [now.fact_id] + [f.fact_id for f in extra_facts])
    if not refs(ctx, [now.fact_id]):
        return None
    phrase = attribute_phrase(attribute)
    holder = f"{name}'s" if now.subject == ctx.persona.name else f"{now.subject}'s"
    since = human_date(now.valid_from)
    state = f"{holder[:-2]} is {now.value}" if now.value in NOT_AN_EMPLOYER else f"{holder} {phrase} is {now.value}"
    return Candidate(
        CATEGORY, ("contextual_contradiction",),
        question,
        now.value,
        f"That premise contradicts the record: as of {human_date(day)}, {state} "
        f"(since {since}), not {wrong}. {why[:1].upper() + why[1:]}.",
        f"hallucination.contextual_contradiction.{variant}",
        fact_query(now.subject, attribute, day),
        (now.fact_id,) + tuple(f.fact_id for f in extra_facts),
        answer_type="long",
        evidence=evidence,
        distractors=tuple(distinct([wrong] + [v for v in pool if fits_slot(attribute, v)], [now.value])[:5]),
        rubric=(
            f"Required: (1) says the premise is wrong: {holder} {phrase} is not {wrong}; (2) gives the true value, "
            f"{now.value}. Good: explains that {why}. Wrong: answering as if {wrong} were true."
        ),
        priority=priority,
        extra={"false_premise": f"{now.subject} {phrase} = {wrong}", "variant": variant,
               "contradicting_fact_ids": [f.fact_id for f in extra_facts]},
    )


@generator(CATEGORY, "contextual_contradiction")
def contextual_contradiction(ctx: QContext) -> list[Candidate]:
    """A question presupposing a wrong value for an attribute the conversations or documents settle."""
    day = ctx.day
    keys = sorted({(f.subject, f.attribute) for f in ctx.world.facts if f.attribute in CONTRADICTION_QUESTIONS})
    out: list[Candidate | None] = []
    for subject, attribute in keys:
        now = ctx.current(subject, attribute, day)
        if now is None or (attribute == "employer" and now.value in ("retired",)):
            continue
        history = [f for f in ctx.history(subject, attribute) if f.valid_from <= day]
        pool = [f.value for f in history]
        if attribute == "race_result":
            out += _race_contradictions(ctx, now, history)
            continue
        if attribute == "team":
            others = [ctx.current(s, "team", day) for s, a in keys if a == "team" and s != subject]
            for other in [o for o in others if o is not None and o.value != now.value]:
                why = f"{other.value} is the team of {other.subject}, a different colleague"
                out.append(_contradiction(ctx, now, other.value, why, [other], "namesake", 0, pool))
            continue
        stale: dict[str, Fact] = {}
        for fact in history:
            if fact.valid_to and fact.valid_to <= now.valid_from and fact.value != now.value:
                stale[fact.value] = fact
        for rank, old in enumerate(sorted(stale.values(), key=lambda f: (f.valid_to, f.fact_id), reverse=True)):
            if not fits_slot(attribute, old.value):
                continue
            if attribute == "occupation" and (old.value.startswith("retired") or "student" in old.value):
                continue
            why = f"{old.value} was the {attribute_phrase(attribute)} only until {human_date(old.valid_to)}"
            out.append(_contradiction(ctx, now, old.value, why, [old], "stale", 0 if rank == 0 else 1, pool))
    out += _failed_contradictions(ctx)
    return [c for c in out if c is not None]


def _race_contradictions(ctx: QContext, now: Fact, history: list[Fact]) -> list[Candidate | None]:
    """The latest race with another race's finishing time."""
    plans, events = plans_by_id(ctx), ctx.events
    event = events.get(now.event_id)
    plan = plans.get(event.plan_id or "") if event else None
    if plan is None or "race" not in plan.entity or "minutes" not in plan.entity:
        return []
    minutes = plan.entity["minutes"]
    other = distinct((m for f in history for m in [_minutes(f.value)] if m), [minutes])
    wrong_minutes = other[-1] if other else str(int(minutes) + 9)
    wrong = f"{plan.entity['race']} in {wrong_minutes} minutes"
    why = f"{ctx.persona.name.split()[0]} finished the {plan.entity['race']} in {minutes} minutes"
    return [_contradiction(ctx, now, wrong, why, [], "race_time", 1, [f.value for f in history])]


def _minutes(value: str) -> str | None:
    words = value.split()
    return words[-2] if len(words) >= 3 and words[-1] == "minutes" and words[-2].isdigit() else None


def _failed_contradictions(ctx: QContext) -> list[Candidate | None]:
    """A value from a move, job offer or purchase that fell through, presupposed as true."""
    plans, day, me = plans_by_id(ctx), ctx.day, ctx.persona.name
    out: list[Candidate | None] = []
    for fact in sorted(ctx.world.facts, key=lambda f: f.fact_id):
        if fact.attribute not in FAILED or fact.subject != me or fact.valid_from >= day:
            continue
        target, premise, happened = FAILED[fact.attribute]
        event = ctx.events.get(fact.event_id)
        plan = plans.get(event.plan_id or "") if event else None
        now = ctx.current(me, target, day)
        if plan is None or now is None:
            continue
        try:
            wrong = premise.format(**plan.entity)
        except KeyError:
            continue
        if not fits_slot(target, wrong):
            continue
        why = f"{happened.format(**plan.entity)} on {human_date(fact.valid_from)}"
        pool = [f.value for f in ctx.history(me, target)]
        out.append(_contradiction(ctx, now, wrong, why, [fact], "fell_through", 0, pool))
    return out
