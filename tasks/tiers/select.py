"""Building the length tiers of a release: per persona and budget, which items form the history and which questions
belong to it (README "Length tiers").

Per persona, the budgets are built smallest first and each tier starts from the one below, so the tiers nest: every
item, and every question, of a smaller tier is in each larger one (a length curve compares like with like).

- Cut (the own history holds more tokens than the budget). The questions are taken in a seeded order that goes
  round the categories (one of each category, then the next of each); a question is kept when the items its
  evidence needs fit in what is left of the budget (per evidence fact the smallest item carrying it; an
  all-instances question needs every instance it counts). Then the other own items, in a seeded order, join while
  they fit. What is dropped first is therefore what no kept question rests on; whole questions (with the items only
  they need) are dropped next, the ones the seeded order reaches last.
- Padded (the own history holds fewer tokens than the budget). Every own item, then haystack items until the
  tokens are within half a percent of the budget: other personas' sessions and chats (the turns of one unrelated
  request, lifted from another persona's session) in a seeded order, chats up to `chat_share` of the haystack's
  tokens. A haystack item is dated where it was in its own persona's life (the personas of a release share one
  calendar) and only before the persona's last question. It is refused when it collides: when it holds a name of
  the persona's world or questions, the name of its own persona or of its family, or a fact whose attribute one of
  the persona's questions asks about (a count of dinners out must not meet someone else's dinner out).
- A question belongs to a tier when every evidence fact has an item in the tier's history; an all-instances
  question (a count, a first or last, an absence) also needs every instance it ranges over. A count whose instances
  the cut partly removed is counted again on what the tier keeps (its reference answer says so); other such
  questions are left out of the tier.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field

from schemas.tiers import TierChatTurn, TierError, TierItem, TierQuestion, TierRow, tier_name
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date
from tasks.tiers.haystack import ChatSource, chat_rows
from tasks.tiers.model import Item, Life, Need, collisions, name_pattern

PAD_TOLERANCE = 0.005
"""A padded tier stops drawing haystack once its tokens are within this share of the budget."""
MAX_MISSES = 5_000
"""Haystack items refused (a collision) or too large in a row after which a padded tier stops drawing."""


@dataclass
class TierBuild:
    """The rows of every persona's tiers."""

    tiers: list[TierRow] = field(default_factory=list)
    history: list[TierItem] = field(default_factory=list)
    questions: list[TierQuestion] = field(default_factory=list)
    chats: list[TierChatTurn] = field(default_factory=list)


def build_tiers(lives: list[Life], budgets: list[int], seed: int, chat_share: float = 0.3,
                task_chats: ChatSource | None = None) -> TierBuild:
    """The tiers of every persona at every budget; `task_chats` writes the everyday task chats a padded tier draws on
    once the chats lifted from other personas run out (tasks/tiers/haystack.py; None: none). TierError when a
    budget holds no question's evidence for a persona whose own history is longer than the budget (the tier would
    hold none of its questions)."""
    out = TierBuild()
    if not budgets:
        return out
    lenders = {life.persona_id: life for life in lives}
    for life in lives:
        kept: set[str] = set()
        generated = task_chats(life, seed) if task_chats is not None else iter(())
        haystack = Haystack(life, lenders, seed, chat_share, generated)
        for budget in sorted(budgets):
            name = tier_name(budget)
            if life.own_tokens > budget:
                kept = cut(life, budget, kept, seed)
                items = [i for i in life.items if i.item_id in kept]
                borrowed: list[Item] = []
            else:
                items = list(life.items)
                kept = {i.item_id for i in items}
                borrowed = haystack.fill(budget - life.own_tokens)
            members = [q for n in life.needs if (q := member(n, kept, name)) is not None]
            if life.own_tokens > budget and life.needs and not members:
                cheapest = min(need_cost(n, life) for n in life.needs)
                raise TierError(f"tier {name} ({budget:,} tokens) is below the shortest evidence window of persona "
                                f"{life.persona_id}: its cheapest question needs {cheapest:,} tokens of history")
            out.tiers.append(_tier_row(name, budget, life, items, borrowed, members))
            out.history += _positions(name, life.persona_id, items, borrowed)
            out.questions += members
        out.chats += chat_rows(haystack.taken, life.persona_id)
    return out


