"""`build_corpus`: one branch per persona (profile, loop, sources, dialogue, questions, verify,
land), then gate and freeze. Persona branches are submitted in a sliding window of
`runner.max_active_personas`; Prefect runs them concurrently and each stage waits only for its own inputs."""

from __future__ import annotations

import contextvars
import json
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.exceptions import UnfinishedRun
from prefect.states import Failed
from pydantic import BaseModel

from flows import progress
from flows.calibration import calibrate_questions
from flows.fingerprint import corpus_fingerprint, land_fingerprint, stage_fingerprint
from flows.fingerprint import refresh_requested as _refresh
from flows.gating import GateFailed, gate
from flows.limits import check_limits
from flows.pipeline import PIPELINE, STAGE_ORDER, stage_rows
from flows.pipeline import STAGES as PIPELINE_STAGES
from flows.stages import STAGE_TASKS, Ctx, Staged, stage_tasks
from flows.tiers import build_release_tiers, check_tokenizer
from flows.viewing import view_release
from schemas.config import BuildConfig
from schemas.metrics import MeasureRow
from schemas.release import Manifest, ReleaseRecord, RunRecord
from schemas.secrets import clip
from schemas.tables import CORPUS_TABLES, RELEASE_TABLES, TABLES
from tasks.domains import pack_for
from tasks.llm import prompts
from tasks.llm.preflight import check_providers
from tasks.metrics import difficulty
from tasks.metrics import report as metrics_report
from tasks.metrics.report import card_section
from tasks.world import profile
from validation.gates import GateReport
from warehouse import landing, release
from warehouse.catalog import refresh_catalog, session
from warehouse.ledger import ledger_by_stage_model, ledger_markdown
from warehouse.measurepool import CorpusSource, measure_source
from warehouse.measures import load_reference
from warehouse.parquet import land_rows
from warehouse.paths import Layout, prepare_home
from warehouse.provenance import code_version, package_versions
from warehouse.runs import new_run_id, record_run
from warehouse.tiers import tier_figures

STAGES = STAGE_ORDER
"""The per-persona steps, in order (progress displays count these; flows/pipeline.py declares them)."""




@task(name="land", task_run_name="land {persona_id}", cache_policy=NO_CACHE, persist_result=False)
def land_persona(ctx: Ctx, persona_id: str, staged: dict[str, Staged], seed_text: str | None = None) -> Landed:
    """Write each of one persona's tables as its own Parquet partition under the current run; returns row
    counts and the landing's key. Never cached: a stage result reused from the cache lands again here, its
    ledger rows marked `cached` (the run's ledger lists every call its content rests on; `cached` says this
    run paid none). When every stage came from the cache and an earlier run landed the same key, its
    partitions are copied instead (warehouse/landing.py): no stage value is unpickled or re-serialized. `staged` maps
    each stage's name to its result; each lands the rows of its declared tables (flows/pipeline.py)."""
    unknown = sorted(set(staged) - set(PIPELINE_STAGES))
    if unknown:
        raise ValueError(f"land: no such stage {', '.join(unknown)}")
    key = land_fingerprint(persona_id, {stage: s.land_digest for stage, s in staged.items()})
    if seed_text is not None and set(staged) == set(PIPELINE_STAGES):  # a later run may skip the branch whole
        digests = {stage: s.digest for stage, s in staged.items() if stage in STAGE_INPUTS}
        landing.record_branch(ctx.layout, stage_keys(ctx, persona_id, seed_text, digests), digests, key)
    if all(s.origin_run != ctx.run_id for s in staged.values()):
        earlier = landing.earlier_landing(ctx.layout, key, persona_id)
        if earlier is not None:
            get_run_logger().info("land %s: unchanged, copying run %s's partitions", persona_id, earlier["run_id"])
            return Landed(landing.copy_landing(ctx.layout, earlier, ctx.run_id), key)
    tables: dict[str, list] = {}
    for stage, result in staged.items():
        tables.update(stage_rows(PIPELINE_STAGES[stage], result.value))
    for staged_rows in (s.rows for s in staged.values()):
        tables.update(staged_rows)
    tables.update(pack_rows(staged["loop"].value.extras))  # the domain pack's own tables (finance)
    for table in CORPUS_TABLES:  # every per-persona table lands for every run, empty when it has no rows
        if table != "llm_calls":
            tables.setdefault(table, [])
    parts = []
    for table, rows in tables.items():
        land_rows(ctx.layout, table, rows, ctx.run_id, persona_id)
        parts.append((table, "part"))
    for stage, result in staged.items():
        if result.ledger:
            reused = result.origin_run != ctx.run_id
            rows = [r.model_copy(update={"cached": True}) for r in result.ledger] if reused else result.ledger
            rows = first_per_key(rows)
            land_rows(ctx.layout, "llm_calls", rows, ctx.run_id, persona_id, part=stage)
            parts.append(("llm_calls", stage))
    counts = {table: len(rows) for table, rows in tables.items()}
    landing.record_landing(ctx.layout, key, ctx.run_id, persona_id, parts, counts)
    return Landed(counts, key)


