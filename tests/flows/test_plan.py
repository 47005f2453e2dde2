"""`lifeloom plan` (flows/plan.py): counted by running the stages, priced from the config or the dated table (never
guessed), the wall time bounded by the stage graph and the endpoint limits, and `lifeloom build` asking before it
spends more than the ceiling. The plan's accuracy against a real ledger is tests/e2e/test_build.py (offline, exact)
and tests/e2e/test_providers.py (the mock providers' call cache)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.plan import PersonaCount, make_plan, makespan, needed_stages, plan_build, round_seconds
from flows.plan_text import text_lines
from schemas.config import ProviderConfig, load_preset
from tasks.llm.counting import CountingProvider, PeekCache, tokenizer_name
from tasks.llm.pricing import PRICES_AS_OF, price_for, table_price
from tasks.llm.types import LLMRequest


def test_prices_come_from_the_config_or_the_dated_table_and_are_never_guessed():
    assert price_for(ProviderConfig()).cost(10**6, 10**6) == 0.0
    mini = price_for(ProviderConfig(name="openai", model="gpt-4.1-mini-2025-04-14"))
    assert mini == table_price("openai", "gpt-4.1-mini") and mini.input == 0.40 and mini.output == 1.60
    assert PRICES_AS_OF in mini.source
    assert mini.cost(1_000_000, 100_000) == pytest.approx(0.40 + 0.16)
    assert mini.cost(1_000_000, 100_000, batch=True) == pytest.approx((0.40 + 0.16) / 2)
    assert mini.cost(1_000_000, 0, cached_tokens=500_000) == pytest.approx(0.20 + 0.05)
    haiku = price_for(ProviderConfig(name="anthropic", model="claude-haiku-4-5"))
    assert haiku.cost(1_000_000, 0, written_tokens=1_000_000) == pytest.approx(1.25)  # writing the cache costs more
    assert price_for(ProviderConfig(name="openai", model="my-finetune")) is None
    assert price_for(ProviderConfig(name="openai", model="gpt-4.1-mini", base_url="http://localhost:8000/v1")) is None
    own = price_for(ProviderConfig(name="openai", model="llama", base_url="http://localhost:8000/v1",
                                   price_per_mtok_in=0.0, price_per_mtok_out=0.0))
    assert own is not None and own.cost(10**6, 10**6) == 0.0 and own.source == "the config's prices"


def test_the_counting_provider_counts_what_the_real_provider_is_sent():
    request = LLMRequest(prompt_name="profile", prompt="Describe Maya. " * 50, context={},
                         output_schema={"type": "object", "properties": {"name": {"type": "string"}}},
                         model="m", temperature=0.7, max_output_tokens=100, call_key="0" * 64)
    openai = CountingProvider(ProviderConfig(name="openai", model="gpt-4.1-mini"))
    anthropic = CountingProvider(ProviderConfig(name="anthropic", model="claude-haiku-4-5"))
    assert tokenizer_name("openai", "gpt-4.1-mini") == "o200k_base"
    assert tokenizer_name("anthropic", "claude-haiku-4-5") == "cl100k_base"
    prompt_tokens = 150  # `Describe Maya. ` is three tokens
    assert prompt_tokens < openai.input_tokens(request) < prompt_tokens + 120  # system, schema, message overheads
    assert anthropic.input_tokens(request) > openai.input_tokens(request) + 300  # its forced tool's system prompt


def test_a_plan_reads_the_call_cache_and_never_writes_it(tmp_path):
    from tasks.llm.cache import CallCache

    CallCache(tmp_path).put("k1", {"output": {}, "outcome": "ok", "attempts": 1})
    peek = PeekCache(tmp_path)
    assert peek.get("k1") is not None and peek.get("k2") is None
    peek.put("k2", {"output": {}, "outcome": "ok", "attempts": 1})
    assert peek.get("k2") is not None and CallCache(tmp_path).get("k2") is None  # remembered in memory only


def test_wall_time_follows_the_rounds_the_graph_and_the_limits():
    llm = ProviderConfig(name="openai", model="gpt-4.1-mini", latency_s=1.0, output_tokens_per_s=100.0,
                         max_concurrency=2, requests_per_minute=60)
    assert round_seconds(llm, [100]) == 2.0
    assert round_seconds(llm, [100, 100, 100]) == 4.0  # two at once: two waves
    assert round_seconds(ProviderConfig(), [100, 100]) == 0.0  # the offline narrator waits on no network
    assert makespan([5, 4, 3, 3], 2) == 8 and makespan([5, 4], 4) == 5
    cfg = load_preset("tiny").model_copy(update={"provider": llm})
    row = {"provider": "openai", "model": "gpt-4.1-mini", "cache_hits": 0}
    counted = [PersonaCount(f"p{n}", [row | {"stage": "loop", "calls": 3, "input_tokens": 3000, "output_tokens": 300},
                                      row | {"stage": "dialogue", "calls": 2, "input_tokens": 2000,
                                             "output_tokens": 200}],
                            {"loop": [[100], [100, 100]], "dialogue": [[100], [100]]}) for n in range(2)]
    plan = make_plan(cfg, counted)
    # one persona: loop 2 + 2, then dialogue 2 + 2 = 8 s; two personas side by side (max_active_personas 4)
    assert plan.bounds["critical path"] == 8.0
    assert plan.bounds["openai gpt-4.1-mini: requests per minute"] == 10 * 60 / 60
    assert plan.min_wall_seconds == 10.0 and plan.calls == 10 and plan.input_tokens == 10_000
    assert plan.cost == pytest.approx((10_000 * 0.40 + 1_000 * 1.60) / 1e6)
    assert plan.batch_cost == pytest.approx(plan.cost / 2)


def test_a_plan_with_an_unknown_price_says_so():
    cfg = load_preset("tiny").model_copy(update={"provider": ProviderConfig(name="openai", model="my-finetune")})
    row = {"stage": "loop", "provider": "openai", "model": "my-finetune", "calls": 1, "cache_hits": 0,
           "input_tokens": 10, "output_tokens": 1}
    plan = make_plan(cfg, [PersonaCount("p0", [row], {"loop": [[1]]})])
    assert plan.cost is None and plan.unknown_price == ["openai my-finetune"]
    assert plan.to_json()["cost"] is None


def test_plan_runs_only_the_stages_that_call_or_feed_a_model():
    assert needed_stages() == ["profile", "loop", "sources", "dialogue", "questions", "companion"]


def test_the_plan_command_prints_json_totals_beside_the_stage_rows(tmp_path):
    result = CliRunner().invoke(app, ["plan", "--preset", "tiny", "--home", str(tmp_path), "--format", "json",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert {"calls", "input_tokens", "output_tokens", "cost", "min_wall_seconds"} <= set(found)
    assert found["calls"] == sum(r["calls"] for r in found["stages"]) > 0
    assert found["cost"] == 0.0 and not (tmp_path / "tables").exists()  # nothing landed
    bad = CliRunner().invoke(app, ["plan", "--preset", "tiny", "--format", "yaml"])
    assert bad.exit_code == 2 and "unknown --format" in bad.output


def test_a_build_above_the_cost_ceiling_is_refused_without_yes(tmp_path, monkeypatch):
    """Priced from the table (gpt-4.1-mini), a tiny build costs cents: a ceiling of 0 refuses it before anything is
    sent or landed; nothing asks without a terminal."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used-0000000000")
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "tiny"\nseed = 1\npersonas = 1\ndays = 7\nstart_date = 2024-01-01\n'
                   '[provider]\nname = "openai"\nmodel = "gpt-4.1-mini"\n[limits]\nmax_cost_usd = 0\n')
    monkeypatch.setattr("tasks.llm.preflight.check_providers", lambda config: None)
    home = tmp_path / "home"
    result = CliRunner().invoke(app, ["build", "--config", str(cfg), "--home", str(home)])
    assert result.exit_code == 2, result.output
    assert "the build was not started" in result.output and "above [limits] max_cost_usd = 0" in result.output
    assert "gpt-4.1-mini" in result.output and not home.exists()


