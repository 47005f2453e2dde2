"""The bundled finance event catalog: content rules and the loader's error messages."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest

from tasks.domains.finance import catalog as cat
from tasks.domains.finance.catalog import CatalogError

GOOD = {
    "catalog_id": "svb_like", "date": "2023-03-10", "type": "industry", "title": "a bank run",
    "assets": ["banks"], "region": "US", "summary": "A bank failed.",
    "typical_responses": ["moved cash to larger banks", "held and waited"], "severity": 4,
    "shock": {"equity": -0.4, "uncertainty": 0.7}, "source": "FDIC",
}


def _line(**changes: object) -> str:
    """One JSONL line: the good row with `changes` applied."""
    return json.dumps({**GOOD, **changes})


def test_counts_and_unique_ids():
    """At least 90 dated and 20 personal events, every id unique and reachable by event()."""
    market, personal = cat.market_events(), cat.personal_events()
    assert len(market) >= 90 and len(personal) >= 20
    ids = [row.catalog_id for row in market + personal]
    assert len(ids) == len(set(ids)) == len(cat.catalog())
    assert cat.event(ids[0]) == (market + personal)[0]


def test_dated_rows_sorted_inside_window_and_typed():
    """Market events are dated 2020..2026, sorted by date then id, never personal, each with a source."""
    market = cat.market_events()
    assert [(r.date, r.catalog_id) for r in market] == sorted((r.date, r.catalog_id) for r in market)
    assert all(dt.date(2020, 1, 1) <= r.date <= dt.date(2026, 12, 31) for r in market)
    assert {r.type for r in market} == {"macro", "industry"}
    assert all(r.source and r.summary for r in market)


def test_personal_rows_are_undated_templates():
    """Personal templates have no date, type personal and region personal."""
    for row in cat.personal_events():
        assert (row.date, row.type, row.region) == (None, "personal", "personal")


def test_row_rules():
    """Severity 1..5, 2-4 lower-case responses, assets from the vocabulary, shocks in range."""
    for row in cat.catalog().values():
        assert 1 <= row.severity <= 5
        assert 2 <= len(row.typical_responses) <= 4
        assert all(resp[0].islower() for resp in row.typical_responses), row.catalog_id
        assert set(row.assets) <= set(cat.ASSETS)
        assert 0 <= row.shock.uncertainty <= 1


def test_every_year_has_events_and_regions_vary():
    """Each year 2020..2025 has at least 8 events; US, Europe, UK, China, Japan and global all occur."""
    years = Counter(row.date.year for row in cat.market_events())
    assert all(years[year] >= 8 for year in range(2020, 2026)), years
    assert {"US", "Europe", "UK", "China", "Japan", "global"} <= {r.region for r in cat.market_events()}


def test_named_anchors():
    """The COVID crash, SVB, four or more 2022 Fed hikes and key personal events are present and signed."""
    crash = cat.event("covid_circuit_breaker_2020_03_16")
    assert crash.date == dt.date(2020, 3, 16) and crash.severity == 5 and crash.shock.equity < -0.5
    svb = cat.event("svb_collapse_2023_03_10")
    assert svb.date == dt.date(2023, 3, 10) and svb.shock.equity < 0 < svb.shock.uncertainty
    hikes = [r for r in cat.market_events() if r.catalog_id.startswith("fed_hike_2022")]
    assert len(hikes) >= 4 and all(r.shock.rates > 0 and r.shock.equity < 0 for r in hikes)
    assert cat.event("job_loss").shock.income < 0 < cat.event("inheritance").shock.wealth
    assert cat.event("ftx_collapse_2022_11_11").severity == 5


def test_events_between_is_inclusive():
    """events_between keeps dated events on both window edges and nothing outside."""
    rows = cat.events_between(dt.date(2020, 3, 9), dt.date(2020, 3, 16))
    ids = [r.catalog_id for r in rows]
    assert ids[0] == "covid_circuit_breaker_2020_03_09" and ids[-1] == "covid_circuit_breaker_2020_03_16"
    assert all(dt.date(2020, 3, 9) <= r.date <= dt.date(2020, 3, 16) for r in rows)
    assert cat.events_between(dt.date(2019, 1, 1), dt.date(2019, 12, 31)) == []


def test_unknown_id_raises():
    """An unknown catalog id raises CatalogError naming it."""
    with pytest.raises(CatalogError, match="no_such_event"):
        cat.event("no_such_event")


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (_line(severity=7), "severity"),
        (_line(assets=["spaceships"]), "assets"),
        (_line(typical_responses=["only one"]), "typical_responses"),
        (_line(shock={"equity": -2}), "shock.equity"),
        (_line(date="2023-13-40"), "date"),
    ],
)
def test_malformed_line_names_file_line_and_field(bad: str, field: str):
    """A bad row raises CatalogError naming the file, its line number and the field."""
    text = _line() + "\n\n" + bad + "\n"
    with pytest.raises(CatalogError) as info:
        cat.parse_rows(text, "events.jsonl")
    assert "events.jsonl line 3" in str(info.value) and repr(field) in str(info.value)


def test_invalid_json_names_line():
    """A line that is not JSON raises CatalogError naming the line."""
    with pytest.raises(CatalogError, match="x.jsonl line 2: not valid JSON"):
        cat.parse_rows(_line() + "\n{oops\n", "x.jsonl")
