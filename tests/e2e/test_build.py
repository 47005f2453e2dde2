"""End to end: build_corpus on the offline narrator, through gates to a frozen release."""

import json
import re

import duckdb
import pytest
from typer.testing import CliRunner

from flows import stages
from flows.build import GateFailed, build_corpus
from flows.cli import app
from schemas.config import load_preset
from warehouse.catalog import open_catalog
from warehouse.paths import Layout


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    result = build_corpus(config=load_preset("tiny"), home=str(home))
    return home, result


def test_build_freezes_a_release_with_manifest(tiny):
    home, result = tiny
    path = home / "releases" / "tiny" / "v0001"
    assert result["release"]["path"] == str(path)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["provider"]["name"] == "offline"
    assert set(manifest["stage_providers"]) == {"profile", "loop", "sources", "dialogue", "questions", "companion"}
    assert {p["name"] for p in manifest["stage_providers"].values()} == {"offline"}
    assert manifest["row_counts"]["questions"] > 0 and manifest["row_counts"]["turns"] > 0
    assert manifest["gates"]["failed"] == 0
    assert set(manifest["table_hashes"]) >= {"questions", "question_evidence", "facts", "turns", "llm_calls"}
    assert manifest["ledger"]["calls"] > 0
    stages = {row["stage"] for row in manifest["ledger"]["by_stage_model"]}
    assert {"profile", "loop", "sources", "dialogue"} <= stages
    assert manifest["row_counts"]["chat_probes"] > 0 and manifest["row_counts"]["profile_claims"] > 0
    assert manifest["row_counts"]["persona_portraits"] == 2 * 9  # two personas, nine slots each
    assert manifest["companion"]["probes"] == manifest["row_counts"]["chat_probes"]
    assert 0 <= manifest["companion"]["natural_memory_rate"] < 0.2
    for name in manifest["files"]:
        assert (path / name).is_file()


def test_the_plan_equals_the_ledger_of_the_build(tiny):
    """`lifeloom plan` on the offline path counts exactly what the build's ledger holds, stage by stage (issue 56:
    within 10 percent of a real build's ledger; offline both are exact)."""
    from flows.plan import plan_build

    home, result = tiny
    plan = plan_build(load_preset("tiny"), None, workers=1)
    con = open_catalog(Layout(home))
    ledger = {stage: (calls, i, o) for stage, calls, i, o in con.execute(
        "select stage, count(*), sum(input_tokens), sum(output_tokens) from llm_calls where run_id = ? group by 1",
        [result["run_id"]]).fetchall()}
    assert {r.stage: (r.calls, r.input_tokens, r.output_tokens) for r in plan.rows} == ledger
    assert plan.cost == 0.0 and not plan.paid


def test_catalog_answers_queries_about_the_latest_run(tiny):
    home, result = tiny
    con = open_catalog(Layout(home))
    assert con.execute("select run_id from latest.runs").fetchone() == (result["run_id"],)
    categories = {c for (c,) in con.execute("select distinct category from latest.questions").fetchall()}
    assert {"fact", "temporal"} <= categories
    late = con.execute(
        "select count(*) from latest.question_evidence e join latest.questions q using (question_id) "
        "join latest.turns t on t.turn_id = e.evidence_id where t.timestamp >= q.question_time"
    ).fetchone()[0]
    assert late == 0
    assert con.execute("select count(*) from latest.gate_results where not success").fetchone() == (0,)
    assert con.execute("select count(distinct persona_id) from latest.personas").fetchone() == (2,)
    assert con.execute("select version, run_id from latest.releases").fetchall() == [("v0001", result["run_id"])]


def test_same_seed_same_content_other_seed_differs(tiny, tmp_path):
    home, first = tiny
    again = build_corpus(config=load_preset("tiny"), home=str(tmp_path / "a"))
    other = build_corpus(config=load_preset("tiny").model_copy(update={"seed": 2}), home=str(tmp_path / "b"))
    hashes = [json.loads((__import__("pathlib").Path(r["release"]["path"]) / "manifest.json").read_text())
              ["table_hashes"] for r in (first, again, other)]
    assert hashes[0] == hashes[1]
    assert hashes[0]["facts"] != hashes[2]["facts"]


