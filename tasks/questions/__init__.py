"""Question generation: the framework (base, checkpoints, select, mcq and its scales, assemble, review, the
stage) and `generators/`, one module per category (fact, temporal, aggregation, hallucination, misleading,
external, mixed) with the one helper kit they share (`generators/kit/`). Every submodule is imported here, and
`generators/` imports its modules, so their `@generator` functions register themselves in `GENERATORS`; a new
module needs no registration elsewhere. A domain pack's generators (e.g. tasks/domains/finance/questions.py)
register in the same registry with its taxonomy's categories; `pack_for(config).generators()` picks a
build's.

For generator writers:
- `base`: Ref, Candidate, QContext (evidence_for, item, current, history, valid_on, rng), `generator`.
- `generators.kit`: the helpers (who, ask_on, refs, pools, state_query, stories, histories, constraints on a
  day, the document view, report tables); `kit.registered` is `@generator` with the answer-leak filter.
- `checkpoints`: `distraction_time` (ask after a block of unrelated sessions), `context_at` /
  `world_until` / `corpus_before` (the world and corpus as of a cut day: a generator also runs in the
  mid-timeline probe contexts, where it cannot see later facts, events, documents or turns).
- The framework drops a candidate whose answer is in its question (unless `extra["options_in_question"]`),
  whose explicit refs fail (missing, not before asked_at, not carrying their fact), whose facts have no
  evidence, or (`all_instances`) whose refs miss a counted fact; it sets `checkpoint` when None.
- Derivations record `generator` and `context_as_of`: the QA review runs the generator again in that
  context and matches (template, question text, asked_at), so a generator must be deterministic.
"""

from __future__ import annotations

import importlib
import pkgutil

from tasks.questions.base import CHARACTERISTICS, GENERATORS, TAXONOMY, Candidate, QContext, Ref, generator

__all__ = ["CHARACTERISTICS", "GENERATORS", "TAXONOMY", "Candidate", "QContext", "Ref", "generator"]

for _module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_module.name}")
