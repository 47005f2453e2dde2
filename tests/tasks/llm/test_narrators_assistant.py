"""The offline assistant refers back to what it was told without saying a value back whole, answers a question
with what the user did, says its suggestions about the event's people and places once they are named, and says
what it thinks of the news."""

from __future__ import annotations

import random
import re

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators import assistant, stepwords
from tasks.llm.providers.narrators.advice import named_parties, personal
from tasks.llm.providers.narrators.answers import direct_answer
from tasks.llm.providers.narrators.observations import OBSERVATIONS, observation
from tasks.llm.providers.narrators.realize import first_person, referred
from tasks.llm.providers.narrators.user import topic_handle
from tests.tasks.llm.test_narrators_dialogue import assistant_context

DINNER = {"kind": "dinner_out", "valence": "positive", "entity": {"restaurant": "Kebab Corner"}}
MESSAGE = "I went to Kebab Corner last night and had the falafel wraps. It was lovely."


def replies(told: list[str], kind: str = "initial", seeds: int = 30) -> list[str]:
    return [assistant.assistant_turn(assistant_context("information_sharing", kind=kind, event=DINNER,
                                                       user_message=MESSAGE, mentioned=["Kebab Corner"],
                                                       told_values=told), random.Random(seed))["text"]
            for seed in range(seeds)]


def test_the_assistant_never_says_a_told_value_back_whole():
    value = "Kebab Corner"
    assert any(mentions(r, value) for r in replies([]))  # without the rule it names the restaurant
    assert not any(mentions(r, value) for r in replies([value]))
    assert not any(mentions(r, value) for r in replies([value], "followup"))


def test_a_direct_answer_says_what_the_user_did_unless_that_repeats_a_told_value():
    rng = random.Random(0)
    q = "Would you have lunch with my sister again in my place?"
    answers = {direct_answer(q, "positive", "the lunch", random.Random(s)) for s in range(12)}
    assert all("have lunch with your sister" in a or "having lunch with your sister" in a for a in answers), answers
    told = direct_answer("Would you go to Kebab Corner again in my place?", "positive", "the dinner", rng,
                         ["Kebab Corner"])
    assert told is not None and "Kebab Corner" not in told
    often = direct_answer("How often would you go climbing, realistically?", "positive", "it", rng)
    assert often is not None and "climbing" in often


def test_suggestions_name_the_events_person_or_place_only_once_the_user_has():
    entity = {"colleague": "Charlie Okafor", "restaurant": "Kebab Corner"}
    assert named_parties(entity, "Lunch with Charlie was fun.") == {"person": "Charlie"}
    assert named_parties(entity, "We went to Kebab Corner.") == {"place": "Kebab Corner"}
    assert named_parties(entity, "It was fun.") == {}
    assert named_parties({"spot": "the park"}, "at the park") == {}  # a description is no place's name
    vp = "send a quick message to say you enjoyed it"
    assert personal(vp, {"person": "Charlie"}) == "send Charlie a quick message to say you enjoyed it"
    assert personal(vp, {"place": "Kebab Corner"}) == vp
    assert named_parties({"hobby": "knitting"}, "I did some knitting today.") == {"activity": "knitting"}
    assert named_parties({"hobby": "knitting"}, "I went to the club.") == {}
    assert personal("join a group that does the same", {"activity": "knitting"}) == "join a group for knitting"
    quieter = personal("go back when it is quieter", {"place": "Kebab Corner"})
    assert quieter == "go back to Kebab Corner when it is quieter"


def test_an_observation_about_the_news_needs_only_what_was_named():
    rng = random.Random(0)
    for domain, by_tone in OBSERVATIONS.items():
        for tone in by_tone:
            said = {observation(domain, tone, "the dinner", {}, random.Random(s)) for s in range(20)}
            assert said and all(s and "{" not in s for s in said), (domain, tone, said)
    named = {observation("social", "positive", "the lunch", {"person": "Charlie"}, random.Random(s)) for s in range(30)}
    assert any("Charlie" in s for s in named)
    assert observation("social", "positive", "the lunch", {}, rng, said=" ".join(
        f.format(h="the lunch").lower() for f in OBSERVATIONS["social"]["positive"] if "{person}" not in f)) is None


