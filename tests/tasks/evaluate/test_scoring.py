"""Scoring, the offline reader, the report and landing of an evaluation, on hand-made rows."""

import datetime as dt

import pytest

from schemas.eval import EvalResult
from schemas.qa import Question
from tasks.evaluate import judge, reader
from tasks.evaluate.text import as_number, normalize

T = dt.datetime(2024, 2, 1, 12, tzinfo=dt.UTC)


def q(answer="Lisbon", answer_type="short", options=(), gold=None, question="Where does Ana live now?",
      qid="p0000-q0001", rubric="", reference=None):
    return Question(question_id=qid, persona_id="p0000", category="fact", characteristics=["x"], question_time=T,
                    question=question, answer=answer, reference_answer=reference or answer, answer_type=answer_type,
                    options=list(options), gold_option=gold, rubric=rubric, derivation={})


OPTIONS = ["logistics", "accounts", "sales", "front desk", "IT", "night shift"]


def test_normalize_and_numbers():
    assert normalize("The  Lisbon office!") == "lisbon office"
    assert normalize("1,250.50 EUR") == "1250.50 eur"
    assert as_number("12") == 12 and as_number("$1,200") == 1200 and as_number("three") == 3
    assert as_number("12 days") == 12 and as_number("birdwatching at a friend's place") is None


def test_short_answers_exact_and_numeric():
    assert judge.score(q(), "lisbon.") == judge.Score(True, "exact")
    assert judge.score(q(), "Porto").correct is False
    assert judge.score(q(), "").correct is False
    days = q(answer="12", question="How many days apart?")
    assert judge.score(days, "12.0") == judge.Score(True, "numeric")
    assert judge.score(days, "twelve").correct is True
    assert judge.score(days, "13").correct is False
    assert judge.score(days, "no idea").correct is False
    # a date is no number: any other date of the same year (or month) is wrong, not a "numeric" match on 2024
    for gold, wrong in (("2024-09-21", "2024-03-02"), ("April 2024", "June 2024"), ("2024-09-21", "2024")):
        assert as_number(gold) is None
        assert judge.score(q(answer=gold), wrong) == judge.Score(False, "exact")
        assert judge.score(q(answer=gold), gold.lower()).correct is True


@pytest.mark.parametrize(("answer", "declines"), [
    ("There is no record of it", True), ("You did not mention this information.", True),
    ("Not mentioned in the conversation", True), ("I don't know.", True), ("Maya hasn't mentioned that.", True),
    ("I can't find anything about that in our conversations.", True), ("She ran it on March 3.", False),
    ("Lisbon", False), ("She didn't say much about the trip, but it went well on May 2.", False), ("", False),
])
def test_a_decline_is_recognized(answer, declines):
    assert judge.is_decline(answer) is declines


def test_abstention_items_are_scored_as_a_decline_or_not_whatever_their_answer_type():
    item = q(answer="There is no record of it", answer_type="long", question="Which race is Ana training for?",
             rubric="Required: says there is no record.")
    item = item.model_copy(update={"derivation": {"abstention": "someone_else"}})
    assert item.abstention == "someone_else" and q().abstention is None
    assert judge.score(item, "You never mentioned a race.") == judge.Score(True, "decline")
    assert judge.score(item, "The Lisbon Half Marathon") == judge.Score(False, "decline")


def test_mcq_scored_by_option_content():
    item = q(answer="sales", answer_type="mcq", options=OPTIONS, gold=2, question="Which team?")
    assert judge.score(item, "Sales") == judge.Score(True, "option")
    assert judge.score(item, "The answer is sales.").correct is True
    assert judge.score(item, "accounts").correct is False
    assert judge.score(item, "C").correct is False  # a letter is not option content
    assert judge.score(item, "sales or accounts").correct is False  # ambiguous: two options named


