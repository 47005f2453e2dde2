"""Prefect tasks around the pure stage functions: one task per persona and stage.

Each task builds its own gateway (sharing the on-disk call cache), calls one stage function, lands
the ledger rows of the model calls it made, and returns the stage's value. No stage logic here.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from flows import progress
from schemas.audit import Finding
from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import QuestionSet
from schemas.world import World
from tasks import dialogue, loop, profile, qa_review, questions, sources, verify
from tasks.llm.cache import CallCache
from tasks.llm.gateway import Gateway
from warehouse.parquet import land_rows
from warehouse.paths import Layout

STAGE_OPTIONS: dict[str, Any] = dict(retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE, persist_result=False)


class Ctx:
    """What every stage task needs besides its inputs: config, data root and run id."""

    def __init__(self, config: BuildConfig, layout: Layout, run_id: str) -> None:
        self.config, self.layout, self.run_id = config, layout, run_id

    def gateway(self, stage: str) -> Gateway:
        """The stage's gateway; real providers share the on-disk call cache (offline needs none)."""
        provider = self.config.provider_for(stage)
        root = None if provider.name == "offline" else self.layout.llm_cache
        return Gateway(provider, cache=CallCache(root))

    def done(self, stage: str, persona_id: str, gateway: Gateway | None = None) -> None:
        """Land the stage's ledger rows (one llm_calls part per persona and stage) and report progress."""
        if gateway is not None:
            land_rows(self.layout, "llm_calls", gateway.drain_ledger(), self.run_id, persona_id, part=stage)
        progress.report(stage, persona_id)


@task(name="profile", task_run_name="profile {persona_id}", **STAGE_OPTIONS)
def profile_task(ctx: Ctx, persona_id: str, seed_text: str) -> Persona:
    """Enrich a seed description into a six-dimension persona."""
    gw = ctx.gateway("profile")
    persona = profile.enrich_persona(ctx.config, persona_id, seed_text, gw)
    ctx.done("profile", persona_id, gw)
    return persona


@task(name="simulate", task_run_name="simulate {persona_id}", **STAGE_OPTIONS)
def simulate_task(ctx: Ctx, persona_id: str, persona: Persona) -> World:
    """Run the LOOP simulator (plan, rollout, evolve, prune) over the configured days."""
    gw = ctx.gateway("loop")
    world = loop.simulate(ctx.config, persona, gw)
    ctx.done("simulate", persona_id, gw)
    return world


@task(name="sources", task_run_name="sources {persona_id}", **STAGE_OPTIONS)
def sources_task(ctx: Ctx, persona_id: str, persona: Persona, world: World) -> Corpus:
    """Write the persona's external documents and chunk them."""
    gw = ctx.gateway("sources")
    docs = sources.write_emails(ctx.config, persona, world, gw)
    ctx.done("sources", persona_id, gw)
    return docs


@task(name="dialogue", task_run_name="dialogue {persona_id}", **STAGE_OPTIONS)
def dialogue_task(ctx: Ctx, persona_id: str, persona: Persona, world: World, docs: Corpus) -> Corpus:
    """Turn each day's outcomes into bullets, sessions and turns."""
    gw = ctx.gateway("dialogue")
    talk = dialogue.write_dialogue(ctx.config, persona, world, docs.documents, gw)
    ctx.done("dialogue", persona_id, gw)
    return talk


def merged(docs: Corpus, talk: Corpus) -> Corpus:
    return Corpus(documents=docs.documents, chunks=docs.chunks,
                  bullets=talk.bullets, sessions=talk.sessions, turns=talk.turns)


@task(name="questions", task_run_name="questions {persona_id}", **STAGE_OPTIONS)
def questions_task(ctx: Ctx, persona_id: str, persona: Persona, world: World, docs: Corpus,
                   talk: Corpus) -> QuestionSet:
    """Compute questions, answers and evidence from the fact store."""
    qset = questions.write_questions(ctx.config, persona, world, merged(docs, talk))
    ctx.done("questions", persona_id)
    return qset


@task(name="review", task_run_name="review {persona_id}", **STAGE_OPTIONS)
def review_task(ctx: Ctx, persona_id: str, persona: Persona, world: World, docs: Corpus, talk: Corpus,
                qset: QuestionSet) -> QuestionSet:
    """QA-review every question; land one question_reviews row each; return the kept questions."""
    kept, reviews = qa_review.review_questions(persona, world, merged(docs, talk), qset)
    land_rows(ctx.layout, "question_reviews", reviews, ctx.run_id, persona_id)
    ctx.done("review", persona_id)
    return kept


@task(name="verify", task_run_name="verify {persona_id}", **STAGE_OPTIONS)
def verify_task(ctx: Ctx, persona_id: str, persona: Persona, world: World, docs: Corpus, talk: Corpus,
                qset: QuestionSet) -> list[Finding]:
    """Audit the persona's stages; findings are landed, errors are gated."""
    findings = verify.verify_persona(persona, world, merged(docs, talk), qset)
    ctx.done("verify", persona_id)
    return findings