def test_plan_build_counts_a_real_provider_as_an_offline_build_walks():
    """On a real provider the plan walks the corpus an offline build writes (the offline narrator answers as it
    would), so its calls are the offline build's, priced and timed for the provider. A session's calls share a
    growing prefix, which Anthropic's marks let its cache serve (and a prompt without marks never)."""
    tiny = load_preset("tiny").model_copy(update={"personas": 1, "days": 7})
    offline = plan_build(tiny, workers=1)
    live = plan_build(tiny.model_copy(update={"provider": ProviderConfig(name="openai", model="gpt-4.1-mini")}),
                      workers=1)
    by_stage = {r.stage: r.calls for r in offline.rows}
    assert all(by_stage[r.stage] == r.calls for r in live.rows if r.stage in by_stage)
    assert live.cost > 0 and live.min_wall_seconds > 0 and live.paid and not offline.paid
    sonnet = plan_build(tiny.model_copy(update={"provider": ProviderConfig(name="anthropic",
                                                                           model="claude-sonnet-4-5")}), workers=1)
    shares = {p["prompt"]: p["share"] for p in sonnet.prompts}
    assert shares["assistant_turn"] > 0.2 and shares["user_turn_followup"] > 0.2, shares
    assert shares.get("rephrase_question", 0.0) == 0.0  # no marks: Anthropic caches nothing
    dialogue = next(r for r in sonnet.rows if r.stage == "dialogue")
    assert 0 < dialogue.cache_write_tokens < dialogue.cached_input_tokens  # each call writes what it adds
    assert dialogue.batch_cache_cost < dialogue.batch_cost and dialogue.cache_cost < dialogue.cost
    assert sonnet.cache_expected_cost < sonnet.expected_cost == sonnet.cost  # synchronous: the cache's best case
    assert "if the prompt cache serves every repeated prefix" in "\n".join(text_lines(sonnet)) and not sonnet.hints
    haiku = plan_build(tiny.model_copy(update={"provider": ProviderConfig(name="anthropic",
                                                                          model="claude-haiku-4-5")}), workers=1)
    assert haiku.repeated_prefix_share == 0 and any("context_step = 0" in h for h in haiku.hints)  # caches 4,096+


