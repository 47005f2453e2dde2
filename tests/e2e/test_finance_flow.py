"""End to end: the finance pack runs through the same build_corpus flow, gates and freeze as the default
pack (four investors over 400 days from 2022-01-01, offline narrator)."""

import json

import pytest

from flows.build import build_corpus
from schemas.config import config_from_dict
from schemas.qa import FINPERMA_CHARACTERISTICS
from warehouse.catalog import open_catalog
from warehouse.paths import Layout

CONFIG = {
    "name": "fin-e2e", "seed": 7, "personas": 4, "domain": "finance",
    "start_date": "2022-01-01", "days": 400, "prune_interval": 30,
    "pack": {"events_min": 5, "events_max": 6},
    "stages": {"loop": {"plan_probability": 0.08},
               "sources": {"report_period_days": 90, "email_probability": 0.3},
               "questions": {"per_persona": 30, "max_category_share": 0.4, "mcq_share": 0.8,
                             "characteristic_floor": 2, "checkpoint_probes": 2},
               "companion": {"enabled": False}},
    "gates": {"max_category_share": 0.4, "min_questions_per_persona": 10,
              "category_floors": {c: 4 for c in FINPERMA_CHARACTERISTICS},
              "characteristic_floors": {"event_recall": 1, "current_risk_stance": 1},
              "source_type_floors": {"email": 1}, "format_floors": {"txt": 1},
              "dialogue_category_floors": {"information_sharing": 1}},
}


@pytest.fixture(scope="module")
def finance(tmp_path_factory):
    home = tmp_path_factory.mktemp("finhome")
    result = build_corpus(config=config_from_dict(CONFIG), home=str(home))
    return home, result


def test_finance_build_freezes_a_release_with_the_pack_in_its_manifest(finance):
    home, result = finance
    assert result["release"] is not None and result["gates"]["failed"] == 0
    manifest = json.loads((home / "releases" / "fin-e2e" / "v0001" / "manifest.json").read_text())
    assert manifest["domain"]["name"] == "finance"
    assert manifest["row_counts"]["impact_constraints"] >= 4 * 5
    assert "impact_constraints.parquet" in manifest["files"]


def test_finance_tables_attributes_and_categories_land(finance):
    home, result = finance
    con = open_catalog(Layout(home))
    per_persona = dict(con.execute(
        "select persona_id, count(*) from latest.impact_constraints group by 1").fetchall())
    assert sorted(per_persona) == ["p0000", "p0001", "p0002", "p0003"]
    assert all(5 <= n <= 6 for n in per_persona.values())
    types = [t for (t,) in con.execute(
        "select json_extract_string(attributes, '$.bit_type') from latest.personas order by persona_id").fetchall()]
    assert sorted(types) == ["accumulator", "follower", "independent", "preserver"]  # each type >= 20% of 4
    categories = {c for (c,) in con.execute("select distinct category from latest.questions").fetchall()}
    assert categories == set(FINPERMA_CHARACTERISTICS)
    orphans = con.execute("select count(*) from latest.impact_constraints c anti join latest.events e "
                          "using (event_id)").fetchone()[0]
    assert orphans == 0
