"""Dialogue prompts and their offline narrators: required phrases, lengths, voice, untold facts, variety."""

from __future__ import annotations

import random
import re
from collections import Counter

import jinja2
import pytest

from flows.fingerprint import STAGE_PROMPTS
from schemas.config import ProviderConfig
from schemas.corpus import DIALOGUE_CATEGORIES, FactCheck, TurnText
from tasks.common.facttext import mentions
from tasks.dialogue.filler import FILLER_TOPICS
from tasks.dialogue.shape import shape_of
from tasks.dialogue.verify import pasted
from tasks.llm import prompts
from tasks.llm.gateway import Gateway
from tasks.llm.providers.narrators import assistant, dialogue_filler, user
from tasks.llm.providers.narrators import dialogue as narr
from tasks.llm.providers.narrators.lexicon import HANDLES
from tasks.llm.providers.offline import NARRATORS, OfflineProvider
from tasks.metrics.text import normal, sentences, skeleton
from tests.tasks.worldfixture import make_config, make_corpus, make_persona, make_world

STYLE = {"formality": 0.5, "verbosity": 0.5, "emoji": False, "vocabulary": ["honestly"]}
PERSONA = {"name": "Maya Okafor", "first_name": "Maya", "occupation": "designer", "city": "Boston"}
FACTS = [
    {"clause": "my pet is now Biscuit", "must_include": "Biscuit"},
    {"clause": "my weekly class is now pottery at Clay Studio", "must_include": "Clay Studio"},
]
ATTACHMENT = {
    "doc_id": "p0001-d0007", "title": "Your adoption", "sender": "Shelter", "description": "an email from Shelter",
    "source_type": "email", "format": "md", "sections": ["Next steps", "Fees"],
    "points": ["I have to bring the vaccination card on Friday"],
    "tables": [{"caption": "Adoption fees", "columns": ["item", "amount"]}],
}
DIALOGUE_PROMPTS = ("user_turn_initial", "user_turn_followup", "user_turn_filler", "assistant_turn", "fact_check")
CONTRACTION = re.compile(r"n't\b|\b(I'm|I've|I'll|I'd|it's|that's|what's|let's)\b|'re\b", re.IGNORECASE)


def event(valence="positive"):
    return {"title": "adopt a rescue dog named Rex from Paws Rescue", "date": "March 2, 2024", "kind": "adopt_pet",
            "valence": valence, "narrative": "I went to the shelter and came home with a very sleepy dog."}


def length(category, kind="initial"):
    lo, hi = shape_of(category, kind).user_sentences
    return {"min_sentences": lo, "max_sentences": hi}


def initial_context(category, valence="positive", style=STYLE, **extra):
    context = {
        "persona": PERSONA, "style": style, "category": category, "history": [], "length": length(category),
        "date": "March 4, 2024", "event": event(valence), "facts": FACTS, "detail": None, "when": "two days ago",
        "callback": {"phrase": "three weeks ago", "title": "visit the shelter", "paraphrase": "the shelter visit"},
        "attachment": ATTACHMENT if category == "attachment_consultation" else None, "intro": False,
        "part_of_day": "evening", "continues": False,
    }
    return context | extra


def followup_context(category, valence="positive", style=STYLE, **extra):
    context = {
        "persona": PERSONA, "style": style, "category": category, "length": length(category, "followup"),
        "history": [{"role": "user", "text": "I adopted Biscuit."}, {"role": "assistant", "text": "Lovely!"}],
        "event": event(valence), "followup_index": 1, "paraphrase": "my new dog", "date": "March 4, 2024",
        "part_of_day": "evening",
        "last_assistant": "Keeping a simple log and a short checklist can help you settle in.",
        "attachment": ATTACHMENT if category == "attachment_consultation" else None,
        "complete": None,
    }
    return context | extra


def filler_context(kind, topic, style=STYLE):
    return {"persona": PERSONA, "style": style, "category": "information_sharing", "history": [],
            "length": length("information_sharing", "filler"), "filler": {"kind": kind, "topic": topic},
            "date": "March 4, 2024", "part_of_day": "morning" if "morning" in topic else "evening"}


