"""Releases verify: every file's size and SHA-256 are in the manifest, every reader checks them first, a half-made
version folder never blocks a name, and a release always has the Data Docs its card links (or says it has none)."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.build import build_corpus
from flows.cli import app
from schemas.config import load_preset
from warehouse.integrity import verify_release

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("integrity")
    build_corpus(config=load_preset("tiny"), home=str(home))
    return home


def copy_home(built, tmp_path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(built, home, symlinks=True)
    for path in [home / "releases", *(home / "releases").rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return home


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def damage(folder: Path, how: str) -> str:
    target = folder / "questions.parquet"
    if how == "deleted":
        target.unlink()
    elif how == "truncated":
        target.write_bytes(target.read_bytes()[:-100])
    elif how == "edited":  # same size, one byte changed: only the hash tells
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    elif how == "added":
        (folder / "extra.parquet").write_bytes(b"PAR1")
        return "extra.parquet"
    return "questions.parquet"


def test_the_manifest_records_every_file_and_the_card_says_how_to_check(built):
    folder = built / "releases" / "tiny" / "v0001"
    manifest = json.loads((folder / "manifest.json").read_text())
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"manifest.json"}
    assert set(manifest["checksums"]) == files and manifest["data_docs"] is True
    assert all(len(c["sha256"]) == 64 and c["bytes"] > 0 for c in manifest["checksums"].values())
    assert "lifeloom verify tiny/v0001" in (folder / "README.md").read_text()
    result = cli("verify", "tiny/v0001", "--home", built)
    assert result.exit_code == 0 and "ok (" in result.output


@pytest.mark.parametrize("how", ["deleted", "truncated", "edited", "added"])
def test_verify_names_the_damaged_file(built, tmp_path, how):
    home = copy_home(built, tmp_path)
    name = damage(home / "releases" / "tiny" / "v0001", how)
    result = cli("verify", "--all", "--home", home)
    assert result.exit_code == 1 and "DAMAGED" in result.output and name in result.output
    listing = cli("releases", "--home", home)
    assert listing.exit_code == 1 and "DAMAGED" in listing.output


def test_every_command_that_reads_a_release_refuses_a_damaged_one(built, tmp_path):
    home = copy_home(built, tmp_path)
    damage(home / "releases" / "tiny" / "v0001", "edited")
    good = built / "releases" / "tiny" / "v0001"
    commands = [
        ("eval", "--release", "tiny/v0001", "--systems", "bm25"),
        ("eval", "--release", "tiny/v0001", "--track", "chat"),
        ("metrics", "--release", "tiny/v0001", "--no-bundled-reference"),
        ("export", "--release", "tiny/v0001", "--format", "locomo", "--out", tmp_path / "out"),
        ("publish", "tiny/v0001", "--to", f"file://{tmp_path / 'bucket'}"),
        ("diff", good, "tiny/v0001"),
    ]
    for args in commands:
        result = cli(*args, "--home", home)
        assert result.exit_code == 2, (args, result.output)
        assert "is damaged: questions.parquet: content changed" in result.output, (args, result.output)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert not (tmp_path / "bucket").exists()
    assert not (home / "eval").exists()


def test_no_verify_skips_the_hash_but_never_the_sizes(built, tmp_path):
    home = copy_home(built, tmp_path)
    folder = home / "releases" / "tiny" / "v0001"
    damage(folder, "edited")
    assert verify_release(folder, hashes=False).ok and not verify_release(folder).ok
    damage(folder, "truncated")
    result = cli("export", "--release", "tiny/v0001", "--format", "hf", "--out", tmp_path / "o", "--no-verify",
                 "--home", home)
    assert result.exit_code == 2 and "bytes, the manifest recorded" in result.output


def test_an_orphan_version_is_skipped_reported_and_pruned_and_pruned_docs_are_rebuilt(built, tmp_path):
    home = copy_home(built, tmp_path)
    orphan = home / "releases" / "tiny" / "v0002"
    orphan.mkdir()
    (orphan / "questions.parquet").write_bytes(b"half a copy")
    again = build_corpus(config=load_preset("tiny"), home=str(home))  # froze v0001 before, so v0003 now
    assert again["release"]["version"] == "v0003"
    listing = cli("releases", "--home", home)
    assert listing.exit_code == 0 and "orphan (no manifest.json, skipped)" in listing.output
    assert cli("verify", "tiny/v0002", "--home", home).exit_code == 2

    # the first run's Data Docs go with its partitions; the gates' cached report points at them
    pruned = cli("prune", "--keep", "1", "--home", home)
    assert pruned.exit_code == 0 and "v0002" in pruned.output and not orphan.exists()
    third = build_corpus(config=load_preset("tiny"), home=str(home))
    folder = Path(third["release"]["path"])
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["data_docs"] and (folder / "data_docs" / "index.html").is_file()
    assert "data_docs/index.html" in (folder / "README.md").read_text()
    assert verify_release(folder).ok
