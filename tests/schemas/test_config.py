import datetime as dt

import pytest

from schemas.config import ConfigError, config_from_toml, load_config_file, load_preset, preset_names


def test_demo_preset_is_three_personas_over_sixty_days():
    cfg = load_preset("demo")
    assert (cfg.personas, cfg.days, cfg.rollout_p, cfg.provider.name) == (3, 60, 0.7, "offline")
    assert cfg.end_date == cfg.start_date + dt.timedelta(days=59)


def test_unknown_preset_names_the_available_ones():
    with pytest.raises(ConfigError, match="unknown preset 'nope'.*demo"):
        load_preset("nope")
    assert "demo" in preset_names()


def test_invalid_toml_is_one_clear_error():
    with pytest.raises(ConfigError, match="invalid TOML"):
        config_from_toml("name = [unclosed", "x.toml")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('name = "x"\ndays = 0', "'days'"),
        ('name = "x"\nrollout_p = 1.5', "'rollout_p'"),
        ('name = "Bad Name"', "'name'"),
        ('name = "x"\nbogus = 1', "'bogus'"),
        ('name = "x"\n[provider]\nname = "gpt"', "'provider.name'"),
    ],
)
def test_validation_errors_name_the_field(body, field):
    with pytest.raises(ConfigError, match=field):
        config_from_toml(body, "x.toml")


def test_config_file_resolves_seed_file_relative_to_itself(tmp_path):
    (tmp_path / "seeds.jsonl").write_text('{"seed": "a baker in Lyon"}\n')
    path = tmp_path / "c.toml"
    path.write_text('name = "mine"\nseed_file = "seeds.jsonl"\n')
    cfg = load_config_file(path)
    assert cfg.seed_file == (tmp_path / "seeds.jsonl").resolve()


def test_missing_seed_file_is_reported(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('name = "mine"\nseed_file = "nowhere.jsonl"\n')
    with pytest.raises(ConfigError, match="nowhere.jsonl"):
        load_config_file(path)


def test_config_hash_tracks_content():
    a, b = load_preset("demo"), load_preset("demo")
    assert a.config_hash() == b.config_hash()
    assert a.model_copy(update={"seed": 8}).config_hash() != a.config_hash()


def test_provider_override_for_an_unknown_stage_is_refused():
    body = 'name = "x"\n[stages.providers.simulate]\nname = "anthropic"\nmodel = "m"\n'
    with pytest.raises(ConfigError, match="no model-calling stage named 'simulate'.*loop"):
        config_from_toml(body, "x.toml")


def test_credentials_in_base_url_are_refused():
    body = 'name = "x"\n[provider]\nname = "openai"\nmodel = "m"\nbase_url = "https://u:secret@host/v1"\n'
    with pytest.raises(ConfigError, match="must not carry credentials") as err:
        config_from_toml(body, "x.toml")
    assert "secret" not in str(err.value)


def test_the_readme_s_gates_reference_is_the_model_s():
    """The README lists every `[gates]` field with its default and description, generated (issue 27)."""
    from pathlib import Path

    from schemas.config import GateOptions, gates_reference

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    block = readme.split("<!-- gates-reference:start -->\n")[1].split("\n<!-- gates-reference:end -->")[0]
    assert block == gates_reference(), "regenerate it with `.venv/bin/python -m schemas.config`"
    assert all(f"| `{name}` |" in block for name in GateOptions.model_fields)
    assert all(field.description for field in GateOptions.model_fields.values())


def test_world_years_set_the_days_in_calendar_years():
    cfg = config_from_toml('name = "x"\nstart_date = 2024-03-05\n[world]\nyears = 10', "x.toml")
    assert cfg.days == 3652 and cfg.end_date == dt.date(2034, 3, 4)  # three leap days in 2024-2034
    two = config_from_toml('name = "x"\nstart_date = 2023-01-01\n[world]\nyears = 2', "x.toml")
    assert two.end_date == dt.date(2024, 12, 31) and two.days == 731
    fifteen = config_from_toml('name = "x"\n[world]\nyears = 15', "x.toml")
    assert fifteen.days == 5479  # the longest life fits the days bound


def test_world_years_agreeing_with_days_is_accepted_and_disagreeing_names_both():
    assert config_from_toml('name = "x"\ndays = 366\n[world]\nyears = 1', "x.toml").days == 366
    with pytest.raises(ConfigError, match=r"\[world\] years = 2 .* is 731 days, but days = 60"):
        config_from_toml('name = "x"\ndays = 60\n[world]\nyears = 2', "x.toml")


@pytest.mark.parametrize("years", [0, 16, -1])
def test_world_years_outside_one_to_fifteen_is_one_line(years):
    with pytest.raises(ConfigError) as caught:
        config_from_toml(f'name = "x"\n[world]\nyears = {years}', "x.toml")
    message = str(caught.value)
    assert message == f"x.toml: field 'world.years': years must be from 1 to 15 (got {years})"


def test_a_config_without_world_years_hashes_as_before_the_table_existed():
    plain = config_from_toml('name = "x"\ndays = 731', "x.toml")
    assert '"world"' not in plain.canonical_json()
    with_years = config_from_toml('name = "x"\n[world]\nyears = 2', "x.toml")
    assert with_years.days == plain.days and with_years.config_hash() != plain.config_hash()
