"""What the release viewer shows, read from a frozen release's Parquet files (one persona at a time for the large
tables, so a rhelm release of 54,000 turns is never held whole)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb


@dataclass
class Release:
    """A frozen release folder, its manifest and a DuckDB connection with a view per table it holds."""

    folder: Path
    manifest: dict[str, Any]
    con: duckdb.DuckDBPyConnection
    tables: set[str] = field(default_factory=set)

    @classmethod
    def open(cls, folder: Path) -> Release:
        manifest = json.loads((folder / "manifest.json").read_text())
        con = duckdb.connect()
        tables = set()
        for path in sorted(folder.glob("*.parquet")):
            quoted = str(path).replace("'", "''")
            con.execute(f'create view "{path.stem}" as select * from read_parquet(\'{quoted}\')')
            tables.add(path.stem)
        return cls(folder, manifest, con, tables)

    @property
    def name(self) -> str:
        return f"{self.manifest['name']}/{self.manifest['version']}"

    def rows(self, table: str, where: str = "", params: list | None = None, order: str = "") -> list[dict]:
        """Every row of `table` (none when the release lacks it) as dicts, JSON columns parsed."""
        if table not in self.tables:
            return []
        sql = f'select * exclude (run_id) from "{table}"' + (f" where {where}" if where else "") + (
            f" order by {order}" if order else "")
        table_rows = self.con.sql(sql, params=params or []).to_arrow_table()
        parsed = [c for c in table_rows.column_names if c in JSON_COLUMNS]
        out = table_rows.to_pylist()
        for row in out if parsed else ():
            for column in parsed:
                row[column] = _parsed(column, row[column])
        return out

    def personas(self) -> list[dict]:
        return self.rows("personas", order="persona_id")

    def persona_rows(self, table: str, persona_id: str, order: str) -> list[dict]:
        return self.rows(table, "persona_id = ?", [persona_id], order)

    def close(self) -> None:
        self.con.close()


JSON_COLUMNS = {"profile", "derivation", "time_refs", "tables", "old_value", "new_value", "attributes", "sample",
                "detail", "realized", "options_meta"}


def _parsed(column: str, value: Any) -> Any:
    if column in JSON_COLUMNS and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def months_of(turns: list[dict]) -> list[str]:
    """The months (`YYYY-MM`) the turns fall in, in order."""
    return sorted({t["timestamp"].strftime("%Y-%m") for t in turns})


def by_month(rows: list[dict], key: str) -> Iterator[tuple[str, list[dict]]]:
    """The rows grouped by the month of their `key` timestamp, months in order."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row[key].strftime("%Y-%m"), []).append(row)
    yield from sorted(groups.items())