def assistant_context(category, tone="positive", kind="initial", **extra):
    lo, hi = shape_of(category, kind).reply_words
    context = {
        "user_first_name": "Maya", "category": category, "tone": tone, "history": [],
        "user_message": "I adopted Biscuit today!", "turn_kind": kind, "attachment": None, "mentioned": ["Biscuit"],
        "told_values": [],
        "filler": None, "min_words": lo, "max_words": hi, "date": "March 4, 2024",
        "part_of_day": "evening", "event": {"kind": "adopt_pet", "valence": tone},
    }
    return context | extra


def in_range(text, rng_):
    return rng_["min_sentences"] <= narr.sentence_count(text) <= rng_["max_sentences"]


def test_every_dialogue_prompt_has_a_template_a_narrator_and_a_stage():
    for name in DIALOGUE_PROMPTS:
        assert name in prompts.prompt_names() and name in NARRATORS and name in STAGE_PROMPTS["dialogue"]


@pytest.mark.parametrize("category", DIALOGUE_CATEGORIES)
@pytest.mark.parametrize("valence", ["positive", "negative"])
def test_initial_turns_carry_every_required_phrase_within_the_length(category, valence):
    for seed in range(30):
        context = initial_context(category, valence)
        text = TurnText.model_validate(user.user_turn_initial(context, random.Random(seed))).text
        for phrase in [f["must_include"] for f in FACTS] + ["two days ago", "three weeks ago"]:
            assert mentions(text, phrase), (phrase, text)
        assert in_range(text, context["length"]), text


def test_uploads_start_with_the_marker_and_talk_about_the_document_without_pasting_it():
    body = "Dear Maya, your weekly class is now pottery at Clay Studio and your pet is now Biscuit. Regards"
    attachment = ATTACHMENT | {"points": [f["clause"] for f in FACTS] + ATTACHMENT["points"]}
    for seed in range(30):
        context = initial_context("attachment_consultation", attachment=attachment)
        text = user.user_turn_initial(context, random.Random(seed))["text"]
        assert text.startswith("[Upload p0001-d0007] ") and in_range(text, context["length"])
        assert any(name in text for name in ("Next steps", "Fees", "vaccination card", "Adoption fees")), text
        assert not pasted(text, body, n=8), text


def test_a_detail_bullet_without_facts_conveys_the_detail():
    context = initial_context("information_sharing", facts=[], when=None, callback=None,
                              detail="I walked him twice around Riverside Park.")
    for seed in range(20):
        text = user.user_turn_initial(context, random.Random(seed))["text"]
        assert "Riverside Park" in text and in_range(text, context["length"])


def test_mid_session_openers_do_not_greet_again():
    context = initial_context("status_update", history=[{"role": "user", "text": "hi"}])
    greetings = {g.lower().rstrip(".!") for part in narr.GREETINGS.values() for band in part.values() for g in band}
    for seed in range(30):
        first = user.user_turn_initial(context, random.Random(seed))["text"].split(".")[0].lower().rstrip("!")
        assert first not in greetings


@pytest.mark.parametrize("category", DIALOGUE_CATEGORIES)
def test_follow_ups_use_the_paraphrase_and_repeat_no_values(category):
    for seed in range(30):
        context = followup_context(category)
        text = user.user_turn_followup(context, random.Random(seed))["text"]
        assert mentions(text, "my new dog") and in_range(text, context["length"]), text
        assert not mentions(text, "Biscuit") and not mentions(text, "Clay Studio")
        assert "[Upload" not in text


@pytest.mark.parametrize("kind", ["small_talk", "request"])
def test_filler_turns_say_nothing_about_the_users_life(kind):
    for seed, topic in enumerate(FILLER_TOPICS[kind]):
        context = filler_context(kind, topic)
        text = narr.user_turn_filler(context, random.Random(seed))["text"]
        assert topic in text and in_range(text, context["length"]), text
        for private in ("Maya", "Okafor", "Boston", "designer", "Biscuit", "Rex", "Clay Studio"):
            assert not mentions(text, private)


def test_filler_banks_are_large():
    assert len(FILLER_TOPICS["small_talk"]) >= 30 and len(FILLER_TOPICS["request"]) >= 40
    assert set(FILLER_TOPICS["request"]) <= set(dialogue_filler.ANSWERS)
    assert set(FILLER_TOPICS["small_talk"]) <= set(dialogue_filler.SMALL_TALK)