def cut(life: Life, budget: int, start: set[str], seed: int) -> set[str]:
    """The own items a cut tier keeps: those of the tier below (`start`), the evidence of the questions that fit in
    the seeded order, then other items while they fit."""
    size = {i.item_id: i.tokens for i in life.items}
    kept = set(start)
    used = sum(size[i] for i in kept)
    for need in question_order(life.needs, seed, life.persona_id):
        add = completion(need, kept, size)
        if add is None:
            continue
        cost = sum(size[i] for i in add)
        if used + cost <= budget:
            kept |= add
            used += cost
    rest = [i for i in life.items if i.item_id not in kept]
    rng_for(seed, life.persona_id, "tiers", None, f"fill {budget}").shuffle(rest)
    for item in rest:
        if used + item.tokens <= budget:
            kept.add(item.item_id)
            used += item.tokens
    return kept


def question_order(needs: list[Need], seed: int, persona_id: str) -> list[Need]:
    """The questions in a seeded order that goes round the categories."""
    by_category: dict[str, list[Need]] = {}
    for need in sorted(needs, key=lambda n: n.question_id):
        by_category.setdefault(need.category, []).append(need)
    rng = rng_for(seed, persona_id, "tiers", None, "question order")
    for group in by_category.values():
        rng.shuffle(group)
    categories = sorted(by_category)
    rng.shuffle(categories)
    out: list[Need] = []
    for depth in range(max((len(g) for g in by_category.values()), default=0)):
        out += [by_category[c][depth] for c in categories if depth < len(by_category[c])]
    return out


def completion(need: Need, kept: set[str], size: dict[str, int]) -> set[str] | None:
    """The items to add to `kept` so that `need` is met (per group its smallest item), or None when it cannot be."""
    add: set[str] = set()
    groups = list(need.groups) + [u.containers for u in need.units] if need.all_instances else list(need.groups)
    for group in groups:
        options = [c for c in group if c in size]
        if not options:
            return None
        if any(c in kept or c in add for c in options):
            continue
        add.add(min(options, key=lambda c: (size[c], c)))
    return add


def need_cost(need: Need, life: Life) -> int:
    """Tokens of the smallest history that meets `need` (its evidence window)."""
    size = {i.item_id: i.tokens for i in life.items}
    add = completion(need, set(), size)
    return sum(size[i] for i in add) if add is not None else 0


def member(need: Need, kept: set[str], tier: str) -> TierQuestion | None:
    """`need` as a question of the tier whose history keeps `kept`, or None when it does not belong."""
    if not all(any(c in kept for c in group) for group in need.groups):
        return None
    evidence = [e for e, item in need.evidence if item in kept]
    row = TierQuestion(tier=tier, question_id=need.question_id, persona_id=need.persona_id, category=need.category,
                       answer=need.answer, reference_answer=need.reference_answer, evidence_ids=evidence)
    if not need.all_instances:
        return row
    visible = [u for u in need.units if any(c in kept for c in u.containers)]
    if len(visible) == len(need.units):
        return row
    if not need.countable or not visible:
        return None
    return row.model_copy(update={"answer": str(len(visible)), "rederived": True,
                                  "reference_answer": recount_reference(len(visible), [u.date for u in visible])})


def recount_reference(n: int, dates: list[dt.date]) -> str:
    """The reference answer of a count taken again on a tier's history."""
    days = [human_date(d) for d in sorted(dates)]
    listed = days[0] if len(days) == 1 else ", ".join(days[:-1]) + " and " + days[-1]
    return f"{n}, in what this history holds: {listed}."


