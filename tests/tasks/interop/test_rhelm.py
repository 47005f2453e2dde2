"""RHELM converter: hand-made rows round-trip; malformed input is reported, not dropped silently."""

import json

from tasks.interop import Bundle
from tasks.interop.rhelm import import_rhelm, parse_emails, render_emails, sections
from tasks.interop.rhelm_export import export_rhelm, tree_of
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
        "lifeloom.json",
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



def test_export_writes_the_release_s_keys_and_labels_and_no_empty_email_file():
    """Issue 26: RHELM's conversation keys, its hyphenated labels, no email file without emails."""
    import datetime as dt

    from schemas.corpus import Document

    bundle = rhelm_bundle()
    journal = Document(doc_id="p0001-d0003", persona_id="p0001", created_at=dt.datetime(2024, 3, 2, 20,
                                                                                       tzinfo=dt.UTC),
                       source_type="journal", format="md", title="Quiet day", body="# Quiet day\n\nRain.",
                       kind="journal")
    bundle.documents.append(journal)
    bundle.questions[0].characteristics = ["long_horizon_synthesis", "email_cross_time_count", "trend_analysis"]
    files, report = export_rhelm(bundle)
    assert all(text.strip() for rel, text in files.items() if rel.startswith("emails/"))
    assert [p for p in files if p.startswith("emails/")] == ["emails/Ana_Silva/01_email_2024_03_01.txt"]
    assert report.by_kind() == {"undated_in_rhelm": 1}  # the journal's day has no email to date it by
    day = json.loads(files["conversations/Ana_Silva/conversation_2024_03_01.json"])
    assert {"character", "date", "profile_file", "event_file", "conversation", "conversation_summary", "statistics",
            "metadata"} <= set(day)
    assert {"total_turns", "total_user_chars", "total_assistant_chars", "avg_user_length", "avg_assistant_length",
            "time_span"} <= set(day["statistics"])
    items = [json.loads(line) for line in files[QA].splitlines()]
    assert items[0]["characteristics"] == ["Long-Horizon Synthesis", "Cross-Temporal Count",
                                           "Comparative Trend Analysis"]
    back, issues = import_rhelm(tree_of(files))
    assert issues.by_kind() == {"borrowed_date": 2}  # the journal dated by lifeloom.json, not dropped
    assert [d.created_at.date() for d in back.documents if d.source_type == "journal"] == [dt.date(2024, 3, 2)]
    assert back.questions[0].characteristics == bundle.questions[0].characteristics


def test_a_pair_after_midnight_is_filed_under_its_own_day():
    """Issue 26: turns were filed under the day their session began (37 demo pairs under the previous day)."""
    import datetime as dt

    bundle = rhelm_bundle()
    late = [t for t in bundle.turns if t.session_id.endswith("s0001")][-2:]
    for k, t in enumerate(late):
        t.timestamp = dt.datetime(2024, 3, 2, 0, 10, k, tzinfo=dt.UTC)
    files, _ = export_rhelm(bundle)
    nxt = json.loads(files["conversations/Ana_Silva/conversation_2024_03_02.json"])
    assert [p["timestamp"][:10] for p in nxt["conversation"]] == ["2024-03-02"] and nxt["date"] == "2024-03-02"
    back, issues = import_rhelm(tree_of(files))
    assert "date_mismatch" not in issues.by_kind()


def test_re_importing_an_export_keeps_the_persona_ids():
    """Issue 26: folder order renumbered personas while their question ids kept the old prefix."""
    bundle = rhelm_bundle()
    bundle.personas[0] = bundle.personas[0].model_copy(update={"persona_id": "p0007"})
    for rows in (bundle.sessions, bundle.turns, bundle.documents, bundle.chunks, bundle.questions):
        for row in rows:
            row.persona_id = "p0007"
    files, _ = export_rhelm(bundle)
    back, _ = import_rhelm(tree_of(files))
    assert [p.persona_id for p in back.personas] == ["p0007"]
    assert {q.persona_id for q in back.questions} == {"p0007"}


