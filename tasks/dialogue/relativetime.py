"""Relative-time phrases ("yesterday", "last Tuesday", "two weeks ago") generated from, and checked
against, the simulated calendar.

Only past references are handled: the user talking about something that already happened. A phrase
is said on day `on` (the persona-local date of the turn) and names a persona-local date `ref`. Each
phrase of the grammar has one or more *readings*, inclusive date intervals it can denote; a phrase
agrees with `ref` when some reading contains it. Tolerances, in days before `on` unless a calendar span:

| phrase                                             | reading                                          |
|----------------------------------------------------|--------------------------------------------------|
| today, earlier today, this morning, this afternoon | 0                                                |
| yesterday, last night                              | 1                                                |
| the day before yesterday, the night before last    | 2                                                |
| <n> days ago (n >= 1, words or digits)             | exactly n; about/around/roughly n days: n-1..n+1 |
| a couple of days ago / a few / several days ago    | 2..3 / 2..6 / 3..9                               |
| a week ago, one week ago                           | 5..10                                            |
| <n> weeks ago (n >= 2)                             | 7n-3..7n+3 (two weeks ago = 11..17)              |
| a couple of / a few / several weeks ago            | 10..21 / 14..35 / 21..56                         |
| a month ago, about a month ago                     | 24..40                                           |
| <n> months ago (n >= 2)                            | 30n-15..30n+15                                   |
| a couple of / a few / several months ago           | 45..80 / 60..150 / 90..240                       |
| a year ago / <n> years ago (n >= 2)                | 330..400 / 365n-45..365n+45                      |
| <n> hours ago, minutes ago, a few hours ago        | 0..1                                             |
| over / more than / just over <n> <unit>s ago       | N+1..2N where N = n x (1, 7, 30, 365) days       |
| less than / under <n> <unit>s ago                  | 0..N-1                                           |
| the past (or last) few days / couple of days       | 0..6 / 0..3                                      |
| the past (or last) week / few weeks / month / year | 0..7 / 0..35 / 0..31 / 0..366                    |
| earlier this week / this month / this year         | its Monday / 1st / January 1st .. `on`           |
| last week                                          | the previous calendar week, Monday..Sunday       |
| last weekend                                       | Saturday..Sunday of the previous calendar week   |
| last month / last year                             | the previous calendar month / year               |
| on <Weekday>                                       | that weekday 1..6 days before (none if `on` is)  |
| last <Weekday>                                     | the most recent one (1..7 days before) OR the    |
|                                                    | one in the previous calendar week: both accepted |
| this past <Weekday>                                | the most recent one, 1..7 days before            |
| back in <Month>                                    | the latest such month ending before `on`'s month |

Modifiers about/around/roughly/approximately/almost/nearly widen only exact day counts (the other
phrases are approximate already). `find` ignores vague phrases ("the other day", "recently"), future
ones ("tomorrow", "next week"), `last ...` right after "the" ("the last Monday of the month"), and
`on <Weekday>` unless its sentence reads as past (a past-tense verb and no future cue such as "will",
"next", "going to", "plan"): "my class starts on Monday" is a plan, not a reference.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
}  # fmt: skip
WORDS = {n: w for w, n in NUMBERS.items() if w not in ("a", "an")}
UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
VAGUE = {
    ("day", "couple"): (2, 3), ("day", "few"): (2, 6), ("day", "several"): (3, 9),
    ("week", "couple"): (10, 21), ("week", "few"): (14, 35), ("week", "several"): (21, 56),
    ("month", "couple"): (45, 80), ("month", "few"): (60, 150), ("month", "several"): (90, 240),
    ("year", "couple"): (600, 900), ("year", "few"): (900, 1800), ("year", "several"): (1000, 3000),
}  # fmt: skip
ABOUT = ("about", "around", "roughly", "approximately", "almost", "nearly")
OVER = ("just over", "more than", "over")
UNDER = ("less than", "under")
FIXED_DAYS = {
    "today": (0, 0), "earlier today": (0, 0), "this morning": (0, 0), "this afternoon": (0, 0),
    "yesterday": (1, 1), "last night": (1, 1), "the day before yesterday": (2, 2), "the night before last": (2, 2),
    "the past few days": (0, 6), "the last few days": (0, 6),
    "the past couple of days": (0, 3), "the last couple of days": (0, 3),
    "the past week": (0, 7), "the last week": (0, 7), "the past few weeks": (0, 35), "the last few weeks": (0, 35),
    "the past month": (0, 31), "the last month": (0, 31), "the past year": (0, 366), "the last year": (0, 366),
}  # fmt: skip

Span = tuple[dt.date, dt.date]


def _week_start(on: dt.date) -> dt.date:
    """Monday of `on`'s calendar week."""
    return on - dt.timedelta(days=on.weekday())


