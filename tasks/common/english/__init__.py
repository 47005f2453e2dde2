"""English morphology, set up once for every module that needs it.

`INFLECT` is the one `inflect` engine of the process (articles, plurals, ordinals, number words). It is imported
without typeguard's instrumentation: inflect 7.2+ wraps each method in `@typechecked`, which re-parses the
module's source at import (about 3 s a process here: every CLI run, every Dask worker, every measure worker;
jaraco/inflect#212, open; datamodel-code-generator PR 3458 does the same) and then checks each call's argument
types at run time (about 0.9 s of a rhelm persona's branch). Callers pass plain strings and ints, so the checks
add nothing; any other importer of typeguard gets the real module back. Import this package before
anything else imports inflect. tests/tasks/common/test_english.py fails
when a module sets up an engine of its own.
"""

from __future__ import annotations

import sys
import types


def _inflect_engine():
    saved = sys.modules.get("typeguard")
    stub = types.ModuleType("typeguard")
    stub.typechecked = lambda target=None, **_: target if target is not None else (lambda f: f)  # type: ignore
    sys.modules["typeguard"] = stub
    try:
        import inflect  # already imported elsewhere (instrumented): that module, slower but the same answers
    finally:
        if saved is None:
            sys.modules.pop("typeguard", None)
        else:
            sys.modules["typeguard"] = saved
    return inflect.engine()


INFLECT = _inflect_engine()
"""The process's `inflect` engine (see the module doc)."""
