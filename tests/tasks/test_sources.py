"""Emails and chunks: ids, timing, parties, facts carried, chunking, determinism."""

from __future__ import annotations

import datetime as dt
import json

from schemas.config import ProviderConfig
from schemas.corpus import Document
from tasks.facttext import carries, carries_first, mentions
from tasks.llm.gateway import Gateway, LLMResponse
from tasks.sources import chunk_document, write_emails
from tests.tasks.worldfixture import PID, make_config, make_gateway, make_persona, make_world


def emails(**overrides):
    return write_emails(make_config(**overrides), make_persona(), make_world(), make_gateway())


def test_every_event_with_probability_one_yields_an_email_with_sequential_ids():
    docs = emails().documents
    assert [d.doc_id for d in docs] == [f"{PID}-d{n:04d}" for n in range(1, 6)]
    assert [d.event_id for d in docs] == [f"{PID}-e{n:04d}" for n in range(1, 6)]
    assert all(d.source_type == "email" and d.format == "txt" and d.title for d in docs)


def test_probability_zero_yields_no_email():
    corpus = emails(stages={"sources": {"email_probability": 0.0}})
    assert corpus.documents == [] and corpus.chunks == []


def test_emails_are_sent_on_the_event_day_or_the_next_in_local_time():
    events = {e.event_id: e for e in make_world().events}
    for doc in emails().documents:
        local = doc.created_at
        assert str(local.tzinfo) == "America/New_York"
        assert (local.date() - events[doc.event_id].date).days in (0, 1)
        assert 7 <= local.hour <= 17


def test_the_persona_is_sender_or_recipient():
    for doc in emails().documents:
        parties = [doc.sender] + doc.recipients
        assert sum("Maya Okafor" in p for p in parties) == 1
        assert all("<" in p and "@" in p for p in parties)


def test_each_email_claims_exactly_its_events_facts_and_carries_their_first_surface_form():
    world = make_world()
    facts = {f.fact_id: f for f in world.facts}
    for doc in emails().documents:
        assert doc.fact_ids == [f.fact_id for f in world.facts if f.event_id == doc.event_id]
        assert all(carries_first(doc.body, facts[fid]) for fid in doc.fact_ids)


class ForgetfulProvider:
    """A model that never mentions the facts it was asked to convey."""

    name, model = "forgetful", "v0"

    def complete(self, request):
        text = json.dumps({"subject": "Hello", "body": "Hi,\n\nJust saying hello.\n\nBye"})
        return LLMResponse(text=text, input_tokens=1, output_tokens=1)


def test_a_fact_the_model_left_out_is_added_as_a_postscript():
    gateway = Gateway(ProviderConfig(), provider=ForgetfulProvider(), hard_checks=False)  # the stage's own net
    world = make_world()
    docs = write_emails(make_config(), make_persona(), world, gateway).documents
    biscuit = next(f for f in world.facts if f.value == "Biscuit")
    assert "P.S." in docs[0].body and carries_first(docs[0].body, biscuit)
    assert docs[0].fact_ids == [biscuit.fact_id]


def document(body: str, fact_ids: list[str]) -> Document:
    return Document(
        doc_id=f"{PID}-d0009",
        persona_id=PID,
        created_at=dt.datetime(2024, 3, 2, 9, tzinfo=dt.UTC),
        source_type="email",
        format="txt",
        title="t",
        body=body,
        fact_ids=fact_ids,
    )


def test_chunks_pack_paragraphs_up_to_the_token_budget():
    body = "\n\n".join(["one two three", "four five", "six seven eight nine", "ten"])
    chunks = chunk_document(document(body, []), chunk_tokens=5)
    assert [c.text for c in chunks] == ["one two three\n\nfour five", "six seven eight nine\n\nten"]
    assert [c.chunk_id for c in chunks] == [f"{PID}-d0009-c01", f"{PID}-d0009-c02"]
    assert [c.ordinal for c in chunks] == [1, 2] and [c.n_tokens for c in chunks] == [5, 5]


def test_a_paragraph_longer_than_the_budget_is_cut_into_windows():
    body = " ".join(f"w{i}" for i in range(12))
    chunks = chunk_document(document(body, []), chunk_tokens=5)
    assert [c.n_tokens for c in chunks] == [5, 5, 2]
    assert " ".join(c.text for c in chunks) == body


def test_a_chunk_claims_only_the_document_facts_its_own_text_carries():
    world = make_world()
    pet, city = (next(f for f in world.facts if f.fact_id == f"{PID}-f{n:04d}") for n in (5, 7))
    body = "We adopted Biscuit today.\n\n" + "filler " * 10 + "\n\nAnd we now live in Cambridge."
    chunks = chunk_document(document(body, [pet.fact_id, city.fact_id]), chunk_tokens=10, facts=world.facts)
    assert [c.fact_ids for c in chunks] == [[pet.fact_id], [], [city.fact_id]]
    assert not chunk_document(document(body, []), 10, world.facts)[
        0
    ].fact_ids  # the document did not claim it


def test_chunks_of_generated_emails_carry_what_they_claim_and_cover_the_body():
    world = make_world()
    facts = {f.fact_id: f for f in world.facts}
    corpus = emails()
    for doc in corpus.documents:
        chunks = [c for c in corpus.chunks if c.doc_id == doc.doc_id]
        assert " ".join(c.text for c in chunks).split() == doc.body.split()
        assert all(c.n_tokens <= 40 and c.created_at == doc.created_at for c in chunks)
        assert all(carries(c.text, facts[fid]) for c in chunks for fid in c.fact_ids)
        claimed = {fid for c in chunks for fid in c.fact_ids}
        assert claimed <= set(doc.fact_ids)


def test_emails_are_deterministic_and_depend_on_the_seed():
    assert emails() == emails()
    other = emails(seed=12)
    assert [d.body for d in other.documents] != [d.body for d in emails().documents]


def test_whole_word_matching():
    assert mentions("Biscuit's bowl", "Biscuit") and mentions("in BOSTON.", "Boston")
    assert not mentions("a banana", "Ana") and not mentions("anything", "")
