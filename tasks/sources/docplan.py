"""What every source module hands the sources stage: a planned document before and after narration.

A `Planned` document knows its stable key (its id until the stage numbers documents by time), when
it is created, the call that narrates it and how to turn the model's output into a `Document`.
Links (`thread_id`, `parent_doc_id`) name keys until the stage replaces them with final ids.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from schemas.corpus import Document
from tasks.llm.gateway import CallSpec

STAGE = "sources"


@dataclass
class Planned:
    """One document the rules decided on; `render(output)` words it with the model's output."""

    key: str
    created: dt.datetime
    prompt: str
    context: dict[str, Any]
    output: type[BaseModel]
    persona_id: str
    render: Callable[[BaseModel], Document]
    extras: dict[str, Any] = field(default_factory=dict)

    def call(self, sample: int = 0) -> CallSpec:
        """The narrating call (`sample` > 0 asks for a fresh wording)."""
        return CallSpec(self.prompt, self.context, self.output, STAGE, self.persona_id, sample)


def slug(name: str) -> str:
    """`Harbour Savings Bank` -> `harbour-savings-bank`."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "someone"
