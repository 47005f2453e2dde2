"""File I/O for imports and exports (tasks/interop holds the pure converters).

`export_release` reads a frozen release's Parquet files into rows and writes them in another format;
`import_benchmark` reads a benchmark from disk, lands its rows as a new run (Parquet partitions, a `runs`
row, the catalog refreshed) and keeps what could not be mapped as `verifier_findings` (stage `import`)
and as `<home>/imports/<run_id>.json`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from schemas.audit import Finding
from schemas.release import RunRecord
from schemas.tables import TABLES, is_json_column
from tasks.interop import EXPORT_FORMATS, IMPORT_FORMATS, Bundle, Report
from tasks.interop import documents_as_sessions as as_sessions
from warehouse.catalog import refresh_catalog
from warehouse.parquet import land_rows
from warehouse.paths import Layout
from warehouse.runs import new_run_id, record_run


class InteropError(ValueError):
    """A user error: unknown format, missing or unreadable input, unknown release, existing output."""


@dataclass
class ImportResult:
    run_id: str
    counts: dict[str, int]
    report: Report


# --- reading a release -------------------------------------------------------------------------------------

def release_dir(layout: Layout, release: str, verify: bool = True) -> Path:
    """The release folder of NAME/VERSION, checked against its manifest's checksums (warehouse/integrity.py)."""
    from warehouse.diff import resolve_release

    name, _, version = release.partition("/")
    folder = layout.release_dir(name, version) if version else Path(release)
    if not name or not version or not (folder / "manifest.json").is_file():
        raise InteropError(f"no release {release!r} under {layout.releases} (give NAME/VERSION)")
    try:
        return resolve_release(layout, release, verify)
    except ValueError as exc:
        raise InteropError(str(exc)) from None


def rows_of(table: str, records: list[dict[str, Any]]) -> list:
    """Pydantic rows of `table` from Parquet records (JSON columns parsed, run_id dropped)."""
    model = TABLES[table].model
    out = []
    for rec in records:
        data = {k: v for k, v in rec.items() if k in model.model_fields}
        for col in data:
            if is_json_column(model, col) and isinstance(data[col], str):
                data[col] = json.loads(data[col])
        out.append(model.model_validate(data))
    return out


def load_release(folder: Path) -> Bundle:
    bundle = Bundle()
    for table in Bundle.TABLES:
        path = folder / f"{table}.parquet"
        records = pq.read_table(path).to_pylist() if path.is_file() else []
        bundle.rows(table).extend(rows_of(table, records))
    return bundle


# --- export ------------------------------------------------------------------------------------------------

