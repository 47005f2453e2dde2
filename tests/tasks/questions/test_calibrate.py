"""Release calibration (tasks/questions/calibrate.py): items the template's leave-one-out answer prior answers,
withdrawn pass by pass over every persona, guesses left alone."""

from __future__ import annotations

import random
from collections import Counter

from tasks.evaluate.baselines import answer_prior
from tasks.metrics.difficulty import correct, guessable
from tasks.questions.calibrate import calibrate
from tests.tasks.metrics_rows import question


def counts(answers: dict[str, int], template: str = "aggregation.count.x", start: int = 0) -> list:
    """One short item per answer occurrence, each of another persona."""
    out, n = [], start
    for answer, k in answers.items():
        for _ in range(k):
            out.append(question(f"p{n:04d}", 1, f"How many walks did I take in week {n}?", answer, template))
            n += 1
    return out


def test_the_prior_s_favourite_answer_is_withdrawn_pass_by_pass_until_none_is_answered():
    # pass 1: each "3" sees two more "3"s among the others (a tie with "5" goes to "3"): all three go;
    # pass 2: each "5" now sees the other "5" beside one "7": both go; the "7" alone is never answered
    items = counts({"3": 3, "5": 2, "7": 1})
    rows = calibrate(items)
    assert [(r.answer, r.round) for r in rows] == [("3", 1), ("3", 1), ("3", 1), ("5", 2), ("5", 2)]
    assert all(r.prior_answer == r.answer and r.reason == "answer_prior" for r in rows)
    assert {r.persona_id for r in rows} == {f"p{n:04d}" for n in range(5)}
    left = [q for q in items if q.question_id not in {r.question_id for r in rows}]
    prior = answer_prior(left)
    assert not any(correct(q, prior[q.question_id]) for q in left)


def test_a_spread_template_loses_nothing_and_guesses_are_left_alone():
    spread = counts({"2": 1, "4": 1, "6": 1, "8": 1}, "aggregation.spread.x")
    yes_no = [question(f"p{n:04d}", 2, f"Did I swim in week {n}?", "No", "aggregation.absence.x") for n in range(5)]
    options = ["Lisbon", "Porto", "Faro", "Braga", "Evora", "Sintra"]
    mcq = [question(f"p{n:04d}", 3, "Which city?", "Lisbon", "fact.city.x", "mcq", options) for n in range(5)]
    declines = [question(f"p{n:04d}", 4, "When did I move to Oslo?", "There is no record of it", "abs.x", "long",
                         abstention="never_said") for n in range(5)]
    assert all(guessable(q.answer_type, q.answer, bool(q.abstention)) for q in yes_no + mcq + declines)
    assert calibrate(spread + yes_no + mcq + declines) == []


def test_calibration_is_deterministic_whatever_the_order():
    items = counts({"3": 3, "5": 2, "7": 1}) + counts({"June": 2, "May": 1}, "aggregation.month.x", start=10)
    shuffled = list(items)
    random.Random(4).shuffle(shuffled)
    assert calibrate(items) == calibrate(shuffled) and calibrate(items)


def test_a_withdrawal_that_would_unbalance_a_persona_takes_the_category_s_last_items_too():
    """p0001 of a tiny build: three of its fact items withdrawn left external above the 30% cap."""
    from schemas.config import QuestionOptions

    mine = [question("p0001", n, f"Q{n}?", f"z{n}", f"t.{n}", category=c)
            for n, c in enumerate(["fact"] * 3 + ["external"] * 3 + ["temporal", "mixed", "aggregation"] * 2, start=1)]
    others = [question(f"p{n:04d}", 1, f"Which café in {n}?", "Blue Door", "t.1") for n in (2, 3)]
    options = QuestionOptions(max_category_share=0.3, per_persona=12)
    rows = calibrate(mine + others, options)
    # "Blue Door" is the prior's answer for the two other personas' items (each sees the other, a tie with "z1"
    # broken alphabetically): both go; p0001's "z1" item is not answered, and none of its categories is touched
    assert [(r.question_id, r.reason) for r in rows] == [("p0002-q0001", "answer_prior"),
                                                        ("p0003-q0001", "answer_prior")]
    # now make p0001's fact items answerable by the prior: once they go, external holds 3 of 9 (cap 2)
    same = [q.model_copy(update={"answer": "Blue Door"}) if q.category == "fact" else q for q in mine]
    same = [q.model_copy(update={"derivation": {"template": "t.1"}}) if q.category == "fact" else q for q in same]
    rows = calibrate(same + others, options)
    reasons = Counter(r.reason for r in rows)
    assert reasons == {"answer_prior": 5, "category_share": 1}
    assert [r.question_id for r in rows if r.reason == "category_share"] == ["p0001-q0006"]  # external's last
    left = Counter(q.category for q in same if q.question_id not in {r.question_id for r in rows})
    assert all(n <= int(0.3 * sum(left.values()) + 1e-9) for n in left.values()), left
    assert calibrate(same + others) and not any(r.reason == "category_share" for r in calibrate(same + others))
