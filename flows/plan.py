"""`lifeloom plan`: what a build will call, cost and wait for, before any call is made.

The plan is counted, not guessed: every persona's stages run as the build runs them (the stage tasks' own
functions, `flows/stages.py`, in the order flows/pipeline.py declares), through the counting gateway of
tasks/llm/counting.py: the offline narrator answers, tokens are counted as the configured provider bills them,
the data root's call cache is read (a request found there is a hit and costs nothing) and never written. Stages
that call no model and feed none that does (review, verify) are not run. Nothing lands and nothing is sent.

What a plan holds, per stage and provider/model (the stage's own `[stages.providers.<stage>]` provider when it has
one): calls, hits of the call cache, input and output tokens, the cost at the synchronous and the batch price
(tasks/llm/pricing.py: the config's prices, else the dated table; `unknown price` when neither knows the model,
never a guess), and the minimum wall time at the configured limits:

- a persona's stages run in dependency order (a stage starts when its inputs are done), and a stage's rounds of
  calls one after another (tasks/llm/counting.py: a `generate_many` is one round, run `max_concurrency` at a time,
  or as many as the limiter's cap settles at: Little's law on the rate limit);
  a call takes `latency_s + output_tokens / output_tokens_per_s` of its provider config; a cache hit takes none;
- `runner.max_active_personas` personas run at once (longest first onto the freest slot);
- each endpoint (provider, base_url, model) can start no more than `requests_per_minute` calls a minute, take
  `input_tokens_per_minute` and `output_tokens_per_minute`, nor run more than `max_concurrency` calls at once
  (the build's limiter, tasks/llm/limits.py, shares one budget per endpoint across stages and personas).

The minimum wall time is the largest of those bounds: the model-call time of a build that never waits on
anything else (the offline work of the stages, a few minutes for rhelm, comes on top).

On the offline path the plan equals the build's ledger (`llm_calls`) exactly: same calls, same tokens. For a real
provider the input tokens are exact up to the tokenizer's stand-in (Anthropic), and the output tokens assume a
model writes about as much as the offline narrator does for the same schema, at the first attempt.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schemas.config import BuildConfig, ProviderConfig
from tasks.llm.limits import planned_concurrency
from tasks.llm.pricing import PRICES_AS_OF, Price, describe, price_for


@dataclass
class PersonaCount:
    """What one persona's stages called: its ledger summed by stage, provider and model (`calls`, `cache_hits`, and
    the input and output tokens of the calls that are no hit), and each stage's rounds."""

    persona_id: str
    rows: list[dict[str, Any]]
    rounds: dict[str, list[list[int]]]
    prefixes: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """Stage -> prompt -> [input tokens, tokens a prompt cache could serve, tokens written to it]
    (tasks/llm/counting.py PrefixTracker; real providers only)."""