def _month_span(year: int, month: int) -> Span:
    """First and last day of a calendar month."""
    nxt = dt.date(year + month // 12, month % 12 + 1, 1)
    return dt.date(year, month, 1), nxt - dt.timedelta(days=1)


def _last_month(on: dt.date) -> list[Span]:
    first = on.replace(day=1) - dt.timedelta(days=1)
    return [_month_span(first.year, first.month)]


CALENDAR: dict[str, Callable[[dt.date], list[Span]]] = {
    "earlier this week": lambda on: [(_week_start(on), on)],
    "earlier this month": lambda on: [(on.replace(day=1), on)],
    "earlier this year": lambda on: [(dt.date(on.year, 1, 1), on)],
    "last week": lambda on: [(_week_start(on) - dt.timedelta(days=7), _week_start(on) - dt.timedelta(days=1))],
    "last weekend": lambda on: [(_week_start(on) - dt.timedelta(days=2), _week_start(on) - dt.timedelta(days=1))],
    "last month": _last_month,
    "last year": lambda on: [(dt.date(on.year - 1, 1, 1), dt.date(on.year - 1, 12, 31))],
}


def _alternation(words) -> str:
    """A regex alternation of phrases, longest first, with any run of spaces matching any whitespace."""
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))


_QTY = _alternation(["a couple of", "a couple", "a few", "several", *NUMBERS]) + r"|\d{1,3}"
_MOD = _alternation(ABOUT + OVER + UNDER)
PATTERNS = {
    "ago": rf"(?:(?P<mod>{_MOD})\s+)?(?P<qty>{_QTY})\s+(?P<unit>minute|hour|day|week|month|year)s?\s+ago",
    "fixed": rf"(?P<fixed>{_alternation([*FIXED_DAYS, *CALENDAR])})",
    "weekday": rf"(?P<wk>on|last|this\s+past)\s+(?P<wd>{'|'.join(WEEKDAYS)})",
    "month": rf"back\s+in\s+(?P<month>{'|'.join(MONTHS)})",
}
_HINTS = {
    "ago": ("ago",),
    "fixed": ("today", "yesterday", "morning", "afternoon", "last", "past", "earlier"),
    "weekday": tuple(w.lower() for w in WEEKDAYS),
    "month": ("back",),
}
"""Lower-case words one of which a text must contain for the pattern to match (a cheap prefilter)."""
_FIND = {k: re.compile(rf"(?<![\w-])(?:{p})(?!\w)", re.IGNORECASE) for k, p in PATTERNS.items()}
_WHOLE = {k: re.compile(p, re.IGNORECASE) for k, p in PATTERNS.items()}
_PAST = re.compile(
    r"\b(?:was|were|had|did|went|got|came|saw|met|took|made|said|told|heard|found|felt|gave|left|ran|spent|"
    r"bought|brought|thought|began|wrote|sent|paid|lost|won|ate|drove|flew|sat|slept|knew|became|kept|held|"
    r"broke|fell|caught|chose|hit|put|quit|shut|"
    r"(?<!\bam )(?<!\bis )(?<!\bare )(?<!\bso )(?<!\bvery )(?<!\bbe )(?<!\bbeen )(?<!\bget )(?<!\bfeel )"
    r"(?<!\bI'm )(?<!\bI’m )(?:\w{2,}ed))\b",
    re.IGNORECASE,
)
"""A past-tense verb; an `-ed` word after am/is/are/so/very/be/been/get/feel/I'm is an adjective
("excited", "interested") and does not count, nor do words like "red" and "bed"."""
_FUTURE = re.compile(
    r"\b(?:will|won't|gonna|going\s+to|next|tomorrow|upcoming|coming|plan|plans|planning|planned|scheduled|"
    r"booked|until|till|hope|hoping|want|wanna|need|should|shall|every|usually|always|\w+['’]ll)\b",
    re.IGNORECASE,
)
_AFTER_THE = re.compile(r"(?<!\w)the\s+$", re.IGNORECASE)


