"""Runs `build_corpus` in-process with a live progress display (the CLI's `build`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from flows import progress
from schemas.config import BuildConfig
from warehouse.paths import Layout


@dataclass
class BuildOutcome:
    release_path: Path | None = None
    error: str | None = None


def run_build(config: BuildConfig, layout: Layout, version: str | None, console: Console) -> BuildOutcome:
    """Build with a progress bar over persona stages; returns the release path or the failure."""
    from flows.build import STAGES, build_corpus
    from tasks.profile import persona_ids

    total = len(persona_ids(config)) * len(STAGES) + 2  # + gate + freeze
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, transient=False)
    job = bar.add_task(f"building {config.name}", total=total)
    progress.attach(lambda stage, pid: bar.update(job, advance=1, description=f"{stage} {pid}"))
    try:
        with bar:
            bar.update(job, description="starting Prefect")
            result = build_corpus(config=config, home=str(layout.home), version=version)
            bar.update(job, description="done")
    except Exception as exc:  # the flow already recorded the failed run and its reasons
        return BuildOutcome(error=f"build failed: {exc}")
    finally:
        progress.attach(None)
    return BuildOutcome(release_path=Path(result["release"]["path"]))
