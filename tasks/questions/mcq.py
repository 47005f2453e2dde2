"""Multiple-choice items in FinPerMA's form: six options, one gold, five distractors.

Distractors are values of the gold's own kind from the persona's world, known by the question time:
- ordered answers (dates, months, counts, amounts, "Yes, N times"): values on the same scale and in the
  same wording (`scale_of`), the candidate's own first, then the persona's event dates and nearby values
  inside the valid range (dates and months inside the simulation, counts >= 0). How many distractors lie
  below the gold is drawn uniformly from 0..5 by the seeded RNG; when the range cannot hold that many on
  one side, the item stays short-answer, so the gold's rank among the six is uniform;
- weekdays: the other six;
- anything else: values sharing a family with the gold (`Pool.families`: the same attribute across
  subjects and time, stale values included; the same entity kind; the same document kind's titles; the
  same table column; plan titles). A distractor of the candidate's own pool that the world knows as a
  value of another family is dropped; values the world does not know (phrases the generator built in the
  gold's own wording) are kept. There is no any-value fallback: with fewer than five such distractors the
  item stays short-answer. Lengths: the number of distractors shorter than the gold is drawn uniformly
  from 0..5 and the closest lengths on each side are taken, so the gold is the unique longest option
  about one time in six.
- a candidate with `extra["own_distractors"]` (a domain pack whose options are a closed set: catalog
  titles, grid allocations, a fixed product list) gets its own distractors only, no fill from the world
  and no scale fill: ordered by rank (as above) when all of them lie on the gold's own scale, else by
  length.

Never used: a distractor equal to another option after normalization, one containing another option (or
contained in one) as a whole phrase, one the question itself names. Bare yes/no golds ("No" against
"Yes, once", ...) and items whose question lists its options (`extra["options_in_question"]`) stay
short-answer: the gold would be the odd one out, or the named options are fewer than six.

Shortcuts: a system that reads only the question and its options picks the longest option, the one sharing most
words with the question, the one the history mentions most often, or the template's commonest answer (the
difficulty baselines, tasks/evaluate/baselines.py). `shortcut_credit` is what each is expected to score on an
item (1 when it singles out the gold, 1/k when the gold ties with k - 1 others for its best score, else 0); the
stage makes an item multiple choice only while each heuristic's expected score over the persona's
multiple-choice items stays within its chance share (one in six), and the others stay short-answer, so no such
heuristic scores above chance by design.

Gold positions are dealt from shuffled blocks of the six positions (a seeded permuted-block design), so
they are uniform per persona. Scoring compares option content: `answer` is the gold option's text.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from schemas.qa import MCQ_OPTIONS
from tasks.common.facttext import attribute_phrase, mentions
from tasks.evaluate.baselines import HistoryIndex
from tasks.evaluate.text import content_words
from tasks.questions.base import Candidate, QContext
from tasks.questions.scales import WEEKDAYS, Scale, form_of, normalize, same_scale, scale_fill, scale_of

DISTRACTORS = MCQ_OPTIONS - 1


# -- world pool -------------------------------------------------------------------------------------
class Offer(list):
    """What `Pool.same_form` returns: fill values of the gold's kind (the list itself) plus what
    `pick_distractors` needs about the candidate: its own usable distractors, the question text (no
    option may appear in it) and whether the item must stay short-answer."""

    def __init__(self, fill: Iterable[str] = (), own: Iterable[str] = (), question: str = "",
                 skip: bool = False, ranks: Ranks | None = None, own_only: bool = False) -> None:
        super().__init__(fill)
        self.own, self.question, self.skip, self.ranks = list(own), question, skip, ranks
        self.own_only = own_only


class Ranks:
    """The gold's rank among ordered options (how many distractors lie below it), dealt from shuffled
    blocks of 0..5 (seeded). An item takes the first rank of the block its range allows (a count of 1
    cannot have five distractors below it); when none fits, the item stays short-answer and the block is
    kept for later items, so ranks stay uniform over a persona's ordered items."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.block = rng, []

    def take(self, fits: Callable[[int], bool]) -> int | None:
        if not self.block:
            self.block = list(range(MCQ_OPTIONS))
            self.rng.shuffle(self.block)
        for k in self.block:
            if fits(k):
                self.block.remove(k)
                return k
        return None


