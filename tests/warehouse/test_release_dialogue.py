"""The manifest's dialogue statistics, computed in DuckDB from a landed run, and their place in the card."""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Document, FactMention, Session, Turn
from schemas.release import Manifest
from tasks.sources.chunking import count_tokens
from warehouse import release
from warehouse.card import dataset_card
from warehouse.catalog import session
from warehouse.parquet import land_rows
from warehouse.paths import prepare_home

T0 = dt.datetime(2024, 1, 1, 20, tzinfo=dt.UTC)
TEXTS = {
    "p0001": [("user", "initial", "I moved to Lisbon  yesterday and I love it."), ("assistant", "initial", "Nice!"),
              ("user", "followup", "I moved to Lisbon yesterday and\nI love it so much."),
              ("user", "filler", "Any\tgood recipe?")],
    "p0002": [("user", "initial", "Status: the new job at Acme starts on Monday, wish me luck."),
              ("assistant", "initial", "Good luck with the new job!")],
}


def ratio(texts: list[str]) -> float:
    """The reference: distinct / all lower-cased whitespace-split word 4-grams."""
    grams = [tuple(w[i : i + 4]) for t in texts for w in [t.lower().split()] for i in range(len(w) - 3)]
    return len(set(grams)) / len(grams)


def land(layout, run_id: str = "r1") -> None:
    for pid, rows in TEXTS.items():
        sid = f"{pid}-s0001"
        turns = [Turn(turn_id=f"{sid}-t{k:02d}", session_id=sid, persona_id=pid, timestamp=T0 + dt.timedelta(minutes=k),
                      role=role, text=text, kind=kind, category="status_update" if pid == "p0002" else
                      "information_sharing") for k, (role, kind, text) in enumerate(rows, start=1)]
        land_rows(layout, "turns", turns, run_id, pid)
        land_rows(layout, "sessions", [Session(session_id=sid, persona_id=pid, started_at=T0,
                                               category=turns[0].category)], run_id, pid)
        mentions = [FactMention(mention_id=f"{sid}-t01-m1", persona_id=pid, fact_id=f"{pid}-f0001",
                                evidence_id=f"{sid}-t01", evidence_kind="turn", mode="explicit", span="Lisbon"),
                    FactMention(mention_id=f"{pid}-d0001-c01-m1", persona_id=pid, fact_id=f"{pid}-f0001",
                                evidence_id=f"{pid}-d0001-c01", evidence_kind="chunk", mode="paraphrased",
                                span="welcome aboard")]
        mentions += [FactMention(mention_id=f"{sid}-t0{t}-m{n}", persona_id=pid, fact_id=f"{pid}-f000{f}",
                                 evidence_id=f"{sid}-t0{t}", evidence_kind="turn", mode="corrected", span="x",
                                 counts=counts)  # f0002 put right at once, f0003 in a later turn
                     for t, n, f, counts in ((1, 2, 2, False), (1, 3, 2, True), (1, 4, 3, False), (3, 1, 3, True))]
        land_rows(layout, "fact_mentions", mentions, run_id, pid)
        land_rows(layout, "documents", [Document(doc_id=f"{pid}-d0001", persona_id=pid, created_at=T0,
                                                 source_type="email", format="txt", title="Hi",
                                                 body=f"Hello {pid}, welcome aboard.")], run_id, pid)


def test_dialogue_stats_count_turns_ratios_and_tokens(tmp_path):
    layout = prepare_home(tmp_path)
    land(layout)
    land(layout, "r0")  # another run's rows are ignored
    stats = release.dialogue_stats(session(layout), "r1")
    users = {pid: [t for role, _, t in rows if role == "user"] for pid, rows in TEXTS.items()}
    assert stats["sessions"] == 2 and stats["user_turns"] == 4 and stats["assistant_turns"] == 2
    assert stats["turns_by_category"] == {"information_sharing": 4, "status_update": 2}
    assert stats["turns_by_kind"] == {"filler": 1, "followup": 1, "initial": 4}
    assert stats["user_turns_by_kind"] == {"filler": 1, "followup": 1, "initial": 2}
    assert stats["mentions_by_mode"] == {"corrected": 8, "explicit": 2, "paraphrased": 2}
    assert stats["mentions_by_evidence_kind"] == {"chunk": {"paraphrased": 2}, "turn": {"corrected": 8, "explicit": 2}}
    assert stats["later_corrections"] == 2
    assert stats["distinct_4gram_ratio"] == round(ratio(users["p0001"] + users["p0002"]), 4)
    assert stats["distinct_4gram_ratio_by_persona"] == {pid: round(ratio(t), 4) for pid, t in users.items()}
    assert stats["min_persona_distinct_4gram_ratio"] == round(ratio(users["p0001"]), 4) < 1.0
    tokens = stats["tokens"]
    assert tokens["by_persona"]["p0001"] == {"dialogue": sum(count_tokens(t) for _, _, t in TEXTS["p0001"]),
                                             "documents": count_tokens("Hello p0001, welcome aboard.")}
    assert tokens["dialogue"] == sum(v["dialogue"] for v in tokens["by_persona"].values())


def test_dialogue_stats_of_a_run_without_turns_are_empty_not_an_error(tmp_path):
    layout = prepare_home(tmp_path)
    land(layout)
    stats = release.dialogue_stats(session(layout), "nothing")
    assert stats["user_turns"] == 0 and stats["distinct_4gram_ratio"] is None
    assert stats["min_persona_distinct_4gram_ratio"] is None and stats["tokens"]["by_persona"] == {}


def test_the_manifest_and_the_card_show_the_dialogue(tmp_path):
    layout = prepare_home(tmp_path)
    land(layout)
    con = session(layout)
    hashes = release.content_hashes(con, "r1")
    manifest = Manifest(name="t", version="v0001", run_id="r1", created_at=T0, code_version="v", config={"days": 3},
                        config_hash="c", provider={"name": "offline"}, package_versions={}, prompt_hashes={},
                        ledger={}, row_counts=release.row_counts(con, "r1"), table_hashes=hashes,
                        content_hash=release.combined_hash(hashes), gates={"passed": 1, "expectations": 1},
                        dialogue=release.dialogue_stats(con, "r1"))
    release.freeze(layout, manifest)
    folder = layout.release_dir("t", "v0001")
    assert '"distinct_4gram_ratio"' in (folder / "manifest.json").read_text()
    card = (folder / "README.md").read_text()
    assert "## Dialogue" in card and "2 sessions, 4 user turns and 2 assistant turns" in card
    assert "Distinct word 4-gram ratio of user turns" in card and "information_sharing: 4" in card
    assert ("in turns: corrected: 8, explicit: 2; in document chunks: paraphrased: 2; of the corrections, 2 put right "
            "in a later session") in card
    assert "## Dialogue" not in dataset_card(manifest.model_copy(update={"dialogue": {}}))
