"""Offline narrators for the evaluation prompts, both deterministic and labelled as offline.

`reader_answer`: the extractive reader (tasks/evaluate/reader.py) over the rendered memory items.
`judge_answer`: the keyword-coverage judge (tasks/evaluate/judge.py), its reason prefixed "offline judge".
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from tasks.llm.providers.offline import narrator


@narrator("reader_answer")
def reader_answer(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"answer": what the offline extractive reader answers from context["memory"]}."""
    from schemas.qa import Question
    from tasks.evaluate.reader import offline_answer

    question = Question(
        question_id=context["question"], persona_id="", category="fact", characteristics=["offline"],
        question_time=dt.datetime.fromisoformat(context["question_time"]), question=context["question"], answer="",
        reference_answer="", answer_type=context["answer_type"], options=list(context.get("options") or []),
        derivation={})
    return {"answer": offline_answer(question, [str(m) for m in context["memory"]])}


@narrator("judge_answer")
def judge_answer(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"correct": the offline coverage verdict, "reason": "offline judge: ..."}."""
    from tasks.evaluate.judge import offline_verdict

    return offline_verdict(context)
