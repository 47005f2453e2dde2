"""FinPerMA generators, controls and the independent recomputation on a hand-built finance world.

Maya Okafor (tests/tasks/worldfixture.py's persona, made a preserver) over 2024-01-01 .. 2024-07-31:

  e0000 01-01 baseline: moderate, 60% in stocks, goal retirement, horizon 15 years
  e0001 01-31 market, negative, severity 3: the New York Community Bancorp plunge -> cut stocks to 55%
  e0002 03-05 personal, negative, severity 4 (shock): losing a job -> cut stocks to 40%,
              cautious, 40% in stocks
  e0003 04-10 personal, positive, severity 2: an inheritance -> raised stocks to 50%
  e0004 06-20 personal, negative, severity 5 (shock): a business failure -> cut stocks to 30%,
              very conservative, 30% in stocks
(real catalog events and titles; the reactions and impact rows are hand-written, not the Impact Model's)

Each fact is claimed by one user turn at 20:00 on its event's day; every other day has a small-talk
session at 12:00 (so later questions follow a block of unrelated sessions).
"""

from __future__ import annotations

import datetime as dt
import random
import re

from schemas.corpus import Corpus, Session, Turn
from schemas.finance import ImpactConstraint
from schemas.qa import FINPERMA_CHARACTERISTICS
from schemas.world import Event, Fact, World
from tasks.common.timeutil import local_date, local_datetime, question_time
from tasks.domains.finance import questions as fq
from tasks.domains.finance import questions_common as fq_common
from tasks.domains.finance.review import answer_as_of, recompute
from tasks.questions import mcq
from tasks.questions.assemble import CONTROL, build_questions, prepare
from tasks.questions.base import QContext
from tests.tasks.worldfixture import PID, make_config, make_persona

START, DAYS, ME = dt.date(2024, 1, 1), 213, "Maya Okafor"
# n: (date, kind, valence, severity, title, reaction, band or None, allocation or None, evolution, forbidden)
EVENTS = {
    1: ("01-31", "market:nycb_plunge_2024_01_31", "negative", 3, "the New York Community Bancorp plunge",
        "cut stocks from 60% to 55% and trimmed bank stocks", None,
        "55% in stocks", "cautious_drift", ["overconfidence", "herding"]),
    2: ("03-05", "personal:job_loss", "negative", 4, "losing a job",
        "cut stocks from 55% to 40% and moved money into bonds",
        "cautious", "40% in stocks", "shock_retreat", ["overconfidence", "recency_bias"]),
    3: ("04-10", "personal:inheritance", "positive", 2, "an inheritance",
        "raised stocks from 40% to 50% and invested part of the inheritance",
        None, "50% in stocks", "windfall_expansion", ["confirmation_bias", "panic_selling"]),
    4: ("06-20", "personal:business_failure", "negative", 5, "a business failure",
        "cut stocks from 50% to 30% and sold the riskiest funds",
        "very conservative", "30% in stocks", "shock_retreat", ["overconfidence", "herding", "anchoring"]),
}
BASELINE = [("risk_tolerance", "moderate"), ("stock_allocation", "60% in stocks"),
            ("investment_goal", "retirement"), ("investment_horizon", "15 years")]


def on(mmdd: str) -> dt.date:
    return dt.date.fromisoformat(f"2024-{mmdd}")


def config():
    return make_config(start_date=START, days=DAYS, domain="finance")


def persona():
    return make_persona().model_copy(update={"attributes": {"bit_type": "preserver", "anti_typical": False}})


