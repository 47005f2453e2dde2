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

Gold positions are dealt from shuffled blocks of the six positions (a seeded permuted-block design), so
they are uniform per persona. Scoring compares option content: `answer` is the gold option's text.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from schemas.qa import MCQ_OPTIONS
from tasks.common.facttext import attribute_phrase, mentions
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext

DISTRACTORS = MCQ_OPTIONS - 1
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH = "(" + "|".join(MONTHS) + ")"
HUMAN_DATE = re.compile(_MONTH + r" \d{1,2}, \d{4}$")
HUMAN_DATE_IN = re.compile(r"\b" + _MONTH + r" (\d{1,2}), (\d{4})\b")
MONTH_YEAR = re.compile(_MONTH + r" (\d{4})$")
INTEGER = re.compile(r"^\d+$")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
YES_NO = ("yes", "no", "no never")
"""Exact yes/no answers (normalized)."""
TIMES = ("never", "once", "twice", "three times", "four times", "five times", "six times", "seven times",
         "eight times", "nine times", "ten times")
YES_COUNT = re.compile(r"^yes,? (once|twice|(\w+) times?)$", re.IGNORECASE)
WORD_NUMBERS = {w.split()[0]: n for n, w in enumerate(TIMES) if n >= 3}
COUNT_RANGE = 10
"""Ordered integers: fill values reach this many steps either side of the gold."""
DAY_RANGE = 60
"""Dates with no simulation bounds given (a bare call): fill days reach this far either side."""


_PUNCTUATION = re.compile(r"[^\w\s]")


@functools.lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """Lower case, punctuation dropped, spaces collapsed: options are distinct under this (memoized:
    option filtering compares the same few hundred strings many times)."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


def form_of(answer: str) -> str:
    """iso_date, human_date, month, weekday, integer, yesno (exact yes/no or "Yes, N times"), number (a
    number in a short phrase) or text."""
    text = answer.strip()
    if ISO_DATE.match(text):
        return "iso_date"
    if HUMAN_DATE.match(text):
        return "human_date"
    if MONTH_YEAR.match(text) or text in MONTHS:
        return "month"
    if text in WEEKDAYS:
        return "weekday"
    if INTEGER.match(text):
        return "integer"
    if normalize(text) in YES_NO or YES_COUNT.match(text):
        return "yesno"
    if NUMBER.search(text) and len(text.split()) <= 4:
        return "number"
    return "text"


# -- ordered scales ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scale:
    """Where an answer sits on an ordered scale: `kind` and `template` (the wording around the value)
    must match for two answers to be compared; `value` orders them."""

    kind: str  # iso | human | month | monthname | times | number
    template: str  # the text with the value replaced by "{}" (unit plurals folded)
    value: float
    raw: str  # the value's own text ("1,250.00", "March 3, 2024")

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.template


def _fold(template: str) -> str:
    """`{} months` and `{} month` compare equal."""
    return re.sub(r"\{\} (\w+?)s\b", r"{} \1", template)


def scale_of(text: str) -> Scale | None:
    """The answer's ordered scale (a date, month, count, amount, "Yes, N times"), or None (weekdays and
    text without a number or date are not ordered)."""
    t = text.strip()
    if ISO_DATE.match(t):
        try:
            return Scale("iso", "{}", dt.date.fromisoformat(t).toordinal(), t)
        except ValueError:
            return None
    m = HUMAN_DATE_IN.search(t)
    if m:
        try:
            day = dt.date(int(m.group(3)), MONTHS.index(m.group(1)) + 1, int(m.group(2)))
        except ValueError:
            return None
        return Scale("human", _fold(t[: m.start()] + "{}" + t[m.end():]), day.toordinal(), m.group(0))
    m = MONTH_YEAR.match(t)
    if m:
        return Scale("month", "{}", int(m.group(2)) * 12 + MONTHS.index(m.group(1)), t)
    if t in MONTHS:
        return Scale("monthname", "{}", MONTHS.index(t), t)
    m = YES_COUNT.match(t)
    if m:
        word = m.group(1).lower()
        n = TIMES.index(word) if word in TIMES else WORD_NUMBERS.get((m.group(2) or "").lower())
        if n is None and (m.group(2) or "").isdigit():
            n = int(m.group(2))
        return Scale("times", "{}", n, t) if n is not None else None
    m = NUMBER.search(t)
    if m:
        raw = m.group(0)
        return Scale("number", _fold(t[: m.start()] + "{}" + t[m.end():]), float(raw.replace(",", "")), raw)
    return None


def ordinal_rank(options: list[str], gold: int | None) -> int | None:
    """How many options lie below the gold when all six are on one ordered scale (same kind and wording);
    None otherwise."""
    if gold is None or not 0 <= gold < len(options):
        return None
    scales = [scale_of(o) for o in options]
    if any(s is None for s in scales) or len({s.key for s in scales}) != 1:  # type: ignore[union-attr]
        return None
    g = scales[gold].value  # type: ignore[union-attr]
    return sum(s.value < g for s in scales)  # type: ignore[union-attr]


def _render(gold: str, scale: Scale, value: float) -> str | None:
    """`gold` with its value replaced by `value`, in the gold's own format."""
    t = gold.strip()
    if scale.kind in ("iso", "human"):
        try:
            day = dt.date.fromordinal(int(value))
        except (ValueError, OverflowError):
            return None
        if scale.kind == "iso":
            return day.isoformat()
        return t.replace(scale.raw, human_date(day), 1)
    if scale.kind == "month":
        y, m = divmod(int(value), 12)
        return f"{MONTHS[m]} {y}"
    if scale.kind == "monthname":
        return MONTHS[int(value)] if 0 <= value < 12 else None
    if scale.kind == "times":
        n = int(value)
        if n < 1:
            return None
        words = not any(c.isdigit() for c in t)
        text = TIMES[n] if words and n < len(TIMES) else ("1 time" if n == 1 else f"{n} times")
        return t[: t.lower().index("yes") + 3] + ", " + text if "," in t else "Yes " + text
    raw = scale.raw
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    if value < 0:
        return None
    shown = f"{value:,.{decimals}f}" if "," in raw else f"{value:.{decimals}f}"
    start = NUMBER.search(t).start()  # type: ignore[union-attr]
    head, tail = t[:start], t[start + len(raw):]
    unit = re.match(r" (\w+)", tail)
    if unit and decimals == 0 and scale.value == int(scale.value):
        word = unit.group(1)
        if value == 1 and scale.value != 1 and word.endswith("s"):
            tail = " " + word[:-1] + tail[unit.end():]
        elif value != 1 and scale.value == 1 and not word.endswith("s"):
            tail = " " + word + "s" + tail[unit.end():]
    return head + shown + tail


