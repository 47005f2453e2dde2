"""Bad input to `lifeloom eval`: one clear message, exit 2, nothing written."""

import pytest
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


@pytest.mark.parametrize(("args", "message"), [
    (["--systems", "oracle,magic"], "unknown system 'magic'"),
    (["--settings", "pages"], "unknown setting 'pages'"),
    (["--k", "5,x"], "comma-separated list of integers"),
    (["--k", "0"], "k must be positive"),
    (["--systems", ""], "give at least one system"),
    ([], "no release 'tiny/v0001'"),
])
def test_bad_eval_input_exits_2_with_one_message(tmp_path, args, message):
    result = runner.invoke(app, ["eval", "--release", "tiny/v0001", "--home", str(tmp_path), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("error:") == 1
    assert not (tmp_path / "eval").exists()
