"""Rendering validity measures: the manifest's summary, the dataset card's section (also the Prefect artifact of
a freeze) and the `lifeloom metrics` table, each a column per corpus beside the reference written by a real
model."""

from __future__ import annotations

from typing import Any

from schemas.metrics import BASELINES, DEFAULT_MEASURE_GATES, MeasureBound, MeasureRow, bounds, direction, measure_names
from schemas.qa import ALL_CATEGORIES

_ORDER = {name: i for i, name in enumerate(measure_names())}


def ordered(rows: list[MeasureRow]) -> list[MeasureRow]:
    """Rows in the registry's order (unknown names last, by name)."""
    return sorted(rows, key=lambda r: (_ORDER.get(r.measure, len(_ORDER)), r.measure))


def verdicts(rows: list[MeasureRow]) -> list[str]:
    """The notes that say a baseline solves items far above chance."""
    return [f"{r.measure}: {r.note}" for r in ordered(rows) if "far above chance" in r.note]


def threshold_text(measure: str, threshold: float | MeasureBound | None) -> str:
    if threshold is None:
        return ""
    low, high = bounds(measure, threshold)
    return " ".join(part for part in (f">= {low:g}" if low is not None else "",
                                      f"<= {high:g}" if high is not None else "") if part)


def summary(rows: list[MeasureRow], thresholds: dict[str, Any], reference: dict[str, Any] | None) -> dict[str, Any]:
    """The manifest's `measures`: values, units, notes, thresholds, verdicts and the reference's values."""
    rows = ordered(rows)
    return {
        "values": {r.measure: r.value for r in rows},
        "units": {r.measure: r.n for r in rows},
        "notes": {r.measure: r.note for r in rows if r.note},
        "thresholds": {m: threshold_text(m, t) for m, t in thresholds.items()},
        "verdicts": verdicts(rows),
        "reference": {"name": reference["name"], "values": {r["measure"]: r["value"] for r in reference["rows"]}}
        if reference else None,
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and value.is_integer() and abs(value) >= 10:
        return str(int(value))
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _is_category_row(measure: str) -> bool:
    parts = measure.split(".")
    return parts[0] == "difficulty" and len(parts) == 3 and parts[2] in ALL_CATEGORIES


def table_rows(columns: dict[str, dict[str, float | None]], thresholds: dict[str, str] | None = None,
               categories: bool = True) -> list[list[str]]:
    """[measure, better, one value per column(, threshold when `thresholds` is given)] for every measure any
    column has."""
    names = sorted({m for values in columns.values() for m in values}, key=lambda m: (_ORDER.get(m, 10**6), m))
    out = []
    for m in names:
        if not categories and _is_category_row(m):
            continue
        row = [m, {"higher": "↑", "lower": "↓"}.get(direction(m), "")] + [_fmt(v.get(m)) for v in columns.values()]
        out.append(row + ([thresholds.get(m, "")] if thresholds is not None else []))
    return out


def default_thresholds() -> dict[str, str]:
    """The default `[gates.measures]` thresholds as text (`>= 0.5`)."""
    return {m: threshold_text(m, t) for m, t in DEFAULT_MEASURE_GATES.items()}


def markdown(columns: dict[str, dict[str, float | None]], thresholds: dict[str, str] | None = None,
             categories: bool = True, threshold_label: str = "threshold") -> str:
    """A markdown table: a row per measure, a column per corpus (↑ higher is more natural or harder to game)."""
    head = ["measure", "", *columns] + ([threshold_label] if thresholds is not None else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in table_rows(columns, thresholds, categories)]
    return "\n".join(lines)


def difficulty_matrix(values: dict[str, float | None]) -> str:
    """Baseline accuracy by category (rows) beside chance: the difficulty of one corpus at a glance."""
    cats = [c for c in ALL_CATEGORIES if any(values.get(f"difficulty.{b}.{c}") is not None for b in BASELINES)]
    if not cats:
        return ""
    head = ["category", "chance", *BASELINES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cats:
        lines.append("| " + " | ".join([c] + [_fmt(values.get(f"difficulty.{b}.{c}")) for b in ("chance", *BASELINES)])
                     + " |")
    lines.append("| **all** | " + " | ".join(_fmt(values.get(f"difficulty.{b}")) for b in ("chance", *BASELINES))
                 + " |")
    return "\n".join(lines)


def card_section(measures: dict[str, Any]) -> str:
    """The dataset card's (and the freeze artifact's) validity section, from the manifest's summary."""
    if not measures or not measures.get("values"):
        return ""
    ref = measures.get("reference") or {}
    columns = {"this release": measures["values"]}
    if ref:
        columns[ref["name"]] = ref["values"]
    lines = ["", "## Validity measures", "",
             "How natural the text reads and how much of the benchmark systems without memory solve "
             "(`lifeloom metrics`; tasks/metrics/). ↑: higher is better, ↓: lower is better; the threshold is "
             "the release gate. Per-category baseline scores are in `measures.parquet`.", "",
             markdown(columns, measures.get("thresholds") or {}, categories=False), ""]
    matrix = difficulty_matrix(measures["values"])
    if matrix:
        lines += ["Baseline accuracy by category, beside what a guess scores (chance):", "", matrix, ""]
    found = measures.get("verdicts") or []
    lines += (["**Not measuring memory:**", ""] + [f"- {v}" for v in found] + [""]) if found else []
    return "\n".join(lines) + "\n"