@pytest.mark.parametrize("category", DIALOGUE_CATEGORIES)
def test_assistant_replies_land_in_their_word_range(category):
    for seed in range(30):
        for tone in ("positive", "negative", "neutral"):
            for kind in ("initial", "followup"):
                context = assistant_context(category, tone, kind,
                                            attachment=ATTACHMENT if category == "attachment_consultation" else None)
                n = len(assistant.assistant_turn(context, random.Random(seed))["text"].split())
                assert context["min_words"] <= n <= context["max_words"]


@pytest.mark.parametrize("kind", ["small_talk", "request"])
def test_assistant_answers_filler_helpfully_in_range(kind):
    for seed, topic in enumerate(FILLER_TOPICS[kind]):
        filler = {"kind": kind, "topic": topic}
        context = assistant_context("information_sharing", "neutral", "filler", filler=filler, mentioned=[])
        text = assistant.assistant_turn(context, random.Random(seed))["text"]
        assert context["min_words"] <= len(text.split()) <= context["max_words"], text
        if kind == "request":
            assert dialogue_filler.ANSWERS[topic] in text


def test_assistant_replies_name_only_what_the_user_mentioned_or_the_document_says():
    for seed in range(40):
        for category in DIALOGUE_CATEGORIES:
            text = assistant.assistant_turn(assistant_context(category), random.Random(seed))["text"]
            assert not any(mentions(text, w) for w in ("Clay Studio", "Rex", "Boston", "pottery"))
    context = assistant_context("attachment_consultation", attachment=ATTACHMENT)
    texts = [assistant.assistant_turn(context, random.Random(s))["text"] for s in range(20)]
    assert any("vaccination card" in t for t in texts)  # a point of the document, in the assistant's words
    assert not any("I have to bring" in t for t in texts)


def test_formal_voice_has_no_contractions_and_no_emoji_when_disabled():
    style = {"formality": 0.95, "verbosity": 0.9, "emoji": False, "vocabulary": []}
    for seed in range(30):
        for category in DIALOGUE_CATEGORIES:
            texts = [
                user.user_turn_initial(initial_context(category, "negative", style), random.Random(seed))["text"],
                user.user_turn_followup(followup_context(category, "negative", style), random.Random(seed))["text"],
            ]
            for text in texts:
                assert not CONTRACTION.search(text) and not narr._EMOJI_RE.search(text), text


def test_a_casual_voice_types_in_lower_case_but_never_lowers_i_or_a_name():
    style = {"formality": 0.05, "verbosity": 0.5, "emoji": False, "vocabulary": []}
    for text in ("Kim Nasser and I had to call off our lunch.", "I spent a session on chess."):
        voiced = {narr.voiced(text, style, random.Random(s)) for s in range(40)}
        assert voiced == {text}
    assert "so the lunch is off." in {narr.voiced("So the lunch is off.", style, random.Random(s)) for s in range(40)}


def test_emoji_and_favourite_words_appear_for_people_who_use_them():
    style = {"formality": 0.1, "verbosity": 0.5, "emoji": True, "vocabulary": ["lowkey"]}
    texts = [user.user_turn_initial(initial_context("information_sharing", style=style), random.Random(s))["text"]
             for s in range(40)]
    assert sum(bool(narr._EMOJI_RE.search(t)) for t in texts) >= 10
    assert sum("lowkey" in t.lower() for t in texts) >= 5


def test_terse_people_write_fewer_sentences_than_expansive_ones():
    def mean(verbosity):
        style = STYLE | {"verbosity": verbosity}
        counts = [narr.sentence_count(user.user_turn_initial(
            initial_context("advice_seeking", "negative", style, callback=None), random.Random(s))["text"])
            for s in range(40)]
        return sum(counts) / len(counts)

    assert mean(0.05) < mean(0.95)


def test_narrators_are_deterministic_for_a_seed():
    for fn, context in ((user.user_turn_initial, initial_context("scheduling")),
                        (user.user_turn_followup, followup_context("scheduling")),
                        (narr.user_turn_filler, filler_context("request", FILLER_TOPICS["request"][0])),
                        (assistant.assistant_turn, assistant_context("scheduling"))):
        assert fn(context, random.Random(7)) == fn(context, random.Random(7))


