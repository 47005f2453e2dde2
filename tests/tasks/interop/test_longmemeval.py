"""LongMemEval converter: hand-made rows round-trip; plain items import with what is missing reported."""

from tasks.interop.longmemeval import export_longmemeval, format_date, import_longmemeval, parse_date
from tests.tasks.interop_rows import at, dialogue_bundle, dumps, rhelm_bundle


def test_export_then_import_round_trips_ids_dates_and_evidence():
    bundle = dialogue_bundle("longmemeval")
    items, report = export_longmemeval(bundle)
    assert report.issues == []
    first = items[0]
    assert first["haystack_session_ids"] == ["p0001-s0001", "p0001-s0002"]
    assert first["haystack_dates"] == ["2024/03/01 (Fri) 09:00", "2024/03/03 (Sun) 10:00"]
    assert first["answer_session_ids"] == ["p0001-s0001", "p0001-s0002"]
    assert [m["has_answer"] for m in first["haystack_sessions"][0]] == [True, False, False, False]
    back, issues = import_longmemeval(items)
    assert issues.issues == []
    for table in ("turns", "question_evidence"):
        assert dumps(back, table) == dumps(bundle, table)
    assert [(s.session_id, s.started_at) for s in back.sessions] == [(s.session_id, s.started_at)
                                                                        for s in bundle.sessions]
    assert dumps(back, "questions") == dumps(bundle, "questions")


def test_documents_chunk_evidence_and_late_sessions_are_reported_on_export():
    bundle = rhelm_bundle()
    bundle.questions = [q for q in bundle.questions if q.question_id == "fact_0001"]
    bundle.questions[0].question_time = at(2)
    _, report = export_longmemeval(bundle)
    assert report.by_kind() == {"format_loss": 2, "unmapped_evidence": 4}


def test_plain_longmemeval_imports_and_reports_what_it_lacks():
    item = {"question_id": "gpt4_abc_abs", "question_type": "single-session-user", "question": "Where?", "answer": 3,
            "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s1", "s2"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21", "not a date"],
            "haystack_sessions": [[{"role": "user", "content": "I moved."}, {"role": "assistant", "content": "Ok"}],
                                  []],
            "answer_session_ids": ["s1", "s9"]}
    back, report = import_longmemeval([item])
    assert report.by_kind() == {"malformed_reference": 1, "session_level_evidence": 1, "undated_session": 1}
    q = back.questions[0]
    assert (q.category, q.answer, q.question_time) == ("hallucination", "3", parse_date("2023/05/30 (Tue) 23:40"))
    assert [e.evidence_id for e in back.evidence] == ["s1-t01"]
    assert back.turns[1].timestamp == parse_date("2023/05/20 (Sat) 02:22")


def test_dates():
    assert format_date(at(1, 9)) == "2024/03/01 (Fri) 09:00"
    assert parse_date("2024/03/01 (Fri) 09:00") == at(1, 9)


def abstention_bundle():
    """dialogue_bundle with its second question turned into an abstention item (the nearest mention its evidence)."""
    bundle = dialogue_bundle("longmemeval")
    q = bundle.questions[1]
    bundle.questions[1] = q.model_copy(update={
        "answer": "There is no record of it", "reference_answer": "There is no record of it: only Oliver dug.",
        "derivation": q.derivation | {"abstention": "someone_else", "misleading_answer": "the carrots"}})
    return bundle


def test_abstention_items_export_as_abs_and_come_back_with_their_ids():
    bundle = abstention_bundle()
    items, _ = export_longmemeval(bundle)
    plain, abstain = items
    assert plain["question_id"] == "fact_0001" and abstain["question_id"] == "hallucination_0002_abs"
    assert abstain["answer"] == "There is no record of it: only Oliver dug."  # LongMemEval's explanatory form
    assert abstain["answer_session_ids"] == ["p0001-s0001"]  # the nearest misleading mention's session
    back, issues = import_longmemeval(items)
    assert issues.issues == []
    assert dumps(back, "questions") == dumps(bundle, "questions")
    assert back.questions[1].abstention == "someone_else"


def test_a_plain_abs_item_imports_as_an_abstention_item():
    item = {"question_id": "q9_abs", "question_type": "single-session-user", "question": "Where did I go?",
            "answer": "You did not mention this information.", "question_date": "2023/05/30 (Tue) 23:40",
            "haystack_session_ids": [], "haystack_dates": [], "haystack_sessions": [], "answer_session_ids": []}
    back, _ = import_longmemeval([item])
    q = back.questions[0]
    assert (q.question_id, q.category, q.abstention) == ("q9_abs", "hallucination", "unanswerable")
