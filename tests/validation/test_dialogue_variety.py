"""The distribution gate on dialogue variety: each persona's user turns keep a distinct 4-gram ratio."""

from __future__ import annotations

from schemas.config import GateOptions
from tests.validation.conftest import GATE_CONFIG
from validation.distribution import variety_frame
from validation.gates import run_gates

NAME = "distribution.user turns varied"


def with_floor(floor: float):
    return GATE_CONFIG.model_copy(
        update={"gates": GateOptions(**{**GATE_CONFIG.gates.model_dump(), "min_distinct_4gram_ratio": floor})}
    )


def repeat_user_turns(corpus, times: int = 10):
    """The persona says the same sentence over and over."""
    turn = corpus["turns"][0]
    corpus["turns"] += [turn.model_copy(update={"turn_id": f"p0001-s0001-t{k + 10:02d}",
                                                "text": "I really like living in Lisbon these days."})
                        for k in range(times)]


def test_the_frame_holds_one_ratio_per_persona(corpus, con_for):
    frame = variety_frame(con_for({"r1": corpus}), "r1")
    assert list(frame["persona_id"]) == ["p0001"]
    # "i moved to lisbon (1)." and "... (2).": 4 four-grams, 3 distinct
    assert frame["n_grams"].tolist() == [4] and frame["ratio"].tolist() == [0.75]


def test_repetitive_user_turns_fail_the_gate(corpus, con_for):
    repeat_user_turns(corpus)
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    failed = [r for r in report.failed() if r.expectation == NAME]
    assert failed and NAME in report.failure_message()


def test_the_floor_comes_from_the_config(corpus, con_for):
    repeat_user_turns(corpus)
    report = run_gates(con_for({"r1": corpus}), "r1", config=with_floor(0.1))
    assert NAME not in {r.expectation for r in report.failed()}
    assert GateOptions().min_distinct_4gram_ratio == 0.5


def test_assistant_turns_do_not_count(corpus, con_for):
    turn = corpus["turns"][0]
    corpus["turns"] += [turn.model_copy(update={"turn_id": f"p0001-s0001-t{k + 10:02d}", "role": "assistant",
                                                "fact_ids": [], "text": "That sounds lovely, tell me more."})
                        for k in range(10)]
    report = run_gates(con_for({"r1": corpus}), "r1", config=GATE_CONFIG)
    assert NAME not in {r.expectation for r in report.failed()}


def with_scale(**gates):
    return GATE_CONFIG.model_copy(update={"gates": GateOptions(**{**GATE_CONFIG.gates.model_dump(), **gates})})


def test_the_scale_frame_counts_user_turns_and_tokens_per_persona(corpus, con_for):
    from tasks.sources.chunking import count_tokens
    from validation.distribution import scale_frame

    frame = scale_frame(con_for({"r1": corpus}), "r1")
    users = [t for t in corpus["turns"] if t.role == "user"]
    tokens = sum(count_tokens(t.text) for t in corpus["turns"]) + sum(count_tokens(d.body) for d in corpus["documents"])
    assert frame.to_dict("records") == [{"persona_id": "p0001", "user_turns": len(users), "tokens": tokens}]


def test_a_persona_below_the_scale_fails_the_gate(corpus, con_for):
    con = con_for({"r1": corpus})
    failed = {r.expectation for r in run_gates(con, "r1", config=with_scale(min_user_turns_per_persona=1000,
                                                                             min_tokens_per_persona=500_000)).failed()}
    assert {"distribution.user turns per persona", "distribution.tokens per persona"} <= failed
    failed = {r.expectation for r in run_gates(con, "r1", config=with_scale(max_tokens_per_persona=5)).failed()}
    assert "distribution.tokens per persona" in failed
    assert not {"distribution.user turns per persona", "distribution.tokens per persona"} & {
        r.expectation for r in run_gates(con, "r1", config=GATE_CONFIG).failed()}
