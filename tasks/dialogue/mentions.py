"""How a turn mentions a fact, decided before it is written and recorded as it is written (`fact_mentions`).

A mention has a mode:
- `explicit`: the fact's clause, its value in the store's words (`I had falafel wraps at Kebab Corner`);
- `paraphrased`: the value's parts in other words, every part still said (`I went to Kebab Corner and had the
  falafel wraps`): a reader recovers the value, a string match on it does not. Made from the event's plan
  fields with the attribute's frames below, so only facts of story events whose value is built from those fields
  have one;
- `reference`: the fact named without its value (`my new gym`, `that dinner out`): a follow-up or a callback;
  no evidence of the value.
The narration issue's further modes (implied, split, corrected, about someone else, hypothetical) are declared in
schemas/corpus.py MENTION_MODES and come with their realizations.

`dialogue.mention_modes` sets the share of each mode among the opening mentions that can take it (`paraphrased`:
0.5 by default); the rest are explicit. The choice is seeded per bullet, so it never depends on wording attempts.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common.facttext import carries_first, mentions, who
from tasks.common.rng import rng_for

PARAPHRASES: dict[str, tuple[str, ...]] = {
    "dinner_out": ("{who} went to {restaurant} and had the {dish}",
                   "{who} ended up ordering the {dish}, at {restaurant}"),
    "cafe_visit": ("{who} stopped at {cafe} and got {drink}", "{who} grabbed {drink} from {cafe}"),
    "hobby_session": ("{who} put in some time on {hobby}, over at {spot}", "{who} went to {spot} for some {hobby}"),
    "concert": ("{who} went to {venue} to see {artist}", "{who} caught {artist} live, at {venue}"),
    "course": ("{who} signed up at {school} to learn {subject}",),
    "current_book": ("{who} started {author}'s {book}", "{who} picked up {book}, the one by {author}"),
    "trip": ("{who} spent a {length} in {city}", "{who} got away to {city} for a {length}"),
    "volunteering": ("{who} started helping out at {org}, on {task}", "{who} took on {task} for {org}"),
    "evening_out": ("{partner} and I spent the evening at {place}", "{who} took {partner} to {place}"),
    "celebration": ("{who} marked the {milestone} at {venue}",),
    "bill_paid": ("{who} cleared the whole {bill}", "{who} paid off the {bill} completely"),
    "financial_shock": ("the {bill} came to {amount}, which hit hard", "{who} was landed with a {bill} of {amount}"),
    "lunch_cancelled": ("{colleague} and I had to call off our lunch",),
    "dinner_cancelled": ("our dinner plans at {restaurant} fell through",),
    "wasted_shop": ("{who} went all the way to {market} for nothing",),
    "trip_cancelled": ("{who} had to call off going to {city}",),
    "evening_cancelled": ("we never made it to {place} in the end",),
    "move_fell_through": ("{who} lost the place at {address}",),
    "relationship_status": ("{partner} and I are properly together now",),
    "home": ("{who} moved into the flat at {address}", "the new place is a flat on {address}"),
}
"""Attribute -> other frames for its value, made of the plan's fields (every field the value names appears)."""


@dataclass(frozen=True)
class Realization:
    """How one fact is to be said in a turn: the clause, its mode, and the phrases that carry the value."""

    fact_id: str
    mode: str
    clause: str
    parts: tuple[str, ...]


def value_fields(fact: Fact, world: World) -> dict[str, str]:
    """The fields of the plan behind a story fact's event (`dish`, `restaurant`); {} for background facts.
    `paraphrase` uses them only when every field its frame names is part of the value."""
    event = next((e for e in world.events if e.event_id == fact.event_id), None)
    plan = next((p for p in world.plans if event is not None and p.plan_id == event.plan_id), None)
    if plan is None:
        return {}
    return {k: str(v) for k, v in plan.entity.items() if str(v).strip()}


def paraphrase(fact: Fact, persona: Persona, world: World, pick: float) -> Realization | None:
    """The fact in other words (mode `paraphrased`), or None when its attribute has no frame or the plan's
    fields do not make up its value. `pick` (0..1) chooses among the frames."""
    frames = PARAPHRASES.get(fact.attribute)
    fields = value_fields(fact, world) if frames else {}
    if not frames or not fields:
        return None
    frame = frames[min(len(frames) - 1, int(pick * len(frames)))]
    names = [n for _, n, _, _ in string.Formatter().parse(frame) if n and n != "who"]
    if any(n not in fields for n in names):
        return None
    parts = tuple(fields[n] for n in names)
    if not all(mentions(fact.value, p) for p in parts):  # the frame says what the value says, no more
        return None
    clause = frame.format(who=who(fact, persona, "first"), **fields)
    if mentions(clause, fact.value):  # other words, so never the value verbatim
        return None
    return Realization(fact.fact_id, "paraphrased", clause, parts)


def planned(config: BuildConfig, persona: Persona, world: World, facts: list[Fact], bullet_id: str,
            day) -> list[Realization | None]:
    """Per fact of a bullet's opening: the paraphrase to use (with the configured share), else None (explicit)."""
    share = config.stages.dialogue.mention_modes.get("paraphrased", 0.0)
    rng = rng_for(config.seed, persona.persona_id, "dialogue", day, f"mentions:{bullet_id}")
    out: list[Realization | None] = []
    for fact in facts:
        draw, pick = rng.random(), rng.random()
        out.append(paraphrase(fact, persona, world, pick) if draw < share else None)
    return out


def turn_mentions(turn: Turn, facts: dict[str, Fact], realized: dict[str, Realization],
                  earlier: list[Turn]) -> list[dict[str, Any]]:
    """What a committed turn mentions: each fact it states (paraphrased when it says every part of the planned
    paraphrase and not the value, else explicit), each it names without its value (reference), and, for a
    reply, each fact told earlier in the session that it repeats."""
    out = []
    for fid in turn.fact_ids:
        fact, r = facts[fid], realized.get(fid)
        if r is not None and all(mentions(turn.text, p) for p in r.parts) and not carries_first(turn.text, fact):
            span = r.clause if mentions(turn.text, r.clause) else None
            out.append({"fact_id": fid, "mode": r.mode, "span": span, "counts": True})
        else:
            span = next((f for f in fact.surface_forms if mentions(turn.text, f)), None)
            out.append({"fact_id": fid, "mode": "explicit", "span": span, "counts": True})
    out += [{"fact_id": fid, "mode": "reference", "span": None, "counts": False} for fid in turn.paraphrase_ids]
    if turn.role == "assistant":  # a repeat counts when it says the value whole, else it only names the fact
        for fid in dict.fromkeys(i for t in earlier for i in t.fact_ids):
            span = next((f for f in facts[fid].surface_forms if mentions(turn.text, f)), None)
            if span is not None:
                whole = carries_first(turn.text, facts[fid])
                out.append({"fact_id": fid, "mode": "explicit" if whole else "reference", "span": span,
                            "counts": whole})
    return [m | {"evidence_id": turn.turn_id} for m in out]