def test_long_answers_need_a_judge_offline_is_deterministic_and_labelled():
    item = q(answer_type="long", answer="Jack Lawson, on January 8, 2024", rubric="Required: names Jack Lawson")
    with pytest.raises(ValueError):
        judge.score(item, "x")
    good = judge.score_long(item, "It was Jack Lawson, on January 8, 2024.")
    assert good == judge.Score(True, "judge", None, judge.OFFLINE_JUDGE)
    assert judge.score_long(item, "No idea.").correct is False
    vote = judge.score_long(item, "Jack Lawson on January 8 2024", majority=True)
    assert vote.method == "judge_majority" and vote.agreement == 1.0


def test_offline_judge_through_the_gateway_matches_the_direct_judge():
    from schemas.config import ProviderConfig
    from tasks.llm.gateway import Gateway

    item = q(answer_type="long", answer="Jack Lawson, on January 8, 2024")
    gateway = Gateway(ProviderConfig())
    for said in ("Jack Lawson on January 8, 2024", "Someone else."):
        via = judge.score_long_many([(item, said)], gateway, majority=True)[0]
        assert via.correct == judge.score_long(item, said).correct and via.agreement == 1.0
    assert len(gateway.drain_ledger()) == 6


def test_offline_reader_mcq_picks_the_supported_option_and_is_deterministic():
    item = q(answer="sales", answer_type="mcq", options=OPTIONS, gold=2, question="Which team is Tom on?")
    texts = ["Tom from sales recommended a dentist.", "Lunch was nice."]
    assert reader.offline_answer(item, texts) == "sales"
    dated = q(answer="2024-01-08", answer_type="mcq", gold=1, question="On what date did Ryan call Jack?",
              options=["2024-01-07", "2024-01-08", "2024-01-04", "2024-01-05", "2024-01-03", "2024-01-09"])
    assert reader.offline_answer(dated, ["On January 8, 2024 Ryan called Jack."]) == "2024-01-08"
    blind = [reader.offline_answer(q(answer_type="mcq", options=OPTIONS, gold=0, qid=f"p0000-q{i:04d}"), [])
             for i in range(60)]
    assert blind == [reader.offline_answer(q(answer_type="mcq", options=OPTIONS, gold=0, qid=f"p0000-q{i:04d}"), [])
                     for i in range(60)]
    assert len(set(blind)) >= 4  # no memory: ties broken per question, spread over the options


def test_offline_reader_short_and_long_extract_from_the_best_sentence():
    texts = ["The weather was grey.", "Ana told me she now lives in Lisbon since March."]
    assert "lisbon" in reader.offline_answer(q(), texts)
    count = q(answer="3", question="How many times did Ana go climbing?")
    assert reader.offline_answer(count, ["Ana went climbing 3 times this month."]) == "3"
    assert reader.offline_answer(q(), []) == ""
    long = q(answer_type="long", answer="x")
    assert reader.offline_answer(long, texts) == reader.offline_answer(long, list(texts))
    answers, label = reader.read_many([(q(), texts)] * 2)
    assert label == "offline-extractive" and answers[0] == answers[1]


def _row(system, k, correct, category="fact", checkpoint="in_timeline", hit=1.0):
    return EvalResult(eval_id="e", release="r/v0001", system=system, setting="turns", k=k, question_id=f"q{k}",
                      persona_id="p", category=category, characteristics=["x"], checkpoint=checkpoint,
                      answer_type="short", retrieved_ids=["a"], n_gold=1, hit_at_1=hit, hit_at_5=hit, hit_at_20=hit,
                      recall_at_5=hit, recall_at_20=hit, recall_at_50=hit, mrr=hit, answer="a", correct=correct,
                      score_method="exact", reader="offline-extractive")


def test_report_and_landing_write_markdown_plots_and_parquet(tmp_path):
    from tasks.evaluate import report
    from warehouse import evaluation

    rows = [_row("oracle", k, True) for k in (5, 20)] + [_row("random", k, False, "temporal", "post_shock", 0.0)
                                                         for k in (5, 20)]
    release = tmp_path / "home" / "releases" / "tiny" / "v0001"
    target = evaluation.eval_dir(release, "e")
    assert target == tmp_path / "home" / "eval" / "tiny" / "v0001" / "e"
    for _ in range(2):  # landing again replaces the evaluation
        evaluation.land_evaluation(target, rows, "run-1", {"eval_id": "e"},
                                   lambda folder: report.write_report(rows, folder, "T"))
    md = (target / "report.md").read_text()
    assert "| oracle | turns | 20 |" in md and "post_shock" in md
    assert report.HEURISTIC_NOTE in md  # the offline reader is said to be a heuristic, not a model
    for name in report.PLOTS:
        assert (target / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    back = evaluation.read_results(target)
    assert len(back) == 4 and back[0]["run_id"] == "run-1" and back[0]["retrieved_ids"] == ["a"]
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]


