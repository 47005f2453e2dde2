"""The offline assistant answers what the user said, sentence by sentence: each thing they told is said back in
the second person with a frame that fits it, a feeling with its own word, something from an earlier turn of the
window once, and questions about the event's person or place only once the user has named them."""

from __future__ import annotations

import random

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators import assistant
from tasks.llm.providers.narrators.engage import questions, recalled, response, responses, statements
from tasks.llm.providers.narrators.realize import first_person, second_person
from tests.tasks.llm.test_narrators_dialogue import assistant_context

LUNCH = {"kind": "colleague_lunch", "valence": "negative", "entity": {"colleague": "Sam Bennett"}}


def test_only_what_the_user_told_is_said_back():
    message = ("Morning! Sam Bennett and I had to call off our lunch. Feeling pretty flat today. "
               "Just keeping you posted on the lunch. Anyway, that was the lunch. What should I do next? "
               "Thanks, that helps with the lunch. I owe the clinic 40 pounds. I'm really deflated about the lunch.")
    said = statements(message, ["40 pounds"])
    assert said == ["Sam Bennett and I had to call off our lunch.", "I'm really deflated about the lunch."]
    assert statements("Honestly, the visit threw me off.") == ["The visit threw me off."]  # hedges go
    assert statements("I paid the vet bill. No, hang on, it was the boiler repair.") == []  # a slip is not said back
    assert statements("[Upload p1-d1] I have uploaded an email I sent to Mariana about the call.") == []
    # a formal voice's uncontracted reaction to the last reply is no news either, and names what it took up
    assert statements("I had not thought of keeping the next meeting low-key. That is a fair way to see it.") == []
    assert assistant.taken_up("Oh, keeping a note of what I talked about, that is clever.") == (
        "keeping a note of what you talked about")
    assert statements("I got the promotion at St. Mary's Hospital.") == ["I got the promotion at St. Mary's Hospital."]


def test_a_response_fits_what_it_answers():
    rng = random.Random(3)
    feelings = {response("I'm really deflated about the lunch.", "negative", random.Random(s)) for s in range(20)}
    assert all("deflated about the lunch" in f for f in feelings), feelings  # its own word, about what it named
    assert not any(" I'm " in f or " my " in f for f in feelings)
    told = {response("Sam Bennett and I had to call off our lunch.", "negative", random.Random(s)) for s in range(20)}
    assert all("Sam Bennett and you had to call off your lunch" in t for t in told), told
    assert not any(t.startswith(("I'm glad", "How nice", "It's lovely")) for t in told)
    # good news overall, but this sentence is a worry: never "I love that you don't want ..."
    worry = {response("I don't want to overdo the session.", "positive", random.Random(s)) for s in range(20)}
    assert all("you don't want to overdo the session" in w.lower() for w in worry), worry
    assert not any(w.startswith(("I love", "I'm glad", "It's lovely", "That's a good sign")) for w in worry)
    assert response("I just hope the shop keeps going this well.", "positive", rng).count("just") == 0
    rang = {response("Kwame rang about a birthday.", "neutral", random.Random(s)) for s in range(20)}
    assert all("Kwame rang" in r for r in rang), rang  # a name keeps its capital mid-sentence


def test_responses_are_not_repeated_in_the_window_and_keep_to_the_limit():
    message = "I went to the community centre for some knitting today. The knitting went better than I hoped."
    first = responses(message, "positive", random.Random(1), limit=1)
    assert len(first) == 1 and "you went to the community centre" in first[0]
    again = responses(message, "positive", random.Random(1), limit=2, said=first[0].lower())
    assert first[0] not in again and len(again) == 1 and "than you hoped" in again[0]


def test_an_earlier_statement_is_recalled_once():
    history = [{"role": "user", "text": "My sister Beatriz postponed the party. I'm a bit down about it."},
               {"role": "assistant", "text": "I'm sorry about the party."}]
    back = recalled(history, random.Random(0))
    assert len(back) == 1 and "your sister Beatriz postponed the party" in back[0]  # not the feeling
    assert recalled(history, random.Random(0), said="your sister beatriz postponed the party") == []
    assert recalled(history, random.Random(0), values=["the party"]) == []


