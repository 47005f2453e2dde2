"""The question-generation framework with stub generators on hand-built worlds: registration, evidence,
leakage, checkpoints, selection and balance, multiple choice, rephrasing and question times."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from dataclasses import replace
from zoneinfo import ZoneInfo

import pytest

from schemas.corpus import Chunk, Corpus, Document, FactMention, Session, Turn
from schemas.qa import CHARACTERISTICS, MCQ_OPTIONS, RephrasedQuestion
from tasks.questions import mcq, scales
from tasks.questions.assemble import Report, build_questions, referents, rewording_ok
from tasks.questions.base import CATEGORY_OF, GENERATORS, Candidate, QContext, Ref, generator
from tasks.questions.checkpoints import (
    checkpoint_of,
    context_at,
    control_candidates,
    distraction_time,
    probe_days,
    world_until,
)
from tasks.questions.select import Prepared, category_cap, select
from tests.tasks.worldfixture import PID, day, make_config, make_persona, make_world

NY = ZoneInfo("America/New_York")
ASKED_AT = dt.datetime(2024, 3, 11, 9, tzinfo=NY)


def at(n: int, hour: int = 20, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day(n), dt.time(hour, minute), tzinfo=NY)


def hand_corpus(said: dict[int, tuple[str, list[str]]], days: range = range(1, 11)) -> Corpus:
    """One session a day at 20:00 with one user turn: `said[day]` = (text, fact ids), else small talk."""
    sessions, turns = [], []
    for n in days:
        sid = f"{PID}-s{n:04d}"
        sessions.append(Session(session_id=sid, persona_id=PID, started_at=at(n), category="information_sharing"))
        text, facts = said.get(n, ("Any tips for a rainy evening?", []))
        turns.append(Turn(turn_id=f"{sid}-t01", session_id=sid, persona_id=PID, timestamp=at(n, 20, 1), role="user",
                          text=text, fact_ids=facts))
    return Corpus(sessions=sessions, turns=turns)


CITY_TALK = {2: ("I live in Boston for now.", [f"{PID}-f0001"]),
             6: ("Moved! Cambridge is home now.", [f"{PID}-f0007"]),
             3: ("Biscuit the rescue dog is settling in.", [f"{PID}-f0005"]),
             9: ("Daniel moved to Austin.", [f"{PID}-f0009"])}


def city_question(ctx: QContext) -> list[Candidate]:
    """Stub: Maya's current city, computed at ctx.day."""
    now = ctx.current("Maya Okafor", "city", ctx.day)
    if now is None:
        return []
    stale = tuple(f.value for f in ctx.history("Maya Okafor", "city") if f.value != now.value)
    return [Candidate("fact", ("state_dependent_attribute",), "Which city does Maya live in now?", now.value,
                      f"Maya lives in {now.value}.", "fact.state_dependent_attribute.stub", "SELECT value ...",
                      (now.fact_id,), distractors=stale)]


@pytest.fixture(autouse=True)
def _no_grammar_check(monkeypatch):
    """The stubs' texts ("Which city, take 7?") test selection, not English: the grammar check is test_asking's."""
    monkeypatch.setattr("tasks.questions.forms._parses", lambda _sentence: None)


def config(**questions):
    """The framework's tests read the template texts: forms and indirect reference are tested in test_asking."""
    return make_config(stages={"questions": {"checkpoint_probes": 0, "zero_memory": 0, "forms": False,
                                             "indirect_share": 0, **questions}})


def run(gens, corpus=None, world=None, cfg=None, report=None, gateway=None):
    return build_questions(cfg or config(), make_persona(), world or make_world(),
                           corpus if corpus is not None else hand_corpus(CITY_TALK), gateway=gateway,
                           report=report, registry=gens)


# -- registration -----------------------------------------------------------------------------------
def test_the_registry_holds_the_27_characteristics_and_one_function_each():
    assert sum(len(v) for v in CHARACTERISTICS.values()) == 27
    with pytest.raises(ValueError, match="unknown characteristic"):
        generator("fact", "time_travel")
    key = "mixed.relative_positioning"
    known = GENERATORS.get(key)
    try:
        GENERATORS.pop(key, None)
        generator("mixed", "relative_positioning")(city_question)
        assert GENERATORS[key] is city_question
        generator("mixed", "relative_positioning")(city_question)  # the same function again is fine
        with pytest.raises(ValueError, match="already has a generator"):
            generator("mixed", "relative_positioning")(lambda ctx: [])
    finally:
        GENERATORS.pop(key, None)
        if known is not None:
            GENERATORS[key] = known


def test_every_characteristic_has_a_registered_generator():
    import tasks.questions  # noqa: F401  (imports every generator module)

    assert {f"{c}.{ch}" for c, chars in CHARACTERISTICS.items() for ch in chars} <= set(GENERATORS)


