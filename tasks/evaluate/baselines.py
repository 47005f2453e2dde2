"""Adversarial baselines: systems that answer without the memory a benchmark means to test, or with only the
shallowest kind. Each is deterministic, needs no model and says what it is:

- `answer_prior`: the most common answer of the *other* items of the question's template (leave-one-out; the
  derivation's `template`, else the item's category and characteristics); on multiple choice, the option most
  frequent among those answers. A benchmark whose templates have favourite answers is guessable.
- `question_only_longest`, `question_only_overlap`, `question_only_frequent` (multiple choice only): the
  longest option; the option sharing most content words with the question; the option mentioned most often in
  the persona's history before the question (a popularity prior, no retrieval for the question).
- `bm25_copy`: BM25 over the history before `question_time` (tasks/evaluate/retrieval.py), then copies a span
  of the answer type the question asks for from the top passages: the option found in the best-ranked passage,
  a number for "how many", a date for "when", a name for "who"/"where", "Yes"/"No" for a yes/no question by
  whether a passage holds its words, the best sentences for a long answer (`copy_answer`).
- `pattern_memory`: regular-expression extraction of holder / attribute / value statements from user turns,
  latest value kept (tasks/evaluate/patterns.py).
- `oracle_copy`: the copy reader over the question's evidence items: the ceiling of extractive copying.

Ties and "no idea" on multiple choice fall to a seeded guess, so a baseline that knows nothing scores chance.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict

from schemas.metrics import BASELINES
from schemas.qa import Question
from tasks.evaluate import reader
from tasks.evaluate.patterns import PatternMemory, guess
from tasks.evaluate.text import content_words, normalize

MEMORY_FREE = BASELINES[:4]
SHALLOW = ("bm25_copy", "pattern_memory")
CEILING = ("oracle_copy",)
QUESTION_ONLY = tuple(b for b in MEMORY_FREE if b.startswith("question_only"))
YES_SHARE = 0.6
"""The copy reader answers a yes/no question "Yes" when one passage holds this share of its words."""
COPY_K = 5
"""Passages the copy reader reads (its top k, when not given)."""

_YES_NO = re.compile(r"^(?:(?:so far|overall|between [^,]+|in [^,]+|since [^,]+|by [^,]+), )?(?:did|does|do|is|are|was|"
                     r"were|has|have|had|can|could|will|would)\b", re.I)


def template_of(question: Question) -> str:
    """The item's template: the derivation's, else its category and characteristics (imported benchmarks)."""
    found = question.derivation.get("template") if isinstance(question.derivation, dict) else None
    return str(found) if found else f"{question.category}:{','.join(sorted(question.characteristics))}"


def is_yes_no(question: Question) -> bool:
    return question.answer_type != "mcq" and normalize(question.answer) in ("yes", "no")


def chance(question: Question) -> float:
    """What a guess scores on the item: 1/options for multiple choice, 1/2 for yes/no, else 0."""
    if question.answer_type == "mcq" and question.options:
        return 1 / len(question.options)
    return 0.5 if is_yes_no(question) else 0.0


def answer_prior(questions: list[Question]) -> dict[str, str]:
    """Each item's answer by the leave-one-out prior of its template (see the module doc)."""
    by_template: dict[str, Counter] = defaultdict(Counter)
    originals: dict[str, str] = {}
    for q in questions:
        by_template[template_of(q)][normalize(q.answer)] += 1
        originals.setdefault(normalize(q.answer), q.answer)
    out = {}
    for q in questions:
        others = by_template[template_of(q)].copy()
        others[normalize(q.answer)] -= 1
        others = +others
        if q.answer_type == "mcq":
            scores = [others.get(normalize(o), 0) for o in q.options]
            best = max(scores, default=0)
            tied = [o for o, s in zip(q.options, scores, strict=True) if s == best and best > 0]
            out[q.question_id] = tied[0] if len(tied) == 1 else guess(q)
        else:
            ranked = sorted(others.items(), key=lambda kv: (-kv[1], kv[0]))
            out[q.question_id] = originals[ranked[0][0]] if ranked else ""
    return out


def _pick(question: Question, scores: list[float]) -> str:
    best = max(scores, default=0.0)
    tied = [o for o, s in zip(question.options, scores, strict=True) if s == best]
    if len(tied) == 1:
        return tied[0]
    return guess(question.model_copy(update={"options": tied}))


def question_only(system: str, question: Question, history: HistoryIndex | None = None) -> str:
    """A multiple-choice answer from the question and options alone ("" for other items)."""
    if question.answer_type != "mcq" or not question.options:
        return ""
    if system == "question_only_longest":
        return _pick(question, [float(len(o)) for o in question.options])
    if system == "question_only_overlap":
        asked = set(content_words(question.question))
        return _pick(question, [float(len(asked & set(content_words(o)))) for o in question.options])
    if system == "question_only_frequent":
        index = history or HistoryIndex([])
        return _pick(question, [float(index.count(o, question.question_time)) for o in question.options])
    raise ValueError(f"unknown question-only system {system!r}")


