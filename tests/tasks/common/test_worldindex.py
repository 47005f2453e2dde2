"""The world index (tasks/common/worldindex.py): the same answers as a scan of the world, built once per world and
rebuilt when the world has grown."""

from __future__ import annotations

from schemas.corpus import Document
from tasks.common import worldindex
from tasks.common.facttext import event_title, facts_of
from tests.tasks.worldfixture import make_world


def test_lookups_answer_as_a_scan_of_the_world_does():
    world = make_world()
    found = worldindex.index(world)
    assert found is worldindex.index(world)  # built once
    for event in world.events:
        assert found.facts_of(event.event_id) == [f for f in world.facts if f.event_id == event.event_id]
        assert facts_of(world, event) == sorted((f for f in world.facts if f.event_id == event.event_id),
                                                key=lambda f: f.fact_id)
        assert event_title(event, world) == event_title(event, world.plans)
        assert found.plan_of(event) == next((p for p in world.plans if p.plan_id == event.plan_id), None)
    for fact in world.facts:
        older = [o for o in world.facts if (o.subject, o.attribute) == (fact.subject, fact.attribute)
                 and o.valid_from < fact.valid_from]
        assert found.predecessor(fact) == (max(older, key=lambda o: (o.valid_from, o.fact_id)) if older else None)


def test_a_world_that_grew_gets_a_fresh_index():
    world = make_world()
    before = worldindex.index(world)
    world.facts.append(world.facts[-1].model_copy(update={"fact_id": "p0001-f9999", "event_id": "p0001-e9999"}))
    after = worldindex.index(world)
    assert after is not before and after.facts_of("p0001-e9999") == [world.facts[-1]]


def test_documents_by_event_in_their_order():
    docs = [Document.model_construct(doc_id=f"d{n}", event_id=e) for n, e in enumerate(["a", None, "b", "a"])]
    assert {k: [d.doc_id for d in v] for k, v in worldindex.documents_by_event(docs).items()} == {
        "a": ["d0", "d3"], "b": ["d2"]}
