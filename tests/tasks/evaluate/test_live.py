"""The reader and judge on a real-provider code path: the local mock LLM answers with the offline narrators."""

import datetime as dt

import pytest

from schemas.config import ProviderConfig
from schemas.corpus import Turn
from schemas.qa import Evidence, Question
from tasks.evaluate import harness
from tasks.llm.cache import CallCache
from tasks.llm.gateway import Gateway
from tests.llm_mock.server import MockLLM, Oracle

KEY = "sk-Ev4Lq8Tz2Wm6Rx9Kb3Nh7Jd"
T = dt.datetime(2024, 2, 1, 12, tzinfo=dt.UTC)


def _q(qid, answer_type, answer, question, options=(), gold=None):
    return Question(question_id=qid, persona_id="p0000", category="fact", characteristics=["x"], question_time=T,
                    question=question, answer=answer, reference_answer=answer, answer_type=answer_type,
                    options=list(options), gold_option=gold, derivation={})


def test_live_reader_and_majority_judge_through_the_gateway(tmp_path):
    turns = [Turn(turn_id=f"p0000-s0001-t{i:02d}", session_id="p0000-s0001", persona_id="p0000",
                  timestamp=T - dt.timedelta(days=10 - i), role="user",
                  text="Tom from sales moved to Lisbon last week." if i == 3 else f"We talked about soup, day {i}.")
             for i in range(6)]
    questions = [_q("p0000-q0001", "mcq", "sales", "Which team is Tom on?",
                    ["logistics", "accounts", "sales", "front desk", "IT", "night shift"], 2),
                 _q("p0000-q0002", "long", "Tom moved to Lisbon", "Where did Tom move, and when?")]
    evidence = [Evidence(question_id=q.question_id, evidence_id="p0000-s0001-t03", evidence_kind="turn")
                for q in questions]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LIFELOOM_TEST_KEY", KEY)
        oracle = Oracle().install(mp)
        with MockLLM(answer=oracle.answer, api_key=KEY) as mock:
            config = ProviderConfig(name="openai", model="mock-model", base_url=mock.openai_url,
                                    api_key_env="LIFELOOM_TEST_KEY", timeout_s=5.0)
            gateway = Gateway(config, cache=CallCache(tmp_path / "cache"))
            rows = harness.evaluate("r/v0001", "e", questions, evidence, turns, [], ["oracle"], ["turns"], [5],
                                    gateway=gateway, majority=True)
    by = {r.question_id: r for r in rows}
    assert {r.reader for r in rows} == {"openai/mock-model"}
    assert by["p0000-q0001"].answer == "sales" and by["p0000-q0001"].correct is True
    assert by["p0000-q0001"].score_method == "option"
    long = by["p0000-q0002"]
    assert long.score_method == "judge_majority" and long.judge_agreement == 1.0 and long.judge == "openai/mock-model"
    calls = gateway.drain_ledger()
    assert sorted(c.prompt_name for c in calls) == ["judge_answer"] * 3 + ["reader_answer"] * 2
