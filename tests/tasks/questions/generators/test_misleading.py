"""Misleading generators on the hand-built premise world (tests/tasks/qgen_premise_world.py): requests are
asked while a constraint holds and after it was told; the reference names the conflict and an alternative;
later facts and constraints change nothing; an expired constraint yields nothing."""

from __future__ import annotations

import datetime as dt

import pytest

from tasks.common.facttext import mentions
from tasks.common.timeutil import human_date, local_date
from tasks.questions import GENERATORS
from tasks.questions.generators.kit import active_constraints
from tasks.questions.generators.misleading import (
    CONFLICT_REQUESTS,
    conflict_candidate,
    implicit_state_conflict,
    proactive_response,
    reminder_candidate,
)
from tests.tasks.qgen_premise_world import EVENTS, ME, PID, build_corpus, build_world, context, with_later
from tests.tasks.worldfixture import make_persona

KEYS = ("implicit_state_conflict", "proactive_response")
RUNNING = f"{PID}-c0002"
EXPIRED = f"{PID}-c0004"


@pytest.fixture(scope="module")
def ctx():
    return context()


def of(cands, constraint_id: str, template: str | None = None):
    return [c for c in cands if constraint_id in c.extra.get("constraint_ids", [])[:1]
            and (template is None or c.template == template)]


def day_of(ctx, cand) -> dt.date:
    return local_date(ctx.persona, cand.asked_at or ctx.asked_at)


def constraint(ctx, cid):
    return next(c for c in ctx.world.constraints if c.constraint_id == cid)


def test_generators_are_registered():
    for key in KEYS:
        assert GENERATORS[f"misleading.{key}"].__name__ == key


def test_running_request_during_injury_names_conflict_and_alternative(ctx):
    [cand] = of(implicit_state_conflict(ctx), RUNNING, "misleading.implicit_state_conflict.running")
    day = day_of(ctx, cand)
    assert dt.date(2024, 3, 11) <= day < dt.date(2024, 4, 14)  # after the injury was told, before the ban ends
    assert cand.question in [t.format(when=f"{w:%A}, {w:%B} {w.day}") for t in CONFLICT_REQUESTS["running"].texts
                             for w in [day + dt.timedelta(days=n) for n in range(8)]]
    assert cand.answer == 'Flag "no running until April 14, 2024" and suggest low-impact exercise instead'
    ref = cand.reference_answer
    assert "no running until April 14, 2024" in ref and "pulled hamstring" in ref and "run the Canal 5K" in ref
    assert "gentle walks" in ref  # a constraint-compliant alternative
    assert cand.checkpoint == "post_shock" and cand.answer_type == "long" and cand.rubric
    assert cand.extra["event_ids"][0] == f"{PID}-e0005" and cand.extra["blocked_tag"] == "running"
    assert {r.item_id for r in cand.evidence} == {"p0001-t0014", "p0001-t0015"}
    assert cand.distractors[0].startswith("Go ahead") and not any("April 14" in d for d in cand.distractors)


def test_every_item_is_asked_while_its_constraint_holds(ctx):
    for cand in implicit_state_conflict(ctx) + [c for c in proactive_response(ctx) if c.extra["constraint_ids"]]:
        day = day_of(ctx, cand)
        for cid in cand.extra["constraint_ids"]:
            c = constraint(ctx, cid)
            assert c.valid_from < day < c.valid_to
        assert any(r.fact_id for r in cand.evidence)
        for ref in cand.evidence:
            assert ctx.item(ref)[0] < (cand.asked_at or ctx.asked_at)


def test_constraint_active_at_default_time_is_asked_then(ctx):
    [cand] = of(implicit_state_conflict(ctx), f"{PID}-c0005", "misleading.implicit_state_conflict.travel")
    assert cand.asked_at is None  # the default question time, inside May 10 .. June 1
    assert "no travel or hard exercise until June 1, 2024" in cand.answer


