"""The leakage suite: the answer is not in the question; the MCQ gold is not the unique longest option
more often than chance allows; MCQ gold positions are uniform by a chi-square test; among MCQ items
whose six options lie on one ordered scale (dates, months, counts, amounts: tasks/questions/mcq.py
`ordinal_rank`), the gold's rank (how many options lie below it) is uniform by a chi-square test.

Items whose derivation says `options_in_question` (the sequence template names both events it asks
about) are exempt from the answer-in-question check: naming the options is the question. MCQ statistics
are tested once a run holds `gates.min_mcq_for_stats` items (expected count >= 5 per position); the
rank test once it holds that many ordered items."""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from tasks.common.facttext import mentions
from tasks.questions.scales import ordinal_rank
from validation.frames import query
from validation.suites import Suite, all_true, between, factory

LEAK_SQL = """
select question_id, question, answer,
       coalesce(try_cast(json_extract(derivation, '$.options_in_question') as boolean), false) as exempt
from {questions} where run_id = $run_id order by question_id
"""

MCQ_SQL = """
select question_id, gold_option, options, len(options) as n_options
from {questions}
where run_id = $run_id and answer_type = 'mcq' and len(options) > 0
"""


def gold_longest(options: list[str], gold: int | None) -> bool:
    """True when the gold option is strictly longer than every other option."""
    if gold is None or not 0 <= gold < len(options):
        return False
    return all(len(options[gold]) > len(o) for i, o in enumerate(options) if i != gold)


def leak_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per question with `clean`: the answer does not occur in the question (or is exempt)."""
    df = query(con, LEAK_SQL, run_id, "questions")
    df["clean"] = [bool(ex) or not isinstance(q, str) or not isinstance(a, str) or not mentions(q, a)
                   for q, a, ex in zip(df["question"], df["answer"], df["exempt"], strict=True)]
    return df.drop(columns=["question", "answer"])


def mcq_stats_frame(min_items: int) -> Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]:
    """A frame builder: one row with n_mcq, longest_share (gold is the unique longest option), the
    chi-square p-value of gold positions (both null under `min_items` items), n_ordinal and the chi-square
    p-value of the gold's rank among ordered options (null under `min_items` ordered items)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        from scipy.stats import chisquare

        df = query(con, MCQ_SQL, run_id, "questions")
        n = len(df)
        share = p_value = rank_p = None
        width = int(df["n_options"].max()) if n else 0
        if n >= min_items:
            observed = [int((df["gold_option"] == k).sum()) for k in range(width)]  # 0-based positions
            share = sum(map(gold_longest, df["options"], df["gold_option"])) / n
            p_value = float(chisquare(observed).pvalue)
        ranks = [r for o, g in zip(df["options"], df["gold_option"], strict=True)
                 if (r := ordinal_rank(list(o), None if pd.isna(g) else int(g))) is not None]
        if len(ranks) >= min_items:
            rank_p = float(chisquare([ranks.count(k) for k in range(width)]).pvalue)
        return pd.DataFrame([{"n_mcq": n, "longest_share": share, "p_value": p_value, "n_ordinal": len(ranks),
                              "rank_p_value": rank_p}])

    return build


@factory("leakage")
def leakage_suite(config: BuildConfig) -> Suite:
    """Answer-in-question, gold-longest share (chance 1/6 + tolerance), gold position chi-square (alpha),
    gold rank among ordered options chi-square (alpha)."""
    g = config.gates
    return Suite(
        name="leakage",
        frames={"leaks": leak_frame, "mcq_stats": mcq_stats_frame(g.min_mcq_for_stats)},
        checks=(
            all_true("leakage.answer not in question", "leaks", "clean", "question_id"),
            between("leakage.gold longest share near chance", "mcq_stats", "longest_share",
                    on_failure="the gold option is the unique longest too often",
                    high=1 / 6 + g.gold_longest_tolerance),
            between("leakage.gold position uniform", "mcq_stats", "p_value",
                    on_failure=f"gold positions are not uniform (chi-square p < {g.gold_position_alpha})",
                    low=g.gold_position_alpha),
            between("leakage.gold rank uniform among ordered options", "mcq_stats", "rank_p_value",
                    on_failure="the gold's rank among ordered options (dates, counts, amounts) is not uniform "
                    f"(chi-square p < {g.gold_rank_alpha})", low=g.gold_rank_alpha),
        ),
    )
