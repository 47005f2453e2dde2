"""The consistency suite: no error finding left, fallback share under its bound, every evidence item
carries its fact (a surface form, or a recorded mention in other words: tasks/common/evidence.py), every question
reviewed and kept by the QA verifier."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from schemas.corpus import REALIZED_MODES
from tasks.common.facttext import carries, mentions
from validation.frames import query, stream
from validation.suites import Check, Suite, all_true, between, factory

FINDINGS_SQL = """
select finding_id, stage, artifact_id, "check", severity, message from {verifier_findings} where run_id = $run_id
order by finding_id
"""

FALLBACK_SQL = """
select count(*) as calls, count(*) filter (where outcome = 'fallback') as fallbacks,
       case when count(*) > 0 then count(*) filter (where outcome = 'fallback') / count(*) end as share
from {llm_calls} where run_id = $run_id
"""

REALIZED = ", ".join(f"'{m}'" for m in sorted(REALIZED_MODES))

CARRIES_SQL = """
with cited as (select evidence_kind, evidence_id from {question_evidence} where run_id = $run_id),
items as (
    -- only the cited turns and chunks: their text is streamed to Python, never held as one frame
    select 'turn' as kind, turn_id as id, text from {turns}
    where run_id = $run_id and turn_id in (select evidence_id from cited where evidence_kind = 'turn')
    union all select 'chunk', chunk_id, text from {chunks}
    where run_id = $run_id and chunk_id in (select evidence_id from cited where evidence_kind = 'chunk')
)
select e.question_id, e.evidence_id, e.fact_id, items.text, f.surface_forms, m.spans, coalesce(m.judged, false)
from {question_evidence} as e
left join items on items.kind = e.evidence_kind and items.id = e.evidence_id
left join (select distinct on (fact_id) fact_id, surface_forms from {facts} where run_id = $run_id) as f
    on f.fact_id = e.fact_id
left join (  -- where the realizer recorded the fact said in other words (tasks/common/evidence.py)
    -- or where a real model's text was judged to convey it by fact_check (no span: tasks/dialogue/livecheck.py)
    select evidence_kind, evidence_id, fact_id, list(span) filter (where span is not null) as spans,
        bool_or(checked_by = 'fact_check') as judged
    from {fact_mentions}
    where run_id = $run_id and counts and (span is not null or checked_by = 'fact_check') and mode in ({realized})
    group by all
) as m on m.evidence_kind = e.evidence_kind and m.evidence_id = e.evidence_id and m.fact_id = e.fact_id
where e.run_id = $run_id
order by e.question_id, e.evidence_id, e.fact_id
""".replace("{realized}", REALIZED)

REVIEW_SQL = """
select q.question_id, coalesce(r.status, 'unreviewed') as status, r.reason
from {questions} as q
left join (select question_id, min(status) as status, min(reason) as reason from {question_reviews}
           where run_id = $run_id group by 1) as r on r.question_id = q.question_id
where q.run_id = $run_id
order by q.question_id
"""


def findings_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Every verifier finding of the run."""
    return query(con, FINDINGS_SQL, run_id, "verifier_findings")


def fallback_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row: calls, fallbacks and their share (null when no model call was made)."""
    return query(con, FALLBACK_SQL, run_id, "llm_calls")


def carries_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per evidence link with `carries`: the item's text carries the fact, by a surface form, by the
    span of a counted mention in other words recorded for that item, or by a fact_check verdict on it (null
    when the item or the fact does not resolve; integrity reports those). Texts are streamed in batches and
    reduced to the flag as they come, so no text reaches a frame."""
    rows = [
        (qid, eid, fid,
         (carries(text, SimpleNamespace(surface_forms=list(forms)))
          or any(mentions(text, span) for span in (spans if _is_list(spans) else ())) or bool(judged))
         if isinstance(text, str) and _is_list(forms) else None)
        for qid, eid, fid, text, forms, spans, judged in stream(con, CARRIES_SQL, run_id, "question_evidence", "turns",
                                                        "chunks", "facts", "fact_mentions")
    ]
    return pd.DataFrame(rows, columns=["question_id", "evidence_id", "fact_id", "carries"])


def _is_list(value: object) -> bool:
    return hasattr(value, "__len__") and not isinstance(value, str)


def review_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Each question with its QA review status (`unreviewed` when the verifier left no row)."""
    return query(con, REVIEW_SQL, run_id, "questions", "question_reviews")


@factory("consistency")
def consistency_suite(config: BuildConfig) -> Suite:
    """Findings, fallback share (bound from config.gates), evidence text, QA reviews."""
    return Suite(
        name="consistency",
        frames={"findings": findings_frame, "fallbacks": fallback_frame, "carries": carries_frame,
                "reviews": review_frame},
        checks=(
            Check("consistency.no error finding left", "findings", "ExpectColumnValuesToNotBeInSet",
                  {"column": "severity", "value_set": ["error"]}, "finding_id",
                  shows=("check", "artifact_id", "message")),  # what a reviewer refused, not only that it did
            between("consistency.fallback share under bound", "fallbacks", "share",
                    on_failure=f"more than {config.gates.max_fallback_share:.0%} of model calls fell back",
                    high=config.gates.max_fallback_share),
            all_true("consistency.evidence carries its fact", "carries", "carries", "evidence_id"),
            Check("consistency.questions reviewed and kept", "reviews", "ExpectColumnValuesToBeInSet",
                  {"column": "status", "value_set": ["kept"]}, "question_id"),
        ),
    )
