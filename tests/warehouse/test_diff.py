"""`lifeloom diff`: questions compared by content (derivation and text), never by id alone."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.diff import diff_releases


def release(folder, questions: list[dict], facts: list[tuple], table_hash: str = "h") -> object:
    folder.mkdir(parents=True)
    rows = [{"question_id": q["id"], "persona_id": "p0000", "question": q["text"], "answer": q["answer"],
             "question_time": "2024-03-01 09:00:00", "derivation": json.dumps(
                 {"template": q["template"], "fact_ids": q["facts"], "template_question": q.get("tq", q["text"])})}
            for q in questions]
    pq.write_table(pa.Table.from_pylist(rows), folder / "questions.parquet")
    pq.write_table(pa.Table.from_pylist([{"fact_id": f, "subject": s, "attribute": a, "value": v,
                                          "valid_from": "2024-02-01"} for f, s, a, v in facts]),
                   folder / "facts.parquet")
    (folder / "manifest.json").write_text(json.dumps({
        "content_hash": table_hash, "row_counts": {"questions": len(rows), "facts": len(facts)},
        "table_hashes": {"questions": table_hash, "facts": "f"}}))
    return folder


def test_questions_are_matched_by_derivation_and_text_not_by_id(tmp_path):
    """Seeds 7 and 8 of demo once printed 'changed answers 162': p0000-q0001 was about Samir in one and Liam in
    the other. Here q0001 is a different question in B (a new one, not a changed answer), q0002 moved to q0005 and is
    asked in other words, q0003 is re-answered because its fact's value changed, q0004 is the same."""
    city = ("p0000-f0001", "Maya", "city", "Lisbon")
    a = release(tmp_path / "a", [
        {"id": "p0000-q0001", "text": "Which city does Maya live in?", "answer": "Lisbon", "template": "fact.city",
         "facts": ["p0000-f0001"]},
        {"id": "p0000-q0002", "text": "Which book is Maya reading?", "answer": "Tidewater", "template": "fact.book",
         "facts": ["p0000-f0002"], "tq": "Which book is Maya reading?"},
        {"id": "p0000-q0003", "text": "How many runs did Maya do?", "answer": "3", "template": "agg.count",
         "facts": ["p0000-f0003"]},
        {"id": "p0000-q0004", "text": "Did Maya swim?", "answer": "No", "template": "agg.absence", "facts": []},
    ], [city, ("p0000-f0002", "Maya", "current_book", "Tidewater"), ("p0000-f0003", "Maya", "runs", "3")], "ha")
    b = release(tmp_path / "b", [
        {"id": "p0000-q0001", "text": "Which café does Liam like?", "answer": "Blue Door", "template": "fact.cafe",
         "facts": ["p0000-f0009"]},
        {"id": "p0000-q0005", "text": "Do you remember which book I am reading?", "answer": "Tidewater",
         "template": "fact.book", "facts": ["p0000-f0007"], "tq": "Which book is Maya reading?"},
        {"id": "p0000-q0003", "text": "How many runs did Maya do?", "answer": "4", "template": "agg.count",
         "facts": ["p0000-f0003"]},
        {"id": "p0000-q0004", "text": "Did Maya swim?", "answer": "No", "template": "agg.absence", "facts": []},
    ], [("p0000-f0007", "Maya", "current_book", "Tidewater"), ("p0000-f0003", "Maya", "runs", "4"),
        ("p0000-f0009", "Liam", "favourite_cafe", "Blue Door")], "hb")
    d = diff_releases(a, b)
    assert d.unchanged == 1 and not d.same_content and d.changed_tables == ["questions"]
    assert d.reworded == [("p0000-q0002", "p0000-q0005", "Which book is Maya reading?",
                           "Do you remember which book I am reading?")]
    assert [(x, y, old, new) for x, y, _, old, new in d.reanswered] == [("p0000-q0003", "p0000-q0003", "3", "4")]
    assert d.added == [("p0000-q0001", "Which café does Liam like?")]
    assert d.removed == [("p0000-q0001", "Which city does Maya live in?")]
    assert d.reused_ids == 1  # q0001 names a different question in B: never a 'changed answer'
    same = diff_releases(a, a)
    assert same.unchanged == 4 and not (same.added or same.removed or same.reworded or same.reanswered)
