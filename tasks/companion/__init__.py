"""The companion tracks (RealCompanion, issue 12): chat probes with memory-need labels, and profile
reconstruction with cited claims. Everything below is computable from the tables (turns, sessions, facts), so
the gates (validation/companion.py) recompute it.

Chat track (tasks/common/memory_need.py for the need rule; context.py, tiers.py, probes.py, replies.py)
- Probe: a user turn, verbatim (text and timestamp equal the turn's). Turns are ordered by (timestamp, id).
  With dialogue.memory_rate set some of those turns belong to callback topics the dialogue added to reach the
  rate: they are generated like every other turn, but flagged (Turn.callback_of) so they can be filtered out.
- Recent window: the `window` turns just before the probe in its session (companion.window, else
  dialogue.context_window). Everything earlier is episodes.
- Required context (tasks/common/memory_need.py, a mechanical rule, not a judgement of what a reply needs): the facts
  the turn refers to (fact_ids, paraphrase_ids) and the fact a stated value replaces when the turn's time_refs
  call back the event that set it (only that fact, not the event's others), each when an earlier user turn
  referred to it; plus, for each, its latest value by the probe's date when that value differs and the user told
  it (in the probe or earlier). Never a value the user did not tell; a same-value successor is no change.
  required_recent / required_episodes: the earlier turns referring to a required fact inside / outside the
  window (the latest 3 per fact outside). memory_need = bool(required_episodes); cold_open: the session's first
  user turn with no required fact (owes no gold reply).
- Told change: two required facts of the same subject and attribute with different values, the older ended and
  the newer begun by the probe's date (memory_need.told_changes). Only then is a value stale for the reply.
- category (context.category_of), in this order: no_memory (no required fact); recent_followup (no episode);
  state_update (the probe itself states the newer value of a told change); profile_grounded (every required
  fact is a baseline fact, event `<pid>-e0000`); episodic_callback.
- tier (tiers.tier_of): from the episodes' shape, basic (none), hard (two or more sessions, or the earliest
  more than 30 days back), else intermediate; overridden by edge when a told change's newer value is NOT
  stated by the probe (the user told the change earlier: the reply must bring the newer value from memory).
  The derivation's tier phase records both the distance tier and the replaced facts.
- strata (probes.strata), drawn with rng_for(seed, persona, "companion", None, "stratum:<name>") from pools in
  conversation order, a turn at most once: proportional (uniform over all user turns, so memory-bearing ones
  come at the natural rate), then enriched (memory-bearing turns), then abstention (no_memory turns); sizes
  from CompanionOptions, fewer when a pool runs short. Probe ids `<pid>-cpNNNN` in conversation order.
- gold reply: the `companion_reply` prompt with the probe and ONLY its required context (required turns'
  texts, required facts' statements and forms, replaced ones marked). Ship check: a reply naming a persona
  fact absent from that context is replaced by a rule-built template, which is checked again (else a
  fact-free reply); verification failures are kept and shown in the ship check for the gates to report.
- derivation {"phases": [...]}: referent, verification, tier, gold_reply, ship_check, appended as built.
- Natural memory rate: share of user turns with memory_need (memory_need.natural_rate): 0.022-0.025 per demo
  persona, 0.044 on a rhelm persona-year, almost all status-update callbacks.

Reconstruction track (reconstruction.py), as_of = config.end_date
- One claim per fact holding on as_of that at least one user turn carries in fact_ids (paraphrases are not
  evidence); evidence_turn_ids are exactly those turns, first_seen/last_seen their min/max timestamps. Slot by
  reconstruction.SLOT_WORDS (facts about other people: relationships); temporality by the attribute's kind
  (reconstruction.temporality_of); confidence 0.6 for one explicit mention, +0.15 per further one, at most 1.
- Communication claims from the persona's style, citing the first and last 5 user turns that show it.
- Portrait: one row per PORTRAIT_SLOTS slot, its claims' sentences (identity stays empty unless a user turn
  states an identity fact).
"""

from __future__ import annotations

from schemas.companion import CompanionSet
from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.world import World
from tasks.common.memory_need import Need, natural_rate, needs, window_of
from tasks.common.timeutil import local_date
from tasks.companion.probes import build_probes
from tasks.companion.reconstruction import reconstruct
from tasks.llm.gateway import Gateway

__all__ = ["build_companion", "natural_rate", "persona_needs", "window_of"]


def persona_needs(config: BuildConfig, persona: Persona, world: World, corpus: Corpus) -> list[Need]:
    """Every user turn's required context, in conversation order."""
    return needs(corpus.turns, world.facts, window_of(config), lambda ts: local_date(persona, ts))


def build_companion(config: BuildConfig, persona: Persona, world: World, corpus: Corpus,
                    gateway: Gateway) -> CompanionSet:
    """The persona's chat probes, profile claims and portrait (empty when companion.enabled is off)."""
    if not config.stages.companion.enabled:
        return CompanionSet()
    found = persona_needs(config, persona, world, corpus)
    probes = build_probes(config, persona, found, corpus.turns, world.facts, window_of(config), gateway)
    claims, portrait = reconstruct(persona, world.facts, corpus.turns, config.end_date)
    return CompanionSet(probes=probes, claims=claims, portrait=portrait)
