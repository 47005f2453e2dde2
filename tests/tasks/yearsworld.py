"""A tiny two-year life for the multi-year tests (issue 57): one persona (the bundled 34-year-old nurse in Lisbon
with a daughter) from 2023-01-01 for `[world] years = 2`, every plan turning out well, and one job change forced in
the first year: from the 180th day the job search transition is certain while the persona still works where they
started, and impossible after (so the new job, from about July 2023, is the only change and must carry into
2024)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections.abc import Iterator
from contextlib import contextmanager

from schemas.config import BuildConfig, ProviderConfig, config_from_dict
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.world import World
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import Gateway
from tasks.sources import stage as sources
from tasks.world import loop
from tasks.world.profile import BUNDLED_SEEDS, enrich_persona

START = dt.date(2023, 1, 1)
CHANGE_FROM_DAY = 180


def config() -> BuildConfig:
    return config_from_dict({"name": "years", "seed": 11, "personas": 1, "start_date": START.isoformat(),
                             "rollout_p": 1.0, "world": {"years": 2}})


@contextmanager
def one_job_change(first_employer: str) -> Iterator[None]:
    """`loop.TRANSITIONS` with the job search certain from CHANGE_FROM_DAY while the employer is the first one,
    and never otherwise (the other transitions as they are)."""
    days = iter(range(10**6))  # the simulator asks each transition's rate once a day

    def rate(profile: dict) -> float:
        day = next(days)
        return 365.0 if day >= CHANGE_FROM_DAY and profile["identity"]["employer"] == first_employer else 0.0

    saved = loop.TRANSITIONS
    loop.TRANSITIONS = tuple(dataclasses.replace(k, yearly=rate) if k.key == "new_job" else k for k in saved)
    try:
        yield
    finally:
        loop.TRANSITIONS = saved


@functools.cache
def life() -> tuple[BuildConfig, Persona, World]:
    cfg = config()
    persona = enrich_persona(cfg, "p0000", BUNDLED_SEEDS[0], Gateway(ProviderConfig()))
    with one_job_change(persona.profile.identity.employer):
        world = loop.simulate(cfg, persona, Gateway(ProviderConfig()))
    return cfg, persona, world


@functools.cache
def corpus() -> Corpus:
    """The life's documents and dialogue (offline narrator)."""
    cfg, persona, world = life()
    gateway = Gateway(ProviderConfig())
    docs = sources.write_sources(cfg, persona, world, gateway)
    talk = dialogue.write_dialogue(cfg, persona, world, docs.documents, gateway, docs.chunks)
    return Corpus(documents=docs.documents, chunks=docs.chunks, bullets=talk.bullets, sessions=talk.sessions,
                  turns=talk.turns, mentions=talk.mentions)