def export_release(layout: Layout, release: str, fmt: str, out: Path, verify: bool = True,
                   documents_as_sessions: bool = False, dated_attachments: bool = False,
                   tier: str | None = None) -> tuple[list[Path], Report]:
    """Write release `release` (NAME/VERSION) in `fmt` under `out`; returns the files written and the report.
    The release is verified first (SHA-256 unless `verify` is False; sizes always). `documents_as_sessions`
    (LoCoMo and LongMemEval, which hold conversations only) writes each document as a session of its chunks.
    `tier` writes the release at that length tier (tasks/tiers/view.py): each persona's tier history (haystack as
    sessions of the persona) and the tier's questions, with the answers a cut re-derived."""
    if fmt not in EXPORT_FORMATS + ("companion",):
        raise InteropError(f"unknown export format {fmt!r}; use {', '.join(EXPORT_FORMATS + ('companion',))}")
    if documents_as_sessions and fmt not in ("locomo", "longmemeval"):
        raise InteropError(f"--documents-as-sessions is for locomo and longmemeval; {fmt} holds documents as they are")
    if dated_attachments and fmt != "rhelm":
        raise InteropError(f"--dated-attachments is for rhelm; {fmt} has no attachments dated by email files")
    folder = release_dir(layout, release, verify)
    if out.exists() and any(out.iterdir()):
        raise InteropError(f"output folder {out} is not empty")
    if fmt == "companion":
        if tier is not None:
            raise InteropError("--tier is for the question formats (hf, rhelm, locomo, longmemeval); the companion "
                               "tracks have no tiers")
        return _export_companion(folder, release, out), Report()
    if tier is not None:
        (bundle, own), report = tier_view(folder, tier), Report()
        if fmt == "hf":
            return _export_hf_tier(bundle, own, release, tier, out), report
        if documents_as_sessions:
            bundle = as_sessions(bundle, report)
        converted, found = _exporter(fmt, dated_attachments)(bundle)
        report.issues += found.issues
        return [_write(out / rel, text) for rel, text in sorted(converted.items())], report
    if fmt == "hf":
        from tasks.interop.hf import dataset_card, export_tables, tier_table

        tables = {t: pq.read_table(folder / f"{t}.parquet") for t in _release_tables(folder)}
        files = _write_tables(out, export_tables(tables))
        views = list(_tier_views(folder))  # every tier of the release, smallest first (none without tiers)
        tiers = [t for t, _, _ in views]
        files += _write_tables(out, {f"data/tier-{t}/train.parquet": tier_table(view, t, own)
                                     for t, view, own in views})
        files.append(_write(out / "README.md", dataset_card(release, sorted(tables),
                                                            {t: v.num_rows for t, v in tables.items()}, tiers)))
        return files, Report()
    bundle, report = load_release(folder), Report()
    if documents_as_sessions:
        bundle = as_sessions(bundle, report)
    converted, found = _exporter(fmt, dated_attachments)(bundle)
    report.issues += found.issues
    return [_write(out / rel, text) for rel, text in sorted(converted.items())], report


def _tier_views(folder: Path, tiers: list[str] | None = None):
    """(tier, the release at that tier, the ids of its own items) for each of `tiers` (default: every tier the
    release has, smallest first), the release read once; InteropError for a tier the release does not have."""
    from tasks.tiers.view import apply_tier, tier_names

    rows = {t: rows_of(t, pq.read_table(folder / f"{t}.parquet").to_pylist()) if (folder / f"{t}.parquet").is_file()
            else [] for t in ("tier_history", "tier_questions", "tier_chats")}
    tiers = tier_names(rows["tier_history"]) if tiers is None else tiers
    if not tiers:
        return
    whole = load_release(folder)
    for tier in tiers:
        try:
            view = apply_tier(whole, tier, rows["tier_history"], rows["tier_questions"], rows["tier_chats"])
        except ValueError as exc:
            raise InteropError(str(exc)) from None
        yield tier, view, {h.item_id for h in rows["tier_history"] if h.tier == tier and h.source == "own"}


def tier_view(folder: Path, tier: str) -> tuple[Bundle, set[str]]:
    """The release in `folder` at length tier `tier` and the ids of its own items (InteropError for a name that is
    not a size or a tier the release does not have)."""
    from schemas.tiers import TierError, tier_budget, tier_name

    try:
        tier = tier_name(tier_budget(tier))
    except TierError as exc:
        raise InteropError(str(exc)) from None
    ((_, view, own),) = _tier_views(folder, [tier])
    return view, own


def _export_hf_tier(bundle: Bundle, own: set[str], release: str, tier: str, out: Path) -> list[Path]:
    """The tier's rows as a Hugging Face folder: one config per table of the tier's view, and the tier's own config
    (a row per persona, as the whole release's export writes it)."""
    from schemas.tables import to_arrow
    from tasks.interop.hf import dataset_card, export_tables, tier_table

    tables = {t: to_arrow(t, bundle.rows(t), "") for t in Bundle.TABLES}
    files = _write_tables(out, export_tables(tables))
    files += _write_tables(out, {f"data/tier-{tier}/train.parquet": tier_table(bundle, tier, own)})
    files.append(_write(out / "README.md", dataset_card(f"{release} at tier {tier}", sorted(tables),
                                                        {t: v.num_rows for t, v in tables.items()}, [tier])))
    return files