def build_world() -> World:
    """The world of the module docstring, facts closed by their successors, one impact row per event."""
    events = [Event(event_id=f"{PID}-e0000", persona_id=PID, date=START, kind="baseline", valence="positive",
                    severity=1, critical=False, narrative="Initial state.")]
    facts: list[Fact] = []

    def add(eid: str, subject: str, attribute: str, value: str, day: dt.date) -> None:
        for i, old in enumerate(facts):
            if (old.subject, old.attribute) == (subject, attribute) and old.valid_to is None:
                facts[i] = old.model_copy(update={"valid_to": day})
        facts.append(Fact(fact_id=f"{PID}-f{len(facts) + 1:04d}", persona_id=PID, event_id=eid, subject=subject,
                          attribute=attribute, value=value, valid_from=day, surface_forms=[value]))

    for attribute, value in BASELINE:
        add(f"{PID}-e0000", ME, attribute, value, START)
    rows, risk = [], 0.6
    for n, (mmdd, kind, valence, severity, title, action, band, allocation, evo, forbidden) in EVENTS.items():
        eid, day = f"{PID}-e{n:04d}", on(mmdd)
        events.append(Event(event_id=eid, persona_id=PID, date=day, kind=kind, valence=valence, severity=severity,
                            critical=severity >= 4, narrative=f"{title}: {action}"))
        add(eid, title, "reaction", action, day)
        if band:
            add(eid, ME, "risk_tolerance", band, day)
        after = int(allocation.split("%")[0]) / 100
        add(eid, ME, "stock_allocation", allocation, day)
        rows.append(ImpactConstraint(
            constraint_id=f"{PID}-ic{n:04d}", persona_id=PID, event_id=eid, catalog_id=kind.split(":")[1], date=day,
            bit_type="preserver", anti_typical=False, severity=severity, shock=-0.5 if valence == "negative" else 0.4,
            big_five_multiplier=1.0, experience_factor=1.0, memory_ref=None, risk_before=risk,
            direction="decrease" if after < risk else "increase", delta=abs(after - risk), delta_min=0.0,
            delta_max=1.0, risk_after=after, evolution_type=evo, forbidden_biases=forbidden, action=action))
        risk = after
    return World(plans=[], events=events, facts=facts, profile_ops=[], profile_snapshots=[],
                 extras={"impact_constraints": rows})


def build_corpus(world: World) -> Corpus:
    """A claiming turn per fact on its day at 20:00; small talk at 12:00 on every other day."""
    p, told = persona(), {}
    dates = {e.event_id: e.date for e in world.events}
    for f in world.facts:
        told.setdefault(dates[f.event_id], []).append(f)
    sessions, turns = [], []
    for i in range(DAYS):
        day = START + dt.timedelta(days=i)
        for hour, facts in ((12, []), (20, told.get(day, []))):
            if hour == 12 and i % 2:
                continue
            if hour == 20 and not facts:
                continue
            sid = f"{PID}-s{len(sessions) + 1:04d}"
            sessions.append(Session(session_id=sid, persona_id=PID, started_at=local_datetime(p, day, hour),
                                    category="information_sharing"))
            text = " ".join(f"About {f.subject}: {f.value}." for f in facts) or "Any idea for a rainy evening?"
            turns.append(Turn(turn_id=f"{sid}-t01", session_id=sid, persona_id=PID,
                              timestamp=local_datetime(p, day, hour, 1), role="user", text=text,
                              fact_ids=[f.fact_id for f in facts]))
    return Corpus(sessions=sessions, turns=turns)


def context() -> QContext:
    cfg, p = config(), persona()
    world = build_world()
    asked_at = question_time(cfg, p)
    return QContext(cfg, p, world, build_corpus(world), asked_at, local_date(p, asked_at))


def main(cands, variant):
    """The candidates of `variant` asked at the context's own time."""
    return [c for c in cands if c.template.endswith("." + variant) and c.asked_at is None]


def test_memory_fidelity_generators_answer_from_the_facts():
    ctx = context()
    by_reaction = {c.question: c for c in fq.event_recall(ctx) if c.template.endswith("by_reaction")}
    crash = by_reaction["Which event led Maya to cut stocks from 55% to 40%?"]
    assert crash.answer == "losing a job" and "a business failure" in crash.distractors
    assert set(crash.distractors) <= set(fq.catalog_titles()) and crash.extra["title_options"]
    assert main(fq.event_recall(ctx), "latest")[0].answer == "a business failure"
    actions = {c.question: c.answer for c in fq.reaction_recall(ctx)}
    assert actions["How did Maya respond to an inheritance?"] == \
        "raised stocks from 40% to 50% and invested part of the inheritance"
    prefs = fq.stated_preference_recall(ctx)
    assert main(prefs, "goal")[0].answer == "retirement"
    before = [c for c in prefs if c.template.endswith("allocation_before") and "losing a job" in c.question]
    assert before[0].answer == "55% in stocks" and len(before[0].distractors) >= 5


