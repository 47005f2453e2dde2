"""Whether a turn or chunk conveys a fact: it holds one of the fact's surface forms, or the realizer recorded a
mention of the fact there in other words (a `fact_mentions` row whose mode is one of REALIZED_MODES, that counts
as evidence of the value, with a span the text holds, or judged by a real model's fact_check verdict to convey
it: `checked_by = fact_check`, no span; tasks/dialogue/livecheck.py).

Questions take their evidence by this rule (tasks/questions/base.py), and the verifier and the question review
check cited evidence the same way, so a fact said only as "I've joined Pulse" is evidence of `gym = Pulse Gym`
wherever it was recorded, and nowhere else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from schemas.corpus import REALIZED_MODES, FactMention
from schemas.world import Fact
from tasks.common.facttext import carries, mentions

JUDGED = "\x00fact_check"
"""Stands among an item's spans for a fact_check verdict (which has no span): the whole text conveys the fact."""
Spans = Mapping[tuple[str, str, str], tuple[str, ...]]
"""(evidence kind, evidence id, fact id) -> the recorded spans that say the fact's value in other words."""


def realized_spans(rows: Iterable[FactMention]) -> dict[tuple[str, str, str], tuple[str, ...]]:
    """The spans of every counted mention said in other words, by where it was said and which fact it says."""
    out: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for m in rows:
        if m.mode in REALIZED_MODES and m.counts and (m.span or m.checked_by == "fact_check"):
            out[(m.evidence_kind, m.evidence_id, m.fact_id)].append(m.span or JUDGED)
    return {k: tuple(v) for k, v in out.items()}


def conveys(text: str, fact: Fact, kind: str, item_id: str, spans: Spans) -> bool:
    """True when `text` (the turn or chunk `kind`/`item_id`) states the fact: a surface form, or a recorded span
    of a mention in other words that the text holds, or a fact_check verdict (JUDGED)."""
    said = spans.get((kind, item_id, fact.fact_id), ())
    return carries(text, fact) or JUDGED in said or any(mentions(text, s) for s in said)
