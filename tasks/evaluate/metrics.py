"""Retrieval metrics (RealCompanion's): hit@k, recall@k over the whole evidence set, MRR; summaries; controls.

`ranked` is a list of item ids, best first; `gold` the question's evidence ids. Every metric is undefined for an
empty gold set and raises ValueError then: the caller decides what a question without evidence scores (the harness
stores null and leaves it out of the means).

Controls (RealCompanion's sanity checks that a score measures retrieval, not position):
- `permuted_offsets(history, gold, seed)`: a decoy gold set. The gold items' offsets in the chronological history
  are shifted together, circularly, by one seeded non-zero amount, so the decoy has the same size and the same
  spacing as the real evidence but other items (a decoy can coincide with a real gold item only when the gold
  is dense in the history).
  Scoring a system's ranking against the decoy gives what position alone earns: a content-based system scores far
  lower on the decoy than on the real gold, while a positional one (recency) scores about the same.
- `randomized_positions(ranked, seed)`: the same retrieved items in a seeded random order. Its hit@k and MRR are
  chance given the retrieved set; recall over the whole list is unchanged. The gap to the real ranking is what the
  system's ordering contributes beyond which items it retrieved.
Both are deterministic in their seed, and `control_seed(seed, question_id)` derives a per-question seed.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

GROUP_KEYS = ("system", "setting", "k")
"""Columns that `summarize` keeps apart by default (when the rows have them): means never mix systems."""


def _check(gold: Collection[str]) -> set[str]:
    g = set(gold)
    if not g:
        raise ValueError("metric undefined for an empty gold set")
    return g


def hit_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 when any gold item is among the first k ranked, else 0.0."""
    g = _check(gold)
    return 1.0 if any(i in g for i in ranked[:k]) else 0.0


def recall_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """The share of the whole gold set found among the first k ranked (duplicates count once)."""
    g = _check(gold)
    return len(g.intersection(ranked[:k])) / len(g)


def mrr(ranked: Sequence[str], gold: Collection[str]) -> float:
    """Reciprocal rank of the first gold item in the ranking (1-based), 0.0 when none is ranked."""
    g = _check(gold)
    for rank, i in enumerate(ranked, start=1):
        if i in g:
            return 1.0 / rank
    return 0.0


def scores(ranked: Sequence[str], gold: Collection[str], hit_ks: Iterable[int] = (1, 5, 20),
           recall_ks: Iterable[int] = (5, 20, 50)) -> dict[str, float]:
    """All metrics of one ranking as columns hit_at_K, recall_at_K and mrr."""
    out = {f"hit_at_{k}": hit_at(ranked, gold, k) for k in hit_ks}
    out |= {f"recall_at_{k}": recall_at(ranked, gold, k) for k in recall_ks}
    out["mrr"] = mrr(ranked, gold)
    return out


def _is_metric(v: object) -> bool:
    return isinstance(v, int | float)  # bool is an int: True/False count as 1/0


def summarize(rows: list[dict], by: str, metrics: Sequence[str] | None = None,
              keys: Sequence[str] = GROUP_KEYS) -> list[dict]:
    """Means of the metric columns per value of `by`, within each combination of `keys` present in the rows.

    `by` is a column name; "characteristic" or "characteristics" groups by each entry of the rows' characteristics
    list (a row counts once in each of its characteristics' groups); "all" makes one group. Metric columns are, by
    default, those whose values are numbers or booleans (booleans count as 0/1) other than the grouping columns.
    A None value is left out of its column's mean; a column with no value in a group has mean None. Each output row
    holds the keys, `by` (its value), `n` (rows in the group) and one mean per metric column, sorted by keys and
    group value.
    """
    present = [k for k in keys if k != by and any(k in r for r in rows)]
    col = "characteristic" if by in ("characteristic", "characteristics") else by
    if metrics is None:
        skip = set(present) | {by, col, "characteristics", "checkpoint", "category"}
        seen: dict[str, None] = {}
        for r in rows:
            for name, v in r.items():
                if name not in skip and v is not None and _is_metric(v):
                    seen.setdefault(name)
        bad = {name for r in rows for name, v in r.items() if name in seen and v is not None and not _is_metric(v)}
        metrics = [m for m in seen if m not in bad]
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        head = tuple(r.get(k) for k in present)
        if col == "characteristic":
            values = list(dict.fromkeys(r.get("characteristics") or []))
        elif by == "all":
            values = ["all"]
        else:
            values = [r.get(by)]
        for v in values:
            groups[head + (v,)].append(r)
    out = []
    for key in sorted(groups, key=lambda t: tuple((x is None, str(x)) for x in t)):
        members = groups[key]
        row = dict(zip(present, key[:-1], strict=True)) | {col: key[-1], "n": len(members)}
        for m in metrics:
            vals = [float(r[m]) for r in members if r.get(m) is not None]
            row[m] = math.fsum(vals) / len(vals) if vals else None
        out.append(row)
    return out


# --- controls ---


def control_seed(seed: int, question_id: str) -> int:
    """A per-question seed for the controls, stable across processes (unlike hash())."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x1f{question_id}".encode()).digest()[:8], "big")


def permuted_offsets(history: Sequence[str], gold: Collection[str], seed: int) -> frozenset[str]:
    """A decoy gold set: the gold items' offsets in `history` (chronological ids) shifted circularly by one seeded
    non-zero amount. Gold ids absent from the history are dropped; an empty or single-item history returns the gold
    present in it unchanged (no other offset exists)."""
    index = {h: n for n, h in enumerate(history)}
    offsets = sorted(index[g] for g in set(gold) if g in index)
    n = len(history)
    if n < 2 or not offsets:
        return frozenset(history[o] for o in offsets)
    shift = random.Random(seed).randrange(1, n)
    return frozenset(history[(o + shift) % n] for o in offsets)


def randomized_positions(ranked: Sequence[str], seed: int) -> list[str]:
    """The ranked items in a seeded random order (the same items, positions randomized)."""
    out = list(ranked)
    random.Random(seed).shuffle(out)
    return out
