"""The finance suite on a tiny clean run (four personas, one per investor type, sharing the hand-built world
of tests/tasks/domains/test_finance_questions.py, with impact rows written by layer 1 itself) and on a run with
planted defects, one per check."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa

from schemas.finance import InvestorProfile
from schemas.qa import CHECKPOINTS, FINPERMA_CHARACTERISTICS, Question
from schemas.tables import to_arrow
from tasks.domains.finance import catalog
from tasks.domains.finance import impact as im
from tasks.domains.finance.gates import audit_rows, release_stats, shock_frame, suites
from tests.tasks.domains.test_finance_questions import build_world, config, persona
from validation.gates import run_gates

TYPES = ("preserver", "follower", "independent", "accumulator")
CONFIG = config().model_copy(update={"pack": {"events_min": 4, "events_max": 8, "min_gap_days": 28}})
SHOCK = {"shock_event_id": "e0004", "shock_date": "2024-06-20"}
ASKED = dt.datetime(2024, 8, 1, 13, tzinfo=dt.UTC)


def investor(bit_type: str, anti: bool) -> InvestorProfile:
    return InvestorProfile(age=40, annual_income=80_000, wealth=150_000, experience_years=6, goals=["retirement"],
                           horizon_years=15, big_five=dict.fromkeys(("openness", "conscientiousness", "extraversion",
                                                                     "agreeableness", "neuroticism"), 0.5),
                           risk_score=0.6, bit_type=bit_type, anti_typical=anti, region="North America")


def layer1_rows(pid: str, profile: InvestorProfile, events: list) -> list:
    """The persona's impact rows as layer 1 builds them, each with the template narration (passes layer 3)."""
    rows, risk, history = [], 0.6, []
    for n, event in enumerate(e for e in events if im.is_impact_event(e)):
        cat = catalog.event(event.kind.split(":", 1)[1])
        row = im.build_constraint(persona_id=pid, number=n + 1, event_id=event.event_id, investor=profile, event=cat,
                                  date=event.date, risk_before=risk, history=list(history), memory_ref=None,
                                  shock_severity=4)
        rows.append(row.model_copy(update={"narrative": im.fallback_narrative(row, cat.title, ""), "attempts": 1}))
        risk, history = row.risk_after, history + [event]
    return rows


def question(pid: str, n: int, category: str, checkpoint: str, answer: str = "x", asked=ASKED, **derivation):
    ch = FINPERMA_CHARACTERISTICS[category][0]
    options = derivation.pop("options", [])
    return Question(question_id=f"{pid}-q{n:04d}", persona_id=pid, category=category, characteristics=[ch],
                    question_time=asked, question=f"Question {n}?", answer=answer, reference_answer=answer,
                    answer_type="mcq" if options else "short", options=options, gold_option=0 if options else None,
                    checkpoint=checkpoint, derivation={"template": f"finance.{ch}.stub", **derivation})


TITLES = ["a business failure", "an inheritance", "losing a job", "a divorce", "a pay cut", "retiring"]


def tables(pid: str, bit_type: str, n: int) -> dict[str, list]:
    """One persona's rows: the hand-built world renamed to `pid`, layer-1 impact rows, one question per
    grid cell, three post-shock items and an event-title MCQ."""
    world = build_world()
    swap = {"persona_id": pid}
    facts = [f.model_copy(update={**swap, "event_id": f.event_id.replace("p0001", pid),
                                  "fact_id": f.fact_id.replace("p0001", pid)}) for f in world.facts]
    events = [e.model_copy(update={**swap, "event_id": e.event_id.replace("p0001", pid)}) for e in world.events]
    profile = investor(bit_type, n == 0)
    p = persona().model_copy(update={"persona_id": pid, "attributes": profile.model_dump(mode="json")})
    qs = [question(pid, i, cat, k) for i, (cat, k) in
          enumerate(((c, k) for c in FINPERMA_CHARACTERISTICS for k in CHECKPOINTS if k != "post_shock"), 1)]
    shock = {**SHOCK, "shock_event_id": f"{pid}-e0004"}
    qs += [question(pid, 20, "preference_reasoning", "post_shock", "30% in stocks",
                    template="finance.current_risk_stance.allocation", answer_before_shock="50% in stocks", **shock),
           question(pid, 21, "memory_fidelity", "post_shock", "a business failure",
                    template="finance.event_recall.latest", answer_before_shock="an inheritance", **shock),
           question(pid, 22, "context_adaptation", "post_shock", "a cautious balanced fund tilted towards bonds",
                    template="finance.suitable_option.product",
                    answer_before_shock="a classic balanced fund split between stocks and bonds", **shock),
           question(pid, 23, "memory_fidelity", "in_timeline", "a business failure",
                    template="finance.event_recall.by_month", title_options=True, options=TITLES)]
    return {"personas": [p], "facts": facts, "events": events, "impact_constraints": layer1_rows(pid, profile, events),
            "questions": qs}