@dataclass
class StageRow:
    """One row of a plan: a stage on one provider/model."""

    stage: str
    provider: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Input tokens a prompt cache could serve: a prefix repeated from an earlier request (PrefixTracker)."""
    cache_write_tokens: int = 0
    """Input tokens written to the cache (Anthropic bills them at 1.25 times the input price)."""
    cost: float | None = 0.0
    batch_cost: float | None = 0.0
    batch_cache_cost: float | None = 0.0
    """At the batch price, the repeated prefixes read from the prompt cache."""
    cache_cost: float | None = 0.0
    """At the synchronous price, the repeated prefixes read from the prompt cache (both providers cache synchronous
    calls: OpenAI by itself, Anthropic at the prompts' marks)."""
    price: str = ""
    mode: str = "sync"
    """The provider's mode: `batch` calls are billed at the batch price (tasks/llm/batch.py)."""
    min_wall_seconds: float = 0.0
    """The stage's own share: the longest persona's rounds on this stage, at the configured concurrency."""


@dataclass
class Plan:
    """A build's plan: rows per stage and provider/model, totals, and what the figures rest on."""

    name: str
    personas: int
    rows: list[StageRow]
    min_wall_seconds: float
    bounds: dict[str, float]
    """Each bound on the wall time (`critical path`, `<endpoint> requests`, ... tokens, ... concurrency)."""
    unknown_price: list[str] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    """Per stage and prompt: input tokens, the repeated prefix a prompt cache could serve, and its share."""
    prices_as_of: str = PRICES_AS_OF
    assumptions: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    """What the config could change to cost less (`hint:` lines)."""
    batch_rounds: int = 0
    """Batch mode: the rounds on the longest persona's path, each waiting for one batch (flows/plan.py
    `batch_rounds`); the wall time is at least this many batch turnarounds."""

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.rows)

    @property
    def cache_hits(self) -> int:
        return sum(r.cache_hits for r in self.rows)

    @property
    def input_tokens(self) -> int:
        return sum(r.input_tokens for r in self.rows)

    @property
    def output_tokens(self) -> int:
        return sum(r.output_tokens for r in self.rows)

    @property
    def cost(self) -> float | None:
        """USD at the synchronous price; None when a paid call's price is unknown."""
        return None if self.unknown_price else round(sum(r.cost or 0.0 for r in self.rows), 4)

    @property
    def batch_cost(self) -> float | None:
        return None if self.unknown_price else round(sum(r.batch_cost or 0.0 for r in self.rows), 4)

    @property
    def expected_cost(self) -> float | None:
        """What the build will be billed: each row at its provider's mode (batch rows at the batch price)."""
        if self.unknown_price:
            return None
        return round(sum((r.batch_cost if r.mode == "batch" and r.batch_cost is not None else r.cost) or 0.0
                         for r in self.rows), 4)

    @property
    def batch_cache_cost(self) -> float | None:
        return None if self.unknown_price else round(sum(r.batch_cache_cost or 0.0 for r in self.rows), 4)

    @property
    def cache_expected_cost(self) -> float | None:
        """`expected_cost` with the prompt cache serving every repeated prefix: the best case, where
        `expected_cost` (which the cost ceiling checks) is the most the build can cost."""
        if self.unknown_price:
            return None
        return round(sum((r.batch_cache_cost if r.mode == "batch" and r.batch_cache_cost is not None
                          else r.cache_cost) or 0.0 for r in self.rows), 4)

    @property
    def repeated_prefix_share(self) -> float:
        """The share of the paid input tokens that repeats an earlier request's prefix (what caching can serve)."""
        paid = sum(r.input_tokens for r in self.rows if r.provider != "offline")
        return round(sum(r.cached_input_tokens for r in self.rows) / paid, 4) if paid else 0.0

    @property
    def paid(self) -> bool:
        """Whether any call goes to a provider other than the offline narrator."""
        return any(r.provider != "offline" and r.calls > r.cache_hits for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "personas": self.personas, "calls": self.calls, "cache_hits": self.cache_hits,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "cost": self.cost,
                "expected_cost": self.expected_cost, "cache_expected_cost": self.cache_expected_cost,
                "batch_cost": self.batch_cost, "batch_cache_cost": self.batch_cache_cost,
                "repeated_prefix_share": self.repeated_prefix_share, "prompts": self.prompts,
                "min_wall_seconds": round(self.min_wall_seconds, 1), "batch_rounds": self.batch_rounds,
                "currency": "USD", "prices_as_of": self.prices_as_of, "unknown_price": self.unknown_price,
                "hints": self.hints,
                "bounds": {k: round(v, 1) for k, v in self.bounds.items()}, "assumptions": self.assumptions,
                "stages": [asdict(r) for r in self.rows]}


# -- counting -------------------------------------------------------------------------------------------------
def paid_stages(config: BuildConfig) -> list[str]:
    """The stages that call a provider other than the offline narrator (a plan is worth counting for them)."""
    from flows.pipeline import PIPELINE

    return [s.name for s in PIPELINE if s.gateway and config.provider_for(s.gateway).name != "offline"]


def needed_stages() -> list[str]:
    """The stages a plan runs: those that call a model, and those they need (in pipeline order)."""
    from flows.pipeline import PIPELINE, STAGES

    needed: set[str] = set()
    for stage in reversed(PIPELINE):
        if stage.gateway or stage.name in needed:
            needed.add(stage.name)
            needed |= set(STAGES[stage.name].inputs)
    return [s.name for s in PIPELINE if s.name in needed]


