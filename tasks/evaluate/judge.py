"""Scoring a reader's answer against a question's gold answer.

Deterministic wherever possible:
- mcq: the answer is matched to an option by content (normalized text); correct iff it is the gold option;
- short: normalized exact match, or numeric match (relative tolerance 1e-6) when the gold answer is a number;
- abstention items (`Question.abstention`: the history cannot answer them): correct iff the answer declines
  (`is_decline`: "there is no record of it", "you never mentioned that", "I don't know", LoCoMo's "not
  mentioned", LongMemEval's "did not mention"), whatever the answer type;
- long: a binary LLM judge with the pinned `judge_answer` prompt and the item's rubric, optionally the
  majority of three judges (samples 0, 1, 2) with their agreement reported. Offline, the `judge_answer`
  narrator is a deterministic keyword-coverage judge, labelled `offline-judge`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.eval import JudgeVerdict
from schemas.qa import Question
from tasks.evaluate.text import as_number, content_words, normalize

JUDGE_PROMPT = "judge_answer"
OFFLINE_JUDGE = "offline-judge"
COVERAGE = 0.5
"""The offline judge accepts a long answer holding at least this share of the reference's content words."""


@dataclass(frozen=True)
class Score:
    correct: bool | None
    method: str
    agreement: float | None = None
    judge: str = ""


_DECLINE = re.compile(
    r"\bno (?:record|mention|information|info|indication|sign|evidence)\b"
    r"|\bnot (?:been )?(?:mentioned|recorded|said|stated|known)\b"
    r"|\bnever (?:mentioned|said|told|talked|brought|came up)\b"
    r"|\b(?:did|do|does|have|has)(?:n't| not) "
    r"(?:mention(?:ed)?|sa(?:y|id)|t(?:ell|old)|know|ha(?:ve|d) (?:any|that)|c[oa]me up|record(?:ed)?)\b"
    r"|\b(?:can(?:no|')t|cannot|couldn't|could not|unable to) (?:find|tell|say|answer|know|see)\b"
    r"|\bnothing (?:about|on|in|suggests|says|indicates)\b|\b(?:i|we) (?:don't|do not) know\b|\bunanswerable\b"
    r"|\bnot (?:in|from) (?:the|our|my|your) (?:conversations?|history|records?|notes)\b", re.I)
"""What a decline says: the history holds no answer (an abstention item's only correct reply)."""


_BUT = re.compile(r"[,;]\s*but\b|\bhowever\b|\bthough\b", re.I)


def is_decline(answer: str) -> bool:
    """True when `answer` declines to answer for want of a record (see `_DECLINE`) and does not go on to answer
    anyway ("She didn't say much, but it went well on May 2" is an answer)."""
    found = _DECLINE.search(answer or "")
    return found is not None and not _BUT.search(answer[found.end():])


def score_decline(answer: str) -> Score:
    """An abstention item: correct iff the answer is a decline."""
    return Score(is_decline(answer), "decline")


def option_of(question: Question, answer: str) -> int | None:
    """The option `answer` names, by content: an exact normalized match, else the one option contained in it."""
    said = normalize(answer)
    options = [normalize(o) for o in question.options]
    if said in options:
        return options.index(said)
    inside = [i for i, o in enumerate(options) if o and f" {o} " in f" {said} "]
    return inside[0] if len(inside) == 1 else None


def score_mcq(question: Question, answer: str) -> Score:
    chosen = option_of(question, answer)
    return Score(chosen is not None and chosen == question.gold_option, "option")


def score_short(question: Question, answer: str) -> Score:
    gold = as_number(question.answer)
    if gold is not None:
        said = as_number(answer)
        ok = said is not None and abs(said - gold) <= 1e-6 * max(1.0, abs(gold))
        return Score(ok, "numeric")
    return Score(normalize(answer) == normalize(question.answer), "exact")


def judge_context(question: Question, answer: str) -> dict:
    """What the `judge_answer` prompt renders."""
    return {"question": question.question, "reference_answer": question.reference_answer or question.answer,
            "rubric": question.rubric, "answer": answer}


def offline_verdict(context: dict) -> dict:
    """The deterministic offline judge: correct when the answer covers enough of the reference's content words."""
    reference = set(content_words(context["reference_answer"]))
    said = set(content_words(context["answer"]))
    if not reference:
        return {"correct": False, "reason": "offline judge: empty reference"}
    share = len(reference & said) / len(reference)
    return {"correct": share >= COVERAGE, "reason": f"offline judge: covers {share:.0%} of the reference's words"}


def score_long(question: Question, answer: str, gateway=None, majority: bool = False) -> Score:
    """A binary judge verdict; with `majority`, the vote of three judges and their agreement."""
    return score_long_many([(question, answer)], gateway, majority)[0]


def score_long_many(items: list[tuple[Question, str]], gateway=None, majority: bool = False) -> list[Score]:
    votes = 3 if majority else 1
    method = "judge_majority" if majority else "judge"
    if not items:
        return []
    if gateway is None:
        out = []
        for q, a in items:
            verdict = offline_verdict(judge_context(q, a))["correct"]  # deterministic: every vote agrees
            out.append(Score(verdict, method, 1.0 if majority else None, OFFLINE_JUDGE))
        return out
    from tasks.llm.gateway import CallSpec

    specs = [CallSpec(JUDGE_PROMPT, judge_context(q, a), JudgeVerdict, "evaluate", q.persona_id, sample)
             for q, a in items for sample in range(votes)]
    results = gateway.generate_many(specs)
    label = OFFLINE_JUDGE if not gateway.live else f"{gateway.config.name}/{gateway.config.model}"
    out = []
    for i in range(len(items)):
        verdicts = [r.correct for r in results[i * votes:(i + 1) * votes]]
        yes = sum(verdicts)
        verdict = yes * 2 > votes
        agreement = max(yes, votes - yes) / votes if majority else None
        out.append(Score(verdict, method, agreement, label))
    return out


def score(question: Question, answer: str) -> Score:
    """Deterministic scoring of an abstention item, an mcq or a short answer (long answers go through
    `score_long`)."""
    if question.abstention:
        return score_decline(answer)
    if question.answer_type == "mcq":
        return score_mcq(question, answer)
    if question.answer_type == "short":
        return score_short(question, answer)
    raise ValueError(f"{question.question_id}: long answers need a judge (score_long)")