# -- evidence, leakage and the answer's time --------------------------------------------------------
def test_answer_and_evidence_are_computed_at_question_time():
    qset = run({"fact.state_dependent_attribute": city_question})
    [q] = qset.questions
    assert q.answer == "Cambridge" and q.question_time == ASKED_AT
    assert [(e.evidence_id, e.fact_id) for e in qset.evidence] == [(f"{PID}-s0006-t01", f"{PID}-f0007")]
    assert q.derivation["generator"] == "fact.state_dependent_attribute"
    assert q.derivation["computed_answer"] == "Cambridge" and q.derivation["fact_ids"] == [f"{PID}-f0007"]


# (a fact changed inside the simulation after question time, with the REAL generators:
# tests/tasks/questions/test_stage.py)


def test_a_probe_context_does_not_see_the_future():
    world = make_world()
    cut = world_until(world, day(4))
    assert {f.fact_id for f in cut.facts} == {f"{PID}-f000{n}" for n in (1, 2, 3, 4, 5, 6)}
    assert all(f.valid_to is None for f in cut.facts)  # Boston ends on day 6: still open on day 4
    ctx = context_at(config(), make_persona(), world, hand_corpus(CITY_TALK), day(4))
    assert ctx.asked_at == at(5, 9, 0) and ctx.config.end_date == day(4)
    assert [c.answer for c in city_question(ctx)] == ["Boston"]
    assert all(t.timestamp < ctx.asked_at for t in ctx.corpus.turns)


def test_probe_days_are_cut_before_quiet_days():
    world, corpus = make_world(), hand_corpus(CITY_TALK)
    cuts = probe_days(config(), make_persona(), world, corpus, 2)
    busy = {e.date for e in world.events} | {f.valid_from for f in world.facts} | {f.valid_to for f in world.facts}
    assert cuts and all(c + dt.timedelta(days=1) not in busy for c in cuts)


def test_leaking_candidates_are_dropped_unless_the_options_are_the_question():
    def leaky(ctx):
        base = city_question(ctx)[0]
        return [Candidate(**{**base.__dict__, "question": "Is Maya's city Cambridge or not?"}),
                Candidate(**{**base.__dict__, "question": "Does Maya live in Boston or in Cambridge?",
                             "extra": {"options_in_question": True}})]

    report = Report()
    qset = run({"fact.state_dependent_attribute": leaky}, report=report)
    assert report.dropped["leak"] >= 1 and report.candidates["fact.state_dependent_attribute"] == 2
    assert [q.question for q in qset.questions] == ["Do I live in Boston or in Cambridge?"]


def test_candidates_without_valid_evidence_are_dropped():
    def variants(ctx):
        base = city_question(ctx)[0].__dict__
        late = Ref("turn", f"{PID}-s0010-t01", None)
        return [
            Candidate(**{**base, "question": "A?", "fact_ids": (f"{PID}-f0004",)}),  # Denver: never said
            Candidate(**{**base, "question": "B?", "evidence": (Ref("turn", f"{PID}-s0002-t01", f"{PID}-f0007"),)}),
            Candidate(**{**base, "question": "C?", "evidence": (Ref("turn", "nope", None),)}),
            Candidate(**{**base, "question": "D?", "asked_at": at(10, 9), "evidence": (late,)}),
            Candidate(**{**base, "question": "E?", "evidence": (Ref("turn", f"{PID}-s0004-t01", None),)}),
        ]

    report = Report()
    qset = run({"fact.state_dependent_attribute": variants}, report=report)
    assert [q.question for q in qset.questions] == ["E?"]  # structural evidence needs no fact
    assert report.dropped["evidence"] == 4
    assert [e.fact_id for e in qset.evidence] == [None]


def test_all_instances_must_be_cited():
    facts = (f"{PID}-f0005", f"{PID}-f0007")

    def counting(ctx):
        ref = Ref("turn", f"{PID}-s0003-t01", f"{PID}-f0005")
        common = dict(category="aggregation", characteristics=("conditional_counting",), answer="2",
                      reference_answer="Two.", template="aggregation.conditional_counting.stub", query="q",
                      fact_ids=facts, all_instances=True)
        return [Candidate(question="How many things happened?", **common),
                Candidate(question="How many things happened, really?", evidence=(ref,), **common)]

    report = Report()
    qset = run({"aggregation.conditional_counting": counting}, report=report)
    assert [q.question for q in qset.questions] == ["How many things happened?"]
    assert report.dropped["incomplete"] == 1 and qset.questions[0].derivation["all_instances"] is True


def test_a_question_time_after_the_context_is_refused():
    def future(ctx):
        return [Candidate(**{**city_question(ctx)[0].__dict__, "asked_at": ASKED_AT + dt.timedelta(days=1)})]

    report = Report()
    assert run({"fact.state_dependent_attribute": future}, report=report).questions == []
    assert report.dropped["asked_after_context"] == 1


# -- checkpoints ------------------------------------------------------------------------------------
def ctx_for(world=None, corpus=None, **questions) -> QContext:
    return context_at(config(**questions), make_persona(), world or make_world(), corpus or hand_corpus(CITY_TALK))


