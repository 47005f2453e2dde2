"""The validity measures of a large corpus, counted by a pool of processes.

Measuring a persona-year takes about eight seconds of one core (sentence splitting, skeletons, the baselines'
retrieval), and the grammar check parses hundreds of sentences; a build waits for all of it after its persona
branches. `measure_source` counts each persona in a worker process (each reopens the corpus from its
`CorpusSource`: the build's run under its data root, or a release folder), merges the tallies in persona order
(`tasks.metrics.merge_tallies`: the rows equal those of one pass, tests/tasks/metrics/test_merge.py), has the
pool parse the grammar sample, and computes the rows here. A corpus under `PARALLEL_TURNS` turns, or one
persona, is measured in this process: starting the workers (about two seconds) would cost more than it saves.
`LIFELOOM_MEASURE_WORKERS` sets the pool's size (1: never a pool); the default is one worker per core the
process may use, at most one per persona. `measure_ref` is the front door of `lifeloom metrics`: it resolves a
release, run or `FORMAT:PATH` and measures it.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import duckdb

from schemas.metrics import MeasureRow

log = logging.getLogger(__name__)
PARALLEL_TURNS = 20_000
"""The fewest turns a corpus needs to be measured by a pool."""
ENV = "LIFELOOM_MEASURE_WORKERS"
PARSE_BATCH = 40
"""Sentences per grammar task (a long sentence can take a second to parse)."""


@dataclass(frozen=True)
class CorpusSource:
    """How a worker process reopens a corpus: a run under a data root (`home`, `run_id`), or a release folder."""

    home: str | None = None
    run_id: str | None = None
    release: str | None = None

    def open(self) -> tuple[duckdb.DuckDBPyConnection, str]:
        if self.release is not None:
            from warehouse.measures import release_session

            return release_session(Path(self.release))
        from warehouse.catalog import session
        from warehouse.paths import Layout

        return session(Layout(Path(self.home)), self.run_id), self.run_id


def workers_for(personas: int, turns: int) -> int:
    """How many processes measure a corpus of `personas` and `turns` (1: this process alone)."""
    setting = os.environ.get(ENV, "").strip()
    if setting:
        try:
            wanted = int(setting)
        except ValueError:
            raise ValueError(f"{ENV} must be a whole number of processes, not {setting!r}") from None
    else:
        wanted = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        if turns < PARALLEL_TURNS:
            return 1
    return max(1, min(wanted, personas))


def measure_source(source: CorpusSource, grammar_sample: int, workers: int | None = None) -> list[MeasureRow]:
    """Every validity measure of the corpus `source` opens (see the module doc); `workers` overrides the pool's
    size (1: in this process)."""
    from tasks import metrics
    from warehouse.measures import persona_ids, personas_of
    from warehouse.parsecache import default_cache

    con, run_id = source.open()
    try:
        pids = persona_ids(con, run_id)
        if workers is None:
            turns = con.execute("select count(*) from turns where run_id = ?", [run_id]).fetchone()[0]
            workers = workers_for(len(pids), turns)
        if workers <= 1 or len(pids) < 2:
            return metrics.measure_corpus(personas_of(con, run_id), grammar_sample, default_cache())
    finally:
        con.close()
    try:
        return _pooled(source, pids, grammar_sample, workers)
    except BrokenProcessPool as exc:  # a worker died (killed for memory, or a main module without its guard)
        log.warning("measures: the process pool broke (%s); measuring in this process instead", exc)
        return measure_source(source, grammar_sample, workers=1)


def _pooled(source: CorpusSource, pids: list[str], grammar_sample: int, workers: int) -> list[MeasureRow]:
    from tasks import metrics
    from tasks.metrics import grammar
    from warehouse.parsecache import default_cache

    cache = grammar.Verdicts(default_cache())
    tallies = metrics.new_tallies(grammar_sample, cache)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = pool.map(_tally, [source] * len(pids), pids, [grammar_sample] * len(pids))
        metrics.merge_tallies(tallies, parts)  # map yields in persona order
        if grammar.available():
            unknown = cache.unknown([s for t in tallies if hasattr(t, "sampled") for s in t.sampled()])
            batches = [unknown[i:i + PARSE_BATCH] for i in range(0, len(unknown), PARSE_BATCH)]
            for found in pool.map(grammar.verdicts, batches):
                for text, verdict in found:
                    cache.put(text, verdict)
    return metrics.measure_rows(tallies)


@functools.lru_cache(maxsize=1)
def _opened(source: CorpusSource) -> tuple[duckdb.DuckDBPyConnection, str]:
    return source.open()  # once per worker process; closed when it exits


def _tally(source: CorpusSource, persona_id: str, grammar_sample: int) -> list:
    """One persona's tallies, counted in a worker process (no verdict cache: the pool parses after the merge)."""
    from tasks import metrics
    from warehouse.measures import personas_of

    con, run_id = _opened(source)
    return metrics.add_personas(metrics.new_tallies(grammar_sample), personas_of(con, run_id, [persona_id]))


