"""Cross-table checks computed in DuckDB and returned as pandas frames for the gates to validate.

Every function takes a DuckDB connection in which the contract tables are visible by name
(`questions`, `question_evidence`, `turns`, `chunks`, `facts`, ...) and a run id; every table is
filtered by that run id. A table that is not visible at all is read as an empty table of its
contract columns, so a missing table fails the gates instead of crashing them.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from schemas.tables import CORPUS_TABLES, TABLES, empty_relation


def is_visible(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """True when `table` can be queried on this connection (table, view or registered frame)."""
    try:
        con.execute(f"select * from {table} limit 0")
    except duckdb.CatalogException:
        return False
    return True


def missing_tables(con: duckdb.DuckDBPyConnection, tables: tuple[str, ...]) -> list[str]:
    """The tables among `tables` that this connection cannot see."""
    return [t for t in tables if not is_visible(con, t)]


def _source(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """SQL naming `table`, or a typed empty relation with its contract columns when it is not visible."""
    if is_visible(con, table):
        return table
    return f"({empty_relation(table)})"


def _query(con: duckdb.DuckDBPyConnection, sql: str, run_id: str, *tables: str,
           params: dict | None = None) -> pd.DataFrame:
    """Run `sql` with `{table}` placeholders resolved and `$run_id` (and `params`) bound."""
    sql = sql.format(**{t: _source(con, t) for t in tables})
    return con.execute(sql, {"run_id": run_id, **(params or {})}).df()


def stream(con: duckdb.DuckDBPyConnection, sql: str, run_id: str, *tables: str, params: dict | None = None,
           size: int = 4096):
    """Like `query`, but yield the result rows as tuples, `size` at a time, never as one frame: for rows
    that carry text, which the gates reduce in Python to a flag or a count."""
    sql = sql.format(**{t: _source(con, t) for t in tables})
    cur = con.execute(sql, {"run_id": run_id, **(params or {})})
    while rows := cur.fetchmany(size):
        yield from rows


query = _query
"""Public name of the query helper for the suite modules: `{table}` placeholders, `$run_id` bound."""


QUESTION_SQL = """
with links as (
    select question_id, count(*) as n_evidence
    from {question_evidence} where run_id = $run_id
    group by question_id
)
select q.question_id, q.persona_id, q.category, q.characteristics, q.checkpoint, q.answer_type,
       q.question_time, q.answer,
       coalesce(links.n_evidence, 0) as n_evidence
from {questions} as q
left join links on links.question_id = q.question_id
where q.run_id = $run_id
order by q.question_id nulls last
"""


def question_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per question of the run, with `n_evidence` (how many evidence links it has), `has_evidence`
    (some link, or a zero-memory control, which needs none), `characteristic_ok` (one of its
    characteristics belongs to its category) and `checkpoint_ok` (a known checkpoint)."""
    from schemas.qa import CHECKPOINTS, TAXONOMIES

    known = {cat: chars for tax in TAXONOMIES.values() for cat, chars in tax.items()}  # every pack's taxonomy
    df = _query(con, QUESTION_SQL, run_id, "questions", "question_evidence")
    df["has_evidence"] = [int(n) > 0 or cp == "zero_memory" for n, cp in zip(df["n_evidence"], df["checkpoint"],
                                                                              strict=True)]
    df["characteristic_ok"] = [
        any(ch in known.get(cat, ()) for ch in (list(chars) if chars is not None else []))
        for cat, chars in zip(df["category"], df["characteristics"], strict=True)
    ]
    df["checkpoint_ok"] = [cp in CHECKPOINTS for cp in df["checkpoint"]]
    return df.drop(columns=["characteristics"])


EVIDENCE_SQL = """
with q as (
    -- the earliest time when a question id is duplicated, so `precedes` stays strict
    select question_id, min(question_time) as question_time
    from {questions} where run_id = $run_id group by question_id
),
items as (
    -- the latest time when an evidence id is duplicated, for the same reason
    select kind, id, max(t) as t from (
        select 'turn' as kind, turn_id as id, "timestamp" as t from {turns} where run_id = $run_id
        union all
        select 'chunk' as kind, chunk_id as id, created_at as t from {chunks} where run_id = $run_id
    ) group by kind, id
),
f as (select distinct fact_id from {facts} where run_id = $run_id)
select e.question_id, e.evidence_id, e.evidence_kind, e.fact_id,
       items.id is not null as resolves,
       items.t as evidence_time,
       q.question_time,
       coalesce(items.t < q.question_time, false) as precedes,
       e.fact_id is null or f.fact_id is not null as fact_resolves,
       q.question_id is not null as question_resolves
from {question_evidence} as e
left join items on items.kind = e.evidence_kind and items.id = e.evidence_id
left join q on q.question_id = e.question_id
left join f on f.fact_id = e.fact_id
where e.run_id = $run_id
order by e.question_id, e.evidence_id, e.fact_id
"""


