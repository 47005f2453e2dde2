"""The verifier of the LOOP stage: audits a persona's World against its own rules. Checks: every profile op cites an
existing event and, replayed in order on the initial profile, leaves the profile valid against the Profile schema;
every fact cites an existing event and is not valid before it; every event's narrative carries each of its facts,
and mentions no fact that only becomes true later; every constraint is recorded as a fact over the same interval; no
event rolls out a plan its constraints forbid; and the world's consistency with the ontology and the events'
preconditions (tasks/world/consistency.py: `fact_in_ontology`, `change_rate`, `fact_restates_value`,
`event_fact_ended`, `event_precondition`, `preference_change_uncaused`, `plan_orphaned`, all errors), with a warning
giving the share of pseudo-attribute facts (`pseudo_attributes`: records a domain pack declares, or state attributes
named like one; the core has none). Problems become `Finding` rows of stage "loop".
"""

from __future__ import annotations

from schemas.audit import Finding
from schemas.profile import Persona
from schemas.world import World
from tasks.common.facttext import carries_first, mentions
from tasks.world import consistency
from tasks.world.catalog import KINDS
from tasks.world.evolve import InvalidOp, apply_op, validate_profile
from tasks.world.ontology import Attribute, ontology

STAGE = "loop"


class _Findings:
    def __init__(self, persona_id: str) -> None:
        self.pid, self.rows = persona_id, []

    def flag(self, artifact: str, check: str, message: str, severity: str = "error", suggestion: str = "") -> None:
        self.rows.append(Finding(finding_id=f"{self.pid}-w{len(self.rows) + 1:04d}", persona_id=self.pid,
                                 stage=STAGE, artifact_id=artifact, check=check, severity=severity,
                                 message=message, suggestion=suggestion))


def verify_world(persona: Persona, world: World, attributes: tuple[Attribute, ...] = ()) -> list[Finding]:
    """Findings about one persona's simulated world (an empty list for a sound world); `attributes`: the
    domain pack's, beyond the core ontology."""
    out = _Findings(persona.persona_id)
    check_ops(out, persona, world)
    check_facts(out, world)
    check_narratives(out, world)
    check_constraints(out, world)
    check_consistency(out, persona, world, ontology(attributes))
    return out.rows


def check_consistency(out: _Findings, persona: Persona, world: World, attributes: dict[str, Attribute]) -> None:
    """The ontology, rate and precondition checks, and the pseudo-attribute share (a warning while any remain)."""
    found = consistency.ontology_problems(world, persona.name, attributes)
    found += consistency.rate_problems(world, attributes)
    found += consistency.precondition_problems(world, persona.name)
    found += consistency.cause_problems(world, persona.name) + consistency.plan_problems(world)
    for p in found:
        out.flag(p.artifact_id, p.check, p.message, suggestion=p.suggestion)
    figures = consistency.figures(world, persona.name, attributes)
    if figures["records"]:
        top = sorted(figures["records_by_attribute"].items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        out.flag(persona.persona_id, "pseudo_attributes",
                 f"{figures['records']} of {figures['facts']} facts record an event rather than state "
                 f"({', '.join(f'{a} {n}' for a, n in top)})", "warning",
                 "what happened is an event; give the state it changed an attribute of the ontology")


def check_ops(out: _Findings, persona: Persona, world: World) -> None:
    """Each op cites an existing event on its date or earlier, and the replayed profile stays schema-valid."""
    events = {e.event_id: e for e in world.events}
    profile = persona.profile.model_dump(mode="json")
    for op in world.profile_ops:
        event = events.get(op.event_id)
        if event is None or event.date > op.date:
            out.flag(op.op_id, "op_cites_event", f"{op.op_id} cites {op.event_id}, which does not exist by {op.date}")
        try:
            apply_op(profile, op)
            validate_profile(profile, op)
        except InvalidOp as exc:
            out.flag(op.op_id, "op_schema_valid", str(exc), suggestion="emit only ops the Profile schema accepts")


def check_facts(out: _Findings, world: World) -> None:
    """Each fact cites an existing event, starts no earlier than it, and has a non-empty interval."""
    events = {e.event_id: e for e in world.events}
    for fact in world.facts:
        event = events.get(fact.event_id)
        if event is None:
            out.flag(fact.fact_id, "fact_cites_event", f"{fact.fact_id} cites unknown event {fact.event_id}")
        elif fact.valid_from < event.date:
            out.flag(fact.fact_id, "fact_after_event",
                     f"{fact.fact_id} is valid from {fact.valid_from}, before its event on {event.date}")
        if fact.valid_to is not None and fact.valid_to <= fact.valid_from:
            out.flag(fact.fact_id, "fact_interval", f"{fact.fact_id} has an empty validity interval")


def check_narratives(out: _Findings, world: World) -> None:
    """Each event's narrative states its facts; a narrative naming a fact only true later is flagged."""
    by_event: dict[str, list] = {}
    for fact in world.facts:
        by_event.setdefault(fact.event_id, []).append(fact)
    distinctive = [f for f in world.facts if f.surface_forms and len(f.surface_forms[0].split()) >= 3]
    first_known: dict[str, object] = {}
    for fact in sorted(distinctive, key=lambda f: f.valid_from):
        first_known.setdefault(fact.surface_forms[0].lower(), fact.valid_from)
    for event in world.events:
        own = by_event.get(event.event_id, [])  # none when the outcome restated what already held
        for fact in own:
            if not carries_first(event.narrative, fact):
                out.flag(event.event_id, "narrative_states_fact",
                         f"the narrative of {event.event_id} lacks {fact.surface_forms[:1]} of {fact.fact_id}")
        for fact in distinctive:
            form = fact.surface_forms[0]
            if first_known[form.lower()] > event.date and mentions(event.narrative, form):
                out.flag(event.event_id, "narrative_mentions_unknown_fact",
                         f"the narrative of {event.event_id} states {fact.fact_id}, which only holds from "
                         f"{fact.valid_from}", "warning")


def check_constraints(out: _Findings, world: World) -> None:
    """Each constraint has its fact over the same interval, and no event breaks an active constraint."""
    facts = {(f.event_id, f.value): f for f in world.facts}
    for c in world.constraints:
        fact = facts.get((c.event_id, c.description))
        if fact is None or (fact.valid_from, fact.valid_to) != (c.valid_from, c.valid_to):
            out.flag(c.constraint_id, "constraint_recorded_as_fact",
                     f"{c.constraint_id} has no fact valid exactly while it holds ({c.valid_from} to {c.valid_to}): "
                     "the fact store and the constraint store would disagree")
    plans = {p.plan_id: p for p in world.plans}
    for event in world.events:
        plan = plans.get(event.plan_id or "")
        if plan is None or plan.kind not in KINDS:
            continue
        tags = KINDS[plan.kind].tags_for(plan.entity)
        for c in world.constraints:
            if c.valid_from < event.date < c.valid_to and tags & set(c.blocks):
                out.flag(event.event_id, "plan_respects_constraint",
                         f"{event.event_id} ({plan.title}) happened while {c.constraint_id} ({c.description}) held")
