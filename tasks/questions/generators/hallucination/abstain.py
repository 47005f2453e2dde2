"""The abstention stratum: questions the history cannot answer, whose gold is a decline.

Three kinds, recorded as `derivation["abstention"]` (fabrication's never-said events are the first; premises.py):
- `never_said`: a plausible event that never happened and was never mentioned (`premises.fabrication`);
- `someone_else`: something said only about another person, asked of the persona ("Which race is Maya training
  for?" when only her brother trains for one): the persona's own facts, plans and profile hold nothing of the kind;
- `only_planned`: something the persona planned that never came true ("When did Maya move into the flat at 4 Mill
  Lane?" when the move fell through): no fact ever made the value true.

The question's evidence is the nearest misleading mention (the other person's fact, the plan that fell through,
the closest real event): what a memory that answers instead of declining answers from. The answer is
`NO_RECORD`; the harness scores an abstention item as a decline or not (tasks/evaluate/judge.py `is_decline`);
exports mark it as LongMemEval's `_abs` items and LoCoMo's adversarial category.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas.world import Event, Fact, Plan
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext
from tasks.questions.generators.kit import date_pool, facts_of_event, plans_by_id, possessive, refs, relations, who

NO_RECORD = "There is no record of it"
KINDS = ("never_said", "someone_else", "only_planned")


PARTNER_ROLES = frozenset({"partner", "fiancé", "fiancée", "fiance", "fiancee", "spouse", "husband", "wife"})
"""Roles that make "Who is <persona> engaged to?" a question with a plausible answer."""


def _never_had(attributes: tuple[str, ...], plan_kinds: tuple[str, ...] = (), belongings: tuple[str, ...] = ()
               ) -> Callable[[QContext], bool]:
    """A check that the persona has no fact of `attributes`, no plan of `plan_kinds` and no belonging of
    `belongings` kinds (so the question about them has no answer of the persona's own)."""

    def check(ctx: QContext) -> bool:
        me = ctx.persona.name
        if "partner" in attributes and any(r.role.lower() in PARTNER_ROLES for r in ctx.persona.profile.relationships):
            return False
        if any(ctx.history(me, a) for a in attributes):
            return False
        if any(p.kind in plan_kinds for p in ctx.world.plans):
            return False
        return not any(b.kind in belongings for b in ctx.persona.profile.belongings)

    return check


SOMEONE_ELSE: dict[str, tuple[str, Callable[[QContext], bool]]] = {
    "race_goal": ("Which race is {p} training for?", _never_had(("race_goal", "race_result"), ("run_race",))),
    "next_holiday": ("Where is {p} going on their next holiday?", _never_had(("next_holiday", "trip"),
                                                                              ("city_trip",))),
    "side_project": ("What side project has {p} started?", _never_had(("side_project",))),
    "club": ("Which club has {p} joined?", _never_had(("club", "gym"), ("join_gym",))),
    "partner": ("Who is {p} engaged to?", _never_had(("partner", "relationship_status"), ("first_date",))),
    "next_city": ("Which city is {p} moving to?", _never_had(("next_city",), ("move_flat",))),
    "pet": ("What pet does {p} have now?", _never_had(("pet",), ("adopt_pet",), ("pet",))),
    "course": ("Which course is {p} taking now?", _never_had(("course",), ("start_course",))),
}
"""Another person's attribute -> the question asking it of the persona, and the check that the persona has none."""

PLAN_KIND = {"move_fell_through": "move_flat", "job_offer_withdrawn": "new_job", "purchase_fell_through": "buy_vehicle"}
"""A failed outcome -> the plan kind whose successes are asked in the same words (the answerable twins)."""
ONLY_PLANNED: dict[str, tuple[str, str, str]] = {
    "move_fell_through": ("home", "When did {p} move into the flat at {address}?",
                          "the move to {address} fell through"),
    "job_offer_withdrawn": ("employer", "When did {p} start working at {company}?",
                            "the job offer from {company} was withdrawn"),
    "purchase_fell_through": ("vehicle", "When did {p} buy the {vehicle}?",
                              "the purchase of the {vehicle} fell through"),
}
"""A failed outcome -> (the attribute it would have set, the question presupposing it happened, what happened)."""


def abstention_candidates(ctx: QContext) -> list[Candidate]:
    """The someone_else and only_planned items (never_said are fabrication's own), and only_planned's twins."""
    return _someone_else(ctx) + _only_planned(ctx) + _planned_twins(ctx)


def answerable_twin(ctx: QContext, template: str, event: Event, plan: Plan, facts: list[Fact],
                    question: str | None = None, priority: int = 0) -> Candidate | None:
    """The same question of a real event ("When did Maya <its plan title>?"), answered by its date: asked beside
    the abstention items of `template`, so a question of that form is not known to be unanswerable before the
    history is read (a system that always declines gets these wrong). `priority` is its abstention sibling's, so
    selection meets both at once."""
    fact_ids = [f.fact_id for f in facts]
    evidence = refs(ctx, fact_ids)
    if not evidence or event.date >= ctx.day:
        return None
    answer, p = event.date.isoformat(), who(ctx)
    return Candidate(
        "hallucination", ("fabrication",), question or f"When did {p} {plan.title}?", answer,
        f"{p} did this on {human_date(event.date)} ({answer}).", template,
        f"SELECT date FROM events WHERE event_id = '{event.event_id}'", tuple(fact_ids), evidence=evidence,
        distractors=date_pool(ctx, event.date), priority=priority,
        extra={"event_ids": [event.event_id], "answerable_twin": True},
    )


def _planned_twins(ctx: QContext) -> list[Candidate]:
    """A move, job or purchase that did happen, asked as only_planned asks one that fell through."""
    p, out = who(ctx), []
    plans = plans_by_id(ctx)
    for event in sorted(ctx.world.events, key=lambda e: (e.date, e.event_id)):
        plan = plans.get(event.plan_id or "")
        failed = next((a for a, k in PLAN_KIND.items() if plan is not None and plan.kind == k), None)
        if failed is None or event.valence != "positive":
            continue
        try:
            question = ONLY_PLANNED[failed][1].format(p=p, **plan.entity)
        except KeyError:
            continue
        facts = facts_of_event(ctx, event.event_id)
        found = answerable_twin(ctx, f"hallucination.fabrication.only_planned.{failed}", event, plan, facts, question)
        if found is not None:
            out.append(found)
    return out


def _candidate(ctx: QContext, kind: str, variant: str, question: str, reference: str, rubric: str, query: str,
               misleading: list[Fact], trap: str, priority: int) -> Candidate | None:
    """An abstention candidate; `trap` is the answer a memory that does not decline would give
    (`misleading_answer`, LoCoMo's `adversarial_answer`)."""
    evidence = refs(ctx, [f.fact_id for f in misleading])
    if not evidence:
        return None
    return Candidate(
        "hallucination", ("fabrication",), question, NO_RECORD, reference,
        f"hallucination.fabrication.{kind}.{variant}", query, tuple(f.fact_id for f in misleading),
        answer_type="long", evidence=evidence, rubric=rubric,
        priority=priority, extra={"abstention": kind, "misleading_fact_ids": [f.fact_id for f in misleading],
                                   "misleading_answer": trap},
    )


def _someone_else(ctx: QContext) -> list[Candidate]:
    p, me, out = who(ctx), ctx.persona.name, []
    roles = relations(ctx, ctx.day)
    seen: set[str] = set()
    for fact in sorted(ctx.world.facts, key=lambda f: (f.valid_from, f.fact_id)):
        if (fact.attribute not in SOMEONE_ELSE or fact.subject == me or fact.attribute in seen
                or fact.valid_from >= ctx.day or fact.subject not in roles):
            continue
        template, free = SOMEONE_ELSE[fact.attribute]
        if not free(ctx):
            continue
        seen.add(fact.attribute)  # one item per attribute: the earliest other person's mention
        role = roles[fact.subject]
        question = template.format(p=p)
        found = _candidate(
            ctx, "someone_else", fact.attribute, question,
            f"There is no record of it: {p} never said anything of the kind about themselves. The nearest mention is "
            f"about someone else: {possessive(p)} {role} {fact.subject} ({fact.value}, told around "
            f"{human_date(fact.valid_from)}).",
            f"Required: says there is no record of this for {p} (or that {p} never mentioned it). Acceptable: "
            f"noting that it was {fact.subject}, {possessive(p)} {role}, who did. Wrong: answering "
            f"'{fact.value}' or anything else as if it were {possessive(p)}.",
            f"SELECT count(*) FROM facts WHERE subject = '{me}' AND attribute = '{fact.attribute}' -- 0 rows; "
            f"nearest: SELECT * FROM facts WHERE fact_id = '{fact.fact_id}'", [fact], fact.value, priority=0)
        if found is not None:
            out.append(found)
            out += _person_twin(ctx, fact, template)
    return out


def _person_twin(ctx: QContext, fact: Fact, template: str) -> list[Candidate]:
    """The someone_else question asked of the person it is true of ("Which race is Daniel Okafor training for?"),
    answered by their value as of the question: in the same template, so its form does not say to decline. Its
    options are other values of the attribute only (`own_distractors`): short answer when there are too few."""
    now = ctx.current(fact.subject, fact.attribute, ctx.day)
    evidence = refs(ctx, [now.fact_id]) if now is not None else ()
    if now is None or not evidence:
        return []
    return [Candidate(
        "hallucination", ("fabrication",), template.format(p=fact.subject), now.value,
        f"{fact.subject}: {now.value} (since {human_date(now.valid_from)}).", f"hallucination.fabrication."
        f"someone_else.{fact.attribute}", f"SELECT value FROM facts WHERE fact_id = '{now.fact_id}'", (now.fact_id,),
        evidence=evidence, priority=0,
        distractors=tuple(dict.fromkeys(f.value for f in ctx.world.facts if f.attribute == fact.attribute
                                        and f.value != now.value)),
        extra={"answerable_twin": True, "own_distractors": True, "subject": fact.subject,
                                                             "attribute": fact.attribute},
    )]


def _only_planned(ctx: QContext) -> list[Candidate]:
    p, me, out = who(ctx), ctx.persona.name, []
    plans = plans_by_id(ctx)
    for fact in sorted(ctx.world.facts, key=lambda f: f.fact_id):
        if fact.attribute not in ONLY_PLANNED or fact.subject != me or fact.valid_from >= ctx.day:
            continue
        target, template, happened = ONLY_PLANNED[fact.attribute]
        event = ctx.events.get(fact.event_id)
        plan = plans.get(event.plan_id or "") if event else None
        if plan is None:
            continue
        try:
            question, what = template.format(p=p, **plan.entity), happened.format(**plan.entity)
        except KeyError:
            continue
        values = " ".join(f.value.lower() for f in ctx.history(me, target))
        if any(str(v).lower() in values for v in plan.entity.values() if len(str(v)) > 3):
            continue  # it came true after all (a later try), or a value named in the plan is the persona's
        found = _candidate(
            ctx, "only_planned", fact.attribute, question,
            f"There is no record of it happening: {p} only planned it, and {what} on {human_date(fact.valid_from)}.",
            "Required: says there is no record of it happening (it was only planned, or it fell through). Wrong: "
            "giving a date or any account of it as done.",
            f"SELECT * FROM facts WHERE fact_id = '{fact.fact_id}' -- the plan's failed outcome; no fact of "
            f"{target} ever took its value", [fact], human_date(fact.valid_from), priority=0)
        if found is not None:
            out.append(found)
    return out
