"""Bad input to `lifeloom`: one clear message, a non-zero exit, nothing in releases/."""

from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def _build(*args):
    return runner.invoke(app, ["build", *args])


def test_unknown_preset(tmp_path):
    result = _build("--preset", "nope", "--home", str(tmp_path))
    assert result.exit_code == 2
    assert "unknown preset 'nope'" in result.output
    assert not (tmp_path / "releases").exists()


def test_invalid_toml(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("name = [oops")
    result = _build("--config", str(cfg), "--home", str(tmp_path / "home"))
    assert result.exit_code == 2 and "invalid TOML" in result.output
    assert not (tmp_path / "home").exists()


def test_days_must_be_positive(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "x"\ndays = 0\n')
    result = _build("--config", str(cfg), "--home", str(tmp_path / "home"))
    assert result.exit_code == 2 and "field 'days'" in result.output


def test_unwritable_home(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = _build("--preset", "tiny", "--home", str(blocker / "home"))
    assert result.exit_code == 2 and "not writable" in result.output


def test_build_without_a_preset_or_config_says_what_to_give(tmp_path):
    """Issue 27: a bare `lifeloom build` silently built demo."""
    result = _build("--home", str(tmp_path))
    assert result.exit_code == 2 and "--preset NAME (demo, finperma, rhelm, tiny" in result.output
    assert not tmp_path.joinpath("releases").exists()


def test_preset_and_config_together(tmp_path):
    result = _build("--preset", "demo", "--config", str(tmp_path / "c.toml"))
    assert result.exit_code == 2 and "either --preset or --config" in result.output


def test_sql_without_a_build(tmp_path):
    result = runner.invoke(app, ["sql", "select 1", "--home", str(tmp_path)])
    assert result.exit_code == 2 and "lifeloom build" in result.output


def test_presets_lists_demo():
    result = runner.invoke(app, ["presets"])
    assert result.exit_code == 0 and "demo: 3 personas, 60 days" in result.output


def test_malformed_seed_file_is_one_message(tmp_path):
    (tmp_path / "seeds.jsonl").write_text('{"seed": "a baker in Lyon"}\n{bad json\n')
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "x"\nseed_file = "seeds.jsonl"\n')
    result = _build("--config", str(cfg), "--home", str(tmp_path / "home"))
    assert result.exit_code == 2 and "line 2" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "home").exists()


def test_release_version_must_be_vnnnn(tmp_path):
    result = _build("--preset", "tiny", "--home", str(tmp_path), "--version", "../../x")
    assert result.exit_code == 2 and "must look like v0001" in result.output


def test_sql_refuses_an_empty_query_and_unknown_format(tmp_path):
    assert runner.invoke(app, ["sql", "  ", "--home", str(tmp_path)]).exit_code == 2
    assert runner.invoke(app, ["sql", "select 1", "--format", "xml", "--home", str(tmp_path)]).exit_code == 2


def test_years_outside_one_to_fifteen_exit_2_with_one_line_and_nothing_landed(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "x"\n[world]\nyears = 16\n')
    home = tmp_path / "home"
    result = _build("--config", str(cfg), "--home", str(home))
    assert result.exit_code == 2
    assert "field 'world.years': years must be from 1 to 15 (got 16)" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not home.exists()
