"""The coverage suite: every question category and characteristic, source type, format and dialogue
category reaches its floor (floors from `config.gates`; defaults match what the stages produce).
Zero-memory controls (checkpoint 'zero_memory') stay in the release but count toward no category or
characteristic floor: they need no memory, so they cover nothing. Category and characteristic floors
apply to the domain pack's taxonomy (RHELM's, or e.g. FinPerMA's; validation/domain.py `pack_floors`)."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from validation.domain import pack_floors
from validation.frames import query
from validation.suites import FrameBuilder, Suite, at_least, factory

NOT_CONTROL = "checkpoint is distinct from 'zero_memory'"
"""The questions that count toward coverage: every one but the zero-memory controls."""

COUNTS = {
    "category": ("select category as value, count(*) as n from {questions} where run_id = $run_id "
                 f"and {NOT_CONTROL} group by 1", "questions"),
    "characteristic": ("select value, count(*) as n from (select unnest(characteristics) as value from {questions} "
                       f"where run_id = $run_id and {NOT_CONTROL}) group by 1", "questions"),
    "source_type": ("select source_type as value, count(*) as n from {documents} where run_id = $run_id group by 1",
                    "documents"),
    "format": ("select format as value, count(*) as n from {documents} where run_id = $run_id group by 1",
               "documents"),
    "dialogue_category": ("select category as value, count(distinct coalesce(bullet_id, turn_id)) as n from {turns} "
                          "where run_id = $run_id and role = 'user' and kind <> 'filler' group by 1", "turns"),
}


def floor_frame(dimension: str, floors: Mapping[str, int]) -> FrameBuilder:
    """A frame builder: one row per floored value of `dimension` with its floor and its count `n`."""
    sql, table = COUNTS[dimension]

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        counts = dict(query(con, sql, run_id, table).itertuples(index=False, name=None))
        rows = [(value, int(floor), int(counts.get(value, 0))) for value, floor in sorted(floors.items())]
        return pd.DataFrame(rows, columns=["value", "floor", "n"]).astype({"floor": "int64", "n": "int64"})

    return build


@factory("coverage")
def coverage_suite(config: BuildConfig) -> Suite:
    """Floors of config.gates: category and characteristic (of the pack's taxonomy), source type, format,
    dialogue category."""
    g = config.gates
    floors = {
        "category": g.category_floors,
        "characteristic": g.characteristic_floors,
        "source_type": g.source_type_floors,
        "format": g.format_floors,
        "dialogue_category": g.dialogue_category_floors,
    }
    names = {"category": "coverage.category above floor", "characteristic": "coverage.characteristic above floor",
             "source_type": "coverage.source type present", "format": "coverage.format present",
             "dialogue_category": "coverage.dialogue category present"}
    floors = {dim: pack_floors(config, dim, f) for dim, f in floors.items()}
    return Suite(
        name="coverage",
        frames={dim: floor_frame(dim, f) for dim, f in floors.items()},
        checks=tuple(at_least(names[dim], dim, "value", "a value below its floor") for dim in floors),
    )