class Landed:
    """What one persona's landing hands back to the flow: row counts by table and the landing's key."""

    __slots__ = ("counts", "key")

    def __init__(self, counts: dict[str, int], key: str) -> None:
        self.counts, self.key = counts, key


def pack_rows(extras: dict[str, list]) -> dict[str, list]:
    """The domain pack's rows by table, each a row model of its table (a plain dict is validated); a
    table name outside the contract is an error, not a silent drop."""
    unknown = sorted(set(extras) - set(CORPUS_TABLES))
    if unknown:
        raise ValueError(f"World.extras names no per-persona table: {', '.join(unknown)}")
    return {table: [r if isinstance(r, BaseModel) else TABLES[table].model.model_validate(r) for r in rows]
            for table, rows in extras.items()}


def first_per_key(rows: list) -> list:
    """Ledger rows with repeats of the same request dropped (an identical request within a stage is one
    call, answered once; the table's key is call_key, stage and persona)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for row in rows:
        if (row.call_key, row.stage) not in seen:
            seen.add((row.call_key, row.stage))
            out.append(row)
    return out


STAGE_INPUTS = {stage.name: stage.inputs for stage in PIPELINE}
"""Each stage task's Staged inputs, in the order of its parameters (the order of its cache key's digests)."""


def submit_persona(ctx: Ctx, persona_id: str, seed_text: str, tasks: dict | None = None):
    """Submit one persona's branch; returns the future of its landing (row counts and key). A branch whose
    every stage key equals the one an earlier run landed (flows/fingerprint.py recomputes them from the
    digests that run recorded) lands by copying that run's partitions without running a stage."""
    t = tasks or STAGE_TASKS
    earlier = unchanged_branch(ctx, persona_id, seed_text)
    if earlier is not None:
        for stage in STAGE_INPUTS:
            progress.report(progress.Event(stage=stage, persona_id=persona_id, cached=True))
        return _tracked(land_unchanged.submit(ctx, persona_id, earlier), "land", persona_id)
    futures: dict[str, Any] = {}
    for stage, inputs in STAGE_INPUTS.items():
        first = (seed_text,) if stage == "profile" else ()
        futures[stage] = _tracked(t[stage].submit(ctx, persona_id, *first, *(futures[i] for i in inputs)),
                                  stage, persona_id)
    landing = _tracked(land_persona.submit(ctx, persona_id, futures, seed_text=seed_text), "land", persona_id)
    landing.stage_futures = futures  # so a failed stage's own error, not "the landing never ran", is raised
    return landing


def branch_result(landed) -> Landed:
    """The landing's result; when it never ran because a stage failed, that stage's exception instead."""
    try:
        return landed.result()
    except UnfinishedRun:
        for future in getattr(landed, "stage_futures", {}).values():
            state = future.state
            if state.is_failed() or state.is_crashed():
                error = future.result(raise_on_failure=False)
                if isinstance(error, BaseException):
                    raise error from None
        raise


