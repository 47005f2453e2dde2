"""The gate runner holds a frame only while a suite still reads it (issue 13: bounded gate memory)."""

from __future__ import annotations

import gc
import weakref

import pandas as pd
import pytest

from validation import gates
from validation.suites import Suite, all_true


@pytest.fixture
def no_ge(monkeypatch):
    """Validation stubbed out (importing Great Expectations costs seconds); records the frames it saw."""
    seen: list[str] = []
    monkeypatch.setattr(gates, "_validate", lambda report, suite, name, df, checks, docs=None: seen.append(
        f"{suite.name}.{name}"))
    return seen


def test_frames_are_freed_after_the_last_suite_that_reads_them(no_ge):
    alive: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
    built: list[str] = []

    def live() -> set[str]:
        gc.collect()
        return set(alive.keys())

    def builder(name: str, expect_alive: set[str]):
        def build(con, run_id):
            assert live() == expect_alive, name
            built.append(name)
            df = pd.DataFrame({"ok": [True], "id": ["x"]})
            alive[name] = df
            return df
        return build

    shared = builder("shared", set())        # read by suites a and b
    only_a = builder("only_a", {"shared"})   # read by suite a only
    late = builder("late", set())            # suite c: both earlier frames are gone by now
    unread = builder("unread", set())        # no check reads it: never built
    check = lambda frame: all_true(f"{frame} ok", frame, "ok", "id")  # noqa: E731
    suites = [
        Suite("a", {"s": shared, "x": only_a, "u": unread}, (check("s"), check("x"))),
        Suite("b", {"s2": shared}, (check("s2"),)),
        Suite("c", {"l": late}, (check("l"),)),
    ]
    gates.run_gates(None, "r", suites=suites)
    assert built == ["shared", "only_a", "late"]  # the shared frame built once
    assert no_ge == ["a.s", "a.x", "b.s2", "c.l"]
    assert live() == set()


def test_great_expectations_keeps_no_frame_after_validating(tmp_path):
    """Great Expectations caches every batch it loaded; the runner drops them, with and without Data Docs."""
    alive: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def builder(name: str):
        def build(con, run_id):
            gc.collect()
            assert set(alive.keys()) == set(), name
            df = pd.DataFrame({"ok": [True, False], "id": ["a", "b"]})
            alive[name] = df
            return df
        return build

    suites = [Suite(n, {"f": builder(n)}, (all_true(f"{n} ok", "f", "ok", "id"),)) for n in ("a", "b")]
    for docs in (None, tmp_path / "docs"):
        report = gates.run_gates(None, "r", suites=suites, docs_dir=docs)
        gc.collect()
        assert not alive and [r.sample for r in report.results] == [["b"], ["b"]]