class Pool:
    """Values from one persona's world by family, for filling distractors of the gold's own kind."""

    def __init__(self, ctx: QContext) -> None:
        self.ctx = ctx
        # (family, value) -> first day the value is known to the persona
        seen: dict[tuple[str, str], dt.date] = {}

        def add(family: str, value: str, day: dt.date) -> None:
            value = (value or "").strip()
            if value and ((family, value) not in seen or day < seen[(family, value)]):
                seen[(family, value)] = day

        for f in sorted(ctx.world.facts, key=lambda f: f.fact_id):
            add("attr:" + attribute_phrase(f.attribute), f.value, f.valid_from)
        for e in sorted(ctx.world.entities, key=lambda e: e.entity_id):
            add("person" if e.kind == "person" else f"{e.kind}:{e.role}", e.name, e.first_seen)
        start = ctx.config.start_date
        for r in ctx.persona.profile.relationships:
            add("person", r.name, start)
        for p in sorted(ctx.world.plans, key=lambda p: p.plan_id):
            add("plan", p.title, p.created_on)
            for name, value in sorted(p.entity.items()):
                add(f"field:{name}", value, p.created_on)
        for d in sorted(ctx.corpus.documents, key=lambda d: (d.created_at, d.doc_id)):
            day = d.created_at.date()
            add(f"doc:{d.kind}", d.title, day)
            for table in d.tables:
                caption, columns = str(table.get("caption", "")), list(table.get("columns", []))
                for row in table.get("rows", []):
                    if row and str(row[0]).strip().lower() == "total":  # a sum, not a row of the column's kind
                        continue
                    for i, value in enumerate(row):
                        if isinstance(value, str) and i < len(columns):
                            add(f"column:{caption}:{columns[i]}", value, day)
        self.first: dict[tuple[str, str], dt.date] = seen
        self.by_value: dict[str, list[str]] = defaultdict(list)
        self.by_family: dict[str, list[str]] = defaultdict(list)
        for family, value in sorted(seen):
            self.by_value[value].append(family)
            self.by_family[family].append(value)
        self.dates = sorted({e.date for e in ctx.world.events})
        self.ranks = Ranks(ctx.rng("mcq:ranks"))

    def families(self, value: str) -> list[str]:
        """The families the world knows `value` in (empty for a phrase the world does not hold)."""
        return self.by_value.get(value.strip(), [])

    def known_by(self, family: str, day: dt.date) -> list[str]:
        """The family's values known to the persona by `day` (sorted)."""
        return [v for v in self.by_family.get(family, []) if self.first[(family, v)] <= day]

    def bounds(self) -> tuple[dt.date, dt.date]:
        return self.ctx.config.start_date, self.ctx.config.end_date

    def same_form(self, cand: Candidate, gold: str) -> Offer:
        """The candidate's own distractors of the gold's kind and fill values from the world (see the
        module docstring), in a deterministic order."""
        question = cand.question
        if cand.extra.get("options_in_question") or (form_of(gold) == "yesno" and scale_of(gold) is None):
            return Offer(question=question, skip=True)
        if cand.extra.get("own_distractors"):
            return Offer((), cand.distractors, question, ranks=self.ranks, own_only=True)
        day = (cand.asked_at or self.ctx.asked_at).date()
        families = self.families(gold)
        if form_of(gold) == "weekday":
            return Offer([w for w in WEEKDAYS if w != gold], [], question)
        scale = scale_of(gold)
        if scale is not None and (not families or form_of(gold) in ("iso_date", "human_date", "month", "integer")):
            lo, hi = self.bounds()
            own = [o for o in cand.distractors if same_scale(scale, o, (lo, hi))]
            return Offer(scale_fill(gold, (lo, hi), self.dates), own, question, ranks=self.ranks)
        own = [o for o in cand.distractors if self.kin(gold, families, o)]
        fill: list[str] = []
        for family in families:
            fill += self.known_by(family, day)
        return Offer(dict.fromkeys(v for v in fill if v != gold), own, question)

    def kin(self, gold: str, families: list[str], other: str) -> bool:
        """True when `other` is of the gold's kind: the same form, and a shared family (or, for a value the
        world does not hold, the gold is not a world value of another family either)."""
        if form_of(other) != form_of(gold):
            return False
        theirs = self.families(other)
        if not theirs:
            return True
        return bool(set(theirs) & set(families))


# -- choosing ---------------------------------------------------------------------------------------
def overlaps(a: str, b: str) -> bool:
    """True when two options are equal after normalization or one contains the other as a whole phrase."""
    x, y = normalize(a), normalize(b)
    if not x or not y:
        return True
    if x == y:
        return True
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return short in long_ and re.search(r"(?<!\w)" + re.escape(short) + r"(?!\w)", long_) is not None