def stage_keys(ctx: Ctx, persona_id: str, seed_text: str, digests: dict[str, str]) -> dict[str, str]:
    """Every stage's cache key for this persona given its stages' value digests (what `flows/stages.py` `_key`
    computes from the task's parameters)."""
    return {stage: stage_fingerprint(stage, ctx.config, persona_id, [digests[i] for i in inputs],
                                     seed_text if stage == "profile" else None)
            for stage, inputs in STAGE_INPUTS.items()}


def unchanged_branch(ctx: Ctx, persona_id: str, seed_text: str) -> dict | None:
    """The landing to copy when this persona's branch is unchanged since an earlier run: the branch that run
    recorded under this profile key has every stage key equal to the keys recomputed now from the digests
    it recorded, every stage result is still in the cache and its partitions are all there. None otherwise,
    or when Prefect is told to refresh its cache (PREFECT_TASKS_REFRESH_CACHE)."""
    if _refresh():
        return None
    profile_key = stage_fingerprint("profile", ctx.config, persona_id, [], seed_text)
    branch = landing.recorded_branch(ctx.layout, profile_key)
    if branch is None or set(branch["digests"]) != set(STAGE_INPUTS):
        return None
    keys = stage_keys(ctx, persona_id, seed_text, branch["digests"])
    if keys != branch["keys"] or not all((ctx.layout.prefect_cache / k).is_file() for k in keys.values()):
        return None
    return landing.earlier_landing(ctx.layout, branch["land_key"], persona_id)


@task(name="land", task_run_name="land {persona_id} (unchanged)", cache_policy=NO_CACHE, persist_result=False)
def land_unchanged(ctx: Ctx, persona_id: str, earlier: dict) -> Landed:
    """Land an unchanged branch by copying the earlier run's partitions (warehouse/landing.py)."""
    get_run_logger().info("land %s: every stage key equals run %s's, copying its partitions", persona_id,
                          earlier["run_id"])
    return Landed(landing.copy_landing(ctx.layout, earlier, ctx.run_id), earlier["key"])


def _tracked(future, stage: str, persona_id: str):
    """Report the task's end to the progress sink (model calls, errors, cache hit) once it finishes."""

    def done(f) -> None:
        try:
            result = f.result(raise_on_failure=False)  # the final state is known once the result is
            state = f.state
        except Exception:  # progress is best effort; the flow sees the real error
            state, result = None, None
        progress.report(progress.Event(  # the counts, not the ledger: reading it would unpickle a cached value
            stage=stage, persona_id=persona_id, ok=bool(state and state.is_completed()),
            calls=getattr(result, "calls", 0), errors=getattr(result, "errors", 0),
            cached=bool(state and state.name == "Cached")))

    future.add_done_callback(done)
    return future


@task(name="measure", task_run_name="measure {run_id}", cache_policy=NO_CACHE, persist_result=False)
def measure(layout: Layout, config: BuildConfig, run_id: str, land_keys: dict[str, str]) -> dict[str, Any]:
    """Content hashes, row counts, the manifest's figures and the validity measures of the run's corpus tables,
    computed in DuckDB (measures: tasks/metrics/, one persona at a time); reused from an earlier run whose
    personas all landed under the same keys (equal keys, equal partitions: flows/fingerprint.py
    `corpus_fingerprint`). The measures land as the run's `measures` table, which the validity gates read, and
    which baselines answer each question as `question_difficulty`."""
    path = layout.prefect_cache / "corpus" / f"{corpus_fingerprint(config, land_keys)}.json"
    figures = None if _refresh() else landing.read_json(path)
    if figures is not None:
        get_run_logger().info("measure: every landing equals an earlier run's, reusing its figures")
    if figures is None:
        con = session(layout, run_id)
        try:
            figures = json.loads(json.dumps(corpus_figures(con, config, run_id, layout)))  # as when reused
        finally:
            con.close()
        landing.write_text(path, json.dumps(figures, sort_keys=True))
    rows = [MeasureRow.model_validate(r) for r in figures["measures"]]
    land_rows(layout, "measures", rows, run_id)
    con = session(layout, run_id)
    try:
        asked = con.execute("select question_id, category, answer_type, answer, "
                            "derivation->>'abstention' is not null from questions where run_id = ? "
                            "order by question_id", [run_id]).fetchall()
    finally:
        con.close()
    land_rows(layout, "question_difficulty", difficulty.labels(rows, asked), run_id)
    return figures


