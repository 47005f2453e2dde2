"""The validity suite: measures within their [gates.measures] thresholds, failures naming value and bound."""

from __future__ import annotations

import pytest

from schemas.config import BuildConfig, GateOptions
from schemas.metrics import DEFAULT_MEASURE_GATES, measure_row
from tests.validation.conftest import GATE_CONFIG, GATE_TABLES, connect
from validation.gates import run_gates
from validation.validity import slack, verdict


def _config(**measures) -> BuildConfig:
    gates = GATE_CONFIG.gates.model_copy(update={"measures": GateOptions(measures=measures).measures})
    return GATE_CONFIG.model_copy(update={"gates": gates})


def validity(report):
    return {r.expectation: r for r in report.results if r.suite == "validity"}


def test_verdict_names_value_and_threshold():
    low = measure_row("language.assistant.distinct_sentences", 0.01, 50_000)
    assert verdict(low, 0.012, 20) == (False, "language.assistant.distinct_sentences = 0.01 < min 0.012")
    high = measure_row("difficulty.answer_prior", 0.5, 2000)
    assert verdict(high, 0.42, 20) == (False, "difficulty.answer_prior = 0.5 > max 0.42")
    assert verdict(high, 0.6, 20) == (True, "difficulty.answer_prior")
    assert verdict(measure_row("difficulty.answer_prior", 0.9, 5), 0.42, 20)[0] is None  # too few
    assert verdict(measure_row("difficulty.answer_prior", None, 500), 0.42, 20)[0] is None
    from schemas.metrics import MeasureBound

    assert verdict(measure_row("difficulty.chance", 0.3, 1000), MeasureBound(min=0.1, max=0.2), 20)[0] is False


def test_a_share_over_few_units_may_miss_its_bound_by_chance_but_not_by_much():
    """A tiny build's 124 turns: 0.078 against a floor of 0.093 is within 3.29 standard errors; 0.0 is not; the
    same 0.078 over a persona-year's 27,000 turns fails; a measure that is no share gets no slack."""
    assert verdict(measure_row("coherence.user.connected_turns", 0.078, 124), 0.093, 20)[0] is True
    assert verdict(measure_row("coherence.user.connected_turns", 0.0, 124), 0.093, 20)[0] is False
    assert verdict(measure_row("coherence.user.connected_turns", 0.078, 27_000), 0.093, 20)[0] is False
    from schemas.metrics import MeasureBound

    assert verdict(measure_row("facts.mentions_per_fact", 0.9, 30), MeasureBound(min=1.0, max=9.0), 20)[0] is False
    assert slack(measure_row("facts.verbatim_mentions", 0.95, 100), 0.93) > slack(
        measure_row("facts.verbatim_mentions", 0.95, 10_000), 0.93) > 0


def test_clean_corpus_is_measured_when_no_measures_landed(corpus):
    report = run_gates(connect({"r1": corpus}), "r1", config=GATE_CONFIG)
    found = validity(report)
    assert len(found) == 5 and all(r.success for r in found.values())


def test_landed_measures_fail_their_thresholds_with_a_readable_sample(corpus):
    rows = [measure_row("language.assistant.distinct_sentences", 0.005, 90_000),
            measure_row("language.user.distinct_sentences", 0.99, 900),
            measure_row("difficulty.answer_prior", 0.61, 300),
            measure_row("difficulty.bm25_copy", 0.99, 4)]  # too few items: not gated
    runs = {"r1": corpus | {"measures": rows}}
    report = run_gates(connect(runs, GATE_TABLES + ("measures",)), "r1", config=GATE_CONFIG)
    found = validity(report)
    language = found["validity.language measures within thresholds"]
    floor = DEFAULT_MEASURE_GATES["language.assistant.distinct_sentences"]
    assert not language.success
    assert language.sample == [f"language.assistant.distinct_sentences = 0.005 < min {floor:g}"]
    difficulty = found["validity.difficulty measures within thresholds"]
    assert difficulty.sample == ["difficulty.answer_prior = 0.61 > max 0.42"]
    assert found["validity.facts measures within thresholds"].success
    assert "language.assistant.distinct_sentences = 0.005" in report.failure_message()
    relaxed = _config(**{"language.assistant.distinct_sentences": 0.001, "difficulty.answer_prior": False})
    again = validity(run_gates(connect(runs, GATE_TABLES + ("measures",)), "r1", config=relaxed))
    assert all(r.success for r in again.values())


def test_gate_options_reject_unknown_or_directionless_measures():
    with pytest.raises(ValueError, match="unknown measure 'language.vibes'"):
        GateOptions(measures={"language.vibes": 0.5})
    with pytest.raises(ValueError, match="no better direction"):
        GateOptions(measures={"facts.mentions_per_fact": 2})
    merged = GateOptions(measures={"facts.mentions_per_fact": {"min": 2}}).measures
    assert "language.user.distinct_sentences" in merged and merged["facts.mentions_per_fact"].min == 2
