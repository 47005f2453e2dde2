"""`nightly`: rebuild a corpus, gate it, and freeze a new release only when its content changed.

Deployed by deploy/prefect.yaml (cron 02:00 on a process work pool). Stage results come from the
data root's cache (flows/fingerprint.py), so an unchanged night costs little; a night whose content
equals the newest release freezes nothing and ends Completed with "rebuild matched name/vNNNN".
Either way a `nightly-summary` artifact says what changed since the previous release, the gate
verdict and the ledger totals. A failed gate fails the run; its summary then carries the failure
message, and the build's own artifacts name the failed expectations.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.states import Completed, Failed

from schemas.config import BuildConfig, RunnerOptions, load_config_file, load_preset
from warehouse import release
from warehouse.catalog import refresh_catalog
from warehouse.diff import diff_releases
from warehouse.paths import Layout, prepare_home
from warehouse.runs import prune_runs


def nightly_config(preset: str | None, config_file: str | None) -> BuildConfig:
    """The config a nightly run builds: a TOML file when given, else a bundled preset."""
    return load_config_file(Path(config_file)) if config_file else load_preset(preset or "demo")


def run_name() -> str:
    """`nightly <corpus>`: the name of the config the run builds (its file's when given, else the preset's)."""
    from prefect.runtime import flow_run

    params = flow_run.parameters or {}
    if params.get("config_file"):
        try:
            return f"nightly {load_config_file(Path(params['config_file'])).name}"
        except Exception:  # the run itself reports a bad config; its name falls back to the file's
            return f"nightly {Path(params['config_file']).stem}"
    return f"nightly {params.get('preset') or 'demo'}"


@flow(name="nightly", flow_run_name=run_name)
def nightly(preset: str | None = "demo", config_file: str | None = None, home: str = ".lifeloom",
            runner: str | None = None, keep_runs: int | None = None):
    """Build, gate and (when content changed) freeze; publish the nightly summary artifact. With `keep_runs`,
    then delete the landed partitions of all but the newest `keep_runs` runs (warehouse/runs.py
    `prune_runs`), so a data root rebuilt every night stays bounded."""
    from flows.runner import build_flow

    config = nightly_config(preset, config_file)
    if runner:
        runner_options = RunnerOptions.model_validate({**config.runner.model_dump(), "kind": runner})  # validated
        config = config.model_copy(update={"runner": runner_options})
    layout = prepare_home(home)
    previous = _newest(layout, config.name)
    refused = cost_check(config, layout)
    if refused is not None:
        return refused
    try:
        result = build_flow(config)(config=config, home=str(layout.home), freeze_if_unchanged=False)
    except Exception as exc:
        from flows.gating import GateFailed
        from flows.runner import describe_failure

        text = (f"# Nightly `{config.name}`: failed\n\nNo release.\n\n```\n{describe_failure(exc)}\n```\n\nThe "
                "failed `build` run's `failed-expectations` and `gate-report` artifacts list every failed expectation "
                "with what was observed against its threshold.\n")
        create_markdown_artifact(key="nightly-summary", markdown=text, description=f"Nightly {config.name}: failed")
        if isinstance(exc, GateFailed):  # expected: a readable Failed state, not an exception's repr
            return Failed(message=f"nightly {config.name}: {exc}", data=exc)
        raise
    if keep_runs is not None:
        pruned = prune_runs(layout, keep_runs)
        refresh_catalog(layout)
        get_run_logger().info("pruned %d run(s): %s", len(pruned), ", ".join(r for r, _ in pruned) or "none")
    markdown = nightly_markdown(config.name, previous, result, layout)
    create_markdown_artifact(key="nightly-summary", markdown=markdown, description=f"Nightly {config.name}")
    if result["release"] is None:
        message = f"rebuild matched {result['matched']}: content unchanged, no new release"
        get_run_logger().info(message)
        return Completed(message=message, data=result)
    return result


def cost_check(config: BuildConfig, layout: Layout):
    """For a config on a paid provider: count its plan against the data root's call cache (an unchanged night finds
    nearly every call there) and publish it as the `nightly-plan` artifact; a plan above [limits] max_cost_usd, or
    at an unknown price, is not started (a Failed state saying why, nothing sent). None when the build may run."""
    from flows.plan import over_ceiling, paid_stages, plan_build
    from flows.plan_text import plan_markdown

    if not paid_stages(config):
        return None
    plan = plan_build(config, layout.llm_cache)  # read if it is there (tasks/llm/counting.py PeekCache)
    create_markdown_artifact(key="nightly-plan", markdown=plan_markdown(plan), description=f"Plan of {config.name}")
    why = over_ceiling(plan, config.limits.max_cost_usd)
    if why is None:
        return None
    message = f"nightly {config.name}: not started, {why} (nothing was sent; raise [limits] max_cost_usd to allow it)"
    create_markdown_artifact(key="nightly-summary", markdown=f"# Nightly `{config.name}`: not started\n\n{message}\n",
                             description=f"Nightly {config.name}: not started")
    return Failed(message=message)


def _newest(layout: Layout, name: str) -> Path | None:
    versions = release.existing_versions(layout, name)
    return layout.release_dir(name, versions[-1]) if versions else None


def nightly_markdown(name: str, previous: Path | None, result: dict[str, Any], layout: Layout) -> str:
    """Verdict, what changed since the previous release, gate results and ledger totals."""
    rel = result.get("release")
    gates = result["gates"]
    lines = [f"# Nightly `{name}`", ""]
    if rel is None:
        lines += [f"Rebuild matched **{result['matched']}**: content unchanged, nothing frozen.", ""]
    else:
        lines += [f"New release **{rel['name']}/{rel['version']}** at `{rel['path']}`", ""]
    lines += [f"Gates: {gates['passed']} of {gates['expectations']} expectations passed", ""]
    if rel is not None and previous is not None:
        lines += _changes(previous, Path(rel["path"]))
    elif rel is not None:
        lines += ["First release of this corpus.", ""]
    manifest_dir = Path(rel["path"]) if rel else previous
    if manifest_dir is not None:
        ledger = json.loads((manifest_dir / "manifest.json").read_text())["ledger"]
        lines += ["## Ledger (release)", "", "| calls | cached | input tokens | output tokens | cost USD |",
                  "|---:|---:|---:|---:|---:|",
                  f"| {ledger['calls']} | {ledger['cached']} | {ledger['input_tokens']} | {ledger['output_tokens']} "
                  f"| {ledger['cost_usd']} |", ""]
    return "\n".join(lines)


def _changes(previous: Path, current: Path) -> list[str]:
    d = diff_releases(previous, current)
    lines = [f"## Changes since {previous.parent.name}/{previous.name}", "",
             f"Questions (compared by derivation and text): {d.unchanged} unchanged, {len(d.reworded)} reworded, "
             f"{len(d.reanswered)} re-answered, {len(d.added)} added, {len(d.removed)} removed", "",
             "| table | before | after | content |", "|---|---:|---:|---|"]
    lines += [f"| {t} | {a} | {b} | {'changed' if t in d.changed_tables else 'same'} |"
              for t, (a, b) in d.row_counts.items() if a != b or t in d.changed_tables]
    if len(lines) == 6:
        lines += ["| (no table changed) | | | |"]
    for x, y, question, old, new in d.reanswered[:10]:
        lines.append(f"- `{x}` → `{y}` {question}: {old!r} → {new!r}")
    return lines + [""]