def test_checkpoints_in_timeline_post_distraction_and_post_shock():
    ctx = ctx_for(distraction_sessions=3)
    cand = city_question(ctx)[0]
    refs = ctx.evidence_for(cand.fact_ids[0])
    # last evidence day 6; sessions on days 7, 8 (unrelated), 9 (Austin: unrelated), 10 -> 4 unrelated
    assert checkpoint_of(ctx, cand, refs, ASKED_AT) == "post_distraction"
    assert checkpoint_of(ctx_for(distraction_sessions=5), cand, refs, ASKED_AT) == "in_timeline"
    assert checkpoint_of(ctx, cand, refs, at(8, 9)) == "in_timeline"
    # the same move made by a critical event: a suspected shock (confirmed after selection, see below)
    ctx = ctx_for(shock_world(), distraction_sessions=3)
    assert checkpoint_of(ctx, cand, refs, ASKED_AT) == "post_shock"
    assert checkpoint_of(ctx, cand, refs, ASKED_AT, shock=False) == "post_distraction"


def shock_world():
    """The fixture world with the move to Cambridge (e0003, day 6) a critical event."""
    world = make_world()
    return world.model_copy(update={"events": [e.model_copy(update={"critical": True}) if e.event_id == f"{PID}-e0003"
                                               else e for e in world.events]})


def test_post_shock_only_when_the_answer_before_the_critical_event_differs():
    """The city changed because of the critical move: post_shock. A fabrication and a day count about
    the same facts, whose answers the move did not change (or that could not be asked before it): not."""

    def unchanged(ctx):
        out = []
        if ctx.current("Maya Okafor", "city", ctx.day) is not None:
            now = ctx.current("Maya Okafor", "city", ctx.day)
            out.append(Candidate("hallucination", ("fabrication",), "When did Maya adopt a parrot?",
                                 "There is no record of it", "No parrot.", "hallucination.fabrication.stub", "q",
                                 (now.fact_id,)))
        facts = [f for f in ctx.history("Maya Okafor", "city")]
        if len(facts) == 2:
            out.append(Candidate("mixed", ("relative_positioning",), "How many days passed between the two moves?",
                                 str((facts[1].valid_from - facts[0].valid_from).days), "Five.",
                                 "mixed.relative_positioning.stub", "q", tuple(f.fact_id for f in facts)))
        return out

    gens = {"fact.state_dependent_attribute": city_question, "hallucination.fabrication": unchanged}
    qset = run(gens, world=shock_world(), cfg=config(distraction_sessions=3))
    checkpoints = {q.question: q.checkpoint for q in qset.questions}
    assert checkpoints["Which city do I live in now?"] == "post_shock"
    assert checkpoints["When did I adopt a parrot?"] == "post_distraction"
    assert checkpoints["How many days passed between the two moves?"] == "post_distraction"
    assert set(checkpoints) == {"Which city do I live in now?", "When did I adopt a parrot?",
                                "How many days passed between the two moves?"}


def test_related_sessions_reset_the_distraction_block():
    talk = dict(CITY_TALK) | {9: ("Still loving Cambridge.", [f"{PID}-f0007"])}
    ctx = ctx_for(corpus=hand_corpus(talk), distraction_sessions=2)
    cand = city_question(ctx)[0]
    refs = [r for r in ctx.evidence_for(cand.fact_ids[0]) if r.item_id.startswith(f"{PID}-s0006")]
    assert checkpoint_of(ctx, cand, refs, ASKED_AT) == "in_timeline"  # only day 10 after day 9's mention
    assert distraction_time(ctx, cand.fact_ids, at(6, 21), 2) == at(9) - dt.timedelta(minutes=1)


def test_zero_memory_controls_need_no_evidence_and_state_what_they_ask():
    ctx = ctx_for()
    controls = control_candidates(ctx)
    assert controls and all(c.checkpoint == "zero_memory" and not c.fact_ids for c in controls)
    qset = run({}, cfg=config(zero_memory=2))
    assert len(qset.questions) == 2 and qset.evidence == []
    assert all(q.checkpoint == "zero_memory" for q in qset.questions)
    days = [c for c in controls if c.template == "control.days_between"]
    for c in days:
        a, b = (dt.date.fromisoformat(d) for d in c.extra["dates"])
        assert c.answer == str((b - a).days)
    for c in (c for c in controls if c.template == "control.count_in_month"):
        listed = c.extra["dates"]
        assert c.answer == str(sum(d.startswith(c.extra["month"]) for d in listed)) and ", ".join(listed) in c.question


# -- selection and balance --------------------------------------------------------------------------
def fake(category: str, characteristic: str, n: int, priority: int = 1, checkpoint: str = "in_timeline"):
    cand = Candidate(category, (characteristic,), f"{characteristic} question {n}?", f"answer {n}", "ref",
                     f"{category}.{characteristic}", "q", (), priority=priority)
    return Prepared(cand, f"{category}.{characteristic}", ASKED_AT, ASKED_AT, (Ref("turn", "t"),), checkpoint)


