"""The validity suite: every validity measure with a threshold in `[gates.measures]` lies within it.

The measures are the run's `measures` rows (landed by the build before it gates); a run without them (an
older run, an imported benchmark) is measured here, from its tables (tasks/metrics/). One expectation per
family (language, facts, coherence, questions, difficulty); a failed one names each measure outside its
threshold with its value, e.g. `language.assistant.distinct_sentences = 0.0171 < min 0.02`. A measure that is
null, or rests on fewer than `gates.min_measure_units` units, is not tested. A share (a fraction of its `n`
units) is held to its bound widened by 3.29 standard errors of a share at that bound and count
(`SHARE_SLACK_Z`): a two-week build's hundred turns land a few points either side of a floor set on a
persona-year by chance alone, while a full corpus's slack is a fraction of a point.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from schemas.metrics import MEASURE_GROUPS, MeasureRow, bounds
from validation.suites import Suite, all_true, factory


def run_measures(con: duckdb.DuckDBPyConnection, run_id: str) -> list[MeasureRow]:
    """The run's landed measures, or the measures computed from its tables when none landed."""
    from warehouse.measures import personas_of, stored_measures

    stored = stored_measures(con, run_id)
    if stored:
        return stored
    from tasks.metrics import measure_corpus
    from warehouse.parsecache import default_cache

    return measure_corpus(personas_of(con, run_id), parse_cache=default_cache())


SHARE_SLACK_Z = 3.29
"""Standard errors a share may lie beyond its bound (a one-in-a-thousand chance deviation)."""
NOT_SHARES = frozenset({"words_per_sentence", "mentions_per_fact", "templates", "skeletons", "answer_entropy"})
"""Measures (by their last name part) that are not a fraction of their units, so get no sampling slack."""


def slack(row: MeasureRow, bound: float) -> float:
    """How far a share over `row.n` units may lie beyond `bound` by chance (0 for a measure that is no share)."""
    if row.measure.rsplit(".", 1)[-1] in NOT_SHARES or not 0 <= bound <= 1 or row.n <= 0:
        return 0.0
    return SHARE_SLACK_Z * (bound * (1 - bound) / row.n) ** 0.5


def verdict(row: MeasureRow, threshold, min_units: int) -> tuple[bool | None, str]:
    """(within the threshold, widened by `slack` for a share; a label naming value and bound); None when not
    tested."""
    if threshold is None or row.value is None or row.n < min_units:
        return None, row.measure
    low, high = bounds(row.measure, threshold)
    if low is not None and row.value < low - slack(row, low):
        return False, f"{row.measure} = {row.value:g} < min {low:g}"
    if high is not None and row.value > high + slack(row, high):
        return False, f"{row.measure} = {row.value:g} > max {high:g}"
    return True, row.measure


def measures_frame(config: BuildConfig):
    """A frame builder: one row per measure with `ok_<family>` (null for other families and untested rows)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        records = []
        for row in run_measures(con, run_id):
            ok, label = verdict(row, config.gates.measures.get(row.measure), config.gates.min_measure_units)
            record = {"measure": row.measure, "label": label, "value": row.value, "n": row.n}
            record |= {f"ok_{g}": (ok if g == row.group else None) for g in MEASURE_GROUPS}
            records.append(record)
        columns = ["measure", "label", "value", "n"] + [f"ok_{g}" for g in MEASURE_GROUPS]
        return pd.DataFrame(records, columns=columns).astype({f"ok_{g}": "object" for g in MEASURE_GROUPS})

    return build


@factory("validity")
def validity_suite(config: BuildConfig) -> Suite:
    """Each family's measures within their `[gates.measures]` thresholds."""
    return Suite(
        name="validity",
        frames={"measures": measures_frame(config)},
        checks=tuple(
            all_true(f"validity.{g} measures within thresholds", "measures", f"ok_{g}", "label",
                     f"a {g} measure is outside its [gates.measures] threshold")
            for g in MEASURE_GROUPS),
    )
