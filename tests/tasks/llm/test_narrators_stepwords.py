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
