"""Scale: persona branches run in a bounded window and each lands its own Parquet partitions as it finishes,
so memory follows the branches in flight while rows grow linearly with personas."""

import gc
import json

import pyarrow.parquet as pq
import pytest

from flows import build
from flows.stages import STAGE_TASKS, Staged
from schemas.config import load_preset
from schemas.tables import CORPUS_TABLES
from warehouse.paths import Layout

PER_PERSONA = [t for t in CORPUS_TABLES if t != "llm_calls"]


@pytest.fixture(scope="module")
def windowed(tmp_path_factory):
    """tiny (two weeks), three personas, one branch in flight; at each submit, records the personas landed so
    far and how many of this build's stage values are still alive (a fresh home, so every one is made
    by this run)."""
    home = tmp_path_factory.mktemp("scale")
    config = load_preset("tiny")
    config = config.model_copy(update={"name": "scale", "personas": 3, "days": 14,
                                       "runner": config.runner.model_copy(update={"max_active_personas": 1})})
    submitted, submit = [], build.submit_persona

    def spy(ctx, persona_id, seed_text, tasks=None):
        landed = {t: sorted(f.parent.name.removeprefix("persona_id=") for f in
                            (ctx.layout.table_dir(t) / f"run_id={ctx.run_id}").glob("persona_id=*/part.parquet"))
                  for t in PER_PERSONA}
        gc.collect()
        # this build's values only: a worker that ran other test files first may still hold theirs
        alive = sum(isinstance(o, Staged) and o.origin_run == ctx.run_id for o in gc.get_objects())
        submitted.append((persona_id, landed, alive))
        return submit(ctx, persona_id, seed_text, tasks)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(build, "submit_persona", spy)
        result = build.build_corpus(config=config, home=str(home))
    return home, result, submitted


def test_each_branch_is_submitted_after_the_previous_one_landed_every_table(windowed):
    _, result, submitted = windowed
    order = [pid for pid, *_ in submitted]
    assert len(order) == 3
    for i, (_, landed, _) in enumerate(submitted):
        assert all(pids == sorted(order[:i]) for pids in landed.values()), (i, landed)


def test_a_landed_branch_leaves_no_stage_values_behind(windowed):
    _, _, submitted = windowed
    alive = [n for *_, n in submitted]
    assert alive[0] == 0
    assert all(n <= len(STAGE_TASKS) for n in alive), alive  # at most the last branch's, while its thread winds down


def test_one_parquet_file_per_persona_and_table(windowed):
    home, result, submitted = windowed
    pids = sorted(pid for pid, *_ in submitted)
    for table in PER_PERSONA:
        run_dir = Layout(home).table_dir(table) / f"run_id={result['run_id']}"
        files = sorted(run_dir.glob("persona_id=*/*.parquet"))
        assert [f.parent.name.removeprefix("persona_id=") for f in files] == pids, table
        assert [f.name for f in files] == ["part.parquet"] * 3, table


def test_rows_grow_linearly_with_personas(windowed):
    home, result, _ = windowed
    manifest = json.loads((home / "releases" / "scale" / "v0001" / "manifest.json").read_text())
    for table in ("facts", "turns", "documents", "questions"):
        per = [pq.ParquetFile(f).metadata.num_rows
               for f in sorted((Layout(home).table_dir(table) / f"run_id={result['run_id']}").glob("*/part.parquet"))]
        # the release calibration's withdrawals stay in the landed partitions; the tables leave them out
        withdrawn = manifest["row_counts"]["question_calibration"] if table == "questions" else 0
        assert sum(per) - withdrawn == manifest["row_counts"][table] == result["counts"][table], table
        mean = sum(per) / len(per)
        assert all(mean / 3 <= n <= mean * 3 for n in per), (table, per)  # three personas ~ three times one