def corpus_figures(con, config: BuildConfig, run_id: str, layout: Layout) -> dict[str, Any]:
    """Everything the gates' key and the manifest read from the corpus tables. The ledger's `cached` flags
    differ between runs of equal content, but they are volatile (no hash reads them) and the manifest's
    ledger totals are computed afresh by every run. The validity measures of a large corpus are counted by a
    pool of processes (warehouse/measurepool.py)."""
    return {
        "table_hashes": release.content_hashes(con, run_id, CORPUS_TABLES),
        "row_counts": release.row_counts(con, run_id, CORPUS_TABLES),
        "withdrawals": release.withdrawals(con, run_id), "sources": release.source_counts(con, run_id),
        "dialogue": release.dialogue_stats(con, run_id), "companion": release.companion_stats(con, run_id, config),
        "domain": {"name": config.domain, **pack_for(config).release_stats(con, run_id)},
        "measures": [r.model_dump(mode="json") for r in measure_source(
            CorpusSource(home=str(layout.home), run_id=run_id), config.gates.grammar_sample)],
    }


@task(name="freeze", task_run_name="freeze {run_id}", cache_policy=NO_CACHE, persist_result=False)
def freeze_release(layout: Layout, config: BuildConfig, run_id: str, report: GateReport, figures: dict[str, Any],
                   version: str | None, freeze_if_unchanged: bool = True) -> ReleaseRecord | str:
    """Freeze the run into a new, immutable release directory. With `freeze_if_unchanged=False`, a run
    whose combined content hash equals the newest release's freezes nothing and returns that release's
    `name/version` instead."""
    con = session(layout, run_id)
    try:
        manifest = _manifest(con, layout, config, run_id, report, figures, version)
    finally:
        con.close()
    parent = release.parent_manifest(layout, config.name)
    if not freeze_if_unchanged and parent is not None and parent.get("content_hash") == manifest.content_hash:
        progress.report(progress.Event("freeze", "all", ok=True, cached=True))
        return manifest.parent
    record = release.freeze(layout, manifest, docs=layout.gate_docs(run_id))
    title = f"Validity measures of {record.name}/{record.version}"
    create_markdown_artifact(key="validity-measures", description=title, markdown=f"# {title}\n"
                             + card_section(manifest.measures).replace("## Validity measures", "", 1))
    progress.report(progress.Event("freeze", "all"))
    return record


def measures_summary(rows: list[dict[str, Any]], config: BuildConfig) -> dict[str, Any]:
    """The manifest's validity measures: this run's values beside the bundled reference's."""
    return metrics_report.summary([MeasureRow.model_validate(r) for r in rows], config.gates.measures,
                                  load_reference())


def stage_providers(config: BuildConfig) -> dict[str, dict[str, Any]]:
    """Each stage that calls a model (flows/pipeline.py) with the provider it calls: name, model, base_url."""
    return {s.name: {k: v for k, v in config.provider_for(s.gateway).model_dump(mode="json").items()
                     if k in ("name", "model", "base_url")}
            for s in PIPELINE if s.gateway}


def _manifest(con, layout: Layout, config: BuildConfig, run_id: str, report: GateReport, figures: dict[str, Any],
              version: str | None) -> Manifest:
    fresh = tuple(t for t in RELEASE_TABLES if t not in figures["table_hashes"])  # gate_results
    hashes = {**figures["table_hashes"], **release.content_hashes(con, run_id, fresh)}
    counts = {**figures["row_counts"], **release.row_counts(con, run_id, fresh)}
    hashes, counts = {t: hashes[t] for t in RELEASE_TABLES}, {t: counts[t] for t in RELEASE_TABLES}
    versions = release.existing_versions(layout, config.name)
    return Manifest(
        name=config.name,
        version=version or release.next_version(layout, config.name),
        run_id=run_id,
        created_at=release.utc_now(),
        code_version=code_version(),
        config=config.model_dump(mode="json"),
        config_hash=config.config_hash(),
        provider=config.provider.model_dump(mode="json"),
        stage_providers=stage_providers(config),
        package_versions=package_versions(),
        prompt_hashes={name: prompts.prompt_hash(name) for name in prompts.prompt_names()},
        ledger=release.ledger_totals(con, run_id),
        row_counts=counts,
        table_hashes=hashes,
        content_hash=release.combined_hash(hashes),
        gates=report.summary(),
        withdrawals=figures["withdrawals"], sources=figures["sources"], dialogue=figures["dialogue"],
        companion=figures["companion"], domain=figures["domain"],
        measures=measures_summary(figures["measures"], config),
        tiers=tier_figures(con, run_id, config.release.tiers),
        parent=f"{config.name}/{versions[-1]}" if versions else None,
    )


