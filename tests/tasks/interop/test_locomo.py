"""LoCoMo converter: hand-made rows round-trip; plain locomo10 items import with what is missing reported."""

from tasks.interop.locomo import export_locomo, format_date, import_locomo, parse_date
from tests.tasks.interop_rows import at, dialogue_bundle, dumps, rhelm_bundle


def test_export_then_import_round_trips_ids_dates_and_evidence():
    bundle = dialogue_bundle("locomo sample p0001")
    data, report = export_locomo(bundle)
    assert report.issues == []
    conv = data[0]["conversation"]
    assert conv["session_1"][2]["dia_id"] == "D1:3" and conv["session_2_date_time"] == "10:00 am on 3 March, 2024"
    assert data[0]["qa"][0]["evidence"] == ["D1:1", "D2:1"]
    back, issues = import_locomo(data)
    assert issues.issues == []
    assert [p.persona_id for p in back.personas] == ["p0001"]
    for table in ("turns", "question_evidence"):
        assert dumps(back, table) == dumps(bundle, table)
    assert [(s.session_id, s.started_at) for s in back.sessions] == [(s.session_id, s.started_at)
                                                                        for s in bundle.sessions]
    assert dumps(back, "questions") == dumps(bundle, "questions")


def test_documents_and_chunk_evidence_are_reported_on_export():
    _, report = export_locomo(rhelm_bundle())
    assert report.by_kind() == {"format_loss": 1, "unmapped_evidence": 4}


def test_plain_locomo_imports_and_reports_what_it_lacks():
    sample = {"sample_id": "conv-26", "conversation": {
        "speaker_a": "Caroline", "speaker_b": "Melanie", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
                      {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hi!", "blip_caption": "a dog"}],
        "session_2_date_time": "someday", "session_2": []},
        "qa": [{"question": "Who said hi?", "answer": "Melanie", "evidence": ["D1:2"], "category": 4},
               {"question": "What did Mel paint?", "adversarial_answer": "a lake", "evidence": ["D9:9"],
                "category": 5}]}
    back, report = import_locomo([sample])
    assert report.by_kind() == {"assumed_date": 2, "image_inlined": 1, "malformed_reference": 1, "undated_session": 1}
    assert [t.role for t in back.turns] == ["user", "assistant"] and "a dog" in back.turns[1].text
    assert back.turns[1].timestamp == parse_date("1:57 pm on 8 May, 2023")
    q1, q2 = back.questions
    assert (q1.category, q2.category, q2.answer) == ("fact", "hallucination", "a lake")
    assert [e.evidence_id for e in back.evidence] == ["p0001-s0001-t02"]


def test_dates():
    assert format_date(at(3, 0, 5)) == "12:05 am on 3 March, 2024"
    assert parse_date(format_date(at(3, 13, 7))) == at(3, 13, 7)
    assert parse_date("8 May 2023") is None


def test_abstention_items_export_as_adversarial_and_come_back():
    from tests.tasks.interop.test_longmemeval import abstention_bundle

    bundle = abstention_bundle()
    samples, _ = export_locomo(bundle)
    qa = samples[0]["qa"]
    abstain = next(i for i in qa if i["question_id"] == "hallucination_0002")
    assert (abstain["category"], abstain["answer"]) == (5, "Not mentioned in the conversation")
    assert abstain["adversarial_answer"] == "the carrots"
    back, _ = import_locomo(samples)
    mine = next(q for q in back.questions if q.question_id == "hallucination_0002")
    assert mine.answer == "There is no record of it" and mine.abstention == "someone_else"
