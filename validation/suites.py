"""Release-gate suites as code: each suite names the frames it reads and the expectations over them.

Expectations are described as data (a Great Expectations class name and its keyword arguments) so this
module imports without Great Expectations; the gate runner builds them. One module per family
(integrity, coverage, consistency, leakage, distribution) registers a suite factory: a function from
the build config (its `gates` thresholds, `rollout_p`) to a Suite. `register(...)` adds a fixed suite.
The build's domain pack adds its own suites last (`DomainPack.suites`, see validation/domain.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd

from schemas.config import BuildConfig

FrameBuilder = Callable[[duckdb.DuckDBPyConnection, str], pd.DataFrame]


@dataclass(frozen=True)
class Check:
    """One expectation of a suite, with a stable readable name."""

    name: str
    frame: str
    expectation: str
    """A class name in `great_expectations.expectations`, e.g. "ExpectColumnValuesToBeUnique"."""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    sample_column: str | None = None
    """The column whose values of offending rows make up the result's sample of ids."""
    on_failure: str = ""
    """What a failure means, for reports (used when the failure has no sample ids to show)."""
    shows: tuple[str, ...] = ()
    """Columns whose values of an offending row say what was observed (default: the checked column)."""
    derive: tuple[str, str, str] | None = None
    """(name, a, b): the check reads column `name` = a - b, added to the frame before validation (a floor check
    is `n - floor >= 0`, so reports and Data Docs show one number a row, never the pair run together)."""

    @property
    def column(self) -> str | None:
        return self.kwargs.get("column")


@dataclass(frozen=True)
class Suite:
    """A named list of checks over frames computed from the warehouse for one run."""

    name: str
    frames: Mapping[str, FrameBuilder]
    checks: tuple[Check, ...]

    def checks_on(self, frame: str) -> list[Check]:
        return [c for c in self.checks if c.frame == frame]


SUITES: list[Suite] = []
"""Fixed suites (registered with `register`), run after the factories' suites."""
FACTORIES: dict[str, Callable[[BuildConfig], Suite]] = {}
SUITE_MODULES: tuple[str, ...] = (
    "validation.integrity", "validation.coverage", "validation.consistency", "validation.leakage",
    "validation.distribution", "validation.companion", "validation.validity", "validation.tiers",
)
"""Modules that register suite factories when imported."""
DEFAULT_CONFIG = BuildConfig(name="default")


def register(suite: Suite) -> Suite:
    """Add (or replace, by name) a fixed suite in the registry the gate runner reads."""
    SUITES[:] = [s for s in SUITES if s.name != suite.name] + [suite]
    return suite


def factory(name: str) -> Callable[[Callable[[BuildConfig], Suite]], Callable[[BuildConfig], Suite]]:
    """Decorator registering a suite factory under `name` (one per family)."""

    def wrap(fn: Callable[[BuildConfig], Suite]) -> Callable[[BuildConfig], Suite]:
        FACTORIES[name] = fn
        return fn

    return wrap


def all_suites(config: BuildConfig | None = None) -> list[Suite]:
    """Every family's suite for `config` (default thresholds when None), the fixed suites, then the
    domain pack's suites (`pack_suites`)."""
    for module in SUITE_MODULES:
        importlib.import_module(module)
    config = config or DEFAULT_CONFIG
    families = [m.rpartition(".")[2] for m in SUITE_MODULES]  # module order, whatever imported them first
    order = sorted(FACTORIES, key=lambda n: (families.index(n) if n in families else len(families), n))
    built = [FACTORIES[name](config) for name in order]
    return built + [s for s in SUITES if s.name not in {b.name for b in built}] + pack_suites(config)


def suite_named(name: str, config: BuildConfig | None = None) -> Suite:
    """The suite `name` as built for `config`."""
    (match,) = [s for s in all_suites(config) if s.name == name]
    return match


def all_true(name: str, frame: str, column: str, sample: str | None, on_failure: str = "") -> Check:
    """Every value of the boolean `column` is True (nulls are not tested)."""
    return Check(name, frame, "ExpectColumnValuesToBeInSet", {"column": column, "value_set": [True]}, sample,
                 on_failure)


def between(name: str, frame: str, column: str, sample: str | None = None, on_failure: str = "",
            low: float | None = None, high: float | None = None) -> Check:
    """Every non-null value of `column` lies in [low, high] (None = unbounded)."""
    return Check(name, frame, "ExpectColumnValuesToBeBetween",
                 {"column": column, "min_value": low, "max_value": high}, sample, on_failure)


def at_least(name: str, frame: str, sample: str, on_failure: str = "") -> Check:
    """Every row's `n` is at least its `floor` (its `n_minus_floor` is at least 0)."""
    return Check(name, frame, "ExpectColumnValuesToBeBetween", {"column": "n_minus_floor", "min_value": 0}, sample,
                 on_failure, shows=("n", "floor"), derive=("n_minus_floor", "n", "floor"))


def core_families() -> tuple[str, ...]:
    """The core suite families: one per module of SUITE_MODULES (so a new family is never missing here)."""
    return tuple(m.rpartition(".")[2] for m in SUITE_MODULES)




def pack_suites(config: BuildConfig) -> list[Suite]:
    """The domain pack's suites for `config` (none for the general pack): finance's investor-type quotas, event
    counts and spacing, post-shock changes and items, grid coverage, catalog-only event-title options, the impact
    fallback share and a layer-1 audit of the impact rows. They run after the core families; a pack suite may not
    take a core family's name (every module of SUITE_MODULES), and its check names must be unique within it.
    Multiple-choice balance is not a pack check: the core leakage suite gates it for every pack's items."""
    from tasks.domains import pack_for

    suites = list(pack_for(config).suites(config))
    names = [s.name for s in suites]
    for suite in suites:
        checks = [c.name for c in suite.checks]
        if suite.name in core_families() or names.count(suite.name) > 1:
            raise ValueError(f"domain pack {config.domain!r}: suite name {suite.name!r} is taken")
        if len(set(checks)) != len(checks) or any(c.frame not in suite.frames for c in suite.checks):
            raise ValueError(f"domain pack {config.domain!r}: suite {suite.name!r} repeats a check name "
                             "or checks a frame it does not build")
    return suites
