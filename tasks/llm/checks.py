"""Hard checks on model output, keyed by prompt name (FinPerMA's rule layer).

A validated answer can still break what the symbolic world requires: a narration that leaves out a
fact's phrase would make a question's evidence silently wrong. A check is `fn(output, context)` that
returns a short description of the problem (fed back to the model for repair) or None.

The default check, `required_phrases`, applies to every prompt whose context lists `facts` with a
`must_include` or `mention` phrase: each phrase must appear in the output's text (whole phrase,
any case). A fact that lists its `names` (the proper names of its value: prompts that ask for a fact in
the writer's own words, issue 24) requires only those, and a self-correction its `correction`; whether the
words convey the fact is then the `fact_check` call's verdict (tasks/dialogue/livecheck.py). Register a
prompt-specific check with `@hard_check("name")`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from tasks.common.facttext import mentions

Check = Callable[[BaseModel, dict[str, Any]], str | None]
CHECKS: dict[str, Check] = {}


def hard_check(prompt_name: str) -> Callable[[Check], Check]:
    """Register `fn` as the hard check for `prompt_name` (replacing the default)."""

    def register(fn: Check) -> Check:
        CHECKS[prompt_name] = fn
        return fn

    return register


def output_text(output: BaseModel) -> str:
    """Every string in the output, joined: what a phrase check searches."""
    parts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(output.model_dump(mode="json"))
    return "\n".join(parts)


def required_phrases(output: BaseModel, context: dict[str, Any]) -> str | None:
    """Missing verbatim phrases among the context's facts, or None when all are present."""
    facts = context.get("facts") if isinstance(context, dict) else None
    if not isinstance(facts, list):
        return None
    phrases = [p for f in facts if isinstance(f, dict) for p in required_of(f)]
    text = output_text(output)
    missing = [p for p in phrases if p and not mentions(text, p)]
    if not missing:
        return None
    quoted = "; ".join(f'"{p}"' for p in missing)
    return f"The answer must contain each of these phrases verbatim, but these are missing: {quoted}."


def required_of(fact: dict[str, Any]) -> list[str]:
    """The phrases a fact's text must hold verbatim: its names when it lists them (its correction too, when
    it is said wrong first; for a split one, only those of the part its clause says), else its `must_include` or
    `mention` phrase."""
    if isinstance(fact.get("names"), list):
        names = fact["names"]
        if fact.get("mode") == "split":  # the opening says one part; the names of the other are the follow-up's
            names = [n for n in names if mentions(str(fact.get("clause", "")), n)]
        return [*names, *([fact["correction"]] if fact.get("correction") else [])]
    phrase = fact.get("must_include") or fact.get("mention")
    return [phrase] if phrase else []


def check(prompt_name: str, output: BaseModel, context: dict[str, Any]) -> str | None:
    """The problem the hard check for `prompt_name` finds in `output`, or None."""
    return CHECKS.get(prompt_name, required_phrases)(output, context)
