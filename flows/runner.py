"""Runs `build_corpus` in-process with a live progress display (the CLI's `build`)."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from flows import progress
from schemas.config import BuildConfig
from schemas.secrets import redact
from warehouse.paths import Layout


@dataclass
class BuildOutcome:
    release_path: Path | None = None
    error: str | None = None
    matched: str | None = None
    result: dict = field(default_factory=dict)
    bad_input: bool = False
    """The build stopped on the user's input (a tier its personas cannot hold): exit 2, not 1."""


@dataclass
class Tally:
    """What the progress display counts: model calls, errors (error or fallback outcomes), cache hits."""

    calls: int = 0
    errors: int = 0
    cached: int = 0
    failed: int = 0

    def add(self, event: progress.Event) -> None:
        if not event.cached:  # a cached stage's calls were paid by an earlier run
            self.calls += event.calls
            self.errors += event.errors
        self.cached += int(event.cached)
        self.failed += int(not event.ok)

    def line(self) -> str:
        from tasks.llm.batch import LIVE

        batches = LIVE.line()  # a batch build: what its batches are doing (this process's; Dask workers log theirs)
        line = f"calls {self.calls} · errors {self.errors} · cached {self.cached}"
        return f"{line} · {batches}" if batches else line


def build_flow(config: BuildConfig):
    """`build_corpus`, on the task runner the config asks for (Dask for `runner.kind = "dask"`)."""
    from flows.build import build_corpus

    if config.runner.kind == "default":
        return build_corpus
    from prefect_dask import DaskTaskRunner

    quiet_dask()
    lean_dask()
    if config.runner.address:
        runner = DaskTaskRunner(address=config.runner.address)
    else:
        share_temporary_api()
        runner = DaskTaskRunner(cluster_kwargs={"n_workers": config.runner.workers, "dashboard_address": None,
                                                "threads_per_worker": threads_per_worker(config)})
    return build_corpus.with_options(task_runner=runner)


