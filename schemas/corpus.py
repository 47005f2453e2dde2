"""What the assistant would have seen: documents and their chunks, bullets, sessions and turns."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DIALOGUE_CATEGORIES = (
    "information_sharing",
    "advice_seeking",
    "status_update",
    "scheduling",
    "attachment_consultation",
)
DialogueCategory = Literal[
    "information_sharing", "advice_seeking", "status_update", "scheduling", "attachment_consultation"
]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Document(_Row):
    doc_id: str
    persona_id: str
    created_at: dt.datetime
    source_type: Literal["email", "journal", "report"]
    format: Literal["txt", "md", "html"]
    title: str
    sender: str | None = None
    recipients: list[str] = Field(default_factory=list)
    body: str
    event_id: str | None = None
    fact_ids: list[str] = Field(default_factory=list)


class Chunk(_Row):
    chunk_id: str
    doc_id: str
    persona_id: str
    created_at: dt.datetime
    ordinal: int
    text: str
    n_tokens: int
    fact_ids: list[str] = Field(default_factory=list)


class Bullet(_Row):
    bullet_id: str
    persona_id: str
    date: dt.date
    event_id: str
    category: DialogueCategory
    text: str
    fact_ids: list[str]


class Session(_Row):
    session_id: str
    persona_id: str
    started_at: dt.datetime
    category: DialogueCategory


class Turn(_Row):
    turn_id: str
    session_id: str
    persona_id: str
    timestamp: dt.datetime
    role: Literal["user", "assistant"]
    text: str
    bullet_id: str | None = None
    doc_ids: list[str] = Field(default_factory=list)
    fact_ids: list[str] = Field(default_factory=list)


class Corpus(_Row):
    """One persona's documents, chunks, bullets, sessions and turns."""

    documents: list[Document] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    bullets: list[Bullet] = Field(default_factory=list)
    sessions: list[Session] = Field(default_factory=list)
    turns: list[Turn] = Field(default_factory=list)


class EmailDraft(BaseModel):
    """Output of the `email` prompt: one email's subject line and plain-text body."""

    subject: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1)


class TurnText(BaseModel):
    """Output of the dialogue prompts (user_turn_initial, user_turn_followup, assistant_turn)."""

    text: str = Field(min_length=1)
