"""Language measures of dialogue turns, by role (user, assistant):

- `distinct_sentences`: distinct sentences over all sentences (tasks/metrics/text.py `normal` forms).
- `top50_skeleton_share`: share of sentences whose skeleton (entities, numbers, dates masked) is one of the
  50 most common skeletons that occur more than once: how much of the text a few templates write.
- `cross_persona_share`: share of sentences of four words or more that another persona also says verbatim.
- `complete_parses`: share of a seeded sample of sentences (`sample` per role, drawn by the lowest SHA-1 of
  turn id and position, so the same corpus always gives the same sample) that Link Grammar parses completely.
- `words_per_sentence`: the mean sentence length, for context.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from dataclasses import dataclass, field

from schemas.metrics import ROLES, MeasureRow
from schemas.metrics import measure_row as _row
from tasks.metrics import grammar
from tasks.metrics.corpus import PersonaCorpus
from tasks.metrics.text import normal, sentences, skeleton

TOP_SKELETONS = 50
MIN_CROSS_WORDS = 4


@dataclass
class _RoleTally:
    sentences: int = 0
    words: int = 0
    forms: Counter = field(default_factory=Counter)
    skeletons: Counter = field(default_factory=Counter)
    owner: dict[bytes, str] = field(default_factory=dict)
    """normal-form digest -> the one persona that said it, or '*' once two have."""
    eligible: Counter = field(default_factory=Counter)
    sample: list[tuple[int, str]] = field(default_factory=list)
    """A max-heap (negated digests) of the `sample` sentences with the lowest digests."""

    def merge(self, other: _RoleTally, size: int) -> None:
        """Add the counts of `other`, a tally of later personas (the order `add` would have seen them in)."""
        self.sentences += other.sentences
        self.words += other.words
        self.forms.update(other.forms)
        self.skeletons.update(other.skeletons)
        self.eligible.update(other.eligible)
        for h, persona in other.owner.items():
            seen = self.owner.get(h)
            self.owner[h] = persona if seen in (None, persona) else "*"
        self.sample = heapq.nlargest(size, self.sample + other.sample)  # the lowest digests, negated
        heapq.heapify(self.sample)


def _digest(form: str) -> bytes:
    """A normal form's key: stable across processes, unlike `hash` (tallies counted apart are merged)."""
    return hashlib.blake2b(form.encode(), digest_size=8).digest()


class LanguageTally:
    """Accumulates the language measures one persona at a time."""

    def __init__(self, sample: int = 400, cache: grammar.VerdictCache | None = None) -> None:
        self.size = sample
        self.cache = cache
        self.roles = {role: _RoleTally() for role in ROLES}

    def add(self, corpus: PersonaCorpus) -> None:
        names = corpus.known_names()
        for turn in corpus.turns:
            tally = self.roles.get(turn.role)
            if tally is None:
                continue
            for i, sentence in enumerate(sentences(turn.text)):
                self._count(tally, corpus.persona_id, f"{turn.turn_id}:{i}", sentence, names)

    def merge(self, other: LanguageTally) -> None:
        """Add the tally of later personas, counted apart (in another process): the rows are those of one tally
        that saw every persona in order."""
        for role, tally in self.roles.items():
            tally.merge(other.roles[role], self.size)

    def sampled(self) -> list[str]:
        """The sentences the grammar measure parses (in `rows`), so a pool can parse them first."""
        return [sentence for t in self.roles.values() for _, sentence in t.sample]

    def __getstate__(self) -> dict:  # the verdict cache (an SQLite connection) stays in the process that opened it
        return {**self.__dict__, "cache": None}

    def _count(self, tally: _RoleTally, persona_id: str, key: str, sentence: str, names: tuple[str, ...]) -> None:
        form = normal(sentence)
        tally.sentences += 1
        tally.words += len(form.split())
        h = _digest(form)
        tally.forms[h] += 1
        tally.skeletons[skeleton(sentence, names)] += 1
        if len(form.split()) >= MIN_CROSS_WORDS:
            tally.eligible[h] += 1
            seen = tally.owner.get(h)
            tally.owner[h] = persona_id if seen in (None, persona_id) else "*"
        if not self.size:
            return
        digest = int.from_bytes(hashlib.sha1(key.encode()).digest()[:8], "big")
        if len(tally.sample) < self.size:
            heapq.heappush(tally.sample, (-digest, sentence))
        elif digest < -tally.sample[0][0]:
            heapq.heapreplace(tally.sample, (-digest, sentence))

    def rows(self) -> list[MeasureRow]:
        out: list[MeasureRow] = []
        for role, t in self.roles.items():
            out += [self._distinct(role, t), self._skeletons(role, t), self._cross(role, t), self._grammar(role, t),
                    _row(f"language.{role}.words_per_sentence", t.words / t.sentences if t.sentences else None,
                         t.sentences, note="" if t.sentences else f"no {role} sentences")]
        return out

    def _distinct(self, role: str, t: _RoleTally) -> MeasureRow:
        value = len(t.forms) / t.sentences if t.sentences else None
        return _row(f"language.{role}.distinct_sentences", value, t.sentences,
                    {"distinct": len(t.forms)}, "" if t.sentences else f"no {role} sentences")

    def _skeletons(self, role: str, t: _RoleTally) -> MeasureRow:
        repeated = [(s, n) for s, n in t.skeletons.most_common(TOP_SKELETONS) if n > 1]
        value = sum(n for _, n in repeated) / t.sentences if t.sentences else None
        return _row(f"language.{role}.top50_skeleton_share", value, t.sentences,
                    {"skeletons": len(t.skeletons), "top": [{"skeleton": s, "n": n} for s, n in repeated[:10]]},
                    "" if t.sentences else f"no {role} sentences")

    def _cross(self, role: str, t: _RoleTally) -> MeasureRow:
        eligible = sum(t.eligible.values())
        personas = {p for p in t.owner.values() if p != "*"}
        shared = sum(n for h, n in t.eligible.items() if t.owner.get(h) == "*")
        if not eligible or (len(personas) < 2 and not shared):
            return _row(f"language.{role}.cross_persona_share", None, eligible,
                        note="needs sentences from at least two personas")
        return _row(f"language.{role}.cross_persona_share", shared / eligible, eligible)

    def _grammar(self, role: str, t: _RoleTally) -> MeasureRow:
        name = f"language.{role}.complete_parses"
        if not grammar.available():
            return _row(name, None, 0, note="Link Grammar is not installed")
        tally = grammar.ParseTally(cache=self.cache)
        for _, sentence in sorted(t.sample, reverse=True):  # by digest: a fixed order for a fixed sample
            tally.add(sentence)
        return _row(name, tally.share, tally.checked,
                    {"sampled": len(t.sample), "skipped": tally.skipped, "unparsed_examples": tally.failures},
                    "" if tally.checked else f"no {role} sentences")

