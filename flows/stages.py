"""Prefect tasks around the pure stage functions: one task per persona and stage.

Each task builds its own gateway (sharing the on-disk call cache), calls one stage function and
returns a `Staged`: the stage's value, the ledger rows of the model calls it made, any extra rows to
land, the value's content digest and the run that computed it. Tasks land nothing themselves: the
non-cached `land` task writes every row under the current run id, so a stage result reused from the
cache (`flows/fingerprint.py` builds its key) lands again, correctly, in the new run. No stage logic here.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import pickle
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pydantic_core
from prefect import Task, get_run_logger, task
from prefect.exceptions import MissingContextError

from flows.fingerprint import stage_fingerprint
from flows.pipeline import STAGES
from schemas.config import BuildConfig
from schemas.corpus import Corpus
from tasks import companion, verify
from tasks.dialogue import stage as dialogue
from tasks.domains import pack_for
from tasks.llm.cache import CallCache
from tasks.llm.gateway import Gateway
from tasks.metrics import grammar
from tasks.questions import review
from tasks.questions import stage as questions
from tasks.sources import stage as sources
from tasks.world import loop, profile
from warehouse.parsecache import default_cache
from warehouse.paths import Layout

HEARTBEAT_S = 10.0
"""A stage running longer than this logs its progress (model calls so far) to the Prefect log."""


_UNLOADED = object()
_LOAD = threading.Lock()  # two downstream tasks may touch one cached result at once; it unpickles once


class Staged:
    """One stage's output for one persona, as cached: value plus what must land with it.

    A plain class on purpose (not a dataclass or pydantic model): Prefect walks dataclasses and models
    passed as task arguments looking for futures, which costs seconds on a persona-year of turns.

    Pickled lazily: value, ledger and rows travel as one pickled blob beside the small fields (digests,
    origin run, call counts), and a result read back from the cache unpickles the blob only when something
    reads `value`, `ledger` or `rows`. An unchanged rebuild keys every stage by digests alone and lands
    by copying the earlier run's partitions (warehouse/landing.py), so it never unpickles a persona-year."""

    __slots__ = ("_value", "_ledger", "_rows", "_blob", "origin_run", "digest", "land_digest", "calls", "errors")

    def __init__(self, value: Any, origin_run: str, ledger: list | None = None,
                 rows: dict[str, list] | None = None) -> None:
        self._value, self._ledger, self._rows, self._blob = value, ledger or [], rows or {}, None
        self.origin_run = origin_run
        self._describe()

    def _describe(self) -> None:
        """The small fields: the value's digest (what downstream cache keys use), a digest of everything
        landing writes (value, extra rows, ledger) and the ledger's call and error counts."""
        self.digest = hashlib.sha256(pydantic_core.to_json(self._value)).hexdigest()
        extra = pydantic_core.to_json([self._rows, self._ledger])
        self.land_digest = hashlib.sha256(self.digest.encode() + b"\0" + extra).hexdigest()
        self.calls = len(self._ledger)
        self.errors = sum(1 for r in self._ledger if r.outcome in ("error", "fallback"))

    def __getstate__(self) -> dict[str, Any]:
        blob = self._blob
        if blob is None:
            blob = pickle.dumps((self._value, self._ledger, self._rows), protocol=pickle.HIGHEST_PROTOCOL)
        return {"format": 2, "blob": blob, "origin_run": self.origin_run, "digest": self.digest,
                "land_digest": self.land_digest, "calls": self.calls, "errors": self.errors}

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple):  # format 1 (results cached before lazy loading): every slot, eagerly
            slots = state[1]
            self._value, self._ledger, self._rows = slots["value"], slots["ledger"], slots["rows"]
            self._blob, self.origin_run = None, slots["origin_run"]
            self._describe()
            return
        self._value = self._ledger = self._rows = _UNLOADED
        self._blob = state["blob"]
        for name in ("origin_run", "digest", "land_digest", "calls", "errors"):
            setattr(self, name, state[name])

    def _load(self) -> None:
        with _LOAD:
            if self._value is _UNLOADED:
                self._value, self._ledger, self._rows = pickle.loads(self._blob)
                self._blob = None

    @property
    def loaded(self) -> bool:
        """False while a result read from the cache still holds its value as the pickled blob."""
        return self._value is not _UNLOADED

    @property
    def value(self) -> Any:
        if self._value is _UNLOADED:
            self._load()
        return self._value

    @property
    def ledger(self) -> list:
        if self._value is _UNLOADED:
            self._load()
        return self._ledger

    @property
    def rows(self) -> dict[str, list]:
        if self._value is _UNLOADED:
            self._load()
        return self._rows