def usable(gold: str, options: list[str], question: str = "") -> list[str]:
    """Distractors that differ from the gold and from each other after normalization, neither contain
    nor are contained in the gold, and are not named by the question."""
    out: list[str] = []
    seen: set[str] = set()
    for option in options:
        o = option.strip()
        key = normalize(o)
        if not key or key in seen or overlaps(o, gold):
            continue
        if question and mentions(question, o):
            continue
        out.append(o)
        seen.add(key)
    return out


def _take_most(seq: list[str], n: int, chosen: list[str]) -> list[str]:
    """Up to `n` of `seq`, in order, that overlap nothing already chosen (nor each other)."""
    got: list[str] = []
    for o in seq:
        if len(got) == n:
            break
        if not any(overlaps(o, c) for c in chosen + got):
            got.append(o)
    return got


def _take(seq: list[str], n: int, chosen: list[str]) -> list[str] | None:
    """The first `n` of `seq` that overlap nothing already chosen (nor each other); None when short."""
    got = _take_most(seq, n, chosen)
    return got if len(got) == n else None


def pick_distractors(gold: str, own: list[str], pool: list[str], rng: random.Random) -> list[str] | None:
    """Five distractors, or None when the item must stay short-answer. `pool` is `Pool.same_form`'s Offer
    (whose own distractors, already filtered to the gold's kind, replace `own`) or a plain list of fill
    values. Ordered golds: the count below the gold uniform in 0..5; others: the count shorter than the
    gold uniform in 0..5, closest lengths first, the candidate's own first on each side."""
    question, ranks = "", None
    if isinstance(pool, Offer):
        if pool.skip:
            return None
        own, question, ranks = pool.own, pool.question, pool.ranks
    elif form_of(gold) == "yesno" and scale_of(gold) is None:
        return None
    own, fill = usable(gold, list(own), question), usable(gold, list(pool), question)
    scale = scale_of(gold)
    if isinstance(pool, Offer) and pool.own_only:
        if scale is not None and own and all((s := scale_of(o)) is not None and s.key == scale.key for o in own):
            return _by_rank(gold, scale, own, [], rng, ranks)
        return _by_length(gold, own, [], rng)
    if scale is not None and not isinstance(pool, Offer) and form_of(gold) != "text":
        fill = usable(gold, fill + scale_fill(gold), question)  # a bare call: nearby values, no bounds
    if scale is not None and (form_of(gold) not in ("text", "number") or _on_scale(scale, own, fill)):
        return _by_rank(gold, scale, own, fill, rng, ranks)
    return _by_length(gold, own, fill, rng)


def _on_scale(scale: Scale, own: list[str], fill: list[str]) -> bool:
    """A phrase with a number or date is ordered when its fill (or own pool) is on its own scale."""
    return any((s := scale_of(o)) is not None and s.key == scale.key for o in fill + own)


def _by_rank(gold: str, scale: Scale, own: list[str], fill: list[str], rng: random.Random,
             ranks: Ranks | None = None) -> list[str] | None:
    """`below` distractors under the gold and the rest above it, the candidate's own first, then closest.
    `below` comes from `ranks` (a persona's dealer) or is drawn uniformly from 0..5; None when the valid
    range cannot hold it."""
    sides: dict[bool, list[tuple[int, float, int, str]]] = {True: [], False: []}
    for rank, (group, values) in enumerate(((0, own), (1, fill))):
        for i, o in enumerate(values):
            s = scale_of(o)
            if s is None or s.key != scale.key or s.value == scale.value:
                continue
            sides[s.value < scale.value].append((group, abs(s.value - scale.value), rank * 10_000 + i, o))
    lower = [o for *_, o in sorted(sides[True])]
    upper = [o for *_, o in sorted(sides[False])]
    room_low = len(_take_most(lower, DISTRACTORS, [gold]))
    room_high = len(_take_most(upper, DISTRACTORS, [gold]))

    def fits(k: int) -> bool:
        return k <= room_low and DISTRACTORS - k <= room_high

    if ranks is not None:
        below = ranks.take(fits)
        if below is None:
            return None
    else:
        below = rng.randrange(MCQ_OPTIONS)
        if not fits(below):
            return None
    low = _take(lower, below, [gold])
    if low is None:
        return None
    high = _take(upper, DISTRACTORS - below, [gold] + low)
    return None if high is None else low + high


