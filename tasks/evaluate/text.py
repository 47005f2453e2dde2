"""Text normalization shared by the offline reader and the deterministic scorers."""

from __future__ import annotations

import functools
import re
import unicodedata

STOPWORDS = frozenset(
    "a an the of to in on at for by with from and or but is are was were be been being do does did has have had "
    "i me my mine you your yours he him his she her hers it its we us our they them their this that these those "
    "what which who whom whose when where why how many much did does any some there here as than then so if not "
    "no nor about into over after before since until up down out off again ever just also can could would should "
    "will shall may might must am".split()
)
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


@functools.lru_cache(maxsize=1 << 16)  # the same memory items are read for many questions
def normalize(text: str) -> str:
    """Lower case, accents folded, punctuation dropped (decimal points kept), articles removed, spaces collapsed."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^a-z0-9. ]+", " ", text)
    words = [w for w in text.split() if w not in ("a", "an", "the")]
    return " ".join(words)


def words(text: str) -> list[str]:
    return _WORD.findall(normalize(text))


def content_words(text: str) -> list[str]:
    return list(_content_words(text))


@functools.lru_cache(maxsize=1 << 16)
def _content_words(text: str) -> tuple[str, ...]:
    return tuple(w for w in words(text) if w not in STOPWORDS)


def numbers(text: str) -> list[float]:
    """Every number in `text` (digits, or number words up to twenty), in order."""
    out = []
    for token in re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?|[A-Za-z]+", text):
        if token[0].isdigit() or token[0] in "+-":
            try:
                out.append(float(token.replace(",", "")))
            except ValueError:
                continue
        elif token.lower() in _NUMBER_WORDS:
            out.append(float(_NUMBER_WORDS[token.lower()]))
    return out


_DATE_LIKE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|"
                        r"apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|"
                        r"dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
"""Text that names a date: never read as one number (a month's year would match any other date of the year)."""


def as_number(text: str) -> float | None:
    """The value of `text` when it is essentially one number (with an optional unit word or currency sign)."""
    stripped = text.strip()
    if _DATE_LIKE.search(stripped):
        return None  # "2024-09-21", "April 2024": a date, whose year is no count to compare
    match = _NUMBER.search(stripped)
    if not match:
        return _NUMBER_WORDS.get(normalize(stripped))
    rest = (stripped[:match.start()] + " " + stripped[match.end():]).strip(" $€£%.")
    if len(rest.split()) > 2:
        return None
    return float(match.group().replace(",", ""))