class Ctx:
    """What every stage task needs besides its inputs: config, data root and run id."""

    def __init__(self, config: BuildConfig, layout: Layout, run_id: str) -> None:
        self.config, self.layout, self.run_id = config, layout, run_id

    def gateway(self, stage: str) -> Gateway:
        """The stage's gateway; real providers share the on-disk call cache (offline needs none)."""
        provider = self.config.provider_for(stage)
        root = None if provider.name == "offline" else self.layout.llm_cache
        return Gateway(provider, cache=CallCache(root))


def _key(stage: str):
    """A Prefect cache_key_fn for `stage` (run id deliberately left out, see flows/fingerprint.py)."""

    def key(_context, parameters: dict[str, Any]) -> str:
        ctx: Ctx = parameters["ctx"]
        inputs = [v.digest for v in parameters.values() if isinstance(v, Staged)]
        return stage_fingerprint(stage, ctx.config, parameters["persona_id"], inputs, parameters.get("seed_text"))

    return key


def _stage_task(stage: str):
    # cache_result_in_memory off: Prefect's result store would otherwise keep every stage value of every
    # persona in an in-process LRU (1000 records) until the flow ends; the task's own state still hands
    # the value to the tasks downstream, and it is freed once the persona has landed
    return task(name=stage, task_run_name=f"{stage} {{persona_id}}", retries=2, retry_delay_seconds=1,
                cache_key_fn=_key(stage), persist_result=True, result_serializer="pickle",
                cache_result_in_memory=False)


@contextmanager
def inputs_frozen():
    """Within the block, the garbage collector leaves alone every object alive when it began (`gc.freeze`): a stage's
    inputs (a persona's world, documents, a year or ten of turns) are long-lived and never garbage, yet each full
    collection the stage's own allocations set off walked all of them again, so a stage slowed as the life behind it
    grew (a ten-year life: sources 4.4 s -> 3.7 s, dialogue 32.8 s -> 30.9 s). They are handed back to the collector
    when the block ends (`gc.unfreeze`), so no cycle among them is kept past the stage. Process-wide: a stage running
    on another thread meanwhile is only collected less often, never wrongly."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def heartbeat(stage: str, persona_id: str, gateway: Gateway | None = None):
    """Log `stage persona: N model calls so far` every HEARTBEAT_S seconds while the block runs (to the Prefect run's
    log, or outside a run, as `lifeloom plan` calls the stage functions, to the `lifeloom.stages` logger)."""
    try:
        logger = get_run_logger()
    except MissingContextError:
        logger = logging.getLogger("lifeloom.stages")
    stop = threading.Event()
    started = time.monotonic()

    def beat() -> None:
        while not stop.wait(HEARTBEAT_S):
            rows = list(getattr(gateway, "_ledger", ())) if gateway is not None else []
            batches = getattr(gateway, "batches", None)
            extra = "" if batches is None else (
                f", batches sent {batches.stats['submitted']}, joined {batches.stats['joined']}, resumed "
                f"{batches.stats['resumed']}, ended {batches.stats['ended']}, cost so far "
                f"${sum(r.cost_usd for r in rows):.4f}")
            logger.info("%s %s: %.0f s, %d model calls so far%s", stage, persona_id, time.monotonic() - started,
                        len(rows), extra)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        logger.info("%s %s done in %.1f s", stage, persona_id, time.monotonic() - started)


def _run(ctx: Ctx, stage: str, persona_id: str, fn, **rows) -> Staged:
    """Run `fn` (given the stage's gateway when the pipeline declares one) under a heartbeat; its value Staged."""
    gateway_name = STAGES[stage].gateway
    gw = ctx.gateway(gateway_name) if gateway_name else None
    with heartbeat(stage, persona_id, gw), grammar.remembering(default_cache()), inputs_frozen():
        value = fn(gw) if gw is not None else fn()
    ledger = gw.drain_ledger() if gw else []
    if gw is not None and gw.batches is not None:
        batch_artifact(stage, persona_id, gw.batches.stats, ledger)
    return Staged(value=value, origin_run=ctx.run_id, ledger=ledger, rows=rows)


def batch_artifact(stage: str, persona_id: str, stats: dict[str, int], ledger: list) -> None:
    """The `batches-<stage>` Prefect artifact of a stage in batch mode: its batches (sent, resumed, ended), the
    calls they answered by outcome, and their cost (the build summary has every stage's totals)."""
    from prefect.artifacts import create_markdown_artifact
    from prefect.context import get_run_context
    from prefect.exceptions import MissingContextError

    try:
        get_run_context()
    except MissingContextError:
        return  # `lifeloom plan` runs the stage functions outside a flow
    outcomes: dict[str, int] = {}
    for row in ledger:
        outcomes[row.outcome] = outcomes.get(row.outcome, 0) + 1
    batches = sorted({row.batch_id for row in ledger if row.batch_id})
    lines = [f"# Batches of {stage} for {persona_id}", "",
             f"- batches sent {stats['submitted']}, joined another persona's {stats['joined']}, resumed after a "
             f"restart {stats['resumed']}, found at the provider after a lost reply {stats['recovered']}, ended "
             f"{stats['ended']}",
             f"- calls {len(ledger)} ({', '.join(f'{k} {v}' for k, v in sorted(outcomes.items())) or 'none'}), "
             f"from the call cache {sum(1 for r in ledger if r.cached)}",
             f"- cost ${sum(r.cost_usd for r in ledger):.4f} at the batch price",
             f"- batch ids: {', '.join(batches) or 'none'}"]
    create_markdown_artifact(key=f"batches-{stage}", markdown="\n".join(lines) + "\n",
                             description=f"Batches of {stage} ({persona_id})")


@_stage_task("profile")
def profile_task(ctx: Ctx, persona_id: str, seed_text: str) -> Staged:
    """Enrich a seed description into a six-dimension persona."""
    return _run(ctx, "profile", persona_id,
                lambda gw: profile.enrich_persona(ctx.config, persona_id, seed_text, gw))


@_stage_task("loop")
def loop_task(ctx: Ctx, persona_id: str, persona: Staged) -> Staged:
    """Run the LOOP simulator (plan, rollout, evolve, prune) over the configured days."""
    return _run(ctx, "loop", persona_id, lambda gw: loop.simulate(ctx.config, persona.value, gw))


@_stage_task("sources")
def sources_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged) -> Staged:
    """Write the persona's external documents and chunk them."""
    return _run(ctx, "sources", persona_id,
                lambda gw: sources.write_sources(ctx.config, persona.value, world.value, gw))


