"""Fact measures: how the fact store reaches the text.

A mention is a (text item, fact) pair: a row of a `fact_mentions` table when the corpus has one, else each
fact id a turn or chunk lists (`fact_ids`, mode `stated`) and each a turn names without its value
(`paraphrase_ids`, mode `reference`).

- `facts.verbatim_mentions`: of the mentions that convey the value (the table's `counts`; not a reference, a
  distractor or a hypothetical), the share whose text holds the value verbatim (whole phrase, any case): the share
  a string match finds. The detail gives the count of every mode.
- `facts.mentions_per_fact`: mentions over facts (facts never mentioned count as 0).
- `facts.multi_turn_facts`: of the facts turns mention, the share no single turn states in full (none of their
  turns carries a surface form) though two or more turns mention them, or that a `split` mention records.
- `facts.pattern_recall`: of the facts user turns state, the share whose value the `pattern_memory` baseline's
  generic English patterns extract from those turns: how much of the store a few regular expressions recover.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from schemas.metrics import MeasureRow
from schemas.metrics import measure_row as row
from tasks.common.facttext import carries, mentions
from tasks.evaluate.patterns import extract
from tasks.evaluate.text import normalize
from tasks.metrics.corpus import PersonaCorpus


@dataclass
class FactTally:
    facts: int = 0
    mentions: int = 0
    verbatim: int = 0
    by_mode: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    turn_facts: int = 0
    multi_turn: int = 0
    stated: int = 0
    recovered: int = 0
    missed_examples: list[str] = field(default_factory=list)

    def add(self, corpus: PersonaCorpus) -> None:
        if not corpus.facts:
            return
        facts = {f.fact_id: f for f in corpus.facts}
        self.facts += len(facts)
        texts = {t.turn_id: t.text for t in corpus.turns} | {c.chunk_id: c.text for c in corpus.chunks}
        turn_ids = {t.turn_id for t in corpus.turns}
        listed = self._mentions(corpus)
        by_fact: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for fact_id, item, mode, counts in listed:
            fact, text = facts.get(fact_id), texts.get(item)
            if fact is None or text is None:
                continue
            self.by_mode[mode] += 1
            if not counts:
                continue
            self.mentions += 1
            self.verbatim += mentions(text, fact.value)
            if item in turn_ids:
                by_fact[fact_id].append((item, mode))
        for fact_id, items in by_fact.items():
            self.turn_facts += 1
            split = any(mode == "split" for _, mode in items)
            alone = any(carries(texts[i], facts[fact_id]) for i, _ in items)
            self.multi_turn += split or (not alone and len({i for i, _ in items}) > 1)
        self._recall(corpus, facts)

    def merge(self, other: FactTally) -> None:
        """Add the tally of later personas, counted apart (the rows are those of one tally over all, in order)."""
        for name in ("facts", "mentions", "verbatim", "turn_facts", "multi_turn", "stated", "recovered"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mode, n in other.by_mode.items():
            self.by_mode[mode] += n
        self.missed_examples = (self.missed_examples + other.missed_examples)[:5]

    def _mentions(self, corpus: PersonaCorpus) -> list[tuple[str, str, str, bool]]:
        if corpus.fact_mentions is not None:
            return [(m["fact_id"], m["evidence_id"], m.get("mode", "explicit"), bool(m.get("counts", True)))
                    for m in corpus.fact_mentions]
        out = [(f, t.turn_id, "stated", True) for t in corpus.turns for f in t.fact_ids]
        out += [(f, t.turn_id, "reference", False) for t in corpus.turns for f in t.paraphrase_ids]
        return out + [(f, c.chunk_id, "stated", True) for c in corpus.chunks for f in c.fact_ids]

    def _recall(self, corpus: PersonaCorpus, facts: dict) -> None:
        for t in corpus.turns:
            if t.role != "user" or not t.fact_ids:
                continue
            values = [normalize(s.value) for s in extract(t.text, t.turn_id, t.timestamp)]
            for fact_id in t.fact_ids:
                fact = facts.get(fact_id)
                if fact is None:
                    continue
                self.stated += 1
                want = normalize(fact.value)
                got = any(want and (want == v or f" {want} " in f" {v} ") for v in values)
                self.recovered += got
                if not got and len(self.missed_examples) < 5:
                    self.missed_examples.append(f"{t.turn_id}: {fact.attribute}")

    def rows(self) -> list[MeasureRow]:
        none = "" if self.facts else "needs the world's facts (not in this corpus)"
        return [
            row("facts.verbatim_mentions", self.verbatim / self.mentions if self.mentions else None, self.mentions,
                {"by_mode": dict(sorted(self.by_mode.items()))},
                none or ("" if self.mentions else "no mentions")),
            row("facts.mentions_per_fact", self.mentions / self.facts if self.facts else None, self.facts,
                note=none),
            row("facts.multi_turn_facts", self.multi_turn / self.turn_facts if self.turn_facts else None,
                self.turn_facts, note=none or ("" if self.turn_facts else "no turn mentions a fact")),
            row("facts.pattern_recall", self.recovered / self.stated if self.stated else None, self.stated,
                {"missed_examples": self.missed_examples},
                none or ("" if self.stated else "no user turn states a fact")),
        ]
