"""The companion gates: a tiny clean companion set passes; each planted defect fails the expectation it names."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa
import pytest

from schemas.companion import PORTRAIT_SLOTS, ChatProbe, PortraitSlot, ProfileClaim
from schemas.config import BuildConfig
from schemas.corpus import TimeRef, Turn
from schemas.tables import to_arrow
from schemas.world import Fact
from validation.companion import companion_suite
from validation.gates import GateReport, run_gates

P = "p0001"
TABLES = ("turns", "facts", "chat_probes", "profile_claims", "persona_portraits")


def at(day: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2025, 1, day, 9, minute, tzinfo=dt.UTC)


def turn(session: int, n: int, day: int, role: str, text: str, facts: tuple[str, ...] = ()) -> Turn:
    return Turn(turn_id=f"{P}-s000{session}-t0{n}", session_id=f"{P}-s000{session}", persona_id=P,
                timestamp=at(day, n), role=role, text=text, fact_ids=list(facts))


def probe(n: int, turn_row: Turn, **kw) -> ChatProbe:
    base = dict(probe_id=f"{P}-cp000{n}", persona_id=P, turn_id=turn_row.turn_id, session_id=turn_row.session_id,
                probe_time=turn_row.timestamp, text=turn_row.text, stratum="proportional", memory_need=False,
                tier="basic", category="no_memory", window=2, cold_open=False, gold_reply="Sure.",
                derivation={"phases": []})
    return ChatProbe(**(base | kw))


def clean() -> dict[str, list]:
    """Two sessions four days apart; probes: a cold open, a recent follow-up, an episodic callback."""
    f1 = "p0001-f0001"
    turns = [
        turn(1, 1, 1, "user", "I moved to Lisbon last week.", (f1,)),
        turn(1, 2, 1, "assistant", "How exciting!"),
        turn(1, 3, 1, "user", "Lisbon is so sunny.", (f1,)),
        turn(2, 1, 5, "user", "Hello there."),
        turn(2, 2, 5, "assistant", "Hi!"),
        turn(2, 3, 5, "user", "Still loving Lisbon.", (f1,)),
        turn(3, 1, 7, "user", "Morning."),
    ]
    facts = [Fact(fact_id=f1, persona_id=P, event_id="p0001-e0001", subject=P, attribute="city", value="Lisbon",
                  valid_from=dt.date(2025, 1, 1), surface_forms=["Lisbon"])]
    probes = [
        probe(1, turns[3], stratum="abstention", cold_open=True, gold_reply=""),
        probe(2, turns[2], category="recent_followup", required_recent=[turns[0].turn_id], required_facts=[f1]),
        probe(3, turns[5], stratum="enriched", memory_need=True, tier="intermediate", category="episodic_callback",
              required_episodes=[turns[0].turn_id, turns[2].turn_id], required_facts=[f1], distance_days=4.0),
    ]
    claim = ProfileClaim(claim_id=f"{P}-pc0001", persona_id=P, slot="home", subject=P, attribute="city",
                         value="Lisbon", text="Lives in Lisbon.", fact_ids=[f1],
                         evidence_turn_ids=[turns[0].turn_id, turns[5].turn_id], first_seen=turns[0].timestamp,
                         last_seen=turns[5].timestamp, temporality="stable", confidence=0.9,
                         as_of=dt.date(2025, 1, 9))
    portrait = [PortraitSlot(persona_id=P, slot=s, text="", claim_ids=[], as_of=dt.date(2025, 1, 9))
                for s in PORTRAIT_SLOTS]
    return {"turns": turns, "facts": facts, "chat_probes": probes, "profile_claims": [claim],
            "persona_portraits": portrait}


def gates(rows: dict[str, list], enabled: bool = True) -> GateReport:
    con = duckdb.connect()
    for table in TABLES:
        con.register(table, pa.Table.from_batches([], schema=to_arrow(table, [], "r1").schema)
                     if not rows.get(table) else to_arrow(table, rows[table], "r1"))
    config = BuildConfig(name="t").model_copy(deep=True)
    config.stages.companion.enabled = enabled
    return run_gates(con, "r1", suites=[companion_suite(config)])


def failed(report: GateReport) -> dict[str, list]:
    return {r.expectation.removeprefix("companion."): r.sample for r in report.failed()}


def swap(rows: dict, n: int, **update) -> dict:
    rows["chat_probes"][n] = rows["chat_probes"][n].model_copy(update=update)
    return rows


def test_clean_set_passes_every_expectation():
    report = gates(clean())
    assert report.success, report.failure_message()
    assert len(report.results) == 16


def test_disabled_and_empty_checks_nothing():
    assert gates({}, enabled=False).results == []


def test_enabled_without_probes_fails():
    assert "probes present" in failed(gates({}))


def test_unresolved_id_fails():
    rows = clean()
    swap(rows, 2, required_episodes=["p0001-s0001-t01", "p0001-s0001-t99"])
    assert failed(gates(rows))["cited ids resolve in the persona"] == ["p0001-cp0003:p0001-s0001-t99"]


def test_id_after_the_probe_fails():
    rows = clean()
    swap(rows, 2, required_episodes=["p0001-s0001-t01", "p0001-s0003-t01"])
    assert failed(gates(rows))["cited ids precede the probe"] == ["p0001-cp0003:p0001-s0003-t01"]


def test_fact_valid_after_the_probe_fails():
    rows = clean()
    rows["facts"][0] = rows["facts"][0].model_copy(update={"valid_from": dt.date(2025, 1, 3)})
    assert "p0001-cp0002:p0001-f0001" in failed(gates(rows))["cited ids precede the probe"]


def test_episode_inside_the_window_fails():
    rows = clean()
    swap(rows, 1, required_recent=[], required_episodes=["p0001-s0001-t01"], memory_need=True,
         category="episodic_callback", tier="intermediate")
    assert failed(gates(rows)) == {
        "recent ids inside and episode ids outside the window": ["p0001-cp0002:p0001-s0001-t01"]}


def test_missing_gold_reply_fails():
    rows = swap(clean(), 2, gold_reply="  ")
    assert failed(gates(rows)) == {"gold reply unless cold open": ["p0001-cp0003"]}


def test_tier_that_does_not_recompute_fails():
    rows = swap(clean(), 2, tier="hard")
    assert failed(gates(rows)) == {"tier recomputes": ["p0001-cp0003"]}


def test_far_episode_recomputes_as_hard():
    rows = clean()
    far = rows["turns"][5].model_copy(update={"timestamp": at(31, 30)})
    rows["turns"][5] = far
    swap(rows, 2, probe_time=far.timestamp, tier="hard")
    rows["profile_claims"][0] = rows["profile_claims"][0].model_copy(update={"last_seen": far.timestamp})
    assert gates(rows).success


def test_category_that_does_not_recompute_fails():
    rows = swap(clean(), 1, category="episodic_callback")
    assert failed(gates(rows)) == {"category recomputes": ["p0001-cp0002"]}


def test_non_verbatim_probe_fails():
    rows = swap(clean(), 1, text="I moved to Lisbon, you know.")
    assert failed(gates(rows)) == {"probe is a verbatim user turn": ["p0001-cp0002"]}


def test_abstention_needing_memory_fails():
    rows = swap(clean(), 2, stratum="abstention")
    assert failed(gates(rows)) == {"strata consistent": ["p0001-cp0003"]}


@pytest.mark.parametrize("update, name", [
    ({"evidence_turn_ids": ["p0001-s0001-t02"]}, "claim evidence is user turns of the persona"),
    ({"first_seen": at(1, 2)}, "claim first/last seen span its evidence"),
    ({"fact_ids": ["p0001-f0099"]}, "claim fact ids resolve"),
])
def test_claim_defects_fail(update, name):
    rows = clean()
    rows["profile_claims"][0] = rows["profile_claims"][0].model_copy(update=update)
    assert name in failed(gates(rows))


def test_missing_portrait_slot_fails():
    rows = clean()
    rows["persona_portraits"].pop()
    assert failed(gates(rows)) == {"every persona has every portrait slot": [P]}


def state_update(new_value: str = "Porto") -> dict[str, list]:
    """A move to Porto calling back the Lisbon move: old and new value required, the probe states the new one."""
    rows = clean()
    old = rows["facts"][0].model_copy(update={"valid_to": dt.date(2025, 1, 6)})
    new = Fact(fact_id="p0001-f0002", persona_id=P, event_id="p0001-e0002", subject=P, attribute="city",
               value=new_value, valid_from=dt.date(2025, 1, 6), surface_forms=[new_value])
    rows["facts"] = [old, new]
    moved = rows["turns"][6].model_copy(update={
        "text": "I left Lisbon for Porto.", "fact_ids": [new.fact_id],
        "time_refs": [TimeRef(phrase="last week", date=dt.date(2025, 1, 1), event_id="p0001-e0001")]})
    rows["turns"][6] = moved
    episodes = [rows["turns"][i].turn_id for i in (0, 2, 5)]
    rows["chat_probes"].append(probe(4, moved, stratum="enriched", memory_need=True, tier="hard",
                                     category="state_update", required_episodes=episodes,
                                     required_facts=[old.fact_id, new.fact_id], distance_days=6.0))
    return rows


def test_state_update_recomputes_with_the_distance_tier():
    assert gates(state_update()).success
    rows = swap(state_update(), 3, category="episodic_callback", tier="edge")
    assert failed(gates(rows)) == {"tier recomputes": ["p0001-cp0004"], "category recomputes": ["p0001-cp0004"]}


def test_same_value_successor_is_no_change():
    rows = state_update("lisbon ")
    assert failed(gates(rows)) == {"category recomputes": ["p0001-cp0004"]}
    assert gates(swap(state_update("lisbon "), 3, category="episodic_callback")).success


def test_change_told_earlier_recomputes_as_edge():
    """The user told the move earlier; a later probe refers to the old city by paraphrase: edge."""
    rows = state_update()
    rows["chat_probes"].pop()
    later = turn(4, 1, 8, "user", "I miss my previous city.")
    later = later.model_copy(update={"paraphrase_ids": ["p0001-f0001"]})
    rows["turns"].append(later)
    episodes = [rows["turns"][i].turn_id for i in (0, 2, 5, 6)]
    rows["chat_probes"].append(probe(4, later, stratum="enriched", memory_need=True, tier="edge",
                                     category="episodic_callback", required_episodes=episodes,
                                     required_facts=["p0001-f0001", "p0001-f0002"], distance_days=7.0))
    assert gates(rows).success, gates(rows).failure_message()
    assert failed(gates(swap(rows, 3, tier="hard"))) == {"tier recomputes": ["p0001-cp0004"]}


def test_cited_turn_without_a_required_fact_fails():
    rows = swap(clean(), 2, required_recent=["p0001-s0002-t02"])
    assert failed(gates(rows)) == {"cited turns refer to a required fact": ["p0001-cp0003:p0001-s0002-t02"]}


def test_claim_evidence_without_its_fact_fails():
    rows = clean()
    rows["profile_claims"][0] = rows["profile_claims"][0].model_copy(update={
        "evidence_turn_ids": [rows["turns"][0].turn_id, rows["turns"][3].turn_id],
        "last_seen": rows["turns"][3].timestamp})
    assert failed(gates(rows)) == {"claim evidence carries the claim's fact": [f"{P}-pc0001"]}
