"""Companion-track scoring: AUROC, firing thresholds, hit@k/MRR before the recent window, reconstruction F1,
predictions parsing and the CLI's answer to a bad predictions file."""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import random

import pytest
from typer.testing import CliRunner

from flows.cli import app
from schemas.companion import ChatProbe, ProfileClaim
from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.world import Fact
from tasks.companion import build_companion
from tasks.dialogue import stage as dialogue
from tasks.evaluate import companion as ev
from tasks.evaluate.text import normalize
from tasks.interop.companion import export_companion
from tasks.llm.gateway import Gateway
from tasks.sources import stage as sources
from tasks.world import loop, profile

P = "p0001"


def at(day: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2025, 1, day, 9, minute, tzinfo=dt.UTC)


def turn(s: int, n: int, day: int, role: str, text: str, facts=()) -> Turn:
    return Turn(turn_id=f"{P}-s000{s}-t0{n}", session_id=f"{P}-s000{s}", persona_id=P, timestamp=at(day, n),
                role=role, text=text, fact_ids=list(facts))


TURNS = [
    turn(1, 1, 1, "user", "I adopted a beagle named Rex today.", ["p0001-f0001"]),
    turn(1, 2, 1, "assistant", "Lovely, congratulations on the new dog!"),
    turn(2, 1, 3, "user", "My sister visited this weekend."),
    turn(2, 2, 3, "assistant", "That sounds nice."),
    turn(2, 3, 3, "user", "Rex chewed my shoes again."),
]


def probe(n: int, t: Turn, **kw) -> ChatProbe:
    base = dict(probe_id=f"{P}-cp000{n}", persona_id=P, turn_id=t.turn_id, session_id=t.session_id,
                probe_time=t.timestamp, text=t.text, stratum="proportional", memory_need=False, tier="basic",
                category="no_memory", window=2, cold_open=False, gold_reply="ok", derivation={"phases": []})
    return ChatProbe(**(base | kw))


PROBES = [
    probe(1, TURNS[4], memory_need=True, tier="intermediate", category="episodic_callback",
          required_episodes=[TURNS[0].turn_id], required_facts=["p0001-f0001"]),
    probe(2, TURNS[2], cold_open=True, gold_reply=""),
]


def test_auroc_on_known_scores():
    assert ev.auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)
    assert ev.auroc([1, 1, 0], [True, False, False]) == pytest.approx(0.75)  # the tie counts half
    assert ev.auroc([3, 2, 1], [True, True, False]) == 1.0
    assert ev.auroc([1, 2], [True, True]) is None


def test_threshold_fires_at_most_at_the_rate():
    assert ev.threshold_at_rate([3, 2, 1, 0], 0.5) == 2
    assert ev.threshold_at_rate([3, 3, 1, 0], 0.25) == float("inf")  # a tie at the top would fire twice
    assert ev.threshold_at_rate([3, 2], 0.0) == float("inf")


def quadratic_threshold(scores, rate):
    """The former O(n^2) threshold_at_rate, kept as the reference."""
    allowed = math.floor(rate * len(scores) + 1e-9)
    ordered = sorted((s for s in scores if s > 0), reverse=True)
    if allowed <= 0 or not ordered:
        return math.inf
    best = math.inf
    for s in sorted(set(ordered), reverse=True):
        if sum(1 for x in ordered if x >= s) > allowed:
            break
        best = s
    return best


def test_threshold_matches_the_quadratic_reference_on_random_scores():
    rng = random.Random(12)
    for _ in range(300):
        n = rng.randrange(0, 40)
        scores = [rng.choice([0.0, 0.5, 1.0, 2.0, 3.5]) if rng.random() < 0.5 else rng.uniform(-1, 5)
                  for _ in range(n)]
        rate = rng.choice([0.0, 0.03, 0.1, 0.25, 0.5, 1.0, rng.random()])
        assert ev.threshold_at_rate(scores, rate) == quadratic_threshold(scores, rate), (scores, rate)


def test_hit_and_mrr_rank_only_turns_before_the_window():
    rows = ev.chat_rows(PROBES, TURNS, ["bm25", "recency", "oracle", "broken_oracle"], [1, 5])
    got = {(r["system"], r["probe_id"]): r for r in rows}
    bm25, recency = got[("bm25", "p0001-cp0001")], got[("recency", "p0001-cp0001")]
    assert bm25["n_memory"] == 2 and set(bm25["retrieved_ids"]) == {TURNS[0].turn_id, TURNS[1].turn_id}
    assert (bm25["hit_at_1"], bm25["mrr"]) == (1.0, 1.0)
    assert recency["retrieved_ids"][0] == TURNS[1].turn_id
    assert (recency["hit_at_1"], recency["hit_at_5"], recency["mrr"]) == (0.0, 1.0, 0.5)
    assert got[("oracle", "p0001-cp0001")]["mrr"] == 1.0 and got[("broken_oracle", "p0001-cp0001")]["mrr"] == 0.0
    assert got[("bm25", "p0001-cp0002")]["mrr"] is None  # needs no memory: not scored for retrieval


