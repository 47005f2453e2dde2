"""Difficulty: what the adversarial baselines (tasks/evaluate/baselines.py) score, overall, by category and on
current-value and past-value items, each beside chance on the same items.

- `difficulty.chance`: the mean of each item's chance score (1/options, 1/2 for yes/no, else 0).
- `difficulty.<baseline>` and `difficulty.<baseline>.<category>`: accuracy (the question_only systems over
  multiple-choice items only; the others over every item). Short answers are scored by normalized exact or
  numeric match, options by content, long answers by the offline keyword judge (tasks/evaluate/judge.py).
- `difficulty.<baseline>.current_value` / `.past_value` (bm25_copy, pattern_memory, oracle_copy): items whose
  answer is the value of a fact the derivation cites, still valid at the question's date (current) or ended
  before it (past).

The overall row of each baseline lists the ids of the items it solves (`detail.solved`): `labels` turns them into one
`question_difficulty` row per item (which baselines answer it), landed beside the measures.

A memory-free or shallow baseline more than `FAR_ABOVE_CHANCE` above chance on at least `MIN_ITEMS` items is
named in the row's note: those items do not need the memory (or the inference) the benchmark means to test.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from schemas.metrics import VALUE_BASELINES, VALUE_KINDS, MeasureRow
from schemas.metrics import measure_row as row
from schemas.qa import Question
from tasks.evaluate import judge
from tasks.evaluate.baselines import (
    BASELINES,
    CEILING,
    COPY_K,
    MEMORY_FREE,
    QUESTION_ONLY,
    HistoryIndex,
    answer_all,
    answer_prior,
    chance,
)
from tasks.evaluate.patterns import PatternMemory
from tasks.evaluate.retrieval import Retriever, items_of
from tasks.evaluate.text import normalize
from tasks.metrics.corpus import PersonaCorpus

FAR_ABOVE_CHANCE = 0.15
MIN_ITEMS = 10


def correct(question: Question, answer: str) -> bool:
    """The harness's deterministic scoring; abstention items as a decline or not; other long answers by the
    offline keyword judge."""
    if question.answer_type == "long" and not question.abstention:
        return bool(judge.offline_verdict(judge.judge_context(question, answer))["correct"])
    return bool(judge.score(question, answer).correct)


def value_kind(question: Question, facts: dict) -> str | None:
    """current_value / past_value when a short or multiple-choice answer is the value of a fact the derivation
    cites, else None (long answers are the reference answers of false-premise items, not values)."""
    if question.answer_type == "long":
        return None
    cited = question.derivation.get("fact_ids", []) if isinstance(question.derivation, dict) else []
    day = question.question_time.date()
    for fact_id in cited:
        fact = facts.get(fact_id)
        if fact is not None and normalize(fact.value) == normalize(question.answer):
            return "current_value" if fact.valid_to is None or fact.valid_to > day else "past_value"
    return None


@dataclass
class _Item:
    question: Question
    chance: float
    kind: str | None
    results: dict[str, bool] = field(default_factory=dict)


@dataclass
class DifficultyTally:
    """Runs the baselines persona by persona (answer_prior once all items are in)."""

    k: int = COPY_K
    items: list[_Item] = field(default_factory=list)

    def add(self, corpus: PersonaCorpus) -> None:
        if not corpus.questions:
            return
        history = items_of(corpus.turns, corpus.chunks, "both")
        texts = {i.item_id: i.text for i in history}
        retriever = Retriever(history)
        gold: dict[str, frozenset[str]] = defaultdict(frozenset)
        for e in corpus.evidence:
            gold[e.question_id] = gold[e.question_id] | {e.evidence_id}
        ranked = {name: {q.question_id: retriever.rank(system, q, gold[q.question_id], self.k)
                         for q in corpus.questions}
                  for name, system in (("bm25_copy", "bm25"), ("oracle_copy", "oracle"))}
        memory = PatternMemory(persona_name=corpus.name).read(corpus.turns)
        index = HistoryIndex(history)
        facts = {f.fact_id: f for f in corpus.facts}
        new = {q.question_id: _Item(q, chance(q), value_kind(q, facts)) for q in corpus.questions}
        for system in BASELINES:
            if system == "answer_prior":
                continue
            answers = answer_all(system, corpus.questions, persona_history=index, memory=memory,
                                 retrieved=ranked.get(system), texts=texts)
            for qid, (answer, _) in answers.items():
                q = new[qid].question
                if system in QUESTION_ONLY and q.answer_type != "mcq":
                    continue
                new[qid].results[system] = correct(q, answer)
        self.items += new.values()

    def merge(self, other: DifficultyTally) -> None:
        """Add the items of later personas, run apart (answer_prior runs over all of them in `rows`)."""
        self.items += other.items

    def rows(self) -> list[MeasureRow]:
        if not self.items:
            return [row("difficulty.chance", None, 0, note="no questions")] + [
                row(f"difficulty.{b}", None, 0, note="no questions")
                for b in BASELINES]
        prior = answer_prior([i.question for i in self.items])
        for item in self.items:
            item.results["answer_prior"] = correct(item.question, prior.get(item.question.question_id, ""))
        categories = sorted({i.question.category for i in self.items})
        out = [row("difficulty.chance", _mean(i.chance for i in self.items), len(self.items))]
        for c in categories:
            mine = [i.chance for i in self.items if i.question.category == c]
            out.append(row(f"difficulty.chance.{c}", _mean(mine), len(mine)))
        for system in BASELINES:
            out += self._baseline(system, categories)
        return out

    def _baseline(self, system: str, categories: list[str]) -> list[MeasureRow]:
        scored = [i for i in self.items if system in i.results]
        overall = self._row(f"difficulty.{system}", system, scored)
        overall.detail["solved"] = sorted(i.question.question_id for i in scored if i.results[system])
        overall.detail["scored"] = len(scored)
        rows = [overall]
        for c in categories:
            rows.append(self._row(f"difficulty.{system}.{c}", system,
                                  [i for i in scored if i.question.category == c]))
        if system in VALUE_BASELINES:
            for kind in VALUE_KINDS:
                rows.append(self._row(f"difficulty.{system}.{kind}", system, [i for i in scored if i.kind == kind]))
        return rows

    def _row(self, name: str, system: str, items: list[_Item]) -> MeasureRow:
        if not items:
            return row(name, None, 0, note="no items" if system not in QUESTION_ONLY else "no MCQ items")
        accuracy = _mean(i.results[system] for i in items)
        base = _mean(i.chance for i in items)
        note = ""
        if system not in CEILING and len(items) >= MIN_ITEMS and accuracy > base + FAR_ABOVE_CHANCE:
            why = "answerable without memory" if system in MEMORY_FREE else (
                "answerable by keyword retrieval and copying" if system == "bm25_copy"
                else "answerable by surface patterns")
            note = f"far above chance ({accuracy:.2f} vs {base:.2f}): {why}"
        return row(name, accuracy, len(items), {"chance": round(base, 4)}, note)


def _mean(values) -> float:
    values = [float(v) for v in values]
    return sum(values) / len(values) if values else 0.0


def labels(rows: list, questions: list[tuple[str, ...]]) -> list:
    """One QuestionDifficulty per question (`questions`: id, category, answer type[, answer[, abstains]]) from the
    measure rows' `difficulty.<baseline>` details: which baselines solve it, which were scored on it, and whether it
    is `memory_free`: its template's prior (`answer_prior`) gives its answer where a guess would not (a short or long
    answer other than yes/no). A question-only heuristic or the prior on multiple choice or yes/no is right one time
    in six or two by chance alone, so those solves are labelled but do not make an item memory-free. Nor does the
    prior's decline on an abstention item: whether to decline is a choice of two, and each abstention template also
    asks its answerable twins in the same words (the stage alternates them), so always declining is a guess that is
    right about half the time, as always answering Yes is."""
    from schemas.metrics import QuestionDifficulty

    solved = {}
    for r in rows:
        name = r.measure.removeprefix("difficulty.")
        if r.measure.startswith("difficulty.") and name in BASELINES and "solved" in r.detail:
            solved[name] = set(r.detail["solved"])
    out = []
    for qid, category, answer_type, *rest in questions:
        answer, abstains = rest[:1], len(rest) > 1 and bool(rest[1])
        scored = [b for b in BASELINES if b in solved and (b not in QUESTION_ONLY or answer_type == "mcq")]
        by = [b for b in scored if qid in solved[b]]
        out.append(QuestionDifficulty(question_id=qid, category=category, answer_type=answer_type, solved_by=by,
                                      scored_by=scored, memory_free="answer_prior" in by and not guessable(
                                          answer_type, answer[0] if answer else None, abstains)))
    return out


def guessable(answer_type: str, answer: str | None, abstains: bool) -> bool:
    """Whether a guess is right some of the time anyway: multiple choice (one in six), yes/no and an abstention
    item (decline or not: one in two). The answer prior being right on such an item is a guess, not a leak."""
    return answer_type == "mcq" or abstains or answer is not None and normalize(answer) in ("yes", "no")
