"""Per-turn dialogue checks: one failing and one passing case per check, scopes, and the verifier's use."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from schemas.audit import Finding
from schemas.corpus import Bullet, Corpus, Document, Session, TimeRef, Turn
from schemas.qa import QuestionSet
from schemas.world import Fact
from tasks.dialogue.verify import TurnScope, pasted, scopes_for, turn_problems
from tasks.verify import verify_persona
from tests.tasks.worldfixture import PID, make_persona, make_world

NY = ZoneInfo("America/New_York")
WORDS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
DOC = Document(
    doc_id=f"{PID}-d0001",
    persona_id=PID,
    created_at=dt.datetime(2024, 3, 2, 9, tzinfo=NY),
    source_type="email",
    format="txt",
    title="Adoption papers",
    body="Dear Maya, " + " ".join(WORDS) + ". Regards.",
)
FILLER_REPLY = " ".join(["word"] * 120)


def fid(n: int) -> str:
    return f"{PID}-f{n:04d}"


def day(n: int) -> dt.date:
    return dt.date(2024, 3, n)


def turn(text: str, role: str = "user", **update) -> Turn:
    data = {
        "turn_id": f"{PID}-s0001-t01",
        "session_id": f"{PID}-s0001",
        "persona_id": PID,
        "timestamp": dt.datetime(2024, 3, 7, 20, tzinfo=NY),
        "role": role,
        "text": text,
    }
    return Turn.model_validate(data | update)


@pytest.fixture(scope="module")
def facts() -> dict[str, Fact]:
    return {f.fact_id: f for f in make_world().facts}


def scope(facts, on: int = 7, **update) -> TurnScope:
    return TurnScope(persona=make_persona(), facts=facts, day=day(on), documents={DOC.doc_id: DOC}, **update)


def checks(t: Turn, s: TurnScope) -> set[str]:
    return {p.check for p in turn_problems(t, s)}


def test_a_claimed_fact_must_be_carried_by_a_surface_form_or_its_value(facts):
    assert "turn_carries_fact" in checks(turn("We adopted a cat.", fact_ids=[fid(5)]), scope(facts))
    assert checks(turn("We adopted Biscuit.", fact_ids=[fid(5)]), scope(facts)) == set()
    by_value = facts | {fid(5): facts[fid(5)].model_copy(update={"surface_forms": ["our rescue"]})}
    assert checks(turn("We adopted Biscuit.", fact_ids=[fid(5)]), scope(by_value)) == set()


def test_a_claimed_fact_must_hold_on_the_turn_s_day(facts):
    # Boston holds 03-01..03-06 (exclusive): stating it on 03-07, or on the day it was superseded, is stale
    assert "turn_fact_not_valid" in checks(turn("I live in Boston.", fact_ids=[fid(1)]), scope(facts, on=7))
    assert "turn_fact_not_valid" in checks(turn("I live in Boston.", fact_ids=[fid(1)]), scope(facts, on=6))
    assert checks(turn("I live in Boston.", fact_ids=[fid(1)]), scope(facts, on=3)) == set()


def test_a_turn_may_not_know_a_fact_before_it_is_true(facts):
    # Daniel moves to Austin on 03-09; Boston was true from the start, so naming it later is no foreknowledge
    assert "turn_anticipates_fact" in checks(turn("Daniel loves Austin."), scope(facts, on=7))
    assert "turn_anticipates_fact" in checks(turn("Biscuit says hi."), scope(facts, on=1))  # Maya's own fact
    assert checks(turn("Daniel loves Austin."), scope(facts, on=9)) == set()
    assert checks(turn("I miss Boston."), scope(facts, on=7)) == set()


def test_the_assistant_saying_back_what_it_heard_knows_no_future(facts):
    """'It sounds like your go-to café these days is Little Fig' said back to a user whose turn passed (the name
    is also a later fact's form): not the assistant's foreknowledge."""
    reply = turn("Daniel loves Austin, you said. " + FILLER_REPLY, role="assistant")
    assert "turn_anticipates_fact" in checks(reply, scope(facts, on=7, heard="I moved."))
    assert "turn_anticipates_fact" not in checks(reply, scope(facts, on=7, heard="Daniel loves Austin."))
    assert "turn_anticipates_fact" in checks(turn("Daniel loves Austin."), scope(facts, on=7,
                                                                                 heard="Daniel loves Austin."))


def test_only_a_specific_form_about_the_subject_counts_as_foreknowledge(facts):
    assert checks(turn("Austin is lovely."), scope(facts, on=7)) == set()  # not about Daniel
    assert checks(turn("I might adopt a rescue dog."), scope(facts, on=1)) == set()  # a secondary form
    assert checks(turn("I might take a pottery class."), scope(facts, on=1)) == set()


def test_recorded_time_refs_must_occur_and_agree(facts):
    yesterday = TimeRef(phrase="yesterday", date=day(6))
    assert checks(turn("Yesterday I moved.", time_refs=[yesterday]), scope(facts)) == set()
    wrong = TimeRef(phrase="three days ago", date=day(6))
    assert "relative_time_mismatch" in checks(turn("Three days ago I moved.", time_refs=[wrong]), scope(facts))
    assert "time_ref_in_text" in checks(turn("I moved.", time_refs=[yesterday]), scope(facts))


def test_unrecorded_time_phrases_must_fit_a_topic_date_or_the_day(facts):
    text = "Two weeks ago I started, and today I finished."
    assert checks(turn(text), scope(facts, on=20, topic_dates=(day(6),))) == set()
    assert "relative_time_mismatch" in checks(turn(text), scope(facts, on=20, topic_dates=(day(18),)))
    assert checks(turn("Today was calm."), scope(facts)) == set()


def test_the_assistant_states_only_what_it_was_told(facts):
    reply = turn("Biscuit sounds lovely. " + FILLER_REPLY, role="assistant")
    assert "assistant_reveals_untold" in checks(reply, scope(facts, heard="I adopted a dog."))
    assert checks(reply, scope(facts, heard="I adopted a dog named Biscuit!")) == set()
    assert "assistant_reveals_untold" not in checks(turn("Biscuit is mine."), scope(facts))  # users may say it


def test_a_rejected_reply_s_untold_forms_are_read_back_for_the_next_wording(facts):
    """The session passes them on as `avoid`: the next wording must not say them (session.py assistant_turn)."""
    from tasks.dialogue.verify import untold_forms
    reply = turn("Biscuit sounds lovely. " + FILLER_REPLY, role="assistant")
    problems = turn_problems(reply, scope(facts, heard="I adopted a dog."))
    assert untold_forms(problems) == ["biscuit"]
    assert untold_forms([p for p in problems if p.check != "assistant_reveals_untold"]) == []


def test_a_turn_talks_about_a_document_instead_of_pasting_it(facts):
    copied = turn("It says: " + " ".join(WORDS[:12]) + ".", doc_ids=[DOC.doc_id], kind="followup")
    short = turn("It says: " + " ".join(WORDS[:11]) + ".", doc_ids=[DOC.doc_id], kind="followup")
    assert "pastes_document" in checks(copied, scope(facts))
    assert checks(short, scope(facts)) == set()
    assert pasted("ONE, two; three four five six seven eight nine ten eleven twelve!", DOC.body)


def test_a_fact_s_surface_form_shared_with_the_document_is_not_pasting(facts):
    long_form = " ".join(WORDS[2:14])
    world = facts | {fid(5): facts[fid(5)].model_copy(update={"surface_forms": [long_form]})}
    said = turn(f"Dear Maya, {long_form}, it said.", doc_ids=[DOC.doc_id], kind="followup", fact_ids=[fid(5)])
    assert checks(said, scope(world)) == set()
    assert "pastes_document" in checks(said, scope(facts))


def test_an_opening_turn_that_shares_a_document_carries_its_upload_marker(facts):
    assert "upload_marker" in checks(turn("See the email.", doc_ids=[DOC.doc_id]), scope(facts))
    assert checks(turn(f"[Upload {DOC.doc_id}] See the email.", doc_ids=[DOC.doc_id]), scope(facts)) == set()
    assert checks(turn("And the email?", doc_ids=[DOC.doc_id], kind="followup"), scope(facts)) == set()


def test_assistant_length_follows_the_category_shape(facts):
    assert "assistant_length" in checks(turn("Sounds good.", role="assistant"), scope(facts))
    assert checks(turn(FILLER_REPLY, role="assistant"), scope(facts)) == set()
    long = " ".join(["word"] * 200)  # information sharing allows 100-210 words, small talk 60-180
    assert checks(turn(long, role="assistant"), scope(facts)) == set()
    assert "assistant_length" in checks(turn(long, role="assistant", kind="filler"), scope(facts))


def hand_corpus() -> Corpus:
    """One session on 03-07 (New York): opening turn with an upload and a callback, a reply, a follow-up
    after midnight UTC that is still 03-07 locally, and its reply."""
    sid = f"{PID}-s0001"
    bullet = Bullet(bullet_id=f"{PID}-b0001", persona_id=PID, date=day(6), event_id=f"{PID}-e0003",
                    category="attachment_consultation", text="Maya moved to Cambridge.", fact_ids=[fid(7)])
    start = dt.datetime(2024, 3, 7, 19, tzinfo=NY)
    callback = TimeRef(phrase="five days ago", date=day(2), event_id=f"{PID}-e0001")
    common = {"bullet_id": bullet.bullet_id, "category": "attachment_consultation"}
    reply = "Congratulations on Cambridge, and on Biscuit five days ago. " + " ".join(["fine"] * 170)
    turns = [
        turn(f"[Upload {DOC.doc_id}] I moved to Cambridge yesterday; five days ago I adopted Biscuit.",
             turn_id=f"{sid}-t01", timestamp=start, doc_ids=[DOC.doc_id], fact_ids=[fid(7)], time_refs=[callback],
             **common),
        turn(reply, "assistant", turn_id=f"{sid}-t02", timestamp=start + dt.timedelta(minutes=1), **common),
        turn("What about the pottery class?", turn_id=f"{sid}-t03", kind="followup",
             timestamp=dt.datetime(2024, 3, 8, 2, 30, tzinfo=dt.UTC), **common),
        turn(reply, "assistant", turn_id=f"{sid}-t04", kind="followup",
             timestamp=dt.datetime(2024, 3, 8, 2, 31, tzinfo=dt.UTC), **common),
    ]
    return Corpus(documents=[DOC], bullets=[bullet], turns=turns,
                  sessions=[Session(session_id=sid, persona_id=PID, started_at=start,
                                    category="attachment_consultation")])


def test_scopes_accumulate_what_was_heard_and_the_topic_s_dates():
    corpus = hand_corpus()
    scopes = scopes_for(make_persona(), make_world(), corpus)
    first, reply, follow, last = (scopes[t.turn_id] for t in corpus.turns)
    assert first.day == follow.day == day(7)  # 02:30 UTC is still the evening before in New York
    assert DOC.body in first.heard and "I moved to Cambridge" in reply.heard
    assert "pottery class" not in reply.heard and "pottery class" in last.heard
    assert first.topic_dates == (day(6), day(2)) == last.topic_dates
    assert all(turn_problems(t, scopes[t.turn_id]) == [] for t in corpus.turns)


def test_the_verifier_reports_turn_problems_and_the_stage_s_findings():
    corpus = hand_corpus()
    bad = corpus.turns[1].model_copy(update={"text": "Daniel in Austin! Sounds good."})
    stage = Finding(finding_id="x1", persona_id=PID, stage="dialogue", artifact_id=bad.turn_id,
                    check="relative_time_mismatch", severity="info", message="wording 1 of 3 rejected")
    corpus = corpus.model_copy(update={"turns": [corpus.turns[0], bad, *corpus.turns[2:]], "findings": [stage]})
    found = [f for f in verify_persona(make_persona(), make_world(), corpus, QuestionSet()) if f.stage != "loop"]
    severity = {(f.artifact_id, f.check): f.severity for f in found}
    assert severity[(bad.turn_id, "turn_anticipates_fact")] == "error"
    assert severity[(bad.turn_id, "assistant_reveals_untold")] == "error"
    assert severity[(bad.turn_id, "assistant_length")] == "warning"
    assert severity[(bad.turn_id, "relative_time_mismatch")] == "info"
    ids = [f.finding_id for f in verify_persona(make_persona(), make_world(), corpus, QuestionSet())]
    assert ids == [f"{PID}-v{n:04d}" for n in range(1, len(ids) + 1)]


def test_acronym_forms_match_only_in_capitals():
    from tasks.common.facttext import mentions

    it = Fact(fact_id=fid(90), persona_id=PID, event_id=f"{PID}-e0003", subject="Maya Okafor", attribute="field",
              value="IT", valid_from=day(20), surface_forms=["IT"])
    facts = {**{f.fact_id: f for f in make_world().facts}, it.fact_id: it}
    assert mentions("I work in IT now", "IT") and not mentions("I think it went well", "IT")
    said = turn("Honestly it went well, and I think it will keep going that way. " + FILLER_REPLY, role="assistant")
    assert checks(said, scope(facts)) == set()  # `it` is neither untold nor from the future
    leak = turn("So you work in IT now? " + FILLER_REPLY, role="assistant")
    assert {"assistant_reveals_untold", "turn_anticipates_fact"} & checks(leak, scope(facts))


def test_what_the_topic_s_own_event_names_is_not_anticipation(facts):
    later = Fact(fact_id=fid(91), persona_id=PID, event_id=f"{PID}-e0005", subject="Maya Okafor",
                 attribute="favourite_restaurant", value="Golden Dragon", valid_from=day(20),
                 surface_forms=["Golden Dragon"])
    facts = {**facts, later.fact_id: later}
    said = turn("Maya here: we tried the Golden Dragon tonight and it was shut.")
    assert "turn_anticipates_fact" in checks(said, scope(facts))
    assert "turn_anticipates_fact" not in checks(said, scope(facts, topic_text="try dinner at the Golden Dragon"))


def test_a_superseded_value_stated_as_current_contradicts_the_fact_store(facts):
    # Maya moved from Boston to Cambridge on 03-06
    assert "turn_states_stale_fact" in checks(turn("Honestly I still live in Boston, same as always."),
                                             scope(facts, on=7))
    assert "turn_states_stale_fact" not in checks(turn("Honestly I still live in Boston."), scope(facts, on=5))
    assert "turn_states_stale_fact" not in checks(turn("I used to live in Boston."), scope(facts, on=7))
    assert "turn_states_stale_fact" not in checks(turn("I live in Cambridge now, not Boston."), scope(facts, on=7))
    assert "turn_states_stale_fact" not in checks(turn("I miss Boston."), scope(facts, on=7))


def test_a_recorded_phrase_does_not_excuse_a_longer_wrong_one():
    on = day(7)
    recorded = [TimeRef(phrase="yesterday", date=day(6))]
    ok = turn("So yesterday I moved.", time_refs=recorded)
    wrong = turn("So yesterday I moved, and the day before yesterday too.", time_refs=recorded)
    facts = {f.fact_id: f for f in make_world().facts}
    assert "relative_time_mismatch" not in checks(ok, scope(facts, on=7, topic_dates=(day(6),)))
    assert "relative_time_mismatch" in checks(wrong, scope(facts, on=7, topic_dates=(day(6),)))
    # "today" names the present day: fine; "earlier this week" must name one of the topic's dates
    assert "relative_time_mismatch" not in checks(turn("Feeling good today."), scope(facts, topic_dates=(day(2),)))
    assert "relative_time_mismatch" in checks(turn("It happened earlier this week."),
                                              scope(facts, topic_dates=(day(2),)))
    del on


def test_an_adjective_ending_in_ed_is_no_past_tense():
    from tasks.dialogue.relativetime import find

    assert find("I am so excited about my pottery class on Monday.") == []
    assert find("I went to my pottery class on Monday.") == ["on Monday"]
