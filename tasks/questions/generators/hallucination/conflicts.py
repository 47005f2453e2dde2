"""Hallucination generators over a false state: preference_conflict and contextual_contradiction (see the
package docstring)."""

from __future__ import annotations

from schemas.world import Fact
from tasks.common.facttext import (
    NOT_AN_EMPLOYER,
    attribute_phrase,
    fits_slot,
    mentions,
)
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.kit import (
    distinct,
    history_query,
    plans_by_id,
    preference_paths,
    preferences_on,
    refs,
    who,
)

CATEGORY = "hallucination"


# ---------------------------------------------------------------------------------------------------
# preference_conflict

PREFERENCE_QUESTIONS: dict[str, str] = {
    "cafe": "What should {name} order next time at {name}'s favourite café, {old}?",
    "grocery_shop": "Which day is quietest for {name}'s weekly shop at {old}, {name}'s usual grocery shop?",
    "gym": "Which class should {name} try next at {name}'s gym, {old}?",
    "volunteering": "What does {name} enjoy most about {name}'s volunteering ({old})?",
    "book": "What does {name} think so far of {old}, the book {name} is reading?",
    "course": "What has {name} learned lately in the {old}?",
}
GENERIC_PREFERENCE_QUESTION = "Given that {name}'s {phrase} is {old}, what would {name} enjoy next?"


@generator(CATEGORY, "preference_conflict")
def preference_conflict(ctx: QContext) -> list[Candidate]:
    """A question presupposing a preference the persona held earlier but no longer holds."""
    day, name, me = ctx.day, who(ctx), ctx.persona.name
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
                    f"date DESC LIMIT 1; " + history_query(me, attribute, day),
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
    "home": "How is {name} settling into {name}'s home, the {wrong}?",
    "employer": "How is {name} finding work at {wrong} these days?",
    "occupation": "How is {name} getting on in {name}'s job as a {wrong}?",
    "city": "What does {name} like most about living in {wrong}?",
    "doctor": "When is {name}'s next check-up with {wrong}, {name}'s doctor?",
    "pet": "How is {name}'s {wrong} doing these days?",
    "vehicle": "How is {name} getting on with {name}'s {wrong}?",
    "relationship": "How are things going with {name}'s {wrong} {subject}?",
    "team": "How long has {subject} been on the {wrong} team?",
    "race_result": "Was finishing the {wrong} {name}'s personal best?",
}
"""Attributes a contradiction can target, and the question presupposing the wrong value."""
FAILED: dict[str, tuple[str, str, str]] = {
    "move_fell_through": ("home", "flat at {address}", "the move to {address} fell through"),
    "job_offer_withdrawn": ("employer", "{company}", "the job offer from {company} was withdrawn"),
    "purchase_fell_through": ("vehicle", "{vehicle}", "the purchase of the {vehicle} fell through"),
}
"""Negative-outcome facts naming a value that never became true: event attribute -> (attribute it would have
set, the premise value, what happened)."""


def _contradiction(ctx: QContext, now: Fact, wrong: str, why: str, extra_facts: list[Fact],
                   variant: str, priority: int, pool: list[str]) -> Candidate | None:
    day, name = ctx.day, who(ctx)
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
        history_query(now.subject, attribute, day),
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
