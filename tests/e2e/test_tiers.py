"""End to end: the tiny preset's length tiers (4k cut, 32k padded) land, pass their gates, nest, catch a planted
haystack collision, and export at a tier in every format read back by that format's loader."""

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from flows.build import build_corpus
from flows.cli import app
from schemas.config import load_preset
from schemas.tiers import TierError
from validation.gates import run_gates
from validation.tiers import tiers_suite

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    result = build_corpus(config=load_preset("tiny"), home=str(home))
    return home, Path(result["release"]["path"])


def release_con(folder: Path, **replace) -> duckdb.DuckDBPyConnection:
    """A connection whose views are the release's tables (`replace`: a table's rows swapped for a frame)."""
    con = duckdb.connect()
    for f in folder.glob("*.parquet"):
        if f.stem in replace:
            con.register(f.stem, replace[f.stem])
        else:
            con.execute(f"create view {f.stem} as select * from read_parquet('{f}')")
    return con


def test_tiers_land_nest_and_pass_their_gates(built):
    _, folder = built
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(manifest["tiers"]) == {"4k", "32k"}
    assert manifest["tiers"]["32k"]["tokenizer"] == "cl100k_base"
    assert "tiers" in manifest["gates"]["suites"] and manifest["gates"]["failed"] == 0
    card = (folder / "README.md").read_text()
    assert "## Length tiers" in card and "| 4k | 4,000 |" in card and "| 32k | 32,000 |" in card
    con = release_con(folder)
    rows = con.execute("select tier, persona_id, mode, budget, tokens from tiers").fetchall()
    assert {(t, m) for t, _, m, _, _ in rows} == {("4k", "cut"), ("32k", "padded")}
    for _, _, mode, budget, tokens in rows:
        assert tokens <= budget and (mode == "cut" or tokens >= 0.98 * budget)
    small = set(con.execute("select persona_id, item_id from tier_history where tier = '4k'").fetchall())
    large = set(con.execute("select persona_id, item_id from tier_history where tier = '32k'").fetchall())
    assert small < large
    asked = {t: set(q) for t, q in con.execute("select tier, list(question_id) from tier_questions group by 1")
             .fetchall()}
    assert asked["4k"] <= asked["32k"] and asked["4k"]
    assert con.execute("select count(*) from tier_chats").fetchone()[0] > 0


def test_a_haystack_item_naming_the_persona_s_world_fails_the_collision_gate(built):
    _, folder = built
    con = release_con(folder)
    run_id = json.loads((folder / "manifest.json").read_text())["run_id"]
    report = run_gates(con, run_id, suites=[tiers_suite(load_preset("tiny"))])
    assert report.success, report.failure_message()
    chats = pq.read_table(folder / "tier_chats.parquet").to_pandas()
    friend = con.execute("select name from entities where persona_id = 'p0000' and kind = 'person' "
                         "limit 1").fetchone()[0]
    planted = chats.index[chats.persona_id == "p0000"][0]
    chats.loc[planted, "text"] = f"Could you help me write a note to {friend}?"
    report = run_gates(release_con(folder, tier_chats=chats), run_id, suites=[tiers_suite(load_preset("tiny"))])
    (failed,) = report.failed()
    assert failed.expectation == "tiers.no name collisions from the haystack"
    assert any(chats.loc[planted, "chat_id"] in str(s) for s in failed.sample)


