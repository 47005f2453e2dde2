"""Gold replies: the `companion_reply` prompt over a probe and ONLY its required context, then a ship check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.facttext import first_name, must_include, phrase_pattern
from tasks.common.timeutil import human_date, local_date

PROMPT = "companion_reply"
FACT_FREE_REPLY = "Thanks for telling me. How would you like to go from here?"
"""The last resort when even the template reply would mention something outside the context."""


def fact_entry(fact: Fact, persona: Persona, current: bool) -> dict[str, Any]:
    """A required fact as the prompt sees it: statement, the form a reply uses, and whether it still holds."""
    owner = "your" if fact.subject == persona.name else f"{fact.subject}'s"
    attribute = fact.attribute.rsplit(".", 1)[-1].replace("_", " ")
    return {"fact_id": fact.fact_id, "statement": f"{owner} {attribute}: {fact.value}", "form": must_include(fact),
            "current": current}


def reply_context(persona: Persona, probe: Turn, category: str, recent: Sequence[Turn], episodes: Sequence[Turn],
                  facts: Sequence[Fact], stale: set[str]) -> dict[str, Any]:
    """The prompt context: the probe, its required recent and episode turns (oldest first) and facts."""
    return {
        "user_first_name": first_name(persona.name), "probe": probe.text, "category": category,
        "memory_need": bool(episodes),
        "recent": [{"turn_id": t.turn_id, "role": t.role, "text": t.text} for t in recent],
        "episodes": [{"turn_id": t.turn_id, "date": human_date(local_date(persona, t.timestamp)), "text": t.text}
                     for t in episodes],
        "facts": [fact_entry(f, persona, f.fact_id not in stale) for f in facts],
    }


def context_text(context: dict[str, Any]) -> str:
    """Every text the reply may draw on: the probe, the required turns and the facts' statements."""
    parts = [context["probe"], *(t["text"] for t in context["recent"]), *(t["text"] for t in context["episodes"])]
    parts += [f"{f['statement']} {f['form']}" for f in context["facts"]]
    return "\n".join(parts)


def leaked(reply: str, context: dict[str, Any], persona_facts: Sequence[Fact]) -> list[str]:
    """Ids of persona facts the reply mentions (by a surface form) that the context never mentions: a
    surface form in the reply must also occur in the context text."""
    known = context_text(context)
    out = []
    for fact in persona_facts:
        forms = [f for f in fact.surface_forms if f.strip() and phrase_pattern(f).search(reply)]
        if any(not phrase_pattern(f).search(known) for f in forms):
            out.append(fact.fact_id)
    return out


def template_reply(context: dict[str, Any]) -> str:
    """The rule-built reply used when the model's reply fails the ship check: forms from the context only."""
    current = [f["form"] for f in context["facts"] if f["current"]]
    old = [f["form"] for f in context["facts"] if not f["current"]]
    if not context["facts"]:
        return FACT_FREE_REPLY
    parts = ["Thanks for telling me."]
    if current:
        parts.append(f"I have kept in mind what you told me: {', '.join(current)}.")
    if old:
        parts.append(f"That replaces {', '.join(old)}, so I will go by the newer one.")
    return " ".join(parts)
