"""The distribution suite: the share of positive rolled-out events is near the config's rollout_p;
questions over each domain pack's personas meet the pack's quota (`gates.domain_quotas`); no category
holds more than `gates.max_category_share` of a persona's questions (personas with at least
`gates.min_questions_for_share` questions) or of the corpus's; every persona has at least
`gates.min_questions_per_persona` questions; each persona's user turns are varied (their distinct word
4-gram ratio is at least `gates.min_distinct_4gram_ratio`); each persona has at least
`gates.min_user_turns_per_persona` user turns and between `gates.min_tokens_per_persona` and
`gates.max_tokens_per_persona` cl100k_base tokens of dialogue and documents (RHELM's scale on `rhelm`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from validation.frames import query, stream
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


SHARE_SQL = """
select persona_id, category, count(*) as n from {questions}
where run_id = $run_id and checkpoint <> 'zero_memory' group by all order by all
"""
"""Category counts per persona, zero-memory controls left out (they are not part of the balance)."""

PER_PERSONA_SQL = """
select p.persona_id, count(q.question_id) as n
from {personas} as p left join {questions} as q on q.persona_id = p.persona_id and q.run_id = $run_id
where p.run_id = $run_id group by 1 order by 1
"""

USER_4GRAMS_SQL = r"""
with words as (
    select persona_id, string_split(trim(regexp_replace(lower(text), '\s+', ' ', 'g')), ' ') as ws
    from {turns} where run_id = $run_id and list_contains($personas, persona_id) and role = 'user'
), grams as (
    select persona_id, array_to_string(ws[k:k + 3], ' ') as gram
    from (select persona_id, ws, unnest(generate_series(1, len(ws) - 3)) as k from words)
)
select persona_id, count(*) as n_grams, count(distinct gram) / count(*) as ratio
from grams group by 1 order by 1
"""
"""Per persona of `$personas`: the word 4-grams of its user turns (lower-cased, whitespace-split), and the
distinct share."""

TURN_PERSONAS_SQL = "select distinct persona_id from {turns} where run_id = $run_id order by 1"


VARIETY_BATCH = 8
"""Personas whose 4-grams DuckDB counts at once: a constant, so the working memory does not grow with the
corpus, and more than one, so DuckDB reads their files in parallel."""


def variety_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per persona with user turns: persona_id, n_grams and ratio (distinct / all 4-grams);
    computed in DuckDB for VARIETY_BATCH personas at a time."""
    ids = [pid for (pid,) in query(con, TURN_PERSONAS_SQL, run_id, "turns").itertuples(index=False)]
    parts = [query(con, USER_4GRAMS_SQL, run_id, "turns", params={"personas": ids[i:i + VARIETY_BATCH]})
             for i in range(0, len(ids), VARIETY_BATCH)] or [
        query(con, USER_4GRAMS_SQL, run_id, "turns", params={"personas": []})]
    return pd.concat(parts, ignore_index=True).astype({"n_grams": "int64", "ratio": "float64"})


SCALE_SQL = """
with ids as (
    select persona_id from {personas} where run_id = $run_id
    union select persona_id from {turns} where run_id = $run_id
    union select persona_id from {documents} where run_id = $run_id
)
select ids.persona_id, count(t.turn_id) filter (where t.role = 'user') as user_turns
from ids left join {turns} as t on t.persona_id = ids.persona_id and t.run_id = $run_id
group by 1 order by 1
"""


