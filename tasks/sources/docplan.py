"""What every source module hands the sources stage: a planned document before and after narration.

A `Planned` document knows its stable key (its id until the stage numbers documents by time), when
it is created, the call that narrates it and how to turn the model's output into a `Document`; with the
facts it must convey and the rule that finds one in a text (`told`), so that a real model's wording the rule
cannot read is put to the fact_check call (tasks/sources/livecheck.py) and `render(output, conveyed)` claims
what the verdict found instead of appending it.
Links (`thread_id`, `parent_doc_id`) name keys until the stage replaces them with final ids.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from schemas.corpus import Document
from schemas.world import Fact
from tasks.common.facttext import carries_first
from tasks.llm.gateway import CallSpec

STAGE = "sources"


@dataclass
class Planned:
    """One document the rules decided on; `render(output, conveyed)` words it with the model's output, claiming
    the facts of `conveyed` (ids the fact_check verdict found in a real model's words) as said."""

    key: str
    created: dt.datetime
    prompt: str
    context: dict[str, Any]
    output: type[BaseModel]
    persona_id: str
    render: Callable[[BaseModel, frozenset[str]], Document]
    extras: dict[str, Any] = field(default_factory=dict)
    facts: tuple[Fact, ...] = ()
    told: Callable[[str, Fact], bool] = carries_first

    def call(self, sample: int = 0) -> CallSpec:
        """The narrating call (`sample` > 0 asks for a fresh wording)."""
        return CallSpec(self.prompt, self.context, self.output, STAGE, self.persona_id, sample)

    def document(self, output: BaseModel, conveyed: frozenset[str] = frozenset()) -> Document:
        """The document the output renders, `conveyed` claimed as said."""
        return self.render(output, conveyed)


def slug(name: str) -> str:
    """`Harbour Savings Bank` -> `harbour-savings-bank`."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "someone"
