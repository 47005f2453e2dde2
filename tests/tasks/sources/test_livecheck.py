"""Verification by meaning for documents a real model writes (tasks/sources/livecheck.py): a journal entry that
says a fact in its own words is judged by the fact_check call, and the verdict decides what it claims."""

from __future__ import annotations

import json

import pytest

from schemas.config import ProviderConfig
from schemas.corpus import Chunk, Document, JournalDraft
from tasks.common.facttext import carries_first, mentions
from tasks.dialogue.stage import chunk_mentions
from tasks.llm import checks
from tasks.llm.gateway import Gateway
from tasks.llm.limits import reset_limiters
from tasks.llm.types import LLMResponse
from tasks.sources import livecheck
from tasks.sources.stage import write_sources
from tasks.sources.verify import document_problems
from tests.llm_mock.server import Oracle
from tests.tasks.dialogue.test_mentions import dinner_world
from tests.tasks.worldfixture import PID, make_config, make_persona

OWN_WORDS = "Ann and I finally ate at Luigi's, and their risotto with mushrooms was the best thing all month."


class Model:
    """A real model, played: the offline narrator's answer (the Oracle), except the journal entry of the dinner's
    day, which says it in its own words, and the fact_check verdict on those words."""

    name, model = "played", "played-model"

    def __init__(self, oracle: Oracle, verdict: dict) -> None:
        self.oracle, self.verdict, self.checked, self.journals = oracle, verdict, [], 0

    def complete(self, request):
        facts = request.context.get("facts") or []
        if request.prompt_name == "journal" and any("Luigi's" in f.get("clause", "") for f in facts):
            self.journals += 1
            out = {"title": "A good evening", "body": f"## Luigi's\n\n{OWN_WORDS}\n\nA calm day otherwise."}
        elif request.prompt_name == "fact_check" and OWN_WORDS[-40:] in request.context["text"]:
            self.checked.append(request.context["fact"]["value"])
            out = self.verdict
        else:
            out = self.oracle.answer(request.prompt_name, request.prompt, request.output_schema)
        text = json.dumps(out)
        return LLMResponse(text=text, input_tokens=len(request.prompt) // 4, output_tokens=len(text) // 4)


@pytest.fixture
def oracle(monkeypatch):
    reset_limiters()
    yield Oracle().install(monkeypatch)
    reset_limiters()


def written(oracle, verdict: dict):
    world, fact = dinner_world()
    persona = make_persona()
    config = make_config(provider={"name": "openai", "model": "played-model"},
                         stages={"sources": {"paraphrased": 0.0, "email_probability": 0.0, "chunk_tokens": 400}})
    model = Model(oracle, verdict)
    gateway = Gateway(ProviderConfig(name="openai", model="played-model", max_concurrency=1), provider=model)
    corpus = write_sources(config, persona, world, gateway)
    entry = [d for d in corpus.documents if d.source_type == "journal" and OWN_WORDS[:30] in d.body]
    return persona, world, fact, corpus, entry, model


def test_a_journal_in_its_own_words_is_claimed_by_the_verdict_and_its_chunks_record_it(oracle):
    persona, world, fact, corpus, entry, model = written(oracle, {"refers": True, "contradicts": False})
    assert model.checked == [fact.value]  # the document; its one chunk holds what it conveys, not asked again
    [doc] = entry
    assert not carries_first(doc.body, fact) and "P.S." not in doc.body  # nothing appended
    assert fact.fact_id in doc.fact_ids and doc.judged == [fact.fact_id]
    assert document_problems(doc, persona, world) == []
    chunks = [c for c in corpus.chunks if c.doc_id == doc.doc_id and fact.fact_id in c.fact_ids]
    assert chunks and all(OWN_WORDS[:30] in c.text for c in chunks)
    rows = [m for m in chunk_mentions(persona, world, corpus.chunks, corpus.documents, live=True)
            if m.fact_id == fact.fact_id and m.evidence_id in {c.chunk_id for c in chunks}]
    assert rows and {(m.mode, m.span, m.checked_by) for m in rows} == {("paraphrased", "Luigi's", "fact_check")}


def test_a_journal_that_does_not_convey_the_fact_gets_it_appended(oracle):
    _, _, fact, _, entry, model = written(oracle, {"refers": False, "contradicts": False})
    [doc] = entry
    assert model.checked == [fact.value] and doc.judged == []
    assert "P.S." in doc.body and mentions(doc.body, fact.value) and fact.fact_id in doc.fact_ids


def test_a_journal_that_contradicts_the_fact_is_asked_again_then_dropped(oracle):
    _, _, fact, corpus, entry, model = written(oracle, {"refers": True, "contradicts": True})
    assert model.journals == 2  # the first wording, then a fresh one (sample=1), rejected again
    assert entry == [] and not any(fact.fact_id in d.fact_ids for d in corpus.documents)


def test_a_judged_fact_is_found_in_the_chunks_that_convey_it():
    world, fact = dinner_world()
    persona = make_persona()
    doc = Document(doc_id="d1", persona_id=PID, created_at="2024-03-01T20:00:00", source_type="journal",
                   format="md", title="t", body="x", fact_ids=[fact.fact_id], judged=[fact.fact_id])
    chunks = [Chunk(chunk_id=f"d1-c0{n}", doc_id="d1", persona_id=PID, created_at=doc.created_at, ordinal=n,
                    text=text, n_tokens=5) for n, text in enumerate(("A calm morning.", OWN_WORDS), start=1)]

    class Judge:
        name, model = "played", "played-model"

        def complete(self, request):
            text = json.dumps({"refers": "risotto" in request.context["text"], "contradicts": False})
            return LLMResponse(text=text, input_tokens=1, output_tokens=1)

    gateway = Gateway(ProviderConfig(name="openai", model="played-model", max_concurrency=1), provider=Judge())
    found = livecheck.located([doc], chunks, world.facts, gateway, persona)
    assert [c.fact_ids for c in found] == [[], [fact.fact_id]]
    nowhere = [c.model_copy(update={"text": "A calm day."}) for c in chunks]  # conveyed only by the whole
    assert [c.fact_ids for c in livecheck.located([doc], nowhere, world.facts, gateway, persona)] == [
        [fact.fact_id], [fact.fact_id]]


def test_a_fact_asked_in_own_words_must_keep_only_its_names():
    facts = [{"must_include": "mushroom risotto at Luigi's", "names": ["Luigi's"]}]
    said = JournalDraft(title="t", body=OWN_WORDS)
    assert checks.required_phrases(said, {"facts": facts}) is None
    lost = JournalDraft(title="t", body="We ate risotto with mushrooms at the Italian place.")
    assert "Luigi's" in checks.required_phrases(lost, {"facts": facts})
    old = [{"must_include": "mushroom risotto at Luigi's"}]  # a prompt that still asks for the phrase
    assert "mushroom risotto at Luigi's" in checks.required_phrases(said, {"facts": old})


def test_a_split_opening_must_keep_only_the_names_of_the_part_it_says():
    """A book said over two turns: the opening names the book, the first follow-up its author, so a live model's
    opening is not sent back for the author (it was, on every repair attempt, so live and offline rows differed)."""
    fact = {"clause": "I started reading The Salt Road", "mode": "split", "must_include": "The Salt Road",
            "names": ["The Salt Road", "Adaeze Nwosu"]}
    opening = JournalDraft(title="t", body="I finally started reading The Salt Road last night.")
    assert checks.required_of(fact) == ["The Salt Road"]
    assert checks.required_phrases(opening, {"facts": [fact]}) is None
    assert "Adaeze Nwosu" in checks.required_phrases(opening, {"facts": [fact | {"mode": "paraphrased"}]})
