"""Length tiers of a release: per persona, the history a memory system is given at each token budget (tables `tiers`,
`tier_history`, `tier_questions`; tasks/tiers/ builds them, validation/tiers.py gates them).

A tier is named by its budget ("32k", "128k", "1M", "10M": k is 1,000 tokens, M 1,000,000). Per persona, a tier is
`cut` when the persona's own sessions and documents hold more tokens than the budget (the evidence of as many
questions as fit is kept, then other own items while they fit), or `padded` when they hold fewer (every own item,
then haystack sessions until the budget is met). A question sees the items of its persona's tier history dated
before its question_time.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TOKENIZER = "cl100k_base"
"""The encoding tier budgets and item sizes are counted in (bundled with the `bpe-openai` package: no download)."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM])\s*$")
UNITS = {"k": 1_000, "m": 1_000_000}
MIN_BUDGET = 1_000
MAX_BUDGET = 100_000_000


class TierError(ValueError):
    """A tier that cannot be built as asked: a name that is not a size, a budget no question's evidence fits in."""


def tier_budget(name: str) -> int:
    """The token budget a tier name stands for: "32k" -> 32,000, "1.5M" -> 1,500,000."""
    m = _SIZE.match(str(name))
    if m is None:
        raise TierError(f"tier {name!r} is not a size: name a tier by its token budget, e.g. 32k, 128k, 1M or 10M")
    budget = round(float(m.group(1)) * UNITS[m.group(2).lower()])
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise TierError(f"tier {name!r} ({budget:,} tokens) is outside {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens")
    return budget


def tier_name(budget: int) -> str:
    """The canonical name of a budget: 32000 -> "32k", 1000000 -> "1M", 1500000 -> "1.5M"."""
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if budget >= size:
            return f"{budget / size:g}{unit}"
    return str(budget)


class ReleaseOptions(BaseModel):
    """`[release]`: what a frozen release holds besides the corpus: its length tiers (tasks/tiers/, README "Length
    tiers")."""

    model_config = ConfigDict(extra="forbid")

    tiers: list[str] = Field(
        default_factory=list, description="token budgets of the release's length tiers, e.g. [\"32k\", \"128k\", "
        "\"1M\"] (k: 1,000 tokens, M: 1,000,000, cl100k_base); per persona, the own history cut to each budget with "
        "the evidence of the questions it keeps, or padded with haystack sessions up to it")
    haystack_chat_share: float = Field(
        0.3, ge=0, le=1, description="share of a padded tier's haystack tokens drawn from chats (unrelated requests "
                                     "lifted from other personas' sessions); the rest are other personas' sessions")

    @field_validator("tiers")
    @classmethod
    def _sizes(cls, names: list[str]) -> list[str]:
        try:
            budgets = [tier_budget(n) for n in names]
        except TierError as exc:
            raise ValueError(str(exc)) from None
        if len(set(budgets)) != len(budgets):
            raise ValueError(f"tiers {names} name one budget twice")
        return [tier_name(b) for b in sorted(budgets)]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TierRow(_Row):
    """One persona's history at one tier (table `tiers`)."""

    tier: str = Field(description="the tier's name, e.g. 128k")
    persona_id: str
    budget: int = Field(description="the tier's token budget")
    tokenizer: str = Field(TOKENIZER, description="the encoding the budget and the tokens are counted in")
    mode: Literal["cut", "padded"] = Field(description="cut: the own history holds more than the budget; padded: "
                                           "fewer, and haystack sessions fill the rest")
    tokens: int = Field(description="tokens of the tier's history (own and haystack items)")
    own_tokens: int = Field(description="tokens of the persona's own sessions and documents in the history")
    haystack_tokens: int = Field(description="tokens of the haystack items (other personas' sessions, chats)")
    items: int = Field(description="items in the history (rows of tier_history)")
    questions: int = Field(description="questions of the persona that belong to the tier")
    rederived: int = Field(0, description="of them, counts re-derived on the tier's history")


class TierItem(_Row):
    """One item of a persona's tier history (table `tier_history`), in the order a memory system reads them."""

    tier: str
    persona_id: str
    position: int = Field(description="0-based place in the tier's history, by timestamp")
    item_id: str = Field(description="a session_id or doc_id (of `origin_persona_id`); a chat's first turn_id")
    kind: Literal["session", "document", "chat", "task_chat"] = Field(
        description="a whole session, a whole document, a chat (the turns of one unrelated request lifted from "
                    "another persona's session: turn_ids) or a task chat (an everyday task chat written for the "
                    "haystack: its turns are in `tier_chats`)")
    source: Literal["own", "haystack"] = Field(description="own: the persona's; haystack: padding")
    origin_persona_id: str = Field(description="the persona whose item it is (the tier's persona for own items and "
                                               "task chats)")
    timestamp: dt.datetime
    tokens: int = Field(description="cl100k_base tokens of the item's text (turns, or a document's body)")
    turn_ids: list[str] = Field(default_factory=list, description="a chat's turns, in order (empty otherwise)")


class TierQuestion(_Row):
    """A question that belongs to a tier: all its evidence lies in the tier's history (table `tier_questions`)."""

    tier: str
    question_id: str
    persona_id: str
    category: str
    answer: str = Field(description="the gold answer on this tier's history (the question's own unless rederived)")
    reference_answer: str
    rederived: bool = Field(False, description="a count whose instances the cut partly removed, counted again on "
                                               "the tier's history")
    evidence_ids: list[str] = Field(default_factory=list, description="the question's evidence items (turns, "
                                    "chunks) that lie in the tier's history")


class TierChatTurn(_Row):
    """One turn of an everyday task chat written for a persona's haystack (table `tier_chats`; tasks/tiers/chats.py):
    writing, cooking, code, travel and other requests that say nothing about the user's life."""

    chat_id: str = Field(description="<persona_id>-c<n>: the chat, as tier_history's item_id names it")
    persona_id: str = Field(description="the persona whose haystack holds it")
    ordinal: int = Field(description="1-based place of the turn in its chat")
    role: Literal["user", "assistant"]
    text: str
    topic: str = Field(description="what the task is about: writing, cooking, code, travel, ...")
    timestamp: dt.datetime
