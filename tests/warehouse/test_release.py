import datetime as dt
import json

import pytest

from schemas.qa import Evidence
from schemas.release import Manifest
from warehouse import release
from warehouse.catalog import session
from warehouse.parquet import land_rows
from warehouse.paths import prepare_home

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def _evidence(qid, eid="p0000-s0001-t01"):
    return Evidence(question_id=qid, evidence_id=eid, evidence_kind="turn", fact_id="p0000-f0001")


def _manifest(layout, run_id, version=None):
    con = session(layout)
    hashes = release.content_hashes(con, run_id)
    return Manifest(name="t", version=version or release.next_version(layout, "t"), run_id=run_id, created_at=T0,
                    code_version="v", config={"days": 3}, config_hash="c", provider={"name": "offline"},
                    package_versions={}, prompt_hashes={}, ledger=release.ledger_totals(con, run_id),
                    row_counts=release.row_counts(con, run_id), table_hashes=hashes,
                    content_hash=release.combined_hash(hashes), gates={"passed": 1, "expectations": 1})


def test_content_hash_ignores_run_id_and_row_order(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a"), _evidence("b")], "r1", "p0000")
    land_rows(layout, "question_evidence", [_evidence("b"), _evidence("a")], "r2", "p0000")
    land_rows(layout, "question_evidence", [_evidence("a"), _evidence("c")], "r3", "p0000")
    con = session(layout)
    h = {r: release.table_hash(con, "question_evidence", r) for r in ("r1", "r2", "r3")}
    assert h["r1"] == h["r2"] != h["r3"]


def test_freeze_writes_tables_manifest_card_and_never_overwrites(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    record = release.freeze(layout, _manifest(layout, "r1"))
    path = layout.release_dir("t", "v0001")
    assert record.path == str(path) and record.version == "v0001"
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["row_counts"]["question_evidence"] == 1
    assert "question_evidence.parquet" in manifest["files"]
    card = (path / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: question_evidence" in card
    with pytest.raises(release.ReleaseExists):
        release.freeze(layout, _manifest(layout, "r1", version="v0001"))
    assert release.next_version(layout, "t") == "v0002"
    assert not (path / "x").parent.stat().st_mode & 0o222  # read-only folder
    assert [p.name for p in path.parent.iterdir()] == ["v0001"]  # no staging leftovers


def test_frozen_tables_hold_only_the_run(tmp_path):
    import pyarrow.parquet as pq

    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    land_rows(layout, "question_evidence", [_evidence("b"), _evidence("c")], "r2", "p0000")
    release.freeze(layout, _manifest(layout, "r2"))
    table = pq.read_table(layout.release_dir("t", "v0001") / "question_evidence.parquet")
    assert table.column("question_id").to_pylist() == ["b", "c"]


def test_leftover_staging_is_ignored_and_cleaned(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    leftover = layout.releases / "t" / ".v0001-killed"
    leftover.mkdir(parents=True)
    (leftover / "questions.parquet").write_text("partial")
    (leftover / "questions.parquet").chmod(0o444)
    leftover.chmod(0o555)
    assert release.existing_versions(layout, "t") == [] and release.next_version(layout, "t") == "v0001"
    release.freeze(layout, _manifest(layout, "r1"))
    assert [p.name for p in (layout.releases / "t").iterdir()] == ["v0001"]
    path = layout.release_dir("t", "v0001")
    croissant = json.loads((path / "croissant.json").read_text())
    assert croissant["@type"] == "sc:Dataset" and croissant["distribution"][0]["sha256"]


def test_dataset_card_loads_with_datasets(tmp_path):
    import datasets
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    release.freeze(layout, _manifest(layout, "r1"))
    path = layout.release_dir("t", "v0001") / "question_evidence.parquet"
    assert len(datasets.load_dataset("parquet", data_files=str(path), split="train")) == 1


def test_an_orphan_version_is_no_release_never_reused_and_removed_by_prune(tmp_path):
    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    release.freeze(layout, _manifest(layout, "r1"))
    orphan = layout.release_dir("t", "v0002")
    orphan.mkdir()
    (orphan / "questions.parquet").write_text("half")
    orphan.chmod(0o555)
    assert release.existing_versions(layout, "t") == ["v0001"]
    assert release.parent_manifest(layout, "t")["version"] == "v0001"
    assert release.orphan_versions(layout) == [orphan] and release.next_version(layout, "t") == "v0003"
    release.freeze(layout, _manifest(layout, "r1"))
    assert release.existing_versions(layout, "t") == ["v0001", "v0003"]
    assert release.remove_orphans(layout) == [orphan] and not orphan.exists()


def test_a_release_without_data_docs_says_so_and_records_every_file(tmp_path):
    from warehouse.integrity import verify_release

    layout = prepare_home(tmp_path)
    land_rows(layout, "question_evidence", [_evidence("a")], "r1", "p0000")
    release.freeze(layout, _manifest(layout, "r1"), docs=tmp_path / "no-docs-here")
    path = layout.release_dir("t", "v0001")
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["data_docs"] is False and "data_docs/index.html" not in manifest["files"]
    assert set(manifest["checksums"]) == {"README.md", "croissant.json", *(f for f in manifest["files"]
                                                                            if f.endswith(".parquet"))}
    card = (path / "README.md").read_text()
    assert "Data Docs were not built" in card and "data_docs/index.html" not in card
    assert verify_release(path).ok


def test_the_card_names_each_stage_that_called_another_provider():
    from warehouse.card import narrators

    base = dict(name="t", version="v0001", run_id="r1", created_at=T0, code_version="v", config={}, config_hash="c",
                package_versions={}, prompt_hashes={}, ledger={}, row_counts={}, table_hashes={}, content_hash="h",
                gates={})
    one = Manifest(**base, provider={"name": "openai", "model": "gpt-4.1-mini"},
                   stage_providers={"loop": {"name": "openai", "model": "gpt-4.1-mini"}})
    assert narrators(one) == "provider `openai`, model `gpt-4.1-mini`"
    mixed = one.model_copy(update={"stage_providers": {"loop": {"name": "openai", "model": "gpt-4.1-mini"},
                                                       "dialogue": {"name": "anthropic", "model": "claude-haiku-4-5"}}})
    assert narrators(mixed).endswith("(per stage: dialogue: `anthropic` `claude-haiku-4-5`)")
