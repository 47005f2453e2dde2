"""Stage `loop`: RHELM's LOOP simulator, one persona day by day.

Each day: pLan (maybe create plans for later days, kinds from tasks/world/catalog.py, conditioned on the
current profile, on pending commitments and on active constraints), rOllout (every plan due today
becomes an Event, positive with probability `rollout_p`, narrated through the `outcome` prompt; a plan
that an active constraint now forbids is cancelled with `blocked_by`), evOlve (factual phase: Facts and
profile changes; state phase: mood, health, hobbies, lifestyle, ongoing matters, and for critical
outcomes a lasting Constraint recorded as a fact with its validity interval) and, every
`prune_interval` days, Prune (finished matters, expired constraints and the transient preferences they
held are removed). The first day also holds the baseline event whose facts restate the initial
profile. All randomness comes from `rng_for(seed, persona, "loop", day, purpose)`; the world model
decides every fact, the narrator only words it. Narration never feeds back into the simulation, so each
event's `outcome` call is prepared (its context frozen) when the event happens and all of a persona's
events are narrated at the end with one concurrent `generate_many`, in event order.

The domain pack (`tasks.domains.pack_for(config)`) adds its own events: `schedule` dates them,
`baseline_facts` joins the baseline event, each day's due events are rolled out after the plans
(`roll_out`: facts in the factual phase, profile paths in the state phase, rows of the pack's tables
into `World.extras`), and the pack words them after the simulation (`narrate`). The general pack adds
nothing, so its worlds are exactly the core's.
"""

from __future__ import annotations

import copy
import datetime as dt
import random
from collections.abc import Collection
from typing import Any

from schemas.config import BuildConfig
from schemas.profile import Persona
from schemas.world import Event, EventNarration, Plan, ProfileSnapshot, World
from tasks.common.rng import rng_for
from tasks.domains.base import DomainPack, PackOutcome, ScheduledEvent
from tasks.llm.gateway import CallSpec, Gateway
from tasks.world import ages, banks, causes
from tasks.world.catalog import KINDS, EventKind, Outcome
from tasks.world.consistency import BOSS_KINDS, EMPLOYER_KINDS, NOT_EMPLOYED, SELF_EMPLOYED
from tasks.world.drafts import baseline_drafts, constraint_draft, constraint_of, fact_drafts, outcome_context
from tasks.world.entities_life import employed
from tasks.world.evolve import HOBBIES_PATH, FactDraft, Matter, WorldState, facts_valid_at
from tasks.world.ontology import Attribute, event_names, ontology
from tasks.world.scheduling import Scheduling, plan_names
from tasks.world.standing import collect_entities, new_colleagues, standing_world

__all__ = ["simulate", "facts_valid_at", "baseline_drafts", "fact_drafts", "outcome_context", "plan_names"]
_PEOPLE_FIELDS = ("friend", "relative", "companion", "person", "partner")  # people the plan needs in the life
TRANSITIONS = tuple(k for k in KINDS.values() if k.yearly is not None)


def simulate(config: BuildConfig, persona: Persona, gateway: Gateway, pack: DomainPack | None = None) -> World:
    """Run LOOP for one persona from config.start_date to config.end_date and return its World
    (`pack`: the domain pack, default `pack_for(config)`)."""
    sim = _Simulation(config, persona, gateway, pack)
    day = config.start_date
    while day <= config.end_date:
        sim.live(day)
        day += dt.timedelta(days=1)
    sim.narrate_all()
    return sim.world()


def pack_for(config: BuildConfig) -> DomainPack:
    """The build's domain pack; the general pack when the registry cannot be imported."""
    try:
        from tasks.domains import pack_for as registry_pack_for
    except ImportError:
        return DomainPack()
    return registry_pack_for(config)