class Haystack:
    """The haystack items one persona may be lent, drawn in a seeded order as padded tiers ask for them (the next,
    larger tier goes on where the smaller stopped, so padded tiers nest too)."""

    def __init__(self, life: Life, lenders: dict[str, Life], seed: int, chat_share: float,
                 generated: Iterator[Item] | None = None) -> None:
        self.life, self.chat_share = life, chat_share
        self.pattern = name_pattern(life.vocabulary)
        self.patterns = {pid: name_pattern(other.own_names) for pid, other in lenders.items()}
        asked, last = life.asked_attributes, life.last_question
        sessions = [i for pid, o in sorted(lenders.items()) if pid != life.persona_id for i in o.items
                    if i.kind == "session" and not (i.attributes & asked) and (last is None or i.timestamp < last)]
        chats = [c for pid, o in sorted(lenders.items()) if pid != life.persona_id for c in o.chats
                 if last is None or c.timestamp < last]
        rng = rng_for(seed, life.persona_id, "tiers", None, "haystack")
        rng.shuffle(sessions)
        rng.shuffle(chats)
        self.sessions: Iterator[Item] = iter(sessions)
        self.chats: Iterator[Item] = _chain(chats, generated if generated is not None else iter(()))
        self.taken: list[Item] = []
        self.used_sessions: set[str] = set()
        self.tokens = {"session": 0, "chat": 0}

    def fill(self, room: int) -> list[Item]:
        """Every haystack item taken so far and more, until their tokens are within PAD_TOLERANCE of `room` (or
        nothing is left to take: MAX_MISSES items in a row refused or too large)."""
        total = sum(self.tokens.values())
        target = room * (1 - PAD_TOLERANCE)
        spare: list[Item] = []  # drawn but too large for what was left; offered again to the next, larger tier
        misses = 0
        while total < target and misses < MAX_MISSES:
            kind = "chat" if self.tokens["chat"] < self.chat_share * max(total, 1) else "session"
            item = self._next(kind) or self._next("session" if kind == "chat" else "chat")
            if item is None:
                break
            if total + item.tokens > room:
                spare.append(item)
                misses += 1
                continue
            self._take(item)
            total += item.tokens
            misses = 0
        self._return(spare)
        return list(self.taken)

    def _next(self, kind: str) -> Item | None:
        for k, item in enumerate(self.sessions if kind == "session" else self.chats):
            if self.acceptable(item):
                return item
            if k >= MAX_MISSES:
                break
        return None

    def acceptable(self, item: Item) -> bool:
        """Not already in the history (a chat of a taken session, or a session a chat was taken from), and
        holding no colliding name."""
        if (item.session_id or item.item_id) in self.used_sessions:
            return False
        lender = self.patterns.get(item.persona_id)
        return not collisions(item.text, self.pattern) and not collisions(item.text, lender)

    def _take(self, item: Item) -> None:
        self.taken.append(item)
        self.used_sessions.add(item.session_id or item.item_id)
        self.tokens["session" if item.kind == "session" else "chat"] += item.tokens

    def _return(self, spare: list[Item]) -> None:
        sessions = [i for i in spare if i.kind == "session"]
        chats = [i for i in spare if i.kind == "chat"]
        self.sessions = _chain(sessions, self.sessions)
        self.chats = _chain(chats, self.chats)


def _chain(first: list[Item], rest: Iterator[Item]) -> Iterator[Item]:
    yield from first
    yield from rest


def _tier_row(name: str, budget: int, life: Life, items: list[Item], borrowed: list[Item],
              members: list[TierQuestion]) -> TierRow:
    own = sum(i.tokens for i in items)
    hay = sum(i.tokens for i in borrowed)
    return TierRow(tier=name, persona_id=life.persona_id, budget=budget, mode="cut" if life.own_tokens > budget
                   else "padded", tokens=own + hay, own_tokens=own, haystack_tokens=hay,
                   items=len(items) + len(borrowed), questions=len(members),
                   rederived=sum(q.rederived for q in members))


def _positions(name: str, persona_id: str, items: list[Item], borrowed: list[Item]) -> list[TierItem]:
    rows = [(i, "own") for i in items] + [(i, "haystack") for i in borrowed]
    rows.sort(key=lambda r: (r[0].timestamp, r[1] != "own", r[0].item_id))
    return [TierItem(tier=name, persona_id=persona_id, position=k, item_id=i.item_id, kind=i.kind, source=source,
                     origin_persona_id=i.persona_id, timestamp=i.timestamp, tokens=i.tokens,
                     turn_ids=list(i.turn_ids)) for k, (i, source) in enumerate(rows)]
