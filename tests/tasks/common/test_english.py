"""The one English morphology set-up (tasks/common/english): one `inflect` engine, uninstrumented."""

from __future__ import annotations

import re
from pathlib import Path

from tasks.common.english import INFLECT

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("tasks", "flows", "schemas", "validation", "warehouse", "bench")


def test_the_engine_answers_plainly():
    assert INFLECT.a("apple") == "an apple"
    assert INFLECT.ordinal(3) == "3rd"
    assert INFLECT.plural_noun("child") == "children"
    # no typeguard wrapper around its methods: the checks cost time on every call and add nothing here
    assert not hasattr(type(INFLECT).a, "__wrapped__")


def test_no_module_sets_up_a_second_engine():
    setup = re.compile(r"^\s*(import inflect\b|from inflect import)|inflect\.engine\(", re.M)
    found = [str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
             if setup.search(p.read_text()) and "tasks/common/english" not in p.as_posix()]
    assert found == [], f"set up inflect through tasks.common.english.INFLECT instead: {found}"