def test_user_turns_are_varied():
    """Over a mix of openers, follow-ups and filler about only six events, most sentences are distinct and the 50
    commonest sentence skeletons cover well under half of them (the corpus measures of tasks/metrics/language.py;
    a real persona-year has hundreds of events, and the rhelm preset's gates hold the real targets)."""
    rng = random.Random(0)
    places = ["FreshMart", "the Canal 5K", "Clay Studio", "the Blue Note", "Luigi's", "the library", "Riverside Park",
              "the community centre", "Hilltop Gym", "the farmers' market"]
    titles = [f"{verb} {place}" for verb in ("have lunch at", "volunteer at", "spend an hour at", "meet Noor at",
                                             "take Dan to", "try a class at") for place in places]
    texts = []
    for k in range(400):
        cat = DIALOGUE_CATEGORIES[k % len(DIALOGUE_CATEGORIES)]
        ev = event(rng.choice(["positive", "negative"])) | {"title": rng.choice(titles),
                                                            "kind": rng.choice(sorted(HANDLES))}
        facts = [{"clause": f"my thing {k} is now value {k}", "must_include": f"value {k}"}]
        texts.append(user.user_turn_initial(initial_context(cat, event=ev, facts=facts, callback=None,
                                                            when=None), random.Random(k))["text"])
        follow = followup_context(cat, event=ev, paraphrase=None)
        texts.append(user.user_turn_followup(follow, random.Random(k))["text"])
        if k % 6 == 0:
            kind = rng.choice(["small_talk", "request"])
            texts.append(narr.user_turn_filler(filler_context(kind, rng.choice(FILLER_TOPICS[kind])),
                                               random.Random(k))["text"])
    said = [s for t in texts for s in sentences(t)]
    assert len({normal(s) for s in said}) / len(said) >= 0.6
    top = Counter(skeleton(s) for s in said).most_common(50)
    assert sum(n for _, n in top) / len(said) <= 0.4


def test_fact_check_refers_by_surface_form_value_or_attribute():
    fact = {"clause": "my gym membership is now Core Collective", "value": "Core Collective",
            "surface_forms": ["Core Collective", "Core"]}
    check = narr.fact_check
    for text, refers in [("I love core collective.", True), ("The gym membership is paid up.", True),
                         ("Went to Core today.", True), ("Nice weather today.", False)]:
        out = FactCheck.model_validate(check({"text": text, "fact": fact}, random.Random(0)))
        assert out.refers is refers and out.contradicts is False


def test_every_dialogue_prompt_renders_its_contexts():
    rendered = [
        prompts.render("user_turn_initial", initial_context("attachment_consultation")),
        prompts.render("user_turn_followup", followup_context("attachment_consultation")),
        prompts.render("user_turn_filler", filler_context("request", "a haiku about autumn")),
        prompts.render("assistant_turn", assistant_context("advice_seeking", attachment=ATTACHMENT)),
        prompts.render("fact_check", {"text": "hi", "fact": {"clause": "c", "value": "v", "surface_forms": []}}),
    ]
    assert all("Answer with JSON only" in r for r in rendered)
    assert '"[Upload p0001-d0007] "' in rendered[0] and 'verbatim): "two days ago"' not in rendered[0]
    assert '"two days ago"' in rendered[0] and '"three weeks ago"' in rendered[0]
    assert '"my new dog"' in rendered[1] and "a haiku about autumn" in rendered[2]


def test_a_follow_up_says_the_half_of_a_split_value_the_opening_left_out():
    added = "I had the mushroom risotto, by the way."
    context = followup_context("information_sharing", complete=added)
    assert added in prompts.render("user_turn_followup", context)
    assert "left out of the first message" not in prompts.render("user_turn_followup", followup_context("scheduling"))
    for seed in range(10):
        assert "mushroom risotto" in user.user_turn_followup(context, random.Random(seed))["text"]


def test_rendering_a_prompt_with_a_missing_variable_fails():
    context = assistant_context("scheduling")
    del context["mentioned"]
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("assistant_turn", context)


