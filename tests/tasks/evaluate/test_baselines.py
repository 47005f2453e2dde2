"""The adversarial baselines, each on tiny inputs with a known answer, and their scores on a tiny corpus."""

import datetime as dt

import pytest

from tasks.evaluate import baselines
from tasks.evaluate.patterns import PatternMemory, extract
from tasks.evaluate.retrieval import Item
from tasks.metrics.difficulty import DifficultyTally, value_kind
from tests.tasks.metrics_rows import T0, Evidence, corpus, fact, question, turn

OPTS = ["Blue Mill Bakery", "Port", "Farm", "Mill", "Shop", "Dock"]


def test_answer_prior_is_leave_one_out_per_template():
    qs = [question("p0001", i, f"Did Ana ever do thing {i}?", a, template="absence")
          for i, a in enumerate(["No", "No", "No", "Yes"])]
    qs.append(question("p0001", 9, "Alone in its template?", "Lisbon", template="lonely"))
    got = baselines.answer_prior(qs)
    assert [got[q.question_id] for q in qs] == ["No", "No", "No", "No", ""]


def test_answer_prior_on_mcq_picks_the_option_others_answered():
    qs = [question("p0001", i, "Which shop?", "Mill", template="shop", answer_type="mcq", options=OPTS)
          for i in range(3)]
    assert set(baselines.answer_prior(qs).values()) == {"Mill"}


def test_question_only_variants():
    q = question("p0001", 1, "Which bakery near the mill did Ana like?", "Blue Mill Bakery", answer_type="mcq",
                 options=OPTS)
    assert baselines.question_only("question_only_longest", q) == "Blue Mill Bakery"
    assert baselines.question_only("question_only_overlap", q) == "Blue Mill Bakery"
    history = baselines.HistoryIndex([
        Item("t1", "turn", "p0001", T0, "The Dock and the Dock again, then the Dock."),
        Item("t2", "turn", "p0001", T0 + dt.timedelta(days=60), "Farm Farm Farm Farm Farm"),  # after the question
    ])
    assert history.count("Dock", q.question_time) == 3 and history.count("Farm", q.question_time) == 0
    assert baselines.question_only("question_only_frequent", q, history) == "Dock"
    assert baselines.question_only("question_only_longest", question("p0001", 2, "Short?", "x")) == ""


def test_copy_reader_spans_of_the_asked_type():
    texts = ["Yesterday I told you my employer is Blue Mill Bakery now.", "I ran 12 km on March 3, 2024 with Kim."]
    ask = lambda text, answer="x": question("p0001", 1, text, answer)  # noqa: E731
    assert baselines.copy_answer(ask("How many km did Ana run?"), texts) == "12"
    assert baselines.copy_answer(ask("When did Ana run 12 km?"), texts) == "March 3, 2024"
    assert baselines.copy_answer(ask("Who did Ana run 12 km with?"), texts) == "Kim"
    assert baselines.copy_answer(ask("Did Ana ever mention Blue Mill Bakery?", "Yes"), texts) == "Yes"
    assert baselines.copy_answer(ask("Did Ana ever go sailing?", "No"), texts) == "No"
    mcq = question("p0001", 2, "Which employer?", "Blue Mill Bakery", answer_type="mcq", options=OPTS)
    assert baselines.copy_answer(mcq, texts) == "Blue Mill Bakery"


def test_pattern_extraction_is_generic_english():
    said = extract("My new employer is Blue Mill Bakery. Kwame's news is that he got a dog. I live in Porto.")
    found = {(s.holder, s.attribute, s.value) for s in said}
    assert ("<self>", ("employ",), "Blue Mill Bakery") in found
    assert ("<self>", ("live",), "Porto") in found
    assert any(h == "kwame" and a == ("news",) for h, a, _ in found)
    assert ("kim tanaka", ("relationship",), "neighbour") in {(s.holder, s.attribute, s.value)
                                                            for s in extract("I trust my neighbour Kim Tanaka.")}


