"""What the LOOP stage commits and narrates, drafted from the catalog: the baseline facts of the initial profile,
the facts an outcome establishes for a plan's entity, the lasting constraint a critical outcome imposes (replacing
one of its kind still holding) and its fact, and the context the `outcome` prompt narrates an event from."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from schemas.world import Constraint
from tasks.common.timeutil import human_date
from tasks.world import banks
from tasks.world.catalog import FactSpec, Outcome
from tasks.world.evolve import FactDraft
from tasks.world.ontology import ATTRIBUTES

_SPECIAL_BELONGINGS = ("home", "vehicle", "pet")



def baseline_drafts(profile: dict[str, Any], name: str) -> list[FactDraft]:
    """The facts the initial profile states: job, city, a hobby, belongings, each relationship's role."""
    ident = profile["identity"]
    drafts = [FactDraft(name, "occupation", ident["occupation"], (ident["occupation"],))]
    if ident["employer"] not in ATTRIBUTES["employer"].vacant:
        drafts.append(FactDraft(name, "employer", ident["employer"], (ident["employer"],)))
    drafts.append(FactDraft(name, "city", ident["city"], (ident["city"],)))
    if profile["traits"]["hobbies"]:
        hobby = profile["traits"]["hobbies"][0]
        drafts.append(FactDraft(name, "hobby", hobby, (hobby,)))
    drafts += [_belonging_draft(item, name) for item in profile["belongings"]]
    for person in profile["relationships"]:
        role = person["role"]
        drafts.append(FactDraft(person["name"], "relationship", role, (f"{role} {person['name']}", role)))
    seen: set[tuple[str, str]] = set()
    return [d for d in drafts if not ((d.subject, d.attribute) in seen or seen.add((d.subject, d.attribute)))]



def fact_drafts(outcome: Outcome, entity: dict[str, str], persona_name: str) -> list[FactDraft]:
    """The facts an outcome establishes for a plan's entity (values and surface forms filled in)."""
    return [_draft(spec, entity, persona_name) for spec in outcome.facts]



def _draft(spec: FactSpec, entity: dict[str, str], persona_name: str) -> FactDraft:
    subject = persona_name if spec.subject == "persona" else entity[spec.subject]
    value = spec.value.format(**entity)
    forms = tuple(dict.fromkeys([value] + [f.format(**entity) for f in spec.forms]))
    path = spec.path.format(**entity) if spec.path else None
    writes = spec.writes.format(**entity) if spec.writes else None
    return FactDraft(subject, spec.attribute_for(entity), value, forms, path, path_value=writes)



def constraint_of(outcome: Outcome, entity: dict[str, str], persona_id: str, number: int, event_id: str,
                  day: dt.date, rng: random.Random, held: list[Constraint] = ()) -> Constraint | None:
    """The lasting constraint a critical outcome imposes, from `day` for a drawn number of days. `held`: the
    constraints of the same kind holding on `day`, which the new one replaces: it lasts at least as long and
    forbids at least what they forbid, so replacing them lifts nothing early."""
    spec = outcome.constraint
    if spec is None:
        return None
    until = max([day + dt.timedelta(days=rng.randint(*spec.days))] + [c.valid_to for c in held])
    blocks = set(spec.blocks).union(*(c.blocks for c in held))
    return Constraint(
        constraint_id=f"{persona_id}-c{number:04d}", persona_id=persona_id, event_id=event_id, kind=spec.kind,
        description=spec.text.format(**entity, until=human_date(until)), blocks=sorted(blocks),
        valid_from=day, valid_to=until,
    )



def constraint_draft(constraint: Constraint, persona_name: str, short: str) -> FactDraft:
    """The fact recording a constraint, valid exactly while the constraint holds."""
    forms = (constraint.description, short)
    return FactDraft(persona_name, constraint.kind, constraint.description, forms, until=constraint.valid_to)



def _belonging_draft(item: dict[str, Any], name: str) -> FactDraft:
    attribute = item["kind"] if item["kind"] in _SPECIAL_BELONGINGS else "prized_possession"
    forms = [item["name"]]
    if " at " in item["name"]:
        forms.append(item["name"].split(" at ", 1)[1])
    forms += [short for full, short in banks.VEHICLES if full == item["name"]]
    return FactDraft(name, attribute, item["name"], tuple(forms))



def outcome_context(
    profile: dict[str, Any], event: dict[str, Any], entity: dict[str, str], drafts: list[FactDraft]
) -> dict[str, Any]:
    """What the `outcome` prompt needs: who narrates, in which voice, what happened, which facts to state."""
    ident, comm = profile["identity"], profile["personality"]["communication"]
    return {
        "persona": {
            "name": ident["name"],
            "age": ident["age"],
            "occupation": ident["occupation"],
            "city": ident["city"],
            "mood": profile["current_status"]["mood"],
        },
        "style": {k: comm[k] for k in ("formality", "verbosity", "emoji", "vocabulary")},
        "event": event,
        "entity": entity,
        "facts": [
            {"subject": d.subject, "attribute": d.attribute, "value": d.value, "mention": d.mention}
            for d in drafts
        ],
    }
