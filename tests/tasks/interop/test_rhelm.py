"""RHELM converter: hand-made rows round-trip; malformed input is reported, not dropped silently."""

import json

from tasks.interop import Bundle
from tasks.interop.rhelm import export_rhelm, import_rhelm, parse_emails, render_emails, sections, tree_of
from tests.tasks.interop_rows import dumps, rhelm_bundle

QA = "QA_final/low_score_qa_Ana_Silva_all_validated.jsonl"


def test_export_then_import_round_trips_ids_dates_and_evidence():
    bundle = rhelm_bundle()
    files, report = export_rhelm(bundle)
    assert report.issues == []
    assert set(files) == {
        QA, "conversations/Ana_Silva/conversation_2024_03_01.json",
        "conversations/Ana_Silva/conversation_2024_03_03.json",
        "emails/Ana_Silva/01_email_2024_03_01.txt", "attachments/Ana_Silva/01_report_task_abcdef12.md",
    }
    back, issues = import_rhelm(tree_of(files))
    assert [i.kind for i in issues.issues] == ["borrowed_date"]
    for table in Bundle.TABLES:
        drop = ("derivation",) if table == "questions" else ()
        assert dumps(back, table, drop) == dumps(bundle, table, drop), table


def test_export_writes_rhelm_references():
    files, _ = export_rhelm(rhelm_bundle())
    items = {json.loads(line)["id"]: json.loads(line) for line in files[QA].splitlines()}
    assert items["fact_0001"]["supporting_evidence"] == ["2024-03-01:1", "2024-03-03:1"]
    assert items["attachment_0003"]["supporting_evidence"] == ["01_report_task_abcdef12.md:Seeds"]
    assert items["attachment_0003"]["question_type"] == "attachment"
    assert items["hallucination_0002"]["supporting_evidence"] == [
        "2024-03-01:2", "01_report_task_abcdef12.md", "01_email_2024_03_01.txt:Garden plans"]
    day = json.loads(files["conversations/Ana_Silva/conversation_2024_03_01.json"])["conversation"]
    assert [p["turn"] for p in day] == [1, 2] and day[1]["research_document"] == "01_report_task_abcdef12"
    assert day[0]["timestamp"] == "2024-03-01T09:00:00"


def test_malformed_references_and_undated_attachments_are_reported():
    files, _ = export_rhelm(rhelm_bundle())
    tree = tree_of(files)
    tree["attachments"]["Ana_Silva"]["09_notes_task_ffffffff.md"] = "# Lost\n"
    lines = tree["qa"]["low_score_qa_Ana_Silva_all_validated.jsonl"]
    bad = ["2024-03-01:99", "2024/03/01-1", "01_report_task_abcdef12.md:Nope"]
    item = json.loads(lines[0]) | {"supporting_evidence": bad}
    lines[0] = json.dumps(item)
    lines.append("{not json")
    back, report = import_rhelm(tree)
    kinds = report.by_kind()
    assert kinds["undated_attachment"] == 1 and kinds["malformed_reference"] == 3 and kinds["malformed_question"] == 1
    assert {i.ref for i in report.issues if i.kind == "malformed_reference"} == {
        "fact_0001:2024-03-01:99", "fact_0001:2024/03/01-1", "fact_0001:01_report_task_abcdef12.md:Nope"}
    assert not [e for e in back.evidence if e.question_id == "fact_0001"]


def test_emails_and_sections_parse():
    mails = [{"Sender": "a", "Recipient": "b", "Subject": "s", "Summary": "one\ntwo"},
             {"Sender": "c", "Recipient": "d", "Subject": "t", "Summary": "three"}]
    assert parse_emails(render_emails(mails)) == mails
    html = "<html><head><style>h1{}</style></head><body><h1>Top</h1><p>a</p><h2>Next &amp; last</h2><p>b</p></body>"
    assert sections(html, "html") == [("Top", "Top a"), ("Next & last", "Next & last b")]
    assert sections("pre\n# A\nx\n### 2. B\ny", "md") == [("", "pre"), ("A", "# A\nx"), ("2. B", "### 2. B\ny")]
