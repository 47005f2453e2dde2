"""`build_corpus`: one branch per persona (profile, simulate, sources, dialogue, questions, verify,
land), then gate and freeze. Persona branches are submitted in a sliding window of
`runner.max_active_personas`; Prefect runs them concurrently and each stage waits only for its own inputs."""

from __future__ import annotations

import os
import queue
import shutil
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from pydantic import BaseModel

from flows import progress
from flows.fingerprint import gate_fingerprint
from flows.stages import STAGE_TASKS, Ctx, Staged, stage_tasks
from schemas.audit import GateResult
from schemas.config import BuildConfig
from schemas.release import Manifest, ReleaseRecord, RunRecord
from schemas.tables import CORPUS_TABLES, TABLES
from tasks import profile
from tasks.domains import pack_for
from tasks.llm import prompts
from tasks.llm.preflight import check_providers
from validation.gates import GateReport, run_gates
from warehouse import release
from warehouse.catalog import refresh_catalog, session
from warehouse.ledger import ledger_by_stage_model, ledger_markdown
from warehouse.parquet import land_rows
from warehouse.paths import Layout, prepare_home
from warehouse.provenance import code_version, package_versions
from warehouse.runs import new_run_id, record_run

STAGES = ("profile", "simulate", "sources", "dialogue", "questions", "review", "verify", "companion", "land")
"""The per-persona steps, in order (progress displays count these)."""


class GateFailed(RuntimeError):
    """The release gates failed; the message names the failed expectations."""


@task(name="land", task_run_name="land {persona_id}", cache_policy=NO_CACHE, persist_result=False)
def land_persona(ctx: Ctx, persona_id: str, persona: Staged, world: Staged, docs: Staged, talk: Staged,
                 drafted: Staged, qset: Staged, findings: Staged, chat: Staged | None = None) -> dict[str, int]:
    """Write each of one persona's tables as its own Parquet partition under the current run; returns row
    counts. Never cached: a stage result reused from the cache lands again here, its ledger rows marked
    `cached` (the run's ledger lists every call its content rests on; `cached` says this run paid none)."""
    w, d, t, q = world.value, docs.value, talk.value, qset.value
    tables = {
        "personas": [persona.value],
        "profile_snapshots": w.profile_snapshots,
        "profile_ops": w.profile_ops,
        "plans": w.plans,
        "events": w.events,
        "facts": w.facts,
        "constraints": w.constraints,
        "entities": w.entities,
        "documents": d.documents,
        "chunks": d.chunks,
        "bullets": t.bullets,
        "sessions": t.sessions,
        "turns": t.turns,
        "questions": q.questions,
        "question_evidence": q.evidence,
        "verifier_findings": findings.value,
    }
    staged = dict(zip(STAGES, (persona, world, docs, talk, drafted, qset, findings), strict=False))
    if chat is not None:  # the companion tracks (tasks/companion/)
        staged["companion"] = chat
        tables.update(chat_probes=chat.value.probes, profile_claims=chat.value.claims,
                      persona_portraits=chat.value.portrait)
    for staged_rows in (s.rows for s in staged.values()):
        tables.update(staged_rows)
    tables.update(pack_rows(w.extras))  # the domain pack's own tables (finance: impact_constraints)
    for table in CORPUS_TABLES:  # every per-persona table lands for every run, empty when it has no rows
        if table != "llm_calls":
            tables.setdefault(table, [])
    for table, rows in tables.items():
        land_rows(ctx.layout, table, rows, ctx.run_id, persona_id)
    for stage, result in staged.items():
        if result.ledger:
            reused = result.origin_run != ctx.run_id
            rows = [r.model_copy(update={"cached": True}) for r in result.ledger] if reused else result.ledger
            rows = first_per_key(rows)
            land_rows(ctx.layout, "llm_calls", rows, ctx.run_id, persona_id, part=stage)
    return {table: len(rows) for table, rows in tables.items()}


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


def submit_persona(ctx: Ctx, persona_id: str, seed_text: str, tasks: dict | None = None):
    """Submit one persona's branch; returns the future of its landing (row counts)."""
    t = tasks or STAGE_TASKS
    p = _tracked(t["profile"].submit(ctx, persona_id, seed_text), "profile", persona_id)
    w = _tracked(t["simulate"].submit(ctx, persona_id, p), "simulate", persona_id)
    s = _tracked(t["sources"].submit(ctx, persona_id, p, w), "sources", persona_id)
    d = _tracked(t["dialogue"].submit(ctx, persona_id, p, w, s), "dialogue", persona_id)
    q0 = _tracked(t["questions"].submit(ctx, persona_id, p, w, s, d), "questions", persona_id)
    q = _tracked(t["review"].submit(ctx, persona_id, p, w, s, d, q0), "review", persona_id)
    v = _tracked(t["verify"].submit(ctx, persona_id, p, w, s, d, q), "verify", persona_id)
    c = _tracked(t["companion"].submit(ctx, persona_id, p, w, s, d), "companion", persona_id)  # beside questions
    return _tracked(land_persona.submit(ctx, persona_id, p, w, s, d, q0, q, v, c), "land", persona_id)