def test_expired_constraint_yields_no_item(ctx):
    # c0004 (no dating, March 20..23) was only told on March 25: it never held at a time anyone knew of it
    assert not of(implicit_state_conflict(ctx), EXPIRED) and not of(proactive_response(ctx), EXPIRED)
    running = constraint(ctx, RUNNING)
    after = running.valid_to + dt.timedelta(days=3)
    assert running not in active_constraints(ctx, after)
    assert conflict_candidate(ctx, running, "running", after) is None
    assert reminder_candidate(ctx, running, after) is None
    inside = dt.date(2024, 3, 25)
    assert conflict_candidate(ctx, running, "running", inside) is not None


def test_secondary_request_needs_a_single_blocking_constraint(ctx):
    # on March 19 both the flu (travel ban) and the hamstring (running ban) forbid running
    flu = constraint(ctx, f"{PID}-c0003")
    day = dt.date(2024, 3, 19)
    assert conflict_candidate(ctx, flu, "running", day, priority=2) is None
    both = conflict_candidate(ctx, flu, "running", day, priority=0)
    assert '"no travel until March 20, 2024" and "no running until April 14, 2024"' in both.answer


def test_proactive_reminders(ctx):
    cands = proactive_response(ctx)
    [run] = of(cands, RUNNING)
    assert run.template == "misleading.proactive_response.running"
    assert run.question.startswith(("Can you put together a fitness routine", "What should my exercise plan"))
    # asked March 18, while the flu's travel ban (which also blocks running) holds too: both are raised
    assert run.answer == 'Help, reminding about "no running until April 14, 2024" and "no travel until March 20, 2024"'
    assert "pulled hamstring" in run.reference_answer and "bad flu" in run.reference_answer
    assert "until April 14, 2024" in run.reference_answer and run.checkpoint == "post_shock"
    assert not of(cands, f"{PID}-c0003", "misleading.proactive_response.running")  # the same reminder only once
    [move] = of(cands, f"{PID}-c0001")  # no big purchases after the move: a neutral purchase question
    assert move.template == "misleading.proactive_response.big_purchase" and "no big purchases" in move.answer
    home = next(c for c in cands if c.template.endswith("change_home"))
    assert home.answer == "Help, using the new address: the flat at 12 Oak Lane"
    assert "flat at 3 Pine Street" in home.reference_answer and home.checkpoint == "post_shock"
    assert dt.date(2024, 3, 7) <= day_of(ctx, home) < dt.date(2024, 4, 5)
    job = next(c for c in cands if c.template.endswith("change_employer"))
    assert job.answer == "Help, using the current employer: City Hospital" and "Brightwave Labs" in job.reference_answer
    pet = next(c for c in cands if c.template.endswith("change_pet"))
    assert "Biscuit" in pet.answer and pet.checkpoint is None  # adopting a pet is not a critical event


def test_no_answer_in_question(ctx):
    for key in KEYS:
        for cand in GENERATORS[f"misleading.{key}"](ctx):
            assert not mentions(cand.question, cand.answer), cand
            assert cand.category == "misleading" and cand.characteristic == key and cand.rubric


def test_later_facts_and_constraints_change_nothing(ctx):
    persona = make_persona()
    cands = {key: GENERATORS[f"misleading.{key}"](ctx) for key in KEYS}
    latest = max(day_of(ctx, c) for cs in cands.values() for c in cs)
    world, corpus = with_later(ctx.world, ctx.corpus, persona, latest + dt.timedelta(days=1))
    later = context(world=world, corpus=corpus)
    for key in KEYS:
        again = [c for c in GENERATORS[f"misleading.{key}"](later) if f"{PID}-c0099" not in c.extra["constraint_ids"]]
        assert again == cands[key], key


def test_constraint_ending_later_keeps_the_item(ctx):
    [before] = of(implicit_state_conflict(ctx), RUNNING, "misleading.implicit_state_conflict.running")
    longer = [c.model_copy(update={"valid_to": dt.date(2024, 4, 30)}) if c.constraint_id == RUNNING else c
              for c in ctx.world.constraints]
    facts = [f.model_copy(update={"valid_to": dt.date(2024, 4, 30)}) if f.attribute == "running_restriction" else f
             for f in ctx.world.facts]
    extended = context(world=ctx.world.model_copy(update={"constraints": longer, "facts": facts}))
    [after] = of(implicit_state_conflict(extended), RUNNING, "misleading.implicit_state_conflict.running")
    assert (after.question, after.answer, after.asked_at, after.evidence) == (
        before.question, before.answer, before.asked_at, before.evidence)