class HistoryIndex:
    """A persona's history texts in time order, normalized, for counting how often a phrase was said before a
    time (each phrase's positions found once)."""

    def __init__(self, items) -> None:
        ordered = sorted(items, key=lambda i: (i.timestamp, i.item_id))
        self._starts: list[int] = []
        self._times = [i.timestamp for i in ordered]
        parts, pos = [], 1
        for item in ordered:
            self._starts.append(pos)
            text = normalize(item.text)
            parts.append(text)
            pos += len(text) + 1
        self._text = " " + " ".join(parts) + " "
        self._positions: dict[str, list[int]] = {}

    def count(self, phrase: str, before) -> int:
        needle = normalize(phrase)
        if not needle:
            return 0
        if needle not in self._positions:
            key, found, start = f" {needle} ", [], self._text.find(f" {needle} ")
            while start >= 0:
                found.append(start)
                start = self._text.find(key, start + 1)
            self._positions[needle] = found
        end = bisect.bisect_left(self._times, before)
        limit = self._starts[end] if end < len(self._starts) else len(self._text)
        return bisect.bisect_left(self._positions[needle], limit - 1)  # a match starts at the space before it


_HOW_MANY = re.compile(r"\bhow (?:many|much|long|often)\b|\bwhat (?:number|amount|total)\b|\bcount\b")
_WHEN = re.compile(r"^(?:when|on what (?:date|day)|what (?:date|day)|which (?:date|day))\b")
_WHO = re.compile(r"^(?:who|whom|whose|with whom)\b|\bwhich (?:person|friend|colleague|relative)\b")
_WHERE = re.compile(r"^where\b|\bwhich (?:cafe|café|shop|place|city|town|restaurant|venue|company|employer)\b")
_NAME_SPAN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]*(?:\s+(?:of|the|de|da|van|on)?\s*[A-Z][\w'’-]*)*")


_NOT_A_NAME = frozenset("i january february march april may june july august september october november december "
                        "monday tuesday wednesday thursday friday saturday sunday".split())


def copy_answer(question: Question, texts: list[str]) -> str:
    """The copy reader: a span of the answer type the question asks for, from the passages best first."""
    if question.answer_type == "mcq":
        return _copy_option(question, texts)
    if question.answer_type == "long":
        return reader.answer_long(question, texts)
    if _YES_NO.match(question.question.strip()) and not _HOW_MANY.search(normalize(question.question)):
        return _yes_no(question, texts)
    ranked = reader._ranked_sentences(question, texts)
    asked = normalize(question.question)
    for sentence in ranked[:3]:
        span = _typed_span(asked, question.question, sentence)
        if span:
            return span
    return reader.answer_short(question, texts)


def _copy_option(question: Question, texts: list[str]) -> str:
    scores = [0.0] * len(question.options)
    for rank, text in enumerate(texts):
        context = normalize(text)
        for i, option in enumerate(question.options):
            support = reader.option_support(option, context)
            weight = 1.0 / (rank + 1)
            scores[i] = max(scores[i], (support if support >= 2.0 else support * 0.5) * weight)
    return _pick(question, scores)


def _yes_no(question: Question, texts: list[str]) -> str:
    """Yes when one passage holds most of the question's words (its subject, the name after the auxiliary,
    left out: a person rarely names themselves)."""
    subject = re.search(r"\b(?:did|does|do|is|are|was|were|has|have|had|can|could|will|would) ([A-Z][\w'-]*)",
                        question.question)
    asked = set(content_words(question.question)) - {"ever", "so", "far"} - (
        set(content_words(subject.group(1))) if subject else set())
    if not asked:
        return "No"
    best = max((len(asked & set(content_words(t))) / len(asked) for t in texts), default=0.0)
    return "Yes" if best >= YES_SHARE else "No"


def _typed_span(asked: str, question: str, sentence: str) -> str:
    if _HOW_MANY.search(asked):
        found = re.findall(r"\d[\d,]*(?:\.\d+)?", sentence)
        return found[0].replace(",", "") if found else ""
    if _WHEN.search(asked):
        found = reader._DATE.findall(sentence)
        return found[0] if found else ""
    if _WHO.search(asked) or _WHERE.search(asked):
        in_question = normalize(question)
        for span in _NAME_SPAN.findall(sentence):
            name = normalize(span)
            if name and name not in _NOT_A_NAME and f" {name} " not in f" {in_question} ":
                return span.strip()
    return ""


def answer_all(system: str, questions: list[Question], persona_history=None, memory: PatternMemory | None = None,
               retrieved: dict[str, list[str]] | None = None, texts: dict[str, str] | None = None,
               prior: dict[str, str] | None = None) -> dict[str, tuple[str, list[str]]]:
    """Every question's (answer, the item ids it rests on) by one baseline. `persona_history` is a HistoryIndex
    (question_only_frequent), `memory` a filled PatternMemory (pattern_memory), `retrieved` the ranked item ids
    per question and `texts` their texts (bm25_copy, oracle_copy), `prior` answer_prior's answers."""
    out = {}
    for q in questions:
        if system == "answer_prior":
            out[q.question_id] = ((prior or {}).get(q.question_id, ""), [])
        elif system in QUESTION_ONLY:
            out[q.question_id] = (question_only(system, q, persona_history), [])
        elif system == "pattern_memory":
            out[q.question_id] = (memory or PatternMemory()).answer(q)
        elif system in ("bm25_copy", "oracle_copy"):
            ids = (retrieved or {}).get(q.question_id, [])
            out[q.question_id] = (copy_answer(q, [(texts or {})[i] for i in ids if i in (texts or {})]), ids)
        else:
            raise ValueError(f"unknown baseline {system!r}; expected one of {', '.join(BASELINES)}")
    return out
