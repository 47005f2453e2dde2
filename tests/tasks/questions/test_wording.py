"""Questions name things in words (tasks/questions/wording.py, kit `asking` and `said`): never a raw attribute
name or a quoted slot value, and an event is asked as what happened, not as if it were state."""

from __future__ import annotations

import datetime as dt

from tasks.questions.assemble import prepare
from tasks.questions.base import Candidate
from tasks.questions.generators import kit, mixed
from tasks.questions.wording import raw_wording
from tests.tasks.qgen_docs_world import PID, make_context
from tests.tasks.worldfixture import fact


def test_raw_attribute_names_and_quoted_values_are_caught():
    ctx = make_context()
    assert raw_wording(ctx, "What is Maya's bill paid?") == "raw_attribute"
    assert raw_wording(ctx, "Under which heading is Ryan's turned away mentioned?") == "raw_attribute"
    assert raw_wording(ctx, "What is the value of home_city?") == "raw_attribute"
    assert raw_wording(ctx, 'When did Maya\'s city become "Cambridge"?') == "quoted_value"
    # a document's title is quoted rightly; an attribute named in words reads as English
    assert raw_wording(ctx, 'Which thread started with "Pottery?"?') is None
    assert raw_wording(ctx, "Which bill did Maya pay?") is None
    assert raw_wording(ctx, "What is Maya's usual grocery shop?") is None
    assert raw_wording(ctx, "Who got the bill paid in full?") is None  # `the bill paid in full`: a phrase, not a name


def test_prepare_drops_a_raw_question_with_its_reason():
    ctx = make_context()
    cand = Candidate("fact", ("state_dependent_attribute",), "What is Maya's lunch cancelled?", "lunch with Sam",
                     "Maya had to cancel lunch with Sam.", "fact.state_dependent_attribute.x", "SELECT 1",
                     (f"{PID}-f0001",))
    prepared, reason = prepare(ctx, "fact", cand)
    assert prepared is None and reason == "raw_attribute"
    worded = cand.__class__(**{**cand.__dict__, "question": "Which lunch did Maya have to cancel?"})
    assert prepare(ctx, "fact", worded)[1] != "raw_attribute"


def test_an_event_is_asked_by_its_question_and_told_by_its_frame():
    ctx = make_context()
    lunch = fact(40, 3, "Maya Okafor", "lunch_cancelled", "lunch with Sam Yoon", 2, ["Sam Yoon"])
    bill = fact(41, 3, "Maya Okafor", "bill_paid", "boiler repair paid in full", 2, ["boiler repair"])
    city = ctx.facts[f"{PID}-f0001"]
    assert kit.asking(ctx, lunch) == "which lunch did Maya have to cancel"
    assert kit.asking(ctx, bill) == "which bill did Maya pay"
    assert kit.asking(ctx, city) == "what is Maya's city"
    assert kit.attribute_of(ctx, lunch) == "Maya's cancelled lunch"
    assert kit.said(ctx, lunch) == "Maya had to cancel lunch with Sam Yoon"
    assert "now" not in kit.said(ctx, city).split() and "Boston" in kit.said(ctx, city)


def test_a_relation_that_ended_is_told_as_it_held_then():
    """`the day Maya first told you that ...` of a partner who is an ex by the question's day: `Sam Yoon was Maya's
    partner`, never `Maya gets on well with her partner Sam Yoon` (the sign-off refuses a relation word that does not
    hold on the question's day)."""
    ctx = make_context()
    ended = fact(60, 1, "Sam Yoon", "relationship", "partner", 1, ["partner"]).model_copy(
        update={"valid_to": ctx.day - dt.timedelta(days=3)})
    held = ended.model_copy(update={"valid_to": None})
    assert kit.said(ctx, ended) == "Sam Yoon was Maya's partner"
    assert kit.said(ctx, held) != kit.said(ctx, ended) and "was" not in kit.said(ctx, held).split()


def test_post_modification_never_treats_two_events_as_a_change():
    ctx = make_context()
    events = [fact(50 + n, n + 1, "Maya Okafor", "cafe_visit", v, n + 1, [v]) for n, v in
              enumerate(["a flat white at Bean There", "a mocha at Little Fig"])]
    world = ctx.world.model_copy(update={"facts": ctx.world.facts + events})
    odd = type(ctx)(ctx.config, ctx.persona, world, ctx.corpus, ctx.asked_at, ctx.day)
    assert not [c for c in mixed.post_modification_analysis(odd) if set(c.fact_ids) & {f.fact_id for f in events}]