def test_a_planted_precondition_violation_fails_the_build_and_freezes_nothing(tmp_path, monkeypatch):
    """The mutation test of issue 23: an event at an employer the persona never worked for (a restructuring
    the simulator would have cancelled) is an error finding of the world verifier, and the gate stops the release."""
    from schemas.world import Event, Plan

    real = stages.loop.simulate

    def planted(config, persona, gateway, *args, **kwargs):
        world = real(config, persona, gateway, *args, **kwargs)
        n, day = len(world.events), config.end_date
        plan = Plan(plan_id=f"{persona.persona_id}-l9999", persona_id=persona.persona_id, created_on=day,
                    horizon="short", scheduled_for=day, title="get through the restructuring at Nowhere Ltd",
                    kind="restructure", entity={"employer": "Nowhere Ltd", "months": "3"})
        event = Event(event_id=f"{persona.persona_id}-e{n:04d}", persona_id=persona.persona_id, date=day,
                      plan_id=plan.plan_id, kind="restructure", valence="positive", severity=2, critical=False,
                      narrative="The restructuring at Nowhere Ltd went fine.")
        return world.model_copy(update={"plans": [*world.plans, plan], "events": [*world.events, event]})

    monkeypatch.setattr(stages.loop, "simulate", planted)
    config = load_preset("tiny").model_copy(update={"days": 7})  # a week is enough to reach the gate
    with pytest.raises(GateFailed, match="consistency.no error finding left"):
        build_corpus(config=config, home=str(tmp_path))
    assert not (tmp_path / "releases" / "tiny").exists()
    findings = duckdb.connect().execute(
        f"SELECT message FROM read_parquet('{tmp_path}/tables/verifier_findings/**/*.parquet') "
        "WHERE \"check\" = 'event_precondition'").fetchall()
    assert len(findings) == config.personas and all("(restructure) happens" in m for (m,) in findings)
    assert any("happens at Nowhere Ltd, but on" in m for (m,) in findings)  # the other persona has no employer


def test_corrupted_evidence_fails_the_gate_and_freezes_nothing(tmp_path, monkeypatch):
    real = stages.review.review_questions  # after the QA verifier (which would withdraw the item)

    def corrupt(*args, **kwargs):
        qset, reviews = real(*args, **kwargs)
        if qset.evidence:
            qset.evidence[0] = qset.evidence[0].model_copy(update={"evidence_id": "p9999-s9999-t99"})
        return qset, reviews

    monkeypatch.setattr(stages.review, "review_questions", corrupt)
    with pytest.raises(GateFailed, match="evidence resolves"):
        build_corpus(config=load_preset("tiny"), home=str(tmp_path))
    assert not (tmp_path / "releases" / "tiny").exists()
    con = duckdb.connect(str(tmp_path / "catalog.duckdb"), read_only=True)
    assert con.execute("select status from runs").fetchone() == ("failed",)
    failed = con.execute("select expectation, sample from gate_results where not success").fetchall()
    assert any("evidence resolves" in e and "p9999-s9999-t99" in s for e, s in failed)


