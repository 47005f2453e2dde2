"""How questions are asked (tasks/questions/forms.py, asking.py): each form on tiny inputs with a known result,
the grammar check's regeneration, indirect reference as a recorded hop, determinism."""

from __future__ import annotations

from collections import Counter

import pytest

from schemas.corpus import Corpus
from tasks.questions import forms
from tasks.questions.assemble import Report, build_questions
from tasks.questions.base import Candidate, QContext
from tasks.questions.forms import embedded, first_person, frame_question, move_adverbial, parse_form, realize
from tests.tasks.worldfixture import PID, make_config, make_persona, make_world

MAYA = "Maya Okafor"


@pytest.mark.parametrize("third, first", [
    ("Which city does Maya live in now?", "Which city do I live in now?"),
    ("What did Maya buy on March 3, 2024?", "What did I buy on March 3, 2024?"),
    ("Has Maya ever been to Lisbon?", "Have I ever been to Lisbon?"),
    ("Is Maya still at Brightwave Labs?", "Am I still at Brightwave Labs?"),
    ("Where was Maya on March 3, 2024?", "Where was I on March 3, 2024?"),
    ("What is Maya's brother doing these days?", "What is my brother doing these days?"),
    ("Maya's journal reported a change. What was it?", "My journal reported a change. What was it?"),
    ("Since Maya moved, which café does Maya like?", "Since I moved, which café do I like?"),
    ("When did Maya first tell the assistant about Biscuit?", "When did I first tell you about Biscuit?"),
    ("How many emails did Noor send Maya in March?", "How many emails did Noor send me in March?"),
    ("Which team is the colleague who recommended a dentist to Maya on?",
     "Which team is the colleague who recommended a dentist to me on?"),
])
def test_first_person_agrees_with_I(third, first):
    assert first_person(third, MAYA) == first


def test_a_namesake_is_someone_else():
    assert first_person("What does Maya Chen do?", MAYA) is None  # another Maya: never "I Chen"
    assert first_person("What does Maya Okafor do?", MAYA) == "What do I do?"


@pytest.mark.parametrize("question, clause", [
    ("What did I buy?", "what I bought"),
    ("Did I go to Lisbon in March?", "whether I went to Lisbon in March"),
    ("Which city is my brother moving to?", "which city my brother is moving to"),
    ("What is my job?", "what my job is"),
    ("Which thread mentioned the move?", "which thread mentioned the move"),
    ("What should my exercise plan look like?", None),  # where the subject ends is not known: not embedded
    ("How many emails did Andrea Kim send me?", None),  # a subject other than I / my ...: not embedded
])
def test_embedded_clauses_undo_the_inversion(question, clause):
    assert embedded(question) == clause


def test_requests_and_leads_frame_recall_questions_only():
    assert frame_question("What did I buy?", "Do you remember {emb}?") == "Do you remember what I bought?"
    assert frame_question("Can you plan me a run?", "Do you remember {emb}?") is None  # a request, not recall
    assert frame_question("What did I buy?", "{bare}, do you remember?") == "What did I buy, do you remember?"
    assert frame_question("Which did I do first: ask Noor or call Sam?", "Do you know {emb}?") is None


def test_a_fronted_adverbial_moves_to_the_end():
    assert move_adverbial("Since January 1, 2024, which month did I run most?") == \
        "Which month did I run most since January 1, 2024?"
    assert move_adverbial("According to my journal, what is my city?") == "What is my city, according to my journal?"
    assert move_adverbial("So far, how many runs did I do, whether or not they went well?") is None
    assert move_adverbial("Which month did I run most?") is None


def test_the_grammar_check_reads_names_dates_and_emails_as_words_it_knows():
    assert parse_form('On what date did BrightHome Supplies email me the receipt for order 84457?') == \
        "On what date did Alex send me the receipt for order 84457?"
    assert parse_form('Was the email "Guess what" sent before March 3, 2024?') == \
        'Was the message "Notes" sent before Monday?'


def test_realize_is_deterministic_varied_and_keeps_the_question_when_no_form_parses():
    questions = [f"What did Maya buy at shop {n} on March 3, 2024?" for n in range(60)]
    worded = [realize(q, MAYA, f"{PID}|t", parses=lambda s: True) for q in questions]
    assert worded == [realize(q, MAYA, f"{PID}|t", parses=lambda s: True) for q in questions]
    assert len({w.form for w in worded}) >= 5 and Counter(w.person for w in worded)["first"] >= 40
    assert all("shop" in w.text and "March 3, 2024" in w.text for w in worded)  # referents kept
    assert all(w.person == "first" and "Maya" not in w.text for w in worded)  # the user asks about themselves
    # a check that rejects every first-person form never falls back to the third person: the item is unparsed,
    # and the stage regenerates it
    none = realize(questions[0], MAYA, "k", parses=lambda s: " I " not in s)
    assert none.person == "first" and none.parsed is False and "Maya" not in none.text