def evidence_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per question_evidence link of the run, with what it resolves to.

    Columns: question_id, evidence_id, evidence_kind, fact_id; `resolves` (the id is a turn or chunk
    of that kind in the run), evidence_time, question_time, `precedes` (evidence_time < question_time;
    False when either side is unresolved), `fact_resolves` (the fact id is a fact of the run) and
    `question_resolves` (the question id is a question of the run).
    """
    return _query(con, EVIDENCE_SQL, run_id, "questions", "question_evidence", "turns", "chunks", "facts")


KEYS_SQL = """
select tbl, id, n from ({unions}) group by all having n > 1 order by tbl, id
"""


def key_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per key that occurs more than once in a corpus table of the run: tbl, id, n (its count)."""
    parts = []
    for name in CORPUS_TABLES:
        key = " || '|' || ".join(f'coalesce(cast("{k}" as varchar), \'\')' for k in TABLES[name].key)
        parts.append(f"select '{name}' as tbl, {key} as id, count(*) as n from {{{name}}} where run_id = $run_id "
                     "group by all")
    sql = KEYS_SQL.replace("{unions}", " union all ".join(parts))
    return _query(con, sql, run_id, *CORPUS_TABLES)


REFERENCE_KINDS = ("document", "session", "bullet", "fact", "event")
REFERENCES_SQL = """
with ids as (
    select 'document' as kind, doc_id as id from {documents} where run_id = $run_id
    union select 'session', session_id from {sessions} where run_id = $run_id
    union select 'bullet', bullet_id from {bullets} where run_id = $run_id
    union select 'fact', fact_id from {facts} where run_id = $run_id
    union select 'event', event_id from {events} where run_id = $run_id
),
refs as (
    select 'document' as kind, turn_id as source_id, unnest(doc_ids) as ref_id from {turns} where run_id = $run_id
    union all select 'document', chunk_id, doc_id from {chunks} where run_id = $run_id
    union all select 'session', turn_id, session_id from {turns} where run_id = $run_id
    union all select 'bullet', turn_id, bullet_id from {turns} where run_id = $run_id and bullet_id is not null
    union all select 'fact', turn_id, unnest(fact_ids) from {turns} where run_id = $run_id
    union all select 'fact', bullet_id, unnest(fact_ids) from {bullets} where run_id = $run_id
    union all select 'fact', doc_id, unnest(fact_ids) from {documents} where run_id = $run_id
    union all select 'fact', chunk_id, unnest(fact_ids) from {chunks} where run_id = $run_id
    union all select 'fact', question_id, unnest(coalesce(
        cast(json_extract_string(derivation, '$.fact_ids[*]') as varchar[]), []))
        from {questions} where run_id = $run_id
    union all select 'event', fact_id, event_id from {facts} where run_id = $run_id
    union all select 'event', bullet_id, event_id from {bullets} where run_id = $run_id
)
select refs.ref_id,
{ok_columns}
from refs left join ids on ids.kind = refs.kind and ids.id = refs.ref_id
order by refs.kind, refs.source_id, refs.ref_id
"""


def reference_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per id cited by a turn, chunk, bullet, fact or question's derivation (ordered by kind, citing
    id, cited id): ref_id and `<kind>_ok` per kind (the id resolves; True for rows of other kinds), for one
    check per kind. The citing id and the kind stay in DuckDB: the checks and their samples read neither."""
    tables = ("documents", "sessions", "bullets", "facts", "events", "turns", "chunks", "questions")
    ok = ",\n".join(f"       refs.kind <> '{k}' or ids.id is not null as {k}_ok" for k in REFERENCE_KINDS)
    return _query(con, REFERENCES_SQL.replace("{ok_columns}", ok), run_id, *tables)


MCQ_SQL = """
select question_id, answer, options, gold_option,
       len(options) as n_options,
       len(list_distinct(options)) = len(options) as distinct_options,
       coalesce(gold_option between 0 and len(options) - 1 and options[gold_option + 1] = answer, false)
           as gold_is_answer
from {questions}
where run_id = $run_id and (answer_type = 'mcq' or len(options) > 0)
order by question_id
"""


def mcq_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per multiple-choice question: n_options, distinct_options (also after normalization:
    case, punctuation and spacing ignored), gold_is_answer (gold_option is a 0-based index into options
    and that option is the answer)."""
    from tasks.questions.scales import normalize

    df = _query(con, MCQ_SQL, run_id, "questions")
    df["distinct_options"] = [
        bool(ok) and len({normalize(o) for o in opts}) == len(opts)
        for ok, opts in zip(df["distinct_options"], df["options"], strict=True)
    ]
    return df
