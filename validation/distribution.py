"""The distribution suite: the share of positive rolled-out events is near the config's rollout_p, and
questions over each domain pack's personas meet the pack's quota (`gates.domain_quotas`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from validation.frames import query
from validation.suites import Suite, at_least, between, factory

OUTCOME_SQL = """
select count(*) as n_events, count(*) filter (where valence = 'positive') as positive
from {events} where run_id = $run_id and plan_id is not null
"""

DOMAIN_SQL = """
select p.domain as value, count(q.question_id) as n
from {personas} as p left join {questions} as q on q.persona_id = p.persona_id and q.run_id = $run_id
where p.run_id = $run_id group by 1
"""


def outcome_frame(min_events: int) -> Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]:
    """A frame builder: one row with n_events (rolled out from plans), positive, and their share (null
    under `min_events`, too few for the share to say anything)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        n, positive = query(con, OUTCOME_SQL, run_id, "events").iloc[0]
        share = float(positive) / int(n) if int(n) >= min_events else None
        return pd.DataFrame([{"n_events": int(n), "positive": int(positive), "share": share}])

    return build


def quota_frame(quotas: Mapping[str, int]) -> Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]:
    """A frame builder: one row per domain with a quota: value (domain), floor (quota), n (questions)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        counts = dict(query(con, DOMAIN_SQL, run_id, "personas", "questions").itertuples(index=False, name=None))
        rows = [(d, int(q), int(counts.get(d, 0))) for d, q in sorted(quotas.items())]
        return pd.DataFrame(rows, columns=["value", "floor", "n"]).astype({"floor": "int64", "n": "int64"})

    return build


@factory("distribution")
def distribution_suite(config: BuildConfig) -> Suite:
    """Positive share within gates.outcome_tolerance of rollout_p; domain quotas."""
    g, p = config.gates, config.rollout_p
    return Suite(
        name="distribution",
        frames={"outcomes": outcome_frame(g.min_outcome_events), "quotas": quota_frame(g.domain_quotas)},
        checks=(
            between("distribution.positive outcome share near p", "outcomes", "share",
                    on_failure=f"positive share is not within {g.outcome_tolerance} of rollout_p {p}",
                    low=max(0.0, p - g.outcome_tolerance), high=min(1.0, p + g.outcome_tolerance)),
            at_least("distribution.domain quota met", "quotas", "value", "a domain below its quota"),
        ),
    )
