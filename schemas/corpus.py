"""What the assistant would have seen: documents and their chunks, bullets, sessions and turns."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.audit import Finding

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
    cc: list[str] = Field(default_factory=list)
    thread_id: str | None = Field(None, description="doc_id of the first email of the thread")
    parent_doc_id: str | None = Field(None, description="the email replied to, or the earlier version revised")
    version: int = Field(1, ge=1)
    kind: str = Field("", description="personal, notice, newsletter, receipt, journal, review, budget, ...")
    realized: dict[str, list[str]] = Field(
        default_factory=dict, description="fact id -> the phrases that say it in other words (the persona's own "
                                          "journals and emails); a claimed fact not here is said verbatim")
    judged: list[str] = Field(
        default_factory=list, description="fact ids a real model's wording conveys by the fact_check verdict (no "
                                          "phrase holds them: tasks/sources/livecheck.py)")
    tables: list[dict[str, Any]] = Field(
        default_factory=list, description="ground-truth tables: {caption, columns, rows} with rows as lists"
    )


class Chunk(_Row):
    chunk_id: str
    doc_id: str
    persona_id: str
    created_at: dt.datetime
    ordinal: int
    text: str
    n_tokens: int
    fact_ids: list[str] = Field(default_factory=list)
    section: str = Field("", description="the heading of the section the chunk's text belongs to")


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


class TimeRef(BaseModel):
    """A relative-time phrase in a turn and the calendar date it names (checked by the verifier)."""

    model_config = ConfigDict(extra="forbid")
    phrase: str = Field(description="as written in the text, e.g. `yesterday`, `last Tuesday`, `two weeks ago`")
    date: dt.date = Field(description="the persona-local date the phrase refers to")
    event_id: str | None = None


TURN_KINDS = ("initial", "followup", "filler")


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
    category: DialogueCategory = Field("information_sharing", description="the topic's intent category")
    kind: Literal["initial", "followup", "filler"] = Field(
        "initial", description="opens a topic, goes deeper on it, or small talk / an unrelated request"
    )
    time_refs: list[TimeRef] = Field(default_factory=list)
    paraphrase_ids: list[str] = Field(
        default_factory=list, description="facts the turn refers to without a surface form (not evidence)"
    )
    callback_of: str | None = Field(
        None, description="set on the turns of a callback topic added by dialogue.memory_rate: the fact id the "
                          "user calls back (filter these out for untouched dialogue)"
    )


MENTION_MODES = ("explicit", "paraphrased", "implied", "split", "corrected", "about_other", "hypothetical",
                 "reference")
"""How a text mentions a fact (tasks/dialogue/mentions.py): only explicit, paraphrased, implied, split and the final
statement of a corrected value are evidence of the value (`counts`)."""
REALIZED_MODES = frozenset({"paraphrased", "corrected", "split", "implied"})
"""Modes whose text says the value in other words: the span the realizer recorded is their evidence, not a surface
form (the offline realizer records what each sentence conveys by construction)."""
MentionMode = Literal["explicit", "paraphrased", "implied", "split", "corrected", "about_other", "hypothetical",
                      "reference"]


class FactMention(_Row):
    """One mention of a fact in a turn or a chunk, recorded as the text was written."""

    mention_id: str = Field(description="<evidence id>-m<n>")
    persona_id: str
    fact_id: str
    evidence_id: str
    evidence_kind: Literal["turn", "chunk"]
    mode: MentionMode
    span: str | None = Field(None, description="the words of the text that convey it, when it has them")
    counts: bool = Field(True, description="whether the mention is evidence of the fact's value")
    checked_by: Literal["realizer", "wording", "fact_check"] = Field(
        "realizer", description="what established it: `realizer`, the offline narrator built the sentence to say it; "
        "`wording`, a real model's text holds a surface form or the planned paraphrase; `fact_check`, a real model's "
        "text was judged to convey it by the fact_check call (then the span is null)")


class Corpus(_Row):
    """One persona's documents, chunks, bullets, sessions and turns."""

    documents: list[Document] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    bullets: list[Bullet] = Field(default_factory=list)
    sessions: list[Session] = Field(default_factory=list)
    turns: list[Turn] = Field(default_factory=list)
    mentions: list[FactMention] = Field(default_factory=list, description="the fact_mentions rows of the turns and "
                                        "chunks")
    findings: list[Finding] = Field(
        default_factory=list, description="what the stage regenerated or dropped (landed with the verifier's)"
    )

    def table_rows(self) -> dict[str, list]:
        """The rows this corpus holds, by table (a stage lands the tables it declares, flows/pipeline.py)."""
        return {"documents": self.documents, "chunks": self.chunks, "bullets": self.bullets,
                "sessions": self.sessions, "turns": self.turns, "fact_mentions": self.mentions}


class EmailDraft(BaseModel):
    """Output of the `email` prompt: one email's subject line and plain-text body."""

    subject: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1)


class TurnText(BaseModel):
    """Output of the dialogue prompts (user_turn_initial, user_turn_followup, assistant_turn)."""

    text: str = Field(min_length=1)


class JournalDraft(BaseModel):
    """Output of the `journal` prompt: a day's Markdown journal entry (no top-level title)."""

    title: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1)


class ReportQuestions(BaseModel):
    """Output of the `report_questions` prompt: what the report should answer (research step)."""

    questions: list[str] = Field(min_length=1, max_length=6)


class ReportSection(BaseModel):
    heading: str = Field(min_length=1, max_length=120)
    body: str = Field(min_length=1)


class ReportDraft(BaseModel):
    """Output of the `report` prompt: title, summary and prose sections (tables are added by the rules)."""

    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(min_length=1)
    sections: list[ReportSection] = Field(min_length=1, max_length=8)


class FactCheck(BaseModel):
    """Output of the `fact_check` prompt: does a turn refer to a fact (even by paraphrase), and does it
    contradict it?"""

    refers: bool = Field(description="the text refers to the fact, by a surface form or a paraphrase")
    contradicts: bool = Field(False, description="the text states something incompatible with the fact")