def test_assistant_prompt_renders_exactly():
    context = assistant_context("advice_seeking", "negative", mentioned=[], user_message="Help?",
                                min_words=60, max_words=200, history=[{"role": "user", "text": "Hi."},
                                                                       {"role": "assistant", "text": "Hello!"}])
    assert prompts.render("assistant_turn", context) == (
        'The conversation so far between Maya ("user") and their personal AI assistant ("assistant"):\n'
        "user: Hi.\n"
        "assistant: Hello!\n"
        "user: Help?\n"
        "\n"
        "Today is March 4, 2024, in the evening.\n"
        "You are a warm, practical personal AI assistant chatting with Maya. The conversation is\n"
        "about advice seeking; the user's tone is negative. Reply to Maya's last\n"
        "message above (a initial message).\n"
        "\n"
        "Reply helpfully in 60 to 200 words. Answer the message you were sent: respond to\n"
        "what they told you and how they feel about it, and to anything relevant they said earlier in the "
        "conversation,\n"
        "before any advice; then give two or three practical suggestions that fit this situation, not a list of\n"
        "everything. Never state facts about Maya's life that they have not told you (no invented\n"
        "names, dates, places or outcomes), and end with a question about their situation (who or where it was, when\n"
        "they named them, or how they feel about it now).\n"
        "\n"
        'Answer with JSON only: {"text": "<your reply>"}\n'
    )


def test_a_sessions_prompts_start_with_the_conversation_one_turn_a_block():
    """The user's and the assistant's prompts of a session start the same way (the conversation so far, one turn a
    block, closed by the cache mark), so each call's prompt begins with the whole of the one before it."""
    history = [{"role": "user", "text": "I adopted Biscuit today!", "kind": "initial"},
               {"role": "assistant", "text": "Congratulations! How is he settling in?", "kind": "initial"}]
    user_blocks, user_cached = prompts.render_blocks("user_turn_followup", followup_context("advice_seeking")
                                                     | {"history": history})
    turn = {"role": "user", "text": "He hid under the sofa all evening.", "kind": "followup"}
    reply_blocks, reply_cached = prompts.render_blocks(
        "assistant_turn", assistant_context("advice_seeking", history=history, user_message=turn["text"]))
    assert user_cached == 3 and reply_cached == 4  # the heading and each turn: the mark closes the conversation
    assert user_blocks[1:3] == ["user: I adopted Biscuit today!\n",
                                "assistant: Congratulations! How is he settling in?\n"]
    assert reply_blocks[:3] == user_blocks[:3] and reply_blocks[3] == "user: He hid under the sofa all evening.\n"
    assert "".join(reply_blocks) == prompts.render("assistant_turn", assistant_context(
        "advice_seeking", history=history, user_message=turn["text"]))
    first, cached = prompts.render_blocks("user_turn_initial", initial_context("advice_seeking"))
    assert cached == 0 and len(first) == 1 and "conversation so far" not in first[0]  # nothing said yet: no mark
    assert all(prompts.CUT not in b and prompts.CACHE not in b for b in user_blocks + reply_blocks)


class Recorder(OfflineProvider):
    """The offline provider, keeping every request it answers."""

    def __init__(self):
        super().__init__()
        self.requests = []

    def complete(self, request):
        self.requests.append(request)
        return super().complete(request)


