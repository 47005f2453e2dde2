"""The length-tier task: once the calibration has withdrawn what it withdraws, build every persona's tiers
(tasks/tiers/select.py) from the run's tables and land them (warehouse/tiers.py)."""

from __future__ import annotations

import time

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from schemas.config import BuildConfig
from schemas.tiers import TOKENIZER, TierError, tier_budget
from tasks.tiers.haystack import task_chat_items
from tasks.tiers.select import TierBuild, build_tiers
from warehouse.catalog import session
from warehouse.paths import Layout
from warehouse.tiers import land_tiers, read_lives


def check_tokenizer(config: BuildConfig) -> None:
    """TierError, before any work, when the config sets tiers and their tokenizer cannot load."""
    if not config.release.tiers:
        return
    try:
        from tasks.sources.chunking import encoding

        encoding().encode_ordinary("tokenizer check")
    except Exception as exc:  # an ImportError, a missing or damaged vocabulary file
        raise TierError(f"the tiers' tokenizer {TOKENIZER} (bpe-openai) cannot load: {type(exc).__name__}: {exc}; "
                        "install the project's dependencies (make install)") from None


def tiers_for_run(layout: Layout, config: BuildConfig, run_id: str) -> tuple[dict[str, int], TierBuild]:
    """Build and land run `run_id`'s tiers (no Prefect context needed: bench/lengths.py times this)."""
    budgets = [tier_budget(t) for t in config.release.tiers]
    lives = []
    if budgets:
        con = session(layout, run_id)
        try:
            lives = read_lives(con, run_id)
        finally:
            con.close()
    built = build_tiers(lives, budgets, config.seed, config.release.haystack_chat_share, task_chat_items)
    return land_tiers(layout, run_id, built), built


@task(name="tiers", task_run_name="tiers {run_id}", cache_policy=NO_CACHE, persist_result=False)
def build_release_tiers(layout: Layout, config: BuildConfig, run_id: str) -> dict[str, int]:
    """Land the run's `tiers`, `tier_history`, `tier_questions` and `tier_chats` rows (empty when the config sets
    no tiers); returns their row counts. A budget no question's evidence fits in raises TierError (a user error)."""
    started = time.perf_counter()
    counts, built = tiers_for_run(layout, config, run_id)
    if config.release.tiers:
        get_run_logger().info("tiers: %s for %d personas: %d history items, %d tier questions (%d re-derived) in "
                              "%.1f s", ", ".join(config.release.tiers), len({r.persona_id for r in built.tiers}),
                              counts["tier_history"], counts["tier_questions"],
                              sum(q.rederived for q in built.questions), time.perf_counter() - started)
    return counts
