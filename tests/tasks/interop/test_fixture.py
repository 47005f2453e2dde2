"""The RHELM excerpt in /work/shared/fixtures: every reference resolves; the RHELM export gives it back."""

import json
import os
from pathlib import Path

import pytest

from tasks.interop import Bundle
from tasks.interop.rhelm import import_rhelm
from tasks.interop.rhelm_export import export_rhelm, tree_of
from tests.tasks.interop_rows import dumps
from warehouse.interop import read_benchmark

FIXTURE = Path(os.environ.get("LIFELOOM_RHELM_SAMPLE", Path(__file__).parents[2] / "fixtures" / "rhelm_sample"))


@pytest.fixture(scope="module")
def imported():
    return read_benchmark("rhelm", FIXTURE)


def _qa_items() -> list[dict]:
    path = next((FIXTURE / "data" / "QA_final").glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_supporting_evidence_resolves(imported):
    bundle, report = imported
    assert [i for i in report.issues if i.kind != "borrowed_date"] == []
    assert report.count("borrowed_date") == 9  # one per attachment, each reported
    assert len(bundle.questions) == 16 and {q.question_id for q in bundle.questions} == {i["id"] for i in _qa_items()}
    evidence = {e.question_id for e in bundle.evidence}
    assert evidence == {q.question_id for q in bundle.questions}
    ids = {t.turn_id for t in bundle.turns} | {c.chunk_id for c in bundle.chunks}
    assert all(e.evidence_id in ids for e in bundle.evidence)
    times = {t.turn_id: t.timestamp for t in bundle.turns} | {c.chunk_id: c.created_at for c in bundle.chunks}
    qtime = {q.question_id: q.question_time for q in bundle.questions}
    assert all(times[e.evidence_id] < qtime[e.question_id] for e in bundle.evidence)


def test_turn_and_section_references_map(imported):
    bundle, _ = imported
    by_id = {t.turn_id: t for t in bundle.turns} | {c.chunk_id: c for c in bundle.chunks}
    ev = {qid: [by_id[e.evidence_id] for e in bundle.evidence if e.question_id == qid]
          for qid in ("fact_fcc1ec", "mixed_c385ac", "attachment_ed3a10")}
    (turn,) = ev["fact_fcc1ec"]
    assert turn.timestamp.date().isoformat() == "2024-02-10" and turn.turn_id.endswith("-t33")  # RHELM turn 17
    assert [c.section for c in ev["mixed_c385ac"]] == ["2. Garden Clean-Up and Preparation"]
    assert len(ev["attachment_ed3a10"]) > 1  # a whole-document reference: every section of it
    doc = {d.doc_id: d for d in bundle.documents}[ev["mixed_c385ac"][0].doc_id]
    assert (doc.title, doc.created_at.date().isoformat()) == ("07_notes_task_c22e58c0", "2024-03-18")


def test_round_trip_through_the_rhelm_export(imported):
    bundle, _ = imported
    files, report = export_rhelm(bundle)
    assert report.issues == []
    qa = [json.loads(line) for line in files["QA_final/low_score_qa_Elena_Morales_all_validated.jsonl"].splitlines()]
    assert sorted(qa, key=lambda i: i["id"]) == sorted(_qa_items(), key=lambda i: i["id"])
    for path in (FIXTURE / "data").rglob("*"):
        rel = str(path.relative_to(FIXTURE / "data"))
        if path.is_file() and not rel.startswith("QA_final"):
            original = path.read_text()
            if rel.startswith("conversations"):
                assert json.loads(files[rel])["conversation"] == json.loads(original)["conversation"], rel
            else:
                assert files[rel].strip() == original.strip(), rel
    back, _ = import_rhelm(tree_of(files))
    for table in Bundle.TABLES:
        drop = ("derivation",) if table == "questions" else ()
        assert dumps(back, table, drop) == dumps(bundle, table, drop), table


def test_the_release_s_email_reference_form_resolves_on_the_excerpt_s_own_emails():
    """The full release cites emails as `Emails_<date>:<section>` (152 references; the excerpt's 16 items cite none):
    asked of the excerpt's own email files, each form resolves to the emails it names."""
    from warehouse.interop import read_rhelm_tree

    tree = read_rhelm_tree(FIXTURE)
    emails = tree["emails"]["Elena_Morales"]["01_email_2024_02_01.txt"]
    from tasks.interop.rhelm import parse_emails

    mails = parse_emails(emails)
    first = mails[0]
    refs = {"Emails_2024-02-01:Email": len(mails), "Emails_2024-02-01:Header": len(mails),
            "Emails_2024-02-01:Email 1": 1,
            f"Emails_2024-02-01:Header: ## Email:From: {first['Sender']}To: {first['Recipient']}": None}
    lines = tree["qa"]["low_score_qa_Elena_Morales_all_validated.jsonl"]
    for n, ref in enumerate(refs):
        lines.append(json.dumps({"id": f"attachment_e{n}", "question": "Who wrote?", "answer": "x",
                                 "question_date": "2024-02-05", "question_type": "attachment",
                                 "supporting_evidence": [ref], "characteristics": ["Email Localization"]}))
    bundle, report = import_rhelm(tree)
    assert not report.count("malformed_reference")
    subjects = {c.chunk_id: c.section for c in bundle.chunks}
    for n, (ref, count) in enumerate(refs.items()):
        found = [subjects[e.evidence_id] for e in bundle.evidence if e.question_id == f"attachment_e{n}"]
        if count is None:  # between the first email's sender and recipient: at least that email
            assert first["Subject"] in found, ref
        else:
            assert len(found) == count, ref
