"""LOOP's scheduling, kept apart from tasks/world/loop.py: on which day a drawn plan can go (`free_day`: room under
the daily cap, no clash with a pending plan on the same fact or name), and the life-stage plans of a long life
(`plan_stages`: birthdays, first days at school, a parent's retirement from tasks/world/ages.py), planned on
their own day whatever the cap, LEAD_DAYS ahead so that the plans drawn around them keep clear of them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from schemas.config import BuildConfig
from schemas.profile import Persona
from schemas.world import Plan
from tasks.common.facttext import value_names
from tasks.world import ages
from tasks.world.catalog import KINDS, EventKind


def plan_names(entity: dict[str, str]) -> frozenset[str]:
    """The proper names a plan's entity gives (a restaurant, a friend, a city; lower case), less those of the
    earlier event it came of (`cause`, `cause_event`)."""
    return frozenset(n.lower() for key, value in entity.items() if key not in ("cause", "cause_event")
                     for n in value_names(str(value)) if len(n) > 2)


class Scheduling:
    """The simulator's scheduling (a mixin of tasks/world/loop.py's _Simulation)."""

    config: BuildConfig
    persona: Persona
    pid: str
    plans: list[Plan]
    pending: list[Plan]
    titles: set[str]
    plan_by_id: dict[str, Plan]
    stages: list[ages.Stage]
    """The life-stage events still to plan, by day."""

    def free_day(self, wanted: dt.date, limit: int, today: dt.date,
                 keys: frozenset[tuple[str, str]] = frozenset(),
                 names: frozenset[str] = frozenset()) -> dt.date | None:
        """`wanted`, or the next day within `limit` days of today with fewer commitments than the daily cap and
        no pending plan that may state a fact on the same (subject, attribute) as `keys` or names one of `names`.

        Two rollouts that day writing one key would make the first fact superseded on the day it begins: an
        empty validity interval (a call and a visit both bringing news of one friend, say). Two plans that day
        naming one place or person would make the day's texts say of one what is true of the other (an evening
        at Casa Lolita called off and a dinner at Casa Lolita that went well: `we never made it to Casa Lolita`
        is then about both), and a question naming the place and the day would have two answers."""
        cap = self.config.stages.loop.max_plans_per_day
        busy = [p.scheduled_for for p in self.pending]

        def clashes(day: dt.date) -> bool:
            return any(p.scheduled_for == day and (keys & self.fact_keys(KINDS[p.kind], p.entity)
                                                   or names & plan_names(p.entity))
                       for p in self.pending)

        day = wanted
        while busy.count(day) >= cap or clashes(day):
            day += dt.timedelta(days=1)
        return day if (day - today).days <= limit else None

    def fact_keys(self, kind: EventKind, entity: dict[str, str]) -> frozenset[tuple[str, str]]:
        """Every (subject, attribute) a rollout of `kind` for `entity` may state, whichever its valence."""
        name = self.persona.name
        keys = set()
        for outcome in (kind.positive, kind.negative):
            keys |= {(name if s.subject == "persona" else entity[s.subject], s.attribute_for(entity))
                     for s in outcome.facts}
            if outcome.constraint is not None:
                keys.add((name, outcome.constraint.kind))
        return frozenset(keys)

    def plan_stages(self, day: dt.date) -> None:
        """Plan the life-stage events due LEAD_DAYS from `day` (on the first day, all those due sooner)."""
        while self.stages and self.stages[0].planned_on <= day:
            stage = self.stages.pop(0)
            self.new_plan(KINDS[stage.kind], stage.entity, day, stage.day, "long")

    def new_plan(self, kind: EventKind, entity: dict[str, Any], day: dt.date, when: dt.date, horizon: str) -> Plan:
        """Record a plan made on `day` for `when` as pending."""
        plan = Plan(plan_id=f"{self.pid}-l{len(self.plans) + 1:04d}", persona_id=self.pid, created_on=day,
                    horizon=horizon, scheduled_for=when, title=kind.title_for(entity), kind=kind.key, entity=entity)
        self.plans.append(plan)
        self.pending.append(plan)
        self.titles.add(plan.title)
        self.plan_by_id[plan.plan_id] = plan
        return plan

    def cancel(self, plan: Plan, cause: str) -> None:
        """Record why a due plan did not happen (`blocked_by`): a plan's place in `plans` is its number."""
        self.plans[int(plan.plan_id.rsplit("-l", 1)[1]) - 1] = plan.model_copy(update={"blocked_by": cause})
