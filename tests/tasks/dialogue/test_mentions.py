"""How turns mention facts: planned paraphrases, recorded mentions, the mode shares' config."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from pydantic import ValidationError

from schemas.config import DialogueOptions
from schemas.corpus import REALIZED_MODES
from schemas.world import Event, Fact, Plan
from tasks.common.facttext import carries, mentions
from tasks.common.timeutil import local_date
from tasks.dialogue.bullets import SENTENCE
from tasks.dialogue.mentions import (
    corrected,
    distractor,
    implication,
    paraphrase,
    planned,
    sentence_with,
    split,
    turn_mentions,
)
from tests.tasks.worldfixture import PID, make_config, make_corpus, make_persona, make_world


def dinner_world(day: dt.date | None = None):
    world = make_world()
    day = day or world.events[-1].date + dt.timedelta(days=1)
    plan = Plan(plan_id=f"{PID}-pl0006", persona_id=PID, created_on=day, horizon="short", scheduled_for=day,
                title="have dinner at Luigi's with Ann", kind="dinner_out",
                entity={"dish": "mushroom risotto", "restaurant": "Luigi's", "companion": "Ann"})
    event = Event(event_id=f"{PID}-e0006", persona_id=PID, date=day, plan_id=plan.plan_id, kind="dinner_out",
                  valence="positive", severity=1, critical=False, narrative="I had mushroom risotto at Luigi's.")
    fact = Fact(fact_id=f"{PID}-f0010", persona_id=PID, event_id=event.event_id, subject="Maya Okafor",
                attribute="dinner_out", value="mushroom risotto at Luigi's", valid_from=day,
                surface_forms=["mushroom risotto at Luigi's", "Luigi's"])
    return world.model_copy(update={"plans": world.plans + [plan], "events": world.events + [event],
                                    "facts": world.facts + [fact]}), fact


def test_a_paraphrase_says_every_part_of_the_value_but_never_the_value_itself():
    world, fact = dinner_world()
    for pick in (0.0, 0.99):
        r = paraphrase(fact, make_persona(), world, pick)
        assert r is not None and r.mode == "paraphrased"
        assert not mentions(r.clause, fact.value), r.clause
        assert all(mentions(r.clause, p) for p in ("mushroom risotto", "Luigi's")) and carries(r.clause, fact)


def test_facts_without_frames_or_plan_fields_have_no_paraphrase():
    world = make_world()
    persona = make_persona()
    assert all(paraphrase(f, persona, world, 0.5) is None for f in world.facts)  # background, no frames


def test_the_paraphrase_share_is_a_knob():
    world, fact = dinner_world()
    persona = make_persona()
    never = make_config(stages={"dialogue": {"mention_modes": {"paraphrased": 0.0}}})
    always = make_config(stages={"dialogue": {"mention_modes": {"paraphrased": 1.0}}})
    plan = planned(never, persona, world, [fact], "b1", fact.valid_from)
    assert plan.realized == [None] and plan.distractors == []
    (r,) = planned(always, persona, world, [fact], "b1", fact.valid_from).realized
    assert r is not None and r.fact_id == fact.fact_id and r.mode == "paraphrased"
    fixed = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0, "about_other": 1.0}}})
    plan = planned(fixed, persona, world, [fact], "b1", fact.valid_from)
    assert [r.mode for r in plan.realized] == ["corrected"] and [d.mode for d in plan.distractors] == ["about_other"]


def test_mode_shares_outside_what_the_narrators_realize_are_refused():
    with pytest.raises(ValidationError, match="cannot be set"):
        DialogueOptions(mention_modes={"reference": 0.1})
    with pytest.raises(ValidationError, match="at most 1"):
        DialogueOptions(mention_modes={"paraphrased": 0.6, "implied": 0.5})
    with pytest.raises(ValidationError, match="between 0 and 1"):
        DialogueOptions(mention_modes={"paraphrased": 1.5})
    with pytest.raises(ValidationError, match="at most 1"):
        DialogueOptions(mention_modes={"about_other": 0.6, "hypothetical": 0.6})


def test_a_correction_gets_one_part_wrong_then_puts_it_right():
    world, fact = dinner_world()
    persona = make_persona()
    seen = set()
    for seed in range(12):
        import random
        r = corrected(fact, persona, world, random.Random(seed))
        assert r is not None and r.mode == "corrected" and r.wrong and r.correction
        assert r.right in ("mushroom risotto", "Luigi's") and r.slip and not mentions(r.slip, r.right)
        assert mentions(r.wrong, r.slip) and not mentions(r.wrong, r.right)  # the slip lacks the right part
        assert mentions(r.correction, r.right) and mentions(r.correction, r.slip)
        assert not any(carries(r.slip, f) for f in world.facts)  # a slip names none of the persona's facts
        seen.add(r.right)
        text = f"Hi! {capital_(r.wrong)}. {r.correction} It was lovely."
        turn = make_corpus().turns[0].model_copy(update={"text": text, "fact_ids": [fact.fact_id], "role": "user",
                                                         "paraphrase_ids": []})
        rows = turn_mentions(turn, {fact.fact_id: fact}, {fact.fact_id: r}, [])
        assert [(m["mode"], m["counts"]) for m in rows] == [("corrected", False), ("corrected", True)]
        assert mentions(rows[0]["span"], r.slip) and rows[1]["span"] == r.correction
    assert seen == {"mushroom risotto", "Luigi's"}  # either part can be the one got wrong


def capital_(text):
    return text[:1].upper() + text[1:]


def test_distractors_are_about_someone_else_or_what_did_not_happen_and_never_count():
    import random
    world, fact = dinner_world()
    persona = make_persona()
    for seed in range(10):
        other = distractor(fact, persona, world, "about_other", random.Random(seed))
        nearly = distractor(fact, persona, world, "hypothetical", random.Random(seed + 100))
        for d in (other, nearly):
            assert d is not None and d.fact_id == fact.fact_id and d.parts
            assert not any(carries(d.sentence, f) for f in world.facts), d.sentence  # no fact of the persona
            assert not mentions(d.sentence, "Luigi's") and not mentions(d.sentence, "mushroom risotto")
        assert any(mentions(other.sentence, f"my {r.role} {r.name.split()[0]}") for r in persona.profile.relationships
                   if r.name != "Ann"), other.sentence
        assert not re.search(r"\bI\b", other.sentence) and nearly.sentence.startswith(("I ", "Next time I"))
        turn = make_corpus().turns[0].model_copy(update={
            "text": f"I had mushroom risotto at Luigi's. {other.sentence} {nearly.sentence}", "role": "user",
            "fact_ids": [fact.fact_id], "paraphrase_ids": []})
        rows = turn_mentions(turn, {fact.fact_id: fact}, {}, [], [other, nearly])
        assert [(m["mode"], m["counts"]) for m in rows] == [("explicit", True), ("about_other", False),
                                                           ("hypothetical", False)]
        assert [m["span"] for m in rows[1:]] == [sentence_with(turn.text, d.parts) for d in (other, nearly)]
        assert all(m["span"] in SENTENCE.split(turn.text)[1:] for m in rows[1:])


def test_background_facts_take_no_correction_and_no_distractor():
    import random
    world = make_world()
    persona = make_persona()
    for f in world.facts:
        assert corrected(f, persona, world, random.Random(1)) is None
        assert distractor(f, persona, world, "about_other", random.Random(1)) is None


def test_every_recorded_mention_is_in_its_turn_and_every_claimed_fact_has_one():
    corpus = make_corpus()
    texts = {t.turn_id: t.text for t in corpus.turns} | {c.chunk_id: c.text for c in corpus.chunks}
    facts = {f.fact_id: f for f in make_world().facts}
    assert {m.evidence_kind for m in corpus.mentions} == {"turn", "chunk"}
    for m in corpus.mentions:
        text = texts[m.evidence_id]
        assert m.mention_id.startswith(m.evidence_id + "-m")
        assert m.span is None or mentions(text, m.span)
        assert not m.counts or carries(text, facts[m.fact_id]) or m.mode in REALIZED_MODES and m.span
    counted = {(m.evidence_id, m.fact_id) for m in corpus.mentions if m.counts}
    assert all((t.turn_id, f) in counted for t in corpus.turns for f in t.fact_ids)
    assert all((c.chunk_id, f) in counted for c in corpus.chunks for f in c.fact_ids)
    refs = {(m.evidence_id, m.fact_id) for m in corpus.mentions if m.mode == "reference"}
    named = {(t.turn_id, f) for t in corpus.turns for f in t.paraphrase_ids}
    assistant = {t.turn_id for t in corpus.turns if t.role == "assistant"}
    assert named <= refs and all(tid in assistant for tid, _ in refs - named)  # a reply naming a told fact


def test_the_dialogue_stage_says_records_and_verifies_corrections_and_distractors():
    from schemas.qa import QuestionSet
    from tasks.verify import verify_persona

    world, fact = dinner_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0, "about_other": 1.0}}})
    corpus = make_corpus(config, persona, world)
    turns = {t.turn_id: t for t in corpus.turns}
    rows = [m for m in corpus.mentions if m.fact_id == fact.fact_id and m.evidence_kind == "turn"]
    modes = {(m.mode, m.counts) for m in rows}
    assert {("corrected", False), ("corrected", True), ("about_other", False)} <= modes, modes
    fixed = next(m for m in rows if m.mode == "corrected" and m.counts)
    slip = next(m for m in rows if m.mode == "corrected" and not m.counts)
    other = next(m for m in rows if m.mode == "about_other")
    text = turns[fixed.evidence_id].text
    assert slip.evidence_id == fixed.evidence_id == other.evidence_id  # all in the opening message
    assert text.index(slip.span) < text.index(fixed.span) and carries(text, fact)
    assert not any(carries(other.span, f) for f in world.facts)
    found = verify_persona(persona, world, corpus, QuestionSet())
    assert not [f for f in found if f.check in ("mention_resolves", "initial_turn_states_fact", "turn_carries_fact",
                                                "turn_anticipates_fact", "turn_states_stale_fact")]
    for t in corpus.turns:  # a follow-up naming the event by a short form refers to it, it does not restate it
        if t.role == "user" and t.kind == "followup" and t.bullet_id == turns[fixed.evidence_id].bullet_id:
            assert fact.fact_id not in t.fact_ids or mentions(t.text, fact.surface_forms[0])


def test_a_split_value_needs_the_opening_and_the_first_follow_up():
    world, fact = dinner_world()
    r = split(fact, make_persona(), world)
    assert r is not None and r.mode == "split" and r.parts == ("Luigi's",) and r.rest_parts == ("mushroom risotto",)
    assert not mentions(r.clause, "mushroom risotto") and not mentions(r.rest, "Luigi's")
    assert planned(make_config(stages={"dialogue": {"mention_modes": {"split": 1.0}}}), make_persona(), world, [fact],
                   "b1", fact.valid_from, followed=False).realized == [None]  # no follow-up, no split


def test_the_dialogue_stage_says_a_split_fact_over_two_turns_and_both_are_its_evidence():
    from schemas.qa import QuestionSet
    from tasks.verify import verify_persona

    world, fact = dinner_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"split": 1.0}, "followups": 2}})
    corpus = make_corpus(config, persona, world)
    turns = {t.turn_id: t for t in corpus.turns}
    rows = [m for m in corpus.mentions if m.fact_id == fact.fact_id and m.mode == "split"]
    assert len(rows) == 2 and all(m.counts and m.span for m in rows), rows
    first, second = (turns[m.evidence_id] for m in rows)
    assert mentions(rows[0].span, "Luigi's") and mentions(rows[1].span, "mushroom risotto")
    if first.turn_id != second.turn_id:  # the opening names the place, the first follow-up adds the dish
        assert first.kind == "initial" and second.kind == "followup" and first.bullet_id == second.bullet_id
        assert not mentions(first.text, "mushroom risotto") and fact.fact_id in second.fact_ids
    assert not mentions(first.text + second.text, fact.value)
    found = verify_persona(persona, world, corpus, QuestionSet())
    assert not [f for f in found if f.check in ("mention_resolves", "initial_turn_states_fact", "turn_carries_fact")]


def test_an_implied_fact_says_every_part_by_a_consequence_never_the_value_or_a_paraphrase():
    from tasks.dialogue.valueparts import FRAMES

    world, fact = dinner_world()
    persona = make_persona()
    clauses = set()
    for pick in (0.0, 0.5, 0.99):
        r = implication(fact, persona, world, pick)
        assert r is not None and r.mode == "implied" and set(r.parts) == {"mushroom risotto", "Luigi's"}
        assert all(mentions(r.clause, p) for p in r.parts) and not mentions(r.clause, fact.value), r.clause
        assert not re.search(r"\b(had|went to|ate)\b", r.clause), r.clause  # not the fact's own predicate
        clauses.add(r.clause)
    assert len(clauses) == 3
    paraphrases = {paraphrase(fact, persona, world, p).clause for p in (0.0, 0.99)}
    assert not clauses & paraphrases
    gym = fact.model_copy(update={"fact_id": f"{PID}-f0011", "attribute": "gym", "value": "Pulse Gym",
                                  "surface_forms": ["Pulse Gym"]})
    r = implication(gym, persona, world, 0.0)
    assert r is not None and r.parts == ("Pulse",) and r.clause not in FRAMES["gym"]
    other = gym.model_copy(update={"subject": "Ann Lee"})  # a frame in the persona's voice is for their own facts
    assert implication(other, persona, world, 0.0) is None


def test_the_dialogue_stage_implies_a_fact_records_it_and_the_verifier_accepts_it():
    from schemas.qa import QuestionSet
    from tasks.verify import verify_persona

    world, fact = dinner_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"implied": 1.0}}})
    corpus = make_corpus(config, persona, world)
    turns = {t.turn_id: t for t in corpus.turns}
    rows = [m for m in corpus.mentions if m.fact_id == fact.fact_id and m.mode == "implied"]
    assert rows and all(m.counts and m.span for m in rows), rows
    text = turns[rows[0].evidence_id].text
    assert turns[rows[0].evidence_id].kind == "initial" and not mentions(text, fact.value), text
    assert mentions(text, "mushroom risotto") and mentions(text, "Luigi's")
    found = verify_persona(persona, world, corpus, QuestionSet())
    assert not [f for f in found if f.check in ("mention_resolves", "initial_turn_states_fact", "turn_carries_fact")]


def late_world():
    """The dinner early in the story: later sessions follow."""
    return dinner_world(dt.date(2024, 3, 3))


def test_a_slip_put_right_in_a_later_session_is_evidence_only_where_it_is_put_right():
    from schemas.qa import QuestionSet
    from tasks.questions.base import QContext
    from tasks.verify import verify_persona

    world, fact = late_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0}, "corrected_later": 1.0}})
    corpus = make_corpus(config, persona, world)
    turns = {t.turn_id: t for t in corpus.turns}
    rows = [m for m in corpus.mentions if m.fact_id == fact.fact_id and m.mode == "corrected"]
    assert [m.counts for m in rows] == [False, True], rows
    slip, fixed = (turns[m.evidence_id] for m in rows)
    assert slip.session_id != fixed.session_id and (fixed.timestamp - slip.timestamp).days >= 3
    assert slip.kind == "initial" and fact.fact_id not in slip.fact_ids and not mentions(slip.text, "Luigi's")
    wrong = rows[0].span.split(" at ")[-1].rstrip(".").split(", at ")[-1]
    assert fact.fact_id in fixed.fact_ids and fixed.callback_of is None and fixed.bullet_id is None
    assert mentions(rows[1].span, "Luigi's") and mentions(rows[1].span, "mushroom risotto")
    assert mentions(fixed.text, wrong) and wrong != "Luigi's"  # what it was not
    (ref,) = fixed.time_refs  # when it was told, said on the day it is put right
    assert ref.date == local_date(persona, slip.timestamp) and mentions(fixed.text, ref.phrase)
    thread = [t for t in corpus.turns if t.session_id == slip.session_id and t.bullet_id == slip.bullet_id]
    assert len(thread) >= 2 and not any(mentions(t.text, "Luigi's") for t in thread)  # the topic goes on with the slip
    reply = next(t for t in corpus.turns if t.session_id == fixed.session_id and t.timestamp > fixed.timestamp)
    assert reply.role == "assistant" and mentions(reply.text, "Luigi's") and mentions(reply.text, wrong)
    found = verify_persona(persona, world, corpus, QuestionSet())
    assert not [f for f in found if f.check in ("mention_resolves", "initial_turn_states_fact", "turn_carries_fact",
                                                "relative_time_mismatch", "time_ref_in_text")], found
    ctx = QContext(config=config, persona=persona, world=world, corpus=corpus, asked_at=max(turns[t].timestamp
                   for t in turns) + dt.timedelta(days=1), day=config.end_date)
    cited = {r.item_id for r in ctx.evidence_for(fact.fact_id) if r.kind == "turn"}
    assert fixed.turn_id in cited and slip.turn_id not in cited
    assert not {r.item_id for r in ctx.evidence_for(fact.fact_id, fixed.timestamp) if r.kind == "turn"}


def test_with_no_later_share_or_no_later_session_a_slip_is_put_right_at_once():
    persona = make_persona()
    for share, (world, fact) in ((0.0, late_world()), (1.0, dinner_world())):  # dinner_world: the last day
        config = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0}, "corrected_later": share}})
        corpus = make_corpus(config, persona, world)
        rows = [m for m in corpus.mentions if m.fact_id == fact.fact_id and m.mode == "corrected"]
        assert len(rows) == 2 and rows[0].evidence_id == rows[1].evidence_id, rows
        assert not any(t.bullet_id is None and fact.fact_id in t.fact_ids for t in corpus.turns)


def test_the_correction_prompt_asks_a_real_model_for_the_clause_the_time_phrase_and_what_it_was_not():
    from tasks.dialogue.latefix import with_late_fixes
    from tasks.dialogue.stage import make_bullets, plan_topics
    from tasks.llm import prompts

    world, fact = late_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0}, "corrected_later": 1.0}})
    topics = with_late_fixes(config, persona, world, plan_topics(config, persona, world, [], make_bullets(
        config, persona, world, [])))
    (topic,) = [t for t in topics if t.fix is not None]
    assert [t.late for t in topics if t.late] == [(fact.fact_id,)] and topic.when.date == fact.valid_from
    fix = topic.fix.context()
    text = prompts.render("user_turn_correction", {
        "persona": {"name": persona.name, "first_name": "Maya", "occupation": "x", "city": "y"}, "date": "8 March",
        "part_of_day": "morning", "fix": fix, "history": [], "length": {"min_sentences": 1, "max_sentences": 3},
        "style": {"formality": 0.5, "verbosity": 0.5, "emoji": False, "vocabulary": []}})
    assert f'"{fix["phrase"]}"' in text and f'"{fix["when"]}"' in text and f'"{fix["clause"]}"' in text
    assert f'not "{fix["wrong"]}"' in text and "Luigi's" in fix["clause"]


def test_a_slip_whose_later_correction_was_dropped_is_put_right_in_its_own_message():
    from tasks.dialogue.bullets import make_bullets
    from tasks.dialogue.latefix import settled

    world, fact = late_world()
    persona = make_persona()
    config = make_config(stages={"dialogue": {"mention_modes": {"corrected": 1.0}, "corrected_later": 1.0}})
    corpus = make_corpus(config, persona, world)
    fix = next(t for t in corpus.turns if t.bullet_id is None and fact.fact_id in t.fact_ids)
    turns = [t for t in corpus.turns if t.session_id != fix.session_id]  # as if the correction's topic was dropped
    said = [m.model_dump(exclude={"mention_id", "persona_id", "evidence_kind"}) for m in corpus.mentions
            if m.evidence_kind == "turn" and m.evidence_id in {t.turn_id for t in turns}]
    fixed_turns, rows, notes = settled(config, persona, world, make_bullets(config, persona, world, []), turns, said)
    (slip,) = [m for m in rows if m["fact_id"] == fact.fact_id and m["mode"] == "corrected" and not m["counts"]]
    (put,) = [m for m in rows if m["fact_id"] == fact.fact_id and m["mode"] == "corrected" and m["counts"]]
    opening = next(t for t in fixed_turns if t.turn_id == slip["evidence_id"])
    assert put["evidence_id"] == opening.turn_id and fact.fact_id in opening.fact_ids and put["span"] in opening.text
    assert mentions(put["span"], "Luigi's") and [n["check"] for n in notes] == ["late_correction"]
    assert settled(config, persona, world, [], corpus.turns, [m.model_dump(exclude={
        "mention_id", "persona_id", "evidence_kind"}) for m in corpus.mentions if m.evidence_kind == "turn"])[2] == []
