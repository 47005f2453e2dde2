"""I/O of the release calibration (tasks/questions/calibrate.py): the run's questions as the persona branches
landed them, and the `question_calibration` rows that the catalog's views apply (warehouse/catalog.py
`calibrated`)."""

from __future__ import annotations

import duckdb

from schemas.metrics import QuestionCalibration
from schemas.qa import Question
from schemas.tables import from_records
from warehouse.catalog import table_source
from warehouse.parquet import land_rows
from warehouse.paths import Layout


def landed_questions(layout: Layout, run_id: str) -> list[Question]:
    """Every question the run's persona branches landed, before calibration (their partitions, not the view that
    leaves the withdrawn out): a rebuild that reuses some branches calibrates from the same rows as a cold one."""
    con = duckdb.connect()
    try:
        relation = con.sql(f"select * from ({table_source(layout, 'questions', run_id)}) where run_id = $r "
                           "order by question_id", params={"r": run_id})
        present = set(relation.columns)
        cols = [c for c in Question.model_fields if c in present]
        return from_records(Question, relation.select(*cols).to_arrow_table().to_pylist())
    finally:
        con.close()


def land_calibration(layout: Layout, run_id: str, rows: list[QuestionCalibration]) -> None:
    """Land the run's withdrawals (an empty file when there are none, so the view's schema is the same)."""
    land_rows(layout, "question_calibration", rows, run_id)