def _norm(phrase: str) -> str:
    """Lower-cased, whitespace collapsed, surrounding punctuation stripped."""
    return " ".join(phrase.lower().split()).strip(" .,;:!?\"'()")


def _qty(text: str) -> int | str:
    """`two` -> 2, `12` -> 12, `a couple of` -> `couple`, `a few` -> `few`, `several` -> `several`."""
    text = _norm(text)
    if text.isdigit():
        return int(text)
    if text in NUMBERS:
        return NUMBERS[text]
    return text.split()[1] if text.startswith("a ") else text


def _ago_days(mod: str | None, qty: int | str, unit: str) -> tuple[int, int]:
    """Days-before interval of `<mod> <qty> <unit>s ago` (see the module table)."""
    if unit in ("minute", "hour"):
        per_day = 1440 if unit == "minute" else 24
        n = qty if isinstance(qty, int) else 0
        return n // per_day, n // per_day + 1
    mod = _norm(mod) if mod else None
    if isinstance(qty, str):
        lo, hi = VAGUE[(unit, qty)]
        return (0, hi) if mod in UNDER else (lo, hi)
    nominal = qty * UNIT_DAYS[unit]
    if mod in OVER:
        return nominal + 1, max(2 * nominal, nominal + 1)
    if mod in UNDER:
        return 0, max(nominal - 1, 0)
    if unit == "day":
        return (max(qty - 1, 0), qty + 1) if mod in ABOUT else (qty, qty)
    if qty == 1:
        return {"week": (5, 10), "month": (24, 40), "year": (330, 400)}[unit]
    slack = {"week": 3, "month": 15, "year": 45}[unit]
    return nominal - slack, nominal + slack


def _days_before(on: dt.date, lo: int, hi: int) -> list[Span]:
    return [(on - dt.timedelta(days=hi), on - dt.timedelta(days=lo))]


def _weekday_days(kind: str, weekday: int, on: dt.date) -> list[Span]:
    """Readings of `on|last|this past <Weekday>` as single days."""
    back = (on.weekday() - weekday) % 7
    recent = on - dt.timedelta(days=back or 7)
    if kind == "on":
        return [(recent, recent)] if back else []
    days = {recent}
    if kind == "last":
        days.add(_week_start(on) - dt.timedelta(days=7 - weekday))
    return [(d, d) for d in sorted(days)]


def _back_in(month: int, on: dt.date) -> list[Span]:
    """The most recent month named `month` that ended before `on`'s month began."""
    year = on.year if month < on.month else on.year - 1
    return [_month_span(year, month)]


def readings(phrase: str, on: dt.date) -> list[Span] | None:
    """Every date interval the phrase can denote when said on `on`; None when it is not in the grammar.

    An empty list means the phrase is recognised but names no past day (`on Tuesday` said on a Tuesday).
    """
    text = _norm(phrase)
    for kind, pattern in _WHOLE.items():
        m = pattern.fullmatch(text)
        if m is None:
            continue
        if kind == "ago":
            return _days_before(on, *_ago_days(m["mod"], _qty(m["qty"]), m["unit"].lower()))
        if kind == "fixed":
            key = " ".join(m["fixed"].split())
            return _days_before(on, *FIXED_DAYS[key]) if key in FIXED_DAYS else CALENDAR[key](on)
        if kind == "weekday":
            return _weekday_days(" ".join(m["wk"].split()), WEEKDAYS.index(m["wd"].capitalize()), on)
        return _back_in(MONTHS.index(m["month"].capitalize()) + 1, on)
    return None


