"""Suggestions worded one or two to a sentence (stepwords.py), about the particulars the user told (detail_steps.py),
and the reply's closing questions (closings.py)."""

from __future__ import annotations

import random

from tasks.llm.providers.narrators import closings, detail_steps, stepwords

BOOK = ("book a table for next month", "good places fill up")
CALL = ("ring Ann at the weekend", "she will want to hear")
TABLE = ("ask for the same table", "good places fill up")


def test_two_steps_that_share_no_word_go_in_one_sentence_with_both_reasons():
    for lead in stepwords.PAIR_LEADS:
        text = stepwords.pair_sentence(BOOK, CALL, lead, "March 4, 2024", random.Random(1))
        assert text[0].isupper() and text.endswith(".") and "  " not in text and " ," not in text, text
        assert "table for next month" in text and "Ann at the weekend" in text, text
        assert "good places fill up" in text and "she will want to hear" in text, text
        assert "{" not in text, text


def test_steps_that_repeat_a_word_or_are_coordinated_stay_apart():
    assert stepwords.can_pair(BOOK, CALL)
    assert not stepwords.can_pair(BOOK, TABLE)  # `table` and its reason twice
    assert not stepwords.can_pair(("call the surgery and ask for a slot", "it is quicker"), CALL)


def test_said_steps_says_every_step_once_paired_or_alone():
    steps = [BOOK, CALL, ("write down what you had", "it makes ordering easy")]
    for seed in range(10):
        said = stepwords.said_steps(steps, "the dinner", "March 4, 2024", random.Random(seed))
        text = " ".join(said)
        assert 2 <= len(said) <= 3
        for _vp, reason in steps:
            assert reason in text, (reason, text)


def test_a_step_about_a_told_particular_names_it_and_only_when_told():
    entity = {"dish": "the jollof rice", "restaurant": "Kebab Corner"}
    told = detail_steps.detail_steps(entity, "I had the jollof rice at Kebab Corner.", "positive")
    assert told and all("jollof rice" in vp for vp, _ in told)
    assert detail_steps.detail_steps(entity, "Dinner was nice.", "positive") == []  # never said: never named
    assert detail_steps.detail_steps(entity, "I had the jollof rice.", "negative") == []  # no dish advice after a flop
    assert detail_steps.detail_steps(entity, "I had the jollof rice.", "positive", ["the jollof rice"]) == []


def test_an_occasion_is_advised_on_only_as_a_kind_of_event():
    seen = "It was a surprise party. The weekend was busy."
    assert detail_steps.detail_steps({"occasion": "a surprise party"}, seen, "positive")
    assert detail_steps.detail_steps({"occasion": "the weekend"}, seen, "positive") == []


def test_two_questions_join_into_one_sentence_only_when_they_are_plain_clauses():
    joined = closings.joined_questions("Is Fresh Market easy to get to?", "How are you feeling about the shop?")
    assert joined == "Is Fresh Market easy to get to, and how are you feeling about the shop?"
    assert closings.joined_questions("Is it busy?", "Robin said what?") is None  # a name is not lower-cased
    assert closings.joined_questions("Was it the place, or the timing?", "How are you?") is None


def test_closing_question_asks_about_the_suggestion_taken_up_and_avoids_repeats():
    asked = {closings.followup_question("positive", "information_sharing", "the dinner", None, [],
                                        random.Random(s), taken="writing down how it felt") for s in range(40)}
    assert any("writing down how it felt" in q for q in asked)
    before = " ".join(q.lower() for q in closings.INTENT_QUESTIONS["tell"][:2]).replace("{h}", "the dinner")
    for seed in range(20):
        q = closings.followup_question("positive", "information_sharing", "the dinner", "tell", [],
                                       random.Random(seed), before=before)
        assert q.lower() not in before


def test_each_coordinated_verb_of_a_suggestion_is_inflected():
    """'With the race, you could start by stretching and rest properly' (only the head verb was inflected)."""
    from tasks.llm.providers.narrators.realize import gerund, past
    assert gerund("stretch and rest properly for a few days") == "stretching and resting properly for a few days"
    assert gerund("call the surgery and ask for the first cancellation") == \
        "calling the surgery and asking for the first cancellation"
    assert gerund("print or save the tickets in one place") == "printing or saving the tickets in one place"
    assert past("drink plenty and eat well") == "drank plenty and ate well"
    assert gerund("fix the things that cannot move first and fit {np} around them") == \
        "fixing the things that cannot move first and fitting {np} around them"
    # nouns, and verbs of a clause of their own, stay as they are
    assert gerund("write down the birthdays and dates that came up") == \
        "writing down the birthdays and dates that came up"
    assert gerund("check every date and amount in it") == "checking every date and amount in it"
    assert gerund("note anything that asks you to reply or act") == "noting anything that asks you to reply or act"
    assert gerund("use the time to sort your kit or plan the next piece") == \
        "using the time to sort your kit or plan the next piece"
    assert gerund("write down when the symptoms come and go") == "writing down when the symptoms come and go"