def test_a_question_in_the_third_person_fails_the_signoff_and_the_build(tmp_path, monkeypatch):
    """Issue 55's mutation test through the flow: a landed question in which the user speaks of themselves by name
    is an error of the item sign-off (verify stage), and the gate stops the release."""
    real = stages.review.review_questions

    def third_person(persona, *args, **kwargs):
        qset, reviews = real(persona, *args, **kwargs)
        first = persona.name.split()[0]
        qset.questions[0] = qset.questions[0].model_copy(update={"question": f"What did {first} do first?"})
        return qset, reviews

    monkeypatch.setattr(stages.review, "review_questions", third_person)
    config = load_preset("tiny").model_copy(update={"days": 7})
    with pytest.raises(GateFailed, match="consistency.no error finding left"):
        build_corpus(config=config, home=str(tmp_path))
    assert not (tmp_path / "releases" / "tiny").exists()
    found = duckdb.connect().execute(
        f"SELECT stage, message FROM read_parquet('{tmp_path}/tables/verifier_findings/**/*.parquet') "
        "WHERE \"check\" = 'signoff.voice'").fetchall()
    assert len(found) == config.personas and all(s == "signoff" and "third person" in m for s, m in found)


def test_cli_signoff_reviews_a_frozen_release(tiny):
    home, _ = tiny
    result = CliRunner().invoke(app, ["signoff", "--release", "tiny/v0001", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "0 sign-off finding(s)" in result.output
    missing = CliRunner().invoke(app, ["signoff", "--release", "tiny/v0404", "--home", str(home)])
    assert missing.exit_code == 2 and "no release" in missing.output


def test_cli_build_prints_release_and_queries(tmp_path):
    result = CliRunner().invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "releases/tiny/v0001" in result.output and "lifeloom sql" in result.output
    assert "build summary" in result.output and "model calls" in result.output and "passed: " in result.output
    rows = CliRunner().invoke(app, ["sql", "select count(*) as n from latest.questions", "--home", str(tmp_path),
                                    "--format", "csv"])
    assert rows.exit_code == 0 and rows.output.splitlines()[0] == "n" and int(rows.output.splitlines()[1]) > 0


def test_release_has_croissant_data_docs_reviews_and_withdrawals(tiny):
    home, result = tiny
    path = home / "releases" / "tiny" / "v0001"
    manifest = json.loads((path / "manifest.json").read_text())
    assert set(manifest["withdrawals"]) == {"total", "by_reason", "question_ids"}
    assert {"integrity", "coverage", "consistency", "leakage", "distribution"} <= set(manifest["gates"]["suites"])
    assert (path / "data_docs" / "index.html").is_file()
    croissant = json.loads((path / "croissant.json").read_text())
    names = {d["name"] for d in croissant["distribution"]}
    assert "questions.parquet" in names and all(len(d["sha256"]) == 64 for d in croissant["distribution"])
    questions = next(r for r in croissant["recordSet"] if r["name"] == "questions")
    assert {"question_id", "answer", "options"} <= {f["name"] for f in questions["field"]}
    assert manifest["row_counts"]["question_reviews"] >= manifest["row_counts"]["questions"]


def test_cli_gates_releases_and_diff(tiny):
    home, _ = tiny
    gates = CliRunner().invoke(app, ["gates", "--home", str(home)])
    assert gates.exit_code == 0, gates.output
    listing = CliRunner().invoke(app, ["releases", "--home", str(home)])
    assert listing.exit_code == 0 and "tiny/v0001" in listing.output
    diff = CliRunner().invoke(app, ["diff", "tiny/v0001", str(home / "releases" / "tiny" / "v0001"), "--home",
                                    str(home)])
    assert diff.exit_code == 0 and "identical" in diff.output
    assert "unchanged, 0 reworded, 0 re-answered, 0 added, 0 removed" in diff.output


def test_error_finding_fails_the_gate_and_cli_gates_exits_1(tmp_path, monkeypatch):
    from schemas.audit import Finding

    real = stages.verify.verify_persona

    def with_error(persona, *args, **kwargs):
        found = real(persona, *args, **kwargs)
        return found + [Finding(finding_id=f"{persona.persona_id}-v9999", persona_id=persona.persona_id,
                                stage="questions", artifact_id="x", check="injected", severity="error", message="m")]

    monkeypatch.setattr(stages.verify, "verify_persona", with_error)
    with pytest.raises(GateFailed, match="no error finding left"):
        build_corpus(config=load_preset("tiny"), home=str(tmp_path))
    assert not (tmp_path / "releases" / "tiny").exists()
    assert (next((tmp_path / "gate_docs").iterdir()) / "index.html").is_file()
    gates = CliRunner().invoke(app, ["gates", "--home", str(tmp_path)])
    assert gates.exit_code == 1 and "consistency" in gates.output and "v9999" in gates.output


def test_missing_key_stops_the_flow_before_any_stage(tmp_path, monkeypatch):
    from tasks.llm.preflight import ProviderUnavailable

    monkeypatch.delenv("LIFELOOM_TEST_MISSING_KEY", raising=False)
    config = load_preset("tiny").model_copy(deep=True)
    config.provider = config.provider.model_copy(
        update={"name": "openai", "model": "gpt-test", "api_key_env": "LIFELOOM_TEST_MISSING_KEY"})
    with pytest.raises(ProviderUnavailable, match="LIFELOOM_TEST_MISSING_KEY"):
        build_corpus(config=config, home=str(tmp_path))
    assert not (tmp_path / "tables").exists() and not (tmp_path / "releases").exists()


def test_release_is_measured_gated_and_carded(tiny):
    """Issue 21 end to end: the build lands `measures`, gates them (suite validity), writes them into the
    manifest beside the bundled reference, into the dataset card, and `lifeloom metrics` recomputes them."""
    home, result = tiny
    path = home / "releases" / "tiny" / "v0001"
    manifest = json.loads((path / "manifest.json").read_text())
    values = manifest["measures"]["values"]
    assert 0 < values["language.assistant.distinct_sentences"] < 1 and values["questions.templates"] > 1
    assert manifest["measures"]["reference"]["name"] == "RHELM excerpt"
    assert manifest["measures"]["thresholds"]["language.assistant.distinct_sentences"].startswith(">= ")
    assert "validity" in manifest["gates"]["suites"]
    card = (path / "README.md").read_text()
    assert "## Validity measures" in card and "| difficulty.bm25_copy | ↓ |" in card
    con = open_catalog(Layout(home))
    landed = dict(con.execute("select measure, value from latest.measures").fetchall())
    assert landed == {k: v for k, v in values.items()}
    assert con.execute("select count(*) from latest.gate_results where suite = 'validity'").fetchone() == (5,)
    again = CliRunner().invoke(app, ["metrics", "--release", "tiny/v0001", "--home", str(home), "--format", "json",
                                     "--no-bundled-reference"])
    assert again.exit_code == 0, again.output
    assert {r["measure"]: r["value"] for r in json.loads(again.output)["tiny/v0001"]} == landed
    from prefect.artifacts import Artifact

    artifact = Artifact.get("validity-measures")  # the Prefect UI's view of the freeze
    assert artifact is not None and "tiny/v0001" in artifact.data and "RHELM excerpt" in artifact.data


def test_measures_counted_by_a_pool_of_processes_equal_the_landed_ones(tiny):
    """A large corpus is measured by worker processes, one persona each (warehouse/measurepool.py); forced on the
    tiny release, the pool's measures equal the ones the build landed in one pass."""
    from warehouse.measurepool import CorpusSource, measure_source
    from warehouse.measures import grammar_sample_of

    home, result = tiny
    folder = home / "releases" / "tiny" / "v0001"
    pooled = measure_source(CorpusSource(release=str(folder)), grammar_sample_of(folder), workers=2)
    landed = dict(open_catalog(Layout(home)).execute("select measure, value from latest.measures").fetchall())
    assert {r.measure: r.value for r in pooled} == landed


def test_a_measure_past_its_threshold_fails_the_build_naming_value_and_bound(tmp_path):
    cfg = load_preset("tiny")
    # every tiny user sentence but one or two is distinct: only a perfect score passes this bound
    gates = cfg.gates.model_copy(update={"measures": {**cfg.gates.measures, "language.user.distinct_sentences": 1.0}})
    with pytest.raises(GateFailed, match=r"language.user.distinct_sentences = 0\.\d+ < min 1(\.0)?\b"):
        build_corpus(config=cfg.model_copy(update={"gates": gates}), home=str(tmp_path))
    assert not (tmp_path / "releases" / "tiny").exists()


def test_the_release_calibration_withdraws_what_the_answer_prior_answers_across_personas(tiny):
    """Issue 25 end to end: after every branch landed, the `calibrate` task withdrew the items the template's answer
    prior answers (question_calibration), the views and the release leave them out, their reviews read withdrawn,
    and no item of the release is memory-free."""
    home, result = tiny
    path = home / "releases" / "tiny" / "v0001"
    manifest = json.loads((path / "manifest.json").read_text())
    con = open_catalog(Layout(home))
    gone = {q for (q,) in con.execute("select question_id from latest.question_calibration").fetchall()}
    assert manifest["row_counts"]["question_calibration"] == len(gone)
    landed = duckdb.sql(f"select count(*) from read_parquet('{Layout(home).table_dir('questions')}/run_id="
                        f"{result['run_id']}/**/*.parquet')").fetchall()[0][0]
    assert landed - len(gone) == manifest["row_counts"]["questions"] == result["counts"]["questions"]
    released = {q for (q,) in duckdb.sql(f"select question_id from '{path / 'questions.parquet'}'").fetchall()}
    assert not gone & released
    assert con.execute("select count(*) from latest.question_reviews where reason in ('answer_prior') "
                       "and status = 'withdrawn'").fetchone()[0] == sum(
        1 for (r,) in con.execute("select reason from latest.question_calibration").fetchall() if r == "answer_prior")
    assert con.execute("select count(*) from latest.question_difficulty where memory_free").fetchone() == (0,)
    assert (path / "question_calibration.parquet").is_file()


def test_the_release_loads_with_datasets_and_mlcroissant(tiny, tmp_path):
    """Issue 26: the dataset card's every config loads with `datasets` (a table of no rows has no config: datasets
    cannot read it), as does every config of the `hf` export, and Croissant validates with mlcroissant, no warning,
    and yields record sets' rows."""
    import itertools

    import mlcroissant as mlc
    from datasets import load_dataset

    home, _ = tiny
    path = home / "releases" / "tiny" / "v0001"
    manifest = json.loads((path / "manifest.json").read_text())
    card = (path / "README.md").read_text()
    configs = [line.split(": ", 1)[1] for line in card.split("---")[1].splitlines() if "config_name" in line]
    assert configs and all(manifest["row_counts"][c] > 0 for c in configs)
    assert set(configs) == {t for t, n in manifest["row_counts"].items() if n > 0}
    assert "license: mit" in card and "## Citation" in card and "@misc{" in card
    assert "## Limitations" in card and "`offline` narrator" in card and "not a language model" in card
    assert "## Columns" in card and "| `question_time` | timestamp" in card
    for name in configs:
        rows = load_dataset(str(path), name=name, split="train", cache_dir=str(tmp_path / "cache"))
        assert rows.num_rows == manifest["row_counts"][name], name
    exported = tmp_path / "hf"
    result = CliRunner().invoke(app, ["export", "--release", "tiny/v0001", "--format", "hf", "--out", str(exported),
                                      "--home", str(home)])
    assert result.exit_code == 0, result.output
    hf_card = (exported / "README.md").read_text()
    hf_configs = [line.split(": ", 1)[1] for line in hf_card.split("---")[1].splitlines() if "config_name" in line]
    tiers = {f"tier-{t}" for t in manifest["tiers"]}  # one config per length tier, a row per persona
    assert tiers and set(hf_configs) == set(configs) | tiers and "license: mit" in hf_card
    for name in hf_configs:
        rows = load_dataset(str(exported), name=name, split="train", cache_dir=str(tmp_path / "cache"))
        assert rows.num_rows == manifest["row_counts"]["personas" if name in tiers else name], name
    dataset = mlc.Dataset(jsonld=str(path / "croissant.json"))
    assert dataset.metadata.ctx.issues.errors == set() and dataset.metadata.ctx.issues.warnings == set()
    assert dataset.metadata.version == "1.0.0" and "lifeloom" in dataset.metadata.cite_as
    questions = list(itertools.islice(dataset.records(record_set="questions"), 2))
    assert len(questions) == 2 and questions[0]["questions/question_id"]


def test_sql_returns_every_row_in_every_format_and_states_a_limit(tiny):
    """Issue 27: csv and json stopped at 50 rows without a word; only the table said more rows existed."""
    home, _ = tiny
    total = open_catalog(Layout(home)).execute("select count(*) from latest.turns").fetchone()[0]
    assert total > 50
    query = "select turn_id, text from latest.turns order by turn_id"
    csv_out = CliRunner().invoke(app, ["sql", query, "--home", str(home), "--format", "csv"])
    import csv
    import io

    assert csv_out.exit_code == 0 and len(list(csv.reader(io.StringIO(csv_out.stdout)))) == total + 1
    as_json = CliRunner().invoke(app, ["sql", query, "--home", str(home), "--format", "json"])
    assert len(json.loads(as_json.stdout)) == total
    limited = CliRunner().invoke(app, ["sql", query, "--home", str(home), "--format", "csv", "--limit", "5"])
    assert len(list(csv.reader(io.StringIO(limited.stdout)))) == 6 and "--limit 5" in limited.stderr
    table = CliRunner().invoke(app, ["sql", query, "--home", str(home), "--limit", "5"])
    assert "5 row(s) (--limit 5; more rows not shown)" in table.stdout
    whole = CliRunner().invoke(app, ["sql", query, "--home", str(home)])
    assert f"{total} row(s)" in whole.stdout and "more rows" not in whole.stdout


def test_an_unchanged_rebuild_freezes_nothing_unless_asked(tmp_path):
    """Issue 27: every unchanged `lifeloom build` froze a new version with the same content hash. (Last in this file:
    its builds publish the newest `validity-measures` artifact, which an earlier test reads.)"""
    first = CliRunner().invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path)])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path)])
    assert again.exit_code == 0 and "unchanged, matches tiny/v0001: nothing frozen" in again.output
    assert not (tmp_path / "releases" / "tiny" / "v0002").exists()
    forced = CliRunner().invoke(app, ["build", "--preset", "tiny", "--home", str(tmp_path), "--force-new-version"])
    assert forced.exit_code == 0 and (tmp_path / "releases" / "tiny" / "v0002" / "manifest.json").is_file()