def test_the_release_s_email_references_and_labels_outside_the_taxonomy_import():
    """Issue 26: 152 `Emails_<date>:<section>` references and three labels outside the 27 in RHELM's release."""
    files, _ = export_rhelm(rhelm_bundle())
    tree = tree_of(files)
    tree["emails"]["Ana_Silva"]["01_email_2024_03_01.txt"] = render_emails([
        {"Sender": "Ana Silva <ana@example.org>", "Recipient": "Lila Nguyen <lila@example.org>", "Subject": "Plans",
         "Summary": "Carrots."},
        {"Sender": "Lila Nguyen <lila@example.org>", "Recipient": "Ana Silva <ana@example.org>", "Subject": "Re: Plans",
         "Summary": "Gloves."}])
    lines = tree["qa"]["low_score_qa_Ana_Silva_all_validated.jsonl"]
    refs = {"Emails_2024-03-01:Email": 2, "Emails_2024-03-01:Email 2": 1, "Emails_2024-03-01:Email to Lila Nguyen": 1,
            "Emails_2024-03-01:Header: ## Email:From: Lila Nguyen <lila@example.org>To: Ana Silva <ana@example.org>": 1}
    for n, ref in enumerate(refs):
        lines.append(json.dumps({"id": f"attachment_9{n}", "question": "Who wrote?", "answer": "Lila",
                                 "question_date": "2024-03-05", "question_type": "attachment",
                                 "supporting_evidence": [ref], "characteristics": ["Relationship Analysis"]}))
    lines.append(json.dumps({"id": "fact_99", "question": "Which turns?", "answer": "x", "question_date": "2024-03-05",
                             "question_type": "fact", "supporting_evidence": ["2024-03-01:1,2"],
                             "characteristics": ["Cross-Temporal Count", "Made Up Skill"]}))
    back, report = import_rhelm(tree_of(files) | {"emails": tree["emails"], "qa": tree["qa"]})
    kinds = report.by_kind()
    assert kinds["label_mapped"] == 4 and kinds["unmapped_value"] == 1
    # (the old QA's own reference to the replaced email's subject is the only one that no longer resolves)
    assert [i.ref for i in report.issues if i.kind == "malformed_reference"] == [
        "hallucination_0002:01_email_2024_03_01.txt:Garden plans"]
    texts = {c.chunk_id: c.text for c in back.chunks}
    for n, (ref, count) in enumerate(refs.items()):
        found = [e for e in back.evidence if e.question_id == f"attachment_9{n}"]
        assert len(found) == count, ref
        q = next(q for q in back.questions if q.question_id == f"attachment_9{n}")
        assert q.characteristics == ["email_localization"]
    second = [e.evidence_id for e in back.evidence if e.question_id == "attachment_91"]
    assert texts[second[0]] == "Gloves."
    fact = next(q for q in back.questions if q.question_id == "fact_99")
    assert fact.characteristics == ["email_cross_time_count", "made_up_skill"]
    assert len([e for e in back.evidence if e.question_id == "fact_99"]) == 2


def test_the_release_s_looser_section_names_resolve_and_are_reported():
    """RHELM's release also names sections `Header: ## X`, `## X`, `Header`, `Section 2`, `2`, `II` or by a caption
    inside a section (63 of its references): each is read and reported as `section_matched`."""
    files, _ = export_rhelm(rhelm_bundle())
    tree = tree_of(files)
    lines = tree["qa"]["low_score_qa_Ana_Silva_all_validated.jsonl"]
    forms = {"Header: ## Seeds": "Seeds", "## Seeds": "Seeds", "Header": "Plan", "Section 2": "Seeds", "2": "Seeds",
             "II": "Seeds", "basil": "Seeds"}
    for n, form in enumerate(forms):
        lines.append(json.dumps({"id": f"attachment_8{n}", "question": "Where?", "answer": "x",
                                 "question_date": "2024-03-05", "question_type": "attachment",
                                 "supporting_evidence": [f"01_report_task_abcdef12:{form}"],
                                 "characteristics": ["Structural Navigation"]}))
    back, report = import_rhelm(tree)
    sections = {c.chunk_id: c.section for c in back.chunks}
    for n, (form, heading) in enumerate(forms.items()):
        found = [sections[e.evidence_id] for e in back.evidence if e.question_id == f"attachment_8{n}"]
        assert found == [heading], form
    assert report.count("section_matched") == len(forms) and not report.count("malformed_reference")


def test_dated_attachments_give_rhelm_s_evaluator_a_date_carrier_for_an_email_less_day():
    import datetime as dt

    from schemas.corpus import Document

    bundle = rhelm_bundle()
    bundle.documents.append(Document(doc_id="p0001-d0003", persona_id="p0001", source_type="journal", format="md",
                                     created_at=dt.datetime(2024, 3, 2, 20, tzinfo=dt.UTC), title="Quiet day",
                                     body="# Quiet day\n\nRain.", kind="journal"))
    files, report = export_rhelm(bundle, dated_attachments=True)
    journal = next(p for p in files if p.startswith("attachments/") and "_notes_task_" in p)
    nn = journal.rsplit("/", 1)[1][:2]
    assert files[f"emails/Ana_Silva/{nn}_email_2024_03_02.txt"] == "" and not report.count("undated_in_rhelm")
    back, _ = import_rhelm(tree_of(files))
    assert [d.created_at.date() for d in back.documents if d.source_type == "journal"] == [dt.date(2024, 3, 2)]