def test_a_follow_up_reply_takes_up_the_suggestion_the_user_took_up():
    message = "I like the idea of writing down how each session felt. Is it normal to feel unsure about the gym?"
    assert assistant.taken_up(message) == "writing down how each session felt"
    texts = [assistant.assistant_turn(assistant_context("advice_seeking", kind="followup", user_message=message,
                                                        event={"kind": "join_gym", "valence": "positive"}),
                                      random.Random(s))["text"] for s in range(20)]
    assert any("writing down how each session felt" in t for t in texts)
    assert not any(t.startswith(("Good question about", "Let's think about")) for t in texts)


def test_the_user_says_the_assistants_words_back_in_the_first_person_and_names_no_value_twice():
    assert first_person("noticing how the gym changes your week") == "noticing how the gym changes my week"
    event = {"kind": "dinner_out", "entity": {"restaurant": "Kebab Corner"}, "values": ["dinner at Kebab Corner"]}
    handles = {topic_handle(event | {"kind": "dinner_cancelled"}, random.Random(s)) for s in range(30)}
    assert handles and all("dinner at Kebab Corner" not in h for h in handles)
    assert any("Kebab Corner" in topic_handle({**event, "values": []}, random.Random(s)) for s in range(30))
    cafe = {"kind": "cafe_visit", "title": "get a hot chocolate at Little Fig Bakery",
            "entity": {"drink": "a hot chocolate", "cafe": "Little Fig Bakery"}}
    said = {topic_handle(cafe | {"values": ["a hot chocolate at Little Fig Bakery"]}, random.Random(s))
            for s in range(30)}  # the value with another article is still the value
    assert said and not any("hot chocolate at Little Fig Bakery" in h for h in said), said
    assert any("hot chocolate at Little Fig Bakery" in topic_handle(cafe | {"values": []}, random.Random(s))
               for s in range(30))


def test_introductions_are_answered_by_the_names_used_and_never_twice_alike():
    history: list[dict[str, str]] = []
    firsts = []
    for message, who in (("Since you don't know me yet: I'm close to my brother Declan Reid.", "Declan"),
                         ("A bit of background about me: Ari Okafor and I work together.", "Ari")):
        context = assistant_context("information_sharing", user_message=message, event=None, mentioned=[],
                                    history=history, told_values=["brother"])
        text = assistant.assistant_turn(context, random.Random(1))["text"]
        assert who in text and "brother" not in text, text
        firsts.append(text.split(". ")[0])
        history = history + [{"role": "user", "text": message}, {"role": "assistant", "text": text}]
    assert firsts[0] != firsts[1]


def test_whether_to_do_it_again_is_asked_once_a_topic_and_answered_once():
    import re

    from tasks.llm.providers.narrators.user import AGAIN_ASKS, user_turn_followup
    from tests.tasks.llm.test_narrators_dialogue import followup_context

    forms = [re.compile(re.escape(head.lower()) + ".+" + re.escape(tail.lower().rstrip("?")))
             for head, tail in (a.split("{t}") for a in AGAIN_ASKS)]
    asked = [{"role": "user", "text": "Do you think I should adopt a rescue dog again soon?"},
             {"role": "assistant", "text": "Yes, I would adopt a rescue dog again: it went well."}]
    fresh = [user_turn_followup(followup_context("advice_seeking", paraphrase=None), random.Random(s))["text"]
             for s in range(30)]
    assert any(any(f.search(t.lower()) for f in forms) for t in fresh)  # asked when it was not yet
    again = [user_turn_followup(followup_context("advice_seeking", paraphrase=None, history=asked),
                                random.Random(s))["text"] for s in range(30)]
    assert not any(any(f.search(t.lower()) for f in forms) for t in again)
    q = "Do you think I should adopt a rescue dog again soon?"
    first = direct_answer(q, "positive", "the adoption", random.Random(0))
    assert first is not None
    second = {direct_answer(q, "positive", "the adoption", random.Random(s), said=first.lower()) for s in range(10)}
    assert first not in second


def test_a_suggestion_the_user_took_up_is_acknowledged_not_made_again():
    event = {"kind": "colleague_lunch", "valence": "negative", "entity": {"colleague": "Sam Bennett"}}
    message = "I like the idea of sending a friendly message to rearrange. What now?"
    for seed in range(30):
        context = assistant_context("advice_seeking", "negative", kind="followup", event=event,
                                    user_message=message, mentioned=[])
        reply = assistant.assistant_turn(context, random.Random(seed))["text"]
        assert reply.lower().count("friendly message to rearrange") == 1, reply  # the reaction names it once