def _run_of(layout, ref: str) -> str | None:
    """The run id `ref` names: a run id, or the newest succeeded run of that name (an import's --name)."""
    from warehouse.runs import list_runs

    runs = list_runs(layout) if layout.table_dir("runs").is_dir() else []
    exact = [r.run_id for r in runs if r.run_id == ref]
    named = [r for r in runs if r.name == ref and r.status == "succeeded"]
    return exact[0] if exact else (max(named, key=lambda r: (r.started_at, r.run_id)).run_id if named else None)


def measure_ref(layout, ref: str, verify: bool = True) -> list[MeasureRow]:
    """The measures of the corpus `ref` names under the data root: a release (name/version or a folder), a landed
    run (its id, or an import's name) or `FORMAT:PATH`, a benchmark on disk read without landing (e.g.
    `rhelm:tests/fixtures/rhelm_sample`). ValueError when it names nothing, or a corpus without questions."""
    from tasks.interop import IMPORT_FORMATS
    from tasks.metrics import GRAMMAR_SAMPLE
    from warehouse.catalog import session
    from warehouse.diff import resolve_release
    from warehouse.integrity import ReleaseDamaged
    from warehouse.measures import grammar_sample_of, measure_benchmark, release_session

    fmt, _, where = ref.partition(":")
    if fmt in IMPORT_FORMATS and where:
        if not Path(where).exists():
            raise ValueError(f"{ref!r}: {where} does not exist")
        rows = measure_benchmark(fmt, Path(where))
        _require_questions(ref, rows)
        return rows
    sample = GRAMMAR_SAMPLE
    try:
        folder = resolve_release(layout, ref, verify)
        con, run_id = release_session(folder)
        sample, source = grammar_sample_of(folder), CorpusSource(release=str(folder))
    except ReleaseDamaged:
        raise
    except ValueError:
        run_id = _run_of(layout, ref)
        if run_id is None:
            raise ValueError(f"no release, run or benchmark {ref!r} (give name/version, a release folder, a run id "
                             f"or import name under {layout.home}, or FORMAT:PATH with FORMAT one of "
                             f"{', '.join(IMPORT_FORMATS)})") from None
        con, source = session(layout, run_id), CorpusSource(home=str(layout.home), run_id=run_id)
    try:
        if not con.execute("select count(*) from questions where run_id = ?", [run_id]).fetchone()[0]:
            raise ValueError(f"{ref!r} has no questions: the measures need a benchmark with questions")
    finally:
        con.close()
    return measure_source(source, sample)


def _require_questions(ref: str, rows: list[MeasureRow]) -> None:
    if not any(r.measure == "questions.skeletons" and r.n for r in rows):
        raise ValueError(f"{ref!r} has no questions: the measures need a benchmark with questions")