def threads_per_worker(config: BuildConfig) -> int:
    """Task threads in each LocalCluster worker: `[runner] threads_per_worker`, else 1 when every stage narrates
    offline (the stages are CPU-bound Python: a second thread only fights the first for the interpreter lock), else
    enough threads for `max_active_personas` branches to wait on their providers at once (a batch round waits hours
    for its results; one thread a worker would keep the other personas' batches from being sent meanwhile)."""
    if config.runner.threads_per_worker is not None:
        return config.runner.threads_per_worker
    providers = [config.provider, *config.stages.providers.values()]
    if all(p.name == "offline" for p in providers):
        return 1
    return max(2, -(-config.runner.max_active_personas // config.runner.workers))


def lean_dask() -> None:
    """Dask settings for CPU-bound Python tasks, set before a LocalCluster starts (its nannies hand this config to
    the worker processes): no statistical profiler, whose thread walks every thread's stack each 10 ms while holding
    the interpreter lock. Together with one task thread per worker (two threads each before: every call that let go
    of the lock, a hash or a file check, waited for the other thread to give it back), a rhelm build's persona
    branches went from 105 s to 92 s here and its workers' CPU from 185 s to 164 s (`threads_per_worker`)."""
    import dask

    dask.config.set({"distributed.worker.profile.enabled": False})


def quiet_dask() -> None:
    """Dask's own INFO lines (scheduler and nanny start, connections, retirement: about thirty per build) reach
    the console through the handler its config installs; a build shows its progress bar and warnings only."""
    import logging

    import distributed  # noqa: F401  (its import installs the handler; levels set before would be reset)

    for name in ("distributed", "distributed.scheduler", "distributed.nanny", "distributed.core",
                 "distributed.http.proxy", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.WARNING)


def _api_started_early(config: BuildConfig) -> threading.Thread | None:
    """A Dask build's temporary Prefect server, started on a thread now (`build_flow` finds it running: the server
    is Prefect's per-process singleton); None for a build that starts no server here."""
    if config.runner.kind != "dask" or config.runner.address:
        return None
    thread = threading.Thread(target=share_temporary_api, name="prefect-api", daemon=True)
    thread.start()
    return thread


def share_temporary_api() -> str | None:
    """With no `PREFECT_API_URL`, start this process's temporary Prefect server now and export its URL, so
    the worker processes a LocalCluster spawns report their task runs to it. Otherwise each worker starts a
    temporary server of its own, and the cluster's shutdown kills the worker before the server's `atexit`
    stop runs: the uvicorn process was left running after the build. The server is Prefect's per-process
    singleton (the one the flow would start anyway) and stops when this process exits. Returns the URL it
    exported, or None when an API URL is already set (or temporary servers are turned off)."""
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_EPHEMERAL_ENABLED

    if PREFECT_API_URL.value() or os.environ.get("PREFECT_API_URL") or not PREFECT_SERVER_EPHEMERAL_ENABLED.value():
        return None
    server = SubprocessASGIServer()
    server.start()
    os.environ["PREFECT_API_URL"] = server.api_url  # read by each spawned worker's Prefect settings
    return server.api_url


def run_build(config: BuildConfig, layout: Layout, version: str | None, console: Console,
              freeze_if_unchanged: bool = True) -> BuildOutcome:
    """Build with a progress bar over persona stages (plus calls, errors and cache hits); ends with a
    summary table; returns the release path (or the release it matched) or the failure."""
    early = _api_started_early(config)  # the server boots (about 3 s) while the pipeline's modules import
    from flows.build import STAGES
    from tasks.world.profile import persona_ids

    total = len(persona_ids(config)) * len(STAGES) + 2  # + gate + freeze
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[tally]}"), TimeElapsedColumn(), console=console, transient=False)
    tally = Tally()
    job = bar.add_task(f"building {config.name}", total=total, tally=tally.line())

    def sink(event: progress.Event) -> None:
        tally.add(event)
        bar.update(job, advance=1, description=f"{event.stage} {event.persona_id}", tally=tally.line())

    progress.attach(sink)
    quiet_console()
    ticking = threading.Event()
    if any(p.mode == "batch" and p.name != "offline" for p in [config.provider, *config.stages.providers.values()]):
        def tick() -> None:  # a batch round waits minutes to hours between stage events: show its batches meanwhile
            while not ticking.wait(2.0):
                bar.update(job, tally=tally.line())

        threading.Thread(target=tick, daemon=True).start()
    try:
        with bar:
            bar.update(job, description="starting Prefect")
            if early is not None:
                early.join()
            result = build_flow(config)(config=config, home=str(layout.home), version=version,
                                        freeze_if_unchanged=freeze_if_unchanged)
            bar.update(job, description="done")
    except Exception as exc:  # the flow already recorded the failed run and its reasons
        reason = redact(describe_failure(exc))
        console.print(summary_table(layout, None, tally, f"failed: {reason.splitlines()[0]}"))
        from schemas.tiers import TierError

        return BuildOutcome(error=f"build failed: {reason}", bad_input=isinstance(exc, TierError))
    finally:
        ticking.set()
        progress.attach(None)
    rel = result.get("release")
    where = rel["path"] if rel else f"none: rebuild matched {result.get('matched')}"
    console.print(summary_table(layout, result, tally, where))
    return BuildOutcome(release_path=Path(rel["path"]) if rel else None, matched=result.get("matched"),
                        result=result)


RESUMES = "a rerun resumes from the stage results already cached"


def describe_failure(exc: BaseException) -> str:
    """What failed and what to do, in words (never a traceback): gates name their failures; a disk that filled,
    a provider that went down and a date out of range say so and that a rerun resumes."""
    import errno
    import shutil

    from flows.gating import GateFailed

    if isinstance(exc, GateFailed):
        return str(exc)
    if isinstance(exc, shutil.Error):  # copytree gathers (src, dst, why) of every file it could not copy
        errors = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        why = " ".join(str(e[2]) for e in errors[:1] if len(e) > 2)
        if "No space left" in why or "[Errno 28]" in why:
            return f"disk full while writing {errors[0][1]}: free space and rerun ({RESUMES}; nothing was frozen)"
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"disk full while writing {exc.filename or 'the data root'}: free space and rerun ({RESUMES})"
    if isinstance(exc, OverflowError) or "date value out of range" in str(exc):
        return f"a date ran past the calendar's end ({exc}): choose an earlier start_date or fewer days"
    from tasks.llm.limits import CircuitOpen

    if isinstance(exc, CircuitOpen):
        return f"{exc}; check the provider (status page, key, quota) and rerun ({RESUMES})"
    message = str(exc) or type(exc).__name__
    return message if message.startswith(type(exc).__name__) else f"{type(exc).__name__}: {message}"


def quiet_console() -> None:
    """Keep Prefect's engine from printing a failed run's traceback on the console (`LIFELOOM_CONSOLE_TRACEBACKS=0`,
    set by the CLI unless --debug): the CLI says what failed in one line, and the run's log in the Prefect UI keeps
    every detail."""
    import logging

    if os.environ.get("LIFELOOM_CONSOLE_TRACEBACKS") != "0":
        return

    class NoTracebacks(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return not record.exc_info and not str(record.msg).startswith((
                "Task run failed", "Finished in state", "Encountered exception", "Flow run encountered"))

    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, NoTracebacks) for f in handler.filters) and "Console" in type(handler).__name__:
            handler.addFilter(NoTracebacks())


def summary_table(layout: Layout, result: dict | None, tally: Tally, release: str) -> Table:
    """Rows per table, model calls, gate verdict and the release path (or why none)."""
    table = Table("", "", title="build summary", show_header=False, title_justify="left")
    counts = (result or {}).get("counts", {})
    for name in sorted(counts):
        table.add_row(name, str(counts[name]))
    table.add_row("model calls", f"{tally.calls} ({tally.cached} stage results from cache, {tally.errors} errors)")
    gates = (result or {}).get("gates")
    if gates:
        verdict = "passed" if not gates.get("failed") else "FAILED"
        table.add_row("gates", f"{verdict}: {gates.get('passed')} of {gates.get('expectations')} expectations")
    table.add_row("release", release)
    return table