def resolve(phrase: str, on: dt.date) -> tuple[dt.date, dt.date] | None:
    """The inclusive date interval the phrase can denote when said on `on` (None if unrecognised, or if
    it names no past day). For `last Tuesday` it spans both accepted Tuesdays; use `agrees` for the
    exact weekday test."""
    spans = readings(phrase, on)
    if not spans:
        return None
    return min(s for s, _ in spans), max(e for _, e in spans)


def agrees(phrase: str, ref: dt.date, on: dt.date) -> bool:
    """Whether `phrase`, said on `on`, can name `ref` (False for a phrase outside the grammar)."""
    return any(start <= ref <= end for start, end in readings(phrase, on) or [])


def _pinpoints(phrase: str, ref: dt.date, on: dt.date) -> bool:
    """Whether every reading of the phrase contains `ref` (no listener could take it for another day)."""
    spans = readings(phrase, on)
    return bool(spans) and all(start <= ref <= end for start, end in spans)


def _word(n: int) -> str:
    return WORDS.get(n, str(n)) if n <= 12 else str(n)


def _candidates(ref: dt.date, on: dt.date) -> list[str]:
    """Natural phrases for the gap between `ref` and `on`, before checking they pinpoint `ref`."""
    gap, weekday = (on - ref).days, WEEKDAYS[ref.weekday()]
    if gap <= 1:
        return ["today", "earlier today"] if gap == 0 else ["yesterday"]
    out = ["two days ago", "the day before yesterday"] if gap == 2 else []
    if 3 <= gap <= 6:
        out.append(f"{_word(gap)} days ago")
    if gap <= 7:
        out += [f"on {weekday}", f"last {weekday}", "earlier this week"]
    if 7 <= gap <= 13:
        out += ["a week ago", "last week"]
    if 11 <= gap < 60:
        out += [f"{_word(round(gap / 7))} weeks ago", "about a month ago", "last month", "earlier this month"]
    if gap >= 60:
        out += [f"{_word(round(gap / 30))} months ago", f"back in {MONTHS[ref.month - 1]}"]
    if gap >= 330:
        out += ["a year ago", "last year"]
    return out


def describe(ref: dt.date, on: dt.date, rng: random.Random) -> str:
    """A phrase naming `ref` as seen on day `on`, chosen with `rng` among the valid ones for that gap.

    Raises ValueError when `ref` is after `on` (only past references are described).
    """
    if ref > on:
        raise ValueError(f"{ref} is after {on}: only past days can be described")
    options = [p for p in _candidates(ref, on) if _pinpoints(p, ref, on)]
    return rng.choice(options)


def _reads_as_past(text: str, start: int, end: int) -> bool:
    """Whether the sentence around text[start:end] has a past-tense verb and no future cue."""
    left = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    rights = [i for i in (text.find(c, end) for c in ".!?\n") if i >= 0]
    sentence = text[left : min(rights, default=len(text))]
    return bool(_PAST.search(sentence)) and not _FUTURE.search(sentence)


def _checkable(kind: str, text: str, m: re.Match[str]) -> bool:
    """Drop `last ...` after "the", and `on <Weekday>` outside a past-tense sentence."""
    if m.group(0)[:4].lower() == "last" and _AFTER_THE.search(text, 0, m.start()):
        return False
    if kind == "weekday" and m["wk"].lower() == "on":
        return _reads_as_past(text, m.start(), m.end())
    return True


def find(text: str) -> list[str]:
    """The past relative-time phrases in `text`, as written, in text order.

    Overlaps are resolved longest first ("the day before yesterday" over "yesterday", "over a week ago"
    over "a week ago"); phrases are whole words and never overlap.
    """
    low = text.lower()
    spans = [
        (m.start(), m.end())
        for kind, pattern in _FIND.items()
        if any(hint in low for hint in _HINTS[kind])
        for m in pattern.finditer(text)
        if _checkable(kind, text, m)
    ]
    taken: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0] - s[1], s[0])):
        if all(end <= s or start >= e for s, e in taken):
            taken.append((start, end))
    return [text[s:e] for s, e in sorted(taken)]