CHROMIUM = __import__("shutil").which("chromium") or __import__("shutil").which("chromium-browser")


def test_data_docs_load_nothing_from_the_network(tiny):
    """Issue 27: Data Docs loaded scripts and styles from CDNs (blank offline) and a logo with a context id."""
    from validation.docs import _LOADED

    home, _ = tiny
    site = home / "releases" / "tiny" / "v0001" / "data_docs"
    pages = list(site.rglob("*.html"))
    assert len(pages) > 5 and (site / "static" / "vendor" / "jquery.min.js").is_file()
    assert not [(p.name, a or b) for p in pages for a, b in _LOADED.findall(p.read_text())]
    assert "dataContextId" not in "".join(p.read_text() for p in pages)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's `chromium`); "
                                             "the offline rendering of Data Docs is not checked in a browser")
def test_data_docs_render_in_chromium_with_the_network_off(tiny, tmp_path):
    """The index's table of validations is drawn by its scripts (bootstrap-table on jQuery): with every request to
    the network refused, the vendored copies draw it and no script fails."""
    import subprocess

    home, _ = tiny
    index = home / "releases" / "tiny" / "v0001" / "data_docs" / "index.html"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--proxy-server=127.0.0.1:9", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
         "--dump-dom", index.as_uri()], capture_output=True, text=True, timeout=120)
    assert 'class="bootstrap-table' in done.stdout, done.stderr[-3000:]
    assert "integrity.questions" in done.stdout and "coverage.category" in done.stdout
    assert "Uncaught" not in done.stderr, [line for line in done.stderr.splitlines() if "CONSOLE" in line]


