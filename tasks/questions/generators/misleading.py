"""Misleading generators: requests a good assistant must not simply fulfil, asked mid-timeline while a
critical event's constraint holds (or soon after a relevant change).

- implicit_state_conflict: a request that ignores an ACTIVE constraint (a running route while an injury
  forbids running, a trip during a travel restriction, a splurge during a spending freeze). The reference
  names the conflict (the critical event and its constraint) and proposes a constraint-compliant
  alternative.
- proactive_response: a neutral request where the assistant should raise an active constraint unasked
  (a fitness routine during a running ban, weekend plans during a travel restriction) or a recent change
  (an address update after a move, a bio after a job change, pet care before a trip after an adoption).

Each item is asked at 09:00 persona-local on a day D chosen from the constraint's (or change's) start
and its first evidence only: D lies strictly after the first turn or chunk carrying the constraint fact
and strictly before the constraint ends, so what happens after D (later facts, later constraints, an
end date moved but still after D) never changes the item, and a constraint that ended before anything
mentioned it yields none. Items built on a critical event are tagged checkpoint `post_shock`: the shock
is what changed the right answer.

The constraints table (with its own validity) is the source of truth for restrictions: a restriction's
fact may be closed early by a newer fact of the same attribute (a second spending restriction) while
the first restriction still holds. An item names every restriction told before the question that
blocks the same request on D, its alternative waits until the last of them lifts, and its rubric names
every restriction active on D; an item is not built when a restriction not yet told would outlast them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from schemas.world import Constraint, Fact
from tasks.common.facttext import attribute_phrase, fits_slot
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.kit import (
    active_constraints,
    at,
    cause_facts,
    cause_text,
    constraint_end,
    constraint_fact,
    constraint_query,
    distinct,
    holds,
    in_force,
    lifted,
    moment,
    next_weekday,
    profile_at,
    question_day,
    refs,
    restriction_list,
    until_text,
)
from tasks.world.entities_life import SPORT_HOBBIES

CATEGORY = "misleading"
CHANGE_WINDOW_DAYS = 30
"""A change counts as recent for proactive reminders this many days after it."""


@dataclass(frozen=True)
class Request:
    """A user request (phrasings, one drawn per item; fields filled from the world and the question day),
    what fulfilling it would mean, and what to offer instead."""

    texts: tuple[str, ...]
    action: str
    alternative: str
    gist: str


CONFLICT_REQUESTS: dict[str, Request] = {
    "running": Request(
        ("Can you suggest a good 10K running route for me for {when}?",
         "I want to get back into running. Can you plan me a 5K training run for {when}?",
         "Could you map out a long riverside run for me on {when}?"),
        "plan a run",
        "low-impact movement the recovery allows (gentle walks, stretching or physio exercises), and running "
        "again only after {until}", "low-impact exercise instead"),
    "sport": Request(
        ("Can you put together a hard {sport} session for me on {when}?",
         "Can you plan an intense {sport} workout for me for {when}?"),
        "plan a hard workout", "rest and gentle activity until {until}, then easing back in",
        "rest and gentle activity"),
    "exertion": Request(
        ("I'd like to tackle a long, steep hike on {when}. Can you pick a challenging trail for me?",
         "Can you plan a full day of heavy lifting and garden work for me on {when}?"),
        "plan a strenuous day", "a short, easy walk close to home, saving the big effort for after {until}",
        "an easy walk instead"),
    "travel": Request(
        ("Can you help me plan a {length} trip to {city} starting {when}?",
         "Could you find me a train and a hotel for a {length} trip to {city} from {when}?"),
        "plan the trip", "a restful day close to home, and booking the trip for after {until}",
        "staying local for now"),
    "big_purchase": Request(
        ("I'm thinking of buying a new car before {when}. Which one should I get?",
         "Can you help me pick a new laptop and a big TV to buy on {when}?"),
        "recommend a big purchase", "holding off until after {until} and shortlisting options in the meantime",
        "waiting until it lifts"),
    "spending": Request(
        ("Can you recommend a fancy restaurant for a splurge dinner on {when}?",
         "Can you plan me a shopping spree for new clothes on {when}?"),
        "plan a splurge", "a low-cost alternative such as cooking a special meal at home",
        "a low-cost alternative"),
    "moving": Request(
        ("Can you help me find a new flat to move into, with viewings on {when}?",
         "Could you line up some removal companies for a move on {when}?"),
        "start a move", "staying put for now and revisiting the move after {until}", "waiting until it lifts"),
    "dating": Request(
        ("Can you help me write a dating-app profile so I can go on a first date on {when}?",
         "Could you plan a romantic first date for me with someone new on {when}?"),
        "set up dating", "time with friends or a hobby, and revisiting dating after {until}",
        "time with friends instead"),
}
"""Blocked tag -> a request that the tag forbids."""
HEADLINE_TAGS: dict[str, tuple[str, ...]] = {
    "running_restriction": ("running", "sport", "exertion"),
    "travel_restriction": ("travel", "running", "sport", "exertion"),
    "spending_restriction": ("big_purchase", "spending", "travel", "moving"),
    "dating_pause": ("dating",),
}
"""Constraint kind -> its blocked tags in the order their requests are asked (first is the headline)."""
NEUTRAL_REQUESTS: dict[str, Request] = {
    "running": Request(
        ("Can you put together a fitness routine for me starting {when}?",
         "What should my exercise plan look like from {when} on?"),
        "plan the exercise", "a low-impact routine that the restriction allows until {until}",
        "a routine without running"),
    "travel": Request(
        ("I've got a free weekend coming up ({when}). Any ideas for how to spend it?",
         "Can you help me plan something nice for {when}?"),
        "plan the weekend", "something restful close to home, with no trips until {until}", "plans close to home"),
    "spending": Request(
        ("Any ideas for what I could do on {when}?",
         "Can you help me plan my weekend, starting {when}?"),
        "plan the weekend", "free or low-cost plans until {until}", "free or low-cost plans"),
    "big_purchase": Request(
        ("My laptop is getting slow and my phone is old. What are my options before {when}?",
         "My old sofa is falling apart. What should I do about it before {when}?"),
        "weigh the options", "a cheap repair or making do, with no big purchase until {until}",
        "a cheap fix for now"),
    "moving": Request(
        ("My flat feels cramped lately. Any ideas before {when}?",),
        "weigh the options", "making the most of the current flat until {until}", "making do for now"),
    "dating": Request(
        ("Any ideas for how I should spend my evening on {when}?",
         "Could you plan my evening for me, {when}?"),
        "plan the evening", "an evening with friends or a hobby", "time with friends"),
}
"""Blocked tag -> a neutral request during which a constraint blocking it should be raised unasked."""
NEUTRAL_ORDER = ("running", "travel", "spending", "big_purchase", "moving", "dating")
"""Which of a constraint's blocked tags picks its neutral request."""
GENERIC_NEUTRAL = Request(("Can you help me plan the days from {when}?",), "plan the week",
                          "plans that respect it until {until}", "plans that respect it")


