"""A release seen at one length tier: the rows a memory system is given at that tier, in the shapes the exporters and
the evaluation read (a `Bundle`: tasks/interop/).

Per persona, the own sessions and documents of the tier's history stay as they are; every haystack item becomes a
session of the persona (a borrowed session, or a chat as a session of its turns) under a new id, `<persona>-x<its
id>`, with the facts, bullets, documents and time references of its own persona taken off (they are not this
persona's). The questions are the tier's, with the answer a cut re-derived; their evidence, the items the tier keeps.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas.corpus import Session, Turn
from schemas.tiers import TierChatTurn, TierItem, TierQuestion
from tasks.interop import Bundle


def borrowed_id(persona_id: str, origin_id: str) -> str:
    """The id a haystack session or turn takes in `persona_id`'s history."""
    return f"{persona_id}-x{origin_id}"


def tier_names(history: Iterable[TierItem]) -> list[str]:
    """The tiers of `history`, smallest budget first."""
    from schemas.tiers import tier_budget

    return sorted({h.tier for h in history}, key=tier_budget)


def apply_tier(bundle: Bundle, tier: str, history: list[TierItem], questions: list[TierQuestion],
               chats: list[TierChatTurn] = ()) -> Bundle:
    """`bundle` (a whole release's rows) at `tier`. A tier the release does not have is a ValueError naming those it
    has."""
    names = tier_names(history)
    if tier not in names:
        have = ", ".join(names) if names else "none (its config sets no [release] tiers)"
        raise ValueError(f"the release has no tier {tier!r}; its tiers: {have}")
    rows = [h for h in history if h.tier == tier]
    own = {(h.kind, h.item_id) for h in rows if h.source == "own"}
    out = Bundle(personas=list(bundle.personas))
    out.sessions = [s for s in bundle.sessions if ("session", s.session_id) in own]
    out.turns = [t for t in bundle.turns if ("session", t.session_id) in own]
    out.documents = [d for d in bundle.documents if ("document", d.doc_id) in own]
    out.chunks = [c for c in bundle.chunks if ("document", c.doc_id) in own]
    sessions, turns = _borrowed(bundle, [h for h in rows if h.source == "haystack" and h.kind != "task_chat"])
    out.sessions += sessions
    out.turns += turns
    sessions, turns = _written(chats, {h.item_id for h in rows if h.kind == "task_chat"})
    out.sessions += sessions
    out.turns += turns
    out.sessions.sort(key=lambda s: (s.persona_id, s.started_at, s.session_id))
    out.turns.sort(key=lambda t: (t.persona_id, t.timestamp, t.turn_id))
    asked = {q.question_id: q for q in questions if q.tier == tier}
    out.questions = [q.model_copy(update={"answer": asked[q.question_id].answer,
                                          "reference_answer": asked[q.question_id].reference_answer})
                     for q in bundle.questions if q.question_id in asked]
    kept = {(q, e) for q, row in asked.items() for e in row.evidence_ids}
    out.evidence = [e for e in bundle.evidence if (e.question_id, e.evidence_id) in kept]
    return out


def _borrowed(bundle: Bundle, rows: list[TierItem]) -> tuple[list[Session], list[Turn]]:
    """The haystack items of `rows` as sessions and turns of the tier's persona."""
    by_session: dict[str, list[Turn]] = {}
    by_id: dict[str, Turn] = {}
    wanted_sessions = {h.item_id for h in rows if h.kind == "session"}
    wanted_turns = {t for h in rows if h.kind == "chat" for t in h.turn_ids}
    for t in bundle.turns:
        if t.session_id in wanted_sessions:
            by_session.setdefault(t.session_id, []).append(t)
        if t.turn_id in wanted_turns:
            by_id[t.turn_id] = t
    categories = {s.session_id: s.category for s in bundle.sessions}
    sessions: list[Session] = []
    turns: list[Turn] = []
    for h in rows:
        parts = by_session.get(h.item_id, []) if h.kind == "session" else [by_id[t] for t in h.turn_ids if t in by_id]
        if not parts:
            continue
        sid = borrowed_id(h.persona_id, h.item_id)
        category = categories.get(parts[0].session_id, parts[0].category)
        sessions.append(Session(session_id=sid, persona_id=h.persona_id, started_at=h.timestamp, category=category))
        turns += [t.model_copy(update={"turn_id": borrowed_id(h.persona_id, t.turn_id), "session_id": sid,
                                       "persona_id": h.persona_id, "fact_ids": [], "paraphrase_ids": [],
                                       "doc_ids": [], "bullet_id": None, "time_refs": [], "callback_of": None})
                  for t in parts]
    return sessions, turns


def _written(chats: list[TierChatTurn], wanted: set[str]) -> tuple[list[Session], list[Turn]]:
    """The task chats `wanted` as sessions (of category information_sharing: a request, no fact) and turns."""
    by_chat: dict[str, list[TierChatTurn]] = {}
    for c in chats:
        if c.chat_id in wanted:
            by_chat.setdefault(c.chat_id, []).append(c)
    sessions, turns = [], []
    for chat_id, parts in sorted(by_chat.items()):
        parts.sort(key=lambda c: c.ordinal)
        sessions.append(Session(session_id=chat_id, persona_id=parts[0].persona_id, started_at=parts[0].timestamp,
                                category="information_sharing"))
        turns += [Turn(turn_id=f"{chat_id}-t{c.ordinal:02d}", session_id=chat_id, persona_id=c.persona_id,
                       timestamp=c.timestamp, role=c.role, text=c.text, kind="filler") for c in parts]
    return sessions, turns
