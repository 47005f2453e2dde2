"""World consistency: the checks that hold a simulated life to the ontology (tasks/world/ontology.py) and to its
events' preconditions, and the figures that say how much of the fact store is state.

Checks (each returns problems; tasks/world/verify.py turns them into findings of stage `loop`):
- `fact_in_ontology` (error): every fact's attribute is declared, for the right holder (the persona, or a
  person of their life).
- `change_rate` (error): no attribute of one holder changes value sooner than its declared rate allows
  (`Attribute.min_days` between two changes; the baseline's initial values are not changes; a change to a vacant
  value such as `unemployed` counts only from the last such change, and the next job from the last job).
- `fact_restates_value` (error): a fact that repeats the value of the fact it would supersede (state did not
  change, so there is no new fact: slot overwriting).
- `event_fact_ended` (error): a fact of an event attribute (what happened at one event) with an end, as if a
  later event had undone it: only state is superseded.
- `event_precondition` (error): an event touching an employer the persona no longer works for (a promotion,
  a restructuring, lunch with a colleague, a work project), or happening while they have no employer.
- `plan_orphaned` (error): a plan due by the world's last event that neither happened nor was cancelled with a
  reason (`blocked_by`).
- `preference_change_uncaused` (error): a favourite café, usual shop, volunteering or doctor changed by a plan
  that records no reason that happened before it (tasks/world/causes.py).

`figures(world, persona_name)` gives the measures of issue 23 for one persona: facts, pseudo-attribute facts
(records: declared ones, and state attributes named like one), event facts, namesake groups the life brought,
restated facts, value changes by attribute, precondition violations.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from schemas.world import Fact, World
from tasks.world.causes import SWITCHES
from tasks.world.evolve import BASELINE_SUFFIX
from tasks.world.ontology import ATTRIBUTES, Attribute

NOT_EMPLOYED = ATTRIBUTES["employer"].vacant
"""The employer values meaning the persona has none (the ontology's vacant values)."""
EMPLOYER_KINDS = frozenset({"promotion", "restructure", "colleague_lunch", "work_project", "retire"})
"""Event kinds that happen at the persona's employer (their plan's entity names it)."""
SELF_EMPLOYED = "self-employed"
BOSS_KINDS = frozenset({"promotion", "restructure"})
"""Event kinds that need an employer other than the persona: nobody promotes or restructures the self-employed."""


@dataclass(frozen=True)
class Problem:
    artifact_id: str
    check: str
    message: str
    suggestion: str = ""


def is_baseline(fact: Fact) -> bool:
    return fact.event_id.endswith(BASELINE_SUFFIX)


def histories(facts: Iterable[Fact]) -> dict[tuple[str, str], list[Fact]]:
    """(subject, attribute) -> its facts in time order."""
    out: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in sorted(facts, key=lambda f: (f.valid_from, f.fact_id)):
        out[(f.subject, f.attribute)].append(f)
    return out


def ontology_problems(world: World, persona_name: str, attributes: dict[str, Attribute]) -> list[Problem]:
    out = []
    for f in world.facts:
        declared = attributes.get(f.attribute)
        if declared is None:
            out.append(Problem(f.fact_id, "fact_in_ontology", f"{f.fact_id}: attribute {f.attribute!r} is not declared",
                               "declare it in tasks/world/ontology.py (or the pack's attributes())"))
        elif declared.holder != "any" and (declared.holder == "persona") != (f.subject == persona_name):
            out.append(Problem(f.fact_id, "fact_in_ontology",
                               f"{f.fact_id}: {f.attribute!r} belongs to the {declared.holder}, not to {f.subject}"))
    return out


def rate_problems(world: World, attributes: dict[str, Attribute]) -> list[Problem]:
    """Changes sooner than the declared rate, facts restating the value they supersede, and event facts that end
    (what happened at an event is never superseded; two alike are two events, not a restatement)."""
    out = []
    for (subject, attribute), facts in histories(world.facts).items():
        declared = attributes.get(attribute)
        if declared is not None and declared.event:
            out += [Problem(f.fact_id, "event_fact_ended", f"{f.fact_id}: what happened at {f.event_id} "
                            f"({attribute} = {f.value!r}) ends on {f.valid_to}, as if a later event undid it",
                            "an event attribute's fact holds from its event on; only state is superseded")
                    for f in facts if f.valid_to is not None]
            continue
        for before, after in zip(facts, facts[1:], strict=False):
            if after.value == before.value and (before.valid_to is None or before.valid_to >= after.valid_from):
                out.append(Problem(after.fact_id, "fact_restates_value",
                                   f"{after.fact_id} restates {subject}'s {attribute} = {after.value!r} "
                                   f"({before.fact_id} already holds it)"))
        if declared is None or declared.min_days is None:
            continue
        arrivals = [f for f in facts if not is_baseline(f) and f.value not in declared.vacant]
        exits = [f for f in facts if not is_baseline(f) and f.value in declared.vacant]
        for before, after in [*zip(arrivals, arrivals[1:], strict=False), *zip(exits, exits[1:], strict=False)]:
            gap = (after.valid_from - before.valid_from).days
            if gap < declared.min_days:
                out.append(Problem(after.fact_id, "change_rate",
                                   f"{subject}'s {attribute} changed {gap} days after {before.fact_id} "
                                   f"({before.value!r} -> {after.value!r}); the ontology allows one change per "
                                   f"{declared.min_days} days"))
    return out


def value_before(facts: list[Fact], day: dt.date, event_id: str) -> str | None:
    """The value a history holds when event `event_id` happens on `day`: the latest of the other events' facts
    begun by then and not ended before the day (one the event itself ends that day still held before it)."""
    value = None
    for f in facts:
        if f.event_id != event_id and f.valid_from <= day and (f.valid_to is None or f.valid_to >= day):
            value = f.value
    return value


def precondition_problems(world: World, persona_name: str) -> list[Problem]:
    """Events at an employer the persona does not work for on the day (or with no employer at all)."""
    employer = histories(world.facts).get((persona_name, "employer"), [])
    plans = {p.plan_id: p for p in world.plans}
    out = []
    for event in world.events:
        plan = plans.get(event.plan_id or "")
        if plan is None or plan.kind not in EMPLOYER_KINDS:
            continue
        now = value_before(employer, event.date, event.event_id)
        named = plan.entity.get("employer")
        if now is None or now in NOT_EMPLOYED:
            out.append(Problem(event.event_id, "event_precondition",
                               f"{event.event_id} ({event.kind}) happens while {persona_name} has no employer "
                               f"({now or 'none recorded'})"))
        elif now == SELF_EMPLOYED and plan.kind in BOSS_KINDS:
            out.append(Problem(event.event_id, "event_precondition",
                               f"{event.event_id} ({event.kind}) happens while {persona_name} is self-employed"))
        elif named is not None and named != now:
            out.append(Problem(event.event_id, "event_precondition",
                               f"{event.event_id} ({event.kind}) happens at {named}, but on {event.date} "
                               f"{persona_name} works at {now}"))
    return out


def plan_problems(world: World) -> list[Problem]:
    """Orphaned plans: scheduled on or before the world's last event, neither rolled out (no event cites it)
    nor cancelled with a reason (`blocked_by`)."""
    if not world.events:
        return []
    last = max(e.date for e in world.events)
    done = {e.plan_id for e in world.events if e.plan_id}
    return [Problem(p.plan_id, "plan_orphaned", f"{p.plan_id} ({p.title}) was due on {p.scheduled_for} but neither "
                    "happened nor was cancelled with a reason", "roll it out or record why it was cancelled")
            for p in world.plans if p.scheduled_for <= last and p.plan_id not in done and not p.blocked_by]


def cause_problems(world: World, persona_name: str) -> list[Problem]:
    """Changes of a preference (tasks/world/causes.py) without a recorded reason: the plan that changed it names
    no event, or one that did not happen by then."""
    switched = {s.attribute for s in SWITCHES.values()}
    events, plans = {e.event_id: e for e in world.events}, {p.plan_id: p for p in world.plans}
    out = []
    for (subject, attribute), facts in histories(world.facts).items():
        if subject != persona_name or attribute not in switched:
            continue
        for before, after in zip(facts, facts[1:], strict=False):
            event = events.get(after.event_id)
            plan = plans.get(event.plan_id or "") if event else None
            if after.value == before.value or plan is None:
                continue
            cause = events.get(plan.entity.get("cause_event", ""))
            if cause is None or cause.date > event.date:
                out.append(Problem(after.fact_id, "preference_change_uncaused",
                                   f"{persona_name}'s {attribute} changed from {before.value!r} to {after.value!r} "
                                   f"({event.event_id}) with no reason recorded before it",
                                   "a preference changes after a bad experience there or a move (causes.py)"))
    return out


def namesakes_from_life(world: World) -> int:
    """First-name groups among the world's people (two or more full names) that someone met after the start
    belongs to: confusable entities the life brought, not the ones planted at the start."""
    people = [e for e in world.entities if e.kind == "person" and len(e.name.split()) > 1
              and not e.name.split()[0].endswith(".")]
    if not people:
        return 0
    start = min(e.first_seen for e in people)
    groups: dict[str, list] = defaultdict(list)
    for e in people:
        groups[e.name.split()[0]].append(e)
    return sum(1 for g in groups.values() if len({e.name for e in g}) > 1 and any(e.first_seen > start for e in g))


def figures(world: World, persona_name: str, attributes: dict[str, Attribute]) -> dict[str, object]:
    """The issue-23 measures of one persona's world (see the module doc)."""
    records = Counter(f.attribute for f in world.facts if (a := attributes.get(f.attribute)) and a.record)
    events = sum(1 for f in world.facts if (a := attributes.get(f.attribute)) and a.event)
    changes: Counter = Counter()
    for (subject, attribute), facts in histories(world.facts).items():
        declared = attributes.get(attribute)
        if subject != persona_name or (declared is not None and declared.event):  # events change no state
            continue
        pairs = zip(facts, facts[1:], strict=False)
        changes[attribute] += sum(1 for before, after in pairs if after.value != before.value)
    restated = sum(1 for p in rate_problems(world, attributes) if p.check == "fact_restates_value")
    return {"facts": len(world.facts), "records": sum(records.values()), "records_by_attribute": dict(records),
            "event_facts": events,
            "restated": restated, "changes": dict(changes),
            "precondition_violations": len(precondition_problems(world, persona_name)),
            "uncaused_preference_changes": len(cause_problems(world, persona_name)),
            "namesakes_from_life": namesakes_from_life(world)}