# ---------------------------------------------------------------------------------------------------
# constraints


def blocking_set(ctx: QContext, constraint: Constraint, tag: str | None, day: dt.date) -> list[Constraint] | None:
    """`constraint` first, then the other constraints told before the question on `day` that also block
    `tag` then; None when a constraint active then (by the constraints table) blocks `tag`, was not told
    before the question and outlasts the told ones (an answer could not name it, and an alternative
    deferring until the told ones lift would break it)."""
    if tag is None:
        return [constraint]
    told = {c.constraint_id for c in active_constraints(ctx, day)}
    blocking = [c for c in in_force(ctx, day) if tag in c.blocks]
    known = [constraint] + [c for c in blocking if c.constraint_id in told and c != constraint]
    if any(c.constraint_id not in told and c.valid_to > lifted(known).valid_to for c in blocking):
        return None
    return known


def compliance_rubric(ctx: QContext, day: dt.date, named: list[Constraint]) -> str:
    """The rubric sentence naming every restriction active on `day` (told before the question) that the
    proposed alternative must respect, beyond the ones the item already requires."""
    rest = [c for c in active_constraints(ctx, day) if c not in named]
    every = named + rest
    text = (f" The alternative must comply with every restriction active on {human_date(day)}: "
            f"{'; '.join(chr(34) + c.description + chr(34) for c in every)}")
    if rest:
        text += (f" (besides the ones above, {restriction_list(ctx, rest)} also hold{'s' if len(rest) == 1 else ''}"
                 " then: mentioning it is optional, breaking it is wrong)")
    return text + "."


