"""`lifeloom plan`, and the cost check `lifeloom build` runs before a paid build (flows/plan.py computes the plan)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from flows.cli_common import DEFAULT_HOME, HomeOpt, app, err, fail, out, resolve_config
from schemas.config import BuildConfig, preset_names


def _plan(cfg: BuildConfig, home: Path, workers: int | None = None):
    """The build's plan (flows/plan.py), counting calls against the data root's call cache, progress on stderr."""
    from flows.plan import plan_build
    from warehouse.paths import Layout

    cache = Layout(home.expanduser().absolute()).llm_cache
    with err.status("planning: counting every stage's calls with the offline narrator ...") as status:
        return plan_build(cfg, cache, workers,
                          say=lambda line: status.update(f"{line} ..."))


def approve_cost(cfg: BuildConfig, home: Path, yes: bool) -> None:
    """Print the plan of a paid build; above [limits] max_cost_usd (or at an unknown price) ask, or with no
    terminal to ask on, refuse unless `yes`. Nothing has been sent when this refuses."""
    from flows.plan import over_ceiling
    from flows.plan_text import text_lines

    plan = _plan(cfg, home)
    for line in text_lines(plan):
        out.print(line, highlight=False, soft_wrap=True)
    why = over_ceiling(plan, cfg.limits.max_cost_usd)
    if why is None or yes:
        return
    if not sys.stdin.isatty():
        fail(f"the build was not started: {why}; pass --yes to build anyway, or raise [limits] max_cost_usd")
    if not typer.confirm(f"Start the build? {why[0].upper()}{why[1:]}", default=False):
        fail("the build was not started: not confirmed (nothing was sent)", code=1)


@app.command()
def plan(
    preset: Annotated[str | None, typer.Option(help=f"Named preset ({', '.join(preset_names())}).")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML config file.")] = None,
    home: HomeOpt = DEFAULT_HOME,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    workers: Annotated[int | None, typer.Option(min=1, help="Processes counting personas (default: the cores).")]
    = None,
) -> None:
    """What a build will call, cost and wait for, before any call: calls, cache hits, input and output tokens,
    cost (synchronous and batch) per stage and provider/model, and the minimum wall time at the configured limits.
    Counted by running the stages with the offline narrator (nothing is sent, nothing lands)."""
    if fmt not in ("text", "json"):
        fail(f"unknown --format {fmt!r}; use text or json")
    cfg = resolve_config(preset, config)
    from flows.plan_text import text_lines

    found = _plan(cfg, home, workers)
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(found.to_json(), indent=2) + "\n")
        return
    for line in text_lines(found):
        out.print(line, highlight=False, soft_wrap=True)
