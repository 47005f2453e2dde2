"""bench/scale.py: the scaled rhelm config round-trips through its TOML writer, and the fit's verdict."""

import pytest

from bench.scale import failed_gates, fit, parse_sizes, scaled_config, to_toml
from schemas.config import config_from_toml, load_preset


def test_full_size_config_is_the_preset_with_more_personas():
    built = config_from_toml(to_toml(scaled_config(40, 365)), source="scale")
    expected = load_preset("rhelm").model_copy(update={"name": "scale-rhelm-p40-d365", "personas": 40})
    assert built.model_dump() == expected.model_dump()


def test_small_config_scales_corpus_floors_and_drops_year_long_floors():
    built = config_from_toml(to_toml(scaled_config(2, 73)), source="scale")  # a fifth of the year, 2 of 10
    assert (built.personas, built.days) == (2, 73)
    assert built.gates.category_floors["fact"] == 4 and built.gates.category_floors["misleading"] == 2
    assert built.gates.min_user_turns_per_persona == 0 and built.gates.min_tokens_per_persona == 0
    assert built.gates.min_questions_per_persona == 26
    assert set(built.gates.characteristic_floors.values()) == {0}


def test_fit_recovers_a_linear_slope_and_flags_a_bend():
    linear = [{"personas": n, "wall_s": 30 + 12 * n} for n in (10, 20, 40)]
    assert fit(linear) | {"steps_s_per_persona": None} == {
        "slope_s_per_persona": 12.0, "fixed_s": 30.0, "steps_s_per_persona": None, "max_step_deviation": 0.0,
        "constant_within_tolerance": True, "tolerance": 0.15}
    bent = [{"personas": 10, "wall_s": 150}, {"personas": 20, "wall_s": 270}, {"personas": 40, "wall_s": 750}]
    verdict = fit(bent)
    assert verdict["steps_s_per_persona"] == [12.0, 24.0] and not verdict["constant_within_tolerance"]
    assert fit(linear[:2])["constant_within_tolerance"] is None  # one step always equals the slope


def test_sizes_must_be_positive_counts():
    assert parse_sizes("2, 4") == (2, 4)
    with pytest.raises(SystemExit, match="--sizes"):
        parse_sizes("2,x")


def test_failed_gates_are_read_from_the_build_log():
    log = ("error: build failed: 2 of 57 gate expectations failed for run r:\n"
           "- coverage: coverage.characteristic above floor (1 unexpected; e.g. trend_analysis)\n"
           "- distribution: distribution.tokens per persona (1 unexpected; e.g. p0000)\n")
    assert failed_gates(log) == ["coverage.characteristic above floor", "distribution.tokens per persona"]