def scale_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per persona: user turns and cl100k_base tokens of its dialogue and documents (texts streamed
    from DuckDB one persona at a time, in batches, never loaded as one frame)."""
    frame = query(con, SCALE_SQL, run_id, "personas", "turns", "documents")
    frame["tokens"] = [_persona_tokens(con, run_id, pid) for pid in frame["persona_id"]]
    return frame.astype({"user_turns": "int64", "tokens": "int64"})


TEXTS_SQL = """
select text from {turns} where run_id = $run_id and persona_id = $persona_id
union all select body from {documents} where run_id = $run_id and persona_id = $persona_id
"""


def _persona_tokens(con: duckdb.DuckDBPyConnection, run_id: str, persona_id: str) -> int:
    """cl100k_base tokens of one persona's turns and document bodies (warehouse.release.text_tokens' count)."""
    from tasks.sources.chunking import count_tokens

    return sum(count_tokens(text or "") for (text,) in stream(con, TEXTS_SQL, run_id, "turns", "documents",
                                                              params={"persona_id": persona_id}))


def share_frame(min_questions: int) -> Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]:
    """A frame builder: one row per (scope, category): scope is a persona id or `corpus`; n, total and
    share (null for a persona with fewer than `min_questions` questions: too few for a share)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        df = query(con, SHARE_SQL, run_id, "questions")
        rows = []
        for scope, part in [("corpus", df)] + [(pid, g) for pid, g in df.groupby("persona_id", sort=True)]:
            counts = part.groupby("category")["n"].sum()
            total = int(counts.sum())
            for category, n in sorted(counts.items()):
                share = int(n) / total if total >= min_questions else None
                rows.append((f"{scope}/{category}", int(n), total, share))
        return pd.DataFrame(rows, columns=["scope", "n", "total", "share"]).astype({"share": "float64"})

    return build


def per_persona_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per persona: its question count `n`."""
    return query(con, PER_PERSONA_SQL, run_id, "personas", "questions")


def outcome_frame(min_events: int, p: float = 0.7,
                  tolerance: float = 0.2) -> Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]:
    """A frame builder: one row with n_events (rolled out from plans), positive, their share (null under
    `min_events`, too few for the share to say anything), the allowed distance from `p` (the tolerance, or
    3.29 standard errors of a binomial share at this count when that is wider: a one-in-a-thousand chance
    deviation, not a broken simulator) and `off`, how far the share lies beyond it (0 when within)."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        n, positive = query(con, OUTCOME_SQL, run_id, "events").iloc[0]
        n, positive = int(n), int(positive)
        share = positive / n if n >= min_events else None
        allowed = max(tolerance, 3.29 * (p * (1 - p) / n) ** 0.5) if n else tolerance
        off = None if share is None else max(0.0, abs(share - p) - allowed)
        return pd.DataFrame([{"n_events": n, "positive": positive, "share": share, "allowed": allowed, "off": off}])

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
    """Positive share within gates.outcome_tolerance of rollout_p (wider for a small sample); domain quotas."""
    g, p = config.gates, config.rollout_p
    return Suite(
        name="distribution",
        frames={"outcomes": outcome_frame(g.min_outcome_events, p, g.outcome_tolerance),
                "quotas": quota_frame(g.domain_quotas),
                "shares": share_frame(g.min_questions_for_share), "per_persona": per_persona_frame,
                "dialogue_variety": variety_frame, "scale": scale_frame},
        checks=(
            between("distribution.positive outcome share near p", "outcomes", "off",
                    on_failure=f"positive share is not within {g.outcome_tolerance} of rollout_p {p} (or, for few "
                               "events, within 3.29 standard errors)", high=0.0),
            at_least("distribution.domain quota met", "quotas", "value", "a domain below its quota"),
            between("distribution.category share under bound", "shares", "share", "scope",
                    f"a category holds more than {g.max_category_share:.0%} of a persona's or the corpus's "
                    "questions", high=g.max_category_share + 1e-9),
            between("distribution.questions per persona", "per_persona", "n", "persona_id",
                    f"a persona has fewer than {g.min_questions_per_persona} questions",
                    low=g.min_questions_per_persona),
            between("distribution.user turns varied", "dialogue_variety", "ratio", "persona_id",
                    f"a persona's user turns repeat themselves (distinct word 4-gram ratio under "
                    f"{g.min_distinct_4gram_ratio})", low=g.min_distinct_4gram_ratio),
            between("distribution.user turns per persona", "scale", "user_turns", "persona_id",
                    f"a persona has fewer than {g.min_user_turns_per_persona} user turns",
                    low=g.min_user_turns_per_persona),
            between("distribution.tokens per persona", "scale", "tokens", "persona_id",
                    f"a persona's dialogue and documents hold fewer than {g.min_tokens_per_persona} or more than "
                    f"{g.max_tokens_per_persona} tokens", low=g.min_tokens_per_persona, high=g.max_tokens_per_persona),
        ),
    )
