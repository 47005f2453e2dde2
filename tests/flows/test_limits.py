"""Ceilings checked before any work, each refusal with the plan's estimate and the setting that would allow it."""

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.limits import LimitExceeded, check_limits, estimate
from schemas.config import Limits, ProviderConfig, load_preset
from tasks.world import profile

runner = CliRunner()


def test_the_estimate_grows_with_personas_and_days_and_fits_the_measured_builds():
    tiny, demo = load_preset("tiny"), load_preset("demo")
    assert estimate(tiny, 2).seconds < estimate(tiny, 40).seconds < estimate(demo, 40).seconds
    assert 15 < estimate(tiny, 2).seconds < 45 and 500 < estimate(tiny, 2).peak_mb < 900  # measured: 21 s, 577 MB
    rhelm = estimate(load_preset("rhelm"), 10)
    assert 190 < rhelm.seconds < 400 and 60_000 < rhelm.calls < 80_000  # measured: 204 to 221 s, 75,103 calls
    assert rhelm.seconds > estimate(load_preset("rhelm").model_copy(update={"stages": load_preset("tiny").stages}),
                                    10).seconds  # days full of plans cost more than default ones


def test_a_huge_build_is_refused_with_its_estimate_and_how_to_allow_it():
    config = load_preset("tiny").model_copy(update={"personas": 100_000, "days": 60})
    with pytest.raises(LimitExceeded) as info:
        check_limits(config, 100_000, memory_gb=16)
    message = str(info.value)
    assert "100,000 personas x 60 days" in message and " h," in message and "GB peak memory" in message
    assert "max_hours" in message and "max_memory_gb" in message


def test_raised_limits_let_a_build_through_and_never_change_the_config_hash():
    config = load_preset("demo")
    roomy = config.model_copy(update={"limits": Limits(max_hours=1000, max_memory_gb=10_000)})
    assert check_limits(roomy.model_copy(update={"personas": 20_000}), 20_000).personas == 20_000
    assert roomy.config_hash() == config.config_hash()


def test_paid_model_calls_have_a_ceiling():
    config = load_preset("rhelm")
    check_limits(config, 10, memory_gb=64)  # offline calls cost nothing
    paid = config.model_copy(update={"provider": ProviderConfig(name="openai", model="m"),
                                     "limits": Limits(max_calls=10_000, max_hours=1000)})
    with pytest.raises(LimitExceeded, match="max_calls = 10,000"):
        check_limits(paid, 10, memory_gb=64)


def test_seed_files_past_their_row_or_byte_ceiling_are_refused_before_they_are_read_in_full(tmp_path, monkeypatch):
    rows = tmp_path / "seeds.jsonl"
    rows.write_text("".join(f'{{"seed": "a baker number {i} in Lyon"}}\n' for i in range(30)))
    monkeypatch.setattr(profile, "SEED_FILE_MAX_ROWS", 25)
    with pytest.raises(profile.SeedFileError, match="more than 25 seeds"):
        profile.read_seed_file(rows)
    monkeypatch.setattr(profile, "SEED_FILE_MAX_BYTES", 100)
    with pytest.raises(profile.SeedFileError, match="MiB; the ceiling is"):
        profile.read_seed_file(rows)


def test_the_cli_refuses_a_build_past_its_limits_before_creating_anything(tmp_path):
    cfg = tmp_path / "big.toml"
    cfg.write_text('name = "big"\npersonas = 100000\ndays = 60\n')
    result = runner.invoke(app, ["build", "--config", str(cfg), "--home", str(tmp_path / "home")])
    assert result.exit_code == 2 and "refusing to build: 100,000 personas" in result.output
    assert not (tmp_path / "home").exists()
