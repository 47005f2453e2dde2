"""What every `lifeloom` command shares: the Typer app, the consoles, the common options and one-message errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from schemas.config import BuildConfig, ConfigError, load_config_file, load_preset, preset_names

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Build, gate, freeze and query lifeloom corpora.")
PIPED_WIDTH = 4096
"""Columns a table may take when stdout is not a terminal (piped to a file or `less`): rich's default of 80 cut
wide tables and folded release paths."""
out = Console(width=None if sys.stdout.isatty() else PIPED_WIDTH)
err = Console(stderr=True)


def _no_flag_types() -> None:
    """`--help` without a `<bool>` tag after every flag: a flag takes no value, so its type says nothing."""
    from typer import core

    shown = getattr(core.TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_lifeloom", False):
        return

    def display(self, ctx):
        return None if getattr(self, "is_flag", False) or getattr(self, "is_bool_flag", False) else shown(self, ctx)

    display._lifeloom = True
    core.TyperOption.display_type_rich = display


_no_flag_types()

HomeOpt = Annotated[Path, typer.Option("--home", envvar="LIFELOOM_HOME", help="Data root.")]
DEFAULT_HOME = Path(".lifeloom")
VerifyOpt = Annotated[bool, typer.Option(
    "--verify/--no-verify", help="Check every file's SHA-256 against the manifest first (sizes are always checked).")]


def fail(message: str, code: int = 2) -> None:
    """One clear message on stderr (redacted: it may quote a provider's answer) and a non-zero exit."""
    from schemas.secrets import redact

    err.print(f"[bold red]error:[/] {escape(redact(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _quiet_prefect(quiet: bool = False, debug: bool = False) -> None:
    """Prefect's logging for a command that runs a flow: the run's logs reach the API, so the Prefect UI shows a
    CLI build's stage logs, at INFO (`quiet`: WARNING); the console shows warnings only, never the engine's
    tracebacks of a failed run (the command says what failed in one line) unless `debug`."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    # Prefect waits 20 s for its temporary API server; on a busy machine that start takes longer, and the build
    # failed with "Timed out while attempting to connect to ephemeral Prefect API server" before any work.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    level = "WARNING" if quiet else "INFO" if debug else os.environ.get("PREFECT_LOGGING_LEVEL", "INFO")
    os.environ["PREFECT_LOGGING_LEVEL"] = level
    if debug:
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
        os.environ.pop("LIFELOOM_CONSOLE_TRACEBACKS", None)
    else:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
        os.environ["LIFELOOM_CONSOLE_TRACEBACKS"] = "0"


QuietOpt = Annotated[bool, typer.Option("--quiet", help="Send only warnings of the run to the Prefect UI (default: "
                                                       "INFO, every stage's log).")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show Prefect's log and tracebacks on the console.")]


def _reading(path: Path | None, what: str):
    """A spinner on stderr while a large file (8 MiB or more) is read; nothing for a small one."""
    import contextlib

    try:
        size = path.stat().st_size if path is not None else 0
    except OSError:
        size = 0
    if size < 8 * 2**20:
        return contextlib.nullcontext()
    return err.status(f"reading {what} {path} ({size / 2**20:,.0f} MiB)")


def _csv(text: str, what: str, cast=str) -> list:
    items = [t.strip() for t in text.split(",") if t.strip()]
    try:
        return [cast(t) for t in items]
    except ValueError:
        fail(f"--{what} must be a comma-separated list of integers, got {text!r}")


def _print_issues(report) -> None:
    if not report.issues:
        out.print("Every id, date and reference mapped.")
        return
    kinds = ", ".join(f"{k}: {n}" for k, n in report.by_kind().items())
    out.print(f"Not mapped as is ({len(report.issues)}): {kinds}", highlight=False, soft_wrap=True)
    for issue in report.issues[:20]:
        out.print(f"  {issue.severity:7} {issue.kind}  {escape(issue.ref)}: {escape(issue.message)}",
                  highlight=False, soft_wrap=True)
    if len(report.issues) > 20:
        out.print(f"  ... {len(report.issues) - 20} more (all of them: <home>/imports/<run>.json on import)")


def resolve_config(preset: str | None, config: Path | None) -> BuildConfig:
    if preset and config:
        fail("give either --preset or --config, not both")
    if not preset and not config:
        fail(f"say what to build: --preset NAME ({', '.join(preset_names())}; `lifeloom presets` describes them) or "
             "--config FILE (a TOML config); `lifeloom build --preset demo` builds the demo corpus")
    try:
        cfg = load_config_file(config) if config else load_preset(preset)
    except ConfigError as exc:
        fail(str(exc))
    from tasks.domains import pack_for
    from tasks.world.profile import SeedFileError, seed_texts

    try:
        pack_for(cfg).check(cfg)  # a config the domain pack cannot build: one message, before anything starts
        with _reading(cfg.seed_file, "seed file"):
            seed_texts(cfg)  # so is a malformed seed file (or one beside a pack that samples its own personas)
    except (SeedFileError, ConfigError) as exc:
        fail(str(exc))
    return cfg
