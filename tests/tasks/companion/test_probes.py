"""Chat probes: verbatim user turns, cited context that precedes them, tiers and strata that recompute
from the lists, gold replies from the required context only, derivations in phase order, determinism."""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter

from schemas.companion import PHASES
from schemas.config import BuildConfig
from tasks.common.facttext import mentions
from tasks.common.timeutil import local_date
from tasks.companion import build_companion, persona_needs
from tasks.companion.probes import ProbeBuilder
from tasks.companion.replies import context_text
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import Gateway
from tasks.metrics.text import sentences
from tasks.sources import stage as sources
from tasks.world import loop, profile


def make_config(days: int = 45, **dialogue_options) -> BuildConfig:
    stages = {"dialogue": dialogue_options, "companion": {"proportional": 30, "enriched": 12, "abstention": 8}}
    return BuildConfig.model_validate({"name": "companion", "seed": 7, "personas": 1, "start_date": "2024-03-01",
                                       "days": days, "stages": stages})


@functools.cache
def simulated(days: int = 45, memory_rate: float | None = None):
    """(config, persona, world, corpus) of one simulated persona, offline."""
    config = make_config(days, memory_rate=memory_rate)
    gw = Gateway(config.provider)
    persona = profile.enrich_persona(config, profile.persona_ids(config)[0], profile.seed_texts(config)[0], gw)
    world = loop.simulate(config, persona, gw)
    docs = sources.write_sources(config, persona, world, gw)
    talk = dialogue.write_dialogue(config, persona, world, docs.documents, gw)
    return config, persona, world, talk.model_copy(update={"documents": docs.documents})


@functools.cache
def built(days: int = 45, memory_rate: float | None = 0.15):
    config, persona, world, corpus = simulated(days, memory_rate)
    return build_companion(config, persona, world, corpus, Gateway(config.provider))


def test_every_probe_is_a_verbatim_user_turn_drawn_once():
    _, _, _, corpus = simulated(45, 0.15)
    turns = {t.turn_id: t for t in corpus.turns}
    probes = built().probes
    assert len(probes) > 20
    for p in probes:
        turn = turns[p.turn_id]
        assert turn.role == "user"
        assert (p.text, p.probe_time, p.session_id) == (turn.text, turn.timestamp, turn.session_id)
    assert len({p.turn_id for p in probes}) == len(probes)
    assert [p.probe_id for p in probes] == [f"{p.persona_id}-cp{n:04d}" for n in range(1, len(probes) + 1)]
    assert [p.probe_time for p in probes] == sorted(p.probe_time for p in probes)


def test_cited_ids_resolve_and_precede_the_probe_recent_ones_inside_the_window():
    config, persona, world, corpus = simulated(45, 0.15)
    facts = {f.fact_id: f for f in world.facts}
    sessions: dict[str, list] = {}
    for t in sorted(corpus.turns, key=lambda t: (t.timestamp, t.turn_id)):
        sessions.setdefault(t.session_id, []).append(t.turn_id)
    turns = {t.turn_id: t for t in corpus.turns}
    for p in built().probes:
        order = sessions[p.session_id]
        recent = set(order[max(0, order.index(p.turn_id) - p.window):order.index(p.turn_id)])
        assert set(p.required_recent) <= recent
        assert not set(p.required_episodes) & recent
        for tid in p.required_recent + p.required_episodes:
            assert turns[tid].timestamp < p.probe_time and turns[tid].role == "user"
            assert set(turns[tid].fact_ids + turns[tid].paraphrase_ids) & set(p.required_facts)
        assert all(facts[f].valid_from <= local_date(persona, p.probe_time) for f in p.required_facts)
        assert p.window == config.stages.dialogue.context_window


def told_changes(p, facts, day) -> list[tuple[str, str]]:
    """(old, new) required fact ids: same subject and attribute, different values, old ended and new begun."""
    req = [facts[f] for f in p.required_facts]
    return [(o.fact_id, n.fact_id) for o in req for n in req if (o.subject, o.attribute) == (n.subject, n.attribute)
            and o.value.strip().casefold() != n.value.strip().casefold() and o.valid_to is not None
            and o.valid_to <= day and o.valid_from < n.valid_from <= day]