class _Simulation(Scheduling):
    def __init__(self, config: BuildConfig, persona: Persona, gateway: Gateway, pack: DomainPack | None = None) -> None:
        pack = pack or pack_for(config)
        self.config, self.persona, self.gateway, self.pack = config, persona, gateway, pack
        self.pid = persona.persona_id
        self.attributes = ontology(pack.attributes())
        self.state = WorldState(self.pid, persona.profile.model_dump(mode="json"),
                                event_attributes=event_names(self.attributes))
        self.standing = standing_world(self.rng(config.start_date, "standing-world"), self.state.profile,
                                       config.start_date)
        self.plans: list[Plan] = []
        self.pending: list[Plan] = []
        self.titles: set[str] = set()
        self.plan_by_id: dict[str, Plan] = {}
        self.events: list[Event] = []
        self.cues: list[Event] = []  # events that may be a reason to change a preference (causes.is_cue)
        self.born = ages.births(self.rng(config.start_date, "births"), self.state.profile, config.start_date)
        self.stages = ages.stages(self.born, self.state.profile["identity"]["country"], config.start_date,
                                  config.end_date, self.rng(config.start_date, "stages"))
        self.snapshots: list[ProfileSnapshot] = []
        self.last_done: dict[str, dt.date] = {}
        self.kept_from: dict[str, dict[str, str]] = {}  # persona attribute -> the entity of the plan that set it
        self.narrations: list[CallSpec] = []
        self.narrated: list[str] = []  # ids of the events whose `outcome` call is queued, in order
        self.scheduled = sorted(pack.schedule(config, persona), key=lambda s: (s.date, s.kind))
        self.owned = pack.owned_kinds(self.scheduled)
        self.pack_events: list[tuple[Event, PackOutcome]] = []
        self.extras: dict[str, list[Any]] = {}

    def rng(self, day: dt.date, purpose: str) -> random.Random:
        return rng_for(self.config.seed, self.pid, "loop", day, purpose)

    def live(self, day: dt.date) -> None:
        ops_before = len(self.state.ops)
        if day == self.config.start_date:
            self.baseline(day)
        self.plan_stages(day)
        self.make_plans(day)
        for plan in sorted((p for p in self.pending if p.scheduled_for == day), key=lambda p: p.plan_id):
            self.roll_out(plan, day)
        for scheduled in [s for s in self.scheduled if s.date == day]:
            self.roll_out_pack(scheduled, day)
        index = (day - self.config.start_date).days
        if index > 0 and index % self.config.prune_interval == 0:
            self.state.prune(day)
        if day == self.config.start_date or len(self.state.ops) > ops_before:
            self.snapshots.append(
                ProfileSnapshot(persona_id=self.pid, as_of=day, profile=self.state.snapshot())
            )

    def baseline(self, day: dt.date) -> None:
        drafts = baseline_drafts(self.state.profile, self.persona.name)
        drafts += ages.baseline_drafts(self.born, day)
        drafts += self.pack.baseline_facts(self.config, self.persona)
        event_id = f"{self.pid}-e0000"
        info = {"kind": "baseline", "title": "baseline", "valence": "positive", "severity": 1}
        self.record_event(day, event_id, None, info, False)
        self.narrate(day, info, {}, drafts)
        self.state.commit_facts(drafts, event_id, day)
        rng = self.rng(day, "baseline-matters")
        for text in self.state.profile["current_status"]["ongoing_matters"]:
            until = day + dt.timedelta(days=rng.randint(20, 75))
            self.state.matters.append(Matter(text, event_id, until))

    def plan_transitions(self, day: dt.date) -> None:
        """Each life transition (`EventKind.yearly`) possible today is planned with its daily chance."""
        rng = self.rng(day, "transitions")
        for kind in TRANSITIONS:
            if rng.random() < kind.yearly(self.state.profile) / 365 and self.possible(kind, day):
                self.add_plan(rng, kind, day)

    def make_plans(self, day: dt.date) -> None:
        self.plan_transitions(day)
        rng, options = self.rng(day, "plan"), self.config.stages.loop
        if rng.random() >= options.plan_probability:
            return
        for _ in range(rng.randint(1, options.max_plans_per_day)):
            tried: set[str] = set()
            while (kind := self.pick_kind(rng, day, tried)) is not None and not self.add_plan(rng, kind, day):
                tried.add(kind.key)  # a plan that cannot be made today (no news from anyone yet) makes way

    def pick_kind(self, rng: random.Random, day: dt.date, tried: Collection[str] = ()) -> EventKind | None:
        """A kind drawn by weight among those possible today and not `tried` (life transitions are planned
        apart)."""
        eligible = [k for k in KINDS.values() if k.yearly is None and not k.scheduled and k.key not in tried
                    and self.possible(k, day)]
        return rng.choices(eligible, weights=[k.weight for k in eligible])[0] if eligible else None

    def possible(self, kind: EventKind, day: dt.date) -> bool:
        """Not already pending, rested, possible for the current profile, not forbidden today, not left to the
        domain pack, and not a change sooner than the ontology's rate allows."""
        return (kind.key not in {p.kind for p in self.pending} and kind.key not in self.owned
                and self.rested(kind, day) and not kind.tags & self.state.blocked_tags(day)
                and kind.requires(self.state.profile) and self.too_soon(kind, day) is None
                and (kind.keep is not None or self.may_switch(kind, day)))

    def rested(self, kind: EventKind, day: dt.date) -> bool:
        last = self.last_done.get(kind.key)
        return last is None or (day - last).days >= kind.cooldown_for(not employed(self.state.profile))

    def rate_bound(self, outcome: Outcome, entity: dict[str, str] | None = None) -> list[tuple[str, Attribute]]:
        """(subject field, attribute) for the rate-bound attributes `outcome` may change; the subject field is
        "persona" or the entity field naming the person (without `entity`, attributes an entity field names are
        unknown and left out)."""
        found = {(s.subject, s.attribute_for(entity)) for s in outcome.facts}
        return [(subject, a) for subject, name in sorted(found, key=str)
                if name and (a := self.attributes.get(name)) is not None and a.min_days is not None]

    def too_soon(self, kind: EventKind, day: dt.date, entity: dict[str, str] | None = None,
                 valence: str = "positive") -> str | None:
        """The first attribute the `valence` outcome of `kind` (by default the one a plan is made for) would change
        sooner than the ontology's rate allows on `day`. Without `entity` (choosing a kind) only the persona's
        attributes are known, and a routine that can keep its value (`keep`) is never too soon; with it, a
        person's attributes count too, and only the values the outcome would really change (a lunch restating a
        colleague's team changes nothing)."""
        outcome = kind.outcome(valence)
        for field_name, attribute in self.rate_bound(outcome, entity):
            if entity is None and (field_name != "persona" or kind.keep == attribute.name):
                continue
            specs = [s.value for s in outcome.facts
                     if s.subject == field_name and s.attribute_for(entity) == attribute.name]
            leaving = set(specs) <= set(attribute.vacant)  # a layoff counts from the last layoff, a job from a job
            subject = self.persona.name if field_name == "persona" else entity[field_name]
            dates = [d for d, v in self.state.history.get((subject, attribute.name), [])
                     if (v in attribute.vacant) == leaving]
            if not dates or (day - dates[-1]).days >= attribute.min_days:
                continue
            if entity is not None:
                now = self.state.current(subject, attribute.name, day)
                if {v.format(**entity) for v in specs} <= {now, *attribute.vacant}:
                    continue
            return attribute.name
        return None

    def kept(self, kind: EventKind, entity: dict[str, str], day: dt.date, rng: random.Random) -> dict[str, str]:
        """`entity` with the fields of `kind.keep`'s current value taken from the plan that set it, with
        probability `keep_share` and always while a change would come too soon; a preference (tasks/world/
        causes.py) is kept unless there is a reason to change it, and then with probability 1 - SWITCH_SHARE."""
        source = self.kept_from.get(kind.keep or "")
        if source is None or self.state.current(self.persona.name, kind.keep, day) is None:
            return entity
        keep = 1 - causes.SWITCH_SHARE if kind.key in causes.SWITCHES else kind.keep_share
        switch = causes.SWITCHES.get(kind.key)
        same = switch is not None and entity.get(switch.field) == source.get(switch.field)  # back at the same place:
        fields = kind.value_fields(kind.keep) + kind.keep_with  # the same task there, not a change with no reason
        if (rng.random() < keep or same or self.too_soon(kind, day, entity) is not None
                or not self.may_switch(kind, day)):
            return entity | {f: source[f] for f in fields if f in source}
        return entity

    def reason(self, kind: EventKind, day: dt.date) -> causes.Reason | None:
        """The reason to change the preference `kind` switches (tasks/world/causes.py), if there is one."""
        switch = causes.SWITCHES[kind.key]
        key = (self.persona.name, switch.attribute)
        since = self.state.history[key][-1][0] if self.state.history.get(key) else self.config.start_date
        return causes.reason(switch, self.state.current(*key, day), since, self.cues, self.plan_by_id)

    def may_switch(self, kind: EventKind, day: dt.date) -> bool:
        """A kind switching a preference may change it: there is none yet, or there is a reason."""
        if kind.key not in causes.SWITCHES:
            return True
        held = self.state.current(self.persona.name, causes.SWITCHES[kind.key].attribute, day)
        return held is None or self.reason(kind, day) is not None

    def with_reason(self, kind: EventKind, entity: dict[str, str], day: dt.date) -> dict[str, str]:
        """`entity` with the reason for the change it makes recorded (`cause_event`, `cause`), when it changes a
        preference the persona already has."""
        switch = causes.SWITCHES.get(kind.key)
        current = self.state.current(self.persona.name, switch.attribute, day) if switch else None
        if switch is None or current is None:
            return entity
        value = entity.get(switch.field, "")
        if current == value or current.endswith(f" at {value}"):
            return entity
        found = self.reason(kind, day)
        return entity | found.entity() if found else entity

    def add_plan(self, rng: random.Random, kind: EventKind, day: dt.date) -> bool:
        """Schedule a plan on a day with room among existing commitments, unless a constraint forbids it; True when
        the plan was made."""
        horizon = "long" if rng.random() < kind.long_share else "short"
        first = 1 if day == self.config.start_date else 0
        offset = rng.randint(7, 30) if horizon == "long" else rng.randint(first, 3)
        entity = self.draw_entity(rng, kind, day)
        if self.too_soon(kind, day, entity) is not None:  # a person's attribute changed lately (a breakup, say)
            return False
        keys = self.fact_keys(kind, entity)
        when = self.free_day(day + dt.timedelta(days=offset), 3 if horizon == "short" else 30, day, keys,
                             plan_names(entity))
        if when is None or self.state.blocker(kind.tags_for(entity), when) is not None:
            return False
        self.new_plan(kind, entity, day, when, horizon)
        return True

    def draw_entity(self, rng: random.Random, kind: EventKind, day: dt.date) -> dict[str, str]:
        titles = self.titles  # every plan's title so far
        view = self.state.profile | {"_world": self.standing}
        for _ in range(12):  # a new title, and news of someone whose life may change now (else another's)
            entity = kind.draw(rng, view)
            if kind.title_for(entity) not in titles and (kind.keep is not None
                                                         or self.too_soon(kind, day, entity) is None):
                break
        entity = self.kept(kind, entity, day, rng) if kind.keep is not None else entity
        return self.with_reason(kind, entity, day)

    def roll_out(self, plan: Plan, day: dt.date) -> None:
        self.pending.remove(plan)
        blocker = self.state.blocker(KINDS[plan.kind].tags_for(plan.entity), day)
        cause = blocker.constraint_id if blocker is not None else self.impossible(plan, day)
        if cause is not None:
            self.cancel(plan, cause)
            return
        rng = self.rng(day, f"rollout:{plan.plan_id}")
        valence = "positive" if rng.random() < self.config.rollout_p else "negative"
        too_soon = self.too_soon(KINDS[plan.kind], day, plan.entity, valence)
        if too_soon is not None:  # a second illness (injury, breakup) this soon is what the rate makes rare
            self.cancel(plan, f"rate:{too_soon}")
            return
        outcome = KINDS[plan.kind].outcome(valence)
        severity = min(5, rng.randint(1, 3) + (2 if outcome.critical else 0))
        event_id = f"{self.pid}-e{len(self.events):04d}"
        number = len(self.state.constraints) + 1
        held = self.state.holding(outcome.constraint.kind, day) if outcome.constraint else []
        constraint = constraint_of(outcome, plan.entity, self.pid, number, event_id, day, rng, held)
        if constraint is not None and any(c.description == constraint.description for c in held):
            constraint = None  # the restriction already holds, unchanged
        drafts = fact_drafts(outcome, plan.entity, self.persona.name)
        if constraint is not None:
            drafts.append(constraint_draft(constraint, self.persona.name, outcome.constraint.short))
        drafts = self.state.changes(drafts, day)
        info = {"kind": plan.kind, "title": plan.title, "valence": valence, "severity": severity}
        self.record_event(day, event_id, plan.plan_id, info, outcome.critical)
        self.narrate(day, info, plan.entity, drafts)
        self.evolve_facts(drafts, outcome, plan.entity, event_id, day)
        for draft in drafts:
            if draft.subject == self.persona.name:
                self.kept_from[draft.attribute] = plan.entity
        self.evolve_state(rng, day, event_id, outcome, plan.entity, valence)
        if constraint is not None:
            self.state.add_constraint(constraint)
        self.follow_employer(day)
        self.last_done[plan.kind] = day

    def roll_out_pack(self, scheduled: ScheduledEvent, day: dt.date) -> None:
        """Roll out one of the pack's events: record it, commit its facts, set its state, keep its rows."""
        event_id = f"{self.pid}-e{len(self.events):04d}"
        outcome = self.pack.roll_out(self.config, self.persona, self.state, scheduled, event_id, list(self.events))
        info = {"kind": scheduled.kind, "valence": outcome.valence, "severity": outcome.severity}
        self.record_event(day, event_id, None, info, outcome.critical)
        self.state.commit_facts(self.state.changes(outcome.drafts, day), event_id, day)
        for path, value in outcome.state.items():
            self.state.set_path(path, value, day, event_id, "state")
        for table, rows in outcome.rows.items():
            self.extras.setdefault(table, []).extend(rows)
        self.pack_events.append((self.events[-1], outcome))
        self.follow_employer(day)

    def follow_employer(self, day: dt.date) -> None:
        """A new employer brings new colleagues (none while the persona has no employer)."""
        if self.state.profile["identity"]["employer"] != self.standing["employer"]:
            self.standing = new_colleagues(self.rng(day, "new-colleagues"), self.state.profile, self.standing, day)

    def impossible(self, plan: Plan, day: dt.date) -> str | None:
        """Why the plan can no longer happen on `day`, if it cannot: the profile no longer allows its kind
        (`profile`), a person it names is gone (`precondition:person`), it happens at an employer the persona
        has left or while they have none (`precondition:employer`), or the change it would make comes sooner
        than the ontology's rate allows (`rate:<attribute>`)."""
        kind = KINDS[plan.kind]
        if not kind.requires(self.state.profile):
            return "profile"
        names = {r["name"] for r in self.state.profile["relationships"]}
        if any(plan.entity[k] not in names for k in _PEOPLE_FIELDS if k in plan.entity):
            return "precondition:person"
        if plan.kind in EMPLOYER_KINDS:
            employer = self.state.profile["identity"]["employer"]
            if employer in NOT_EMPLOYED or plan.entity.get("employer", employer) != employer:
                return "precondition:employer"
            if employer == SELF_EMPLOYED and plan.kind in BOSS_KINDS:
                return "precondition:employer"
        too_soon = self.too_soon(kind, day, plan.entity)
        return f"rate:{too_soon}" if too_soon else None

    def evolve_facts(self, drafts: list[FactDraft], outcome: Outcome, entity: dict[str, str], event_id: str,
                     day: dt.date) -> None:
        """Factual phase: commit the facts (and their profile paths), then remove what the outcome ends."""
        self.state.commit_facts(drafts, event_id, day)
        for path in outcome.removes:
            self.state.remove_path(path.format(**entity), day, event_id, "factual")

    def evolve_state(
        self,
        rng: random.Random,
        day: dt.date,
        event_id: str,
        outcome: Outcome,
        entity: dict[str, str],
        valence: str,
    ) -> None:
        """State phase: mood, health, hobbies, lifestyle and ongoing matters."""
        moods = banks.MOODS_GOOD if valence == "positive" else banks.MOODS_BAD
        current = self.state.profile["current_status"]["mood"]
        mood = rng.choice([m for m in moods if m != current])
        self.state.set_path("current_status.mood", mood, day, event_id, "state")
        matter = outcome.matter
        health = outcome.health or (matter.health if matter else None)
        if health:
            self.state.set_path("current_status.health", health.format(**entity), day, event_id, "state")
        if outcome.hobby:
            self.state.add_to_list(HOBBIES_PATH, outcome.hobby.format(**entity), day, event_id, "state")
        if outcome.lifestyle:
            self.state.set_path("traits.lifestyle", outcome.lifestyle, day, event_id, "state")
        if matter:
            until = day + dt.timedelta(days=rng.randint(*matter.days))
            after = matter.health_after.format(**entity) if matter.health_after else None
            clears = matter.clears.format(**entity) if matter.clears else None
            self.state.add_matter(Matter(matter.text.format(**entity), event_id, until, after, clears), day)

    def narrate(self, day: dt.date, info: dict[str, Any], entity: dict[str, str], drafts: list[FactDraft]) -> None:
        """Queue the event's `outcome` call with its context as of now; the narrative is attached later."""
        event = info | {"date": day.isoformat(), "weekday": day.strftime("%A")}
        context = copy.deepcopy(outcome_context(self.state.profile, event, entity, drafts))
        self.narrations.append(CallSpec("outcome", context, EventNarration, "loop", self.pid))
        self.narrated.append(self.events[-1].event_id)

    def narrate_all(self) -> None:
        """Narrate every event at once (concurrently on live providers) and attach the narratives; the
        pack then words its own events and updates its rows."""
        results = self.gateway.generate_many(self.narrations)
        texts = {event_id: r.narrative for event_id, r in zip(self.narrated, results, strict=True)}
        if self.pack_events:
            narratives, rows = self.pack.narrate(self.config, self.persona, self.gateway, self.pack_events)
            texts |= {event.event_id: text for (event, _), text in zip(self.pack_events, narratives, strict=True)}
            self.extras |= rows
        self.events = [event.model_copy(update={"narrative": texts[event.event_id]}) for event in self.events]
        self.narrations, self.narrated, self.pack_events = [], [], []

    def record_event(
        self,
        day: dt.date,
        event_id: str,
        plan_id: str | None,
        info: dict[str, Any],
        critical: bool,
    ) -> None:
        """Record the event; its narrative is attached by `narrate_all`."""
        self.events.append(
            Event(
                event_id=event_id,
                persona_id=self.pid,
                date=day,
                plan_id=plan_id,
                kind=info["kind"],
                valence=info["valence"],
                severity=info["severity"],
                critical=critical,
                narrative="",
            )
        )
        if causes.is_cue(info["kind"], info["valence"]):
            self.cues.append(self.events[-1])

    def world(self) -> World:
        profile = self.persona.profile.model_dump(mode="json")
        entities = collect_entities(self.pid, profile, self.standing, self.plans, self.config.start_date)
        return World(
            plans=self.plans,
            events=self.events,
            facts=self.state.facts,
            profile_ops=self.state.ops,
            profile_snapshots=self.snapshots,
            constraints=self.state.constraints,
            entities=entities,
            extras=self.extras,
        )
