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
