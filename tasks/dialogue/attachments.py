"""A document the user shares, as the prompts may see it: who sent it, what it is, its section headings, its
points (the facts it states, in the user's words) and its tables' captions and columns, never its text."""

from __future__ import annotations

import re
from typing import Any

from schemas.corpus import Document
from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.facttext import clause

HEADING = re.compile(r"^\s*#{1,3}\s+(.+?)\s*$|<h[1-3][^>]*>(.*?)</h[1-3]>", re.MULTILINE | re.IGNORECASE)


def attachment_context(doc: Document | None, persona: Persona, facts: dict[str, Fact]) -> dict[str, Any] | None:
    """What the prompts may say about a shared document: id, title, sender, a description, its section
    headings, its points (the facts it states, in the user's words) and its tables' captions and columns."""
    if doc is None:
        return None
    sender = display_name(doc.sender or persona.name)
    if doc.source_type == "report":
        description = "a report I put together"
    elif doc.source_type == "journal":
        description = "an entry from my journal"
    elif sender == persona.name:
        description = f"an email I sent to {', '.join(display_name(r) for r in doc.recipients) or 'someone'}"
    else:
        description = f"an email from {sender}"
    sections = [next(g for g in m.groups() if g) for m in HEADING.finditer(doc.body)]
    return {
        "doc_id": doc.doc_id, "title": doc.title, "sender": sender, "description": description,
        "source_type": doc.source_type, "format": doc.format,
        "sections": [re.sub(r"<[^>]+>", "", s).strip() for s in sections if s.strip()][:8],
        "points": [clause(facts[i], persona, "first") for i in doc.fact_ids if i in facts],
        "tables": [{"caption": str(t.get("caption", "")), "columns": [str(c) for c in t.get("columns", [])]}
                   for t in doc.tables],
    }


def display_name(header: str) -> str:
    """`Daniel Okafor <daniel@x.example>` -> `Daniel Okafor`."""
    return header.split("<", 1)[0].strip() or header.strip()