def test_restraint_appropriate_use_and_detectability():
    rows = ev.chat_rows(PROBES, TURNS, ["bm25", "recency", "oracle"], [1, 5])
    summary = {e["system"]: e for e in ev.chat_summary(rows, [1, 5])["by_system"]}
    assert summary["bm25"]["natural_rate"] == 0.5
    assert (summary["bm25"]["misfire_rate"], summary["bm25"]["appropriate_at_1"]) == (0.0, 1.0)
    assert (summary["recency"]["misfire_rate"], summary["recency"]["appropriate_at_1"]) == (1.0, 0.0)
    assert summary["oracle"]["misfire_rate"] == 0.0 and summary["oracle"]["appropriate_at_1"] == 1.0
    assert summary["bm25"]["auroc"] == 1.0 and summary["recency"]["auroc"] is None


def scored_row(stratum: str, score: float, need: bool) -> dict:
    return {"system": "bm25", "probe_id": f"x{score}", "stratum": stratum, "tier": "basic", "memory_need": need,
            "top1_score": score, "mrr": None, "hit_at_1": None, "misfire": None, "appropriate_at_1": None,
            "threshold": None, "natural_rate": 0.5}


def test_auroc_is_reported_on_all_probes_and_on_the_proportional_stratum():
    rows = [scored_row("proportional", 1.0, True), scored_row("proportional", 2.0, False),
            scored_row("proportional", 0.5, False), scored_row("enriched", 9.0, True),
            scored_row("abstention", 0.1, False)]
    summary = ev.chat_summary(rows, [1])
    entry = summary["by_system"][0]
    assert entry["auroc_proportional"] == 0.5  # 1.0 beats 0.5, loses to 2.0
    assert entry["auroc"] == pytest.approx(round(5 / 6, 4))  # enriched and abstention tilt it up
    assert summary["detectability_auroc_proportional"] == 0.5 and summary["detectability_auroc"] == entry["auroc"]
    assert "0.500 on the proportional stratum" in ev.markdown("chat", summary | {"ks": [1]}, "t")


def fact(n: int, attribute: str, value: str, day: int) -> Fact:
    return Fact(fact_id=f"{P}-f000{n}", persona_id=P, event_id=f"{P}-e000{n}", subject=P, attribute=attribute,
                value=value, valid_from=dt.date(2025, 1, day), surface_forms=[value])


FACTS = [fact(1, "city", "Lisbon", 1), fact(2, "city", "Porto", 5), fact(3, "employer", "Acme", 1)]
TOLD = [turn(1, 1, 1, "user", "Lisbon!", ["p0001-f0001", "p0001-f0003"]), turn(3, 1, 6, "user", "Porto!",
                                                                              ["p0001-f0002"])]


def claim(n: int, f: Fact, slot: str, evidence: Turn, subject: str = P, temporality: str = "stable") -> ProfileClaim:
    return ProfileClaim(claim_id=f"{P}-pc000{n}", persona_id=P, slot=slot, subject=subject, attribute=f.attribute,
                        value=f.value, text=f"{f.attribute}: {f.value}", fact_ids=[f.fact_id],
                        evidence_turn_ids=[evidence.turn_id], first_seen=evidence.timestamp,
                        last_seen=evidence.timestamp, temporality=temporality, confidence=1.0,
                        as_of=dt.date(2025, 1, 9))


CLAIMS = [claim(1, FACTS[1], "home", TOLD[1]), claim(2, FACTS[2], "work", TOLD[0])]


def micro(predictions) -> dict:
    return ev.reconstruction_summary(ev.reconstruction_rows(CLAIMS, predictions, [P, "p0002"]))["micro"]


def test_reconstruction_f1_is_one_for_gold_and_drops_without_claims():
    assert micro(ev.predict("gold", CLAIMS))["f1"] == 1.0
    fewer = micro(ev.predict("gold", CLAIMS[:1]))
    assert fewer["precision"] == 1.0 and fewer["recall"] == 0.5 and fewer["f1"] < 1.0
    assert micro(ev.predict("empty", CLAIMS))["f1"] == 0.0