def test_export_at_a_tier_reads_back_with_each_format_s_loader(built, tmp_path):
    home, folder = built
    con = release_con(folder)
    asked = {q for (q,) in con.execute("select question_id from tier_questions where tier = '32k'").fetchall()}
    talks = con.execute("select count(*) from tier_history where tier = '32k' and kind <> 'document'").fetchone()[0]
    from tasks.interop.locomo import import_locomo
    from tasks.interop.longmemeval import import_longmemeval
    from tasks.interop.rhelm import import_rhelm
    from warehouse.interop import read_rhelm_tree

    for fmt in ("longmemeval", "locomo", "rhelm", "hf"):
        out = tmp_path / fmt
        result = runner.invoke(app, ["export", "--release", "tiny/v0001", "--format", fmt, "--out", str(out),
                                     "--tier", "32k", "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert "at tier 32k" in result.output
        if fmt == "hf":
            from datasets import load_dataset

            cache = str(tmp_path / "hf-cache")  # never a cached copy of an earlier session's folder of the same path
            questions = load_dataset(str(out), name="questions", split="train", cache_dir=cache)
            assert set(questions["question_id"]) == asked
            sessions = load_dataset(str(out), name="sessions", split="train", cache_dir=cache)
            assert len(sessions) == talks  # own sessions, borrowed ones (<persona>-x<id>) and task chats
            assert any("-x" in s for s in sessions["session_id"])
            continue
        if fmt == "rhelm":
            bundle, _ = import_rhelm(read_rhelm_tree(out))
        else:
            (path,) = out.glob("*.json")
            data = json.loads(path.read_text())
            bundle, _ = (import_longmemeval if fmt == "longmemeval" else import_locomo)(data)
        assert len(bundle.questions) == len(asked), fmt
        if fmt == "longmemeval":
            assert len(bundle.sessions) == talks


def test_the_hugging_face_export_has_one_config_per_tier(built, tmp_path):
    """The whole release's hf folder: a `tier-<name>` config per tier, a row per persona holding the tier's history
    (own and haystack sessions with their turns, documents) and questions with the tier's answers."""
    from datasets import load_dataset

    home, folder = built
    con = release_con(folder)
    out = tmp_path / "hf"
    result = runner.invoke(app, ["export", "--release", "tiny/v0001", "--format", "hf", "--out", str(out),
                                 "--home", str(home)])
    assert result.exit_code == 0, result.output
    card = (out / "README.md").read_text()
    assert "config_name: tier-4k" in card and "config_name: tier-32k" in card
    cache = str(tmp_path / "hf-cache")
    for tier in ("4k", "32k"):
        rows = load_dataset(str(out), name=f"tier-{tier}", split="train", cache_dir=cache)
        assert rows["persona_id"] == sorted(rows["persona_id"]) and set(rows["tier"]) == {tier}
        asked = dict(con.execute("select question_id, answer from tier_questions where tier = ?", [tier]).fetchall())
        got = {q["question_id"]: q["answer"] for r in rows for q in r["questions"]}
        assert got == asked  # every question of the tier, with the tier's answer (a re-derived count included)
        sources = con.execute("select source, count(*) from tier_history where tier = ? and kind <> 'document' "
                              "group by all", [tier]).fetchall()
        held = {"own": 0, "haystack": 0}
        for r in rows:
            for session in r["sessions"]:
                held[session["source"]] += 1
                assert session["turns"] and all(t["text"] for t in session["turns"])
        assert held == {source: n for source, n in sources} | {k: 0 for k in held if k not in dict(sources)}
        documents = con.execute("select count(*) from tier_history where tier = ? and kind = 'document'",
                                [tier]).fetchone()[0]
        assert sum(len(r["documents"]) for r in rows) == documents


def test_a_tier_the_release_lacks_and_a_name_that_is_no_size_are_one_line_each(built, tmp_path):
    home, _ = built
    result = runner.invoke(app, ["export", "--release", "tiny/v0001", "--format", "locomo", "--out",
                                 str(tmp_path / "x"), "--tier", "128k", "--home", str(home)])
    assert result.exit_code == 2 and "the release has no tier '128k'; its tiers: 4k, 32k" in result.output
    result = runner.invoke(app, ["eval", "--release", "tiny/v0001", "--tiers", "huge", "--home", str(home)])
    assert result.exit_code == 2 and "tier 'huge' is not a size" in result.output


def test_eval_tiers_plots_the_length_curve(built):
    home, _ = built
    result = runner.invoke(app, ["eval", "--release", "tiny/v0001", "--tiers", "all", "--systems", "bm25,oracle",
                                 "--home", str(home)])
    assert result.exit_code == 0, result.output
    folder = Path(result.output.split("eval ")[-1].split(":")[1].split()[0])
    curve = json.loads((folder / "curve.json").read_text())
    assert {(r["tier"], r["system"]) for r in curve} == {(t, s) for t in ("4k", "32k") for s in ("bm25", "oracle")}
    assert (folder / "length_curve.png").stat().st_size > 0
    assert "## Accuracy by tier" in (folder / "report.md").read_text()


def test_a_tier_the_personas_cannot_hold_exits_2(tmp_path, monkeypatch):
    import flows.runner

    def refuse(config):
        def run(**_):
            raise TierError("tier 1k (1,000 tokens) is below the shortest evidence window of persona p0000")
        return run

    monkeypatch.setattr(flows.runner, "build_flow", refuse)
    result = runner.invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path)])
    assert result.exit_code == 2 and "below the shortest evidence window of persona p0000" in result.output
    assert not (tmp_path / "releases").exists() or not any((tmp_path / "releases").rglob("manifest.json"))


def test_a_tokenizer_that_cannot_load_stops_the_build_before_any_work(tmp_path, monkeypatch):
    import tasks.sources.chunking

    def broken():
        raise OSError("cl100k_base.tiktoken: no such file")

    monkeypatch.setattr(tasks.sources.chunking, "encoding", broken)
    result = runner.invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path / "home")])
    assert result.exit_code == 2 and "the tiers' tokenizer cl100k_base (bpe-openai) cannot load" in result.output
    assert not (tmp_path / "home").exists()