def test_the_prefix_tracker_finds_what_a_prompt_cache_could_serve():
    """Three calls of one session: each repeats the one before and adds a line. OpenAI serves a repeated prefix of
    1,024 tokens or more in 128-token steps; Anthropic also bills writing the prefix a later call reads."""
    from tasks.llm.counting import PrefixTracker, cacheable, count

    assert cacheable("openai", "gpt-4.1-mini", 1000) == 0 and cacheable("openai", "gpt-4.1-mini", 1300) == 1280
    assert cacheable("anthropic", "claude-sonnet-4-5", 1300) == 1300
    assert cacheable("anthropic", "claude-haiku-4-5-20251001", 3000) == 0  # Haiku 4.5 caches 4,096 and more
    history = [f"user: {i} " + "my sister moved to Porto and we talk every week " * 120 + "\n" for i in range(3)]
    blocks = [history[:n] + [f"latest message {n}"] for n in (1, 2, 3)]
    prompts = ["".join(b) for b in blocks]
    for provider, model in (("openai", "gpt-4.1-mini"), ("anthropic", "claude-sonnet-4-5")):
        tracker = PrefixTracker(provider, model, "cl100k_base")
        reads = [tracker.observe("assistant_turn", "schema and system", 50, p, 50 + count(p, "cl100k_base") + 4,
                                 b, len(b) - 1) for p, b in zip(prompts, blocks, strict=True)]
        assert reads[0] == 0 and 0 < reads[1] < reads[2]  # the session's prefix grows with it
        assert reads[1] >= 50 + count(prompts[0].rsplit("\n", 1)[0], "cl100k_base") - 128
        [(inp, read, written)] = tracker.by_prompt().values()
        assert read == sum(reads) and inp > read
        assert (written > 0) == (provider == "anthropic")
    unmarked = PrefixTracker("anthropic", "claude-sonnet-4-5", "cl100k_base")  # Anthropic caches only at a mark
    assert [unmarked.observe("a", "head", 5, p, 5000, b, 0) for p, b in zip(prompts, blocks, strict=True)] == [0] * 3
    other = PrefixTracker("openai", "gpt-4.1-mini", "cl100k_base")
    assert other.observe("a", "head", 5, prompts[2], 2000) == 0
    assert other.observe("a", "another head", 5, prompts[2], 2000) == 0  # a different schema or system: no prefix


def test_a_batch_mode_plan_bills_the_batch_price():
    llm = ProviderConfig(name="openai", model="gpt-4.1-mini", mode="batch")
    cfg = load_preset("tiny").model_copy(update={"provider": llm})
    row = {"stage": "loop", "provider": "openai", "model": "gpt-4.1-mini", "calls": 1, "cache_hits": 0,
           "input_tokens": 10**6, "output_tokens": 0}
    plan = make_plan(cfg, [PersonaCount("p0", [row], {"loop": [[1]]})])
    assert plan.cost == pytest.approx(0.40) and plan.expected_cost == pytest.approx(0.20)
    from flows.plan import over_ceiling

    assert over_ceiling(plan, 0.25) is None and "costs $0.20" in over_ceiling(plan, 0.1)
    assert any(line.startswith("expected bill: $0.20 (batch mode") for line in text_lines(plan))
    rounds = {"loop": [[1], [2], [3]], "sources": [[1]], "dialogue": [[1, 2]] * 5}
    counted = [PersonaCount("p0", [row], rounds), PersonaCount("p1", [row], {"loop": [[1]]})]
    assert make_plan(cfg, counted).batch_rounds == 3 + 1 + 5  # loop, then sources, then dialogue, one after another
    sync = load_preset("tiny").model_copy(update={"provider": llm.model_copy(update={"mode": "sync"})})
    assert make_plan(sync, counted).batch_rounds == 0


def test_a_batch_mode_config_is_counted_as_a_synchronous_one_with_its_rounds():
    tiny = load_preset("tiny").model_copy(update={"personas": 1, "days": 7})
    llm = ProviderConfig(name="openai", model="gpt-4.1-mini")
    sync = plan_build(tiny.model_copy(update={"provider": llm}), workers=1)
    batch = plan_build(tiny.model_copy(update={"provider": llm.model_copy(update={"mode": "batch"})}), workers=1)
    assert batch.calls == sync.calls and batch.expected_cost == pytest.approx(sync.cost / 2, abs=1e-3)
    assert batch.batch_rounds > 0 and sync.batch_rounds == 0
