"""`lifeloom metrics`: a tiny release, the imported RHELM excerpt, the bundled reference, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from schemas.tables import to_arrow
from tasks.interop import imported_persona
from tasks.metrics import grammar
from tests.tasks.metrics_rows import Evidence, fact, question, turn
from warehouse.integrity import checksums
from warehouse.measures import REFERENCE_FILE, load_reference, measure_benchmark
from warehouse.parquet import write_parquet

runner = CliRunner()
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "rhelm_sample"


def tiny_release(home: Path, with_questions: bool = True) -> Path:
    """releases/tiny/v0001 with four user turns (two the same), two facts and two questions."""
    folder = home / "releases" / "tiny" / "v0001"
    folder.mkdir(parents=True)
    turns = [turn("p0001", 1, "My employer is Blue Mill Bakery.", fact_ids=["p0001-f0001"]),
             turn("p0001", 2, "Thanks for listening to me."),
             turn("p0001", 3, "Thanks for listening to me."),
             turn("p0001", 4, "I adopted a rabbit named Toast.", fact_ids=["p0001-f0002"])]
    qs = [question("p0001", 1, "Who is Ana's employer?", "Blue Mill Bakery", fact_ids=["p0001-f0001"]),
          question("p0001", 2, "Which pet did Ana adopt?", "rabbit named Toast", fact_ids=["p0001-f0002"])]
    rows = {"turns": turns, "facts": [fact("p0001", 1, "employer", "Blue Mill Bakery"),
                                      fact("p0001", 2, "pet", "rabbit named Toast")],
            "personas": [imported_persona("p0001", "Ana Lima", "test")],
            "questions": qs if with_questions else [],
            "question_evidence": [Evidence(question_id=q.question_id, evidence_id=t.turn_id, evidence_kind="turn")
                                  for q, t in zip(qs, (turns[0], turns[3]), strict=True)] if with_questions else []}
    for table, items in rows.items():
        write_parquet(to_arrow(table, items, "tiny-run"), folder / f"{table}.parquet")
    sums = {k: v.model_dump() for k, v in checksums(folder).items()}
    (folder / "manifest.json").write_text(json.dumps({"name": "tiny", "version": "v0001", "run_id": "tiny-run",
                                                      "checksums": sums}))
    return folder


def invoke(*args: str):
    return runner.invoke(app, ["metrics", *args], catch_exceptions=False)


def test_metrics_of_a_tiny_release_as_json(tmp_path):
    tiny_release(tmp_path)
    result = invoke("--release", "tiny/v0001", "--home", str(tmp_path), "--format", "json", "--no-bundled-reference")
    assert result.exit_code == 0, result.output
    rows = {r["measure"]: r for r in json.loads(result.output)["tiny/v0001"]}
    assert rows["language.user.distinct_sentences"]["value"] == 0.75
    assert rows["facts.verbatim_mentions"]["value"] == 1.0
    assert rows["difficulty.pattern_memory"]["value"] == 1.0  # both values are stated in slot form
    assert rows["questions.templates"]["value"] == 1


def test_metrics_table_has_a_column_per_corpus_and_the_reference(tmp_path):
    tiny_release(tmp_path)
    other = tiny_release(tmp_path / "other")
    result = invoke("--release", "tiny/v0001", "--home", str(tmp_path), "--format", "markdown",
                    "--reference", str(other), "--no-categories")
    assert result.exit_code == 0, result.output
    head = result.output.splitlines()[0]
    assert "tiny/v0001" in head and str(other) in head and "RHELM excerpt (bundled)" in head
    assert head.endswith("| default gate |")
    assert "| language.assistant.distinct_sentences | ↑ |" in result.output
    assert "difficulty.bm25_copy.fact" not in result.output


@pytest.fixture(scope="module")
def excerpt():
    """The excerpt measured once, read straight from its folder (`--reference rhelm:PATH` does the same)."""
    return {r.measure: r.value for r in measure_benchmark("rhelm", FIXTURE)}


def test_imported_excerpt_is_measured_like_the_excerpt_on_disk(tmp_path, excerpt):
    imported = runner.invoke(app, ["import", str(FIXTURE), "--format", "rhelm", "--name", "rhelm-sample",
                                   "--home", str(tmp_path), "--no-gates"])
    assert imported.exit_code == 0, imported.output
    result = invoke("--release", "rhelm-sample", "--home", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    run = {r["measure"]: r["value"] for r in out["rhelm-sample"]}
    assert run == excerpt
    assert run["language.assistant.distinct_sentences"] > 0.9 and run["facts.verbatim_mentions"] is None


def test_bundled_reference_is_what_the_excerpt_measures_now(excerpt):
    """The reference column of every card rests on this file: rewrite it (python -m warehouse.measures) when the
    measures change."""
    stored = {r["measure"]: r["value"] for r in load_reference()["rows"]}
    fresh = dict(excerpt)
    if not grammar.available():
        stored = {k: v for k, v in stored.items() if not k.endswith("complete_parses")}
        fresh = {k: v for k, v in fresh.items() if not k.endswith("complete_parses")}
    assert fresh == stored, f"{REFERENCE_FILE} is stale: run `python -m warehouse.measures`"


@pytest.mark.parametrize(("args", "message"), [
    (["--release", "nope/v0009"], "no release, run or benchmark 'nope/v0009'"),
    (["--release", "tiny/v0001", "--reference", "rhelm:/no/such/folder"], "does not exist"),
    (["--release", "tiny/v0001", "--format", "yaml"], "unknown --format 'yaml'"),
])
def test_bad_metrics_input_exits_2_with_one_message(tmp_path, args, message):
    tiny_release(tmp_path)
    result = invoke(*args, "--home", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("error:") == 1


def test_release_without_questions_is_refused(tmp_path):
    tiny_release(tmp_path, with_questions=False)
    result = invoke("--release", "tiny/v0001", "--home", str(tmp_path))
    assert result.exit_code == 2 and "has no questions" in result.output