def test_pattern_memory_keeps_the_latest_value_and_the_one_before():
    turns = [turn("p0001", 1, "My employer is Blue Mill Bakery.", minutes=0),
             turn("p0001", 2, "My employer is Harbour Port Authority now.", minutes=60 * 24 * 10),
             turn("p0001", 3, "My employer is Farm Co.", minutes=60 * 24 * 60)]  # after the questions
    memory = PatternMemory(persona_name="Ana Lima").read(turns)
    now = question("p0001", 1, "Who is Ana's employer?", "Harbour Port Authority")
    before = question("p0001", 2, "Who was Ana's employer before?", "Blue Mill Bakery")
    assert memory.answer(now) == ("Harbour Port Authority", [turns[1].turn_id])
    assert memory.answer(before)[0] == "Blue Mill Bakery"
    assert memory.answer(question("p0001", 3, "What is Ana's favourite film?", "Heat")) == ("", [])


def test_difficulty_scores_on_a_tiny_corpus():
    facts = [fact("p0001", 1, "employer", "Blue Mill Bakery", valid_to=dt.date(2024, 3, 5)),
             fact("p0001", 2, "employer", "Harbour Port Authority", valid_from=dt.date(2024, 3, 5))]
    turns = [turn("p0001", 1, "My employer is Blue Mill Bakery.", fact_ids=["p0001-f0001"]),
             turn("p0001", 2, "My employer is Harbour Port Authority.", minutes=60 * 24 * 5,
                  fact_ids=["p0001-f0002"]),
             turn("p0001", 3, "The weather was grey all week.", minutes=60 * 24 * 6)]
    qs = [question("p0001", 1, "Who is Ana's employer?", "Harbour Port Authority", template="employer",
                   fact_ids=["p0001-f0002"]),
          question("p0001", 2, "Who was Ana's employer before?", "Blue Mill Bakery", template="employer",
                   fact_ids=["p0001-f0001"], category="temporal", characteristics=("sequence_comprehension",))]
    evidence = [Evidence(question_id=qs[0].question_id, evidence_id=turns[1].turn_id, evidence_kind="turn"),
                Evidence(question_id=qs[1].question_id, evidence_id=turns[0].turn_id, evidence_kind="turn")]
    c = corpus(turns=turns, facts=facts, questions=qs, evidence=evidence)
    assert [value_kind(q, {f.fact_id: f for f in facts}) for q in qs] == ["current_value", "past_value"]
    tally = DifficultyTally()
    tally.add(c)
    rows = {r.measure: r for r in tally.rows()}
    assert rows["difficulty.pattern_memory"].value == 1.0
    assert rows["difficulty.pattern_memory.current_value"].value == 1.0
    assert rows["difficulty.answer_prior"].value == 0.0  # each item's template-mate has the other answer
    assert rows["difficulty.question_only_longest"].value is None  # no multiple choice
    assert rows["difficulty.chance"].value == 0.0
    assert rows["difficulty.oracle_copy"].better == "none"
    assert rows["difficulty.pattern_memory.fact"].n == 1 and rows["difficulty.pattern_memory.temporal"].n == 1
    # each item's labels: which baselines answer it (question_only_* are not scored on short answers)
    from tasks.metrics.difficulty import labels

    found = {d.question_id: d for d in labels(tally.rows(), [(q.question_id, q.category, q.answer_type) for q in qs])}
    first = found[qs[0].question_id]
    assert "pattern_memory" in first.solved_by and "answer_prior" not in first.solved_by and not first.memory_free
    assert "question_only_longest" not in first.scored_by and "bm25_copy" in first.scored_by
    assert set(found) == {q.question_id for q in qs}
    assert rows["difficulty.pattern_memory"].detail["solved"] == sorted(q.question_id for q in qs)


