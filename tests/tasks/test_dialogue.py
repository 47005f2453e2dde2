"""Dialogue: bullets, categories, sessions, turns, clocks, voice and determinism."""

from __future__ import annotations

import datetime as dt
import re
from itertools import groupby

from schemas.corpus import DIALOGUE_CATEGORIES
from tasks.dialogue import classify, make_bullets, shares_attachment, write_dialogue
from tasks.facttext import carries, carries_first
from tasks.sources import write_emails
from tests.tasks.worldfixture import PID, make_config, make_gateway, make_persona, make_world

EMOJI = re.compile("[\U0001f300-\U0001faff\u2728]")


def dialogue(config=None, persona=None, world=None):
    config, persona, world = config or make_config(), persona or make_persona(), world or make_world()
    gateway = make_gateway()
    docs = write_emails(config, persona, world, gateway).documents
    return docs, write_dialogue(config, persona, world, docs, gateway)


def test_one_bullet_per_story_fact_and_one_session_per_day():
    _, talk = dialogue()
    story = [f for f in make_world().facts if not f.event_id.endswith("e0000")]
    assert [b.fact_ids for b in talk.bullets] == [[f.fact_id] for f in story]
    assert [b.bullet_id for b in talk.bullets] == [f"{PID}-b{n:04d}" for n in range(1, 6)]
    assert [s.session_id for s in talk.sessions] == [f"{PID}-s{n:04d}" for n in range(1, 5)]
    days = [d for d, _ in groupby(b.date for b in talk.bullets)]
    assert [s.started_at.date() for s in talk.sessions] == days
    assert all(
        19 <= s.started_at.hour <= 21 and str(s.started_at.tzinfo) == "America/New_York"
        for s in talk.sessions
    )


def test_session_category_is_its_first_bullets_and_categories_are_valid():
    _, talk = dialogue()
    assert all(b.category in DIALOGUE_CATEGORIES for b in talk.bullets)
    for session in talk.sessions:
        first = next(t for t in talk.turns if t.session_id == session.session_id)
        bullet = next(b for b in talk.bullets if b.bullet_id == first.bullet_id)
        assert session.category == bullet.category