def _tracked(future, stage: str, persona_id: str):
    """Report the task's end to the progress sink (model calls, errors, cache hit) once it finishes."""

    def done(f) -> None:
        try:
            result = f.result(raise_on_failure=False)  # the final state is known once the result is
            state = f.state
        except Exception:  # progress is best effort; the flow sees the real error
            state, result = None, None
        ledger = getattr(result, "ledger", []) or []
        progress.report(progress.Event(
            stage=stage, persona_id=persona_id, ok=bool(state and state.is_completed()),
            calls=len(ledger), errors=sum(1 for r in ledger if r.outcome in ("error", "fallback")),
            cached=bool(state and state.name == "Cached")))

    future.add_done_callback(done)
    return future


@task(name="gate", task_run_name="gate {run_id}", cache_policy=NO_CACHE, persist_result=False)
def gate(layout: Layout, run_id: str, config: BuildConfig) -> GateReport:
    """Run the release suites over the run's tables; land gate_results, write Data Docs, publish the report."""
    con = session(layout)
    try:
        key = gate_fingerprint(config, release.content_hashes(con, run_id, CORPUS_TABLES))
        report = _cached_gates(layout, key, run_id)
        if report is None:
            report = run_gates(con, run_id, config=config, docs_dir=layout.gate_docs(run_id))
            _save_gates(layout, key, report)
    finally:
        con.close()
    land_rows(layout, "gate_results", report.results, run_id)
    create_markdown_artifact(key="gate-report", markdown=report.markdown(), description="Release gate results")
    failed = [_failure_row(r) for r in report.failed()]
    if failed:
        create_table_artifact(key="failed-expectations", table=failed, description="Failed expectations")
    progress.report(progress.Event("gate", "all", ok=report.success))
    return report


def _gate_cache(layout: Layout, key: str):
    return layout.prefect_cache / "gates" / f"{key}.json"


def _cached_gates(layout: Layout, key: str, run_id: str) -> GateReport | None:
    """The report of an earlier run whose gated tables had the same content (Data Docs copied over)."""
    path = _gate_cache(layout, key)
    try:
        earlier = GateReport.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None
    docs = layout.gate_docs(earlier.run_id)
    if (docs / "index.html").is_file() and not layout.gate_docs(run_id).exists():
        shutil.copytree(docs, layout.gate_docs(run_id))
    get_run_logger().info("gates: tables equal to run %s's, reusing its report", earlier.run_id)
    return earlier.model_copy(update={"run_id": run_id})


def _save_gates(layout: Layout, key: str, report: GateReport) -> None:
    path = _gate_cache(layout, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(report.model_dump_json(exclude={"success"}))
    os.replace(tmp, path)


def _failure_row(result: GateResult) -> dict[str, Any]:
    return {"suite": result.suite, "expectation": result.expectation, "unexpected": result.unexpected_count,
            "sample": ", ".join(map(str, result.sample[:10]))}


@task(name="freeze", task_run_name="freeze {run_id}", cache_policy=NO_CACHE, persist_result=False)
def freeze_release(layout: Layout, config: BuildConfig, run_id: str, report: GateReport,
                   version: str | None, freeze_if_unchanged: bool = True) -> ReleaseRecord | str:
    """Freeze the run into a new, immutable release directory. With `freeze_if_unchanged=False`, a run
    whose combined content hash equals the newest release's freezes nothing and returns that release's
    `name/version` instead."""
    con = session(layout)
    try:
        manifest = _manifest(con, layout, config, run_id, report, version)
    finally:
        con.close()
    parent = release.parent_manifest(layout, config.name)
    if not freeze_if_unchanged and parent is not None and parent.get("content_hash") == manifest.content_hash:
        progress.report(progress.Event("freeze", "all", ok=True, cached=True))
        return manifest.parent
    record = release.freeze(layout, manifest, docs=layout.gate_docs(run_id))
    progress.report(progress.Event("freeze", "all"))
    return record


def _manifest(con, layout: Layout, config: BuildConfig, run_id: str, report: GateReport,
              version: str | None) -> Manifest:
    hashes = release.content_hashes(con, run_id)
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
        package_versions=package_versions(),
        prompt_hashes={name: prompts.prompt_hash(name) for name in prompts.prompt_names()},
        ledger=release.ledger_totals(con, run_id),
        row_counts=release.row_counts(con, run_id),
        table_hashes=hashes,
        content_hash=release.combined_hash(hashes),
        gates=report.summary(),
        withdrawals=release.withdrawals(con, run_id), sources=release.source_counts(con, run_id),
        dialogue=release.dialogue_stats(con, run_id),
        companion=release.companion_stats(con, run_id, config),
        domain={"name": config.domain, **pack_for(config).release_stats(con, run_id)},
        parent=f"{config.name}/{versions[-1]}" if versions else None,
    )