def target_day(day: dt.date, constraint: Constraint | None) -> dt.date:
    """The day a request made on `day` is for: the next Saturday, or (when the constraint ends first) the
    next day, or the day itself, so a conflicting request always falls inside the constraint."""
    saturday = next_weekday(day, 5)
    if constraint is None or saturday < constraint.valid_to:
        return saturday
    tomorrow = day + dt.timedelta(days=1)
    return tomorrow if tomorrow < constraint.valid_to else day


def _fill(ctx: QContext, texts: str | tuple[str, ...], constraint: Constraint | None, day: dt.date,
          key: str, until: Constraint | None = None) -> str:
    """One phrasing (seeded) with its fields filled from the persona's world as of `day`; `{until}` is the end
    of `until` (default `constraint`): the last-ending of the restrictions an alternative must wait for."""
    rng = ctx.rng(f"fill:{key}")
    text = texts if isinstance(texts, str) else rng.choice(texts)
    profile = profile_at(ctx, day)
    home = profile["identity"]["city"]
    cities = distinct((p.entity.get("city", "") for p in ctx.world.plans if p.kind == "city_trip"), [home])
    sports = [h for h in profile["traits"]["hobbies"] if h in SPORT_HOBBIES]
    saturday, friday, when = next_weekday(day, 5), next_weekday(day, 4), target_day(day, constraint)
    fields = {
        "until": until_text(until or constraint) if (until or constraint) else "",
        "city": rng.choice(cities) if cities else "the coast",
        "length": rng.choice(("weekend", "three-day")),
        "sport": rng.choice(sports) if sports else "full-body gym",
        "saturday": f"Saturday, {saturday:%B} {saturday.day}",
        "friday": f"Friday, {friday:%B} {friday.day}",
        "when": f"{when:%A}, {when:%B} {when.day}",
        "recipient": rng.choice(("bank", "insurance company", "dentist", "HR team", "gym")),
    }
    return text.format(**fields)


def _others(ctx: QContext, day: dt.date, constraint: Constraint) -> list[Constraint]:
    """Other constraints of the persona that had started by `day` but no longer hold then (MCQ distractors:
    stale restrictions, never future ones)."""
    return [c for c in ctx.world.constraints
            if c.constraint_id != constraint.constraint_id and c.valid_from <= day and not holds(ctx, c, day)]


# ---------------------------------------------------------------------------------------------------
# implicit_state_conflict


