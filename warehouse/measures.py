"""Reading a corpus for the validity measures (tasks/metrics/), and where those measures come from.

A corpus is any DuckDB connection with the contract's views and a run id: a build's run (`session`), a
frozen release folder (`release_session`: a view per table over `<table>.parquet`) or an imported benchmark,
which is a run like any other. `personas_of` yields one persona's rows at a time, as pydantic rows.
"""

from __future__ import annotations

import json
import zoneinfo
from collections.abc import Iterator
from pathlib import Path

import duckdb
from pydantic import BaseModel

from schemas.corpus import Bullet, Chunk, Document, FactMention, Turn
from schemas.metrics import MeasureRow
from schemas.qa import Evidence, Question
from schemas.tables import TABLES, empty_relation, from_records
from schemas.world import Event, Fact, Plan, WorldEntity
from tasks.metrics.corpus import PersonaCorpus
from warehouse.catalog import _quote as quote
from warehouse.parsecache import default_cache

_LISTS = {"turns": Turn, "documents": Document, "chunks": Chunk, "bullets": Bullet, "events": Event, "plans": Plan,
          "facts": Fact, "entities": WorldEntity, "questions": Question, "evidence": Evidence}
_TABLE_OF = {"evidence": "question_evidence"}


def grammar_sample_of(path: Path) -> int:
    """The grammar sample the release's build measured with (its config's `gates.grammar_sample`), so `lifeloom
    metrics` recomputes what the build landed."""
    from tasks.metrics import GRAMMAR_SAMPLE

    config = json.loads((path / "manifest.json").read_text()).get("config") or {}
    return int((config.get("gates") or {}).get("grammar_sample", GRAMMAR_SAMPLE))


def release_session(path: Path) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory connection with a view per contract table over the release's Parquet files (typed empty
    views for tables the release lacks) and the release's run id."""
    manifest = json.loads((path / "manifest.json").read_text())
    con = duckdb.connect()
    for table in TABLES:
        file = path / f"{table}.parquet"
        source = f"select * from read_parquet({quote(str(file))})" if file.is_file() else empty_relation(table)
        con.execute(f"create view {table} as {source}")
    return con, manifest["run_id"]


def _models(con: duckdb.DuckDBPyConnection, table: str, model: type[BaseModel], run_id: str,
            persona_id: str) -> list:
    """One persona's rows of `table` as `model`s (none when the connection has no such table). A column the
    table lacks (a release frozen before the column was added, e.g. `documents.judged`) takes its default."""
    mine = ("question_id in (select question_id from questions where run_id = $r and persona_id = $p)"
            if table == "question_evidence" else "persona_id = $p")  # evidence rows carry no persona column
    try:
        present = set(con.sql(f"select * from {table} limit 0").columns)
        cols = ", ".join(f'"{c}"' for c in model.model_fields if c in present)
        records = con.sql(f"select {cols} from {table} where run_id = $r and {mine}",
                          params={"r": run_id, "p": persona_id}).to_arrow_table().to_pylist()
    except duckdb.CatalogException:
        return []
    return from_records(model, records)


def _zone(profile: str | None) -> zoneinfo.ZoneInfo | None:
    try:
        name = json.loads(profile or "{}").get("identity", {}).get("timezone")
        return zoneinfo.ZoneInfo(name) if name else None
    except (ValueError, zoneinfo.ZoneInfoNotFoundError, AttributeError):
        return None


def _select(con: duckdb.DuckDBPyConnection, sql: str, run_id: str) -> list[tuple]:
    try:
        return con.execute(sql, [run_id]).fetchall()
    except duckdb.CatalogException:  # a connection without that table (a partial test corpus)
        return []