@flow(name="build_corpus", flow_run_name="build {config.name}")
def build_corpus(config: BuildConfig, home: str = ".lifeloom", version: str | None = None,
                 freeze_if_unchanged: bool = True) -> dict[str, Any]:
    """Build, gate and freeze one corpus; returns the run id, row counts, gate summary and release
    (None, with `matched` naming the release, when content is unchanged and `freeze_if_unchanged` is off)."""
    layout = prepare_home(home)
    check_providers(config)  # a missing key or unreachable endpoint stops here, before any stage runs
    pack_for(config).check(config)  # a config the domain pack cannot build stops here too
    release.check_version_name(version)
    if version is not None and layout.release_dir(config.name, version).exists():
        raise release.ReleaseExists(f"release {config.name}/{version} already exists")
    ids, seed_texts = profile.persona_ids(config), profile.seed_texts(config)  # a bad seed file stops here
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
        counts = run_branches(ctx, list(zip(ids, seed_texts, strict=True)), tasks)
        report = gate(layout, run.run_id, config)
        if not report.success:
            raise GateFailed(report.failure_message())
        frozen = freeze_release(layout, config, run.run_id, report, version, freeze_if_unchanged)
    except BaseException as exc:
        _finish(layout, run, "failed", f"{type(exc).__name__}: {exc}", counts, report, None)
        raise
    record = frozen if isinstance(frozen, ReleaseRecord) else None
    matched = None if record else frozen
    message = f"rebuild matched {matched}: content unchanged, nothing frozen" if matched else ""
    _finish(layout, run, "succeeded", message, counts, report, record)
    if record:
        get_run_logger().info("released %s/%s at %s", record.name, record.version, record.path)
    else:
        get_run_logger().info(message)
    return {"run_id": run.run_id, "counts": counts, "gates": report.summary(), "matched": matched,
            "release": record.model_dump(mode="json") if record else None}


def run_branches(ctx: Ctx, seeds: list[tuple[str, str]], tasks: dict | None = None) -> dict[str, int]:
    """Run the persona branches, at most `runner.max_active_personas` in flight (a new one is submitted as
    one lands), and sum their row counts. Nothing here keeps a landed branch's futures, so its stage values
    are freed as it lands: peak memory follows the branches in flight, not the personas in the corpus."""
    finished: queue.SimpleQueue = queue.SimpleQueue()
    waiting, active = list(reversed(seeds)), 0
    limit = ctx.config.runner.max_active_personas
    total: dict[str, int] = {}
    while waiting or active:
        while waiting and active < limit:
            submit_persona(ctx, *waiting.pop(), tasks).add_done_callback(finished.put)
            active += 1
        landed = finished.get()
        active -= 1
        total = _sum_counts([total, landed.result()])  # a failed branch raises here, as before
        del landed
    return total


def _sum_counts(per_persona) -> dict[str, int]:
    total: dict[str, int] = {}
    for counts in per_persona:
        for table, n in counts.items():
            total[table] = total.get(table, 0) + n
    return total


def _finish(layout: Layout, run: RunRecord, status: str, message: str, counts: dict[str, int],
            report: GateReport | None, record: ReleaseRecord | None) -> None:
    """Record the run's end, refresh the catalog and publish the build summary artifact."""
    done = run.model_copy(update={"status": status, "message": message[:2000], "finished_at": release.utc_now()})
    record_run(layout, done)
    refresh_catalog(layout)
    con = session(layout)
    try:
        ledger = ledger_by_stage_model(con, run.run_id)
    finally:
        con.close()
    create_markdown_artifact(key="build-summary", markdown=summary_markdown(done, counts, report, record, ledger),
                             description=f"Build {run.run_id}: {status}")


def summary_markdown(run: RunRecord, counts: dict[str, int], report: GateReport | None,
                     record: ReleaseRecord | None, ledger: list[dict] | None = None) -> str:
    """The build summary: release path (or why none), gate verdict, rows per table, model calls."""
    lines = [f"# Build `{run.run_id}`: {run.status}", ""]
    if record is not None:
        lines += [f"Released **{record.name}/{record.version}** at `{record.path}`", ""]
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