@flow(name="build_corpus", flow_run_name="build {config.name}")
def build_corpus(config: BuildConfig, home: str = ".lifeloom", version: str | None = None,
                 freeze_if_unchanged: bool = True) -> dict[str, Any]:
    """Build, gate and freeze one corpus; returns the run id, row counts, gate summary and release
    (None, with `matched` naming the release, when content is unchanged and `freeze_if_unchanged` is off)."""
    pack_for(config).check(config)  # a config the domain pack cannot build stops here
    check_tokenizer(config)  # so do tiers whose tokenizer cannot load
    ids, seed_texts = profile.persona_ids(config), profile.seed_texts(config)  # so does a bad seed file
    plan = check_limits(config, len(ids))  # and a build past its limits, before anything is written
    layout = prepare_home(home)
    check_providers(config)  # a missing key or unreachable endpoint stops here, before any stage runs
    release.check_version_name(version)
    if version is not None and layout.release_dir(config.name, version).exists():
        raise release.ReleaseExists(f"release {config.name}/{version} already exists")
    get_run_logger().info("plan: %s", plan.line())
    run = RunRecord(run_id=new_run_id(config.name), name=config.name, config_hash=config.config_hash(),
                    code_version=code_version(), started_at=release.utc_now(), status="running")
    record_run(layout, run)
    release.save_run_config(layout, run.run_id, config)
    get_run_logger().info("run %s: %d personas over %d days", run.run_id, len(ids), config.days)
    counts: dict[str, int] = {}
    report = None
    try:
        ctx = Ctx(config, layout, run.run_id)
        tasks = stage_tasks(layout.prefect_cache)
        counts, land_keys = run_branches(ctx, list(zip(ids, seed_texts, strict=True)), tasks)
        calibrate_questions(layout, run.run_id, config.stages.questions)  # withdraws what a memory-free prior answers
        figures = tiers_beside_measure(layout, config, run.run_id, land_keys)
        counts |= {t: n for t, n in figures["row_counts"].items() if t in counts}  # as the views see them
        report = gate(layout, run.run_id, config, figures, return_state=True).result(raise_on_failure=False)
        if not report.success:  # an expected failure: the gate task is Failed, the run ends Failed, no traceback
            _finish(layout, run, "failed", report.failure_message(), counts, report, None)
            return Failed(message=report.failure_message(), data=GateFailed(report.failure_message()))
        frozen = freeze_release(layout, config, run.run_id, report, figures, version, freeze_if_unchanged)
    except BaseException as exc:
        _finish(layout, run, "failed", f"{type(exc).__name__}: {exc}", counts, report, None)
        raise
    record = frozen if isinstance(frozen, ReleaseRecord) else None
    matched = None if record else frozen
    message = f"rebuild matched {matched}: content unchanged, nothing frozen" if matched else ""
    viewer = view_release(layout, record) if record else None
    _finish(layout, run, "succeeded", message, counts, report, record, viewer)
    if record:
        get_run_logger().info("released %s/%s at %s", record.name, record.version, record.path)
    else:
        get_run_logger().info(message)
    return {"run_id": run.run_id, "counts": counts, "gates": report.summary(), "matched": matched,
            "release": record.model_dump(mode="json") if record else None}


