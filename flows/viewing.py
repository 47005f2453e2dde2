"""The `view` task of `build_corpus`: write a new release's viewer (warehouse/viewer/) beside it, so the build
summary in the Prefect UI links a browsable site. A viewer that cannot be written is a warning, never a failed
build: the release is frozen and `lifeloom view` writes it again."""

from __future__ import annotations

from pathlib import Path

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from schemas.release import ReleaseRecord
from warehouse.paths import Layout
from warehouse.viewer import build_view


@task(name="view", task_run_name="view {record.name}/{record.version}", cache_policy=NO_CACHE, persist_result=False)
def view_release(layout: Layout, record: ReleaseRecord) -> Path | None:
    """The viewer's index page, or None when it could not be written (logged)."""
    target = layout.view_dir(record.name, record.version)
    try:
        result = build_view(Path(record.path), target)
    except Exception as exc:  # the release stands; the viewer can be written again with `lifeloom view`
        get_run_logger().warning("viewer of %s/%s not written (%s); `lifeloom view --release %s/%s` writes it",
                                 record.name, record.version, exc, record.name, record.version)
        return None
    get_run_logger().info("viewer: %d pages, %d data shards, %.1f MiB at %s", result.pages, result.shards,
                          result.bytes / 2**20, target)
    return target / "index.html"
