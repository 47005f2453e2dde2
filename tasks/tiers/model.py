"""What the tier builder reads: each persona's items (sessions, documents, chats), what each of its questions needs
from the history, and the names its haystack must not hold. warehouse/tiers.py reads these from a run's tables;
the builder (tasks/tiers/select.py) never touches I/O."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Item:
    """A unit of history a memory system ingests whole: a session, a document, or a chat (the turns of one unrelated
    request in a session, offered to other personas' haystacks)."""

    item_id: str
    kind: str
    persona_id: str
    timestamp: dt.datetime
    tokens: int
    turn_ids: tuple[str, ...] = ()
    attributes: frozenset[str] = frozenset()
    """The attributes of the facts the item carries (a haystack item must not speak of what the persona is asked)."""
    text: str = ""
    """The item's words, for the haystack's collision check (kept only for items other personas may borrow)."""
    session_id: str = ""
    """The session a chat was lifted from (a session and a chat of it are never both in one history)."""
    turns: tuple[tuple[str, str], ...] = ()
    """A task chat's (role, text) turns (it exists nowhere else until its tier lands it)."""
    topic: str = ""


@dataclass(frozen=True)
class Unit:
    """One instance an all-instances question counts or ranges over: a fact (visible when an item holding a counting
    mention of it is kept) or a document (visible when kept)."""

    unit_id: str
    containers: tuple[str, ...]
    date: dt.date


@dataclass(frozen=True)
class Need:
    """What one question needs from its persona's history."""

    question_id: str
    persona_id: str
    category: str
    question_time: dt.datetime
    answer: str
    reference_answer: str
    answer_type: str
    groups: tuple[tuple[str, ...], ...] = ()
    """Per evidence fact, the items (sessions, documents) carrying it, any one of which shows it; per structural
    evidence item (a chunk with no fact: a table, a section), its document alone."""
    evidence: tuple[tuple[str, str], ...] = ()
    """(evidence_id, the item holding it): a turn's session, a chunk's document."""
    all_instances: bool = False
    units: tuple[Unit, ...] = ()
    countable: bool = False
    """A short answer that is the number of its units: re-derived on a cut history that keeps some of them."""
    attributes: frozenset[str] = frozenset()


@dataclass
class Life:
    """One persona as the tier builder sees it."""

    persona_id: str
    items: list[Item]
    needs: list[Need]
    vocabulary: frozenset[str] = frozenset()
    """Names (people, places, organisations, things) of the persona's world and of its questions: a haystack item
    that holds one collides."""
    own_names: frozenset[str] = frozenset()
    """The persona's own name and its family's: an item of this persona lent to another's haystack must not hold
    them (it would name the other persona's user, or give them a second family)."""
    chats: list[Item] = field(default_factory=list)

    @property
    def own_tokens(self) -> int:
        return sum(i.tokens for i in self.items)

    @property
    def asked_attributes(self) -> frozenset[str]:
        return frozenset().union(*(n.attributes for n in self.needs)) if self.needs else frozenset()

    @property
    def last_question(self) -> dt.datetime | None:
        return max((n.question_time for n in self.needs), default=None)


def name_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    """One case-sensitive, whole-word pattern over `names` (longest first), or None for no names."""
    terms = sorted({n.strip() for n in names if len(n.strip()) >= 3}, key=lambda n: (-len(n), n))
    if not terms:
        return None
    return re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![\w'])")


def collisions(text: str, pattern: re.Pattern[str] | None) -> list[str]:
    """The names of `pattern` that `text` holds, in order of appearance, each once."""
    if pattern is None:
        return []
    seen: list[str] = []
    for m in pattern.finditer(text):
        if m.group(0) not in seen:
            seen.append(m.group(0))
    return seen
