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
    # the attachment question's only evidence is in a document: exported with none, said so
    assert report.by_kind() == {"evidence_lost": 1, "format_loss": 1, "unmapped_evidence": 4}


def test_plain_locomo_imports_and_reports_what_it_lacks():
    sample = {"sample_id": "conv-26", "conversation": {
        "speaker_a": "Caroline", "speaker_b": "Melanie", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
                      {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hi!", "blip_caption": "a dog"}],
        "session_2_date_time": "someday", "session_2": []},
        "qa": [{"question": "Who said hi?", "answer": "Melanie", "evidence": ["D1:2"], "category": 4},
               {"question": "What did Mel paint?", "adversarial_answer": "a lake", "evidence": ["D9:9"],
                "category": 5},
               {"question": "When did Mel paint?", "answer": "2022", "evidence": [], "category": 2}],
        "event_summary": {"events_session_1": {"Caroline": ["Caroline says hi."]}},
        "observation": {"session_1_observation": {"Caroline": [["Caroline greets Mel.", "D1:1"]]}},
        "session_summary": {"session_1_summary": "They greet each other."}}
    back, report = import_locomo([sample])
    assert report.by_kind() == {"assumed_date": 3, "image_inlined": 1, "malformed_reference": 1, "no_evidence": 2,
                                "not_imported": 3, "undated_session": 1}
    assert [t.role for t in back.turns] == ["user", "assistant"] and "a dog" in back.turns[1].text
    assert back.turns[1].timestamp == parse_date("1:57 pm on 8 May, 2023")
    q1, q2, _ = back.questions
    # LoCoMo's adversarial item: its gold is the decline its scorer credits, never the trap answer
    assert (q1.category, q2.category, q2.answer) == ("fact", "hallucination", "Not mentioned in the conversation")
    assert q2.abstention == "adversarial" and q2.derivation["misleading_answer"] == "a lake"
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


def locomo_f1(prediction: str, gold: str) -> float:
    """LoCoMo's `f1_score` restated (task_eval/evaluation.py: lower case, punctuation and a/an/the/and removed,
    Porter stems, token F1); its code may not be vendored here. Stemming is left out: equal texts score 1 either
    way, which is all these tests ask of it."""
    import re
    from collections import Counter

    def norm(text: str) -> list[str]:
        text = "".join(ch for ch in text.lower() if ch.isalnum() or ch.isspace())
        return re.sub(r"\b(a|an|the|and)\b", " ", text).split()

    p, g = norm(prediction), norm(gold)
    same = sum((Counter(p) & Counter(g)).values())
    return 0.0 if not same else 2 * same / (len(p) + len(g))


def locomo_score(item: dict, prediction: str) -> float:
    """LoCoMo's `eval_question_answering` per item, restated: category 5 credited only for "not mentioned" or "no
    information available", 3 read up to a ';', 1 by the best F1 of comma-separated parts, 2 and 4 by F1."""
    category, gold = item["category"], str(item["answer"])
    if category == 5:
        return float("not mentioned" in prediction.lower() or "no information available" in prediction.lower())
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        golds, preds = [g.strip() for g in gold.split(",")], [p.strip() for p in prediction.split(",")]
        return sum(max(locomo_f1(p, g) for p in preds) for g in golds) / len(golds)
    return locomo_f1(prediction, gold)


def test_our_own_gold_scores_one_with_locomo_s_rules_in_every_category():
    """Issue 26: false-premise items exported as category 5 scored 0 with our gold; only abstention items go there,
    and every item's gold answer, given as the prediction, scores 1."""
    from tests.tasks.interop.test_longmemeval import abstention_bundle

    bundle = abstention_bundle()
    bundle.questions.append(bundle.questions[0].model_copy(update={
        "question_id": "misleading_0003", "category": "misleading", "answer": "Flag the ban; suggest a walk"}))
    samples, _ = export_locomo(bundle)
    qa = samples[0]["qa"]
    assert {i["question_id"]: i["category"] for i in qa} == {"fact_0001": 4, "hallucination_0002": 5,
                                                              "misleading_0003": 3}
    for item in qa:
        assert locomo_score(item, str(item["answer"])) == 1.0, item
    back, _ = import_locomo(samples)
    misleading = next(q for q in back.questions if q.question_id == "misleading_0003")
    assert misleading.answer == "Flag the ban; suggest a walk"  # the ';' LoCoMo's category 3 cuts at comes back


def test_more_sessions_than_locomo_reads_are_merged_and_come_apart_again():
    """LoCoMo's code reads sessions 1 to 49: 120 sessions are written as 49 (consecutive ones merged), and the
    import restores the 120 with their ids, times and evidence."""
    from schemas.corpus import Session, Turn
    from schemas.qa import Evidence
    from tasks.interop.locomo import MAX_SESSIONS, merged

    bundle = dialogue_bundle("locomo")
    pid = bundle.personas[0].persona_id
    bundle.sessions, bundle.turns = [], []
    for n in range(1, 121):
        sid = f"{pid}-s{n:04d}"
        bundle.sessions.append(Session(session_id=sid, persona_id=pid, started_at=at(1, 9) + (n - 1) * (at(2) - at(1)),
                                       category="information_sharing"))
        bundle.turns.append(Turn(turn_id=f"{sid}-t01", session_id=sid, persona_id=pid, role="user", text=f"Day {n}.",
                                 timestamp=bundle.sessions[-1].started_at, category="information_sharing"))
    bundle.questions = bundle.questions[:1]
    bundle.questions[0].question_time = at(1) + 200 * (at(2) - at(1))
    bundle.evidence = [Evidence(question_id="fact_0001", evidence_id=f"{pid}-s0117-t01", evidence_kind="turn")]
    assert [len(g) for g in merged(bundle.sessions)].count(2) + [len(g) for g in merged(bundle.sessions)].count(3)
    samples, report = export_locomo(bundle)
    conv = samples[0]["conversation"]
    assert report.by_kind() == {"sessions_merged": 1}
    assert max(int(k.split("_")[1]) for k in conv if k.endswith("_date_time")) == MAX_SESSIONS
    ref = samples[0]["qa"][0]["evidence"][0]
    n, k = ref[1:].split(":")
    assert conv[f"session_{n}"][int(k) - 1]["text"] == "Day 117."
    back, issues = import_locomo(samples)
    assert issues.issues == []
    assert [(s.session_id, s.started_at) for s in back.sessions] == [(s.session_id, s.started_at)
                                                                        for s in bundle.sessions]
    assert dumps(back, "turns") == dumps(bundle, "turns") and dumps(back, "question_evidence") == dumps(
        bundle, "question_evidence")
