"""The persona's own journals and emails say a share of their facts in other words, recorded on the document so
the verifier, the chunks and the fact mentions find the fact where its surface form is absent."""

from __future__ import annotations

import pytest

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
    modes = make_config().stages.dialogue.mention_modes  # a document paraphrases what a turn would imply
    assert share(make_config()) == pytest.approx(modes["paraphrased"] + modes["implied"])
    assert share(make_config(stages={"dialogue": {"mention_modes": {"paraphrased": 0.3}}})) == 0.3
    assert share(make_config(stages={"sources": {"paraphrased": 0.2}})) == 0.2


def test_a_friends_email_says_the_paraphrase_in_the_second_person():
    from tasks.sources.realized import fact_context, planned

    world = gym_world()
    gym = next(f for f in world.facts if f.fact_id == GYM)
    plan = planned(make_config(stages={"sources": {"paraphrased": 1.0}}), make_persona(), world, [gym], "email:x")
    told = fact_context(gym, make_persona(), "second", plan)
    assert told["mode"] == "paraphrased" and "Pulse" in told["clause"] and "Pulse Gym" not in told["clause"]
    assert told["clause"].lower().startswith("you") and " I " not in f" {told['clause']} "


def test_journal_sections_are_headed_by_a_detail_never_by_a_value_or_the_plans_title():
    import datetime as dt

    from schemas.world import Event, Fact, Plan
    from tasks.sources.journals import heading

    day = dt.date(2024, 3, 1)
    world = gym_world()

    def with_plan(kind: str, title: str, entity: dict[str, str], attribute: str, value: str) -> str:
        plan = Plan(plan_id=f"{PID}-pl0900", persona_id=PID, created_on=day, horizon="short", scheduled_for=day,
                    title=title, kind=kind, entity=entity)
        event = Event(event_id=f"{PID}-e0900", persona_id=PID, date=day, plan_id=plan.plan_id, kind=kind,
                      valence="negative", severity=2, critical=False, narrative="")
        fact = Fact(fact_id=f"{PID}-f0900", persona_id=PID, event_id=event.event_id, subject="Maya Okafor",
                    attribute=attribute, value=value, valid_from=day, surface_forms=[value])
        w = world.model_copy(update={"plans": [*world.plans, plan], "events": [*world.events, event],
                                     "facts": [*world.facts, fact]})
        return heading(event, w)

    lunch = with_plan("colleague_lunch", "have lunch with Charlie Okafor from sales",
                      {"colleague": "Charlie Okafor", "team": "sales"}, "lunch_cancelled", "lunch with Charlie Okafor")
    assert lunch == "Lunch with Charlie"  # a detail of the plan, not its imperative title, not the value
    dinner = with_plan("dinner_out", "have dinner at Kebab Corner with Sam", {"restaurant": "Kebab Corner",
                                                                          "companion": "Sam"},
                       "dinner_cancelled", "dinner at Kebab Corner")
    assert dinner == "Kebab Corner"
    cafe = with_plan("new_cafe", "try Blue Door Coffee on Elm Road", {"cafe": "Blue Door Coffee", "street": "Elm Road"},
                     "favourite_cafe", "Blue Door Coffee")
    assert cafe == "The new café"  # its only detail is the value: headed by its kind
