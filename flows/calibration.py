"""The release calibration task: once every persona branch has landed, withdraw the questions a memory-free
baseline answers across personas (tasks/questions/calibrate.py); the warehouse's views apply the withdrawals."""

from __future__ import annotations

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from schemas.config import QuestionOptions
from tasks.questions.calibrate import calibrate
from warehouse.calibration import land_calibration, landed_questions
from warehouse.paths import Layout


@task(name="calibrate", task_run_name="calibrate {run_id}", cache_policy=NO_CACHE, persist_result=False)
def calibrate_questions(layout: Layout, run_id: str, options: QuestionOptions) -> int:
    """Land the run's `question_calibration` rows; returns how many questions were withdrawn."""
    rows = calibrate(landed_questions(layout, run_id), options)
    land_calibration(layout, run_id, rows)
    prior = sum(r.reason == "answer_prior" for r in rows)
    get_run_logger().info("calibrate: %d questions withdrawn: %d because their template's answer prior across "
                          "personas gives the answer, %d to keep a category under its share cap; %d passes",
                          len(rows), prior, len(rows) - prior, max((r.round for r in rows), default=0))
    return len(rows)