def test_deterministic():
    a, b = context(), context()
    for key in KEYS:
        assert GENERATORS[f"misleading.{key}"](a) == GENERATORS[f"misleading.{key}"](b)


# -- a restriction whose fact a newer fact of the same attribute closes early (review finding 7) -------------
BILL = f"{PID}-c0005"  # constraints are numbered in date order: the bill's comes before the knee's
EARLY_EVENTS = {**EVENTS, 13: (
    "03-22", "unexpected_bill", "negative", True, "pay an unexpected vet bill for Biscuit", {"bill": "vet bill"},
    [(ME, "expense", "vet bill for Biscuit", ["vet bill for Biscuit"])],
    ("spending_restriction", "no big purchases until April 2, 2024", "no big spending", ["big_purchase"], "04-02"),
    0)}


@pytest.fixture(scope="module")
def early():
    """The premise world plus e0013: a second spending restriction (03-22..04-02) whose fact closes c0001's
    spending_restriction fact on 03-22, while c0001 ("no big purchases until April 20") still holds."""
    world = build_world(EARLY_EVENTS)
    return context(world=world, corpus=build_corpus(make_persona(), world, EARLY_EVENTS))


def test_fixture_closes_the_first_restriction_fact_early(early):
    move, bill = constraint(early, f"{PID}-c0001"), constraint(early, BILL)
    assert bill.valid_from == dt.date(2024, 3, 22) and bill.valid_to == dt.date(2024, 4, 2)
    [fact] = [f for f in early.world.facts if f.value == move.description]
    assert fact.valid_to == dt.date(2024, 3, 22) < move.valid_to  # the fact ends, the constraint does not


def test_restriction_closed_early_by_a_newer_fact_still_holds(early):
    move = constraint(early, f"{PID}-c0001")
    day = dt.date(2024, 4, 10)  # after the newer restriction ended, before April 20
    assert move in active_constraints(early, day)
    cand = conflict_candidate(early, move, "big_purchase", day)
    assert cand is not None and '"no big purchases until April 20, 2024"' in cand.answer
    assert "after April 20, 2024" in cand.reference_answer
    assert reminder_candidate(early, move, day) is not None


def test_alternative_complies_with_every_active_restriction(early):
    # asked March 25: both the move's ban (to April 20) and the bill's ban (to April 2) forbid a big purchase
    bill, move = constraint(early, BILL), constraint(early, f"{PID}-c0001")
    day = dt.date(2024, 3, 25)
    for cand in (conflict_candidate(early, bill, "big_purchase", day), reminder_candidate(early, bill, day)):
        assert cand.extra["constraint_ids"] == [BILL, move.constraint_id]
        assert bill.description in cand.answer and move.description in cand.answer
        assert "until April 20, 2024" in cand.reference_answer or "after April 20, 2024" in cand.reference_answer
        assert "April 2, 2024" not in cand.reference_answer.split(")")[-1]  # the alternative waits for April 20
        for c in active_constraints(early, day):  # the rubric names every restriction active then
            assert c.description in cand.rubric, c.description
        assert "vet bill" in cand.rubric and "12 Oak Lane" in cand.rubric


def test_every_item_names_every_active_restriction(early):
    cands = implicit_state_conflict(early) + [c for c in proactive_response(early) if c.extra["constraint_ids"]]
    assert any(BILL in c.extra["constraint_ids"] for c in cands)
    for cand in cands:
        day = day_of(early, cand)
        active = active_constraints(early, day)
        for c in active:
            assert c.description in cand.rubric, (cand.template, day, c.description)
        tag = cand.extra.get("blocked_tag") or cand.template.rsplit(".", 1)[-1]
        blocking = [c for c in active if tag in c.blocks]
        assert {c.constraint_id for c in blocking} <= set(cand.extra["constraint_ids"]), (cand.template, day)
        last = max(c.valid_to for c in blocking) if blocking else None
        if last is not None and tag in ("big_purchase", "travel", "running", "moving"):
            assert human_date(last) in cand.reference_answer, (cand.template, day)
