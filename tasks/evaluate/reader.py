"""The reader: answers a question from the items a retrieval system returned.

Offline (`reader="offline-extractive"`) it is a deterministic extractive reader, not a model:
- mcq: picks the option best supported by the retrieved text (the option's phrase, or for a date its spoken
  forms, found verbatim scores highest; else the share of its content words present); ties, including the
  no-context case, are broken by a hash of the question id, so a reader without memory answers at chance;
- short: the best-matching sentence (most question words), then the first run of its words that are neither
  question words nor stopwords after the last question word (else the longest such run), cut to its
  capitalized stretch when it has one (a name); a number for
  how-many/how-much questions, a date for when questions;
- long: the two best-matching sentences.
With a real provider it renders the pinned `reader_answer` prompt through the LLM gateway instead.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

from schemas.eval import OFFLINE_READER, ReaderAnswer
from schemas.qa import Question
from tasks.evaluate.text import STOPWORDS, content_words, normalize, words

READER_PROMPT = "reader_answer"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_DATE = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
                   r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,\s*\d{4})?|\b\d{4}-\d{2}-\d{2}\b")


def _tie_break(question_id: str, n: int) -> int:
    return int(hashlib.sha256(question_id.encode()).hexdigest()[:8], 16) % n


def _surfaces(option: str) -> list[str]:
    """Normalized phrases that state `option` in running text (an ISO date also as 'january 8')."""
    out = [normalize(option)]
    m = _ISO.match(option.strip())
    if m:
        day = dt.date(int(m[1]), int(m[2]), int(m[3]))
        out += [normalize(f"{day:%B} {day.day}, {day.year}"), normalize(f"{day:%B} {day.day}"),
                normalize(f"{day.day} {day:%B}")]
    return [s for s in out if s]


def option_support(option: str, context: str) -> float:
    """How well the normalized `context` supports `option`: 1 + share for a verbatim phrase, else the share of
    its content words present."""
    padded = f" {context} "
    if any(f" {s} " in padded for s in _surfaces(option)):
        return 2.0
    wanted = set(content_words(option))
    if not wanted:
        return 0.0
    present = set(context.split())
    return len(wanted & present) / len(wanted)


def answer_mcq(question: Question, texts: list[str]) -> str:
    context = normalize(" ".join(texts))
    scores = [option_support(o, context) if context else 0.0 for o in question.options]
    best = max(scores, default=0.0)
    tied = [i for i, s in enumerate(scores) if s == best]
    return question.options[tied[_tie_break(question.question_id, len(tied))]] if tied else ""


def _sentences(texts: list[str]) -> list[str]:
    return [s.strip() for t in texts for s in _SENTENCE.split(t) if s.strip()]


def _ranked_sentences(question: Question, texts: list[str]) -> list[str]:
    asked = {_stem(w) for w in content_words(question.question)}
    scored = []
    for order, sentence in enumerate(_sentences(texts)):
        overlap = len(asked & {_stem(w) for w in content_words(sentence)})
        if overlap:
            scored.append((-overlap, order, sentence))
    return [s for *_, s in sorted(scored)]


def answer_short(question: Question, texts: list[str]) -> str:
    ranked = _ranked_sentences(question, texts)
    if not ranked:
        return ""
    best = ranked[0]
    asked = normalize(question.question)
    if re.search(r"\bhow (many|much|long|often)\b", asked):
        found = re.findall(r"\d+(?:\.\d+)?", normalize(best))
        if found:
            return found[0]
    if re.search(r"\b(when|what date|which date|what day)\b", asked):
        found = _DATE.findall(best)
        if found:
            return found[0]
    asked_words = {_stem(w) for w in words(question.question)}
    runs, current, last_match = [], [], -1
    for pos, w in enumerate(words(best)):
        if _stem(w) in asked_words or w in STOPWORDS:
            if current:
                runs.append((pos - len(current), current))
            current = []
            if _stem(w) in asked_words:
                last_match = pos
        else:
            current.append(w)
    if current:
        runs.append((len(words(best)) - len(current), current))
    after = [run for start, run in runs if start > last_match]
    chosen = after[0] if after else max((run for _, run in runs), key=len, default=[])
    return " ".join(_proper_name(chosen, best))


def _proper_name(run: list[str], sentence: str) -> list[str]:
    """The capitalized stretch of `run` (a name inside 'Lisbon last week'), else the whole run."""
    caps = {w.lower() for w in re.findall(r"(?<=\s)[A-Z][A-Za-z'-]*", sentence)}
    start = next((i for i, w in enumerate(run) if w in caps), None)
    if start is None:
        return run
    end = start
    while end < len(run) and run[end] in caps:
        end += 1
    return run[start:end]


def _stem(word: str) -> str:
    """A crude suffix stripper (moved, moves, moving -> mov), enough to match question and memory words."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def answer_long(question: Question, texts: list[str]) -> str:
    return " ".join(_ranked_sentences(question, texts)[:2])


def offline_answer(question: Question, texts: list[str]) -> str:
    """The deterministic extractive reader's answer to `question` from the retrieved `texts` (best first)."""
    if question.answer_type == "mcq":
        return answer_mcq(question, texts)
    if question.answer_type == "short":
        return answer_short(question, texts)
    return answer_long(question, texts)


def reader_context(question: Question, texts: list[str]) -> dict:
    """What the `reader_answer` prompt renders."""
    return {"question": question.question, "question_time": question.question_time.isoformat(),
            "answer_type": question.answer_type, "options": list(question.options), "memory": list(texts)}


def read_many(items: list[tuple[Question, list[str]]], gateway=None) -> tuple[list[str], str]:
    """Answers to every (question, retrieved texts) pair and the reader's label.

    Without a gateway, or with the offline provider, the deterministic extractive reader answers (no model call).
    """
    if gateway is None or not gateway.live:
        return [offline_answer(q, texts) for q, texts in items], OFFLINE_READER
    from tasks.llm.gateway import CallSpec

    specs = [CallSpec(READER_PROMPT, reader_context(q, texts), ReaderAnswer, "evaluate", q.persona_id)
             for q, texts in items]
    answers = [r.answer for r in gateway.generate_many(specs)]
    return answers, f"{gateway.config.name}/{gateway.config.model}"
