"""`evaluate_release`: score retrieval systems and a reader on a frozen release.

Reads the release's Parquet (never writes into it), ranks every question's history with each system and
setting, has the reader answer from the top k, scores the answers (tasks/evaluate/judge.py) and lands
eval_results, summary.json, report.md and plots under `<home>/eval/<name>/<version>/<eval_id>/`
(warehouse/evaluation.py). Publishes the report as a markdown artifact and the summary as a table artifact.
"""

from __future__ import annotations

import hashlib
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


def check_request(systems, settings, ks) -> None:
    """ValueError naming the first bad system, setting or k."""
    from tasks.evaluate.retrieval import SETTINGS, SYSTEMS

    for name, given, allowed in (("system", systems, SYSTEMS), ("setting", settings, SETTINGS)):
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
                     dense_model: str | None = None) -> dict[str, Any]:
    """Evaluate `release` (name/version under `home`, or a release folder); returns eval_id, folder and summary."""
    check_request(systems, settings, ks)
    _quiet_bm25s()
    layout = Layout(Path(home).expanduser().absolute())
    path = resolve_release(layout, release)
    data = evaluation.load_release(path)
    gateway = _gateway(provider, layout)
    reader_label = "offline-extractive" if gateway is None else f"{provider.name}/{provider.model}"
    content = hashlib.sha256((path / "manifest.json").read_bytes()).hexdigest()
    eval_id = harness.eval_id_of(data.ref, content, systems, settings, ks, reader_label, majority)
    rows = harness.evaluate(data.ref, eval_id, data.questions, data.evidence, data.turns, data.chunks, systems,
                            settings, ks, gateway=gateway, majority=majority, seed=seed, dense_model=dense_model)
    summary = {"eval_id": eval_id, "release": data.ref, "run_id": data.run_id, "systems": list(systems),
               "settings": list(settings), "ks": list(ks), "reader": reader_label, "majority": majority,
               "questions": len(data.questions), "rows": len(rows), "by_system": harness.summary_rows(rows)}
    notes = [f"release `{data.ref}` ({path}), eval id `{eval_id}`",
             "reader `offline-extractive` is a deterministic extractive heuristic, not a language model"
             if gateway is None else f"reader {reader_label} via the `reader_answer` prompt"]
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
