"""End to end on real-provider code paths: tiny builds against the local mock server.

The mock answers each prompt with the offline narrator's output for it (see tests/llm_mock), after a
scripted run of faults (429, 500, timeout, bad body, malformed, invalid, truncated, phrase-omitting
answers) that the gateway must retry, repair or fall back from, and account for in the ledger.
"""

import json
import logging
import os
from pathlib import Path

import duckdb
import pytest

from flows.build import build_corpus
from schemas.config import ProviderConfig, load_preset
from tasks.llm.limits import reset_limiters
from tasks.llm.preflight import check_providers
from tests.llm_mock.server import MockLLM, Oracle
from warehouse.ledger import ledger_by_stage_model
from warehouse.paths import Layout

FAKE_KEY = "sk-Fq7Rz2Xw9Lk4Tn8Vb3Mh6Jd1Pc5Gs"
FAULTS = ("429", "500", "timeout", "badbody", "malformed", "invalid", "truncate", "omit")


@pytest.fixture(scope="module")
def mock():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LIFELOOM_TEST_KEY", FAKE_KEY)
        mp.setattr("tasks.llm.limits.BACKOFF_BASE_S", 0.05)
        oracle = Oracle().install(mp)
        with MockLLM(answer=oracle.answer, api_key=FAKE_KEY, retry_after="0.2", timeout_sleep_s=1.5) as server:
            yield server


def config_for(provider: str, mock: MockLLM):
    url = mock.openai_url if provider == "openai" else mock.anthropic_url
    llm = ProviderConfig(name=provider, model="mock-model", base_url=url, api_key_env="LIFELOOM_TEST_KEY",
                         timeout_s=1.0, max_concurrency=4, price_per_mtok_in=2.0, price_per_mtok_out=8.0)
    return load_preset("tiny").model_copy(update={"provider": llm})


def ledger(home, run_id):
    con = duckdb.connect(str(home / "catalog.duckdb"), read_only=True)
    rows = con.execute("select outcome, cached, requests, attempts, cost_usd, fallback, confidence "
                       "from llm_calls where run_id = ?", [run_id]).fetchall()
    return con, rows


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_build_on_provider_accounts_for_every_fault_then_reruns_from_cache(provider, mock, tmp_path, caplog):
    reset_limiters()
    config = config_for(provider, mock)
    check_providers(config)
    before = mock.calls
    mock.script(*FAULTS)
    with caplog.at_level(logging.DEBUG):
        first = build_corpus(config=config, home=str(tmp_path))
    con, rows = ledger(tmp_path, first["run_id"])
    assert first["release"]["path"]
    assert sum(r[2] for r in rows) == mock.calls - before  # every request the server saw is in the ledger
    outcomes = {r[0] for r in rows}
    assert "repaired" in outcomes and not any(r[1] for r in rows)
    assert all(r[6] == (0.2 if r[5] else 1.0) for r in rows)
    assert sum(r[4] for r in rows) > 0
    manifest = json.loads((tmp_path / "releases" / "tiny" / "v0001" / "manifest.json").read_text())
    assert manifest["provider"]["name"] == provider and manifest["ledger"]["calls"] == len(rows)
    assert manifest["ledger"]["cached_input_tokens"] == 0  # the mock reports no prompt-cache reads by default
    summary = ledger_by_stage_model(con, first["run_id"])
    assert {s["stage"] for s in summary} >= {"profile", "loop", "sources", "dialogue"}
    assert sum(s["calls"] for s in summary) == len(rows)
    checked = dict(con.execute("select checked_by, count(*) from fact_mentions where run_id = ? group by 1",
                               [first["run_id"]]).fetchall())
    assert checked and set(checked) <= {"wording", "fact_check"}  # a real model wrote every text, none the realizer

    assert_no_secret(tmp_path, caplog.text)
    if provider == "anthropic":
        return  # the rerun below is format-independent; one provider keeps the suite fast
    # the plan walks the corpus the mock's answers wrote: every call it counts was made, and the data root's call
    # cache answers each one, so a rebuild costs nothing and the plan says so
    from flows.plan import plan_build

    plan = plan_build(config, Layout(tmp_path).llm_cache, workers=1)
    assert plan.calls == len(rows) and plan.cache_hits == plan.calls and plan.cost == 0.0 and not plan.paid
    calls = mock.calls
    second = build_corpus(config=config, home=str(tmp_path))
    assert mock.calls == calls  # the cache answers everything
    _, again = ledger(tmp_path, second["run_id"])
    assert len(again) == len(rows) and all(r[1] for r in again)
    assert_no_secret(tmp_path, caplog.text)


def assert_no_secret(home, log_text):
    assert FAKE_KEY not in log_text and FAKE_KEY[-10:] not in log_text
    for root, _, files in os.walk(home):
        for name in files:
            data = open(os.path.join(root, name), "rb").read()
            assert FAKE_KEY.encode() not in data, os.path.join(root, name)
            assert FAKE_KEY[-10:].encode() not in data, os.path.join(root, name)


def test_a_build_in_batch_mode_releases_the_corpus_of_a_synchronous_one(mock, tmp_path):
    """`[provider] mode = "batch"` end to end: every call of a tiny build goes through the mock's batch API (no
    synchronous request), every ledger row names its batch and costs the batch price, and the release has the
    same content as the synchronous build's (the mock answers both as the offline narrator would)."""
    reset_limiters()
    sync = build_corpus(config=config_for("openai", mock), home=str(tmp_path / "sync"))
    batch_config = config_for("openai", mock)
    batch_config = batch_config.model_copy(update={"provider": batch_config.provider.model_copy(update={
        "mode": "batch", "batch_poll_s": 0.01, "batch_poll_max_s": 0.02, "batch_gather_s": 0.2})})
    mock.batch_script(delay_s=0.0)
    before, batches = mock.calls, len(mock.book.created)
    result = build_corpus(config=batch_config, home=str(tmp_path / "batch"))
    assert mock.calls == before and len(mock.book.created) > batches  # batches only
    con, _ = ledger(tmp_path / "batch", result["run_id"])
    rows = con.execute("select batch_id, cost_usd, input_tokens, output_tokens from llm_calls where run_id = ? "
                       "and not cached", [result["run_id"]]).fetchall()
    assert rows and all(r[0] for r in rows)
    from prefect.artifacts import Artifact

    artifact = Artifact.get("batches-dialogue")  # the Prefect UI's view of a stage's batches
    assert artifact is not None and "batches sent" in artifact.data and "at the batch price" in artifact.data
    summary = ledger_by_stage_model(con, result["run_id"])
    [(sent,)] = con.execute("select count(distinct batch_id) from llm_calls where run_id = ? and not cached",
                            [result["run_id"]]).fetchall()
    assert sent == len(mock.book.created) - batches  # every batch sent answered calls of this build
    assert sum(s["batches"] for s in summary) >= sent  # the build summary counts each stage's (a batch the two
    # personas shared may hold calls of two stages)
    personas = con.execute("select batch_id from llm_calls where run_id = ? and not cached group by batch_id "
                           "having count(distinct persona_id) > 1", [result["run_id"]]).fetchall()
    assert personas  # the personas' rounds of the same moment went out together
    assert all(abs(r[1] - (r[2] * 2.0 + r[3] * 8.0) / 1e6 / 2) < 1e-9 for r in rows)
    hashes = [json.loads((Path(r["release"]["path"]) / "manifest.json").read_text())["table_hashes"]
              for r in (sync, result)]
    for table in ("questions", "turns", "documents", "facts"):
        assert hashes[0][table] == hashes[1][table], table
    assert_no_secret(tmp_path, "")