def test_quoted_titles_keep_their_words_in_the_first_person():
    q = 'According to the email "Call Maya\'s sister about the assistant" Maya sent, who did the assistant name?'
    assert first_person(q, MAYA) == \
        'According to the email "Call Maya\'s sister about the assistant" I sent, who did you name?'


# -- the stage ------------------------------------------------------------------------------------------------
TALK = {2: ("My brother Daniel Okafor called today.", [f"{PID}-f0010"]),
        9: ("Daniel Okafor moved to Austin.", [f"{PID}-f0009"])}


def world_with_brother():
    from tests.tasks.worldfixture import fact

    world = make_world()
    brother = fact(10, 0, "Daniel Okafor", "relationship", "brother", 1, ["brother Daniel Okafor", "brother"])
    return world.model_copy(update={"facts": [*world.facts, brother]})


def corpus(said: dict) -> Corpus:
    from tests.tasks.questions.test_framework import hand_corpus

    return hand_corpus(said)


def daniel(ctx: QContext) -> list[Candidate]:
    return [Candidate("fact", ("state_dependent_attribute",), f"Which city did Daniel Okafor move to on {d}?",
                      "Austin", "Austin.", "fact.state_dependent_attribute.stub", "q", (f"{PID}-f0009",))
            for d in ("March 9, 2024",)]


def run(said=TALK, parses=None, **questions):
    cfg = make_config(stages={"questions": {"checkpoint_probes": 0, "zero_memory": 0, **questions}})
    report = Report()
    qset = build_questions(cfg, make_persona(), world_with_brother(), corpus(said), report=report,
                           registry={"fact.state_dependent_attribute": daniel})
    return qset, report


def test_the_asked_form_is_recorded_and_the_template_kept(monkeypatch):
    monkeypatch.setattr(forms, "_parses", lambda s: True)
    [q] = run(indirect_share=0)[0].questions
    assert q.derivation["template_question"] == "Which city did Daniel Okafor move to on March 9, 2024?"
    assert q.derivation["wording"]["person"] == "first" and q.derivation["wording"]["source"] == "forms"
    assert q.derivation["wording"]["parsed"] is True and "Daniel Okafor" in q.question and q.answer == "Austin"


def test_indirect_reference_is_a_recorded_hop_and_needs_the_relationship_said(monkeypatch):
    monkeypatch.setattr(forms, "_parses", lambda s: True)
    (qset, _) = run(request_share=0, indirect_share=1.0)
    [q] = qset.questions
    assert "my brother" in q.question and "Daniel Okafor" not in q.question
    [ref] = q.derivation["indirect"]
    assert ref["refers_to"] == "Daniel Okafor" and ref["fact_id"] == f"{PID}-f0010"
    cited = {(e.evidence_id, e.fact_id) for e in qset.evidence}
    assert (f"{PID}-s0002-t01", f"{PID}-f0010") in cited and (f"{PID}-s0009-t01", f"{PID}-f0009") in cited
    assert f"{PID}-f0010" in q.derivation["fact_ids"]
    # the hop removed: never said who the brother is, the question names him
    [q] = run(said={9: TALK[9]}, indirect_share=1.0)[0].questions
    assert "Daniel Okafor" in q.question and "indirect" not in q.derivation


def test_a_question_no_form_of_which_parses_is_regenerated(monkeypatch):
    def two(ctx):
        return [*daniel(ctx), Candidate("fact", ("state_dependent_attribute",), "Which city Daniel Okafor move to?",
                                        "Austin", "Austin.", "fact.state_dependent_attribute.bad", "q",
                                        (f"{PID}-f0009",))]
    monkeypatch.setattr(forms, "_parses", lambda s: "city Daniel" not in s)
    cfg = make_config(stages={"questions": {"checkpoint_probes": 0, "zero_memory": 0, "per_persona": 2,
                                            "indirect_share": 0}})
    report = Report()
    qset = build_questions(cfg, make_persona(), world_with_brother(), corpus(TALK), report=report,
                           registry={"fact.state_dependent_attribute": two})
    assert [q.derivation["template"] for q in qset.questions] == ["fact.state_dependent_attribute.stub"]
    assert report.dropped["grammar"] == 1


def test_questions_are_asked_the_same_way_every_build(monkeypatch):
    monkeypatch.setattr(forms, "_parses", lambda s: True)
    first = [q.question for q in run(indirect_share=0.5)[0].questions]
    assert first == [q.question for q in run(indirect_share=0.5)[0].questions]


def test_an_embedded_verb_keeps_the_comma_after_it():
    q = 'Which family visit did I make, according to my journal entry of May 2, 2024?'
    assert embedded(q) == "which family visit I made, according to my journal entry of May 2, 2024"