def test_the_event_is_named_with_when_the_user_said_it_happened():
    """'yesterday's lunch with Robin', 'Tuesday's session' for 'on Tuesday', 'the session two days ago'; a name
    stays as it is (not 'Auckland earlier today')."""
    said = {stepwords.timed_handle("the lunch with Robin", "yesterday", random.Random(s)) for s in range(20)}
    assert said == {"yesterday's lunch with Robin", "the lunch with Robin yesterday"}
    assert "Tuesday's session" in {stepwords.timed_handle("the session", "on Tuesday", random.Random(s))
                                   for s in range(20)}
    assert stepwords.timed_handle("the session", "two days ago", random.Random(1)) == "the session two days ago"
    assert stepwords.timed_handle("Auckland", "earlier today", random.Random(1)) == "Auckland"


def test_a_reply_says_when_the_event_was_only_as_the_user_said_it():
    from tasks.dialogue.relativetime import find
    from tasks.llm.providers.narrators import assistant
    from tests.tasks.llm.test_narrators_dialogue import assistant_context
    event = {"kind": "colleague_lunch", "valence": "positive", "entity": {"colleague": "Robin Hale"},
             "when": "yesterday"}
    said = assistant_context("information_sharing", event=event, mentioned=["Robin Hale"],
                             user_message="I had lunch with Robin yesterday. It was lovely.")
    texts = [assistant.assistant_turn(said, random.Random(s))["text"] for s in range(30)]
    timed = [t for t in texts if "yesterday's lunch" in t or "lunch with Robin yesterday" in t
             or "Robin seem yesterday" in t or "since yesterday" in t]
    assert len(timed) >= 10, texts
    assert all(set(find(t)) <= {"yesterday"} for t in texts)  # no other time of the event is made up
    assert all(t.count("yesterday") <= 2 for t in texts)
    unsaid = assistant_context("information_sharing", event=event, mentioned=["Robin Hale"],
                               user_message="I had lunch with Robin. It was lovely.")
    assert not any("yesterday" in assistant.assistant_turn(unsaid, random.Random(s))["text"] for s in range(30))


def test_a_question_about_the_event_s_person_may_be_set_in_the_occasion():
    from tasks.llm.providers.narrators.engage import questions
    asked = {q for s in range(30) for q in questions({"person": "Robin"}, "positive", random.Random(s), "",
                                                   "colleague_lunch", "on Tuesday")}
    assert "How did Robin seem at lunch?" in asked and "How did Robin seem on Tuesday?" in asked
    assert "Have you heard from Robin since Tuesday?" in asked and "How did Robin seem?" in asked
    # asked once a session, whatever it was set in
    again = questions({"person": "Robin"}, "positive", random.Random(1), "how did robin seem at lunch?",
                      "colleague_lunch", "on Tuesday")
    assert not any(q.startswith("How did Robin seem") for q in again)


def test_a_reply_avoids_what_a_rejected_wording_said_untold():
    """The verifier rejected 'the dinner at Casa Lola' (an untold fact's form): the next wording must not say it."""
    from tasks.llm.providers.narrators import assistant
    from tests.tasks.llm.test_narrators_dialogue import assistant_context
    event = {"kind": "dinner_out", "valence": "positive", "entity": {"restaurant": "Casa Lola"}}
    base = assistant_context("information_sharing", event=event, mentioned=["Casa Lola"],
                             user_message="We had dinner out tonight. Casa Lola was lovely.")
    before = [assistant.assistant_turn(base, random.Random(s))["text"] for s in range(20)]
    assert any("dinner at Casa Lola" in t for t in before)
    after = [assistant.assistant_turn(base | {"avoid": ["dinner at casa lola"]}, random.Random(s))["text"]
             for s in range(20)]
    assert not any("dinner at casa lola" in t.lower() for t in after), after