def test_stale_predictor_gives_the_first_told_value():
    stale = ev.predict("stale", CLAIMS, FACTS, TOLD)
    assert [r["value"] for r in stale] == ["Lisbon", "Acme"]
    assert [r["evidence_turn_ids"] for r in stale] == [[TOLD[0].turn_id], [TOLD[0].turn_id]]
    assert micro(stale) == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    summary = ev.reconstruction_summary(ev.reconstruction_rows(CLAIMS, stale, [P]))
    assert summary["temporality_scored"] == 0 and summary["evidence_hit_rate"] == 1.0


def test_equal_values_about_different_subjects_are_different_fields():
    podcast = fact(4, "news", "started a podcast", 2)
    claims = [claim(1, podcast, "relationships", TOLD[0], "Ana Lima"),
              claim(2, podcast, "relationships", TOLD[0], "Ben Okoro")]
    rows = ev.reconstruction_rows(claims, ev.predict("gold", claims[:1]), [P])
    assert rows[0]["gold"] == 2 and rows[0]["recall"] == 0.5
    wrong = [{"persona_id": P, "subject": "Cara Diaz", "attribute": "news", "value": "started a podcast"}]
    assert ev.reconstruction_rows(claims, wrong, [P])[0]["matched"] == 0
    right = [{"persona_id": P, "subject": "  ben OKORO", "attribute": "news", "value": "Started a podcast."}]
    assert ev.reconstruction_rows(claims, right, [P])[0]["matched"] == 1


def test_temporality_and_evidence_are_scored_on_matched_fields():
    claims = [claim(1, FACTS[1], "home", TOLD[1], temporality="event"), claim(2, FACTS[2], "work", TOLD[0])]
    row = {"persona_id": P, "subject": P}
    preds = [row | {"attribute": "city", "value": "Porto", "temporality": "event",
                    "evidence_turn_ids": ["nope", TOLD[1].turn_id]},
             row | {"attribute": "employer", "value": "Acme", "temporality": "transient",
                    "evidence_turn_ids": [TOLD[1].turn_id]},
             row | {"attribute": "pet", "value": "Rex", "temporality": "stable", "evidence_turn_ids": ["x"]}]
    summary = ev.reconstruction_summary(ev.reconstruction_rows(claims, preds, [P]))
    assert (summary["temporality_scored"], summary["temporality_correct"]) == (2, 1)
    assert (summary["evidence_scored"], summary["evidence_hit"]) == (2, 1)
    assert summary["temporality_accuracy"] == 0.5 and summary["evidence_hit_rate"] == 0.5
    bare = ev.reconstruction_summary(ev.reconstruction_rows(claims, [row | {"attribute": "city", "value": "Porto"}],
                                                            [P]))
    assert bare["matched"] == 1 and bare["temporality_accuracy"] is None and bare["evidence_hit_rate"] is None
    gold = ev.reconstruction_summary(ev.reconstruction_rows(claims, ev.predict("gold", claims), [P]))
    assert (gold["temporality_accuracy"], gold["evidence_hit_rate"]) == (1.0, 1.0)
    assert "temporality accuracy 1.000" in ev.markdown("reconstruction", gold | {"predictor": "gold"}, "t")


def test_values_are_normalized_and_slots_scored():
    me = {"persona_id": P, "subject": P}
    rows = ev.reconstruction_rows(CLAIMS, [me | {"attribute": "city", "value": "  the PORTO."},
                                           me | {"attribute": "pet", "value": "Rex"}], [P])
    by_slot = {r["slot"]: r for r in rows}
    assert by_slot["home"]["f1"] == 1.0 and by_slot["work"]["recall"] == 0.0
    assert by_slot["unmapped"]["predicted"] == 1 and by_slot["all"]["matched"] == 1


def test_prediction_for_an_unknown_persona_is_refused():
    with pytest.raises(ValueError, match="p0042"):
        ev.reconstruction_rows(CLAIMS, [{"persona_id": "p0042", "subject": P, "attribute": "city", "value": "x"}],
                               [P])


