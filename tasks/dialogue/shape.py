"""How a dialogue category shapes its turns: user message length, assistant reply length, register.

Document talk is longer and more formal than a quick status update; advice seeking gets the longest
replies. One table shared by the dialogue stage, the offline narrators and the verifier.
"""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    user_sentences: tuple[int, int]
    """Fewest and most sentences of a user message."""
    reply_words: tuple[int, int]
    """Fewest and most words of an assistant reply."""
    formality_shift: float
    """Added to the persona's formality (clamped to 0..1) for this kind of talk."""


SHAPES: dict[str, Shape] = {
    "information_sharing": Shape((3, 6), (60, 230), 0.0),
    "advice_seeking": Shape((3, 7), (100, 290), 0.0),
    "status_update": Shape((2, 4), (45, 150), -0.1),
    "scheduling": Shape((3, 6), (80, 250), 0.05),
    "attachment_consultation": Shape((4, 8), (100, 320), 0.25),
}
FILLER = Shape((2, 4), (12, 120), 0.0)
"""Small talk and unrelated requests."""


def shape_of(category: str, kind: str = "initial") -> Shape:
    """The shape of a turn of `kind` (initial, followup, filler) in a topic of `category`."""
    if kind == "filler":
        return FILLER
    shape = SHAPES[category]
    if kind == "followup":  # a follow-up goes deeper on one point: a sentence or so shorter than an opening,
        lo, hi = shape.user_sentences  # and its answer may be short (a direct answer and one new suggestion)
        return shape._replace(user_sentences=(max(2, lo - 1), max(2, hi - 1)),
                              reply_words=(max(30, shape.reply_words[0] * 2 // 3), shape.reply_words[1]))
    return shape


def shifted_formality(formality: float, category: str, kind: str = "initial") -> float:
    """The persona's formality adjusted for the kind of talk, within 0..1."""
    return min(1.0, max(0.0, formality + shape_of(category, kind).formality_shift))