def recomputed_tier(p, facts, turns, day) -> str:
    """The documented tier rule, written out independently of tasks/companion/tiers.py."""
    said = set(turns[p.turn_id].fact_ids + turns[p.turn_id].paraphrase_ids)
    if any(new not in said for _, new in told_changes(p, facts, day)):
        return "edge"
    if not p.required_episodes:
        return "basic"
    episodes = [turns[t] for t in p.required_episodes]
    far = p.probe_time - min(t.timestamp for t in episodes) > dt.timedelta(days=30)
    return "hard" if len({t.session_id for t in episodes}) >= 2 or far else "intermediate"


def test_tier_category_memory_need_and_cold_open_recompute_from_the_lists():
    """Seventy-five days with the enriched stratum: a world that keeps to its change rates, where only real state is
    superseded (a second dinner out supersedes nothing), needs that long and the probes drawn for memory to hold
    a told change a probe does not restate (an `edge` probe). Sixty days held one until issue 55's fuller days
    drew this persona's year anew: both books it starts in its first two months are now given up."""
    persona, world, corpus, probes = enriched(75, 0.15)
    facts = {f.fact_id: f for f in world.facts}
    turns = {t.turn_id: t for t in corpus.turns}
    first_user = {}
    for t in sorted(corpus.turns, key=lambda t: (t.timestamp, t.turn_id)):
        if t.role == "user":
            first_user.setdefault(t.session_id, t.turn_id)
    for p in probes:
        assert p.tier == recomputed_tier(p, facts, turns, local_date(persona, p.probe_time))
        assert p.memory_need == bool(p.required_episodes)
        assert p.cold_open == (first_user[p.session_id] == p.turn_id and not p.required_facts)
        assert (p.category == "no_memory") == (not p.required_facts)
        assert (p.category == "recent_followup") == (bool(p.required_facts) and not p.memory_need)
        if p.category == "profile_grounded":
            assert all(facts[f].event_id.endswith("-e0000") for f in p.required_facts)
        if p.memory_need:
            first = min(turns[t].timestamp for t in p.required_episodes)
            assert p.distance_days == round((p.probe_time - first).total_seconds() / 86400, 3)
    tiers, categories = Counter(p.tier for p in probes), Counter(p.category for p in probes)
    assert {"basic", "intermediate", "edge"} <= set(tiers)
    assert {"no_memory", "episodic_callback", "profile_grounded", "state_update"} <= set(categories)


@functools.cache
def enriched(days: int, memory_rate: float | None):
    _, persona, world, corpus = simulated(days, memory_rate)
    config = BuildConfig.model_validate(make_config(days).model_dump() | {"stages": {"companion": {"enriched": 60}}})
    return persona, world, corpus, build_companion(config, persona, world, corpus, Gateway(config.provider)).probes


def test_state_updates_state_a_told_change_and_keep_their_distance_tier():
    """Seventy-five days with the enriched stratum, as the tier test: a life keeping to its change rates tells its
    first changes by then."""
    persona, world, corpus, probes = enriched(75, 0.15)
    facts = {f.fact_id: f for f in world.facts}
    turns = {t.turn_id: t for t in corpus.turns}
    updates = [p for p in probes if p.category == "state_update"]
    assert updates
    for p in updates:
        changes = told_changes(p, facts, local_date(persona, p.probe_time))
        assert changes and all(new in turns[p.turn_id].fact_ids for _, new in changes)
        assert p.tier != "edge" and p.memory_need
        assert any(w in p.gold_reply for w in ("no longer", "replaces", "rather than", "behind you"))
        assert any(mentions(p.gold_reply, facts[old].surface_forms[0]) for old, _ in changes)


def test_a_value_is_stale_only_when_a_different_later_value_was_told():
    persona, world, corpus, probes = enriched(75, 0.15)  # seventy-five days hold an edge probe (the tier test)
    facts = {f.fact_id: f for f in world.facts}
    turns = {t.turn_id: t for t in corpus.turns}
    told = {}
    for t in sorted(corpus.turns, key=lambda t: (t.timestamp, t.turn_id)):
        for f in t.fact_ids + t.paraphrase_ids if t.role == "user" else []:
            told.setdefault(f, t.timestamp)
    edges = [p for p in probes if p.tier == "edge"]
    assert edges
    for p in probes:
        stale = p.derivation["phases"][2]["told_change_replaces"]
        changes = told_changes(p, facts, local_date(persona, p.probe_time))
        assert sorted({old for old, _ in changes}) == stale
        for _, new in changes:
            assert new in turns[p.turn_id].fact_ids + turns[p.turn_id].paraphrase_ids or told[new] < p.probe_time
        if not stale:
            assert not any(w in p.gold_reply for w in ("no longer", "replaces", "rather than", "behind you"))
    for p in edges:
        new = [n for _, n in told_changes(p, facts, local_date(persona, p.probe_time))]
        assert any(mentions(p.gold_reply, facts[n].surface_forms[0]) for n in new)