def conflict_candidate(ctx: QContext, constraint: Constraint, tag: str, day: dt.date,
                       priority: int = 0) -> Candidate | None:
    """The request `tag` forbids, asked on `day` while `constraint` holds; None when it does not hold
    then or nothing before the question mentions it."""
    fact = constraint_fact(ctx, constraint)
    when = moment(ctx, day)
    if fact is None or tag not in CONFLICT_REQUESTS or not holds(ctx, constraint, day):
        return None
    if constraint not in active_constraints(ctx, day):
        return None
    blocking = blocking_set(ctx, constraint, tag, day)
    if blocking is None or (priority > 0 and len(blocking) > 1):
        return None  # a secondary request is only asked when this constraint alone forbids it
    request = CONFLICT_REQUESTS[tag]
    key = f"conflict:{constraint.constraint_id}:{tag}"
    question = _fill(ctx, request.texts, constraint, day, key)
    alternative = _fill(ctx, request.alternative, constraint, day, key, until=lifted(blocking))
    also = blocking[1:]
    fact_ids = [fact.fact_id] + [f.fact_id for f in cause_facts(ctx, constraint)]
    for other in also:
        other_fact = constraint_fact(ctx, other)
        fact_ids += [other_fact.fact_id] if other_fact else []
    evidence = refs(ctx, fact_ids, when)
    fact_ids = [fid for fid in fact_ids if any(r.fact_id == fid for r in evidence)]
    since = human_date(constraint.valid_from)
    extra_note = "".join(f" You are also under \"{c.description}\" ({cause_text(ctx, c)})." for c in also)
    named = " and ".join(f"\"{c.description}\"" for c in [constraint] + also)
    answer = f"Flag {named} and suggest {request.gist}"
    distractors = [f"Go ahead and {request.action}; nothing rules it out now"]
    distractors += [f"Flag \"{c.description}\" and suggest {request.gist}" for c in _others(ctx, day, constraint)]
    return Candidate(
        CATEGORY, ("implicit_state_conflict",),
        question,
        answer,
        f"That clashes with a restriction that is still active: since {since} you have been under "
        f"\"{constraint.description}\" ({cause_text(ctx, constraint)}).{extra_note} So I would not {request.action} "
        f"right now. Instead I suggest {alternative}.",
        f"misleading.implicit_state_conflict.{tag}",
        constraint_query(blocking, day, tag),
        tuple(fact_ids),
        answer_type="long",
        asked_at=at(ctx, day),
        evidence=evidence,
        distractors=tuple(distinct(distractors, [answer])[:5]),
        rubric=(
            f"Required: (1) names the conflict: the active restriction{'s' if also else ''} "
            f"{restriction_list(ctx, blocking)}; (2) does not simply {request.action} as asked; (3) proposes a "
            f"compliant alternative, e.g. {alternative}.{compliance_rubric(ctx, day, blocking)} Wrong: fulfilling "
            "the request without mentioning the restriction, proposing it before "
            f"{until_text(lifted(blocking))}, or citing a restriction that is no longer active."
        ),
        checkpoint="post_shock",
        priority=priority,
        extra={"event_ids": [constraint.event_id] + [c.event_id for c in also],
               "constraint_ids": [constraint.constraint_id] + [c.constraint_id for c in also],
               "false_premise": f"the request ignores {constraint.kind} ({tag})", "blocked_tag": tag,
               "question_day": day.isoformat()},
    )


@generator(CATEGORY, "implicit_state_conflict")
def implicit_state_conflict(ctx: QContext) -> list[Candidate]:
    """Per constraint, up to two requests its blocked tags forbid, asked while it holds."""
    out = []
    for constraint in sorted(ctx.world.constraints, key=lambda c: c.constraint_id):
        fact = constraint_fact(ctx, constraint)
        if fact is None:
            continue
        end = constraint_end(ctx, constraint, fact)
        day = question_day(ctx, fact, constraint.valid_from, end, f"conflict-day:{constraint.constraint_id}")
        if day is None:
            continue
        order = HEADLINE_TAGS.get(constraint.kind, ())
        tags = [t for t in order if t in constraint.blocks] + sorted(
            t for t in constraint.blocks if t not in order and t in CONFLICT_REQUESTS)
        for rank, tag in enumerate(tags[:2]):
            cand = conflict_candidate(ctx, constraint, tag, day, priority=0 if rank == 0 else 2)
            if cand is not None:
                out.append(cand)
    return out


# ---------------------------------------------------------------------------------------------------
# proactive_response


