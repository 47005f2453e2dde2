"""External sources: emails (headers, threads, noise), journals, reports (tables, revisions), chunking,
the sources verifier and determinism."""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Document
from tasks.common.facttext import carries, carries_first
from tasks.sources.chunking import chunk_document, count_tokens
from tasks.sources.emails import header_block, parse_headers
from tasks.sources.stage import write_sources
from tasks.sources.verify import document_problems
from tests.tasks.worldfixture import PID, make_config, make_gateway, make_persona, make_world


def sources(**overrides):
    return write_sources(make_config(**overrides), make_persona(), make_world(), make_gateway())


def of(corpus, source_type):
    return [d for d in corpus.documents if d.source_type == source_type]


def test_ids_are_sequential_in_time_order_and_every_document_is_stamped():
    docs = sources().documents
    assert [d.doc_id for d in docs] == [f"{PID}-d{n:04d}" for n in range(1, len(docs) + 1)]
    assert [d.created_at for d in docs] == sorted(d.created_at for d in docs)
    assert {d.source_type for d in docs} >= {"email", "journal"} and all(d.title and d.format for d in docs)


def test_headers_round_trip():
    sent = dt.datetime(2024, 3, 2, 9, 15, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    to, cc = ["Dan Okafor <dan@x.example>", "Reyes, Daniel <d.reyes@x.example>"], ["Ann <ann@x.example>"]
    body = header_block("Maya <maya@x.example>", to, cc, sent, "Re: dinner") + "\n\nHi Dan,\n\nSee you."
    head = parse_headers(body)
    assert (head["from"], head["to"], head["cc"], head["date"], head["subject"]) == (
        "Maya <maya@x.example>", to, cc, sent, "Re: dinner")
    assert head["text"] == "Hi Dan,\n\nSee you."


def test_email_bodies_parse_back_to_their_document_fields():
    for doc in of(sources(), "email"):
        head = parse_headers(doc.body)
        assert (head["from"], head["to"], head["cc"], head["subject"]) == (doc.sender, doc.recipients, doc.cc,
                                                                           doc.title)
        assert head["date"] == doc.created_at


def test_event_emails_carry_their_facts_and_noise_carries_none():
    world = make_world()
    facts = {f.fact_id: f for f in world.facts}
    mails = of(sources(), "email")
    for doc in mails:
        assert all(carries_first(doc.body, facts[fid]) for fid in doc.fact_ids)
        if doc.kind in ("newsletter", "receipt", "notice"):
            assert doc.fact_ids == [] and doc.event_id is None
    assert {d.kind for d in mails} & {"newsletter", "receipt"}


def test_replies_quote_their_parent_and_share_its_thread():
    corpus = sources(stages={"sources": {"email_probability": 1.0, "reply_probability": 1.0}})
    docs = {d.doc_id: d for d in corpus.documents}
    found = [d for d in corpus.documents if d.kind == "reply"]
    assert found
    for reply in found:
        parent = docs[reply.parent_doc_id]
        assert reply.thread_id == parent.thread_id == parent.doc_id and reply.created_at > parent.created_at
        assert reply.title.startswith("Re: ") and parent.title.removeprefix("Re: ") in reply.title
        assert reply.sender == parent.recipients[0]
        assert "> " + parse_headers(parent.body)["text"].splitlines()[0] in reply.body


def test_journals_are_markdown_on_event_days_with_the_days_facts():
    world = make_world()
    for doc in of(sources(), "journal"):
        day = doc.created_at.date()
        assert doc.format == "md" and doc.body.startswith("# ")
        assert set(doc.fact_ids) == {f.fact_id for f in world.facts if f.valid_from == day and
                                     f.event_id != f"{PID}-e0000"}


def test_reports_have_a_ground_truth_table_rendered_in_the_body_and_budgets_get_revisions():
    corpus = sources(days=20, stages={"sources": {"report_period_days": 7}})
    reports = of(corpus, "report")
    assert {d.format for d in reports} == {"md", "html"}
    for doc in reports:
        table = doc.tables[0]
        assert all(str(row[0]) in doc.body for row in table["rows"])
    v2 = [d for d in reports if d.version == 2]
    assert v2
    parent = next(d for d in reports if d.doc_id == v2[0].parent_doc_id)
    assert parent.tables[0]["rows"][-1] != v2[0].tables[0]["rows"][-1]  # the total changed


def test_a_planted_contradiction_is_caught():
    world, persona = make_world(), make_persona()
    body = "# Journal\n\nWe love living here: my city is now Boston."
    doc = Document(doc_id=f"{PID}-d0099", persona_id=PID, created_at=dt.datetime(2024, 3, 8, 21, tzinfo=dt.UTC),
                   source_type="journal", format="md", title="t", body=body)
    assert [p.check for p in document_problems(doc, persona, world)] == ["document_contradicts_facts"]
    early = doc.model_copy(update={"created_at": dt.datetime(2024, 3, 3, 21, tzinfo=dt.UTC)})
    assert document_problems(early, persona, world) == []  # before the move, Boston was right
    table = {"caption": "Budget", "columns": ["category", "amount"], "rows": [["Rent", 10], ["Total", 11]]}
    bad = doc.model_copy(update={"body": "| Rent | 10 |\n| Total | 11 |", "tables": [table]})
    assert [p.check for p in document_problems(bad, persona, world)] == ["table_total"]


def document(body: str, fact_ids: list[str] = ()) -> Document:
    return Document(doc_id=f"{PID}-d0009", persona_id=PID, created_at=dt.datetime(2024, 3, 2, 9, tzinfo=dt.UTC),
                    source_type="report", format="md", title="t", body=body, fact_ids=list(fact_ids))


def test_chunks_respect_the_token_budget_table_rows_and_sections():
    rows = "\n".join(f"| item {i} | {i * 7} | {i * 3} |" for i in range(40))
    body = "# Report\n\n## Intro\n\n" + " ".join(["words"] * 300) + "\n\n## Figures\n\n| a | b | c |\n|---|---|---|\n"
    body += rows
    chunks = chunk_document(document(body), chunk_tokens=80, overlap=10)
    assert all(c.n_tokens <= 80 and c.n_tokens == count_tokens(c.text) for c in chunks)
    for c in chunks:
        assert all(line.startswith("|") and line.endswith("|") for line in c.text.splitlines() if "item" in line)
    text = "\n".join(c.text for c in chunks)
    assert all(f"| item {i} | {i * 7} | {i * 3} |" in text for i in range(40))
    assert chunks[0].section == "Intro" and chunks[-1].section == "Figures"
    assert [c.ordinal for c in chunks] == list(range(1, len(chunks) + 1))


def test_chunks_overlap_and_claim_only_facts_their_text_carries():
    world = make_world()
    pet, city = (next(f for f in world.facts if f.fact_id == f"{PID}-f{n:04d}") for n in (5, 7))
    body = "We adopted Biscuit today.\n\n" + "\n\n".join(["filler words here"] * 12) + "\n\nWe now live in Cambridge."
    chunks = chunk_document(document(body, [pet.fact_id, city.fact_id]), 20, world.facts, overlap=5)
    assert chunks[0].fact_ids == [pet.fact_id] and chunks[-1].fact_ids == [city.fact_id]
    assert chunks[1].text.startswith("filler words here")  # the tail of the previous chunk is repeated
    assert all(carries(c.text, f) for c in chunks for f in world.facts if f.fact_id in c.fact_ids)


def test_sources_are_deterministic_and_depend_on_the_seed():
    assert sources() == sources()
    assert [d.body for d in sources(seed=12).documents] != [d.body for d in sources().documents]


def test_a_rhelm_persona_year_has_at_least_200_documents_of_every_type_and_format():
    from collections import Counter

    from schemas.config import ProviderConfig, load_preset
    from tasks.llm.gateway import Gateway
    from tasks.world import loop, profile

    cfg = load_preset("rhelm")
    gateway = Gateway(ProviderConfig())
    persona = profile.enrich_persona(cfg, profile.persona_ids(cfg)[0], profile.seed_texts(cfg)[0], gateway)
    docs = write_sources(cfg, persona, loop.simulate(cfg, persona, gateway), gateway).documents
    types, formats = Counter(d.source_type for d in docs), Counter(d.format for d in docs)
    assert len(docs) >= 200 and set(types) == {"email", "journal", "report"} and set(formats) == {"txt", "md", "html"}
    assert min(types.values()) >= 20 and min(formats.values()) >= 20


def test_a_training_log_lists_the_sessions_that_happened_and_each_section_says_something_of_its_own():
    """p0002-d0094 of the old simulator: a log of sessions on random days; and 'In short: the total row reads 235,
    19 for minutes, effort' under every heading."""
    from schemas.config import ProviderConfig, load_preset
    from tasks.llm.gateway import Gateway
    from tasks.sources.reports import report_plans
    from tasks.world import loop, profile

    cfg = load_preset("rhelm")
    gateway = Gateway(ProviderConfig())
    persona = profile.enrich_persona(cfg, profile.persona_ids(cfg)[1], profile.seed_texts(cfg)[1], gateway)
    world = loop.simulate(cfg, persona, gateway)
    plans = {p.plan_id: p for p in world.plans}
    done = {(e.date.isoformat(), plans[e.plan_id].entity["hobby"]) for e in world.events
            if e.kind == "hobby_session" and e.valence == "positive"}
    logs = [p for p in report_plans(cfg, persona, world) if p.kind == "training_log"]
    assert logs
    for log in logs:
        hobby = log.topic.removesuffix(" log")
        rows = log.table["rows"][:-1]
        assert len(rows) >= 2 and all((r[0], hobby) in done for r in rows), (log.topic, rows)
        assert log.table["rows"][-1][1] == sum(r[1] for r in rows)
    reports = [d for d in write_sources(cfg, persona, world, gateway).documents if d.source_type == "report"]
    for doc in reports:
        paragraphs = [p for p in doc.body.split("\n") if "?" in p]
        answers = [p.split("?", 1)[1] for p in paragraphs]
        assert len(set(answers)) == len(answers), (doc.doc_id, answers)


def test_a_project_put_on_hold_before_it_began_reports_nothing_done():
    from tasks.sources.reports import work_report
    from tests.tasks.worldfixture import PID, make_config, make_persona, make_world

    world = make_world()
    plans = [p.model_copy(update={"kind": "work_project", "title": "kick off the Atlas project at work",
                                  "entity": {"project": "Atlas", "employer": "Brightwave Labs"}})
             if p.plan_id == f"{PID}-pl0004" else p for p in world.plans]
    world = world.model_copy(update={"plans": plans})
    event = next(e for e in world.events if e.event_id == f"{PID}-e0004").model_copy(update={"kind": "work_project"})
    rows = lambda e: dict(work_report(make_config(), make_persona(), world, e, 0).table["rows"])  # noqa: E731
    on_hold = rows(event)  # negative: the project is on hold
    assert on_hold["tasks completed"] == 0 and on_hold["hours logged"] == 0 and on_hold["tasks planned"] > 0
    kicked_off = rows(event.model_copy(update={"valence": "positive"}))
    assert kicked_off["tasks completed"] > 0 and kicked_off["hours logged"] >= 20
