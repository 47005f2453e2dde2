"""The dataset card's column dictionary: every column of every release table says what it holds."""

from schemas.columns import describe
from schemas.tables import RELEASE_TABLES, TABLES


def test_every_release_column_has_a_description():
    missing = [f"{t}.{f.name}" for t in RELEASE_TABLES for f in TABLES[t].arrow_schema
               if not describe(TABLES[t].model, t, f.name)]
    assert missing == []


def test_a_field_s_own_description_or_docstring_comes_first():
    from schemas.audit import GateResult
    from schemas.metrics import QuestionCalibration

    assert describe(QuestionCalibration, "question_calibration", "round").startswith("the pass that withdrew it")
    assert describe(GateResult, "gate_results", "threshold").startswith("What the expectation asks")
    assert describe(GateResult, "gate_results", "suite").startswith("the gate suite")
