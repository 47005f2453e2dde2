"""The item sign-off on a hand-built world: a clean item passes every check, and each defect a reviewer found in
the rhelm release (issue 55), planted in it, is an error finding of the check that names it, which fails the
build's consistency gate. The sign-off imports no generator: it reads items as a reviewer would."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

from schemas.audit import Finding
from schemas.corpus import Corpus, Document, Turn
from schemas.qa import Question, QuestionSet
from schemas.world import Constraint, Event, Fact, Plan, World
from tasks.signoff import signoff
from tasks.signoff.checks import listed_options, same_meaning, states
from tasks.signoff.lexicon import request_activities, restriction_scope, role_fits
from tests.tasks.worldfixture import PID, make_persona
from tests.validation.conftest import GATE_CONFIG, clean_corpus, connect
from validation.gates import run_gates

UTC = dt.UTC
ASKED = dt.datetime(2024, 3, 20, 9, tzinfo=UTC)
VISITS = {1: ("Priya Shah", "the weekend", 2), 2: ("Daniel Okafor", "the long weekend", 5),
          3: ("Priya Shah", "a quiz night", 8), 4: ("Daniel Reyes", "a board-game night", 11)}
"""Event number -> (who was hosted, the occasion, day of March 2024)."""


def _world() -> World:
    plans, events, facts = [], [], []
    for n, (who, occasion, day) in VISITS.items():
        plans.append(Plan(plan_id=f"{PID}-pl{n:04d}", persona_id=PID, created_on=dt.date(2024, 3, 1), horizon="short",
                          scheduled_for=dt.date(2024, 3, day), title=f"host {who} for {occasion}", kind="friend_visit",
                          entity={"friend": who, "occasion": occasion}))
        events.append(Event(event_id=f"{PID}-e{n:04d}", persona_id=PID, date=dt.date(2024, 3, day),
                            plan_id=f"{PID}-pl{n:04d}", kind="friend_visit", valence="positive", severity=2,
                            critical=False, narrative=f"I hosted {who}."))
    for n, (who, role) in enumerate((("Daniel Okafor", "brother"), ("Daniel Reyes", "manager"),
                                     ("Priya Shah", "friend")), start=1):
        facts.append(Fact(fact_id=f"{PID}-f{n:04d}", persona_id=PID, event_id=f"{PID}-e0000", subject=who,
                          attribute="relationship", value=role, valid_from=dt.date(2024, 3, 1), surface_forms=[role]))
    facts.append(Fact(fact_id=f"{PID}-f0010", persona_id=PID, event_id=f"{PID}-e0003", subject="Priya Shah",
                      attribute="next_city", value="Lisbon", valid_from=dt.date(2024, 3, 8), surface_forms=["Lisbon"]))
    flight_ban = Constraint(constraint_id=f"{PID}-c0001", persona_id=PID, event_id=f"{PID}-e0002",
                            kind="travel_restriction", description="no travel until March 30, 2024",
                            blocks=["running", "travel"], valid_from=dt.date(2024, 3, 5), valid_to=dt.date(2024, 3, 30))
    return World(plans=plans, events=events, facts=facts, profile_ops=[], profile_snapshots=[],
                 constraints=[flight_ban])


def _corpus() -> Corpus:
    email = Document(doc_id=f"{PID}-d0001", persona_id=PID, created_at=dt.datetime(2024, 3, 3, 18, tzinfo=UTC),
                     source_type="email", format="txt", title="Quick update", sender="Maya Okafor",
                     recipients=["Priya Shah"], body="Thanks for coming over at the weekend!")
    turn = Turn(turn_id=f"{PID}-s0001-t01", session_id=f"{PID}-s0001", persona_id=PID,
                timestamp=dt.datetime(2024, 3, 9, 10, tzinfo=UTC), role="user",
                text="Priya came for a quiz night; she is moving to Lisbon.")
    return Corpus(documents=[email], turns=[turn])


def _question(n: int, question: str, answer: str, reference: str, **derivation) -> Question:
    return Question(question_id=f"{PID}-q{n:04d}", persona_id=PID, category="fact",
                    characteristics=["multi_hop_traversal"], question_time=ASKED, question=question, answer=answer,
                    reference_answer=reference, answer_type="short", derivation={"template": "t", **derivation})


CLEAN = [
    _question(1, "Which city is the person I hosted for a quiz night moving to?", "Lisbon",
              "That person is Priya Shah; the answer is Lisbon.", event_ids=[f"{PID}-e0003"],
              fact_ids=[f"{PID}-f0010"]),
    _question(2, 'Who did I write to in the email "Quick update" I sent on March 3, 2024?', "Priya Shah",
              "Priya Shah received it."),
    _question(3, "Which did I do first: host Priya Shah for a quiz night or host Daniel Reyes for a board-game night?",
              "host Priya Shah for a quiz night",
              "host Priya Shah for a quiz night came first (on March 8, 2024); then host Daniel Reyes for a board-game "
              "night (on March 11, 2024).", event_ids=[f"{PID}-e0003", f"{PID}-e0004"]),
    _question(4, "Which city is my friend Priya Shah moving to?", "Lisbon", "Lisbon.", fact_ids=[f"{PID}-f0010"]),
    _question(5, "Can you put together a long run for me on Saturday, March 16?",
              'Help, reminding about "no travel until March 30, 2024"', "Flag the restriction.",
              constraint_ids=[]).model_copy(update={"answer_type": "long"}),
    _question(6, "When did I first tell you about my grandmother's sewing machine?", "March 9, 2024",
              "On March 9, 2024."),  # nobody of the world is a grandmother: the words name a belonging
]


def _audit(questions: list[Question]) -> list[Finding]:
    return signoff(make_persona(), _world(), _corpus(), QuestionSet(questions=questions))


def test_a_clean_item_set_is_signed():
    assert _audit(CLEAN) == []


def _plant(n: int, **changes) -> list[Question]:
    return [q.model_copy(update=changes) if q.question_id.endswith(f"{n:04d}") else q for q in CLEAN]


DEFECTS = {
    "wrong relation word (a brother called a friend)": (
        _plant(4, question="Which city is my friend Daniel Okafor moving to?", answer="Austin",
               reference_answer="Austin.", derivation={"template": "t", "fact_ids": []}), "signoff.relation_word"),
    "'which friend' answered by the manager": (
        _plant(1, question="Which friend did I host for a board-game night?", answer="Daniel Reyes",
               reference_answer="Daniel Reyes.", derivation={"template": "t", "event_ids": [f"{PID}-e0004"]}),
        "signoff.relation_word"),
    "the user in the third person": (
        _plant(1, question="Which city is the person Maya hosted for a quiz night moving to?"), "signoff.voice"),
    "the assistant named in the third person": (
        _plant(4, question="According to what I told the assistant, which city is my friend Priya Shah moving to?"),
        "signoff.voice"),
    "a quoted title no document has": (
        _plant(2, question='Who did I write to in the email "Call my friend about the weekend" I sent on March 3, '
                           '2024?'),
        "signoff.quoted"),
    "a document given another day": (
        _plant(2, question='Who did I write to in the email "Quick update" I sent on March 4, 2024?'),
        "signoff.quoted"),
    "an order reference naming the wrong event first": (
        _plant(3, reference_answer="I did this first: host Daniel Reyes for a board-game night (on March 11); then "
                                   "host Priya Shah for a quiz night."), "signoff.reference"),
    "a reference without the gold": (_plant(4, reference_answer="Porto."), "signoff.reference"),
    "a word broken by the machinery": (
        _plant(2, question='Which family visit I make,ed according to the email "Quick update" I sent on March 3, '
                           '2024?'), "signoff.garbled"),
    "an internal label as gold": (
        _plant(4, answer="car repair paid in full", reference_answer="car repair paid in full"),
        "signoff.label_answer"),
    "a flight ban held against exercise": (
        _plant(5, derivation={"template": "t", "constraint_ids": [f"{PID}-c0001"]}), "signoff.restriction_scope"),
    "a description two referents fit by meaning": (
        _plant(1, question="Which city is the person I hosted for the weekend moving to?",
               derivation={"template": "t", "event_ids": [f"{PID}-e0001"], "fact_ids": [f"{PID}-f0010"]}),
        "signoff.unique_referent"),
}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_each_planted_defect_is_an_error_that_fails_the_build(defect):
    questions, check = DEFECTS[defect]
    found = _audit(questions)
    assert [f.check for f in found] == [check], [f.message for f in found]
    assert all(f.severity == "error" and f.stage == "signoff" for f in found)
    landed = clean_corpus()
    landed["verifier_findings"] = found  # landed with the verifier's findings, the build's gate fails
    report = run_gates(connect({"r1": landed}), "r1", config=GATE_CONFIG)
    [failed] = [r for r in report.failed() if r.expectation == "consistency.no error finding left"]
    assert not report.success and any(check in seen and found[0].message[:40] in seen for seen in failed.observed)


def test_a_relation_that_ended_is_said_in_the_past_tense():
    """Priya was the persona's partner until March 15 and is an ex by the question's day (March 20): `my partner
    Priya` in the present is refused, `Priya Shah was my partner` (what the user told then) is signed."""
    world = _world()
    facts = [f.model_copy(update={"value": "partner", "surface_forms": ["partner"], "valid_to": dt.date(2024, 3, 15)})
             if f.subject == "Priya Shah" and f.attribute == "relationship" else f for f in world.facts]
    facts.append(Fact(fact_id=f"{PID}-f0020", persona_id=PID, event_id=f"{PID}-e0004", subject="Priya Shah",
                      attribute="relationship", value="ex-partner", valid_from=dt.date(2024, 3, 15),
                      surface_forms=["ex-partner"]))
    world = world.model_copy(update={"facts": facts})

    def audit(text: str) -> list[str]:
        q = _question(7, text, "March 9, 2024", "On March 9, 2024.", fact_ids=[f"{PID}-f0003"])
        return [f.check for f in signoff(make_persona(), world, _corpus(), QuestionSet(questions=[q]))]

    assert audit("When did I first tell you that I get on well with my partner Priya Shah?") == [
        "signoff.relation_word"]
    assert audit("When did I first tell you that Priya Shah was my partner?") == []
    assert audit("When did I first tell you that Priya Shah was my sister?") == ["signoff.relation_word"]


def test_the_verify_stage_runs_the_signoff():
    from tasks.verify import verify_persona

    found = verify_persona(make_persona(), _world(), _corpus(), QuestionSet(questions=DEFECTS[
        "the user in the third person"][0]))
    assert any(f.check == "signoff.voice" and f.severity == "error" for f in found)


def test_lexicon_rules():
    assert role_fits("friend", "old school friend") and role_fits("friend", "friend from the choir")
    assert not role_fits("friend", "sister") and not role_fits("relative", "partner") and role_fits("partner", "wife")
    assert same_meaning("the weekend", "the long weekend") and not same_meaning("a quiz night", "a board-game night")
    assert request_activities("Can you put together a fitness routine for me?") == {"exercise"}
    assert request_activities("Could you plan my evening?") == set()
    assert restriction_scope("no travel or hard exercise until May 1, 2024") >= {"exercise", "travel"}
    assert restriction_scope("no travel until May 1, 2024") == {"travel"}
    assert listed_options("What did I do last: a, b, or c?") == ["a", "b", "c"]
    assert states("In March it was Maple Grocers; in May Fresh Market.", "Maple Grocers, then Fresh Market")
    assert states("On August 13, 2024 (\"Guess what\").", "2024-08-13") and not states("Per quarter: 1, 2.", "it rose")


def test_the_signoff_imports_no_generator():
    """Independent of the generators: no module of tasks/signoff imports tasks.questions (at any depth)."""
    folder = Path(__file__).resolve().parents[3] / "tasks" / "signoff"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.startswith(("tasks.questions", "tasks.llm")) for n in names), (path.name, names)


def test_a_person_two_described_events_share_still_narrows_their_rivals():
    """A span between two visits to Priya Shah, each described by her and its occasion: Daniel Okafor's long weekend
    fits `for the weekend` by meaning, but not `Priya Shah`; the description names both, so it is signed (the rhelm
    build of issue 57 refused such items, taking the shared name for no description at all)."""
    q = _question(7, "About how many days passed between the day I hosted Priya Shah for the weekend and the day I "
                     "hosted Priya Shah for a quiz night?", "6 days", "6 days: March 2 to March 8, 2024.",
                  event_ids=[f"{PID}-e0001", f"{PID}-e0003"]).model_copy(update={"category": "temporal"})
    assert _audit([q]) == []