def test_strata_draw_from_their_pools_at_most_the_configured_sizes():
    config, persona, world, corpus = simulated(45, 0.15)
    needs = {n.turn.turn_id: n for n in persona_needs(config, persona, world, corpus)}
    probes = built().probes
    by = Counter(p.stratum for p in probes)
    opts = config.stages.companion
    assert by["proportional"] == min(opts.proportional, len(needs))
    assert all(p.memory_need for p in probes if p.stratum == "enriched")
    assert all(p.category == "no_memory" for p in probes if p.stratum == "abstention")
    memory_left = sum(n.memory_need for t, n in needs.items()
                      if t not in {p.turn_id for p in probes if p.stratum == "proportional"})
    assert by["enriched"] == min(opts.enriched, memory_left)
    assert by["abstention"] == opts.abstention
    assert all(needs[p.turn_id].memory_need == p.memory_need for p in probes)


def test_gold_replies_come_from_the_required_context_only():
    _, persona, world, corpus = simulated(45, 0.15)
    turns = {t.turn_id: t for t in corpus.turns}
    facts = {f.fact_id: f for f in world.facts}
    for p in built().probes:
        assert [ph["phase"] for ph in p.derivation["phases"]] == list(PHASES)
        if p.cold_open:
            assert p.gold_reply == ""
            continue
        assert 1 <= len(sentences(p.gold_reply)) <= 3
        known = "\n".join([p.text] + [turns[t].text for t in p.required_recent + p.required_episodes]
                          + [f"{facts[f].value} {' '.join(facts[f].surface_forms)}" for f in p.required_facts])
        for fact in world.facts:
            for form in fact.surface_forms:
                if mentions(p.gold_reply, form):
                    assert mentions(known, form), (p.probe_id, form)
        if p.memory_need:
            assert any(mentions(p.gold_reply, facts[f].surface_forms[0]) for f in p.required_facts)


def test_a_reply_that_mentions_an_untold_fact_ships_the_template_instead():
    config, persona, world, corpus = simulated(45, 0.15)
    need = next(n for n in persona_needs(config, persona, world, corpus) if n.memory_need)
    builder = ProbeBuilder(persona, corpus.turns, world.facts, 6)
    probe, context = builder.draft(need, "enriched", 1)
    untold = next(f for f in world.facts if f.surface_forms and not mentions(context_text(context),
                                                                            f.surface_forms[0]))
    shipped = builder.finish(probe, context, f"Glad to hear it, and {untold.surface_forms[0]} too!", "k")
    assert not mentions(shipped.gold_reply, untold.surface_forms[0])
    assert shipped.derivation["phases"][-1]["failed"] == [f"mentions_untold:{untold.fact_id}"]
    assert shipped.derivation["phases"][-2]["source"] == "template"


def test_same_input_gives_the_same_companion_set():
    config, persona, world, corpus = simulated(45, 0.15)
    again = build_companion(config, persona, world, corpus, Gateway(config.provider))
    assert again.model_dump_json() == built().model_dump_json()


def test_distance_is_elapsed_time_across_a_daylight_saving_change():
    """Thirty days and 55 minutes of elapsed time across New York's November change is past FAR_DAYS, though
    the wall clocks are 29.997 days apart (two times in one zone subtract as wall clocks in Python)."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from tasks.companion.context import distance_days
    from tasks.companion.tiers import distance_tier

    zone = ZoneInfo("America/New_York")
    told = dt.datetime(2024, 10, 14, 14, 40, 40, tzinfo=zone)  # 18:40:40 UTC
    probe = dt.datetime(2024, 11, 13, 14, 36, 4, tzinfo=zone)  # 19:36:04 UTC
    assert distance_days(probe, [told]) == 30.038
    assert distance_tier(probe, [("s1", told)]) == "hard"
