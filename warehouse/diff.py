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
    """What changed from release `a` to release `b`, questions compared by content (`diff_releases`)."""

    a: str
    b: str
    row_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    changed_tables: list[str] = field(default_factory=list)
    same_content: bool = False
    unchanged: int = 0
    reworded: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(id in A, id in B, text in A, text in B): the same question asked in other words."""
    reanswered: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    """(id in A, id in B, question in B, answer in A, answer in B)."""
    added: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    reused_ids: int = 0
    """Ids both releases hold for different questions (never reported as changed answers)."""


def diff_releases(a: Path, b: Path) -> ReleaseDiff:
    """Row counts and content hashes per table, and the questions compared by content: a question of B is the same
    as one of A when they rest on the same derivation (persona, template, the content of the facts they cite and the
    day they are asked) or, failing that, ask the same template text of the same persona; such a pair is reworded
    when its text differs and re-answered when its answer does. Ids are only labels: two releases built from
    other seeds hold the same ids for different questions."""
    ma, mb = (json.loads((p / "manifest.json").read_text()) for p in (a, b))
    tables = sorted(set(ma["row_counts"]) | set(mb["row_counts"]))
    diff = ReleaseDiff(str(a), str(b), same_content=ma["content_hash"] == mb["content_hash"])
    diff.row_counts = {t: (ma["row_counts"].get(t, 0), mb["row_counts"].get(t, 0)) for t in tables}
    ha, hb = ma.get("table_hashes", {}), mb.get("table_hashes", {})
    diff.changed_tables = [t for t in tables if ha.get(t) != hb.get(t)]
    qa, qb = _questions(a), _questions(b)
    pairs = _pair(qa, qb)
    paired_a, paired_b = {x["question_id"] for x, _ in pairs}, {y["question_id"] for _, y in pairs}
    for x, y in pairs:
        same_text, same_answer = x["question"] == y["question"], _norm(x["answer"]) == _norm(y["answer"])
        if not same_text:
            diff.reworded.append((x["question_id"], y["question_id"], x["question"], y["question"]))
        if not same_answer:
            diff.reanswered.append((x["question_id"], y["question_id"], y["question"], x["answer"], y["answer"]))
        diff.unchanged += same_text and same_answer
    diff.added = [(q["question_id"], q["question"]) for q in qb if q["question_id"] not in paired_b]
    diff.removed = [(q["question_id"], q["question"]) for q in qa if q["question_id"] not in paired_a]
    by_id = {q["question_id"]: q for q in qa}
    matched = {x["question_id"]: y["question_id"] for x, y in pairs}
    diff.reused_ids = sum(1 for q in qb if q["question_id"] in by_id and matched.get(q["question_id"]) !=
                          q["question_id"])
    return diff


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def _questions(folder: Path) -> list[dict]:
    """The release's questions, each with its derivation key and template text (facts by content, not id)."""
    con = duckdb.connect()
    try:
        qs = con.execute(f"select question_id, persona_id, question, answer, question_time, derivation from "
                         f"read_parquet('{_sql_path(folder / 'questions.parquet')}') order by question_id").fetchall()
        facts_file = folder / "facts.parquet"
        facts = {fid: (subject, attribute, value, str(start)) for fid, subject, attribute, value, start in (
            con.execute(f"select fact_id, subject, attribute, value, valid_from from read_parquet("
                        f"'{_sql_path(facts_file)}')").fetchall() if facts_file.is_file() else [])}
    finally:
        con.close()
    out = []
    for qid, pid, question, answer, asked, derivation in qs:
        d = json.loads(derivation) if isinstance(derivation, str) else (derivation or {})
        d = d if isinstance(d, dict) else {}
        cited = tuple(sorted(facts.get(f, (f,)) for f in d.get("fact_ids") or []))
        out.append({"question_id": qid, "question": question, "answer": answer,
                    "key": (pid, d.get("template", ""), cited, str(asked)[:10]) if d.get("template") else None,
                    "text": (pid, _norm(d.get("template_question") or question))})
    return out


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def _pair(qa: list[dict], qb: list[dict]) -> list[tuple[dict, dict]]:
    """Questions of A and B that are the same question: by derivation key first, then by template text; each
    question in at most one pair, in id order."""
    pairs: list[tuple[dict, dict]] = []
    left_a, left_b = list(qa), list(qb)
    for field_ in ("key", "text"):
        index: dict = {}
        for q in left_a:
            if q[field_] is not None:
                index.setdefault(q[field_], []).append(q)
        rest = []
        for q in left_b:
            found = index.get(q[field_]) if q[field_] is not None else None
            if found:
                pairs.append((found.pop(0), q))
            else:
                rest.append(q)
        taken = {x["question_id"] for x, _ in pairs}
        left_a, left_b = [q for q in left_a if q["question_id"] not in taken], rest
    return pairs