def connect(run: dict[str, list]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for table, rows in run.items():
        con.register(table, pa.concat_tables([to_arrow(table, rows, "r1")]))
    return con


def replace(rows: list, index: int, **update) -> None:
    rows[index] = rows[index].model_copy(update=update)


def run(types=TYPES, defects: bool = False) -> dict[str, list]:
    out: dict[str, list] = {}
    for n, bit in enumerate(types):
        for table, rows in tables(f"p{n + 1:04d}", bit, n).items():
            out.setdefault(table, []).extend(rows)
    if defects:
        rows, qs = out["impact_constraints"], out["questions"]
        replace(rows, 1, date=rows[0].date + dt.timedelta(days=10))  # two events 10 days apart
        replace(rows, 6, delta=rows[6].delta + 0.05)  # not what layer 1 gives
        q = next(q for q in qs if q.derivation["template"] == "finance.current_risk_stance.allocation")
        replace(qs, qs.index(q), answer="50% in stocks")  # a post-shock answer that did not change
        out["questions"] = [q for q in qs if not (q.persona_id == "p0003" and q.checkpoint == "post_shock")]
        t = next(i for i, q in enumerate(out["questions"]) if q.derivation.get("title_options"))
        replace(out["questions"], t, options=TITLES[:5] + ["the Fed's second 78-point hike"])
    return out


def test_finance_suite_passes_on_a_clean_run_and_catches_each_planted_defect():
    good = run_gates(connect(run()), "r1", suites=suites(CONFIG))
    assert good.success, good.summary()["failed_expectations"]
    bad = run_gates(connect(run(types=("preserver", "follower", "independent", "follower"), defects=True)), "r1",
                    suites=suites(CONFIG))
    assert sorted(bad.summary()["failed_expectations"]) == [
        "finance: finance.event spacing", "finance: finance.event-title options are catalog titles",
        "finance: finance.impact rows consistent", "finance: finance.investor type quota met",
        "finance: finance.post-shock answers changed", "finance: finance.post-shock items per shocked persona"]


def test_layer1_audit_names_each_kind_of_tampering():
    t = tables("p0001", "preserver", 1)
    attrs, facts, events, rows = t["personas"][0].attributes, t["facts"], t["events"], t["impact_constraints"]
    assert all(problem == "" for _, problem in audit_rows(attrs, facts, events, rows, 4))
    bad = list(rows)
    replace(bad, 0, forbidden_biases=["herding"])
    replace(bad, 1, narrative="I stayed calm and did nothing.")
    replace(bad, 2, memory_ref=events[-1].event_id)  # a later event
    problems = dict(audit_rows(attrs, facts, events, bad, 4))
    assert "forbidden_biases" in problems[bad[0].constraint_id]
    assert "fails layer 3" in problems[bad[1].constraint_id]
    assert "memory_ref" in problems[bad[2].constraint_id]
    assert problems[bad[3].constraint_id] == ""
    replace(bad, 1, confidence=0.2)  # a template fallback is not re-checked
    assert dict(audit_rows(attrs, facts, events, bad, 4))[bad[1].constraint_id] == ""


def test_post_shock_gate_reads_the_persona_local_day():
    t = tables("p0001", "preserver", 1)
    # 02:00 UTC on the shock's day is still the evening before in New York: the shock has not happened yet
    early = question("p0001", 30, "preference_reasoning", "post_shock", "30% in stocks",
                     asked=dt.datetime(2024, 6, 20, 2, tzinfo=dt.UTC),
                     template="finance.current_risk_stance.allocation", answer_before_shock="50% in stocks",
                     shock_event_id="p0001-e0004", shock_date="2024-06-20")
    next_day = dt.datetime(2024, 6, 21, 2, tzinfo=dt.UTC)
    late = early.model_copy(update={"question_id": "p0001-q0031", "question_time": next_day})
    frame = shock_frame(connect({**t, "questions": [early, late]}), "r1")
    assert dict(zip(frame["question_id"], frame["changed"], strict=True)) == {"p0001-q0030": False,
                                                                             "p0001-q0031": True}


def test_release_stats_counts_types_events_and_the_grid():
    stats = release_stats(connect(run()), "r1")
    assert stats["personas_per_type"] == dict.fromkeys(TYPES, 1) and stats["anti_typical"] == 1
    assert stats["events_per_persona"] == {"min": 4, "max": 4} and stats["impact_fallbacks"] == 0
    assert stats["questions_grid"]["preference_reasoning/post_shock"] == 4
