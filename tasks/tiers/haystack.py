"""Everyday task chats as haystack items: the chats tasks/tiers/chats.py writes for a persona, sized in cl100k_base
tokens and dated at seeded moments between the persona's first item and its last question (a chat is about no day
of the persona's life, so any moment in it is as good as another)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

from schemas.tiers import TierChatTurn
from tasks.common.rng import rng_for
from tasks.tiers.model import Item, Life

ChatSource = Callable[[Life, int], Iterator[Item]]


def task_chat_items(life: Life, seed: int) -> Iterator[Item]:
    """An endless stream of task chats for `life`'s haystack (nothing when it has no items or questions)."""
    from tasks.sources.chunking import encoding
    from tasks.tiers.chats import task_chats

    last = life.last_question
    if not life.items or last is None:
        return
    start = min(i.timestamp for i in life.items)
    span = max((last - start).total_seconds() - 3600, 0.0)
    rng = rng_for(seed, life.persona_id, "tiers", None, "chat times")
    enc = encoding()
    for chat in task_chats(seed, life.persona_id):
        texts = [t for _, t in chat.turns]
        when = start + dt.timedelta(seconds=round(rng.random() * span))
        yield Item(chat.chat_id, "task_chat", life.persona_id, when, sum(len(enc.encode_ordinary(x)) for x in texts),
                   text="\n".join(texts), turns=tuple(chat.turns), topic=chat.topic)


def chat_rows(items: list[Item], persona_id: str) -> list[TierChatTurn]:
    """The `tier_chats` rows of the task chats among `items` (a minute between turns)."""
    return [TierChatTurn(chat_id=i.item_id, persona_id=persona_id, ordinal=k, role=role, text=text, topic=i.topic,
                         timestamp=i.timestamp + dt.timedelta(minutes=k - 1))
            for i in items if i.kind == "task_chat" for k, (role, text) in enumerate(i.turns, start=1)]