def _by_length(gold: str, own: list[str], fill: list[str], rng: random.Random) -> list[str] | None:
    every = list(dict.fromkeys(own + fill))
    if len(every) < DISTRACTORS:
        return None
    rank = {o: (0 if o in own else 1, i) for i, o in enumerate(every)}
    shorter = sorted((o for o in every if len(o) < len(gold)), key=lambda o: (rank[o][0], len(gold) - len(o), rank[o]))
    longer = sorted((o for o in every if len(o) >= len(gold)), key=lambda o: (rank[o][0], len(o) - len(gold), rank[o]))
    want = rng.randint(0, DISTRACTORS)
    take_short = min(want, len(shorter))
    take_long = min(DISTRACTORS - take_short, len(longer))
    take_short = DISTRACTORS - take_long
    short = _take(shorter, take_short, [gold])
    if short is None:
        return None
    long_ = _take(longer, take_long, [gold] + short)
    if long_ is None:  # an overlap on one side: fill from the other side
        rest = _take(shorter + longer, DISTRACTORS - len(short), [gold] + short)
        return None if rest is None else short + rest
    return short + long_


def options_for(gold: str, distractors: list[str], position: int, rng: random.Random) -> tuple[list[str], int]:
    """Six options: the distractors in seeded order with the gold at `position`."""
    order = list(distractors)
    rng.shuffle(order)
    order.insert(position, gold)
    return order, position


def gold_longest(options: list[str], gold: int) -> bool:
    """True when the gold option is strictly longer than every other option."""
    return all(len(options[gold]) > len(o) for i, o in enumerate(options) if i != gold)


class Dealer:
    """Gold positions from shuffled blocks of 0..5: uniform per persona, seeded."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.block = rng, []

    def next(self) -> int:
        position = self.peek()
        self.block.pop()
        return position

    def peek(self) -> int:
        """The position `next` deals, without dealing it (an item that stays short-answer takes none)."""
        if not self.block:
            self.block = list(range(MCQ_OPTIONS))
            self.rng.shuffle(self.block)
        return self.block[-1]


# -- question-only shortcuts --------------------------------------------------------------------------------
SHORTCUTS = ("question_only_longest", "question_only_overlap", "question_only_frequent", "answer_prior")
"""The memory-free heuristics of the difficulty baselines (tasks/evaluate/baselines.py) that read a multiple-
choice item's question and options only (for `frequent`, how often each option was said before; for
`answer_prior`, which answers the template's candidates have, the persona's own stand-in for the release)."""


@dataclass(frozen=True)
class _Said:
    item_id: str
    timestamp: dt.datetime
    text: str


def history_index(ctx: QContext) -> HistoryIndex:
    """The persona's turns and chunks as the `question_only_frequent` baseline counts them."""
    items = [_Said(t.turn_id, t.timestamp, t.text) for t in ctx.corpus.turns]
    items += [_Said(c.chunk_id, c.created_at, c.text) for c in ctx.corpus.chunks]
    return HistoryIndex(items)


def shortcut_scores(question: str, options: list[str], asked_at: dt.datetime, index: HistoryIndex,
                    prior: Counter | None = None) -> dict[str, list[int]]:
    """Each SHORTCUT's score of every option (the heuristic picks the best, a tie by a guess among the best).
    `prior`: how many of the template's candidates have each answer (normalized)."""
    asked = set(content_words(question))
    return {"question_only_longest": [len(o) for o in options],
            "question_only_overlap": [len(asked & set(content_words(o))) for o in options],
            "question_only_frequent": [index.count(o, asked_at) for o in options],
            "answer_prior": [(prior or Counter())[normalize(o)] for o in options]}


def shortcuts(question: str, options: list[str], gold: int, asked_at: dt.datetime, index: HistoryIndex,
              prior: Counter | None = None) -> list[str]:
    """The SHORTCUTS that single out the gold (it alone scores best): a system reading the question and options
    alone would pick it."""
    scores = shortcut_scores(question, options, asked_at, index, prior)
    return [name for name, s in scores.items() if s[gold] == max(s) and s.count(s[gold]) == 1]


def shortcut_credit(question: str, options: list[str], gold: int, asked_at: dt.datetime, index: HistoryIndex,
                    prior: Counter | None = None) -> dict[str, float]:
    """What each SHORTCUT is expected to score on the item: 1 when it singles out the gold, 1/k when the gold is one
    of k options tied for its best score (it guesses among them), else 0. Over a persona's items, chance is one in
    six: a heuristic that singles out few golds but ties the gold with one other option often still scores above
    it, so the stage budgets this expectation, not the single-outs."""
    out = {}
    for name, s in shortcut_scores(question, options, asked_at, index, prior).items():
        best = max(s)
        out[name] = 1 / s.count(best) if s[gold] == best else 0.0
    return out