def test_stage_prompts_list_the_facts_to_convey_and_ask_for_json(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(
        "tests.tasks.worldfixture.make_gateway", lambda: Gateway(ProviderConfig(), provider=recorder)
    )
    make_corpus(make_config(), make_persona(), make_world())
    names = {r.prompt_name for r in recorder.requests}
    assert {"email", "user_turn_initial", "user_turn_followup", "assistant_turn"} <= names
    assert names <= {p for stage in STAGE_PROMPTS.values() for p in stage}
    for request in recorder.requests:
        assert "Answer with JSON only" in request.prompt
        for fact in request.context.get("facts", []):  # natural text: no phrase to copy, names kept (issue 24)
            assert fact["clause"] in request.prompt and "must include" not in request.prompt
            assert "verbatim" not in request.prompt, request.prompt_name
            assert f'(names: {", ".join(fact["names"])})' in request.prompt if fact["names"] else True


def test_background_openings_introduce_the_user_without_an_event():
    facts = [{"clause": "I'm close to my brother Daniel Okafor", "must_include": "brother Daniel Okafor"}]
    for seed in range(20):
        context = initial_context("information_sharing", facts=facts, when=None, callback=None, intro=True,
                                  event={"title": "my background", "date": "March 1, 2024", "kind": "introduction",
                                         "valence": "positive", "narrative": "I'm close to my brother Daniel Okafor."})
        text = NARRATORS["user_turn_initial"](context, random.Random(seed))["text"]
        assert mentions(text, "brother Daniel Okafor") and "my background" not in text.lower()
        assert not re.search(r"\b(set out|went ahead|managed to)\b", text)
    assert "getting to know the assistant" in prompts.render("user_turn_initial", context)


def test_time_of_day_words_fit_the_hour():
    said = "Anything else on your mind tonight? This morning was calm."
    assert narr.timed(said, {"part_of_day": "evening"}) == "Anything else on your mind tonight? Earlier today was calm."
    assert narr.timed(said, {"part_of_day": "morning"}) == "Anything else on your mind today? This morning was calm."


def test_greetings_fit_the_local_part_of_day():
    wrong = {"morning": ("evening", "afternoon"), "afternoon": ("morning", "evening"), "evening": ("morning",)}
    for part, bad in wrong.items():
        for seed in range(60):
            text = user.user_turn_initial(initial_context("information_sharing", part_of_day=part),
                                          random.Random(seed))["text"].lower()
            assert not any(text.startswith(w) or text.startswith(f"good {w}") for w in bad), (part, text)


def test_an_event_told_earlier_in_the_session_is_not_announced_again():
    history = [{"role": "user", "text": "I adopted a rescue dog named Rex from Paws Rescue."},
               {"role": "assistant", "text": "Congratulations on the adoption!"}]
    for seed in range(30):
        context = initial_context("status_update", history=history, continues=True, when=None, callback=None)
        text = user.user_turn_initial(context, random.Random(seed))["text"]
        assert "adopted a rescue dog" not in text and "adopt a rescue dog" not in text, text
        assert "the adoption" in text and mentions(text, "Biscuit"), text


def test_the_assistant_answers_the_question_it_was_asked():
    asked = {"Should I tell my sister about Biscuit?": ("tell people", "share it with the people", "to tell anyone",
                                                        "Tell people", "nice to pass on", "tell whoever"),
             "Am I overthinking the vet visit?": ("A little, maybe", "Probably a bit"),
             "Do you think I should adopt a rescue dog again soon?": ("Yes, I would", "I think so", "again, yes"),
             "When should I book the vet for Biscuit?": ("slot", "fixed in your week", "book it in", "fits best"),
             "How do I stop worrying about it?": ("normal to feel", "kind to yourself", "a little room",
                                                  "a while to settle")}
    for message, answers in asked.items():
        for seed in range(20):
            text = assistant.assistant_turn(assistant_context("advice_seeking", user_message=message),
                                            random.Random(seed))["text"]
            assert any(a in text for a in answers), (message, text)
            assert text.rstrip().endswith("?")  # it ends by asking about the user's situation


def test_the_assistant_does_not_repeat_a_suggestion_it_made_in_the_window():
    # a short first reply leaves suggestions unmade (a reply reuses one only when fewer than two are left)
    first = assistant.assistant_turn(assistant_context("status_update", "negative"), random.Random(1))["text"]
    history = [{"role": "user", "text": "I adopted Biscuit today!"}, {"role": "assistant", "text": first}]
    second = assistant.assistant_turn(assistant_context("advice_seeking", "negative", "followup", history=history),
                                      random.Random(2))["text"]
    from tasks.llm.providers.narrators.lexicon import CATEGORY_STEPS, STEPS
    steps = [vp for vp, _ in STEPS["pet"]["negative"] + CATEGORY_STEPS["advice_seeking"]
             + CATEGORY_STEPS["status_update"]]
    made = [vp for vp in steps if vp.lower() in first.lower()]
    assert made and not [vp for vp in made if vp.lower() in second.lower()], (first, second)


@pytest.mark.parametrize("kind", ["small_talk", "request"])
def test_a_filler_follow_up_goes_on_with_the_subject_instead_of_announcing_it_again(kind):
    for seed, topic in enumerate(FILLER_TOPICS[kind][:12]):
        first = narr.user_turn_filler(filler_context(kind, topic), random.Random(seed))["text"]
        filler = {"kind": kind, "topic": topic}
        reply = assistant.assistant_turn(assistant_context("information_sharing", "neutral", "filler", filler=filler,
                                                           mentioned=[], user_message=first),
                                         random.Random(seed))["text"]
        history = [{"role": "user", "text": first}, {"role": "assistant", "text": reply}]
        again = narr.user_turn_filler(filler_context(kind, topic) | {"history": history}, random.Random(seed))["text"]
        assert not mentions(again, topic.rstrip(".?")) and "?" in again, again
        context = assistant_context("information_sharing", "neutral", "filler", filler=filler, mentioned=[],
                                    user_message=again, history=history)
        second = assistant.assistant_turn(context, random.Random(seed))["text"]
        assert second != reply and context["min_words"] <= len(second.split()) <= context["max_words"], second
        assert not set(sentences(second)) & set(sentences(reply))  # no sentence of the first reply again
        assert " my " not in f" {second} " and " my " not in f" {reply} "  # the user's things are `your` things


def test_the_assistant_never_says_back_the_slip_of_a_self_correction():
    message = ("I grabbed a double espresso from Luigi's today. Sorry, I mixed that up: it was Blue Door Coffee, "
               "not Luigi's.")
    for seed in range(30):
        context = assistant_context("information_sharing", "positive", user_message=message,
                                    mentioned=["double espresso", "Blue Door Coffee"],
                                    event={"kind": "cafe_visit", "valence": "positive",
                                           "entity": {"cafe": "Blue Door Coffee", "drink": "double espresso"}})
        text = assistant.assistant_turn(context, random.Random(seed))["text"]
        assert "Luigi" not in text, text


def test_a_change_said_in_other_words_is_the_news_a_constraint_as_what_they_were_told():
    rule = {"clause": "I can't travel until 29 March", "must_include": "29 March", "mode": "paraphrased",
            "event": False, "constraint": True}
    assert user.told_event(rule, {"when": "earlier today"}, random.Random(1), "") == (
        "I was told earlier today that I can't travel until 29 March.")
    gym = rule | {"clause": "I'm a member at Pulse now", "must_include": "Pulse", "constraint": False}
    assert user.told_event(gym, {"when": "yesterday"}, random.Random(1), "Also,") == (
        "Also, I'm a member at Pulse as of yesterday.")
    assert user.told_event(gym, {"when": "on Tuesday"}, random.Random(1), "") == "I'm a member at Pulse as of Tuesday."
    implied = gym | {"clause": "I had my first workout at Pulse", "mode": "implied"}  # a consequence, in the past
    assert user.told_event(implied, {"when": "on Tuesday"}, random.Random(1), "") == (
        "On Tuesday, I had my first workout at Pulse.")


def test_every_yes_no_question_a_user_asks_gets_a_direct_answer_by_the_outcome():
    from tasks.llm.providers.narrators.answers import direct_answer
    from tasks.llm.providers.narrators.user import AGAIN_ASKS, FOLLOW_ASKS

    asked = [q.format(p="the lunch", t="have lunch with Robin") for q in FOLLOW_ASKS + AGAIN_ASKS
             if q.startswith(("Should", "Am ", "Is ", "Do ", "Would", "How soon", "How often"))]
    assert len(asked) >= 12
    for q in asked:
        good, bad = (direct_answer(q, tone, "the lunch", random.Random(3)) for tone in ("positive", "negative"))
        assert good and bad and good != bad, q
    assert direct_answer("What would you do next with the lunch?", "negative", "the lunch", random.Random(3)) is None


def test_a_follow_up_does_not_restate_a_feeling_it_just_named():
    from tasks.llm.providers.narrators.user import felt
    assert felt("Thanks. I'm really deflated about the lunch.") and not felt("Thanks, that helps with the lunch.")
    felt_before = {"role": "user", "text": "I'm really deflated about the lunch."}
    named = 0
    roomy = {"length": {"min_sentences": 5, "max_sentences": 6}, "style": STYLE | {"verbosity": 1.0}}
    for seed in range(40):
        context = followup_context("status_update", **roomy)
        context["history"] = [*context["history"], felt_before]
        assert not felt(NARRATORS["user_turn_followup"](context, random.Random(seed))["text"])
        fresh = followup_context("status_update", **roomy)
        named += felt(NARRATORS["user_turn_followup"](fresh, random.Random(seed))["text"])
    assert 0 < named < 40  # after a message without one, some follow-ups name a feeling, not all
