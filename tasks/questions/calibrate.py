"""Release calibration: withdraw the questions a memory-free baseline answers, across every persona.

Each persona's questions are selected alone (tasks/questions/select.py spreads a template's answers over the
personas by their strata), but whether an item can be answered without memory is a property of the release:
the `answer_prior` baseline (tasks/evaluate/baselines.py) answers each item with the commonest answer of the
*other* items of its template, over every persona. An item it answers where a guess would not (a short or long
answer that is not yes/no and not an abstention: `tasks.metrics.difficulty.guessable`) does not measure memory,
so it is withdrawn (reason `answer_prior`). A withdrawal must not unbalance what selection balanced: when a
persona's category would then hold more than its share cap (`stages.questions.max_category_share`, as the QA
review's `rebalance` does it), that category's last items are withdrawn too (reason `category_share`).
Withdrawing items changes the other items' priors, so the passes repeat over what is left until none is
answered (two on rhelm). Multiple choice is left alone: there the prior is one guess in six, and the stage keeps
each heuristic's expected score at chance (tasks/questions/mcq.py).

The function is pure and deterministic: the same questions give the same withdrawals in the same order, whatever
order they come in. flows/ runs it once every persona has landed (flows/calibration.py); the warehouse keeps the
withdrawn items out of the `questions` and `question_evidence` views, marks their `question_reviews` rows
withdrawn (reason `answer_prior`) and lands one `question_calibration` row each.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from schemas.config import QuestionOptions
from schemas.metrics import QuestionCalibration
from schemas.qa import Question
from tasks.evaluate.baselines import answer_prior, template_of
from tasks.metrics.difficulty import correct, guessable
from tasks.questions.select import category_cap, effective_share

MAX_ROUNDS = 20
"""Passes at most (each withdraws at least one item, and a pass that withdraws none ends the loop)."""


def calibrate(questions: list[Question], options: QuestionOptions | None = None) -> list[QuestionCalibration]:
    """The items to withdraw, pass by pass, each with the prior's answer (see the module docstring). Without
    `options`, no category cap is kept."""
    left = sorted(questions, key=lambda q: q.question_id)
    out: list[QuestionCalibration] = []
    for round_ in range(1, MAX_ROUNDS + 1):
        prior = answer_prior(left)
        gone = {q.question_id: prior[q.question_id] for q in left
                if not guessable(q.answer_type, q.answer, bool(q.abstention))
                and correct(q, prior.get(q.question_id, ""))}
        over = rebalanced([q for q in left if q.question_id not in gone], options) if gone and options else []
        if not gone:
            break
        out += [_row(q, gone[q.question_id], round_) for q in left if q.question_id in gone]
        out += [_row(q, "", round_, "category_share") for q in over]
        dropped = set(gone) | {q.question_id for q in over}
        left = [q for q in left if q.question_id not in dropped]
    return out


def rebalanced(questions: list[Question], options: QuestionOptions) -> list[Question]:
    """The items to withdraw so that no persona's category holds more than its share cap of the persona's
    questions (the zero-memory controls aside): each time, the last item of the first category over it."""
    by_persona: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        if q.checkpoint != "zero_memory":
            by_persona[q.persona_id].append(q)
    out = []
    for mine in by_persona.values():
        while True:
            counts = Counter(q.category for q in mine)
            share = effective_share(options, len(counts))
            over = [c for c, n in sorted(counts.items()) if n > category_cap(options, len(mine), share)]
            if not over:
                break
            last = max((q for q in mine if q.category == over[0]), key=lambda q: q.question_id)
            out.append(last)
            mine = [q for q in mine if q is not last]
    return sorted(out, key=lambda q: q.question_id)


def _row(q: Question, prior_answer: str, round_: int, reason: str = "answer_prior") -> QuestionCalibration:
    return QuestionCalibration(question_id=q.question_id, persona_id=q.persona_id, category=q.category,
                               template=template_of(q), answer=q.answer, prior_answer=prior_answer, round=round_,
                               reason=reason)
