"""Chat probes: user turns sampled into strata, labelled from their Need, with a gold reply and a derivation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.companion import ChatProbe, GoldReply
from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.memory_need import refers
from tasks.common.rng import rng_for
from tasks.common.timeutil import local_date
from tasks.companion.context import Need, category_of, distance_days
from tasks.companion.replies import FACT_FREE_REPLY, PROMPT, leaked, reply_context, template_reply
from tasks.companion.tiers import distance_tier, stale, tier_of
from tasks.llm.gateway import CallSpec, Gateway

STAGE = "companion"


def strata(config: BuildConfig, persona: Persona, needs: Sequence[Need]) -> dict[str, str]:
    """turn id -> stratum. Proportional: a seeded uniform sample of user turns; enriched: of the remaining
    memory-bearing turns; abstention: of the remaining turns needing nothing (category no_memory). Each pool
    is in conversation order before the draw; a turn is drawn once; a short pool gives fewer probes."""
    opts = config.stages.companion
    pools = {
        "proportional": [n.turn.turn_id for n in needs],
        "enriched": [n.turn.turn_id for n in needs if n.memory_need],
        "abstention": [n.turn.turn_id for n in needs if not n.required_facts],
    }
    sizes = {"proportional": opts.proportional, "enriched": opts.enriched, "abstention": opts.abstention}
    chosen: dict[str, str] = {}
    for name, pool in pools.items():
        free = [t for t in pool if t not in chosen]
        rng = rng_for(config.seed, persona.persona_id, STAGE, None, f"stratum:{name}")
        for turn_id in rng.sample(free, min(sizes[name], len(free))):
            chosen[turn_id] = name
    return chosen


class ProbeBuilder:
    """Builds one persona's probes, recording each phase of a probe's derivation as it happens."""

    def __init__(self, persona: Persona, turns: Sequence[Turn], facts: Sequence[Fact], window: int) -> None:
        self.persona, self.window = persona, window
        self.turns = {t.turn_id: t for t in turns}
        self.facts = {f.fact_id: f for f in facts}
        self.all_facts = list(facts)

    def draft(self, need: Need, stratum: str, n: int) -> tuple[ChatProbe, dict[str, Any] | None]:
        """The probe up to its gold reply, and the reply prompt's context (None for a cold open)."""
        turn, phases = need.turn, []
        phases.append({"phase": "referent", "facts": [
            {"fact_id": f, "reason": need.reasons[f]} for f in need.required_facts],
            "recent": need.required_recent, "episodes": need.required_episodes})
        phases.append(self.verification(need))
        day = local_date(self.persona, turn.timestamp)
        episodes = [self.turns[t] for t in need.required_episodes]
        facts = [self.facts[f] for f in need.required_facts]
        shape = [(t.session_id, t.timestamp) for t in episodes]
        tier = tier_of(turn.timestamp, day, shape, facts, set(refers(turn)))
        distance = distance_days(turn.timestamp, [t.timestamp for t in episodes])
        replaced = stale(facts, day)
        phases.append({"phase": "tier", "episode_sessions": sorted({t.session_id for t in episodes}),
                       "distance_days": distance, "distance_tier": distance_tier(turn.timestamp, shape),
                       "told_change_replaces": replaced, "tier": tier})
        category = category_of(need, self.facts, day)
        probe = ChatProbe(
            probe_id=f"{self.persona.persona_id}-cp{n:04d}", persona_id=self.persona.persona_id,
            turn_id=turn.turn_id, session_id=turn.session_id, probe_time=turn.timestamp, text=turn.text,
            stratum=stratum, memory_need=need.memory_need, tier=tier, category=category, window=self.window,
            required_recent=need.required_recent, required_episodes=need.required_episodes,
            required_facts=need.required_facts, cold_open=need.cold_open, distance_days=distance,
            derivation={"phases": phases})
        if need.cold_open:
            return probe, None
        recent = sorted((self.turns[t] for t in need.required_recent), key=lambda t: (t.timestamp, t.turn_id))
        episodes.sort(key=lambda t: (t.timestamp, t.turn_id))
        return probe, reply_context(self.persona, turn, category, recent, episodes, facts, set(replaced))

    def verification(self, need: Need) -> dict[str, Any]:
        """Each cited id exists and precedes the probe (turns: earlier timestamp; facts: begun by its date)."""
        t0, day = need.turn.timestamp, local_date(self.persona, need.turn.timestamp)
        turns = [*need.required_recent, *need.required_episodes]
        bad = [t for t in turns if t not in self.turns or self.turns[t].timestamp >= t0]
        bad += [f for f in need.required_facts if f not in self.facts or self.facts[f].valid_from > day]
        return {"phase": "verification", "checked": len(turns) + len(need.required_facts), "failed": bad,
                "ok": not bad}

    def finish(self, probe: ChatProbe, context: dict[str, Any] | None, reply: str | None,
               call_key: str | None) -> ChatProbe:
        """The probe with its gold reply (the model's, else the template) and the gold_reply and ship_check
        phases; a cold open owes no reply."""
        phases = list(probe.derivation["phases"])
        if context is None:
            phases.append({"phase": "gold_reply", "source": "none", "reason": "cold open"})
            ok = probe.derivation["phases"][1]["ok"]
            phases.append({"phase": "ship_check", "passed": ["cold_open_without_reply"] + (["verification"] if ok
                           else []), "failed": [] if ok else ["verification"]})
            return probe.model_copy(update={"derivation": {"phases": phases}})
        bad = leaked(reply or "", context, self.all_facts)
        text, source = (reply, "model") if reply and reply.strip() and not bad else (template_reply(context),
                                                                                       "template")
        if source == "template" and leaked(text, context, self.all_facts):
            text, source = FACT_FREE_REPLY, "fact_free"
        used = [f["fact_id"] for f in context["facts"] if f["form"].lower() in text.lower()]
        phases.append({"phase": "gold_reply", "prompt": PROMPT, "call_key": call_key, "source": source,
                       "used_facts": used})
        checks = {"verification": probe.derivation["phases"][1]["ok"], "reply_present": bool(text.strip()),
                  "only_required_context": not leaked(text, context, self.all_facts)}
        failed = [f"mentions_untold:{f}" for f in bad] + [name for name, ok in checks.items() if not ok]
        passed = [name for name, ok in checks.items() if ok] + (["model_reply_kept"] if source == "model" else [])
        phases.append({"phase": "ship_check", "passed": passed, "failed": failed})
        return probe.model_copy(update={"gold_reply": text, "derivation": {"phases": phases}})


