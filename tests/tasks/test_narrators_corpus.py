"""Corpus prompts and their offline narrators: rendering, required phrases, lengths, voice."""

from __future__ import annotations

import random

import jinja2
import pytest

from schemas.config import ProviderConfig
from schemas.corpus import DIALOGUE_CATEGORIES, EmailDraft, TurnText
from tasks.facttext import mentions
from tasks.llm import prompts
from tasks.llm.gateway import Gateway
from tasks.llm.providers.narrators import corpus as narr
from tasks.llm.providers.offline import NARRATORS, OfflineProvider
from tests.tasks.worldfixture import make_config, make_corpus, make_persona, make_world

STYLE = {"formality": 0.5, "verbosity": 0.5, "emoji": False, "vocabulary": ["honestly"]}
PERSONA = {"name": "Maya Okafor", "first_name": "Maya", "occupation": "designer", "city": "Boston"}
FACTS = [
    {"fact_id": "p0001-f0005", "clause": "my pet is now Biscuit", "must_include": "Biscuit"},
    {"fact_id": "p0001-f0006", "clause": "my weekly class is now pottery", "must_include": "Clay Studio"},
]


def event(valence="positive"):
    return {
        "title": "adopt a rescue dog named Rex",
        "date": "March 2, 2024",
        "kind": "adopt_pet",
        "valence": valence,
        "narrative": "Maya went to the shelter.",
    }


def initial_context(category, valence, style=STYLE):
    attachment = {"title": "Your adoption", "sender": "Shelter", "description": "an email from Shelter"}
    return {
        "persona": PERSONA,
        "style": style,
        "category": category,
        "date": "March 2, 2024",
        "event": event(valence),
        "attachment": attachment if category == "attachment_consultation" else None,
        "facts": FACTS,
        "history": [],
    }


def assistant_context(category, tone, kind):
    return {
        "user_first_name": "Maya",
        "category": category,
        "tone": tone,
        "history": [],
        "user_message": "I adopted Biscuit today!",
        "turn_kind": kind,
        "attachment": None,
        "mentioned": ["Biscuit"],
        "min_words": 60,
        "max_words": 200,
    }


def email_context(direction, valence):
    me = {"name": "Maya Okafor", "address": "maya.okafor@mail.example", "relation": "the persona"}
    them = {"name": "Priya Shah", "address": "priya.shah@mail.example", "relation": "friend"}
    sender, recipient = (me, them) if direction == "outgoing" else (them, me)
    return {
        "persona": PERSONA,
        "style": STYLE,
        "direction": direction,
        "sender": sender,
        "recipient": recipient,
        "sent_at": "2024-03-02T10:00:00-05:00",
        "event": event(valence),
        "facts": FACTS,
    }


def test_every_corpus_prompt_has_a_template_and_a_narrator():
    for name in ("email", "user_turn_initial", "user_turn_followup", "assistant_turn"):
        assert name in prompts.prompt_names() and name in NARRATORS


@pytest.mark.parametrize("category", DIALOGUE_CATEGORIES)
@pytest.mark.parametrize("valence", ["positive", "negative"])
def test_initial_turns_always_include_every_required_phrase(category, valence):
    for seed in range(25):
        out = TurnText.model_validate(
            narr.user_turn_initial(initial_context(category, valence), random.Random(seed))
        )
        assert all(mentions(out.text, f["must_include"]) for f in FACTS)


@pytest.mark.parametrize("direction", ["outgoing", "incoming", "organisation"])
@pytest.mark.parametrize("valence", ["positive", "negative"])
def test_emails_include_every_required_phrase_and_read_like_emails(direction, valence):
    for seed in range(25):
        out = EmailDraft.model_validate(narr.email(email_context(direction, valence), random.Random(seed)))
        assert all(mentions(out.body, f["must_include"]) for f in FACTS)
        paragraphs = out.body.split("\n\n")
        assert paragraphs[0].startswith(("Hi ", "Dear ")) and len(paragraphs) >= 4


@pytest.mark.parametrize("category", DIALOGUE_CATEGORIES)
def test_assistant_replies_are_60_to_200_words(category):
    for seed in range(40):
        for tone in ("positive", "negative"):
            for kind in ("initial", "followup"):
                text = narr.assistant_turn(assistant_context(category, tone, kind), random.Random(seed))[
                    "text"
                ]
                assert 60 <= len(text.split()) <= 200


def test_assistant_replies_name_only_what_the_user_mentioned():
    for seed in range(40):
        text = narr.assistant_turn(
            assistant_context("information_sharing", "positive", "initial"), random.Random(seed)
        )["text"]
        assert not any(mentions(text, word) for word in ("Clay Studio", "Rex", "Boston"))


def test_follow_ups_refer_back_without_repeating_the_details():
    context = initial_context("scheduling", "positive") | {"followup_index": 1, "last_assistant": "Sure."}
    for seed in range(25):
        text = narr.user_turn_followup(context, random.Random(seed))["text"]
        assert text.endswith(("?", "🙂", "😊", "🎉", "🙌", "😅", "🤞", "✨", "👍")) or "?" in text
        assert not mentions(text, "Rex") and not mentions(text, "Biscuit")


def test_voice_formal_has_no_contractions_and_no_emoji_when_disabled():
    style = {"formality": 0.95, "verbosity": 0.9, "emoji": False, "vocabulary": []}
    for seed in range(25):
        text = narr.user_turn_initial(
            initial_context("advice_seeking", "negative", style), random.Random(seed)
        )["text"]
        assert "n't" not in text and "I'm" not in text and not any(e in text for e in narr.EMOJI)


def test_offline_texts_vary_with_the_request():
    texts = {
        narr.user_turn_initial(initial_context("status_update", "positive"), random.Random(s))["text"]
        for s in range(25)
    }
    assert len(texts) > 10


def test_rendering_a_prompt_with_a_missing_variable_fails():
    context = assistant_context("scheduling", "positive", "initial")
    del context["mentioned"]
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("assistant_turn", context)


def test_assistant_prompt_renders_exactly():
    context = assistant_context("advice_seeking", "negative", "initial") | {
        "mentioned": [],
        "user_message": "Help?",
    }
    assert prompts.render("assistant_turn", context) == (
        "You are a warm, practical personal AI assistant chatting with Maya. The conversation is\n"
        "about advice seeking; the user's tone is negative.\n"
        "\n"
        "Maya's latest message (initial):\n"
        "Help?\n"
        "\n"
        "Reply helpfully in 60 to 200 words. Never state facts about Maya's\n"
        "life that they have not told you (no invented names, dates, places or outcomes); give general,\n"
        "practical suggestions instead, and end with a question or an offer of help.\n"
        "\n"
        'Answer with JSON only: {"text": "<your reply>"}\n'
    )


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
    assert names == {"email", "email_notice", "journal", "report_questions", "report", "user_turn_initial",
                     "user_turn_followup", "assistant_turn"}
    for request in recorder.requests:
        assert "Answer with JSON only" in request.prompt
        for fact in request.context.get("facts", []):
            assert f'must include: "{fact["must_include"]}"' in request.prompt