def _export_companion(folder: Path, release: str, out: Path) -> list[Path]:
    """Per persona profile.json, portrait.md and chat_probes.jsonl (tasks/interop/companion.py)."""
    from tasks.interop.companion import export_companion

    if not (folder / "chat_probes.parquet").is_file():
        raise InteropError(f"release {release!r} has no companion tracks (chat_probes.parquet)")
    rows = {t: rows_of(t, pq.read_table(folder / f"{t}.parquet").to_pylist())
            for t in ("chat_probes", "profile_claims", "persona_portraits", "turns")}
    converted = export_companion(rows["chat_probes"], rows["profile_claims"], rows["persona_portraits"], rows["turns"])
    return [_write(out / rel, text) for rel, text in sorted(converted.items())]


def _release_tables(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.parquet"))


def _exporter(fmt: str, dated_attachments: bool = False):
    if fmt == "rhelm":
        from tasks.interop.rhelm_export import export_rhelm

        return lambda b: export_rhelm(b, dated_attachments)
    if fmt == "locomo":
        from tasks.interop.locomo import export_locomo

        return lambda b: _as_json(export_locomo(b), "locomo10.json")
    from tasks.interop.longmemeval import export_longmemeval

    return lambda b: _as_json(export_longmemeval(b), "longmemeval.json")


def _as_json(result: tuple[Any, Report], name: str) -> tuple[dict[str, str], Report]:
    data, report = result
    return {name: json.dumps(data, indent=2, ensure_ascii=False)}, report


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _write_tables(out: Path, tables: dict[str, Any]) -> list[Path]:
    written = []
    for rel, table in sorted(tables.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, compression="zstd")
        written.append(path)
    return written


# --- import ------------------------------------------------------------------------------------------------

def read_benchmark(fmt: str, path: Path) -> tuple[Bundle, Report]:
    """Rows and report of the benchmark at `path` in `fmt`."""
    if fmt not in IMPORT_FORMATS:
        raise InteropError(f"unknown import format {fmt!r}; use {', '.join(IMPORT_FORMATS)}")
    if not path.exists():
        raise InteropError(f"{path} does not exist")
    if fmt == "rhelm":
        from tasks.interop.rhelm import import_rhelm

        return import_rhelm(read_rhelm_tree(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InteropError(f"{path} is not a readable JSON file: {exc}") from None
    if fmt == "locomo":
        from tasks.interop.locomo import import_locomo

        return import_locomo(data)
    from tasks.interop.longmemeval import import_longmemeval

    return import_longmemeval(data)


def read_rhelm_tree(path: Path) -> dict[str, Any]:
    """A RHELM release folder (or its `data/` folder) as the tree tasks/interop/rhelm.py reads."""
    root = path / "data" if (path / "data" / "conversations").is_dir() else path
    if not path.is_dir() or not any((root / d).is_dir() for d in ("conversations", "QA_final")):
        raise InteropError(f"{path} is not a RHELM release folder (no conversations/ or QA_final/)")
    tree: dict[str, Any] = {"conversations": {}, "emails": {}, "attachments": {}, "qa": {}}
    for part in ("conversations", "emails", "attachments"):
        for persona in sorted(p for p in (root / part).glob("*") if p.is_dir()):
            files = tree[part].setdefault(persona.name, {})
            for f in sorted(persona.iterdir()):
                text = f.read_text(encoding="utf-8")
                if part == "conversations":
                    try:
                        files[f.name] = json.loads(text)
                    except ValueError:
                        files[f.name] = None  # reported by the converter as a malformed file
                else:
                    files[f.name] = text
    for f in sorted((root / "QA_final").rglob("*.jsonl")):
        tree["qa"][str(f.relative_to(root / "QA_final"))] = f.read_text(encoding="utf-8").splitlines()
    sidecar = root / "lifeloom.json"  # our export's persona ids and attachment dates (tasks/interop/rhelm_export.py)
    if sidecar.is_file():
        try:
            tree["lifeloom"] = json.loads(sidecar.read_text(encoding="utf-8"))
        except ValueError:
            raise InteropError(f"{sidecar} is not valid JSON") from None
    return tree


def import_benchmark(layout: Layout, fmt: str, path: Path, name: str, as_latest: bool = False) -> ImportResult:
    """Import the benchmark at `path` and land it as a new run named `name`; it becomes `latest` only when
    `as_latest` (else `latest` stays the newest build)."""
    bundle, report = read_benchmark(fmt, path)
    if not bundle.personas:
        raise InteropError(f"nothing to import from {path}: no personas found")
    started = dt.datetime.now(dt.UTC)
    run_id = new_run_id(name, started)
    counts = land_bundle(layout, bundle, report, run_id)
    digest = hashlib.sha256(json.dumps(counts, sort_keys=True).encode()).hexdigest()[:16]
    message = f"imported {fmt} from {path}; {len(report.issues)} mapping issue(s): {report.by_kind()}"
    record_run(layout, RunRecord(run_id=run_id, name=name, config_hash=f"import-{fmt}-{digest}",
                                 code_version="import", started_at=started, finished_at=dt.datetime.now(dt.UTC),
                                 status="succeeded", message=message, kind="import", as_latest=as_latest))
    refresh_catalog(layout)
    target = layout.home / "imports" / f"{run_id}.json"
    _write(target, json.dumps({"run_id": run_id, "format": fmt, "path": str(path), "counts": counts,
                               "issues": [i.__dict__ for i in report.issues]}, indent=2))
    return ImportResult(run_id, counts, report)


def land_bundle(layout: Layout, bundle: Bundle, report: Report, run_id: str) -> dict[str, int]:
    """Land every table of `bundle` per persona, plus the report as `verifier_findings` (with the first
    persona: the findings of an import are about the whole benchmark)."""
    owners = {q.question_id: q.persona_id for q in bundle.questions}
    first = bundle.persona_ids()[0]
    findings = [
        Finding(finding_id=f"import-{n:05d}", persona_id=first, stage="import", artifact_id=i.ref, check=i.kind,
                severity=i.severity, message=i.message)
        for n, i in enumerate(report.issues, 1)
    ]
    counts: dict[str, int] = {}
    for table in (*Bundle.TABLES, "verifier_findings"):
        rows = findings if table == "verifier_findings" else bundle.rows(table)
        counts[table] = len(rows)
        by_persona: dict[str, list] = {pid: [] for pid in bundle.persona_ids()}
        for row in rows:
            if table == "verifier_findings":
                pid = first
            elif table == "question_evidence":
                pid = owners.get(row.question_id, first)
            else:
                pid = row.persona_id
            by_persona.setdefault(pid, []).append(row)
        for pid, mine in by_persona.items():
            land_rows(layout, table, mine, run_id, pid)
    return counts


def gate_summary(layout: Layout, run_id: str) -> tuple[Any, list[str], list[str]]:
    """Run every gate suite on an imported run and land the results in `gate_results`, as a build's are (so the
    failed-gate queries of deploy/README.md find them): (report, passed names, failed names)."""
    from validation.gates import run_gates
    from warehouse.catalog import session

    con = session(layout, run_id)
    try:
        report = run_gates(con, run_id)
    finally:
        con.close()
    land_rows(layout, "gate_results", report.results, run_id)
    refresh_catalog(layout)
    passed = [f"{r.suite}: {r.expectation}" for r in report.results if r.success]
    failed = [f"{r.suite}: {r.expectation}" for r in report.failed()]
    return report, passed, failed