def test_preference_reasoning_generators_follow_the_allocation_history():
    ctx = context()
    stance = main(fq.current_risk_stance(ctx), "allocation")[0]
    assert stance.answer == "30% in stocks"
    assert stance.extra["answer_before_shock"] == "50% in stocks" and stance.extra["shock_event_id"] == f"{PID}-e0004"
    assert main(fq.current_risk_stance(ctx), "band")[0].answer == "very conservative"
    shifts = {c.question: c.answer for c in fq.shift_direction(ctx) if c.template.endswith(".event")}
    assert shifts["How did an inheritance change Maya's appetite for stocks?"] == \
        "raised stocks from 40% to 50%"
    assert main(fq.shift_direction(ctx), "net")[0].answer == "cut stocks from 60% to 30%"
    causes = {c.template: c.answer for c in fq.shift_cause(ctx) if c.asked_at is None}
    assert causes == {"finance.shift_cause.largest_cut": "a business failure",
                      "finance.shift_cause.largest_raise": "an inheritance"}


def test_the_stance_since_each_event_is_asked_only_while_that_event_is_the_latest():
    ctx = context()
    since = {c.question: c for c in fq.current_risk_stance(ctx) if ".since_" in c.template}
    held = {"the New York Community Bancorp plunge": "55% in stocks", "losing a job": "40% in stocks",
            "an inheritance": "50% in stocks", "a business failure": "30% in stocks"}
    for title, value in held.items():
        c = since[f"Since {title}, how much of Maya's portfolio has been in stocks?"]
        assert c.answer == value and c.extra["attribute"] == "stock_allocation" and len(c.distractors) >= 5
        day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
        dates = {e[4]: on(e[0]) for e in EVENTS.values()}
        later = [d for d in dates.values() if d > dates[title]]
        assert not later or day < min(later), title  # still the latest event when asked
        assert fq.value_on(ctx, "stock_allocation", day) == value
    # the band changed at losing a job (cautious) and a business failure (very conservative); the inheritance left
    # it alone, so nothing is asked as holding since the inheritance
    bands = {q.split(",")[0]: c.answer for q, c in since.items() if c.template.endswith("since_band")}
    assert bands == {"Since losing a job": "cautious", "Since a business failure": "very conservative"}
    shocked = since["Since a business failure, how much of Maya's portfolio has been in stocks?"]
    assert shocked.extra["shock_event_id"] == f"{PID}-e0004" and shocked.extra["answer_before_shock"] == "50% in stocks"
    for c in since.values():  # the review recomputes each from the facts of its question day
        day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
        assert answer_as_of(c.template, c.extra, ME, {}, ctx.world.facts, ctx.world.events, [], day) == c.answer


def test_the_event_before_and_after_each_event_is_asked_with_title_options():
    ctx = context()
    found = {c.question: c for c in fq.event_recall(ctx) if c.template.endswith((".next", ".previous"))}
    after = "After {}, what was the next market or life event Maya reacted to with a portfolio decision?"
    before = "Before {}, what was the last market or life event Maya reacted to with a portfolio decision?"
    assert found[after.format("losing a job")].answer == "an inheritance"
    assert found[before.format("losing a job")].answer == "the New York Community Bancorp plunge"
    assert found[before.format("a business failure")].answer == "an inheritance"
    assert after.format("a business failure") not in found and before.format(
        "the New York Community Bancorp plunge") not in found  # nothing after the last, before the first
    assert len(found) == 6
    for c in found.values():
        assert c.answer not in c.distractors and set(c.distractors) <= set(fq.catalog_titles())
        day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
        assert day >= max(ctx.world.events[int(e[-4:])].date for e in c.extra["event_ids"])  # both were told
        assert answer_as_of(c.template, c.extra, ME, {}, ctx.world.facts, ctx.world.events, [], day) == c.answer


def test_the_first_event_that_moved_the_allocation_and_the_first_that_left_it_alone():
    ctx = context()
    moved = [c for c in fq.shift_cause(ctx) if c.template.endswith(".first_move")]
    assert [c.answer for c in moved] == ["the New York Community Bancorp plunge"]  # every event of Maya's moved it
    assert not [c for c in fq.shift_direction(ctx) if c.template.endswith(".first_hold")]  # none left it alone
    held = fq.first_of(hold_world_context(), moved=False)
    assert [c.answer for c in held] == ["an inheritance"]
    assert held[0].question == "Which was the first event that left Maya's stock allocation where it was?"
    for c in moved + held:
        day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
        world = hold_world_context().world if c in held else ctx.world
        assert answer_as_of(c.template, c.extra, ME, {}, world.facts, world.events, [], day) == c.answer


