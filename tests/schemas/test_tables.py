import datetime as dt
import json

import pyarrow as pa

from schemas.audit import GateResult
from schemas.qa import Question
from schemas.tables import TABLES, to_arrow


def _question(**kw):
    base = dict(question_id="p0000-q0001", persona_id="p0000", category="fact", characteristics=["x"],
                question_time=dt.datetime(2024, 3, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                question="Q?", answer="A", reference_answer="A.", answer_type="short",
                derivation={"b": 1, "a": [1, 2]})
    base.update(kw)
    return Question(**base)


def test_every_table_has_run_id_and_its_contract_columns():
    contract = {
        "questions": ["question_id", "persona_id", "category", "characteristics", "question_time", "question",
                      "answer", "reference_answer", "answer_type", "options", "gold_option", "checkpoint",
                      "derivation"],
        "turns": ["turn_id", "session_id", "persona_id", "timestamp", "role", "text", "bullet_id", "doc_ids"],
        "facts": ["fact_id", "persona_id", "event_id", "subject", "attribute", "value", "valid_from", "valid_to",
                  "surface_forms"],
        "llm_calls": ["call_key", "stage", "persona_id", "provider", "model", "prompt_name", "prompt_hash",
                      "input_tokens", "output_tokens", "latency_ms", "cost_usd", "attempts", "outcome", "cached"],
    }
    for name, columns in contract.items():
        names = TABLES[name].arrow_schema.names
        assert names[0] == "run_id"
        assert set(columns) <= set(names), name


def test_to_arrow_stores_json_sorted_and_times_in_utc():
    table = to_arrow("questions", [_question()], "r1")
    row = table.to_pylist()[0]
    assert row["run_id"] == "r1"
    assert row["derivation"] == json.dumps({"a": [1, 2], "b": 1}, sort_keys=True)
    assert table.schema.field("question_time").type == pa.timestamp("us", tz="UTC")
    assert row["question_time"].hour == 7  # 09:00 at +02:00
    assert row["characteristics"] == ["x"]


def test_gate_result_sample_is_json():
    table = to_arrow("gate_results", [GateResult(suite="s", expectation="e", success=False, sample=["a", 1])], "r")
    assert json.loads(table.to_pylist()[0]["sample"]) == ["a", 1]


def test_no_table_has_a_duplicated_column():
    for table in TABLES.values():
        names = table.arrow_schema.names
        assert len(names) == len(set(names)), table.name