def _steps(scale: Scale) -> tuple[list[float], list[float]]:
    """Nearby values below and above a number, closest first (integers >= 0; decimals > 0)."""
    v, raw = scale.value, scale.raw
    if "." not in raw and v == int(v):
        n = int(v)
        step = 1 if n < 100 else 10 ** (len(str(n)) - 2)
        below = [n - step * j for j in range(1, COUNT_RANGE + 1) if n - step * j >= 0]
        return below, [n + step * j for j in range(1, COUNT_RANGE + 1)]
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    step = max(round(v * 0.08, decimals), 10 ** -decimals)
    below = [round(v - step * j, decimals) for j in range(1, COUNT_RANGE + 1) if v - step * j > 0]
    return below, [round(v + step * j, decimals) for j in range(1, COUNT_RANGE + 1)]


def scale_fill(gold: str, bounds: tuple[dt.date, dt.date] | None = None,
               dates: Iterable[dt.date] = ()) -> list[str]:
    """Values on the gold's scale inside the valid range, most plausible first: for dates the persona's
    event dates, then every other day (closest first) between `bounds`; for months the simulated months;
    for counts and amounts nearby values (>= 0)."""
    scale = scale_of(gold)
    if scale is None:
        return []
    values: list[float]
    if scale.kind in ("iso", "human"):
        day = dt.date.fromordinal(int(scale.value))
        lo, hi = bounds or (day - dt.timedelta(days=DAY_RANGE), day + dt.timedelta(days=DAY_RANGE))
        known = sorted({d for d in dates if lo <= d <= hi}, key=lambda d: (abs((d - day).days), d))
        every = [lo + dt.timedelta(days=i) for i in range((hi - lo).days + 1)]
        every.sort(key=lambda d: (abs((d - day).days), d))
        values = [d.toordinal() for d in dict.fromkeys(known + every)]
    elif scale.kind == "month":
        if bounds is None:
            values = [scale.value + d for d in range(-12, 13)]
        else:
            lo, hi = (b.year * 12 + b.month - 1 for b in bounds)
            values = list(range(lo, hi + 1))
        values.sort(key=lambda v: (abs(v - scale.value), v))
    elif scale.kind == "monthname":
        values = sorted(range(12), key=lambda v: (abs(v - scale.value), v))
    elif scale.kind == "times":
        values = sorted(range(1, len(TIMES)), key=lambda v: (abs(v - scale.value), v))
    else:
        below, above = _steps(scale)
        values = [v for pair in zip(below + [None] * len(above), above + [None] * len(below), strict=True)
                  for v in pair if v is not None]
    shown = (_render(gold, scale, v) for v in values if v != scale.value)
    return list(dict.fromkeys(s for s in shown if s and s != gold))


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
            own = [o for o in cand.distractors if _same_scale(scale, o, (lo, hi))]
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


def _same_scale(scale: Scale, other: str, bounds: tuple[dt.date, dt.date] | None) -> bool:
    s = scale_of(other)
    if s is None or s.key != scale.key:
        return False
    if bounds is not None and s.kind in ("iso", "human"):
        return bounds[0].toordinal() <= s.value <= bounds[1].toordinal()
    if bounds is not None and s.kind == "month":
        return bounds[0].year * 12 + bounds[0].month - 1 <= s.value <= bounds[1].year * 12 + bounds[1].month - 1
    return s.value >= 0


def parse_human(text: str) -> dt.date:
    month, day, year = text.replace(",", "").split()
    return dt.date(int(year), MONTHS.index(month) + 1, int(day))


def numeric_variants(gold: str) -> list[str]:
    """The gold with its first number replaced by nearby values, keeping its format."""
    match = NUMBER.search(gold)
    if match is None:
        return []
    raw = match.group(0)
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    value = float(raw.replace(",", ""))
    if decimals == 0 and value == int(value):
        n = int(value)
        steps = [n + d for d in (1, -1, 2, -2, 3, -3, 4, 5, -4, 6, 10)] + [2 * n, n // 2]
        numbers = [m for m in steps if m >= 0 and m != n]
        shown = [f"{m:,}" if "," in raw else str(m) for m in numbers]
    else:
        numbers = [round(value * f, decimals) for f in (0.8, 1.2, 0.9, 1.1, 0.75, 1.25, 0.5, 1.5)]
        shown = [f"{m:,.{decimals}f}" if "," in raw else f"{m:.{decimals}f}" for m in numbers if m != value]
    return list(dict.fromkeys(gold[: match.start()] + s + gold[match.end():] for s in shown))


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
        if not self.block:
            self.block = list(range(MCQ_OPTIONS))
            self.rng.shuffle(self.block)
        return self.block.pop()