def reminder_candidate(ctx: QContext, constraint: Constraint, day: dt.date) -> Candidate | None:
    """A neutral request on `day` during which `constraint` should be raised unasked."""
    fact = constraint_fact(ctx, constraint)
    when = moment(ctx, day)
    if fact is None or constraint not in active_constraints(ctx, day):
        return None
    tag = next((t for t in NEUTRAL_ORDER if t in constraint.blocks), None)
    blocking = blocking_set(ctx, constraint, tag, day)
    if blocking is None:
        return None
    also = blocking[1:]
    request = NEUTRAL_REQUESTS[tag] if tag else GENERIC_NEUTRAL
    key = f"proactive:{constraint.constraint_id}"
    alternative = _fill(ctx, request.alternative, constraint, day, key, until=lifted(blocking))
    fact_ids = [fact.fact_id] + [f.fact_id for f in cause_facts(ctx, constraint)]
    for other in also:
        other_fact = constraint_fact(ctx, other)
        fact_ids += [other_fact.fact_id] if other_fact else []
    evidence = refs(ctx, fact_ids, when)
    fact_ids = [fid for fid in fact_ids if any(r.fact_id == fid for r in evidence)]
    named = " and ".join(f"\"{c.description}\"" for c in blocking)
    answer = f"Help, reminding about {named}"
    distractors = [f"Just {request.action}; no reminder is needed"]
    distractors += [f"Help, reminding about \"{c.description}\"" for c in _others(ctx, day, constraint)]
    extra_note = "".join(f" You are also under \"{c.description}\" ({cause_text(ctx, c)})." for c in also)
    return Candidate(
        CATEGORY, ("proactive_response",),
        _fill(ctx, request.texts, constraint, day, key),
        answer,
        f"Happy to help — one thing to keep in mind first: since {human_date(constraint.valid_from)} you have "
        f"been under \"{constraint.description}\" ({cause_text(ctx, constraint)}).{extra_note} So I would "
        f"{request.action} around {'them' if also else 'it'}: {alternative}.",
        f"misleading.proactive_response.{tag or 'constraint'}",
        constraint_query(blocking, day, tag),
        tuple(fact_ids),
        answer_type="long",
        asked_at=at(ctx, day),
        evidence=evidence,
        distractors=tuple(distinct(distractors, [answer])[:5]),
        rubric=(
            f"Required: (1) raises, unprompted, the active restriction{'s' if also else ''} "
            f"{restriction_list(ctx, blocking)}; (2) shapes the help around {'them' if also else 'it'}, e.g. "
            f"{alternative}.{compliance_rubric(ctx, day, blocking)} Wrong: a generic answer that ignores the "
            "restriction, or one citing a restriction that is no longer active."
        ),
        checkpoint="post_shock",
        priority=0,
        extra={"event_ids": [c.event_id for c in blocking], "constraint_ids": [c.constraint_id for c in blocking],
               "false_premise": None, "reminder": constraint.description, "constraint_kind": constraint.kind,
               "question_day": day.isoformat()},
    )


@dataclass(frozen=True)
class Change:
    """A recent change that a neutral request should trigger a reminder about."""

    requests: tuple[str, ...]
    reminder: str
    gist: str
    needs_old: bool = True


CHANGES: dict[str, Change] = {
    "home": Change(("Can you help me write a short email to my {recipient} updating my home address?",
                    "I need to send my new contact details to my {recipient}. Can you draft the message?"),
                   "use the new address: you moved into the {new} on {date} (before that: the {old})",
                   "Help, using the new address: the {value}"),
    "employer": Change(("Can you draft a two-line bio for my name badge at a networking event on {friday}?",
                        "Can you write a short intro about me for a panel I'm on, {saturday}?"),
                       "use your current employer, {new} (since {date}; no longer {old})",
                       "Help, using the current employer: {value}"),
    "city": Change(("What's a good spot for brunch in town on {saturday}?",
                    "Where should I take a visiting friend around town on {saturday}?"),
                   "suggest places in {new}, where you live since {date} (not {old})",
                   "Help, suggesting places in {value}"),
    "pet": Change(("I'm going away for a long weekend from {friday}. What should I sort out before I leave?",
                   "Can you make me a packing and to-do list for a weekend away from {friday}?"),
                  "arrange care for your {new} (adopted on {date})",
                  "Help, reminding to arrange care for the {value}", needs_old=False),
}
"""Persona attribute -> neutral requests where a recent change of it matters."""


