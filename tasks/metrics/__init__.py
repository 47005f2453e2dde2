"""Validity measures: how natural a corpus reads and how hard its questions are for systems that do not
remember (issue 21). `lifeloom metrics` prints them beside a reference corpus written by a real model; every
build lands them as the `measures` table, writes them into the manifest and the dataset card, and gates them
(`[gates.measures]`).

`measure_corpus(personas)` reads one PersonaCorpus at a time (memory follows one persona, not the corpus) and
returns one MeasureRow per measure, in a fixed order. The families, each documented in its module:
language (tasks/metrics/language.py), coherence (coherence.py), facts (facts.py), questions (questions.py),
difficulty (difficulty.py, over the baselines of tasks/evaluate/baselines.py). A measure the corpus cannot
support (facts of an imported benchmark, the cross-persona share of one persona) is null with a note.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas.metrics import MeasureRow, measure_names  # noqa: F401  (the names, for callers)
from tasks.metrics.corpus import PersonaCorpus
from tasks.metrics.grammar import VerdictCache

GRAMMAR_SAMPLE = 400
"""Sentences per role the grammar check parses (a seeded sample)."""


def measure_corpus(personas: Iterable[PersonaCorpus], grammar_sample: int = GRAMMAR_SAMPLE,
                   parse_cache: VerdictCache | None = None) -> list[MeasureRow]:
    """Every validity measure of the corpus made of `personas` (see the module doc); `parse_cache` remembers
    grammar verdicts across runs (warehouse/parsecache.py)."""
    tallies = new_tallies(grammar_sample, parse_cache)
    add_personas(tallies, personas)
    return measure_rows(tallies)


def new_tallies(grammar_sample: int = GRAMMAR_SAMPLE, parse_cache: VerdictCache | None = None) -> list:
    """One empty tally per family, in the order of the measure rows."""
    from tasks.metrics.coherence import CoherenceTally
    from tasks.metrics.difficulty import DifficultyTally
    from tasks.metrics.facts import FactTally
    from tasks.metrics.language import LanguageTally
    from tasks.metrics.questions import QuestionTally

    return [LanguageTally(grammar_sample, parse_cache), CoherenceTally(), FactTally(), QuestionTally(cache=parse_cache),
            DifficultyTally()]


def add_personas(tallies: list, personas: Iterable[PersonaCorpus]) -> list:
    """Count `personas` into `tallies`, one persona at a time; returns the tallies."""
    for corpus in personas:
        for tally in tallies:
            tally.add(corpus)
    return tallies


def merge_tallies(tallies: list, parts: Iterable[list]) -> list:
    """Add tallies counted apart (each over a run of consecutive personas, given in persona order) into
    `tallies`: the measures are then those of one pass over every persona (tests/tasks/metrics/test_merge.py)."""
    for part in parts:
        for tally, other in zip(tallies, part, strict=True):
            tally.merge(other)
    return tallies


def measure_rows(tallies: list) -> list[MeasureRow]:
    return [r for tally in tallies for r in tally.rows()]
