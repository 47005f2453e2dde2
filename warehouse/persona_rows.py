"""A frozen release read back as the stage models, one persona at a time: `Persona`, `World`, `Corpus` and
`QuestionSet`, exactly as a persona branch hands them to the verifier. `lifeloom audit` reads a release this way to
run the item sign-off (tasks/signoff/) on it after the fact; tests use it to audit a built corpus."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import QuestionSet
from schemas.tables import TABLES, is_json_column
from schemas.world import World

WORLD_TABLES = ("plans", "events", "facts", "profile_ops", "profile_snapshots", "constraints", "entities")
CORPUS_TABLES = {"documents": "documents", "chunks": "chunks", "bullets": "bullets", "sessions": "sessions",
                 "turns": "turns", "fact_mentions": "mentions"}
QUESTION_TABLES = {"questions": "questions", "question_evidence": "evidence"}


@dataclass
class PersonaRows:
    persona: Persona
    world: World
    corpus: Corpus
    questions: QuestionSet


def _records(folder: Path, table: str) -> list[dict[str, Any]]:
    """The table's records: a release's `<table>.parquet`, or a data root's landed partitions of one run
    (`folder` = `<home>/tables/<table>/run_id=<run>` minus the table: pass `<home>/tables` with `run=`)."""
    path = folder / f"{table}.parquet"
    if path.is_file():
        return pq.read_table(path).to_pylist()
    parts = folder.parent / table / folder.name if folder.name.startswith("run_id=") else None
    if parts is None or not parts.is_dir():
        return []
    out = []
    for file in sorted(parts.glob("persona_id=*/*.parquet")):
        pid = file.parent.name.split("=", 1)[1]
        out += [{**rec, "persona_id": pid} for rec in pq.read_table(file).to_pylist()]
    return out


def _rows(folder: Path, table: str) -> dict[str, list[Any]]:
    """The table's rows as models, by persona id (none when there are no such rows)."""
    model = TABLES[table].model
    out: dict[str, list[Any]] = defaultdict(list)
    for rec in _records(folder, table):
        data = {k: v for k, v in rec.items() if k in model.model_fields}
        for col in data:
            if is_json_column(model, col) and isinstance(data[col], str):
                data[col] = json.loads(data[col])
        out[rec["persona_id"]].append(model.model_validate(data))
    return out


def persona_rows(folder: Path, only: set[str] | None = None) -> Iterator[PersonaRows]:
    """Each persona (or those in `only`, in persona id order) of the release folder `folder`, or of one run's landed
    partitions when `folder` is `<home>/tables/run_id=<run>` (a run that froze nothing, e.g. a failed build)."""
    personas = _rows(folder, "personas")
    tables = {t: _rows(folder, t) for t in (*WORLD_TABLES, *CORPUS_TABLES, *QUESTION_TABLES)}
    for pid in sorted(personas):
        if only is not None and pid not in only:
            continue
        world = World(**{t: tables[t].get(pid, []) for t in WORLD_TABLES})
        corpus = Corpus(**{field: tables[t].get(pid, []) for t, field in CORPUS_TABLES.items()})
        qset = QuestionSet(**{field: tables[t].get(pid, []) for t, field in QUESTION_TABLES.items()})
        yield PersonaRows(personas[pid][0], world, corpus, qset)