def test_harness_rows_on_a_hand_made_history():
    from schemas.corpus import Turn
    from schemas.qa import Evidence
    from tasks.evaluate import harness

    turns = [Turn(turn_id=f"p0000-s0001-t{i:02d}", session_id="p0000-s0001", persona_id="p0000",
                  timestamp=T - dt.timedelta(days=10 - i), role="user",
                  text="I moved to Lisbon last week." if i == 3 else f"Chatting about cooking, day {i}.")
             for i in range(8)]
    item = q(answer="Lisbon", question="Which city did Ana move to?")
    evidence = [Evidence(question_id=item.question_id, evidence_id="p0000-s0001-t03", evidence_kind="turn")]
    rows = harness.evaluate("r/v0001", "e", [item], evidence, turns, [], ["no_memory", "oracle", "broken_oracle"],
                            ["turns"], [1, 5])
    by = {(r.system, r.k): r for r in rows}
    assert len(rows) == 6
    assert by["oracle", 1].hit_at_1 == 1.0 and by["oracle", 1].retrieved_ids == ["p0000-s0001-t03"]
    assert by["oracle", 1].answer == "lisbon" and by["oracle", 1].correct is True
    assert by["broken_oracle", 5].hit_at_5 == 0.0 and by["no_memory", 5].retrieved_ids == []
    assert by["no_memory", 5].correct is False and by["no_memory", 5].reader == "offline-extractive"
    summary = {(s["system"], s["k"]): s for s in harness.summary_rows(rows)}
    assert summary["oracle", 5]["accuracy"] == 1.0 and summary["no_memory", 5]["hit_at_5"] == 0.0
    # an abstention item: reading its nearest misleading mention and answering from it is wrong; only a decline
    # is right, and the row says it was scored as one
    trap = q(answer="There is no record of it", answer_type="long", question="Which city is Ana's sister moving to?",
             qid="p0000-q0002").model_copy(update={"derivation": {"abstention": "someone_else"}})
    proof = [Evidence(question_id=trap.question_id, evidence_id="p0000-s0001-t03", evidence_kind="turn")]
    rows = harness.evaluate("r/v0001", "e", [trap], proof, turns, [], ["oracle"], ["turns"], [5])
    assert [(r.score_method, r.correct) for r in rows] == [("decline", False)]


def test_prompts_render_pinned_and_offline_narrators_answer_through_the_gateway():
    from schemas.config import ProviderConfig
    from schemas.eval import ReaderAnswer
    from tasks.llm import prompts
    from tasks.llm.gateway import Gateway

    item = q(answer="sales", answer_type="mcq", options=OPTIONS, gold=2, question="Which team is Tom on?")
    texts = ["Tom from sales recommended a dentist."]
    for name in ("reader_answer", "judge_answer"):
        assert prompts.prompt_source(name).startswith("{# " + name + " v1")
    rendered = prompts.render("reader_answer", reader.reader_context(item, texts))
    assert "[1] Tom from sales" in rendered and "- night shift" in rendered
    assert "Rubric: must say" in prompts.render("judge_answer", judge.judge_context(q(rubric="must say"), "x"))
    gateway = Gateway(ProviderConfig())
    said = gateway.generate("reader_answer", reader.reader_context(item, texts), ReaderAnswer, stage="evaluate",
                            persona_id="p0000")
    assert said.answer == reader.offline_answer(item, texts) == "sales"
    assert reader.read_many([(item, texts)], gateway) == (["sales"], "offline-extractive")