def count_persona(config: BuildConfig, persona_id: str, seed_text: str, cache_root: Path | None) -> PersonaCount:
    """Run one persona's stages through counting gateways (module doc); its ledger rows and rounds."""
    from flows.pipeline import STAGES
    from flows.stages import STAGE_TASKS, Ctx
    from tasks.llm.cache import CallCache
    from tasks.llm.counting import PeekCache, PlanGateway

    shared = PeekCache(cache_root)
    gateways: dict[str, PlanGateway] = {}

    class PlanCtx(Ctx):
        def gateway(self, stage: str) -> PlanGateway:
            provider = self.config.provider_for(stage)
            # the build's offline gateways keep an in-memory cache each; real ones share the data root's
            gw = PlanGateway(provider, cache=CallCache(None) if provider.name == "offline" else shared)
            gateways[stage] = gw
            return gw

    ctx = PlanCtx(config, None, "plan")  # type: ignore[arg-type]  (a plan lands nothing: no layout)
    done: dict[str, Any] = {}
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    rounds: dict[str, list[list[int]]] = {}
    prefixes: dict[str, dict[str, list[int]]] = {}
    for name in needed_stages():
        stage = STAGES[name]
        args = [done[i] for i in stage.inputs] if stage.inputs else [seed_text]
        done[name] = STAGE_TASKS[name].fn(ctx, persona_id, *args)
        for r in done[name].ledger:
            row = rows.setdefault((r.stage, r.provider, r.model), {
                "stage": r.stage, "provider": r.provider, "model": r.model, "calls": 0, "cache_hits": 0,
                "input_tokens": 0, "output_tokens": 0})
            row["calls"] += 1
            row["cache_hits"] += int(r.cached)
            if not r.cached:
                row["input_tokens"] += r.input_tokens
                row["output_tokens"] += r.output_tokens
        gw = gateways.pop(stage.gateway, None) if stage.gateway else None
        if gw is not None:
            rounds[name] = [[r.output_tokens for r in rnd if not r.cached] for rnd in gw.rounds]
            if gw.live:
                prefixes[name] = gw.provider.prefixes.by_prompt()
    return PersonaCount(persona_id, list(rows.values()), rounds, prefixes)


def _count_one(args: tuple) -> PersonaCount:
    return count_persona(*args)


def count_build(config: BuildConfig, cache_root: Path | None, workers: int | None = None,
                say: Callable[[str], None] = lambda _: None) -> list[PersonaCount]:
    """`count_persona` for every persona of the config, on `workers` processes (default: the machine's cores)."""
    from tasks.world.profile import persona_ids, seed_texts

    jobs = [(config, pid, seed, cache_root) for pid, seed in zip(persona_ids(config), seed_texts(config),
                                                                   strict=True)]
    workers = max(1, min(len(jobs), workers or os.cpu_count() or 1))
    if workers == 1:
        counted = []
        for job in jobs:
            counted.append(_count_one(job))
            say(f"plan: counted {len(counted)}/{len(jobs)} personas")
        return counted
    counted = []
    # spawned, not forked: the caller may hold threads (a Prefect flow's API client, the CLI's status line)
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for found in pool.map(_count_one, jobs):
            counted.append(found)
            say(f"plan: counted {len(counted)}/{len(jobs)} personas")
    return counted


# -- the plan -------------------------------------------------------------------------------------------------
def call_seconds(provider: ProviderConfig, output_tokens: int) -> float:
    """How long one call of `provider` takes: time to the first token and the output at the configured speed (the
    offline narrator waits on no network: none)."""
    if provider.name == "offline":
        return 0.0
    return provider.latency_s + output_tokens / provider.output_tokens_per_s


def round_seconds(provider: ProviderConfig, outputs: list[int]) -> float:
    """A round's calls, `max_concurrency` at once, each wave as long as its slowest call."""
    ordered = sorted(outputs, reverse=True)
    size = concurrency(provider)
    return sum(call_seconds(provider, ordered[i]) for i in range(0, len(ordered), size))


def concurrency(provider: ProviderConfig) -> int:
    """Calls of `provider` in flight at once: its `max_concurrency`, or where its limiter's cap settles (Little's law
    on its rate limit, at a call of `latency_s` and about 100 output tokens; tasks/llm/limits.py)."""
    return max(1, planned_concurrency(provider, call_seconds(provider, 100)))


