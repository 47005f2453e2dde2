"""The `profile_update_stats` view: updates per day per top-level profile dimension and per persona."""

import datetime as dt

import pytest

from schemas.release import RunRecord
from schemas.world import ProfileOp
from warehouse.catalog import open_catalog, refresh_catalog, session
from warehouse.parquet import land_rows
from warehouse.paths import prepare_home
from warehouse.runs import record_run


def _op(n: int, day: int, path: str, pid: str = "p0000") -> ProfileOp:
    return ProfileOp(op_id=f"{pid}-o{n:04d}", persona_id=pid, date=dt.date(2024, 1, day), event_id=f"{pid}-e0001",
                     phase="state", op="modify", path=path, old_value="a", new_value="b")


@pytest.fixture
def layout(tmp_path):
    layout = prepare_home(tmp_path)
    ops = [_op(1, 1, "belongings[kind=pet]"), _op(2, 1, "belongings[kind=home]"), _op(3, 3, "current_status.mood")]
    land_rows(layout, "profile_ops", ops, "r1", "p0000")
    land_rows(layout, "profile_ops", [_op(1, 2, "traits.hobbies", "p0001")], "r1", "p0001")
    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    record_run(layout, RunRecord(run_id="r1", name="t", config_hash="c", code_version="v", started_at=t0,
                                 finished_at=t0, status="succeeded"))
    return layout


def test_stats_per_persona_and_dimension_count_quiet_days_as_zero(layout):
    con = session(layout)
    rows = con.execute(
        "select dimension, days, updates, mean_per_day, min_per_day, max_per_day from profile_update_stats "
        "where persona_id = 'p0000' order by dimension"
    ).fetchall()
    stats = {r[0]: r[1:] for r in rows}
    assert set(stats) == {"identity", "personality", "traits", "relationships", "belongings", "current_status"}
    assert stats["belongings"] == (3, 2, pytest.approx(2 / 3), 0, 2)
    assert stats["current_status"][:2] == (3, 1) and stats["identity"][1] == 0
    sd = con.execute("select sd_per_day from profile_update_stats where persona_id = 'p0000' "
                     "and dimension = 'belongings'").fetchone()[0]
    assert sd == pytest.approx(1.1547, abs=1e-3)


def test_all_personas_row_and_latest_schema(layout):
    refresh_catalog(layout)
    con = open_catalog(layout)
    total = con.execute("select updates from latest.profile_update_stats where persona_id is null "
                        "and dimension = 'traits'").fetchone()
    assert total == (1,)
    assert con.execute("select count(distinct persona_id) from main.profile_update_stats").fetchone() == (2,)