def opts(**kw):
    return config(**kw).stages.questions


def test_selection_meets_per_persona_floors_and_the_category_cap():
    pool = [fake(cat, ch, n) for cat, chars in CHARACTERISTICS.items() for ch in chars for n in range(20)]
    pool.append(fake("misleading", "proactive_response", 99))
    picked = select(opts(per_persona=140, characteristic_floor=3), pool, random.Random(1))
    assert len(picked) == 140
    per_category = Counter(p.category for p in picked)
    assert max(per_category.values()) <= 0.30 * 140 and set(per_category) == set(CHARACTERISTICS)
    per_char = Counter(p.characteristic for p in picked)
    assert min(per_char.values()) >= 3 and len(per_char) == 27


def test_a_rare_characteristic_gets_its_floor_and_a_dominant_category_is_capped():
    pool = [fake("fact", ch, n) for ch in CHARACTERISTICS["fact"] for n in range(100)]
    pool += [fake("temporal", "sequence_comprehension", n) for n in range(100)]
    pool += [fake("aggregation", "trend_analysis", n) for n in range(100)]
    pool += [fake("external", "table_reasoning", n) for n in range(100)]
    pool += [fake("mixed", "contextual_retrieval", 0)]
    picked = select(opts(per_persona=60, characteristic_floor=2), pool, random.Random(2))
    counts = Counter(p.category for p in picked)
    assert counts["mixed"] == 1 and max(counts.values()) <= category_cap(opts(), len(picked))
    assert len(picked) == 60


def test_zero_memory_controls_count_toward_no_cap_and_no_floor():
    pool = [fake("fact", "state_dependent_attribute", n) for n in range(30)]
    pool += [fake("temporal", "sequence_comprehension", n) for n in range(30)]
    pool += [fake("temporal", "implicit_temporal_lookup", 100 + n, checkpoint="zero_memory") for n in range(5)]
    picked = select(opts(per_persona=20, zero_memory=3), pool, random.Random(3))
    regular = [p for p in picked if p.checkpoint != "zero_memory"]
    assert sum(p.checkpoint == "zero_memory" for p in picked) == 3 and len(picked) == 19
    # 17 regular slots, 2 categories (share relaxed to 1/2): 8 each; the 3 temporal controls take no cap room
    assert Counter(p.category for p in regular) == {"fact": 8, "temporal": 8}


def test_coverage_counts_no_zero_memory_control():
    import duckdb

    from validation.coverage import floor_frame

    con = duckdb.connect()
    con.execute("create table questions (run_id varchar, category varchar, characteristics varchar[], "
                "checkpoint varchar)")
    con.execute("insert into questions values ('r', 'temporal', ['implicit_temporal_lookup'], 'zero_memory'), "
                "('r', 'temporal', ['sequence_comprehension'], 'in_timeline'), "
                "('r', 'fact', ['state_dependent_attribute'], 'post_shock')")
    chars = floor_frame("characteristic", {"implicit_temporal_lookup": 1, "sequence_comprehension": 1})(con, "r")
    assert dict(zip(chars["value"], chars["n"], strict=True)) == {"implicit_temporal_lookup": 0,
                                                                  "sequence_comprehension": 1}
    cats = floor_frame("category", {"temporal": 1, "fact": 1})(con, "r")
    assert dict(zip(cats["value"], cats["n"], strict=True)) == {"fact": 1, "temporal": 1}


def test_candidates_are_capped_per_characteristic_before_prepare_deterministically():
    from tasks.questions.assemble import CANDIDATES_PER_CHARACTERISTIC

    def many(ctx):
        base = city_question(ctx)[0].__dict__
        return [Candidate(**{**base, "question": f"Which city, take {n}?", "priority": n % 3}) for n in range(200)]

    report = Report()
    first = run({"fact.state_dependent_attribute": many}, report=report, cfg=config(per_persona=60))
    assert report.candidates["fact.state_dependent_attribute"] == 200
    assert report.dropped["capped"] == 200 - CANDIDATES_PER_CHARACTERISTIC
    assert len(first.questions) == CANDIDATES_PER_CHARACTERISTIC  # one category: the share relaxes to 1
    assert all(int(q.question.split()[-1][:-1]) % 3 == 0 for q in first.questions)  # priority 0 tried first
    again = run({"fact.state_dependent_attribute": many}, cfg=config(per_persona=60))
    assert [q.question for q in again.questions] == [q.question for q in first.questions]


