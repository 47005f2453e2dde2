"""The bundled finance event catalog: dated market, macro and industry events (2020 to mid-2025) and
undated personal event templates, each a `schemas.finance.CatalogEvent`.

The rows live in tasks/domains/finance/data/events.jsonl (dated) and personal.jsonl (date null, dated
per persona by the pack); both are loaded once from the package data. A row that does not validate
raises `CatalogError` naming the file, the line and the field.
"""

from __future__ import annotations

import datetime as dt
import functools
from importlib import resources

from pydantic import ValidationError

from schemas.finance import CatalogEvent
from tasks.common.jsonl import JSONLError, iter_jsonl

DATA_PACKAGE = "tasks.domains.finance"
MARKET_FILE = "events.jsonl"
PERSONAL_FILE = "personal.jsonl"
ASSETS = (
    "equities", "bonds", "cash", "crypto", "gold", "commodities", "energy", "currencies", "housing",
    "real_estate", "banks", "tech", "autos", "retail", "pharma", "travel", "insurance", "income",
    "savings", "pensions", "debt",
)
"""The fixed vocabulary of `CatalogEvent.assets` (asset classes, industries and personal domains)."""


class CatalogError(ValueError):
    """A catalog row that cannot be read; the message names the file, the line and the field."""


def parse_rows(text: str, name: str) -> list[CatalogEvent]:
    """Parse JSON-lines text into catalog events; raise CatalogError naming `name`, the line and the field."""
    rows: list[CatalogEvent] = []
    try:
        for number, data in iter_jsonl(text):
            if not isinstance(data, dict):
                raise CatalogError(f"{name} line {number}: expected a JSON object")
            try:
                row = CatalogEvent.model_validate(data)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(part) for part in err["loc"]) or "row"
                raise CatalogError(f"{name} line {number}: field {field!r}: {err['msg']}") from None
            problem = _row_problem(row)
            if problem:
                raise CatalogError(f"{name} line {number}: field {problem[0]!r}: {problem[1]}")
            rows.append(row)
    except JSONLError as exc:
        raise CatalogError(f"{name} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    return rows


def _row_problem(row: CatalogEvent) -> tuple[str, str] | None:
    """The (field, message) of the first catalog rule a schema-valid row breaks, or None."""
    unknown = [asset for asset in row.assets if asset not in ASSETS]
    if not row.assets or unknown:
        return "assets", f"unknown or missing assets {unknown}; use {', '.join(ASSETS)}"
    if not 2 <= len(row.typical_responses) <= 4:
        return "typical_responses", "needs 2 to 4 short phrases"
    if row.type == "personal" and row.region != "personal":
        return "region", "a personal event's region is 'personal'"
    return None


def _load(name: str) -> list[CatalogEvent]:
    """Read and parse one bundled data file."""
    text = resources.files(DATA_PACKAGE).joinpath("data", name).read_text(encoding="utf-8")
    return parse_rows(text, name)


def _check_market(rows: list[CatalogEvent]) -> None:
    """Dated rows must carry a date and not be personal."""
    for row in rows:
        if row.date is None or row.type == "personal":
            raise CatalogError(f"{MARKET_FILE} {row.catalog_id}: field 'date': market events are dated, not personal")


def _check_personal(rows: list[CatalogEvent]) -> None:
    """Personal templates must be undated and of type personal."""
    for row in rows:
        if row.date is not None or row.type != "personal":
            raise CatalogError(f"{PERSONAL_FILE} {row.catalog_id}: field 'date': personal events are undated")


@functools.cache
def _market() -> tuple[CatalogEvent, ...]:
    """The dated events, sorted by date then id (loaded once)."""
    rows = _load(MARKET_FILE)
    _check_market(rows)
    return tuple(sorted(rows, key=lambda row: (row.date, row.catalog_id)))


@functools.cache
def _personal() -> tuple[CatalogEvent, ...]:
    """The personal templates, sorted by id (loaded once)."""
    rows = _load(PERSONAL_FILE)
    _check_personal(rows)
    return tuple(sorted(rows, key=lambda row: row.catalog_id))


def market_events() -> list[CatalogEvent]:
    """The dated market, macro and industry events, sorted by date then catalog_id."""
    return list(_market())


def personal_events() -> list[CatalogEvent]:
    """The undated personal event templates (job loss, inheritance, ...), sorted by catalog_id."""
    return list(_personal())


@functools.cache
def _by_id() -> dict[str, CatalogEvent]:
    """Every event by catalog_id; a duplicated id raises CatalogError."""
    out: dict[str, CatalogEvent] = {}
    for row in (*_market(), *_personal()):
        if row.catalog_id in out:
            raise CatalogError(f"catalog: field 'catalog_id': duplicate id {row.catalog_id!r}")
        out[row.catalog_id] = row
    return out


def catalog() -> dict[str, CatalogEvent]:
    """Every catalog event (dated first, then personal) by catalog_id."""
    return dict(_by_id())


def event(catalog_id: str) -> CatalogEvent:
    """One catalog event by id; an unknown id raises CatalogError."""
    try:
        return _by_id()[catalog_id]
    except KeyError:
        raise CatalogError(f"unknown catalog event {catalog_id!r}") from None


def events_between(start: dt.date, end: dt.date) -> list[CatalogEvent]:
    """The dated events with start <= date <= end, in date order."""
    return [row for row in _market() if start <= row.date <= end]  # type: ignore[operator]