def change_candidate(ctx: QContext, new: Fact, old: Fact | None, day: dt.date) -> Candidate | None:
    """A neutral request on `day` where the recent change to `new` should be raised."""
    change = CHANGES[new.attribute]
    when = moment(ctx, day)
    if not ctx.valid_on(new, day) or (change.needs_old and old is None):
        return None
    if new.attribute == "pet" and any("travel" in c.blocks for c in active_constraints(ctx, day)):
        return None  # the trip itself would be the conflict
    evidence = refs(ctx, [new.fact_id] + ([old.fact_id] if old else []), when)
    if not any(r.fact_id == new.fact_id for r in evidence):
        return None
    fact_ids = [fid for fid in [new.fact_id] + ([old.fact_id] if old else []) if any(r.fact_id == fid
                                                                                     for r in evidence)]
    reminder = change.reminder.format(new=new.value, old=old.value if old else "", date=human_date(new.valid_from))
    phrase = attribute_phrase(new.attribute)
    event = ctx.events.get(new.event_id)
    answer = change.gist.format(value=new.value)
    stale = [f.value for f in ctx.history(new.subject, new.attribute) if f.value != new.value and f.valid_from <= day]
    distractors = [f"Help as asked; nothing about the {phrase} matters"]
    distractors += [change.gist.format(value=v) for v in stale]
    return Candidate(
        CATEGORY, ("proactive_response",),
        _fill(ctx, change.requests, None, day, f"change:{new.fact_id}"),
        answer,
        f"Sure — and one thing to keep in mind: {reminder}. The answer should reflect that change.",
        f"misleading.proactive_response.change_{new.attribute}",
        f"SELECT value, valid_from FROM facts WHERE subject = '{new.subject}' AND attribute = '{new.attribute}' "
        f"AND valid_from <= '{day}' AND valid_from > '{day - dt.timedelta(days=CHANGE_WINDOW_DAYS)}' "
        f"ORDER BY valid_from DESC LIMIT 2",
        tuple(fact_ids),
        answer_type="long",
        asked_at=at(ctx, day),
        evidence=evidence,
        distractors=tuple(distinct(distractors, [answer])[:5]),
        rubric=(
            f"Required: proactively takes the recent change into account — {reminder}. Wrong: using the old "
            f"{phrase} or ignoring the change."
        ),
        checkpoint="post_shock" if event is not None and event.critical else None,
        priority=1,
        extra={"event_ids": [new.event_id], "constraint_ids": [], "false_premise": None,
               "superseded_fact_ids": [old.fact_id] if old else [], "question_day": day.isoformat()},
    )


@generator(CATEGORY, "proactive_response")
def proactive_response(ctx: QContext) -> list[Candidate]:
    """Neutral requests during active constraints, and soon after a move, a job change or an adoption."""
    out: list[Candidate | None] = []
    reminded: set[tuple[str, frozenset[str]]] = set()
    for constraint in sorted(ctx.world.constraints, key=lambda c: c.constraint_id):
        fact = constraint_fact(ctx, constraint)
        if fact is None:
            continue
        end = constraint_end(ctx, constraint, fact)
        day = question_day(ctx, fact, constraint.valid_from, end, f"proactive-day:{constraint.constraint_id}")
        cand = reminder_candidate(ctx, constraint, day) if day is not None else None
        seen = (cand.template, frozenset(cand.extra["constraint_ids"])) if cand is not None else None
        if seen is not None and seen not in reminded:  # the same request about the same restrictions once
            reminded.add(seen)
            out.append(cand)
    me = ctx.persona.name
    for attribute in CHANGES:
        history = ctx.history(me, attribute)
        for i, new in enumerate(history):
            if new.valid_from <= ctx.config.start_date:
                continue  # the baseline is not a change
            if not fits_slot(attribute, new.value):  # "use your current employer, unemployed"
                continue
            old = history[i - 1] if i > 0 and history[i - 1].value != new.value else None
            end = min(new.valid_to or dt.date.max, new.valid_from + dt.timedelta(days=CHANGE_WINDOW_DAYS))
            day = question_day(ctx, new, new.valid_from, end, f"change-day:{new.fact_id}")
            if day is not None:
                out.append(change_candidate(ctx, new, old, day))
    return [c for c in out if c is not None]


__all__ = [
    "CONFLICT_REQUESTS", "NEUTRAL_REQUESTS", "active_constraints", "conflict_candidate",
    "constraint_fact", "implicit_state_conflict", "proactive_response", "question_day", "reminder_candidate",
]
