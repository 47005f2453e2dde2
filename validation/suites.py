"""Release-gate suites as code: each suite names the frames it reads and the expectations over them.

Expectations are described as data (a Great Expectations class name and its keyword arguments) so this
module imports without Great Expectations; the gate runner builds them. A suite module registers
itself with `register(...)`; the integrity suite lives here, and later families (coverage,
consistency, leakage, distribution) go in their own modules listed in SUITE_MODULES.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd

from validation.frames import evidence_frame, question_frame

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
SUITE_MODULES: tuple[str, ...] = ()
"""Modules that register further suites when imported (e.g. "validation.coverage")."""


def register(suite: Suite) -> Suite:
    """Add (or replace, by name) a suite in the registry the gate runner reads."""
    SUITES[:] = [s for s in SUITES if s.name != suite.name] + [suite]
    return suite


def all_suites() -> list[Suite]:
    """Every registered suite, after importing the modules that register them."""
    for module in SUITE_MODULES:
        importlib.import_module(module)
    return list(SUITES)


def _q(name: str, expectation: str, sample: str = "question_id", on_failure: str = "", **kwargs) -> Check:
    return Check(name, "questions", expectation, kwargs, sample, on_failure)


def _e(name: str, expectation: str, sample: str = "evidence_id", on_failure: str = "", **kwargs) -> Check:
    return Check(name, "question_evidence", expectation, kwargs, sample, on_failure)


INTEGRITY = register(
    Suite(
        name="integrity",
        frames={"questions": question_frame, "question_evidence": evidence_frame},
        checks=(
            _q("questions present", "ExpectTableRowCountToBeBetween", None, "no questions", min_value=1),
            _q("questions.question_id unique", "ExpectColumnValuesToBeUnique", column="question_id"),
            _q(
                "questions.question_id not null",
                "ExpectColumnValuesToNotBeNull",
                "persona_id",
                column="question_id",
            ),
            _q("questions.answer not null", "ExpectColumnValuesToNotBeNull", column="answer"),
            _q("questions.answer not empty", "ExpectColumnValuesToMatchRegex", column="answer", regex=r"\S"),
            _q(
                "questions.question has evidence",
                "ExpectColumnValuesToBeBetween",
                column="n_evidence",
                min_value=1,
            ),
            _e(
                "question_evidence.evidence resolves",
                "ExpectColumnValuesToBeInSet",
                column="resolves",
                value_set=[True],
            ),
            _e(
                "question_evidence.evidence precedes question_time",
                "ExpectColumnValuesToBeInSet",
                column="precedes",
                value_set=[True],
            ),
            _e(
                "question_evidence.fact_id resolves",
                "ExpectColumnValuesToBeInSet",
                "fact_id",
                column="fact_resolves",
                value_set=[True],
            ),
            _e(
                "question_evidence.question_id resolves",
                "ExpectColumnValuesToBeInSet",
                "question_id",
                column="question_resolves",
                value_set=[True],
            ),
        ),
    )
)
