"""The persona's own journals and emails say a share of their facts in other words, recorded on the document so
the verifier, the chunks and the fact mentions find the fact where its surface form is absent."""

from __future__ import annotations

from tasks.common.facttext import carries_first
from tasks.dialogue.stage import chunk_mentions
from tasks.sources.realized import share
from tasks.sources.stage import write_sources
from tasks.sources.verify import document_problems
from tests.tasks.worldfixture import PID, make_config, make_gateway, make_persona, make_world

GYM = f"{PID}-f0006"


def gym_world():
    """The fixture with e0002's fact made `gym = Pulse Gym`, which has paraphrase frames ("I've joined Pulse")."""
    world = make_world()
    facts = [f.model_copy(update={"attribute": "gym", "value": "Pulse Gym", "surface_forms": ["Pulse Gym"]})
             if f.fact_id == GYM else f for f in world.facts]
    return world.model_copy(update={"facts": facts})


def written(paraphrased: float):
    config = make_config(stages={"sources": {"paraphrased": paraphrased, "email_probability": 1.0}})
    world = gym_world()
    return world, write_sources(config, make_persona(), world, make_gateway())


def test_own_documents_say_the_fact_in_other_words_and_record_it():
    world, corpus = written(1.0)
    gym = next(f for f in world.facts if f.fact_id == GYM)
    own = [d for d in corpus.documents if GYM in d.fact_ids]
    assert {d.kind for d in own} >= {"journal", "outgoing"}
    for doc in own:
        assert doc.realized == {GYM: ["Pulse"]} and not carries_first(doc.body, gym)
        assert document_problems(doc, make_persona(), world) == []
        tampered = doc.model_copy(update={"body": doc.body.replace("Pulse", "the gym")})
        assert [p.check for p in document_problems(tampered, make_persona(), world)] == ["document_carries_fact"]
    chunks = [c for c in corpus.chunks if GYM in c.fact_ids]
    assert {c.doc_id for c in chunks} == {d.doc_id for d in own}
    found = [m for m in chunk_mentions(make_persona(), world, corpus.chunks, corpus.documents) if m.fact_id == GYM]
    assert found and all(m.mode == "paraphrased" and m.counts and "Pulse" in m.span for m in found)
    blind = [m for m in chunk_mentions(make_persona(), world, chunks) if m.fact_id == GYM]  # no document records
    assert blind and all(m.mode == "explicit" and m.span is None for m in blind)


def test_with_no_share_every_fact_is_said_verbatim():
    world, corpus = written(0.0)
    gym = next(f for f in world.facts if f.fact_id == GYM)
    own = [d for d in corpus.documents if GYM in d.fact_ids]
    assert own and all(not d.realized and carries_first(d.body, gym) for d in own)


def test_the_share_defaults_to_the_dialogues():
    assert share(make_config()) == make_config().stages.dialogue.mention_modes["paraphrased"]
    assert share(make_config(stages={"sources": {"paraphrased": 0.2}})) == 0.2