def test_questions_only_about_who_or_where_the_user_named():
    assert questions({}, "positive", random.Random(0)) == []
    asked = questions({"person": "Charlie"}, "positive", random.Random(0))
    assert asked and all("Charlie" in q and q.endswith("?") for q in asked)
    assert all("Casa Lola" in q for q in questions({"place": "Casa Lola"}, "negative", random.Random(0)))
    assert questions({"person": "Charlie"}, "positive", random.Random(0), said=" ".join(asked).lower()) == []


def test_a_reply_answers_the_message_it_was_sent():
    message = "Sam Bennett and I had to call off our lunch. I keep replaying the lunch in my head. What now?"
    for seed in range(20):
        context = assistant_context("advice_seeking", "negative", event=LUNCH, user_message=message,
                                    mentioned=["Sam Bennett"])
        reply = assistant.assistant_turn(context, random.Random(seed))["text"]
        assert "you keep replaying" in reply or "Sam Bennett and you had to call off" in reply, reply
        assert context["min_words"] <= len(reply.split()) <= context["max_words"]
    context = assistant_context("advice_seeking", "negative", event=LUNCH, user_message=message,
                                mentioned=["Sam Bennett"], told_values=["call off our lunch"])
    assert not any(mentions(assistant.assistant_turn(context, random.Random(s))["text"], "call off your lunch")
                   for s in range(20))


def test_persons_are_turned_both_ways():
    assert second_person("I wasn't sure. Am I overthinking it?") == "you weren't sure. Are you overthinking it?"
    assert first_person("sharing what you made with someone") == "sharing what I made with someone"
    assert first_person("whoever needs you") == "whoever needs me"
    assert first_person("talk it over with someone you trust") == "talk it over with someone I trust"


def test_what_is_recalled_is_news_they_told_not_small_talk_or_a_bare_pronoun():
    """'Going back to what you said earlier: it caught you off guard' (about the full moon, in small talk)."""
    history = [{"role": "user", "kind": "filler", "text": "Can we talk about the full moon? It caught me off guard."},
               {"role": "assistant", "kind": "filler", "text": "A full moon rising low looks huge."},
               {"role": "user", "kind": "initial", "text": "I went to Lagos for the weekend. It was lovely."}]
    said = " ".join(recalled(history, random.Random(s), limit=3)[0] for s in range(10) if recalled(history,
                                                                                                     random.Random(s)))
    assert "lagos" in said.lower() and "off guard" not in said and "it was lovely" not in said.lower()


def test_what_is_said_back_keeps_the_users_words_but_not_their_tics():
    """'It's okay to be a bit down about Mariana's visit, haha for a while', 'I'm glad Asking Mariana ... appeals',
    'That's hard: It's knocked you a bit' were said back."""
    assert statements("I'm a bit down about Mariana's visit, haha.") == ["I'm a bit down about Mariana's visit."]
    assert statements("Indeed, I was let down by the fair, certainly.") == ["I was let down by the fair."]
    assert assistant.taken_up("Asking Mariana whether everything is all right is a good shout.") == (
        "asking Mariana whether everything is all right")
    for seed in range(8):
        line = response("It's knocked me a bit.", "negative", random.Random(seed))
        assert "It's knocked" not in line[1:], line  # mid-sentence, a pronoun is lower-cased


def test_a_question_of_the_assistant_is_no_suggestion_to_take_up():
    from tasks.llm.providers.narrators.user import suggestion_of
    assert suggestion_of("Would it help to put planning the next session in your calendar?") is None
    assert suggestion_of("It could help to plan the next session now, because a date helps.") == (
        "planning the next session now")


def test_a_you_after_a_verb_or_before_like_is_said_back_as_me_or_i():
    """'telling whoever I report to what helped I most', 'jotting down a line me like from the book' were said."""
    assert first_person("telling whoever you report to what helped you most") == (
        "telling whoever I report to what helped me most")
    assert first_person("jotting down a line you like from the book") == "jotting down a line I like from the book"
    assert first_person("asking what they told you") == "asking what they told me"