def persona_seconds(config: BuildConfig, rounds: dict[str, list[list[int]]]) -> tuple[float, dict[str, float]]:
    """The persona's critical path through the stage graph, and each stage's own time."""
    own = {stage: sum(round_seconds(config.provider_for(stage), r) for r in rs) for stage, rs in rounds.items()}
    return longest_path(own), own


def longest_path(own: dict[str, float]) -> float:
    """The longest path through the stage graph (flows/pipeline.py: a stage starts when its inputs are done), each
    stage weighing `own` (0 for a stage not given)."""
    from flows.pipeline import PIPELINE

    finish: dict[str, float] = {}
    for stage in PIPELINE:
        finish[stage.name] = max((finish.get(i, 0.0) for i in stage.inputs), default=0.0) + own.get(stage.name, 0.0)
    return max(finish.values(), default=0.0)


def batch_rounds(config: BuildConfig, rounds: dict[str, list[list[int]]]) -> int:
    """The rounds on the persona's longest path through the stage graph that go out as batches (batch mode): each
    waits for one batch, so a batch build takes at least this many batch turnarounds."""
    own = {stage: float(sum(1 for r in rs if r)) for stage, rs in rounds.items()
           if config.provider_for(stage).mode == "batch" and config.provider_for(stage).name != "offline"}
    return int(longest_path(own))


def makespan(paths: list[float], slots: int) -> float:
    """Longest first onto the freest of `slots` (the runner's persona branches in flight)."""
    loads = [0.0] * max(1, slots)
    for p in sorted(paths, reverse=True):
        i = loads.index(min(loads))
        loads[i] += p
    return max(loads, default=0.0)


def endpoint(provider: ProviderConfig) -> tuple[str, str, str]:
    return provider.name, provider.base_url or "default", provider.model


def endpoint_label(provider: ProviderConfig) -> str:
    where = f" at {provider.base_url}" if provider.base_url else ""
    return f"{provider.name} {provider.model}{where}"