def tiers_beside_measure(layout: Layout, config: BuildConfig, run_id: str, land_keys: dict[str, str]) -> dict[str, Any]:
    """The length tiers (over the calibrated questions) and the corpus measures, side by side: neither reads what
    the other lands, the tiers step is one process's work and the measures leave a core idle while they hash
    tables and start their pool. Returns the measures' figures; either's error is raised."""
    with ThreadPoolExecutor(1, thread_name_prefix="tiers") as side:
        tiers = side.submit(contextvars.copy_context().run, build_release_tiers, layout, config, run_id)
        figures = measure(layout, config, run_id, land_keys)  # on error, leaving the block waits for the tiers
        tiers.result()  # the tiers' error, if any
    return figures


def run_branches(ctx: Ctx, seeds: list[tuple[str, str]], tasks: dict | None = None
                 ) -> tuple[dict[str, int], dict[str, str]]:
    """Run the persona branches, at most `runner.max_active_personas` in flight (a new one is submitted as
    one lands); returns the summed row counts and each persona's landing key. Nothing here keeps a landed
    branch's futures, so its stage values are freed as it lands: peak memory follows the branches in
    flight, not the personas in the corpus."""
    finished: queue.SimpleQueue = queue.SimpleQueue()
    waiting, active = list(reversed(seeds)), 0
    limit = ctx.config.runner.max_active_personas
    total: dict[str, int] = {}
    keys: dict[str, str] = {}
    while waiting or active:
        while waiting and active < limit:
            persona_id, seed_text = waiting.pop()
            future = submit_persona(ctx, persona_id, seed_text, tasks)
            future.add_done_callback(lambda f, pid=persona_id: finished.put((pid, f)))
            active += 1
        persona_id, landed = finished.get()
        active -= 1
        result = branch_result(landed)  # a failed branch raises its stage's error here
        total, keys[persona_id] = _sum_counts([total, result.counts]), result.key
        del landed, result
    return total, dict(sorted(keys.items()))


def _sum_counts(per_persona) -> dict[str, int]:
    total: dict[str, int] = {}
    for counts in per_persona:
        for table, n in counts.items():
            total[table] = total.get(table, 0) + n
    return total


def _finish(layout: Layout, run: RunRecord, status: str, message: str, counts: dict[str, int],
            report: GateReport | None, record: ReleaseRecord | None, viewer: Path | None = None) -> None:
    """Record the run's end, refresh the catalog and publish the build summary artifact."""
    done = run.model_copy(update={"status": status, "message": clip(message, 2000), "finished_at": release.utc_now()})
    record_run(layout, done)
    refresh_catalog(layout)
    con = session(layout, run.run_id)
    try:
        ledger = ledger_by_stage_model(con, run.run_id)
    finally:
        con.close()
    create_markdown_artifact(key="build-summary", markdown=summary_markdown(done, counts, report, record, ledger,
                                                                            viewer),
                             description=f"Build {run.run_id}: {status}")


def summary_markdown(run: RunRecord, counts: dict[str, int], report: GateReport | None,
                     record: ReleaseRecord | None, ledger: list[dict] | None = None, viewer: Path | None = None) -> str:
    """The build summary: release path (or why none) and its viewer, gate verdict, rows per table, model calls."""
    lines = [f"# Build `{run.run_id}`: {run.status}", ""]
    if record is not None:
        lines += [f"Released **{record.name}/{record.version}** at `{record.path}`", ""]
        if viewer is not None:
            lines += [f"Browse it: [{viewer}]({viewer.as_uri()}) (a static site; `lifeloom view --release "
                      f"{record.name}/{record.version} --serve` serves it on 127.0.0.1)", ""]
    elif run.status == "succeeded":
        lines += [f"No new release: {run.message}", ""]
    else:
        lines += [f"No release: {run.message}", ""]
    if report is not None:
        s = report.summary()
        lines += [f"Gates: {s['passed']} of {s['expectations']} expectations passed", ""]
    lines += ["| table | rows |", "|---|---:|"] + [f"| {t} | {n} |" for t, n in sorted(counts.items())]
    if ledger:
        lines += ["", "## Model calls by stage and model", "", ledger_markdown(ledger)]
    return "\n".join(lines) + "\n"