def test_a_later_mention_by_kind_does_not_double_the_kind_noun():
    """'It sounds like the session session gave you a break': the handle `the trail running` inside `the trail
    running session` was renamed `the session` and the noun after it kept."""
    text = "Oh, the trail running went well. It sounds like the trail running session gave you a break."
    assert referred(text, "the trail running", "the session") == (
        "Oh, the trail running went well. It sounds like the session gave you a break.")
    assert referred("The lunch with Ana was fun; the lunch with Ana ran late.", "the lunch with Ana", "the lunch") == (
        "The lunch with Ana was fun; the lunch ran late.")


def test_a_pastime_gets_advice_for_what_it_is():
    """A trail run was met with 'share what you made with someone' and 'take a photo of what you did'."""
    from tasks.llm.providers.narrators.advice import steps_for
    run = steps_for("hobby", "hobby_session", {"hobby": "trail running", "tags": "running sport exertion"})
    chess = steps_for("hobby", "hobby_session", {"hobby": "chess", "tags": ""})
    knit = steps_for("hobby", "hobby_session", {"hobby": "knitting", "tags": ""})
    shelter = steps_for("hobby", "volunteer", {"org": "Paws Rescue"})
    made = "share what you made with someone"
    for steps in (run, chess, shelter):
        assert made not in [vp for vp, _ in steps["positive"]]
    assert made in [vp for vp, _ in knit["positive"]]
    assert any("distance" in vp for vp, _ in run["positive"])
    assert any("coordinator" in vp for vp, _ in shelter["positive"])


def test_a_request_reply_asks_about_what_it_made():
    """'Shall I make a shorter version?' closed a fifth of all request replies, whatever was asked for."""
    from tasks.llm.providers.narrators.asides import closing, thing
    assert thing("a packing list for a beach holiday") == "the packing list"
    assert thing("a simple banana bread recipe") == "the banana bread recipe"
    assert thing("a novel to read on a long train ride") == "it"  # a recommendation is not edited
    assert thing("converting 5 miles to kilometres") == "it"
    asked = {closing("the haiku", random.Random(s)) for s in range(30)}
    assert len(asked) >= 4 and all("the haiku" in q and q.endswith("?") for q in asked)


def test_a_reply_ties_back_to_something_else_not_to_the_event_itself():
    """'And with watercolour painting still in the picture, it's a lot at once' about the watercolour session."""
    event = {"kind": "hobby_session", "valence": "positive", "entity": {"hobby": "watercolour painting"},
             "details": {"hobby": "watercolour painting", "spot": "the art club"}}
    ctx = assistant_context("information_sharing", "positive", "initial", event=event,
                            mentioned=["watercolour painting", "Delta Foods"],
                            user_message="I put in some time on painting. It was lovely.")
    texts = [assistant.assistant_turn(ctx, random.Random(s))["text"] for s in range(20)]
    assert not any("watercolour painting still in the picture" in t or "told me about watercolour" in t
                   for t in texts)
    assert any("Delta Foods" in t for t in texts)


def test_a_verb_ending_in_ing_is_no_gerund():
    """'I might start with bring my own bags' (was taken for a gerund)."""
    from tasks.llm.providers.narrators.user import suggestion_of
    assert suggestion_of("It could help to bring your own bags, because you buy what you need.") == \
        "bringing my own bags"
    assert assistant.taken_up("Oh, noting what I'd change, that's clever, for real. Ok.") == "noting what you'd change"


def test_a_suggestion_that_says_when_takes_no_second_time_phrase():
    """'Putting the session in your calendar with a reminder the day before before Friday is worth it'."""
    step = ("put the session in your calendar with a reminder the day before", "it will not sneak up on you")
    for lead in stepwords.LEADS:
        for seed in range(5):
            text = stepwords.step_sentence(step, lead, "the session", "March 4, 2024", random.Random(seed))
            assert not re.search(r"day before (?:before|by|ahead of|this week|in the next)", text), text
            assert "  " not in text and " :" not in text and " ;" not in text, text


def test_an_address_is_no_name_to_ask_about():
    """Seen in the release viewer: 'I live in a studio flat at 28 Mill Lane.' got 'How long has Lane been part of
    your life?'."""
    from tasks.llm.providers.narrators.assistant import names_in

    assert names_in("Lol, some context about me: I live in a studio flat at 28 Mill Lane.") == []
    assert names_in("We moved to a flat on Harbour Road last week") == []
    assert names_in("my brother Declan Reid and Ari Okafor and I went to Casa Verde") == [
        "Declan Reid", "Ari Okafor", "Casa Verde"]
