"""Listing frozen releases and comparing two of them."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.integrity import check_release, verify_release
from warehouse.paths import Layout


def list_releases(layout: Layout, verify: str = "hash") -> list[dict]:
    """Every complete release under the data root (staging and orphan folders skipped): name, version, created,
    content hash, question count, path and `status` ("ok", "unverified" for a release frozen before checksums,
    or the first problem `verify_release` found), ordered by name and version. `verify`: hash, size or none."""
    root = layout.releases
    found = sorted(p for p in root.glob("*/v*") if (p / "manifest.json").is_file()) if root.is_dir() else []
    out = []
    for path in found:
        try:
            m = json.loads((path / "manifest.json").read_text())
            row = {"name": m["name"], "version": m["version"], "created_at": m["created_at"],
                   "content_hash": m["content_hash"], "questions": m["row_counts"].get("questions", 0),
                   "withdrawn": m.get("withdrawals", {}).get("total", 0), "path": str(path)}
        except (ValueError, KeyError, TypeError) as exc:
            row = {"name": path.parent.name, "version": path.name, "created_at": "", "content_hash": "",
                   "questions": 0, "withdrawn": 0, "path": str(path), "status": f"manifest.json unreadable ({exc})"}
            out.append(row)
            continue
        row["status"] = _status(path, verify)
        out.append(row)
    return out


def _status(path: Path, verify: str) -> str:
    if verify == "none":
        return "not checked"
    checked = verify_release(path, hashes=verify == "hash")
    if checked.problems:
        return "DAMAGED: " + checked.problems[0] + (f" (+{len(checked.problems) - 1})" if len(checked.problems) > 1
                                                    else "")
    return "ok" if checked.recorded else "unverified (no checksums)"


def find_release(layout: Layout, ref: str) -> Path:
    """The release folder `ref` names (`name/version` under the data root, or a path), unchecked; ValueError
    when there is none."""
    for candidate in (layout.releases / ref, Path(ref).expanduser()):
        if (candidate / "manifest.json").is_file():
            return candidate.absolute()
    raise ValueError(f"no release {ref!r} (give name/version under {layout.releases}, or a release folder)")


def resolve_release(layout: Layout, ref: str, verify: bool = True) -> Path:
    """The release folder `ref` names (`find_release`), checked against its manifest's checksums first (sizes
    always, SHA-256 unless `verify` is False); ReleaseDamaged (a ValueError) naming the file when it does not
    match. A release frozen before checksums were recorded is read with a warning on stderr."""
    folder = find_release(layout, ref)
    if not check_release(folder, ref, hashes=verify).recorded:
        print(f"warning: release {ref} records no checksums (frozen before lifeloom verified releases); "
              "it cannot be checked", file=sys.stderr)
    return folder


@dataclass
class ReleaseDiff:
    """What changed from release `a` to release `b`."""

    a: str
    b: str
    row_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed_answers: list[tuple[str, str, str]] = field(default_factory=list)
    same_content: bool = False


def diff_releases(a: Path, b: Path) -> ReleaseDiff:
    """Row counts per table, added and removed question ids and changed answers between two releases."""
    ma, mb = (json.loads((p / "manifest.json").read_text()) for p in (a, b))
    tables = sorted(set(ma["row_counts"]) | set(mb["row_counts"]))
    diff = ReleaseDiff(str(a), str(b), same_content=ma["content_hash"] == mb["content_hash"])
    diff.row_counts = {t: (ma["row_counts"].get(t, 0), mb["row_counts"].get(t, 0)) for t in tables}
    con = duckdb.connect()
    try:
        con.execute(f"create view qa as select question_id, answer from read_parquet('{a / 'questions.parquet'}')")
        con.execute(f"create view qb as select question_id, answer from read_parquet('{b / 'questions.parquet'}')")
        diff.added = [r for (r,) in con.execute(
            "select question_id from qb except select question_id from qa order by 1").fetchall()]
        diff.removed = [r for (r,) in con.execute(
            "select question_id from qa except select question_id from qb order by 1").fetchall()]
        diff.changed_answers = con.execute(
            "select qa.question_id, qa.answer, qb.answer from qa join qb using (question_id) "
            "where qa.answer is distinct from qb.answer order by 1").fetchall()
    finally:
        con.close()
    return diff
