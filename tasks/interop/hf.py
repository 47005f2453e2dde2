"""A Hugging Face `datasets`-loadable folder: one Parquet file per table (split `train`) and a dataset card
whose YAML front matter names one config per table, so `load_dataset("parquet", ...)` or
`load_dataset(folder, name=table)` reads it with no network.

A release with length tiers also gets one config per tier, `tier-<name>` (`tier-32k`): one row per persona with
everything a memory system is given at that length and what it is asked, nested (`tier_table`), so a tier loads
whole with `load_dataset(folder, name="tier-32k")`.
"""

from __future__ import annotations

import pyarrow as pa

from schemas.qa import Question
from schemas.release import LICENSE
from schemas.tables import TABLES


def export_tables(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """Relative path -> table: `data/<table>/train.parquet` for each table."""
    return {f"data/{name}/train.parquet": table for name, table in tables.items()}


TURN = pa.struct([("turn_id", pa.string()), ("role", pa.string()), ("timestamp", pa.timestamp("us", tz="UTC")),
                  ("text", pa.string())])
SESSION = pa.struct([("session_id", pa.string()), ("started_at", pa.timestamp("us", tz="UTC")),
                     ("source", pa.string()), ("turns", pa.list_(TURN))])
DOCUMENT = pa.struct([("doc_id", pa.string()), ("created_at", pa.timestamp("us", tz="UTC")), ("title", pa.string()),
                      ("body", pa.string())])
QUESTION = pa.struct([("question_id", pa.string()), ("question_time", pa.timestamp("us", tz="UTC")),
                      ("category", pa.string()), ("question", pa.string()), ("answer", pa.string()),
                      ("reference_answer", pa.string()), ("answer_type", pa.string()),
                      ("options", pa.list_(pa.string())), ("evidence_ids", pa.list_(pa.string()))])
TIER = pa.schema([("persona_id", pa.string()), ("tier", pa.string()), ("sessions", pa.list_(SESSION)),
                  ("documents", pa.list_(DOCUMENT)), ("questions", pa.list_(QUESTION))])
"""A tier config's row: one persona's history at the tier (sessions with their turns, own or haystack; documents)
and the tier's questions with the answers at that length (a cut's re-derived count) and their evidence ids."""


def tier_table(bundle, tier: str, own: set[str]) -> pa.Table:
    """The `tier-<name>` config of a release seen at `tier` (a `Bundle` from tasks/tiers/view.py `apply_tier`):
    one row per persona, in persona order; a session not among the persona's `own` item ids is `haystack` (a
    borrowed session or chat, `<persona>-x...`, or a task chat)."""
    turns: dict[str, list[dict]] = {}
    for t in bundle.turns:
        turns.setdefault(t.session_id, []).append({"turn_id": t.turn_id, "role": t.role, "timestamp": t.timestamp,
                                                   "text": t.text})
    evidence: dict[str, list[str]] = {}
    for e in bundle.evidence:
        evidence.setdefault(e.question_id, []).append(e.evidence_id)
    rows = []
    for pid in sorted(bundle.persona_ids()):
        sessions = [{"session_id": s.session_id, "started_at": s.started_at,
                     "source": "own" if s.session_id in own else "haystack",
                     "turns": turns.get(s.session_id, [])} for s in bundle.sessions if s.persona_id == pid]
        documents = [{"doc_id": d.doc_id, "created_at": d.created_at, "title": d.title, "body": d.body}
                     for d in sorted(bundle.documents, key=lambda d: (d.created_at, d.doc_id)) if d.persona_id == pid]
        questions = [_question(q, evidence.get(q.question_id, [])) for q in bundle.questions if q.persona_id == pid]
        rows.append({"persona_id": pid, "tier": tier, "sessions": sessions, "documents": documents,
                     "questions": sorted(questions, key=lambda q: (q["question_time"], q["question_id"]))})
    return pa.Table.from_pylist(rows, schema=TIER)


def _question(q: Question, evidence_ids: list[str]) -> dict:
    return {"question_id": q.question_id, "question_time": q.question_time, "category": q.category,
            "question": q.question, "answer": q.answer, "reference_answer": q.reference_answer,
            "answer_type": q.answer_type, "options": list(q.options or []), "evidence_ids": sorted(set(evidence_ids))}


def dataset_card(release: str, names: list[str], rows: dict[str, int] | None = None,
                 tiers: list[str] | None = None) -> str:
    """README.md with YAML front matter: one config per table that has rows (`datasets` cannot load a Parquet file
    of none: "BatchSize must be greater than 0"), `questions` the default; the licence is the release's (MIT)."""
    rows = rows or {}
    empty = [n for n in names if n in rows and rows[n] == 0]
    configs = []
    for name in names:
        if name in empty:
            continue
        default = "  default: true\n" if name == "questions" else ""
        configs.append(f"- config_name: {name}\n{default}  data_files:\n  - split: train\n"
                       f"    path: data/{name}/train.parquet")
    for tier in tiers or []:
        configs.append(f"- config_name: tier-{tier}\n  data_files:\n  - split: train\n"
                       f"    path: data/tier-{tier}/train.parquet")
    described = "\n".join(f"- `{n}`: one row per {TABLES[n].model.__name__.lower()} (key: {', '.join(TABLES[n].key)})"
                          + (" (empty in this release: no config)" if n in empty else "")
                          for n in names if n in TABLES)
    return (
        "---\nconfigs:\n" + "\n".join(configs) + f"\nlicense: {LICENSE}\ntags:\n- long-term-memory\n- lifeloom\n---\n\n"
        f"# lifeloom release {release}\n\nExported by `lifeloom export --format hf`. Each table with rows is a config "
        "with a single `train` split:\n\n" + described + _tiers_described(tiers or [])
        + "\n\n```python\nfrom datasets import load_dataset\n"
        'questions = load_dataset("path/to/this/folder", name="questions", split="train")\n'
        + (f'tier = load_dataset("path/to/this/folder", name="tier-{tiers[0]}", split="train")  # a row per persona\n'
           if tiers else "") + "```\n"
    )


def _tiers_described(tiers: list[str]) -> str:
    if not tiers:
        return ""
    return ("\n\nLength tiers (`lifeloom export --tier NAME` writes one alone): "
            + ", ".join(f"`tier-{t}`" for t in tiers) + ". Each is one row per persona: `sessions` (each with its "
            "`turns`; `source` is `own` or `haystack`, other personas' sessions and everyday task chats that fill a "
            "short life up to the budget), `documents`, and `questions` with the answer at that length (a count the "
            "cut changed is counted again on the tier's history) and `evidence_ids`. Give a memory system the items "
            "before each question's `question_time`.")