def _shard(path) -> dict:
    """A data shard's payload: `LL.put("key",{...});`."""
    text = path.read_text()
    assert text.startswith("LL.put(") and text.rstrip().endswith(");")
    return json.loads(text[text.index(",") + 1:text.rstrip().rindex(")")])


def test_the_build_writes_a_viewer_of_the_release_that_loads_nothing_from_the_network(tiny):
    """Issue 28: a static site per release, linked from the build summary, every question's evidence linked to the
    page and anchor that shows it."""
    import re

    from prefect.artifacts import Artifact

    home, result = tiny
    site = home / "views" / "tiny" / "v0001"
    assert (site / "index.html").is_file() and (site / "questions.html").is_file()
    pages = list(site.rglob("*.html"))
    assert not [p for p in pages if re.search(r"""<(?:script|link|img)[^>]+(?:src|href)=["']https?:""", p.read_text())]
    questions = _shard(site / "data" / "questions.js")["questions"]
    con = open_catalog(Layout(home))
    assert len(questions) == con.execute("select count(*) from latest.questions").fetchone()[0]
    shown = {}
    for path in site.glob("data/*/sessions-*.js"):
        for day in _shard(path)["days"]:
            for s in day["sessions"]:
                shown |= {t["id"]: f"persona/{path.parent.name}/sessions.html?m={_shard(path)['month']}" for t in
                          s["turns"]}
    for path in site.glob("data/*/documents.js"):
        shown |= {c["id"]: f"persona/{path.parent.name}/documents.html" for d in _shard(path)["docs"]
                  for c in d["chunks"]}
    links = [e["link"] for q in questions for e in q["evidence"]]
    assert links and all(link.split("#")[0] == shown[link.split("#")[1]] for link in links)
    assert any("<mark class=" in t["html"] for path in site.glob("data/*/sessions-*.js")
               for day in _shard(path)["days"] for s in day["sessions"] for t in s["turns"])
    summary = Artifact.get("build-summary")
    assert summary is not None and "Browse it:" in summary.data and "views/tiny/" in summary.data
    cli = CliRunner().invoke(app, ["view", "--release", "tiny/v0001", "--home", str(home), "--out",
                                   str(home / "views-again")])
    assert cli.exit_code == 0 and (home / "views-again" / "index.html").is_file(), cli.output


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's `chromium`); "
                                             "the viewer is not rendered in a browser")