def test_turn_ids_and_timestamps_increase_within_each_session():
    _, talk = dialogue()
    for session in talk.sessions:
        turns = [t for t in talk.turns if t.session_id == session.session_id]
        assert [t.turn_id for t in turns] == [
            f"{session.session_id}-t{n:02d}" for n in range(1, len(turns) + 1)
        ]
        stamps = [session.started_at] + [t.timestamp for t in turns]
        assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False))
        assert [t.role for t in turns] == ["user", "assistant"] * (len(turns) // 2)


def test_each_bullet_has_an_initial_turn_and_the_configured_follow_ups():
    _, talk = dialogue(make_config(stages={"dialogue": {"followups": 2}}))
    for bullet in talk.bullets:
        turns = [t for t in talk.turns if t.bullet_id == bullet.bullet_id]
        assert len(turns) == 2 * (1 + 2)


def test_initial_turns_state_the_fact_and_user_turns_claim_only_what_they_carry():
    _, talk = dialogue()
    facts = {f.fact_id: f for f in make_world().facts}
    for bullet in talk.bullets:
        opening = next(t for t in talk.turns if t.bullet_id == bullet.bullet_id)
        assert opening.role == "user" and all(carries_first(opening.text, facts[f]) for f in bullet.fact_ids)
        assert opening.fact_ids == bullet.fact_ids
    for turn in talk.turns:
        assert all(carries(turn.text, facts[f]) for f in turn.fact_ids)
        assert turn.role == "user" or not turn.fact_ids


def test_attachment_turns_cite_a_real_document_from_that_day_sent_before_the_turn():
    docs, talk = dialogue()
    by_id = {d.doc_id: d for d in docs}
    attachments = [b for b in talk.bullets if b.category == "attachment_consultation"]
    assert attachments
    for bullet in attachments:
        opening = next(t for t in talk.turns if t.bullet_id == bullet.bullet_id)
        [doc_id] = opening.doc_ids
        doc = by_id[doc_id]
        assert doc.event_id == bullet.event_id and doc.created_at.date() == bullet.date
        assert doc.created_at < opening.timestamp
    cited = {d for t in talk.turns for d in t.doc_ids}
    assert all(
        b.category == "attachment_consultation"
        for b in talk.bullets
        if any(by_id[d].event_id == b.event_id for d in cited)
    )


def test_no_attachment_category_without_documents():
    config = make_config(stages={"sources": {"email_probability": 0.0}})
    _, talk = dialogue(config)
    assert all(b.category != "attachment_consultation" for b in talk.bullets)
    assert all(not t.doc_ids for t in talk.turns)


def test_assistant_replies_are_60_to_200_words():
    _, talk = dialogue(make_config(stages={"dialogue": {"followups": 3}}))
    counts = [len(t.text.split()) for t in talk.turns if t.role == "assistant"]
    assert counts and all(60 <= n <= 200 for n in counts)


def test_category_rules():
    world = make_world()
    facts = {f.fact_id[-2:]: f for f in world.facts}
    events = {e.event_id[-1]: e for e in world.events}
    assert classify(facts["05"], events["1"], world, has_attachment=False) == "information_sharing"
    assert classify(facts["05"], events["1"], world, has_attachment=True) == "attachment_consultation"
    assert classify(facts["06"], events["2"], world, has_attachment=False) == "scheduling"
    assert classify(facts["07"], events["3"], world, has_attachment=False) == "status_update"
    assert classify(facts["08"], events["4"], world, has_attachment=False) == "advice_seeking"


def test_only_the_first_bullet_of_an_event_gets_the_attachment():
    world = make_world()
    extra = world.facts[4].model_copy(
        update={
            "fact_id": f"{PID}-f0010",
            "attribute": "pet_breed",
            "value": "beagle",
            "surface_forms": ["beagle"],
        }
    )
    world = world.model_copy(update={"facts": world.facts + [extra]})
    config = make_config()
    docs = write_emails(config, make_persona(), world, make_gateway()).documents
    bullets = [b for b in make_bullets(config, make_persona(), world, docs) if b.event_id == f"{PID}-e0001"]
    shared = shares_attachment(config, make_persona(), world.events[1], docs)
    expected = "attachment_consultation" if shared else "information_sharing"
    assert [b.category for b in bullets] == [expected, "information_sharing"]


def test_a_same_day_email_is_shared_in_some_conversations_but_not_all():
    config, persona = make_config(), make_persona()
    docs = write_emails(config, persona, make_world(), make_gateway()).documents
    events = [e for e in make_world().events if e.event_id.endswith(("1", "2", "3", "4", "5"))]
    draws = [
        shares_attachment(config.model_copy(update={"seed": seed}), persona, e, docs)
        for seed in range(20)
        for e in events
    ]
    assert any(draws) and not all(draws)


def test_formal_emoji_free_voice_has_no_contractions_or_emoji():
    _, talk = dialogue(persona=make_persona(formality=0.9, emoji=False))
    users = [t.text for t in talk.turns if t.role == "user"]
    assert not any(EMOJI.search(u) for u in users)
    assert not any(re.search(r"\b(I'm|didn't|don't|it's|I've)\b", u) for u in users)


def test_casual_emoji_voice_uses_emoji_somewhere():
    _, talk = dialogue(persona=make_persona(formality=0.1, emoji=True))
    assert any(EMOJI.search(t.text) for t in talk.turns if t.role == "user")


def test_dialogue_is_deterministic_and_varied():
    assert dialogue()[1] == dialogue()[1]
    _, talk = dialogue()
    openings = [t.text for t in talk.turns if t.role == "user"]
    assert len(set(openings)) == len(openings)


def test_sessions_end_before_the_next_morning():
    _, talk = dialogue()
    for session in talk.sessions:
        last = max(t.timestamp for t in talk.turns if t.session_id == session.session_id)
        assert last - session.started_at < dt.timedelta(hours=8)
