"""Verification by meaning with a real model (tasks/dialogue/livecheck.py): an opening that conveys a fact in its
own words is judged by the fact_check call, and the verdict decides what the turn claims and what lands."""

from __future__ import annotations

import json

import pytest

from schemas.config import ProviderConfig
from schemas.qa import QuestionSet
from tasks.common.facttext import carries_first, mentions, names_lost, names_to_keep, value_names
from tasks.dialogue.stage import write_dialogue
from tasks.llm.gateway import Gateway
from tasks.llm.limits import reset_limiters
from tasks.llm.types import LLMResponse
from tasks.verify import verify_persona
from tests.llm_mock.server import Oracle
from tests.tasks.dialogue.test_mentions import dinner_world
from tests.tasks.worldfixture import make_config, make_persona

OWN_WORDS = "Ann and I finally ate at Luigi's, and their risotto with mushrooms was the best thing all month."


class Model:
    """A real model, played: the offline narrator's answer (the Oracle), except the opening about the dinner,
    which says it in its own words, and the fact_check verdict on that opening."""

    name, model = "played", "played-model"

    def __init__(self, oracle: Oracle, verdict: dict) -> None:
        self.oracle, self.verdict, self.checked = oracle, verdict, []

    def complete(self, request):
        facts = request.context.get("facts") or []
        if request.prompt_name == "user_turn_initial" and any("Luigi's" in f.get("clause", "") for f in facts):
            when = request.context.get("when")
            out = {"text": f"{when.capitalize()}, {OWN_WORDS[0].lower()}{OWN_WORDS[1:]}" if when else OWN_WORDS}
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


def build(oracle, verdict: dict):
    world, fact = dinner_world()
    persona = make_persona()
    config = make_config(provider={"name": "openai", "model": "played-model"},
                         stages={"dialogue": {"mention_modes": {"paraphrased": 1.0}}})
    model = Model(oracle, verdict)
    gateway = Gateway(ProviderConfig(name="openai", model="played-model", max_concurrency=1), provider=model)
    return config, persona, world, fact, write_dialogue(config, persona, world, [], gateway), model


def written(oracle, verdict: dict):
    _, persona, world, fact, talk, model = build(oracle, verdict)
    opening = next(t for t in talk.turns if t.role == "user" and t.kind == "initial" and OWN_WORDS[-40:] in t.text)
    return persona, world, fact, talk, opening, model


def test_value_names_are_the_words_a_real_model_keeps():
    assert value_names("a pot of Earl Grey at Copper Kettle Coffee") == ["Earl Grey", "Copper Kettle Coffee"]
    assert value_names("mushroom risotto at Luigi's") == ["Luigi's"]
    assert value_names("falafel wraps") == []
    world, _ = dinner_world()
    doctor = next(f for f in world.facts).model_copy(update={"value": "Dr. Aditya Desai", "surface_forms": []})
    assert names_to_keep(doctor) == ["Dr. Aditya Desai"]
    assert names_to_keep(doctor, "I'm seeing Dr Desai these days") == ["Dr Desai"]  # as the plan shortens it
    assert names_lost("Dr Desai was kind.", doctor) == [] and names_lost("The doctor was kind.", doctor) == [
        "Dr. Aditya Desai"]


def test_an_opening_in_its_own_words_is_claimed_by_the_verdict_and_recorded(oracle):
    persona, world, fact, talk, opening, model = written(oracle, {"refers": True, "contradicts": False})
    assert model.checked == [fact.value]  # the rule check could not find it, so the model was asked
    assert not carries_first(opening.text, fact) and not mentions(opening.text, "mushroom risotto")  # no repair
    assert fact.fact_id in opening.fact_ids
    rows = [m for m in talk.mentions if m.evidence_id == opening.turn_id and m.fact_id == fact.fact_id]
    assert [(m.mode, m.checked_by, m.counts) for m in rows] == [("paraphrased", "fact_check", True)]
    assert {m.checked_by for m in talk.mentions} <= {"wording", "fact_check"}  # a real model wrote every turn
    found = verify_persona(persona, world, talk, QuestionSet())
    assert not [f for f in found if f.check in ("mention_resolves", "initial_turn_states_fact", "turn_carries_fact")]


def test_an_opening_that_does_not_convey_the_fact_gets_it_appended(oracle):
    _, _, fact, talk, opening, _ = written(oracle, {"refers": False, "contradicts": False})
    assert carries_first(opening.text, fact) or mentions(opening.text, "mushroom risotto")  # the repair said it
    rows = [m for m in talk.mentions if m.evidence_id == opening.turn_id and m.fact_id == fact.fact_id]
    assert rows and all(m.checked_by == "wording" for m in rows)
    assert any(f.check == "fact_not_conveyed" for f in talk.findings)


def test_an_opening_that_contradicts_the_fact_is_written_again(oracle):
    config, _, _, fact, talk, model = build(oracle, {"refers": True, "contradicts": True})
    assert model.checked == [fact.value]  # the same wording each time: one request, its verdict reused
    rejected = [f for f in talk.findings if f.check == "turn_contradicts_fact"]
    assert len([f for f in rejected if f.severity == "info"]) == config.stages.dialogue.max_attempts
    assert any(f.severity == "warning" and "rule template" in f.message for f in rejected)
    assert not any(OWN_WORDS[-40:] in t.text for t in talk.turns)  # the rule template replaced them
