"""The core question generators: one module per category of RHELM's taxonomy (fact, temporal, aggregation,
hallucination, misleading, external, mixed), each holding its characteristics' `@generator` functions, and
the one helper kit they share (`kit/`). Every module is imported here, so its generators register in
`tasks.questions.base.GENERATORS`; a new module needs no registration elsewhere."""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _module.name != "kit":
        importlib.import_module(f"{__name__}.{_module.name}")