@pytest.mark.parametrize("system", baselines.BASELINES)
def test_every_baseline_answers_every_item(system):
    q = question("p0001", 1, "Which employer?", "Mill", answer_type="mcq", options=OPTS)
    got = baselines.answer_all(system, [q], persona_history=baselines.HistoryIndex([]), memory=PatternMemory(),
                               retrieved={q.question_id: []}, texts={}, prior={q.question_id: "Mill"})
    assert got[q.question_id][0] in OPTS  # multiple choice without knowledge falls to a seeded guess


def test_eval_harness_runs_the_baselines_as_systems():
    from tasks.evaluate import harness

    turns = [turn("p0001", 1, "My employer is Blue Mill Bakery."), turn("p0001", 2, "The weather was grey.")]
    qs = [question("p0001", 1, "Who is Ana's employer?", "Blue Mill Bakery", template="employer"),
          question("p0001", 2, "Which employer does Ana have?", "Blue Mill Bakery", template="employer",
                   answer_type="mcq", options=OPTS)]
    evidence = [Evidence(question_id=q.question_id, evidence_id=turns[0].turn_id, evidence_kind="turn") for q in qs]
    systems = ["answer_prior", "question_only_longest", "bm25_copy", "pattern_memory", "oracle_copy"]
    rows = harness.evaluate("tiny/v0001", "e1", qs, evidence, turns, [], systems, ["turns"], [5],
                            names={"p0001": "Ana Lima"})
    got = {(r.system, r.question_id): r for r in rows}
    assert {r.reader for r in rows} == set(systems)
    assert got[("answer_prior", qs[0].question_id)].correct  # its template-mate's answer is the same
    assert got[("question_only_longest", qs[0].question_id)].correct is None  # not multiple choice
    assert got[("question_only_longest", qs[1].question_id)].correct  # the gold is the longest option
    assert got[("pattern_memory", qs[0].question_id)].retrieved_ids == [turns[0].turn_id]
    assert got[("bm25_copy", qs[0].question_id)].hit_at_1 == 1.0 and got[("bm25_copy", qs[0].question_id)].correct
    assert got[("oracle_copy", qs[1].question_id)].correct


def test_labels_mark_items_the_answer_prior_gives_away():
    from schemas.metrics import measure_row
    from tasks.metrics.difficulty import labels

    rows = [measure_row("difficulty.answer_prior", 0.5, 2, {"solved": ["q1"]}),
            measure_row("difficulty.question_only_longest", 1.0, 1, {"solved": ["q2"]}),
            measure_row("difficulty.bm25_copy", 0.5, 2, {"solved": ["q2"]}),
            measure_row("difficulty.bm25_copy.fact", 0.5, 2, {"solved": ["q1"]})]  # a breakdown row: not read
    rows.append(measure_row("difficulty.answer_prior", 0.5, 4, {"solved": ["q1", "q3", "q4"]}))
    found = {d.question_id: d for d in labels(rows, [("q1", "fact", "short", "Lisbon"), ("q2", "fact", "mcq", "x"),
                                                     ("q3", "aggregation", "short", "No"),
                                                     ("q4", "hallucination", "long", "There is no record of it",
                                                      True)])}
    assert (found["q1"].solved_by, found["q1"].memory_free) == (["answer_prior"], True)
    assert found["q1"].scored_by == ["answer_prior", "bm25_copy"]
    # a question-only guess that is right (one time in six) and a prior that is right on yes/no are labelled, but
    # a guess is no proof an item needs no memory
    assert (found["q2"].solved_by, found["q2"].memory_free) == (["question_only_longest", "bm25_copy"], False)
    assert (found["q3"].solved_by, found["q3"].memory_free) == (["answer_prior"], False)
    # declining an abstention item is one of two choices, its twins asked in the same words: a guess as well
    assert (found["q4"].solved_by, found["q4"].memory_free) == (["answer_prior"], False)
