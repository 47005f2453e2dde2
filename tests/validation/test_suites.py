"""The suite registry and the integrity suite's shape; importing validation does not import GE."""

from __future__ import annotations

import functools
import subprocess
import sys

from tests.validation.conftest import GATE_CONFIG
from validation import suites as registry
from validation.gates import run_gates as _run_gates
from validation.integrity import INTEGRITY
from validation.suites import Check, Suite, all_suites, register

run_gates = functools.partial(_run_gates, config=GATE_CONFIG)
EXPECTED = [
    "questions present",
    "questions.question_id unique",
    "questions.question_id not null",
    "questions.answer not null",
    "questions.answer not empty",
    "questions.question has evidence",
    "question_evidence.evidence resolves",
    "question_evidence.evidence precedes question_time",
    "question_evidence.fact_id resolves",
    "question_evidence.question_id resolves",
]


def test_integrity_names_are_stable_and_unique():
    names = [c.name for c in INTEGRITY.checks]
    assert names[: len(EXPECTED)] == EXPECTED and len(set(names)) == len(names)
    assert INTEGRITY in all_suites()
    assert all(c.frame in INTEGRITY.frames for c in INTEGRITY.checks)


def test_every_family_has_a_suite_with_unique_names():
    suites = all_suites(GATE_CONFIG)
    assert [s.name for s in suites] == ["integrity", "coverage", "consistency", "leakage", "distribution",
                                        "companion", "validity", "tiers"]
    names = [c.name for s in suites for c in s.checks]
    assert len(names) == len(set(names))
    assert all(c.frame in s.frames for s in suites for c in s.checks)


def test_a_registered_suite_runs_beside_the_families(corpus, con_for, monkeypatch):
    monkeypatch.setattr(registry, "SUITES", list(registry.SUITES))
    extra = register(
        Suite(
            name="extra",
            frames={"questions": INTEGRITY.frames["questions"]},
            checks=(
                Check(
                    "questions.category in set",
                    "questions",
                    "ExpectColumnValuesToBeInSet",
                    {"column": "category", "value_set": ["temporal"]},
                    "question_id",
                ),
            ),
        )
    )
    assert all_suites()[-1] is extra
    report = run_gates(con_for({"r1": corpus}), "r1")
    assert "extra" in report.summary()["suites"]
    assert report.summary()["failed_expectations"] == ["extra: questions.category in set"]


def test_importing_validation_does_not_import_great_expectations():
    code = "import sys, validation; assert 'great_expectations' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
