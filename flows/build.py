"""`build_corpus`: one branch per persona (profile, simulate, sources, dialogue, questions, verify,
land), then gate and freeze. Every task is submitted up front; Prefect runs the persona branches
concurrently and each stage waits only for its own inputs."""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE

from flows import progress
from flows.stages import (
    Ctx,
    dialogue_task,
    profile_task,
    questions_task,
    review_task,
    simulate_task,
    sources_task,
    verify_task,
)
from schemas.audit import Finding, GateResult
from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import QuestionSet
from schemas.release import Manifest, ReleaseRecord, RunRecord
from schemas.world import World
from tasks import profile
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

STAGES = ("profile", "simulate", "sources", "dialogue", "questions", "review", "verify", "land")
"""The per-persona steps, in order (progress displays count these)."""


class GateFailed(RuntimeError):
    """The release gates failed; the message names the failed expectations."""


@task(name="land", task_run_name="land {persona_id}", cache_policy=NO_CACHE, persist_result=False)
def land_persona(ctx: Ctx, persona_id: str, persona: Persona, world: World, docs: Corpus, talk: Corpus,
                 qset: QuestionSet, findings: list[Finding]) -> dict[str, int]:
    """Write each of one persona's tables as its own Parquet partition; returns row counts."""
    tables = {
        "personas": [persona],
        "profile_snapshots": world.profile_snapshots,
        "profile_ops": world.profile_ops,
        "plans": world.plans,
        "events": world.events,
        "facts": world.facts,
        "constraints": world.constraints,
        "entities": world.entities,
        "documents": docs.documents,
        "chunks": docs.chunks,
        "bullets": talk.bullets,
        "sessions": talk.sessions,
        "turns": talk.turns,
        "questions": qset.questions,
        "question_evidence": qset.evidence,
        "verifier_findings": findings,
    }
    for table, rows in tables.items():
        land_rows(ctx.layout, table, rows, ctx.run_id, persona_id)
    progress.report("land", persona_id)
    return {table: len(rows) for table, rows in tables.items()}


def submit_persona(ctx: Ctx, persona_id: str, seed_text: str):
    """Submit one persona's branch; returns the future of its landing (row counts)."""
    p = profile_task.submit(ctx, persona_id, seed_text)
    w = simulate_task.submit(ctx, persona_id, p)
    s = sources_task.submit(ctx, persona_id, p, w)
    d = dialogue_task.submit(ctx, persona_id, p, w, s)
    q = review_task.submit(ctx, persona_id, p, w, s, d, questions_task.submit(ctx, persona_id, p, w, s, d))
    v = verify_task.submit(ctx, persona_id, p, w, s, d, q)
    return land_persona.submit(ctx, persona_id, p, w, s, d, q, v)


@task(name="gate", cache_policy=NO_CACHE, persist_result=False)
def gate(layout: Layout, run_id: str, config: BuildConfig) -> GateReport:
    """Run the release suites over the run's tables; land gate_results, write Data Docs, publish the report."""
    con = session(layout)
    try:
        report = run_gates(con, run_id, config=config, docs_dir=layout.gate_docs(run_id))
    finally:
        con.close()
    land_rows(layout, "gate_results", report.results, run_id)
    create_markdown_artifact(key="gate-report", markdown=report.markdown(), description="Release gate results")
    failed = [_failure_row(r) for r in report.failed()]
    if failed:
        create_table_artifact(key="failed-expectations", table=failed, description="Failed expectations")
    progress.report("gate", "all")
    return report


def _failure_row(result: GateResult) -> dict[str, Any]:
    return {"suite": result.suite, "expectation": result.expectation, "unexpected": result.unexpected_count,
            "sample": ", ".join(map(str, result.sample[:10]))}


@task(name="freeze", cache_policy=NO_CACHE, persist_result=False)
def freeze_release(layout: Layout, config: BuildConfig, run_id: str, report: GateReport,
                   version: str | None) -> ReleaseRecord:
    """Freeze the run into a new, immutable release directory."""
    con = session(layout)
    try:
        manifest = _manifest(con, layout, config, run_id, report, version)
    finally:
        con.close()
    record = release.freeze(layout, manifest, docs=layout.gate_docs(run_id))
    progress.report("freeze", "all")
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
        withdrawals=release.withdrawals(con, run_id),
        parent=f"{config.name}/{versions[-1]}" if versions else None,
    )


@flow(name="build_corpus", flow_run_name="build {config.name}")
def build_corpus(config: BuildConfig, home: str = ".lifeloom", version: str | None = None) -> dict[str, Any]:
    """Build, gate and freeze one corpus; returns the run id, row counts, gate summary and release."""
    layout = prepare_home(home)
    check_providers(config)  # a missing key or unreachable endpoint stops here, before any stage runs
    if version is not None and layout.release_dir(config.name, version).exists():
        raise release.ReleaseExists(f"release {config.name}/{version} already exists")
    run = RunRecord(run_id=new_run_id(config.name), name=config.name, config_hash=config.config_hash(),
                    code_version=code_version(), started_at=release.utc_now(), status="running")
    record_run(layout, run)
    release.save_run_config(layout, run.run_id, config)
    ids = profile.persona_ids(config)
    get_run_logger().info("run %s: %d personas over %d days", run.run_id, len(ids), config.days)
    counts: dict[str, int] = {}
    report = None
    try:
        ctx = Ctx(config, layout, run.run_id)
        branches = [submit_persona(ctx, pid, seed) for pid, seed in zip(ids, profile.seed_texts(config), strict=True)]
        counts = _sum_counts(b.result() for b in branches)
        report = gate(layout, run.run_id, config)
        if not report.success:
            raise GateFailed(report.failure_message())
        record = freeze_release(layout, config, run.run_id, report, version)
    except BaseException as exc:
        _finish(layout, run, "failed", f"{type(exc).__name__}: {exc}", counts, report, None)
        raise
    _finish(layout, run, "succeeded", "", counts, report, record)
    get_run_logger().info("released %s/%s at %s", record.name, record.version, record.path)
    return {"run_id": run.run_id, "counts": counts, "gates": report.summary(),
            "release": record.model_dump(mode="json")}


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
    else:
        lines += [f"No release: {run.message}", ""]
    if report is not None:
        s = report.summary()
        lines += [f"Gates: {s['passed']} of {s['expectations']} expectations passed", ""]
    lines += ["| table | rows |", "|---|---:|"] + [f"| {t} | {n} |" for t, n in sorted(counts.items())]
    if ledger:
        lines += ["", "## Model calls by stage and model", "", ledger_markdown(ledger)]
    return "\n".join(lines) + "\n"