def hold_world_context() -> QContext:
    """The module's world where the inheritance left the allocation at 40% (its own facts otherwise)."""
    ctx = context()
    facts = [f for f in ctx.world.facts if not (f.attribute == "stock_allocation" and f.value == "50% in stocks")]
    facts = [f.model_copy(update={"valid_to": on("06-20")}) if f.value == "40% in stocks" else f for f in facts]
    kept = {"value": "kept stocks at 40%"}
    facts = [f.model_copy(update=kept) if f.subject == "an inheritance" else f for f in facts]
    world = ctx.world.model_copy(update={"facts": facts})
    return QContext(ctx.config, ctx.persona, world, build_corpus(world), ctx.asked_at, ctx.day)


def test_the_event_that_first_set_a_stance_is_asked_only_for_values_held_once():
    ctx = context()
    causes = {c.question: c.answer for c in fq.shift_cause(ctx) if c.template.endswith((".band_change", ".reached"))}
    assert causes == {
        "Which event left Maya with a cautious risk tolerance?": "losing a job",
        "Which event left Maya with a very conservative risk tolerance?": "a business failure",
        "Which event first put Maya at 55% in stocks?": "the New York Community Bancorp plunge",
        "Which event first put Maya at 40% in stocks?": "losing a job",
        "Which event first put Maya at 50% in stocks?": "an inheritance",
        "Which event first put Maya at 30% in stocks?": "a business failure",
    }  # the baseline's moderate and 60% were set by no event
    for c in fq.shift_cause(ctx):
        if c.template.endswith((".band_change", ".reached")):
            day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
            assert answer_as_of(c.template, c.extra, ME, {}, ctx.world.facts, ctx.world.events, [], day) == c.answer


def test_context_adaptation_generators_use_stance_and_constraint():
    ctx = context()
    product = main(fq.suitable_option(ctx), "product")[0]
    assert product.answer == fq.PRODUCTS[2] and product.extra["answer_before_shock"] == fq.PRODUCTS[3]
    advice = main(fq.suitable_option(ctx), "advice")[0]
    assert advice.answer_type == "long" and "a business failure" in advice.rubric and "anchoring" in advice.rubric
    plans = {c.question: c.answer for c in fq.constraint_compliance(ctx)}
    assert plans["Which plan would have matched Maya's reaction right after an inheritance?"] \
        == fq.PLANS["windfall_expansion"]
    guards = {c.question.split(" about ")[1].split(" avoid")[0]: c for c in fq.bias_guard(ctx)
              if c.template.endswith(".bias")}
    # the gold is the bias the move rules out, never the one only the hidden type forbids
    assert guards["losing a job"].answer == "overconfidence"
    assert guards["an inheritance"].answer == "panic selling"
    assert "confirmation bias" not in guards["an inheritance"].distractors
    assert all(g.answer not in g.distractors and len(g.distractors) >= 5 for g in guards.values())


def test_the_event_behind_a_plan_or_a_first_product_fit_is_asked_with_title_options():
    ctx = context()
    by_plan = {c.extra["evolution_type"]: c for c in fq.constraint_compliance(ctx) if c.template.endswith(".event")}
    # shock_retreat matched two events (losing a job, a business failure): no single answer, not asked
    assert set(by_plan) == {"cautious_drift", "windfall_expansion"}
    assert by_plan["windfall_expansion"].answer == "an inheritance"
    assert by_plan["windfall_expansion"].question == \
        f'For which event would it have suited Maya to {fq.PLANS["windfall_expansion"]}?'
    fits = {c.extra["product"]: c.answer for c in fq.suitable_option(ctx) if c.template.endswith(".first_fit")}
    # 60% (the start) fits a growth fund; 55% and 50% the classic balanced fund, 40% the cautious one, 30% too
    assert fits == {fq.PRODUCTS[3]: "the New York Community Bancorp plunge", fq.PRODUCTS[2]: "losing a job"}
    for c in [*by_plan.values(), *(c for c in fq.suitable_option(ctx) if c.template.endswith(".first_fit"))]:
        assert c.answer not in c.distractors and set(c.distractors) <= set(fq.catalog_titles())
        day = local_date(ctx.persona, c.asked_at) if c.asked_at else ctx.day
        rows = ctx.world.extras["impact_constraints"]
        assert answer_as_of(c.template, c.extra, ME, {}, ctx.world.facts, ctx.world.events, rows, day) == c.answer