def build_probes(config: BuildConfig, persona: Persona, needs: Sequence[Need], turns: Sequence[Turn],
                 facts: Sequence[Fact], window: int, gateway: Gateway) -> list[ChatProbe]:
    """The persona's probes in conversation order (ids `<pid>-cpNNNN`), gold replies asked in one batch. A probe
    whose cited ids fail verification still ships, with `verification` failed in its ship check, so the gates
    (validation/companion.py) report it instead of it vanishing."""
    chosen = strata(config, persona, needs)
    builder = ProbeBuilder(persona, turns, facts, window)
    drafts = []
    for need in needs:
        if need.turn.turn_id in chosen:
            drafts.append(builder.draft(need, chosen[need.turn.turn_id], len(drafts) + 1))
    asks = [c for _, c in drafts if c is not None]
    specs = [CallSpec(PROMPT, c, GoldReply, STAGE, persona.persona_id) for c in asks]
    replies = iter(gateway.generate_many(specs)) if specs else iter(())
    out = []
    for n, (probe, context) in enumerate(drafts, start=1):
        probe = probe.model_copy(update={"probe_id": f"{persona.persona_id}-cp{n:04d}"})
        if context is None:
            out.append(builder.finish(probe, None, None, None))
            continue
        reply = next(replies).reply.strip()
        key = gateway.request(PROMPT, context, GoldReply).call_key[:24]
        out.append(builder.finish(probe, context, reply, key))
    return out