@pytest.mark.parametrize("line, problem", [
    ("{not json", "line 2: not JSON"),
    ('["p0001"]', "line 2: expected an object"),
    ('{"persona_id": "p0001", "attribute": "city", "value": "Porto"}', "line 2: field 'subject'"),
    ('{"persona_id": "p0001", "subject": "p0001", "attribute": "city"}', "line 2: field 'value'"),
    ('{"persona_id": "p0001", "subject": "p0001", "attribute": "city", "value": "Porto", "temporality": "old"}',
     "line 2: field 'temporality'"),
    ('{"persona_id": "p0001", "subject": "p0001", "attribute": "city", "value": "Porto", "evidence_turn_ids": "t1"}',
     "line 2: field 'evidence_turn_ids'"),
])
def test_bad_prediction_rows_name_their_line(line, problem):
    good = json.dumps({"persona_id": P, "subject": P, "attribute": "city", "value": "Porto",
                       "temporality": "event", "evidence_turn_ids": ["t1"]})
    assert ev.parse_predictions([good], "preds.jsonl")[0]["evidence_turn_ids"] == ["t1"]
    with pytest.raises(ValueError, match=problem):
        ev.parse_predictions([good, line], "preds.jsonl")


def test_cli_bad_predictions_file_exits_2(tmp_path):
    release = tmp_path / "releases" / "tiny" / "v0001"
    release.mkdir(parents=True)
    (release / "manifest.json").write_text("{}")
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"persona_id": "p0001", "subject": "Ana", "attribute": 3, "value": "x"}\n')
    result = CliRunner().invoke(app, ["eval", "--release", "tiny/v0001", "--home", str(tmp_path), "--track",
                                      "reconstruction", "--predictions", str(preds)])
    assert result.exit_code == 2, result.output
    assert "line 1: field 'attribute'" in result.output and result.output.count("error:") == 1
    assert not (tmp_path / "eval").exists()


def test_export_writes_profile_portrait_and_probes_per_persona():
    files = export_companion(PROBES, CLAIMS, [], TOLD)
    assert sorted(files) == [f"{P}/chat_probes.jsonl", f"{P}/portrait.md", f"{P}/profile.json"]
    profile = json.loads(files[f"{P}/profile.json"])
    assert [c["value"] for c in profile["claims"]] == ["Porto", "Acme"]
    assert [c["subject"] for c in profile["claims"]] == [P, P]  # what a prediction row names as its subject
    assert profile["claims"][0]["evidence"][0]["text"] == "Porto!"
    assert [json.loads(x)["probe_id"] for x in files[f"{P}/chat_probes.jsonl"].splitlines()] == [
        "p0001-cp0001", "p0001-cp0002"]
    assert files[f"{P}/portrait.md"].count("## ") == 9


@functools.cache
def built_corpus() -> tuple[list[ProfileClaim], list[Fact], list[Turn]]:
    """The profile claims and (facts, turns) of a real offline build: two personas over 30 days."""
    config = BuildConfig.model_validate({"name": "recon", "seed": 7, "personas": 2, "start_date": "2024-03-01",
                                         "days": 30, "stages": {"companion": {"proportional": 4, "enriched": 2,
                                                                              "abstention": 2}}})
    gw = Gateway(config.provider)
    claims, facts, turns = [], [], []
    for i, pid in enumerate(profile.persona_ids(config)):
        persona = profile.enrich_persona(config, pid, profile.seed_texts(config)[i], gw)
        world = loop.simulate(config, persona, gw)
        docs = sources.write_sources(config, persona, world, gw)
        talk = dialogue.write_dialogue(config, persona, world, docs.documents, gw)
        claims += build_companion(config, persona, world, talk, gw).claims
        facts += world.facts
        turns += talk.turns
    return claims, facts, turns


def test_reconstruction_on_a_built_corpus_gold_is_one_each_claim_counts_and_stale_is_lower():
    claims, facts, turns = built_corpus()
    personas = sorted({c.persona_id for c in claims})
    assert len(personas) == 2 and len(claims) > 40
    # a second person holding a claim's exact value (two friends who both joined a choir): scored apart
    twin = claims[0].model_copy(update={"claim_id": f"{claims[0].persona_id}-pc9999", "subject": "Someone Else"})
    claims = [*claims, twin]
    keyed_without_subject = {(c.persona_id, c.attribute, normalize(c.value)) for c in claims}
    assert len(keyed_without_subject) < len(claims), "the corpus should hold equal values about different people"

    def summary(predictions):
        return ev.reconstruction_summary(ev.reconstruction_rows(claims, predictions, personas))

    gold = summary(ev.predict("gold", claims))
    assert gold["micro"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0} and gold["gold"] == len(claims)
    for i in range(len(claims)):  # every claim is its own field: removing any one lowers recall
        fewer = summary(ev.predict("gold", claims[:i] + claims[i + 1:]))["micro"]
        assert fewer["recall"] < 1.0 and fewer["precision"] == 1.0, claims[i].claim_id
    assert summary(ev.predict("stale", claims, facts, turns))["micro"]["f1"] < 1.0
    assert summary(ev.predict("empty", claims))["micro"]["f1"] == 0.0
