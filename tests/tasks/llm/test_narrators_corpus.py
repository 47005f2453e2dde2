"""The email prompt and its offline narrator: required phrases, shape. (Dialogue: test_narrators_dialogue.py.)"""

from __future__ import annotations

import random

import pytest

from schemas.corpus import EmailDraft
from tasks.common.facttext import mentions
from tasks.llm import prompts
from tasks.llm.providers.narrators import corpus as narr
from tasks.llm.providers.offline import NARRATORS

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


def test_the_email_prompt_has_a_template_and_a_narrator():
    assert "email" in prompts.prompt_names() and "email" in NARRATORS


@pytest.mark.parametrize("direction", ["outgoing", "incoming", "organisation"])
@pytest.mark.parametrize("valence", ["positive", "negative"])
def test_emails_include_every_required_phrase_and_read_like_emails(direction, valence):
    for seed in range(25):
        out = EmailDraft.model_validate(narr.email(email_context(direction, valence), random.Random(seed)))
        assert all(mentions(out.body, f["must_include"]) for f in FACTS)
        paragraphs = out.body.split("\n\n")
        assert paragraphs[0].startswith(("Hi ", "Dear ")) and len(paragraphs) >= 4


def journal_context(narrative: str, facts: list[dict]) -> dict:
    return {"persona": PERSONA, "style": STYLE, "date": "March 2, 2024", "mood": "calm",
            "events": [event() | {"narrative": narrative, "facts": facts}], "facts": facts}


def test_a_journal_tells_the_events_own_story_and_only_the_facts_it_leaves_out():
    from tasks.llm.providers.narrators import sources

    story = ("Okay, update. Picked up Biscuit from the shelter this morning. I keep smiling when I think about it. "
             "Feeling really good about this, tbh. 🎉")
    assert sources.story_lines(story) == ["Picked up Biscuit from the shelter this morning."]
    for seed in range(10):
        body = sources.journal(journal_context(story, FACTS), random.Random(seed))["body"]
        assert "Picked up Biscuit from the shelter this morning." in body
        assert "my pet is now biscuit" not in body.lower() and "my weekly class is now pottery" in body.lower()


def test_a_journal_leaves_out_story_lines_that_would_say_a_paraphrased_fact_verbatim():
    from tasks.llm.providers.narrators import sources

    gym = {"fact_id": "p0001-f0007", "clause": "I've joined Pulse", "must_include": "Pulse", "mode": "paraphrased",
           "avoid": "Pulse Gym"}
    body = sources.journal(journal_context("Signed up at Pulse Gym today. Maya was thrilled.", [gym]),
                           random.Random(1))["body"]
    assert "I've joined Pulse" in body and "Pulse Gym" not in body
    assert "Maya was thrilled" not in body  # the entry is in the first person
    section = body.split("## ", 1)[1].split("\n\n", 1)[1]
    assert section.startswith("I've joined Pulse.")  # the paraphrase tells what happened: no "Today I managed to"


def test_a_status_report_counts_its_tasks_in_agreement():
    from tasks.llm.providers.narrators.sources import table_fact

    def table(planned, done):
        return {"columns": ["metric", "value"], "rows": [["tasks planned", planned], ["tasks completed", done]]}

    assert table_fact("what are the next steps?", table(30, 29)) == "1 of the 30 planned tasks is still open."
    assert table_fact("what are the next steps?", table(30, 27)) == "3 of the 30 planned tasks are still open."
    assert table_fact("what are the next steps?", table(30, 30)) == "all 30 planned tasks are done."
    stand = table_fact("where does the work stand?", table(4, 1))
    assert stand == "1 of the 4 planned tasks is done, about 25 percent."
