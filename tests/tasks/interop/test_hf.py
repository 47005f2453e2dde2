"""hf export: a datasets-loadable folder whose Parquet files give back the same rows."""

import re

import pyarrow.parquet as pq

from schemas.tables import to_arrow
from tasks.interop import Bundle
from tasks.interop.hf import dataset_card, export_tables
from tests.tasks.interop_rows import dumps, rhelm_bundle
from warehouse.interop import rows_of


def _tables(bundle: Bundle) -> dict:
    return {t: to_arrow(t, bundle.rows(t), "run-1") for t in Bundle.TABLES}


def test_export_then_read_round_trips_rows(tmp_path):
    bundle = rhelm_bundle()
    back = Bundle()
    for rel, table in export_tables(_tables(bundle)).items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path)
        name = rel.split("/")[1]
        back.rows(name).extend(rows_of(name, pq.read_table(path).to_pylist()))
    for table in Bundle.TABLES:
        assert dumps(back, table) == dumps(bundle, table), table


def test_card_names_a_config_per_table():
    card = dataset_card("demo/v0001", ["questions", "turns"])
    assert card.startswith("---\nconfigs:\n")
    assert re.findall(r"path: (\S+)", card) == ["data/questions/train.parquet", "data/turns/train.parquet"]
    assert "default: true" in card.split("config_name: turns")[0]
    assert "license: mit" in card  # the release card's and Croissant's licence, not 'other'


def test_a_table_of_no_rows_has_no_config_but_is_named():
    """`datasets` fails on a config of zero rows ('BatchSize must be greater than 0'): no config, a note instead."""
    card = dataset_card("demo/v0001", ["impact_constraints", "questions"], {"impact_constraints": 0, "questions": 3})
    assert "config_name: impact_constraints" not in card and "config_name: questions" in card
    assert "`impact_constraints`: one row per" in card and "empty in this release" in card


def test_datasets_loads_the_folder(tmp_path):
    from datasets import load_dataset

    for rel, table in export_tables(_tables(rhelm_bundle())).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, tmp_path / rel)
    (tmp_path / "README.md").write_text(dataset_card("t/v0001", list(Bundle.TABLES)))
    assert load_dataset(str(tmp_path), name="questions", split="train").num_rows == 3
