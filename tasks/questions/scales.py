"""The ordered scales of multiple-choice answers (see tasks/questions/mcq.py): dates, months, counts, amounts
and "Yes, N times" answers recognized by wording (`scale_of`), ranked (`ordinal_rank`), and filled with nearby
values in the same wording inside a valid range (`scale_fill`); `normalize` and `form_of` say when two
options are the same and what form an answer has."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from tasks.common.timeutil import human_date

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


def same_scale(scale: Scale, other: str, bounds: tuple[dt.date, dt.date] | None) -> bool:
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
