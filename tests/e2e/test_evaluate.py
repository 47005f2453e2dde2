"""End to end: `lifeloom eval` on a tiny offline release, checking the shape of the results."""

import json
import os
import stat

import pytest
from typer.testing import CliRunner

from flows.build import build_corpus
from flows.cli import app
from schemas.config import load_preset
from tasks.evaluate.report import PLOTS
from warehouse.evaluation import read_results

SYSTEMS = ("no_memory", "random", "recency", "bm25", "oracle", "broken_oracle")


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    home = tmp_path_factory.mktemp("evalhome")
    build_corpus(config=load_preset("tiny"), home=str(home))
    release = home / "releases" / "tiny" / "v0001"
    before = sorted((p.relative_to(release), p.stat().st_mtime_ns) for p in release.rglob("*"))
    result = CliRunner().invoke(app, ["eval", "--release", "tiny/v0001", "--systems", ",".join(SYSTEMS),
                                      "--settings", "turns,both", "--k", "5,20", "--home", str(home)])
    assert result.exit_code == 0, result.output
    folders = list((home / "eval" / "tiny" / "v0001").iterdir())
    assert len(folders) == 1
    return home, release, before, folders[0], read_results(folders[0]), result.output


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values)


def test_one_row_per_system_setting_k_question(evaluated):
    home, release, _, folder, rows, output = evaluated
    questions = json.loads((release / "manifest.json").read_text())["row_counts"]["questions"]
    assert len(rows) == len(SYSTEMS) * 2 * 2 * questions
    assert {r["reader"] for r in rows} == {"offline-extractive"}
    assert {r["score_method"] for r in rows} <= {"exact", "numeric", "option", "decline", "judge"}
    assert all(len(r["retrieved_ids"]) <= r["k"] for r in rows)
    assert "report:" in output and folder.name in output


def test_oracle_finds_evidence_broken_oracle_never_does(evaluated):
    rows = evaluated[4]
    with_gold = [r for r in rows if r["n_gold"] > 0]
    assert with_gold
    assert all(r["hit_at_5"] == 1.0 for r in with_gold if r["system"] == "oracle")
    assert all(r["hit_at_20"] == 0.0 for r in with_gold if r["system"] == "broken_oracle")
    assert _mean(r["recall_at_5"] for r in with_gold if r["system"] == "random") < 0.25
    assert all(r["hit_at_5"] is None for r in rows if r["n_gold"] == 0)
    assert all(r["retrieved_ids"] == [] for r in rows if r["system"] == "no_memory")


def test_no_memory_answers_mcq_near_chance_and_oracle_beats_it(evaluated):
    rows = evaluated[4]
    mcq = [r for r in rows if r["answer_type"] == "mcq"]
    blind = _mean(float(r["correct"]) for r in mcq if r["system"] == "no_memory")
    oracle = _mean(float(r["correct"]) for r in mcq if r["system"] == "oracle")
    assert blind < 0.4  # six options: chance is 1/6
    assert oracle > blind


def test_report_written_beside_the_release_which_is_untouched(evaluated):
    home, release, before, folder, _, _ = evaluated
    assert folder.parent == home / "eval" / "tiny" / "v0001"
    md = (folder / "report.md").read_text()
    assert "## Retrieval and accuracy by system, setting and k" in md and "offline-extractive" in md
    for name in PLOTS:
        assert (folder / "plots" / name).stat().st_size > 1000
    assert json.loads((folder / "summary.json").read_text())["eval_id"] == folder.name
    assert sorted((p.relative_to(release), p.stat().st_mtime_ns) for p in release.rglob("*")) == before
    assert not os.access(release, os.W_OK) or not stat.S_IMODE(release.stat().st_mode) & 0o222


def test_results_are_queryable_from_the_catalog(evaluated):
    home, _, _, folder, rows, _ = evaluated

    def sql(query: str) -> list[dict]:
        result = CliRunner().invoke(app, ["sql", query, "--home", str(home), "--format", "json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    assert sql(f"select count(*) as n from eval_results where eval_id = '{folder.name}'") == [{"n": len(rows)}]
    oracle = sql("select setting, k, avg(hit_at_5) as hit5 from eval_summary where system = 'oracle' "
                 "and hit_at_5 is not null group by all")
    assert oracle and all(r["hit5"] == 1.0 for r in oracle)


def test_recency_and_bm25_stay_below_oracle_on_distant_evidence(evaluated):
    import duckdb

    _, release, _, _, rows, _ = evaluated
    con = duckdb.connect()
    # questions whose every evidence turn is at least a week older than the question
    distant = {qid for (qid,) in con.execute(f"""
        select q.question_id from read_parquet('{release}/questions*.parquet') q
        join read_parquet('{release}/question_evidence*.parquet') e using (question_id)
        join read_parquet('{release}/turns*.parquet') t on t.turn_id = e.evidence_id
        group by q.question_id, q.question_time having max(t.timestamp) < q.question_time - interval 7 day
    """).fetchall()}
    assert distant

    def hit5(system):
        return _mean([r["hit_at_5"] for r in rows if r["question_id"] in distant and r["system"] == system
                      and r["setting"] == "turns" and r["k"] == 5])

    assert hit5("oracle") == 1.0
    assert hit5("recency") < 0.3 and hit5("bm25") < 0.95