def test_the_viewer_renders_from_disk_with_the_network_off(tiny, tmp_path):
    import subprocess

    home, _ = tiny
    site = home / "views" / "tiny" / "v0001"
    busiest = max((site / "data" / "p0000").glob("sessions-*.js"), key=lambda p: p.stat().st_size)
    month = busiest.stem.removeprefix("sessions-")

    def dom(page: str, query: str = "") -> tuple[str, str]:
        done = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={tmp_path / page}",
             "--proxy-server=127.0.0.1:9", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000",
             "--dump-dom", (site / page).as_uri() + query], capture_output=True, text=True, timeout=120)
        return done.stdout, "\n".join(line for line in done.stderr.splitlines() if "CONSOLE" in line)

    sessions, errors = dom("persona/p0000/sessions.html", f"?m={month}")
    assert sessions.count('class="turn ') > 10 and "<mark class=" in sessions and not errors, errors
    questions, errors = dom("questions.html")
    assert questions.count('class="question"') > 10 and not errors, errors
    found, errors = dom("search.html", "?persona=p0000&q=the")
    assert re.search(r'id="status"[^>]*>\d+ results', found) and "<li><a href=" in found and not errors, errors
    docs, errors = dom("persona/p0000/documents.html")
    assert 'class="doc"' in docs and not errors, errors