def test_the_prepared_few_hold_every_template_and_answer():
    """40 of a generator's candidates are prepared: a priority-0 template with 100 "No" candidates must not take
    them all from a priority-1 template and from its own "Yes" ones."""
    from tasks.questions.assemble import spread

    def cand(template, n, answer, priority):
        return (None, Candidate("aggregation", ("absence_detection",), f"{template} {n}?", answer, "r", template,
                                "q", (), priority=priority))

    items = [cand("a", n, "No", 0) for n in range(100)] + [cand("a", 100 + n, "Yes", 0) for n in range(5)]
    items += [cand("b", n, "No", 1) for n in range(10)]
    first = [c for _, c in spread(items)[:6]]
    assert [c.template for c in first] == ["a", "b"] * 3
    assert [c.answer for c in first if c.template == "a"] == ["No", "Yes", "No"]
    assert sorted(id(x) for x in spread(items)) == sorted(id(x) for x in items)  # a reordering, nothing lost


def test_too_few_categories_relax_the_share_instead_of_emptying_the_set():
    pool = [fake("fact", "state_dependent_attribute", n) for n in range(30)]
    pool += [fake("temporal", "sequence_comprehension", n) for n in range(30)]
    picked = select(opts(per_persona=20), pool, random.Random(3))
    assert Counter(p.category for p in picked) == {"fact": 10, "temporal": 10}


def test_priority_first_then_checkpoints_interleaved_and_seeded():
    pool = [fake("fact", "state_dependent_attribute", n, priority=2) for n in range(10)]
    pool += [fake("fact", "state_dependent_attribute", 100 + n, priority=0, checkpoint="post_distraction")
             for n in range(4)]
    pool += [fake("fact", "state_dependent_attribute", 200, priority=0, checkpoint="post_shock")]
    pool += [fake(c, CHARACTERISTICS[c][0], n) for c in ("temporal", "aggregation", "external") for n in range(5)]
    picked = select(opts(per_persona=8, characteristic_floor=2), pool, random.Random(4))
    mine = [p for p in picked if p.category == "fact"]
    assert len(mine) == 2 and {p.checkpoint for p in mine} == {"post_shock", "post_distraction"}
    again = select(opts(per_persona=8, characteristic_floor=2), pool, random.Random(4))
    assert [p.candidate.question for p in again] == [p.candidate.question for p in picked]


def variant(characteristic: str, template: str, n: int, answer: str, priority: int = 1):
    category = CATEGORY_OF[characteristic]
    cand = Candidate(category, (characteristic,), f"{template} question {n}?", answer, "ref", template, "q", (),
                     priority=priority)
    return Prepared(cand, f"{category}.{characteristic}", ASKED_AT, ASKED_AT, (Ref("turn", "t"),), "in_timeline")


def astuple_rest(p: Prepared) -> tuple:
    return (p.generator, p.asked_at, p.context_time, p.refs, p.checkpoint)


def test_no_template_writes_more_than_its_share_while_others_can_fill():
    pool = [variant(ch, f"{cat}.{ch}.v{v}", n, f"a{n}") for cat, chars in CHARACTERISTICS.items() for ch in chars
            for v in range(3) for n in range(10)]
    picked = select(opts(per_persona=140, characteristic_floor=3, max_template_share=0.02), pool, random.Random(5))
    per_template = Counter(p.candidate.template for p in picked)
    assert len(picked) == 140 and max(per_template.values()) == 2  # floor(0.02 * 140)
    assert min(Counter(p.characteristic for p in picked).values()) >= 3


def test_the_template_cap_is_raised_only_when_the_candidates_cannot_fill_otherwise():
    pool = [variant("state_dependent_attribute", "fact.state_dependent_attribute", n, f"a{n}") for n in range(30)]
    pool += [variant("sequence_comprehension", "temporal.sequence_comprehension", n, f"a{n}") for n in range(30)]
    picked = select(opts(per_persona=20, max_template_share=0.02), pool, random.Random(3))
    assert Counter(p.candidate.template for p in picked) == {"fact.state_dependent_attribute": 10,
                                                            "temporal.sequence_comprehension": 10}


