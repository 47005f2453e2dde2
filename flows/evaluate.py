"""`evaluate_release`: score retrieval systems and a reader on a frozen release.

Reads the release's Parquet (never writes into it), ranks every question's history with each system and
setting, has the reader answer from the top k, scores the answers (tasks/evaluate/judge.py) and lands
eval_results, summary.json, report.md and plots under `<home>/eval/<name>/<version>/<eval_id>/`
(warehouse/evaluation.py). Publishes the report as a markdown artifact and the summary as a table artifact.
`evaluate_companion` does the same for the companion tracks (tasks/evaluate/companion.py): chat, reconstruction.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from schemas.config import ProviderConfig
from tasks.evaluate import harness, report
from warehouse import evaluation
from warehouse.catalog import refresh_catalog
from warehouse.diff import resolve_release
from warehouse.paths import Layout


def expand_systems(systems: list[str]) -> list[str]:
    """`question_only` stands for its three variants (longest, overlap, frequent)."""
    from tasks.evaluate.baselines import QUESTION_ONLY

    out: list[str] = []
    for s in systems:
        out += [v for v in (QUESTION_ONLY if s == "question_only" else (s,)) if v not in out]
    return out


def check_request(systems, settings, ks) -> None:
    """ValueError naming the first bad system, setting or k."""
    from tasks.evaluate.baselines import BASELINES
    from tasks.evaluate.retrieval import SETTINGS, SYSTEMS

    for name, given, allowed in (("system", systems, SYSTEMS + BASELINES), ("setting", settings, SETTINGS)):
        if not given:
            raise ValueError(f"give at least one {name} ({', '.join(allowed)})")
        bad = [g for g in given if g not in allowed]
        if bad:
            raise ValueError(f"unknown {name} {bad[0]!r} (choose from {', '.join(allowed)})")
    if not ks or any(not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"k must be positive integers, got {list(ks)!r}")


def _quiet_bm25s() -> None:
    """bm25s sets its logger to DEBUG on import; its index-building lines would drown the summary."""
    try:
        import bm25s  # noqa: F401
    except ImportError:
        return
    logging.getLogger("bm25s").setLevel(logging.WARNING)


def _gateway(provider: ProviderConfig | None, layout: Layout):
    if provider is None or provider.name == "offline":
        return None
    from tasks.llm.cache import CallCache
    from tasks.llm.gateway import Gateway

    return Gateway(provider, cache=CallCache(layout.llm_cache))


@flow(name="evaluate_release", flow_run_name="evaluate {release}")
def evaluate_release(release: str, systems: list[str], settings: list[str], ks: list[int], home: str = ".lifeloom",
                     provider: ProviderConfig | None = None, majority: bool = False, seed: int = 0,
                     dense_model: str | None = None, verify: bool = True) -> dict[str, Any]:
    """Evaluate `release` (name/version under `home`, or a release folder, verified first: sizes always, SHA-256
    unless `verify` is False); returns eval_id, folder and summary."""
    check_request(systems, settings, ks)
    _quiet_bm25s()
    layout = Layout(Path(home).expanduser().absolute())
    path = resolve_release(layout, release, verify)
    data = evaluation.load_release(path)
    gateway = _gateway(provider, layout)
    reader_label = "offline-extractive" if gateway is None else f"{provider.name}/{provider.model}"
    content = hashlib.sha256((path / "manifest.json").read_bytes()).hexdigest()
    eval_id = harness.eval_id_of(data.ref, content, systems, settings, ks, reader_label, majority)
    rows = harness.evaluate(data.ref, eval_id, data.questions, data.evidence, data.turns, data.chunks, systems,
                            settings, ks, gateway=gateway, majority=majority, seed=seed, dense_model=dense_model,
                            names=data.names)
    summary = {"eval_id": eval_id, "release": data.ref, "run_id": data.run_id, "systems": list(systems),
               "settings": list(settings), "ks": list(ks), "reader": reader_label, "majority": majority,
               "questions": len(data.questions), "rows": len(rows), "by_system": harness.summary_rows(rows)}
    notes = [f"release `{data.ref}` ({path}), eval id `{eval_id}`",
             "reader `offline-extractive` is a deterministic extractive heuristic, not a language model"
             if gateway is None else f"reader {reader_label} via the `reader_answer` prompt"]
    notes += report.baseline_notes(rows, data.questions)
    title = f"Evaluation of {data.ref}"
    target = evaluation.eval_dir(path, eval_id)
    evaluation.land_evaluation(target, rows, data.run_id, summary,
                               lambda folder: report.write_report(rows, folder, title, notes))
    refresh_catalog(layout)  # `lifeloom sql "select * from eval_summary"` sees the new evaluation
    md = report.markdown(rows, title, notes)
    create_markdown_artifact(key="eval-report", markdown=md, description=f"Evaluation of {data.ref}")
    create_table_artifact(key="eval-summary", table=summary["by_system"], description="Means by system, setting, k")
    if gateway is not None:
        ledger = gateway.drain_ledger()
        get_run_logger().info("evaluation made %d model calls", len(ledger))
    return {"eval_id": eval_id, "path": str(target), "report": str(target / "report.md"), "summary": summary}


@flow(name="evaluate_tiers", flow_run_name="evaluate tiers {release}")
def evaluate_tiers(release: str, tiers: list[str], systems: list[str], settings: list[str], ks: list[int],
                   home: str = ".lifeloom", provider: ProviderConfig | None = None, majority: bool = False,
                   seed: int = 0, dense_model: str | None = None, verify: bool = True) -> dict[str, Any]:
    """Evaluate `release` at each of `tiers` (tasks/evaluate/tiers.py): each tier lands as an evaluation of its own
    (`<eval_id>-<tier>`), and the length curve (curve.json as summary.json, report.md, length_curve.png) beside
    them as `<eval_id>-tiers`. ValueError for a tier the release does not have."""
    from schemas.tiers import tier_budget, tier_name
    from tasks.evaluate import tiers as curve
    from tasks.interop import Bundle
    from tasks.tiers.view import apply_tier

    check_request(systems, settings, ks)
    _quiet_bm25s()
    names = [tier_name(tier_budget(t)) for t in tiers]
    layout = Layout(Path(home).expanduser().absolute())
    path = resolve_release(layout, release, verify)
    data = evaluation.load_release(path)
    tier_rows = evaluation.load_tiers(path)
    gateway = _gateway(provider, layout)
    reader_label = "offline-extractive" if gateway is None else f"{provider.name}/{provider.model}"
    content = hashlib.sha256((path / "manifest.json").read_bytes()).hexdigest()
    base = harness.eval_id_of(data.ref, content, systems, settings, ks, reader_label, majority)
    whole = Bundle(questions=data.questions, evidence=data.evidence, turns=data.turns, chunks=data.chunks)
    by_tier: dict[str, list] = {}
    for tier in names:
        view = apply_tier(whole, tier, *tier_rows)
        eval_id = f"{base}-{tier}"
        rows = harness.evaluate(data.ref, eval_id, view.questions, view.evidence, view.turns, view.chunks, systems,
                                settings, ks, gateway=gateway, majority=majority, seed=seed, dense_model=dense_model,
                                names=data.names)
        by_tier[tier] = rows
        summary = {"eval_id": eval_id, "release": data.ref, "tier": tier, "run_id": data.run_id,
                   "systems": list(systems), "settings": list(settings), "ks": list(ks), "reader": reader_label,
                   "questions": len(view.questions), "rows": len(rows), "by_system": harness.summary_rows(rows)}
        title = f"Evaluation of {data.ref} at tier {tier}"
        evaluation.land_evaluation(evaluation.eval_dir(path, eval_id), rows, data.run_id, summary,
                                   lambda folder, r=rows, t=title: report.write_report(r, folder, t))
    points = curve.curve_rows(by_tier)
    title = f"Length curve of {data.ref}"
    notes = [f"release `{data.ref}`, tiers {', '.join(names)}, eval ids `{base}-<tier>`",
             "each tier: the persona's tier history (haystack included) and the questions whose evidence it holds"]
    md = curve.curve_markdown(points, title, notes)
    target = evaluation.eval_dir(path, f"{base}-tiers")

    def write(folder: Path) -> None:
        (folder / "report.md").write_text(md)
        curve.plot_curve(points, folder / "length_curve.png")

    evaluation.land_curve(target, {"eval_id": f"{base}-tiers", "release": data.ref, "tiers": names,
                                   "curve": points}, write)
    refresh_catalog(layout)
    create_markdown_artifact(key="eval-length-curve", markdown=md, description=title)
    return {"eval_id": f"{base}-tiers", "path": str(target), "report": str(target / "report.md"), "curve": points}


TRACKS = ("questions", "chat", "reconstruction")
"""What `lifeloom eval --track` scores: the questions (default), the chat probes, the profile reconstruction."""


def _score_track(track: str, data, systems, ks, predictor: str, predictions, label: str, seed: int,
                 dense_model: str | None) -> tuple[list[dict], dict, list]:
    """Result rows, summary and the eval-id key parts of one companion track."""
    from tasks.evaluate import companion

    if track == "chat":
        systems, ks = list(systems or companion.DEFAULT_CHAT_SYSTEMS), list(ks or companion.CHAT_KS)
        rows = companion.chat_rows(data.probes, data.turns, systems, ks, seed=seed, dense_model=dense_model)
        return rows, companion.chat_summary(rows, ks) | {"systems": systems, "ks": ks}, [systems, ks, seed]
    chosen = predictions if predictions is not None else companion.predict(predictor, data.claims, data.facts,
                                                                            data.turns)
    rows = companion.reconstruction_rows(data.claims, chosen, data.personas)
    digest = hashlib.sha256(json.dumps(chosen, sort_keys=True).encode()).hexdigest()
    label = label or predictor
    return rows, companion.reconstruction_summary(rows) | {"predictor": label}, [label, digest]


@flow(name="evaluate_companion", flow_run_name="evaluate {track} {release}")
def evaluate_companion(release: str, track: str, systems: list[str] | None = None, ks: list[int] | None = None,
                       home: str = ".lifeloom", predictor: str = "gold", predictions: list[dict] | None = None,
                       predictions_label: str = "", seed: int = 0, dense_model: str | None = None,
                       verify: bool = True) -> dict[str, Any]:
    """Score a companion track (chat or reconstruction) of `release`; lands `<track>_results.parquet`,
    summary.json and report.md beside the release and publishes them as artifacts."""
    from tasks.evaluate import companion

    if track not in ("chat", "reconstruction"):
        raise ValueError(f"unknown companion track {track!r} (chat or reconstruction)")
    _quiet_bm25s()
    layout = Layout(Path(home).expanduser().absolute())
    path = resolve_release(layout, release, verify)
    data = evaluation.load_companion(path)
    content = hashlib.sha256((path / "manifest.json").read_bytes()).hexdigest()
    rows, summary, key = _score_track(track, data, systems, ks, predictor, predictions, predictions_label, seed,
                                      dense_model)
    eval_id = f"{track}-" + hashlib.sha256(repr([data.ref, content, track, *key]).encode()).hexdigest()[:12]
    summary |= {"eval_id": eval_id, "track": track, "release": data.ref, "run_id": data.run_id, "rows": len(rows)}
    title = f"{track.capitalize()} track of {data.ref}"
    md = companion.markdown(track, summary, title, [f"release `{data.ref}` ({path}), eval id `{eval_id}`"])
    target = evaluation.eval_dir(path, eval_id)
    evaluation.land_track(target, track, rows, data.run_id, summary,
                          lambda folder: (folder / "report.md").write_text(md))
    create_markdown_artifact(key=f"eval-{track}-report", markdown=md, description=title)
    table = summary["by_system"] if track == "chat" else summary["by_slot"]
    create_table_artifact(key=f"eval-{track}-summary", table=table or [{"note": "no rows"}], description=title)
    return {"eval_id": eval_id, "path": str(target), "report": str(target / "report.md"), "summary": summary}
