"""The leakage gate's gold-rank expectation: among MCQ items whose six options lie on one ordered scale
(dates, counts, amounts), the gold's rank must be near uniform (chi-square p-value floor)."""

from __future__ import annotations

import datetime as dt

from schemas.qa import Question
from tests.validation.conftest import GATE_CONFIG, review
from validation.gates import run_gates
from validation.leakage import mcq_stats_frame

RANK = "leakage.gold rank uniform among ordered options"


def _counted(n: int, rank: int, position: int) -> Question:
    """A count item whose gold (10 + n % 7) has `rank` options below it, placed at `position`."""
    gold = 10 + n % 7
    values = [gold - rank + k for k in range(6)]
    options = [str(v) for v in values if v != gold]
    options.insert(position, str(gold))
    return Question(question_id=f"p0001-q2{n:03d}", persona_id="p0001", category="aggregation",
                    characteristics=["conditional_counting"], question_time=dt.datetime(2025, 1, 5, tzinfo=dt.UTC),
                    question=f"How many of item {n}?", answer=str(gold), reference_answer=str(gold),
                    answer_type="mcq", options=options, gold_option=position,
                    derivation={"template": "aggregation.mcq"})


def _with(c, items):
    c["questions"] += items
    c["question_reviews"] += [review(q) for q in items]


def test_gold_always_third_smallest_fails_the_rank_expectation(corpus, con_for):
    _with(corpus, [_counted(n, 2, n % 6) for n in range(36)])  # positions uniform, rank always 2
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    failed = {r.expectation for r in report.failed()}
    assert RANK in failed and "leakage.gold position uniform" not in failed
    assert RANK in report.failure_message()


def test_uniform_ranks_pass_and_few_ordered_items_are_not_tested(corpus, con_for):
    _with(corpus, [_counted(n, n % 6, (n // 6) % 6) for n in range(36)])
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert RANK not in {r.expectation for r in report.failed()}
    con = con_for({"r1": corpus})
    row = mcq_stats_frame(GATE_CONFIG.gates.min_mcq_for_stats)(con, "r1").iloc[0]
    assert row["n_ordinal"] == 36 and row["rank_p_value"] > 0.5


def test_rank_not_tested_under_the_minimum(corpus, con_for):
    _with(corpus, [_counted(n, 2, n % 6) for n in range(12)])
    con = con_for({"r1": corpus})
    row = mcq_stats_frame(GATE_CONFIG.gates.min_mcq_for_stats)(con, "r1").iloc[0]
    assert row["n_ordinal"] == 12 and row["rank_p_value"] is None
    report = run_gates(con, "r1", config=GATE_CONFIG)
    assert RANK not in {r.expectation for r in report.failed()}