def test_a_template_asks_its_answers_evenly_not_by_how_many_candidates_carry_each():
    """90 candidates answer "No" and 10 "Yes": drawn by candidates, 9 personas in 10 would ask "No"."""
    from tasks.questions.select import rank

    pool = [variant("absence_detection", "aggregation.absence_detection.x", n, "No" if n < 90 else "Yes")
            for n in range(100)]
    firsts = [rank(pool, random.Random(seed))[0].candidate.answer for seed in range(400)]
    assert 0.4 <= firsts.count("Yes") / len(firsts) <= 0.6
    counts = [f"{n % 9}" for n in range(90)] + ["9"] * 10  # nine counts common, one rare: each asked as often
    pool = [variant("conditional_counting", "aggregation.conditional_counting.x", n, a) for n, a in enumerate(counts)]
    ordered = rank(pool, random.Random(1))
    assert sorted(p.candidate.answer for p in ordered[:10]) == [str(k) for k in range(10)]
    # an abstention item and its ten answerable twins (ten dates): declining and answering take turns
    pool = [variant("fabrication", "hallucination.fabrication.x", n, f"2024-03-{n + 1:02d}") for n in range(10)]
    trap = variant("fabrication", "hallucination.fabrication.x", 99, "There is no record of it")
    pool.append(Prepared(replace(trap.candidate, extra={"abstention": "never_said"}), *astuple_rest(trap)))
    tops = [[p.candidate.answer for p in rank(pool, random.Random(seed))[:2]] for seed in range(200)]
    assert all("There is no record of it" in top for top in tops)
    assert 0.35 <= sum(top[0] == "There is no record of it" for top in tops) / len(tops) <= 0.65
    # without a twin to take turns with, an abstention template is not asked: all its items would be declines
    alone = [Prepared(replace(trap.candidate, template="hallucination.fabrication.y", question=f"q{n}",
                              extra={"abstention": "never_said"}), *astuple_rest(trap)) for n in range(3)]
    assert [p.candidate.template for p in rank(pool + alone, random.Random(0))].count(
        "hallucination.fabrication.y") == 0
    # priority still comes first, and templates take turns within it
    pool = [variant("extreme_value", "aggregation.extreme_value.a", n, f"x{n}", priority=1) for n in range(5)]
    pool += [variant("extreme_value", "aggregation.extreme_value.b", n, f"y{n}", priority=1) for n in range(5)]
    pool += [variant("extreme_value", "aggregation.extreme_value.c", n, f"z{n}", priority=0) for n in range(2)]
    ordered = [p.candidate.template[-1] for p in rank(pool, random.Random(2))]
    assert ordered[:2] == ["c", "c"] and set(ordered[2:4]) == {"a", "b"} and set(ordered[4:6]) == {"a", "b"}



def test_strata_spread_a_template_s_answers_evenly_over_the_release():
    """Forty personas with the same four counts (2 to 5) and most candidates on "3": each persona selects alone,
    so drawn per persona the counts pile up by chance (one count starts 14 or more of the 40 for two seeds in
    five); from the personas' strata each count starts 9 to 11 of them. Where the personas' sets differ, every
    persona still starts from one of its own answers."""
    from tasks.questions.select import Strata, rank

    pool = [variant("conditional_counting", "aggregation.conditional_counting.x", k, str(3 if k < 9 else 2 + k % 4))
            for k in range(13)]
    firsts = [rank(pool, random.Random(n), Strata(7, f"p{n:04d}"))[0].candidate.answer for n in range(40)]
    assert sorted(Counter(firsts)) == ["2", "3", "4", "5"] and all(9 <= v <= 11 for v in Counter(firsts).values())
    own = [rank([variant("conditional_counting", "aggregation.conditional_counting.x", k, str(n % 5 + k % 4))
                 for k in range(8)], random.Random(n), Strata(7, f"p{n:04d}"))[0].candidate.answer for n in range(40)]
    assert all(n % 5 <= int(a) <= n % 5 + 3 for n, a in enumerate(own))
    # yes/no: personas alternate evenly, and a rebuild starts every persona where it did
    pool = [variant("absence_detection", "aggregation.absence_detection.x", n, "No" if n < 9 else "Yes")
            for n in range(10)]
    tops = [rank(pool, random.Random(n), Strata(7, f"p{n:04d}"))[0].candidate.answer for n in range(40)]
    assert 18 <= tops.count("Yes") <= 22
    assert tops == [rank(pool, random.Random(n + 99), Strata(7, f"p{n:04d}"))[0].candidate.answer for n in range(40)]


# -- multiple choice --------------------------------------------------------------------------------
def cities_world():
    """The fixture world with two more people's cities, so the city family holds five other values."""
    world = make_world()
    extra = [world.facts[3].model_copy(update={"fact_id": f"{PID}-f00{n}", "subject": who, "value": city,
                                               "surface_forms": [city]})
             for n, who, city in ((80, "Priya Shah", "Somerville"), (81, "Sam Lee", "Providence"))]
    return world.model_copy(update={"facts": world.facts + extra})


def test_mcq_items_have_six_distinct_options_and_the_gold_is_the_answer():
    qset = run({"fact.state_dependent_attribute": city_question}, world=cities_world(), cfg=config(mcq_share=1.0))
    [q] = qset.questions
    assert q.answer_type == "mcq" and len(q.options) == MCQ_OPTIONS
    assert q.options[q.gold_option] == q.answer == "Cambridge"
    assert "Boston" in q.options  # the stale value is the first distractor
    assert len({scales.normalize(o) for o in q.options}) == MCQ_OPTIONS


def test_mcq_shuffle_is_deterministic_for_a_seed():
    world = cities_world()
    first = run({"fact.state_dependent_attribute": city_question}, world=world, cfg=config(mcq_share=1.0)).questions[0]
    again = run({"fact.state_dependent_attribute": city_question}, world=world, cfg=config(mcq_share=1.0)).questions[0]
    assert (first.options, first.gold_option) == (again.options, again.gold_option) and first.options
    layouts = {tuple(run({"fact.state_dependent_attribute": city_question}, world=world,
                         cfg=config(mcq_share=1.0).model_copy(update={"seed": s})).questions[0].options)
               for s in range(6)}
    assert len(layouts) > 1


