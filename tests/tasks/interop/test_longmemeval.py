"""LongMemEval converter: hand-made rows round-trip; plain items import with what is missing reported."""

from tasks.interop.longmemeval import export_longmemeval, format_date, import_longmemeval, parse_date
from tests.tasks.interop_rows import at, dialogue_bundle, dumps, rhelm_bundle


def test_export_then_import_round_trips_ids_dates_and_evidence():
    bundle = dialogue_bundle("longmemeval")
    items, report = export_longmemeval(bundle)
    assert report.issues == []
    first = items[0]
    # LongMemEval's retrieval takes a session whose id contains "answer" as gold
    assert first["haystack_session_ids"] == ["answer_p0001-s0001", "answer_p0001-s0002"]
    assert first["lifeloom_session_ids"] == ["p0001-s0001", "p0001-s0002"]
    assert first["haystack_dates"] == ["2024/03/01 (Fri) 09:00", "2024/03/03 (Sun) 10:00"]
    assert first["answer_session_ids"] == ["answer_p0001-s0001", "answer_p0001-s0002"]
    assert [m["has_answer"] for m in first["haystack_sessions"][0]] == [True, False, False, False]
    # its reader puts a message's every key but has_answer into the prompt: nothing else is there
    assert {tuple(sorted(m)) for s in first["haystack_sessions"] for m in s} == {("content", "has_answer", "role")}
    assert [m["turn_id"] for m in first["lifeloom_turns"][0]] == [f"p0001-s0001-t0{k}" for k in range(1, 5)]
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
    assert abstain["answer_session_ids"] == ["answer_p0001-s0001"]  # the nearest misleading mention's session
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


def gold_sessions(item: dict) -> set[str]:
    """LongMemEval's rule for gold sessions, restated (src/retrieval/run_retrieval.py, `process_item_flat_index` and
    `correct_docs`: a session id holding "answer", unless none of its user messages has has_answer; its code may
    not be vendored here, so its rule is)."""
    out = set()
    for sid, msgs in zip(item["haystack_session_ids"], item["haystack_sessions"], strict=True):
        if "answer" in sid and any(m["has_answer"] for m in msgs if m["role"] == "user"):
            out.add(sid)
    return out


def test_longmemeval_s_own_rule_finds_exactly_the_evidence_sessions_so_an_oracle_scores_one():
    items, _ = export_longmemeval(dialogue_bundle("longmemeval"))
    for item in items:
        assert gold_sessions(item) == set(item["answer_session_ids"]) and item["answer_session_ids"]
        others = set(item["haystack_session_ids"]) - set(item["answer_session_ids"])
        assert not any("answer" in sid for sid in others)


def test_a_session_id_holding_answer_is_gold_only_where_it_is_evidence():
    from tasks.interop.longmemeval import session_key

    assert session_key("answer_280352e9", True) == "answer_280352e9"
    assert session_key("answer_280352e9", False) == "noans_280352e9"
    assert session_key("p0001-s0003", True) == "answer_p0001-s0003" and session_key("p0001-s0003", False) == \
        "p0001-s0003"


def test_documents_as_sessions_keep_chunk_evidence_as_messages_of_the_document_s_session():
    """`--documents-as-sessions`: a question whose evidence is a chunk keeps it, as the message holding its text."""
    from tasks.interop import Report, documents_as_sessions

    bundle = rhelm_bundle()
    chunked = {e.question_id for e in bundle.evidence if e.evidence_kind == "chunk"}
    report = Report()
    as_sessions = documents_as_sessions(bundle, report)
    assert report.by_kind() == {"documents_as_sessions": 1} and not as_sessions.documents
    texts = {t.turn_id: t.text for t in as_sessions.turns}
    for c in bundle.chunks:
        assert c.text in texts[c.chunk_id]
    items, found = export_longmemeval(as_sessions)
    assert found.count("unmapped_evidence") == 0
    for item in items:
        if item["question_id"] in chunked:
            assert gold_sessions(item), item["question_id"]
    back, _ = import_longmemeval(items)
    assert {e.evidence_id for e in back.evidence} >= {e.evidence_id for e in bundle.evidence
                                                       if e.question_id in {i["question_id"] for i in items}}