def test_controls_state_everything_and_need_no_evidence():
    ctx = context()
    empty = QContext(ctx.config, ctx.persona, ctx.world, Corpus(), ctx.asked_at, ctx.day)
    found = fq.controls(empty)
    assert {c.category for c in found} == set(FINPERMA_CHARACTERISTICS)
    rule = [c for c in found if "New York Community Bancorp" in c.question][0]
    assert rule.answer == "cut risk sharply"  # a preserver after bad market news
    assert [c for c in found if "A business failure" in c.question][0].answer == "cut risk slightly"  # personal
    assert [c for c in found if c.extra.get("share") == 55][0].answer == fq.PRODUCTS[3]
    for c in found:
        p, why = prepare(empty, CONTROL, c)
        assert p is not None and p.checkpoint == "zero_memory" and not p.refs, why


def test_pipeline_fills_the_grid_and_review_agrees():
    cfg, p = config(), persona()
    cfg = cfg.model_copy(update={"stages": cfg.stages.model_copy(update={
        "questions": cfg.stages.questions.model_copy(update={"per_persona": 60, "distraction_sessions": 3})})})
    world = build_world()
    corpus = build_corpus(world)
    registry = {f"{cat}.{ch}": getattr(fq, ch) for cat, chars in FINPERMA_CHARACTERISTICS.items() for ch in chars}
    qs = build_questions(cfg, p, world, corpus, registry=registry).questions
    cells = {(q.category, q.checkpoint) for q in qs if q.derivation["template"].startswith("finance.")}
    assert {c for c, k in cells if k == "post_shock"} == set(FINPERMA_CHARACTERISTICS)
    assert {k for _, k in cells} >= {"in_timeline", "post_distraction", "post_shock"}
    shocked = [q for q in qs if q.checkpoint == "post_shock" and q.derivation["template"].startswith("finance.")]
    for q in shocked:  # each post-shock item had another answer the day before its recorded shock
        shock = dt.date.fromisoformat(q.derivation["shock_date"])
        before = answer_as_of(q.derivation["template"], q.derivation, p.name, p.attributes, world.facts,
                              world.events, world.extras["impact_constraints"], shock - dt.timedelta(days=1))
        assert before == q.derivation["answer_before_shock"] != q.answer
    titles = set(fq.catalog_titles())
    for q in qs:
        assert all(int(v) % 5 == 0 for o in q.options for v in re.findall(r"(\d+)%", o)), q.options
        if q.derivation.get("title_options"):
            assert set(q.options) <= titles
    assert any(q.options and q.derivation.get("title_options") for q in qs)
    checked = 0
    for q in qs:
        value = recompute(q, p, world, corpus)
        if value is not None:
            checked += 1
            assert value == q.answer, q.derivation["template"]
    assert checked >= len(qs) // 2


def test_options_come_only_from_the_candidates_closed_pools():
    ctx = context()
    titled = [t for t in fq.catalog_titles() if any(ch.isdigit() for ch in t)]
    gold, others = titled[0], [t for t in fq.catalog_titles() if t != titled[0]][:8]
    c = fq.cand("memory_fidelity", "event_recall", "stub", "Which event?", gold, gold, [], None, others)
    picked = mcq.pick_distractors(gold, list(c.distractors), mcq.Pool(ctx).same_form(c, gold), random.Random(3))
    assert picked is not None and set(picked) <= set(others)  # no title with a made-up number
    shifts = fq.shift_pool(55, 40)
    assert shifts[0] == "kept stocks at 40%" and {s.split()[0] for s in shifts[:3]} == {"kept", "cut", "raised"}
    assert all(s.endswith("to 40%") or s.startswith("kept") for s in shifts)
    assert all(int(v) % 5 == 0 for s in shifts for v in re.findall(r"(\d+)%", s))


def test_items_asked_by_month_or_move_do_not_name_their_answer():
    ctx = context()
    items = fq.lived(ctx, ctx.day)
    april = fq.other_titles(ctx, items, "an inheritance", "April 2024")
    assert "the 2024 bitcoin halving" not in april  # names a year, and happened that month
    assert "the US antitrust suit against Apple" in april and "an inheritance" not in april
    assert not any(fq_common.DATED.search(t) for t in april)
    for c in fq.event_recall(ctx):
        assert c.answer.lower() not in c.question.lower()
        if c.template.endswith("by_reaction"):
            assert " and " not in c.question.split(" to ", 1)[1]  # the move only, not the catalog response
