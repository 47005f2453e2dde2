"""Dialogue synthesis: bullets, categories, topics, turns, time references, verification and repair."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter

import pytest

from schemas.corpus import DIALOGUE_CATEGORIES, TimeRef, Turn
from schemas.world import Event, Fact, Plan
from tasks.common.facttext import carries, carries_first
from tasks.common.timeutil import local_date
from tasks.dialogue import relativetime
from tasks.dialogue import stage as dlg
from tasks.dialogue.bullets import category_weights, classify, make_bullets
from tasks.dialogue.shape import shape_of
from tasks.dialogue.stage import write_dialogue
from tasks.dialogue.verify import scopes_for, turn_problems
from tasks.llm.providers import offline
from tasks.sources.stage import write_sources
from tasks.verify import verify_persona
from tests.tasks.worldfixture import PID, day, make_config, make_gateway, make_persona, make_world

EMOJI = re.compile("[\U0001f300-\U0001faff\u2728]")


def dialogue(config=None, persona=None, world=None, gateway=None):
    config, persona, world = config or make_config(), persona or make_persona(), world or make_world()
    gateway = gateway or make_gateway()
    docs = write_sources(config, persona, world, gateway).documents
    return docs, write_dialogue(config, persona, world, docs, gateway)


def longer_world():
    """The fixture world plus a second move (Cambridge -> Somerville on day 10): a non-baseline change."""
    world = make_world()
    title = "move again, to Somerville"
    plan = Plan(plan_id=f"{PID}-pl0006", persona_id=PID, created_on=day(1), horizon="short",
                scheduled_for=day(10), title=title, kind="life_event")
    event = Event(event_id=f"{PID}-e0006", persona_id=PID, date=day(10), plan_id=plan.plan_id, kind="life_event",
                  valence="positive", severity=2, critical=False,
                  narrative="Boxes everywhere again after a long day of carrying them upstairs. "
                            "We are in Somerville now.")
    facts = [f.model_copy(update={"valid_to": day(10)}) if f.fact_id == f"{PID}-f0007" else f for f in world.facts]
    facts.append(Fact(fact_id=f"{PID}-f0010", persona_id=PID, event_id=event.event_id, subject="Maya Okafor",
                      attribute="city", value="Somerville", valid_from=day(10), surface_forms=["Somerville"]))
    return world.model_copy(update={"plans": [*world.plans, plan], "events": [*world.events, event], "facts": facts})


def test_bullets_are_background_facts_then_one_per_story_fact_then_fact_free_narrative_details():
    world = longer_world()
    config = make_config(days=12)
    bullets = make_bullets(config, make_persona(), world, [])
    background = [f for f in world.facts if f.event_id.endswith("e0000")]
    story = [f for f in world.facts if not f.event_id.endswith("e0000")]
    assert [b.fact_ids for b in bullets if b.fact_ids] == [[f.fact_id] for f in background + story]
    assert all(b.category == "information_sharing" for b in bullets[:len(background)])
    assert [b.bullet_id for b in bullets] == [f"{PID}-b{n:04d}" for n in range(1, len(bullets) + 1)]
    details = [b for b in bullets if not b.fact_ids]
    narratives = {e.event_id: e.narrative for e in world.events}
    assert all(d.text in narratives[d.event_id] for d in details)
    assert not any(carries(d.text, f) for d in details for f in world.facts if f.event_id == d.event_id)
    # "We are in Somerville now." states the event's fact: it is that fact's bullet, not a detail
    assert [d.text for d in details if d.event_id == f"{PID}-e0006"] == [
        "Boxes everywhere again after a long day of carrying them upstairs."]
    no_details = make_config(days=12, stages={"dialogue": {"details_per_event": 0}})
    assert all(b.fact_ids for b in make_bullets(no_details, make_persona(), world, []))


def test_turn_categories_follow_their_bullets_and_sessions_their_first_topic():
    _, talk = dialogue()
    bullets = {b.bullet_id: b for b in talk.bullets}
    assert all(b.category in DIALOGUE_CATEGORIES for b in talk.bullets)
    for turn in talk.turns:
        if turn.bullet_id:
            assert turn.category == bullets[turn.bullet_id].category
        else:
            assert turn.kind == "filler" and not turn.fact_ids
    for session in talk.sessions:
        first = next(t for t in talk.turns if t.session_id == session.session_id)
        assert session.category == first.category


def test_category_distribution_follows_intent_and_emotion():
    world, persona = make_world(), make_persona()
    events = {e.event_id: e for e in world.events}
    facts = {f.fact_id: f for f in world.facts}
    declined, pottery = facts[f"{PID}-f0008"], facts[f"{PID}-f0006"]

    def draws(fact, n=400, **big5):
        p = persona.model_copy(deep=True)
        for k, v in big5.items():
            setattr(p.profile.personality.big_five, k, v)
        rng = random.Random(3)
        return Counter(classify(fact, events[fact.event_id], world, p, False, rng) for _ in range(n))

    calm, anxious = draws(declined, neuroticism=0.0), draws(declined, neuroticism=1.0)
    assert anxious["advice_seeking"] > calm["advice_seeking"] > 0  # a bad outcome: advice, more if anxious
    assert draws(pottery).most_common(1)[0][0] == "scheduling"  # a weekly class is about arranging time
    w = category_weights(facts[f"{PID}-f0007"], events[f"{PID}-e0003"], world, persona)
    assert w["status_update"] > category_weights(facts[f"{PID}-f0005"], events[f"{PID}-e0001"], world,
                                                 persona)["status_update"]  # a changed city is an update
    assert classify(pottery, events[pottery.event_id], world, persona, True, random.Random(0)) == (
        "attachment_consultation")


def test_each_topic_opens_with_its_facts_then_follow_ups_stay_on_it():
    config = make_config(stages={"dialogue": {"followups": 2, "filler_rate": 0.0}})
    _, talk = dialogue(config)
    world = make_world()
    facts = {f.fact_id: f for f in world.facts}
    bullets = {b.bullet_id: b for b in talk.bullets}
    by_bullet: dict[str, list[Turn]] = {}
    for t in talk.turns:
        by_bullet.setdefault(t.bullet_id, []).append(t)
    assert set(by_bullet) == set(bullets)
    told: set[tuple[str, str]] = set()
    for bid, turns in sorted(by_bullet.items(), key=lambda kv: kv[1][0].turn_id):
        event, session = bullets[bid].event_id, turns[0].session_id
        background = event.endswith("e0000")
        opening = "followup" if (session, event) in told else "initial"  # an event told earlier goes on
        told |= {(session, event)} if not background else set()
        rounds = 0 if background else 2  # background gets no follow-ups
        assert [(t.role, t.kind) for t in turns] == [("user", opening), ("assistant", "initial")] + [
            ("user", "followup"), ("assistant", "followup")] * rounds
        own = [facts[i] for i in bullets[bid].fact_ids]
        assert all(carries_first(turns[0].text, f) for f in own)
        others = [f for f in world.facts if f.event_id != bullets[bid].event_id and f not in own]
        for t in turns[2::2]:  # follow-ups: no other topic's facts, the topic's fact by paraphrase
            assert not [f.fact_id for f in others if carries(t.text, f) and f.valid_from > bullets[bid].date]
            assert t.fact_ids == [] or t.fact_ids == bullets[bid].fact_ids
            if own and not t.fact_ids and not bullets[bid].event_id.endswith("e0000"):
                assert t.paraphrase_ids == bullets[bid].fact_ids  # background topics have no paraphrase
        for t in (t for t in turns if t.role == "user"):  # a follow-up naming a fact by a short form refers to it
            test = carries_first if t.kind == "followup" and t is not turns[0] else carries
            assert t.fact_ids == [i for i in bullets[bid].fact_ids if test(t.text, facts[i])]
            assert all(i in t.paraphrase_ids for i in bullets[bid].fact_ids
                       if carries(t.text, facts[i]) and i not in t.fact_ids)


def test_whole_stage_passes_its_own_verifier_with_no_errors():
    config = make_config(days=12, stages={"dialogue": {"delay_share": 0.6, "followups": 1}})
    world, persona = longer_world(), make_persona()
    docs, talk = dialogue(config, persona, world)
    scopes = scopes_for(persona, world, talk.model_copy(update={"documents": docs}))
    bad = [(t.turn_id, p) for t in talk.turns for p in turn_problems(t, scopes[t.turn_id])
           if p.check != "assistant_length"]
    assert bad == []
    from schemas.qa import QuestionSet
    corpus = talk.model_copy(update={"documents": docs})
    found = verify_persona(persona, world, corpus, QuestionSet())
    errors = [f for f in found if f.severity == "error" and f.stage != "loop"]  # the fixture world is hand-made
    assert errors == []


def test_delayed_topics_say_when_and_the_phrase_agrees_with_the_calendar():
    config = make_config(days=12, stages={"dialogue": {"delay_share": 1.0}})
    persona = make_persona()
    _, talk = dialogue(config, persona, longer_world())
    refs = [(t, r) for t in talk.turns for r in t.time_refs]
    assert refs, "a delay share of 1 must produce relative-time phrases"
    delayed = 0
    for turn, ref in refs:
        on = local_date(persona, turn.timestamp)
        assert ref.phrase.lower() in turn.text.lower()
        assert relativetime.agrees(ref.phrase, ref.date, on)
        delayed += on > ref.date
    assert delayed > 0


def test_status_update_calls_back_the_earlier_event_it_changes():
    config = make_config(days=12)
    world = longer_world()
    bullets = make_bullets(config, make_persona(), world, [])
    somerville = next(b for b in bullets if b.fact_ids == [f"{PID}-f0010"])
    forced = [b.model_copy(update={"category": "status_update"}) if b is somerville else b for b in bullets]
    topics = dlg.plan_topics(config, make_persona(), world, [], forced)
    topic = next(t for t in topics if t.bullet and t.bullet.bullet_id == somerville.bullet_id)
    assert topic.callback is not None and topic.callback.event_id == f"{PID}-e0003"
    assert relativetime.agrees(topic.callback.phrase, day(6), topic.day)


def test_planted_wrong_relative_date_is_caught():
    config = make_config()
    persona, world = make_persona(), make_world()
    docs, talk = dialogue(config, persona, world)
    turn = next(t for t in talk.turns if t.role == "user" and t.kind == "initial" and t.bullet_id)
    event_day = next(b.date for b in talk.bullets if b.bullet_id == turn.bullet_id)
    on = local_date(persona, turn.timestamp)
    wrong = "three weeks ago"
    assert not relativetime.agrees(wrong, event_day, on)
    planted = turn.model_copy(update={"text": f"{turn.text} It all started {wrong}.",
                                      "time_refs": [TimeRef(phrase=wrong, date=event_day)]})
    corpus = talk.model_copy(update={"documents": docs, "turns": [planted if t is turn else t for t in talk.turns]})
    scopes = scopes_for(persona, world, corpus)
    assert "relative_time_mismatch" in {p.check for p in turn_problems(planted, scopes[planted.turn_id])}
    from schemas.qa import QuestionSet
    found = verify_persona(persona, world, corpus, QuestionSet())
    assert any(f.check == "relative_time_mismatch" and f.artifact_id == planted.turn_id for f in found)


def test_attachment_talk_opens_with_the_upload_marker_and_does_not_paste():
    config = make_config(days=10)
    persona, world = make_persona(), make_world()
    shared = 0
    for seed in range(1, 8):
        cfg = config.model_copy(update={"seed": seed})
        docs, talk = dialogue(cfg, persona, world)
        by_id = {d.doc_id: d for d in docs}
        for turn in talk.turns:
            if turn.category != "attachment_consultation":
                continue
            assert turn.doc_ids and all(by_id[i].created_at < turn.timestamp for i in turn.doc_ids)
            if turn.role == "user" and turn.kind == "initial":
                shared += 1
                assert turn.text.startswith(f"[Upload {turn.doc_ids[0]}]")
            body = re.findall(r"\w+", by_id[turn.doc_ids[0]].body.lower())
            words = " ".join(re.findall(r"\w+", turn.text.lower()))
            assert not any(" ".join(body[i:i + 12]) in words for i in range(len(body) - 11))
    assert shared > 0


def test_attachment_talk_is_longer_than_status_updates():
    config = make_config(days=10)
    lengths: dict[str, list[int]] = {"attachment_consultation": [], "status_update": []}
    for seed in range(1, 10):
        _, talk = dialogue(config.model_copy(update={"seed": seed}))
        for t in talk.turns:
            if t.role == "user" and t.kind == "initial" and t.category in lengths:
                lengths[t.category].append(len(t.text.split()))
    assert lengths["attachment_consultation"] and lengths["status_update"]
    mean = {k: sum(v) / len(v) for k, v in lengths.items()}
    assert mean["attachment_consultation"] > mean["status_update"]


def test_assistant_replies_fit_their_category_shape_and_reveal_nothing_untold():
    config = make_config(days=12)
    persona, world = make_persona(), longer_world()
    docs, talk = dialogue(config, persona, world)
    scopes = scopes_for(persona, world, talk.model_copy(update={"documents": docs}))
    for t in talk.turns:
        if t.role == "assistant":
            lo, hi = shape_of(t.category, t.kind).reply_words
            assert lo <= len(t.text.split()) <= hi, t.text
            assert not [p for p in turn_problems(t, scopes[t.turn_id]) if p.check == "assistant_reveals_untold"]


def test_fillers_carry_no_facts_and_quiet_days_get_filler_only_sessions():
    config = make_config(days=30, start_date=dt.date(2024, 2, 15), stages={"dialogue": {"filler_rate": 0.3}})
    _, talk = dialogue(config, make_persona(), make_world())
    fillers = [t for t in talk.turns if t.kind == "filler"]
    assert fillers and all(not t.fact_ids and t.bullet_id is None and not t.time_refs for t in fillers)
    quiet = [s for s in talk.sessions if all(t.kind == "filler" for t in talk.turns if t.session_id == s.session_id)]
    assert quiet, "some days without events get a filler-only session"
    none = make_config(days=30, start_date=dt.date(2024, 2, 15), stages={"dialogue": {"filler_rate": 0.0}})
    _, plain = dialogue(none, make_persona(), make_world())
    assert not [t for t in plain.turns if t.kind == "filler"]


def test_filler_share_over_all_topics_is_near_the_rate():
    persona = make_persona()
    config = make_config(days=10, stages={"dialogue": {"filler_rate": 0.25}})
    counts = Counter()
    for seed in range(1, 30):
        cfg = config.model_copy(update={"seed": seed})
        topics = dlg.plan_topics(cfg, persona, make_world(), [], make_bullets(cfg, persona, make_world(), []))
        counts.update("filler" if t.filler else "topic" for t in topics)
    share = counts["filler"] / sum(counts.values())
    assert 0.17 < share < 0.33


def test_a_long_sparse_life_still_talks_mostly_about_itself():
    """Quiet days' filler-only sessions come out of the filler share: a year with a few days of events (the
    finance preset's sparse lives) is not mostly small talk (it was four fifths, one filler session every
    seventh quiet day), and a quiet day still gets one now and then."""
    persona, world = make_persona(), make_world()
    config = make_config(days=365, stages={"dialogue": {"filler_rate": 0.15}})
    counts = Counter()
    for seed in range(1, 6):
        cfg = config.model_copy(update={"seed": seed})
        topics = dlg.plan_topics(cfg, persona, world, [], make_bullets(cfg, persona, world, []))
        counts.update("filler" if t.filler else "topic" for t in topics)
        event_days = {t.day for t in topics if not t.filler}
        assert any(t.filler and t.day not in event_days for t in topics)  # a filler-only session on a quiet day
    assert counts["filler"] / sum(counts.values()) < 0.3


def test_model_sees_only_the_context_window(monkeypatch):
    """A call sees at least the window's turns before the last, from a start that moves in steps of context_step
    (so consecutive calls share a prefix); with steps of one turn, exactly the window (the user one turn more)."""
    for step, most in ((0, 4), (4, 7)):  # with steps: a start that moved up to 3 turns ago
        config = make_config(stages={"dialogue": {"context_window": 3, "context_step": step, "followups": 2}})
        gateway = make_gateway()
        seen: list[tuple[str, int]] = []

        def spy(specs, seen=seen, original=gateway.generate_many):
            seen.extend((s.prompt_name, len(s.context.get("history", []))) for s in specs if s.stage == "dialogue")
            return original(specs)

        monkeypatch.setattr(gateway, "generate_many", spy)
        dialogue(config, gateway=gateway)
        assert seen and 4 <= max(n for _, n in seen) <= most and (step == 0) == (max(n for _, n in seen) == 4)
        assert max(n for name, n in seen if name == "assistant_turn") <= most - 1  # and the message it answers
    from tasks.dialogue.verify import window_start

    assert [window_start(i, 3, 4) for i in range(3, 14)] == [0, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8]
    assert [window_start(i, 3) for i in range(3, 8)] == [0, 0, 1, 2, 3] and window_start(9, None, 4) == 0


def test_a_rejected_wording_is_regenerated_and_lands_as_a_finding(monkeypatch):
    real = offline.NARRATORS["user_turn_initial"]
    calls = Counter()

    def flaky(context, rng):
        out = real(context, rng)
        calls[context["event"]["title"]] += 1
        if calls[context["event"]["title"]] == 1 and context.get("when"):
            return {"text": out["text"].replace(context["when"], "three weeks ago", 1)}
        return out

    monkeypatch.setitem(offline.NARRATORS, "user_turn_initial", flaky)
    config = make_config(days=12, stages={"dialogue": {"delay_share": 1.0}})
    persona, world = make_persona(), longer_world()
    docs, talk = dialogue(config, persona, world)
    repaired = [f for f in talk.findings if f.severity == "info"]
    assert repaired and all(f.stage == "dialogue" and f.finding_id.startswith(f"{PID}-dlg") for f in repaired)
    assert {f.check for f in repaired} >= {"relative_time_mismatch"} or {f.check for f in repaired} >= {
        "time_ref_in_text"}
    scopes = scopes_for(persona, world, talk.model_copy(update={"documents": docs}))
    assert not [p for t in talk.turns for p in turn_problems(t, scopes[t.turn_id]) if p.check != "assistant_length"]


def test_a_wording_that_always_fails_falls_back_to_the_template(monkeypatch):
    def liar(context, rng):
        return {"text": "Honestly my city is now Atlantis and it happened three weeks ago."}

    monkeypatch.setitem(offline.NARRATORS, "user_turn_initial", liar)
    config = make_config(stages={"dialogue": {"delay_share": 1.0}})
    persona, world = make_persona(), make_world()
    _, talk = dialogue(config, persona, world)
    assert any(f.severity == "warning" and "template" in f.message for f in talk.findings)
    assert all("Atlantis" not in t.text for t in talk.turns)
    assert talk.turns  # the template wording passes: topics are kept


def test_turns_stay_on_their_day_and_clocks_run_forward():
    config = make_config(stages={"dialogue": {"followups": 3, "filler_rate": 0.4}})
    persona = make_persona()
    _, talk = dialogue(config, persona)
    for session in talk.sessions:
        turns = [t for t in talk.turns if t.session_id == session.session_id]
        stamps = [session.started_at] + [t.timestamp for t in turns]
        assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False))
        assert {local_date(persona, t.timestamp) for t in turns} == {local_date(persona, session.started_at)}
        assert [t.turn_id for t in turns] == [f"{session.session_id}-t{n:02d}" for n in range(1, len(turns) + 1)]


def test_formal_emoji_free_voice_has_no_contractions_or_emoji():
    _, talk = dialogue(persona=make_persona(formality=0.9, emoji=False))
    users = [t.text for t in talk.turns if t.role == "user"]
    assert not any(EMOJI.search(u) for u in users)
    assert not any(re.search(r"\b(I'm|I've|didn't|don't|it's)\b", u) for u in users)


def test_same_seed_same_sessions_and_another_seed_differs():
    config = make_config(days=12)
    world = longer_world()
    _, a = dialogue(config, world=world)
    _, b = dialogue(config, world=world)
    assert a.model_dump() == b.model_dump()
    _, c = dialogue(config.model_copy(update={"seed": 12}), world=world)
    assert [t.text for t in c.turns] != [t.text for t in a.turns]


@pytest.mark.parametrize("rate", [0.0, 0.5])
def test_no_attachment_category_without_documents(rate):
    config = make_config(stages={"dialogue": {"filler_rate": rate}})
    persona, world = make_persona(), make_world()
    talk = write_dialogue(config, persona, world, [], make_gateway())
    assert all(b.category != "attachment_consultation" for b in talk.bullets)
    assert all(t.category != "attachment_consultation" and not t.doc_ids for t in talk.turns)


def test_the_assistant_is_told_only_what_its_context_window_holds(monkeypatch):
    config = make_config(stages={"dialogue": {"context_window": 1, "context_step": 0, "followups": 3,
                                              "filler_rate": 0.0}})
    gateway = make_gateway()
    contexts: list[dict] = []
    original = gateway.generate_many

    def spy(specs):
        contexts.extend(s.context for s in specs if s.prompt_name == "assistant_turn")
        return original(specs)

    monkeypatch.setattr(gateway, "generate_many", spy)
    docs, talk = dialogue(config, gateway=gateway)
    shared = {t.text: t.doc_ids for t in talk.turns}
    assert contexts
    for context in contexts:
        assert len(context["history"]) <= 1
        window = [t["text"] for t in context["history"]] + [context["user_message"]]
        seen = " ".join(window).lower()
        cited = [d.body for d in docs if any(d.doc_id in shared.get(t, []) for t in window)]  # shared in the window
        points = " ".join([*(context["attachment"] or {}).get("points", []), *cited]).lower()
        assert all(m.lower() in seen or m.lower() in points for m in context["mentioned"]), context["mentioned"]


def test_sessions_of_more_than_99_turns_keep_their_order():
    from schemas.corpus import Corpus, Session
    from schemas.qa import QuestionSet

    persona = make_persona()
    start = dt.datetime(2024, 3, 3, 8, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    session = Session(session_id=f"{PID}-s0001", persona_id=PID, started_at=start, category="information_sharing")
    turns = [Turn(turn_id=f"{PID}-s0001-t{n:02d}", session_id=session.session_id, persona_id=PID,
                  timestamp=start + dt.timedelta(minutes=n), role="user" if n % 2 else "assistant",
                  text="Lovely weather." if n % 2 else " ".join(["fine"] * 80), kind="filler")
             for n in range(1, 121)]
    found = verify_persona(persona, make_world(), Corpus(sessions=[session], turns=turns), QuestionSet())
    assert not [f for f in found if f.check == "turn_order"]
