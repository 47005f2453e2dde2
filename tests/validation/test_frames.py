"""The cross-table frames: one row per question / evidence link, computed in DuckDB per run."""

from __future__ import annotations

import datetime as dt

from validation.frames import evidence_frame, question_frame


def test_question_frame_counts_evidence(corpus, con_for):
    df = question_frame(con_for({"r1": corpus}), "r1")
    assert list(df["question_id"]) == ["p0001-q0001", "p0001-q0002"]
    assert list(df["n_evidence"]) == [1, 2]


def test_evidence_frame_resolves_clean_links(corpus, con_for):
    df = evidence_frame(con_for({"r1": corpus}), "r1")
    assert len(df) == 3
    for column in ("resolves", "precedes", "fact_resolves", "question_resolves"):
        assert df[column].tolist() == [True, True, True], column
    assert set(df["evidence_kind"]) == {"turn", "chunk"}


def test_unresolved_link_does_not_precede(corpus, con_for):
    corpus["question_evidence"][0] = corpus["question_evidence"][0].model_copy(update={"evidence_id": "nope"})
    df = evidence_frame(con_for({"r1": corpus}), "r1").set_index("evidence_id")
    assert not df.loc["nope", "resolves"] and not df.loc["nope", "precedes"]


def test_kind_must_match(corpus, con_for):
    # a turn id cited as a chunk does not resolve
    corpus["question_evidence"][0] = corpus["question_evidence"][0].model_copy(
        update={"evidence_kind": "chunk"}
    )
    df = evidence_frame(con_for({"r1": corpus}), "r1")
    assert df["resolves"].tolist().count(False) == 1


def test_frames_filter_by_run(corpus, con_for):
    other = {k: list(v) for k, v in corpus.items()}
    other["questions"] = other["questions"] + [other["questions"][0].model_copy(update={"question_id": "x"})]
    con = con_for({"r1": corpus, "r2": other})
    assert len(question_frame(con, "r1")) == 2 and len(question_frame(con, "r2")) == 3
    assert len(evidence_frame(con, "r1")) == 3
    assert question_frame(con, "r3").empty and evidence_frame(con, "r3").empty


def test_missing_table_reads_as_empty(corpus, con_for):
    con = con_for({"r1": corpus}, tables=("questions", "question_evidence", "turns", "facts"))
    df = evidence_frame(con, "r1").set_index("evidence_id")
    assert not df.loc["p0001-d0001-c00", "resolves"]
    assert df.loc["p0001-s0001-t01", "resolves"]


def test_evidence_times_are_carried(corpus, con_for):
    df = evidence_frame(con_for({"r1": corpus}), "r1").set_index("evidence_id")
    row = df.loc["p0001-s0001-t01"]
    assert row["evidence_time"] == dt.datetime(2025, 1, 1, 10, tzinfo=dt.UTC)
    assert row["question_time"] == dt.datetime(2025, 1, 3, 18, tzinfo=dt.UTC)