def persona_ids(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """Every persona with turns, questions or a personas row in the run."""
    found = {p for table in ("turns", "questions", "personas")
             for (p,) in _select(con, f"select distinct persona_id from {table} where run_id = ?", run_id)}
    return sorted(p for p in found if p is not None)


def personas_of(con: duckdb.DuckDBPyConnection, run_id: str, only: list[str] | None = None) -> Iterator[PersonaCorpus]:
    """Each persona's corpus of the run (or of the personas `only` names), in persona order, one at a time."""
    people = {p: (n, z) for p, n, z in _select(con, "select persona_id, name, profile from personas where run_id = ?",
                                               run_id)}
    for pid in persona_ids(con, run_id) if only is None else sorted(only):
        name, profile = people.get(pid, ("", None))
        corpus = PersonaCorpus(persona_id=pid, name=name or "")
        corpus.zone = _zone(profile) or corpus.zone
        for field, model in _LISTS.items():
            setattr(corpus, field, _models(con, _TABLE_OF.get(field, field), model, run_id, pid))
        said = _models(con, "fact_mentions", FactMention, run_id, pid)
        corpus.fact_mentions = [m.model_dump() for m in said] if said else None  # None: a corpus without the table
        yield corpus


def stored_measures(con: duckdb.DuckDBPyConnection, run_id: str) -> list[MeasureRow]:
    """The `measures` rows landed for the run (empty when it has none)."""
    rows = _select(con, "select measure, \"group\", value, n, better, detail, note from measures where run_id = ?",
                   run_id)
    keys = ("measure", "group", "value", "n", "better", "detail", "note")
    out = []
    for r in rows:
        rec = dict(zip(keys, r, strict=True))
        rec["detail"] = json.loads(rec["detail"]) if isinstance(rec["detail"], str) else (rec["detail"] or {})
        out.append(MeasureRow.model_validate(rec))
    return out


def bundle_corpora(bundle) -> Iterator[PersonaCorpus]:
    """The personas of an imported benchmark read into memory (tasks/interop `Bundle`), without landing it."""
    for persona in bundle.personas:
        pid = persona.persona_id

        def mine(rows, pid=pid):
            return [r for r in rows if r.persona_id == pid]

        owned = {q.question_id for q in mine(bundle.questions)}
        yield PersonaCorpus(persona_id=pid, name=persona.name, turns=mine(bundle.turns),
                            documents=mine(bundle.documents), chunks=mine(bundle.chunks),
                            questions=mine(bundle.questions),
                            evidence=[e for e in bundle.evidence if e.question_id in owned])


REFERENCE_FILE = Path(__file__).with_name("reference_measures.json")
"""The measures of the RHELM excerpt (tests/fixtures/rhelm_sample), written by `python -m warehouse.measures`
and checked against a fresh measurement by tests/warehouse/test_measures.py: the reference column of every
manifest, dataset card and freeze artifact."""
REFERENCE_NAME = "RHELM excerpt"


def measure_benchmark(fmt: str, path: Path) -> list[MeasureRow]:
    """The measures of a benchmark in another format (rhelm, locomo, longmemeval), read without landing."""
    from tasks.metrics import measure_corpus
    from warehouse.interop import read_benchmark

    bundle, _ = read_benchmark(fmt, path)
    return measure_corpus(bundle_corpora(bundle), parse_cache=default_cache())


def load_reference() -> dict | None:
    """{"name", "source", "rows"} of the bundled reference, or None when the file is missing."""
    try:
        return json.loads(REFERENCE_FILE.read_text())
    except (OSError, ValueError):
        return None


def reference_of(rows: list[MeasureRow], source: str) -> dict:
    return {"name": REFERENCE_NAME, "source": source,
            "rows": [{"measure": r.measure, "value": r.value, "n": r.n, "note": r.note} for r in rows]}


if __name__ == "__main__":  # python -m warehouse.measures [FIXTURE]: rewrite the bundled reference measures
    import sys

    fixture = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/rhelm_sample")
    found = reference_of(measure_benchmark("rhelm", fixture), "tests/fixtures/rhelm_sample (RHELM release, "
                         "persona Elena_Morales: 8 conversation days, their emails and attachments, 16 QA items)")
    REFERENCE_FILE.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE_FILE} ({len(found['rows'])} measures)")