@_stage_task("dialogue")
def dialogue_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged) -> Staged:
    """Turn each day's outcomes into bullets, sessions and turns."""
    return _run(ctx, "dialogue", persona_id,
                lambda gw: dialogue.write_dialogue(ctx.config, persona.value, world.value, docs.value.documents, gw,
                                                   docs.value.chunks))


def merged(docs: Corpus, talk: Corpus) -> Corpus:
    return Corpus(documents=docs.documents, chunks=docs.chunks, bullets=talk.bullets, sessions=talk.sessions,
                  turns=talk.turns, mentions=talk.mentions, findings=docs.findings + talk.findings)


@_stage_task("questions")
def questions_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged,
                   talk: Staged) -> Staged:
    """Compute questions, answers and evidence from the fact store (a real provider may reword them)."""
    return _run(ctx, "questions", persona_id, lambda gw: questions.write_questions(
        ctx.config, persona.value, world.value, merged(docs.value, talk.value), gw))


@_stage_task("review")
def review_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged, talk: Staged,
                qset: Staged) -> Staged:
    """QA-review every question; the kept questions, with one question_reviews row each to land."""
    with heartbeat("review", persona_id):
        kept, reviews = review.review_questions(persona.value, world.value, merged(docs.value, talk.value),
                                                   qset.value, ctx.config)
    return Staged(value=kept, origin_run=ctx.run_id, rows={"question_reviews": reviews})


@_stage_task("verify")
def verify_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged, talk: Staged,
                qset: Staged) -> Staged:
    """Audit the persona's stages; findings are landed, errors are gated."""
    return _run(ctx, "verify", persona_id, lambda: verify.verify_persona(
        persona.value, world.value, merged(docs.value, talk.value), qset.value,
        window=ctx.config.stages.dialogue.context_window, attributes=pack_for(ctx.config).attributes(),
        step=ctx.config.stages.dialogue.context_step))


@_stage_task("companion")
def companion_task(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged, talk: Staged) -> Staged:
    """Chat probes with memory-need labels, profile claims and the portrait (tasks/companion/)."""
    return _run(ctx, "companion", persona_id, lambda gw: companion.build_companion(
        ctx.config, persona.value, world.value, merged(docs.value, talk.value), gw))


STAGE_TASKS: dict[str, Task] = {  # one task per stage flows/pipeline.py declares (tests/flows/test_pipeline.py)
    "profile": profile_task, "loop": loop_task, "sources": sources_task, "dialogue": dialogue_task,
    "questions": questions_task, "review": review_task, "verify": verify_task, "companion": companion_task,
}


def stage_tasks(cache_dir: Path) -> dict[str, Task]:
    """The stage tasks with their results persisted under `cache_dir` (the data root's Prefect cache)."""
    return {name: t.with_options(result_storage=cache_dir) for name, t in STAGE_TASKS.items()}