def make_plan(config: BuildConfig, counted: list[PersonaCount]) -> Plan:
    """The plan of `config` from its counted personas (module doc)."""
    providers = {stage: config.provider_for(stage) for stage in {r["stage"] for c in counted for r in c.rows}}
    table: dict[tuple[str, str, str], StageRow] = {}
    for c in counted:
        for r in c.rows:
            row = table.setdefault((r["stage"], r["provider"], r["model"]),
                                   StageRow(r["stage"], r["provider"], r["model"]))
            row.calls += r["calls"]
            row.cache_hits += r["cache_hits"]
            row.input_tokens += r["input_tokens"]
            row.output_tokens += r["output_tokens"]
    prompts: dict[tuple[str, str], list[int]] = {}
    for c in counted:
        for stage, by_prompt in c.prefixes.items():
            for prompt, (inp, read, written) in by_prompt.items():
                total = prompts.setdefault((stage, prompt), [0, 0, 0])
                total[0] += inp
                total[1] += read
                total[2] += written
    for (stage, _, _), row in table.items():
        row.cached_input_tokens = sum(v[1] for (s, _), v in prompts.items() if s == stage)
        row.cache_write_tokens = sum(v[2] for (s, _), v in prompts.items() if s == stage)
    unknown = []
    for (stage, _, _), row in table.items():
        price: Price | None = price_for(providers[stage])
        row.price = describe(price)
        row.mode = providers[stage].mode
        if price is None:
            row.cost = row.batch_cost = row.batch_cache_cost = row.cache_cost = None
            if row.calls > row.cache_hits:
                unknown.append(f"{row.provider} {row.model}")
            continue
        row.cost = round(price.cost(row.input_tokens, row.output_tokens), 4)
        row.cache_cost = round(price.cost(row.input_tokens, row.output_tokens, row.cached_input_tokens,
                                          row.cache_write_tokens), 4)
        batch = price.batch is not None
        row.batch_cost = None if not batch else round(price.cost(row.input_tokens, row.output_tokens, batch=True), 4)
        row.batch_cache_cost = None if not batch else round(price.cost(
            row.input_tokens, row.output_tokens, row.cached_input_tokens, row.cache_write_tokens, batch=True), 4)
    paths, per_stage = [], defaultdict(float)
    for c in counted:
        path, own = persona_seconds(config, c.rounds)
        paths.append(path)
        for stage, seconds in own.items():
            per_stage[stage] = max(per_stage[stage], seconds)
    for (stage, _, _), row in table.items():
        row.min_wall_seconds = round(per_stage.get(stage, 0.0), 1)
    bounds = {"critical path": makespan(paths, config.runner.max_active_personas)}
    waits = max((batch_rounds(config, c.rounds) for c in counted), default=0)
    for stages in _endpoints(providers).values():
        provider = providers[stages[0]]
        if provider.name == "offline":
            continue
        rows = [r for (s, _, _), r in table.items() if s in stages]
        calls = sum(r.calls - r.cache_hits for r in rows)
        label = endpoint_label(provider)
        if provider.requests_per_minute:
            bounds[f"{label}: requests per minute"] = 60.0 * calls / provider.requests_per_minute
        if provider.input_tokens_per_minute:
            bounds[f"{label}: input tokens per minute"] = \
                60.0 * sum(r.input_tokens for r in rows) / provider.input_tokens_per_minute
        if provider.output_tokens_per_minute:
            bounds[f"{label}: output tokens per minute"] = \
                60.0 * sum(r.output_tokens for r in rows) / provider.output_tokens_per_minute
        busy = calls * provider.latency_s + sum(r.output_tokens for r in rows) / provider.output_tokens_per_s
        bounds[f"{label}: concurrency"] = busy / concurrency(provider)
    paid = any(p.name != "offline" for p in providers.values())
    assumptions = [] if not paid else [
        "each call answered at the first attempt (no repairs)",
        "batch+cache: the prompt cache serves every prefix its provider's rule allows (OpenAI: a repeated prefix "
        "of whole lines, 1,024 tokens or more; Anthropic: a prefix an earlier cache mark wrote), the best case: a "
        "cache lives minutes (Anthropic 5, OpenAI 5 to 60), and a batch round can wait longer than that",
        "a model writes about as many output tokens as the offline narrator for the same schema",
        "call time: latency_s + output_tokens / output_tokens_per_s of each provider config",
        "model-call time only: the stages' own offline work comes on top",
    ]
    order = {s: i for i, s in enumerate(needed_stages())}
    rows = sorted(table.values(), key=lambda r: (order.get(r.stage, 99), r.provider, r.model))
    shares = [{"stage": stage, "prompt": prompt, "input_tokens": inp, "repeated_prefix_tokens": read,
               "share": round(read / inp, 4) if inp else 0.0}
              for (stage, prompt), (inp, read, _) in sorted(prompts.items(), key=lambda kv: (order.get(kv[0][0], 99),
                                                                                             -kv[1][0]))]
    hints = [f"no dialogue prompt of {r.provider} {r.model} reaches its prompt cache's minimum, so the longer view "
             f"context_step gives (a start that moves in steps of {config.stages.dialogue.context_step} turns) is "
             "paid in full: [stages.dialogue] context_step = 0 sends less"
             for r in rows if r.stage == "dialogue" and r.provider != "offline" and r.calls > r.cache_hits
             and not r.cached_input_tokens and config.stages.dialogue.context_step > 0]
    return Plan(config.name, len(counted), rows, max(bounds.values(), default=0.0), bounds, sorted(set(unknown)),
                shares, assumptions=assumptions, hints=hints, batch_rounds=waits)


def _endpoints(providers: dict[str, ProviderConfig]) -> dict[tuple[str, str, str], list[str]]:
    found: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for stage, provider in sorted(providers.items()):
        found[endpoint(provider)].append(stage)
    return found


def plan_build(config: BuildConfig, cache_root: Path | None = None, workers: int | None = None,
               say: Callable[[str], None] = lambda _: None) -> Plan:
    """Count every persona's calls (`count_build`) and make the plan."""
    return make_plan(config, count_build(config, cache_root, workers, say))


def over_ceiling(plan: Plan, ceiling: float) -> str | None:
    """Why a build of this plan must not start unasked: its price is unknown or it costs more than `ceiling`; None
    when it may."""
    from flows.plan_text import money

    if not plan.paid:
        return None
    if plan.expected_cost is None:
        return f"its price is unknown ({', '.join(plan.unknown_price)})"
    if plan.expected_cost > ceiling:
        return f"it costs {money(plan.expected_cost)}, above [limits] max_cost_usd = {ceiling:g}"
    return None
