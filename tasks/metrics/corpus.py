"""What the validity measures read: one persona's corpus at a time (warehouse/measures.py loads it)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from schemas.corpus import Bullet, Chunk, Document, Turn
from schemas.qa import Evidence, Question
from schemas.world import Event, Fact, Plan, WorldEntity


@dataclass
class PersonaCorpus:
    """One persona's landed rows. World tables are empty for an imported benchmark, whose measures that need
    them are then null."""

    persona_id: str
    name: str = ""
    zone: dt.tzinfo = dt.UTC
    turns: list[Turn] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    bullets: list[Bullet] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    entities: list[WorldEntity] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    fact_mentions: list[dict[str, Any]] | None = None
    """Rows of a `fact_mentions` table (fact_id, evidence_id, evidence_kind, mode) when the corpus has one;
    None: mentions are read from the turns' and chunks' fact_ids and paraphrase_ids."""

    def known_names(self) -> tuple[str, ...]:
        """Entity and persona names, longest first (masked in sentence skeletons)."""
        names = {e.name for e in self.entities if e.name} | ({self.name} if self.name else set())
        return tuple(sorted(names, key=lambda n: (-len(n), n)))
