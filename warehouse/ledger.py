"""Ledger summaries over the llm_calls view, for the manifest and the build's Prefect artifact."""

from __future__ import annotations

import duckdb

_BY_STAGE_MODEL = """
select stage, provider, model,
       count(*) as calls,
       count(*) filter (where cached) as cached,
       coalesce(sum(requests), 0) as requests,
       coalesce(sum(input_tokens), 0) as input_tokens,
       coalesce(sum(cached_input_tokens), 0) as cached_input_tokens,
       coalesce(sum(output_tokens), 0) as output_tokens,
       coalesce(sum(cost_usd), 0) as cost_usd,
       count(*) filter (where outcome = 'repaired') as repaired,
       count(*) filter (where fallback or outcome = 'fallback') as fallbacks,
       count(*) filter (where outcome = 'error') as errors,
       count(distinct batch_id) as batches,
       round(avg(latency_ms), 1) as mean_latency_ms
from llm_calls where run_id = ?
group by stage, provider, model
order by stage, provider, model
"""


def ledger_by_stage_model(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict]:
    """One dict per (stage, provider, model): calls, cached, requests, tokens, cost, repaired, fallbacks."""
    rel = con.execute(_BY_STAGE_MODEL, [run_id])
    columns = [d[0] for d in rel.description]
    return [dict(zip(columns, row, strict=True)) for row in rel.fetchall()]


def ledger_markdown(rows: list[dict]) -> str:
    """The per-stage-and-model summary as a Markdown table (for a Prefect artifact)."""
    head = ["stage", "provider", "model", "calls", "cached", "requests", "input_tokens", "cached_input_tokens",
            "output_tokens", "cost_usd", "repaired", "fallbacks", "batches"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows]
    return "\n".join(lines)