def test_items_without_five_plausible_distractors_stay_short():
    def yes(ctx):
        return [Candidate(**{**city_question(ctx)[0].__dict__, "answer": "yes", "distractors": ("no",)})]

    [q] = run({"fact.state_dependent_attribute": yes}, cfg=config(mcq_share=1.0)).questions
    assert q.answer_type == "short" and q.options == [] and q.gold_option is None


def test_gold_is_the_unique_longest_about_one_time_in_six_and_positions_are_uniform():
    rng, dealer = random.Random(7), mcq.Dealer(random.Random(8))
    words = ["Harbor", "Clay Studio", "Northside Food Bank", "Dog-Eared", "Maple Street Clinic", "Ann", "Riverside",
             "The Salt Road", "Brightwave Labs", "Oak", "Lakeside Community Garden", "Casa Verde"]
    longest, positions, n = 0, Counter(), 1200
    for i in range(n):
        gold = rng.choice(words)
        pool = rng.sample([w for w in words if w != gold], 8)
        picked = mcq.pick_distractors(gold, pool[:2], pool[2:], random.Random(i))
        options, g = mcq.options_for(gold, picked, dealer.next(), random.Random(-i))
        assert options[g] == gold and len(set(options)) == MCQ_OPTIONS
        longest += mcq.gold_longest(options, g)
        positions[g] += 1
    assert longest / n <= 1 / 6 + 0.03
    assert set(positions.values()) == {n // MCQ_OPTIONS}


def test_same_form_distractors():
    assert scales.form_of("2024-03-06") == "iso_date" and scales.form_of("March 6, 2024") == "human_date"
    assert scales.form_of("12") == "integer" and scales.form_of("$1,250") == "number"
    assert scales.form_of("Yes") == "yesno"
    assert scales.numeric_variants("$1,250")[:2] == ["$1,251", "$1,249"]
    assert all(v.endswith(" km") for v in scales.numeric_variants("12.5 km"))
    ctx = ctx_for()
    pool = mcq.Pool(ctx).same_form(city_question(ctx)[0], "2024-03-06")
    assert len(pool) >= 5 and all(scales.form_of(p) == "iso_date" for p in pool)
    assert mcq.usable("Boston", ["boston!", "Boston Harbor", "Denver", "denver"]) == ["Denver"]


# -- rephrasing -------------------------------------------------------------------------------------
class FakeGateway:
    def __init__(self, reword):
        self.reword, self.calls = reword, 0

    def generate_many(self, specs):
        self.calls += len(specs)
        return [RephrasedQuestion(question=self.reword(s.context["question"])) for s in specs]


def live_config():
    cfg = config()
    return cfg.model_copy(update={"provider": cfg.provider.model_copy(update={"name": "openai", "model": "m"})})


def asks_about_daniel(ctx):
    return [Candidate("fact", ("state_dependent_attribute",), "Which city did Daniel Okafor move to on March 9, 2024?",
                      "Austin", "Austin.", "fact.state_dependent_attribute.stub2", "q", (f"{PID}-f0009",))]


def test_rewording_is_kept_only_when_referents_stay_and_the_answer_stays_out():
    good = FakeGateway(lambda q: "Where did Daniel Okafor relocate to on March 9, 2024?")
    [q] = run({"fact.state_dependent_attribute": asks_about_daniel}, cfg=live_config(), gateway=good).questions
    assert q.question == "Where did Daniel Okafor relocate to on March 9, 2024?" and good.calls == 1
    assert q.derivation["template_question"] == "Which city did Daniel Okafor move to on March 9, 2024?"
    for bad in ("Where did Daniel move on March 9, 2024?", "Did Daniel Okafor move to Austin on March 9, 2024?",
                "Where did Daniel Okafor move in 2023?"):
        [q] = run({"fact.state_dependent_attribute": asks_about_daniel}, cfg=live_config(),
                  gateway=FakeGateway(lambda _q, b=bad: b)).questions
        assert q.question == "Which city did Daniel Okafor move to on March 9, 2024?"
        assert "template_question" not in q.derivation


def test_rewording_keeps_the_words_that_decide_the_answer_and_quoted_strings():
    """The reviewer's counterexamples: each changes the answer while keeping every referent."""
    cases = [
        ("What did Maya do in the week before Maya moved to Cambridge?",
         "What did Maya do in the week after Maya moved to Cambridge?"),
        ("Which café that Maya tried in March did Maya NOT like?",
         "Which café that Maya tried in March did Maya like?"),
        ('In the "Budget" table of the report "Household budget", which category has the lowest actual?',
         'In the "Budget" table of the report "Household budget", which category has the highest actual?'),
        ('In the "Budget" table of the report "Household budget", which category has the lowest actual?',
         'In the report "Household budget", which category has the lowest actual?'),
        ("Which café that Maya tried in March did Maya NOT like?",
         "Which café that Maya tried in March did Maya not like?"),
        ("How many times did Maya go out so far?", "How many times did Maya go out?"),
        ("Which did Maya do first: pottery or the move?", "Which did Maya do first or last: pottery or the move?"),
    ]
    for original, reworded in cases:
        assert not rewording_ok(original, reworded, "x", ["Maya"], False), reworded
    assert rewording_ok(cases[2][0], 'Which category has the lowest actual in the "Budget" table of the report '
                        '"Household budget"?', "x", [], False)
    assert rewording_ok("Which café did Maya not like?", "Which café didn't Maya like?", "x", ["Maya"], False)
    ctx = ctx_for()
    assert {"Budget", "Household budget"} <= set(referents(ctx, cases[2][0]))
    from tasks.questions.assemble import keeps_referents

    message = keeps_referents(RephrasedQuestion(question=cases[0][1]), {"keep": ["Maya"], "question": cases[0][0]})
    assert message and "before" in message
    assert keeps_referents(RephrasedQuestion(question="In the week before Maya moved to Cambridge, what did Maya "
                                                      "do?"), {"keep": ["Maya"], "question": cases[0][0]}) is None


def test_a_live_rewording_that_flips_a_deciding_word_is_not_used():
    def after(ctx):
        return [Candidate("fact", ("state_dependent_attribute",), "Which city did Daniel Okafor move to after "
                          "March 8, 2024?", "Austin", "Austin.", "fact.state_dependent_attribute.stub3", "q",
                          (f"{PID}-f0009",))]

    flip = FakeGateway(lambda q: q.replace("after", "before").replace("Which city", "What city"))
    [q] = run({"fact.state_dependent_attribute": after}, cfg=live_config(), gateway=flip).questions
    assert q.question == "Which city did Daniel Okafor move to after March 8, 2024?" and flip.calls == 1
    same = FakeGateway(lambda q: q.replace("Which city", "What city"))
    [q] = run({"fact.state_dependent_attribute": after}, cfg=live_config(), gateway=same).questions
    assert q.question == "What city did Daniel Okafor move to after March 8, 2024?"


def test_offline_never_calls_a_model():
    gateway = FakeGateway(lambda q: "Where?")
    run({"fact.state_dependent_attribute": asks_about_daniel}, gateway=gateway)
    assert gateway.calls == 0


def test_referents_name_people_dates_and_values():
    ctx = ctx_for()
    keep = referents(ctx, "Which city did Daniel Okafor move to on March 9, 2024?")
    assert {"Daniel Okafor", "March", "9", "2024"} <= set(keep)
    assert rewording_ok("A?", "B Daniel Okafor March 9 2024?", "Austin", keep, False)


def test_documents_and_chunks_can_be_evidence():
    doc = Document(doc_id=f"{PID}-d0001", persona_id=PID, created_at=at(7, 8), source_type="email", format="txt",
                   title="Moving day", body="We are in Cambridge now.", fact_ids=[f"{PID}-f0007"])
    chunk = Chunk(chunk_id=f"{PID}-d0001-c00", doc_id=doc.doc_id, persona_id=PID, created_at=doc.created_at,
                  ordinal=0, text=doc.body, n_tokens=6, fact_ids=[f"{PID}-f0007"])
    corpus = Corpus(documents=[doc], chunks=[chunk])
    qset = run({"fact.state_dependent_attribute": city_question}, corpus=corpus)
    assert [(e.evidence_kind, e.evidence_id) for e in qset.evidence] == [("chunk", chunk.chunk_id)]
    assert qset.questions[0].checkpoint == "in_timeline"


def test_a_fact_said_in_other_words_is_evidence_where_its_mention_was_recorded():
    """Day 6 says the move without the city's name; the realizer's recorded span makes that turn evidence (and the
    question keeps it), while an unrecorded or non-counting mention does not."""
    said = {**CITY_TALK, 6: ("Moved! We're over the river near the university now.", [f"{PID}-f0007"])}
    corpus = hand_corpus(said)
    turn = f"{PID}-s0006-t01"

    def mention(counts: bool, span: str = "over the river near the university") -> FactMention:
        return FactMention(mention_id=f"{turn}-m1", persona_id=PID, fact_id=f"{PID}-f0007", evidence_id=turn,
                           evidence_kind="turn", mode="paraphrased", span=span, counts=counts)

    assert ctx_for(corpus=corpus).evidence_for(f"{PID}-f0007") == []
    for unheard in (mention(False), mention(True, "on the far side of town")):
        assert ctx_for(corpus=corpus.model_copy(update={"mentions": [unheard]})).evidence_for(f"{PID}-f0007") == []
    recorded = corpus.model_copy(update={"mentions": [mention(True)]})
    assert ctx_for(corpus=recorded).evidence_for(f"{PID}-f0007") == [Ref("turn", turn, f"{PID}-f0007")]
    qset = run({"fact.state_dependent_attribute": city_question}, corpus=recorded)
    assert [(q.answer, [e.evidence_id for e in qset.evidence]) for q in qset.questions] == [("Cambridge", [turn])]
