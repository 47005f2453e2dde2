"""Retrieval metrics on hand-made rankings, summaries, and the two controls."""

import pytest

from tasks.evaluate.metrics import (
    control_seed,
    hit_at,
    mrr,
    permuted_offsets,
    randomized_positions,
    recall_at,
    scores,
    summarize,
)

RANKED = ["a", "b", "g1", "c", "d", "g2", "e"] + [f"x{n}" for n in range(13)] + ["g3"]  # g3 at rank 21
GOLD = {"g1", "g2", "g3", "g4"}  # g4 never retrieved


def test_hit_at():
    assert [hit_at(RANKED, GOLD, k) for k in (1, 2, 3, 5, 20)] == [0.0, 0.0, 1.0, 1.0, 1.0]
    assert hit_at(["g1"], GOLD, 1) == 1.0
    assert hit_at([], GOLD, 5) == 0.0


def test_recall_over_whole_gold_set():
    assert recall_at(RANKED, GOLD, 2) == 0.0
    assert recall_at(RANKED, GOLD, 5) == 0.25
    assert recall_at(RANKED, GOLD, 6) == 0.5
    assert recall_at(RANKED, GOLD, 20) == 0.5
    assert recall_at(RANKED, GOLD, 50) == 0.75  # g4 is never found
    assert recall_at(["g1", "g1", "g2"], {"g1", "g2"}, 2) == 0.5  # a duplicate counts once


def test_mrr():
    assert mrr(RANKED, GOLD) == pytest.approx(1 / 3)
    assert mrr(["g2"], GOLD) == 1.0
    assert mrr(["a", "b"], GOLD) == 0.0
    assert mrr(RANKED[3:], GOLD) == pytest.approx(1 / 3)  # g2 is then third


def test_scores_and_empty_gold():
    assert scores(RANKED, GOLD) == pytest.approx({"hit_at_1": 0.0, "hit_at_5": 1.0, "hit_at_20": 1.0,
                                                  "recall_at_5": 0.25, "recall_at_20": 0.5, "recall_at_50": 0.75,
                                                  "mrr": 1 / 3})
    for f in (lambda: hit_at(RANKED, set(), 5), lambda: recall_at(RANKED, set(), 5), lambda: mrr(RANKED, [])):
        with pytest.raises(ValueError):
            f()


ROWS = [
    {"system": "bm25", "setting": "turns", "k": 5, "question_id": "q1", "category": "fact",
     "characteristics": ["multi_hop_traversal", "negative_constraints"], "checkpoint": "in_timeline",
     "hit_at_1": 1.0, "mrr": 1.0, "correct": True},
    {"system": "bm25", "setting": "turns", "k": 5, "question_id": "q2", "category": "fact",
     "characteristics": ["multi_hop_traversal"], "checkpoint": "post_shock", "hit_at_1": 0.0, "mrr": 0.5,
     "correct": False},
    {"system": "bm25", "setting": "turns", "k": 5, "question_id": "q3", "category": "temporal",
     "characteristics": ["negative_constraints"], "checkpoint": "in_timeline", "hit_at_1": None, "mrr": None,
     "correct": True},
    {"system": "dense", "setting": "turns", "k": 5, "question_id": "q1", "category": "fact",
     "characteristics": ["multi_hop_traversal", "negative_constraints"], "checkpoint": "in_timeline",
     "hit_at_1": 0.0, "mrr": 0.25, "correct": False},
]


def test_summarize_by_category_keeps_systems_apart():
    out = summarize(ROWS, "category")
    assert out == [
        {"system": "bm25", "setting": "turns", "k": 5, "category": "fact", "n": 2, "hit_at_1": 0.5, "mrr": 0.75,
         "correct": 0.5},
        {"system": "bm25", "setting": "turns", "k": 5, "category": "temporal", "n": 1, "hit_at_1": None,
         "mrr": None, "correct": 1.0},
        {"system": "dense", "setting": "turns", "k": 5, "category": "fact", "n": 1, "hit_at_1": 0.0, "mrr": 0.25,
         "correct": 0.0},
    ]


def test_summarize_by_characteristic_checkpoint_and_all():
    bm25 = [r for r in ROWS if r["system"] == "bm25"]
    by_char = {r["characteristic"]: r for r in summarize(bm25, "characteristics", metrics=["mrr"])}
    assert by_char["multi_hop_traversal"]["n"] == 2 and by_char["multi_hop_traversal"]["mrr"] == 0.75
    assert by_char["negative_constraints"]["n"] == 2 and by_char["negative_constraints"]["mrr"] == 1.0
    by_cp = {r["checkpoint"]: r for r in summarize(bm25, "checkpoint")}
    assert by_cp["in_timeline"]["hit_at_1"] == 1.0 and by_cp["post_shock"]["hit_at_1"] == 0.0
    (whole,) = summarize(bm25, "all", metrics=["hit_at_1", "correct"])
    assert whole["n"] == 3 and whole["hit_at_1"] == 0.5 and whole["correct"] == pytest.approx(2 / 3)
    assert summarize([], "category") == []


HISTORY = [f"t{n}" for n in range(10)]


def test_permuted_offsets_keeps_size_and_spacing():
    gold = {"t2", "t3", "t7"}
    for seed in range(20):
        decoy = permuted_offsets(HISTORY, gold, seed)
        assert len(decoy) == 3 and decoy != frozenset(gold)
        offsets = sorted(HISTORY.index(d) for d in decoy)
        shifts = [s for s in range(1, 10) if sorted((o + s) % 10 for o in (2, 3, 7)) == offsets]
        assert shifts  # one non-zero circular shift of the real offsets
    assert permuted_offsets(HISTORY, gold, 1) == permuted_offsets(HISTORY, gold, 1)
    assert permuted_offsets(HISTORY, {"t1", "elsewhere"}, 3) != {"t1"}
    assert len(permuted_offsets(HISTORY, {"t1", "elsewhere"}, 3)) == 1  # absent gold is dropped
    assert permuted_offsets(["t0"], {"t0"}, 5) == {"t0"} and permuted_offsets([], {"t0"}, 5) == frozenset()


def test_permuted_offsets_separates_content_from_position():
    # recency's score does not depend on what the gold is, only where: it scores the same on a decoy at the same place
    recency = list(reversed(HISTORY))
    gold = {"t9"}
    decoys = [permuted_offsets(HISTORY, gold, s) for s in range(50)]
    assert all(hit_at(recency, d, 1) == 0.0 for d in decoys)  # shift is never zero: the decoy is never t9
    oracle = ["t9"]
    assert hit_at(oracle, gold, 1) == 1.0 and all(hit_at(oracle, d, 1) == 0.0 for d in decoys)


def test_randomized_positions():
    ranked = ["g1", "a", "b", "c", "d", "e", "f", "g", "h", "i"]
    shuffled = randomized_positions(ranked, 3)
    assert sorted(shuffled) == sorted(ranked) and shuffled == randomized_positions(ranked, 3)
    assert any(randomized_positions(ranked, s) != ranked for s in range(5))
    assert recall_at(shuffled, {"g1"}, 10) == 1.0  # the same items: recall over the whole list is unchanged
    hits = [hit_at(randomized_positions(ranked, s), {"g1"}, 1) for s in range(400)]
    assert sum(hits) / len(hits) == pytest.approx(0.1, abs=0.04)  # chance: 1 in 10
    assert ranked[0] == "g1"  # the input is not modified
    assert control_seed(0, "q1") == control_seed(0, "q1") != control_seed(1, "q1")