def test_a_second_thought_is_said_back_without_the_users_own_doubt_tag():
    """'It's natural that you told yourself the coffee was a one-off, but maybe not.' was said back."""
    said = statements("I told myself the coffee was a one-off, but maybe not.")
    assert said == ["I told myself the coffee was a one-off, and now I'm not so sure."]
    for seed in range(8):
        line = response(said[0], "negative", random.Random(seed))
        assert "but maybe not" not in line and "you're not so sure" in line, line


def test_only_an_achievement_is_congratulated():
    """'Congratulations on the call with Charlie!', 'Congratulations on Fresh Market!' were said."""
    from tasks.llm.providers.narrators.openings import reaction
    lines = {kind: {reaction("positive", "initial", "event_update", "the news", "Ann", random.Random(s), kind)
                    for s in range(60)} for kind in ("family_call", "weekly_shop", "new_job")}
    assert not any(line.startswith("Congratulations") for kind in ("family_call", "weekly_shop")
                   for line in lines[kind])
    assert "Congratulations on the news!" in lines["new_job"]


def test_a_draft_asked_for_shorter_is_redrafted_not_cut_down():
    """'The short version: something like: Dear ..., I am writing ...' answered 'Could you make it even shorter?'."""
    from tasks.llm.providers.narrators.asides import filler_followup_reply
    from tasks.llm.providers.narrators.dialogue_filler import ANSWERS
    topic = "a polite email to a landlord about a broken heater"
    for seed in range(6):
        reply = filler_followup_reply({"kind": "request", "topic": topic}, topic, "Could you make it even shorter?",
                                      random.Random(seed))
        assert "Dear ..." in reply and "something like" not in reply.lower() and "shorter version of" not in reply
        assert len(reply.split()) < len(ANSWERS[topic].split()), reply


def test_a_follow_up_question_that_asks_the_same_is_not_asked_again_in_other_words():
    """'Is it normal to feel unsure about that dinner out?' then 'Is it normal to feel unsure about the dinner?' and
    'Do people usually worry about something like the dinner at Jade Dragon?' in one topic."""
    from tasks.llm.providers.narrators.user import ask_asked
    asked = "good, that settles it. is it normal to feel unsure about that dinner out? i keep thinking about it."
    assert ask_asked("Is it normal to feel unsure about {p}?", asked)  # whatever the dinner was called
    assert ask_asked("Do people usually worry about something like {p}?", asked)  # the same question
    assert not ask_asked("Am I overthinking {p}?", asked)
    assert ask_asked("Is {p} worth making a fuss about?", "is the dinner worth making a fuss about?")
    assert not ask_asked("Is {p} worth making a fuss about?", "is the dinner at jade dragon open late?")


def test_good_news_is_not_something_to_get_past():
    """'How do I get past the Lantern Quartet without stressing?' was asked about a concert that went well."""
    from tasks.llm.providers.narrators.user import WORRIED, ask
    good = {ask("advice_seeking", "{h}", random.Random(s), "positive") for s in range(80)}
    bad = {ask("advice_seeking", "{h}", random.Random(s), "negative") for s in range(80)}
    assert not good & set(WORRIED) and set(WORRIED) <= bad


def test_the_users_you_after_a_verb_is_said_back_as_me():
    assert second_person("I just wanted to tell you.") == "you just wanted to tell me."
    assert second_person("I wanted to thank you and my sister") == "you wanted to thank me and your sister"
    assert second_person("My mum told me the news") == "Your mum told you the news"


def test_a_reply_to_a_later_correction_takes_it_on_board_and_asks_on():
    from tasks.llm.providers.narrators.assistant import assistant_turn

    fix = {"phrase": "that dinner out", "told_on": "3 March", "when": "last Sunday", "right": "Luigi's",
           "wrong": "Jade Dragon", "clause": "I ended up ordering the mushroom risotto, at Luigi's", "sentence": ""}
    context = {"turn_kind": "initial", "fix": fix, "user_first_name": "Maya", "min_words": 40, "max_words": 90,
               "user_message": "It was Luigi's, not Jade Dragon."}
    for seed in range(5):
        text = assistant_turn(context, random.Random(seed))["text"]
        assert "Luigi's" in text and "Jade Dragon" in text and text.endswith("?"), text
        assert text.index("Luigi's") < text.index("Jade Dragon") and len(text.split()) >= 30
