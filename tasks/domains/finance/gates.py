"""The finance pack's release gates and release figures.

Suite `finance`, frames computed in DuckDB over the run (validation/frames.py `query`):
- types: each of the four Behavioral Investor Types holds >= ceil(type_floor * personas) personas
  (`personas.attributes` is a JSON string);
- events: each persona lives through events_min..events_max catalog events (impact_constraints rows);
- spacing: a persona's consecutive catalog events are >= min_gap_days apart;
- post_shock: every finance post_shock question names a critical event by its question day (persona-local)
  and its answer recomputed from the facts valid the day before that event (tasks/domains/finance/review.py)
  differs from its answer (and equals the derivation's recorded `answer_before_shock`);
- shocked personas: every persona that lived through a shock (a critical catalog event) whose impact row
  moved its allocation has at least one finance post_shock question;
- grid: each FinPerMA category has questions at each of the four checkpoints, corpus-wide;
- titles: every option of an event-title item (derivation `title_options`) is a catalog title;
- fallbacks: the share of impact narrations written by the template fallback (confidence <= 0.2) <= 0.2;
- impact: a layer-1 audit: each impact row equals the constraint impact.build_constraint rebuilds from the
  catalog row, the persona's attributes, its earlier events and the earlier row's risk (the first row starts
  from the sampled risk score's allocation), its event is the catalog event it names, its memory_ref is an
  earlier event or a fact of the persona, and a narration that passed (confidence 1.0) still passes layer
  3 (impact.check_narration on the stored narrative, direction, delta and evolution type).
MCQ balance is gated corpus-wide by validation/leakage.py and distribution.py (FinPerMA items included).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pandas as pd
from pydantic import ValidationError

from schemas.config import BuildConfig
from schemas.finance import BIT_TYPES, CatalogEvent, FinanceOptions, ImpactConstraint, ImpactNarration, InvestorProfile
from schemas.qa import CHECKPOINTS, FINPERMA_CHARACTERISTICS
from schemas.world import Event, Fact
from tasks.domains.finance import catalog
from tasks.domains.finance import impact as im
from tasks.domains.finance.investors import allocation
from tasks.domains.finance.review import answer_as_of
from validation.frames import query
from validation.suites import Check, Suite, all_true, at_least, between

FALLBACK_CONFIDENCE = 0.2
MAX_FALLBACK_SHARE = 0.2
TOLERANCE = 1e-6

TYPES_SQL = """
select json_extract_string(attributes, '$.bit_type') as bit_type,
       coalesce(json_extract_string(attributes, '$.anti_typical'), 'false') = 'true' as anti_typical, persona_id
from {personas} where run_id = $run_id
"""
EVENTS_SQL = """
select p.persona_id, count(c.constraint_id) as n
from {personas} as p left join {impact_constraints} as c on c.persona_id = p.persona_id and c.run_id = $run_id
where p.run_id = $run_id group by 1 order by 1
"""
SPACING_SQL = """
select persona_id, event_id, date,
       date - lag(date) over (partition by persona_id order by date, event_id) as gap
from {impact_constraints} where run_id = $run_id
"""
IMPACT_SQL = """
select count(*) as n, count(*) filter (where confidence <= $fallback) as fallbacks
from {impact_constraints} where run_id = $run_id
"""
ROW_PERSONAS_SQL = """
select distinct persona_id from {impact_constraints} where run_id = $run_id order by 1
"""
SHOCKED_PERSONAS_SQL = """
with shocked as (
  select distinct c.persona_id from {impact_constraints} as c
  join {events} as e on e.event_id = c.event_id and e.persona_id = c.persona_id and e.run_id = $run_id
  where c.run_id = $run_id and e.critical and c.direction <> 'hold'
)
select s.persona_id, count(q.question_id) as n from shocked as s
left join {questions} as q on q.persona_id = s.persona_id and q.run_id = $run_id and q.checkpoint = 'post_shock'
  and json_extract_string(q.derivation, '$.template') like 'finance.%'
group by 1 order by 1
"""
TITLE_SQL = """
select question_id, options from {questions}
where run_id = $run_id and answer_type = 'mcq'
  and coalesce(try_cast(json_extract(derivation, '$.title_options') as boolean), false)
order by question_id
"""
LAYER1_FIELDS = tuple(f for f in ImpactConstraint.model_fields if f not in ("narrative", "attempts", "confidence"))
"""The fields layer 1 sets (layer 2 adds the narrative, attempts and confidence)."""
SHOCKED_SQL = """
select question_id, persona_id, question_time, answer, derivation from {questions}
where run_id = $run_id and checkpoint = 'post_shock' and json_extract_string(derivation, '$.template') like 'finance.%'
order by question_id
"""
GRID_SQL = """
select category, checkpoint, count(*) as n from {questions} where run_id = $run_id group by all
"""


def options(config: BuildConfig) -> FinanceOptions:
    """The finance pack's settings from the config's `[pack]` table."""
    return FinanceOptions.model_validate(config.pack)


def type_frame(floor_share: float):
    """A frame builder: one row per investor type: value, floor (ceil(share * personas)) and n."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        df = query(con, TYPES_SQL, run_id, "personas")
        floor = math.ceil(floor_share * len(df) - 1e-9)
        rows = [(t, floor, int((df["bit_type"] == t).sum())) for t in BIT_TYPES]
        return pd.DataFrame(rows, columns=["value", "floor", "n"]).astype({"floor": "int64", "n": "int64"})

    return build


def events_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per finance persona: n, its catalog events (impact rows)."""
    return query(con, EVENTS_SQL, run_id, "personas", "impact_constraints").astype({"n": "int64"})


def spacing_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per catalog event after a persona's first: gap (days since the previous one)."""
    df = query(con, SPACING_SQL, run_id, "impact_constraints")
    df = df[df["gap"].notna()].copy()
    df["gap"] = [g.days if hasattr(g, "days") else int(g) for g in df["gap"]]
    df["key"] = df["persona_id"] + "/" + df["event_id"]
    return df[["key", "gap"]].astype({"gap": "int64"}).reset_index(drop=True)


def impact_frame(shock_severity: int):
    """A frame builder: one row per impact row: consistent (the layer-1 audit finds no problem), problem."""

    def build(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
        out = []
        for (pid,) in query(con, ROW_PERSONAS_SQL, run_id, "impact_constraints").itertuples(index=False):
            _, attributes, facts, events, rows, _ = _world_rows(con, run_id, pid)
            out += audit_rows(attributes, facts, events, rows, shock_severity)
        df = pd.DataFrame(out, columns=["constraint_id", "problem"])
        df["consistent"] = df["problem"] == ""
        return df.astype({"consistent": "bool", "problem": "str"})

    return build


def audit_rows(attributes: dict[str, Any], facts: list[Fact], events: list[Event], rows: list[ImpactConstraint],
               shock_severity: int) -> list[tuple[str, str]]:
    """(constraint_id, problem or "") for each of one persona's impact rows, in date order: the row rebuilt
    by layer 1 from the catalog, the attributes, the earlier events and the earlier row must equal it."""
    try:
        investor: InvestorProfile | None = InvestorProfile.model_validate(attributes)
    except ValidationError:
        investor = None
    by_id, fact_ids = {e.event_id: e for e in events}, {f.fact_id for f in facts}
    out, previous = [], None
    for number, row in enumerate(sorted(rows, key=lambda r: (r.date, r.constraint_id)), 1):
        event = by_id.get(row.event_id)
        history = [e for e in events if im.is_impact_event(e) and (e.date, e.event_id) < (row.date, row.event_id)]
        risk = allocation(previous.risk_after if previous else investor.risk_score) / 100 if investor else 0.0
        problem = _audit(row, number, investor, event, history, risk, by_id, fact_ids, shock_severity)
        out.append((row.constraint_id, problem or ""))
        previous = row
    return out


def _audit(row: ImpactConstraint, number: int, investor: InvestorProfile | None, event: Event | None,
           history: list[Event], risk: float, by_id: dict[str, Event], fact_ids: set[str],
           shock_severity: int) -> str | None:
    """The first problem of one impact row (see audit_rows), or None."""
    if investor is None:
        return "the persona's attributes are not an investor profile"
    if event is None or not im.is_impact_event(event) or event.kind.split(":", 1)[1] != row.catalog_id:
        return f"event {row.event_id} is not the catalog event {row.catalog_id}"
    try:
        cat: CatalogEvent = catalog.event(row.catalog_id)
    except catalog.CatalogError:
        return f"unknown catalog event {row.catalog_id}"
    ref = by_id.get(row.memory_ref or "")
    if row.memory_ref is not None and row.memory_ref not in fact_ids and (ref is None or ref.date >= row.date):
        return f"memory_ref {row.memory_ref} is neither an earlier event nor a fact of the persona"
    rebuilt = im.build_constraint(persona_id=row.persona_id, number=number, event_id=row.event_id,
                                  investor=investor, event=cat, date=row.date, risk_before=risk, history=history,
                                  memory_ref=row.memory_ref, shock_severity=shock_severity)
    differ = [f for f in LAYER1_FIELDS if getattr(rebuilt, f) != getattr(row, f)]
    if differ:
        return "layer 1 rebuilds other " + ", ".join(f"{f} ({getattr(rebuilt, f)!r})" for f in differ)
    if row.confidence < 1.0:
        return None
    try:
        narration = ImpactNarration(narrative=row.narrative, risk_direction=row.direction, risk_change=row.delta,
                                    evolution_type=row.evolution_type, biases=[])
    except ValidationError:
        return "a narration that passed layer 3 is empty"
    problem = im.check_narration(narration, row)
    return f"the stored narration fails layer 3: {problem}" if problem else None


def fallback_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row: n impact rows, fallbacks (confidence <= 0.2) and their share (null when there is none)."""
    n, fallbacks = (int(v) for v in query(con, IMPACT_SQL, run_id, "impact_constraints",
                                          params={"fallback": FALLBACK_CONFIDENCE + TOLERANCE}).iloc[0])
    return pd.DataFrame([{"n": n, "fallbacks": fallbacks, "share": fallbacks / n if n else None}]).astype(
        {"share": "float64"})


def grid_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per FinPerMA category and checkpoint: value (`category/checkpoint`), floor 1, n."""
    counts = {(c, k): int(n) for c, k, n in query(con, GRID_SQL, run_id, "questions").itertuples(index=False)}
    rows = [(f"{c}/{k}", 1, counts.get((c, k), 0)) for c in FINPERMA_CHARACTERISTICS for k in CHECKPOINTS]
    return pd.DataFrame(rows, columns=["value", "floor", "n"]).astype({"floor": "int64", "n": "int64"})


def _world_rows(con: duckdb.DuckDBPyConnection, run_id: str, persona_id: str) -> tuple[Any, ...]:
    """(name, attributes, facts, events, impact rows, time zone) of one persona, rebuilt as models."""
    pid = {"pid": persona_id, "run_id": run_id}
    name, attrs, zone = con.execute(
        "select name, attributes, json_extract_string(profile, '$.identity.timezone') from personas "
        "where run_id = $run_id and persona_id = $pid", pid).fetchone() or ("", "{}", None)
    fact_cols = list(Fact.model_fields)
    facts = [Fact.model_validate(dict(zip(fact_cols, r, strict=True))) for r in con.execute(
        f"select {', '.join(fact_cols)} from facts where run_id = $run_id and persona_id = $pid", pid).fetchall()]
    event_cols = list(Event.model_fields)
    events = [Event.model_validate(dict(zip(event_cols, r, strict=True))) for r in con.execute(
        f"select {', '.join(event_cols)} from events where run_id = $run_id and persona_id = $pid", pid).fetchall()]
    row_cols = list(ImpactConstraint.model_fields)
    rows = [ImpactConstraint.model_validate(dict(zip(row_cols, r, strict=True))) for r in con.execute(
        f"select {', '.join(row_cols)} from impact_constraints where run_id = $run_id and persona_id = $pid",
        pid).fetchall()]
    attributes = json.loads(attrs) if isinstance(attrs, str) else dict(attrs or {})
    return name, attributes, facts, events, rows, ZoneInfo(zone or "UTC")


def local_day(stamp: Any, zone: ZoneInfo) -> dt.date:
    """The persona-local calendar day of a stored question time (a naive time is UTC)."""
    moment = pd.Timestamp(stamp).to_pydatetime()
    return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).astimezone(zone).date()


def shock_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per finance post_shock question: changed (a critical event by its persona-local question day
    whose eve, recomputed from the facts valid then, had another answer, the one the derivation recorded)."""
    df = query(con, SHOCKED_SQL, run_id, "questions")
    world: tuple[Any, ...] = ()
    current: Any = object()
    out = []
    for qid, pid, stamp, answer, derivation in df.itertuples(index=False):
        d = json.loads(derivation) if isinstance(derivation, str) else dict(derivation)
        if pid != current:  # ids lead with the persona: one persona's world held at a time
            world, current = _world_rows(con, run_id, pid), pid
        name, attributes, facts, events, rows, zone = world
        event = next((e for e in events if e.event_id == d.get("shock_event_id")), None)
        changed = False
        if event is not None and event.critical and event.date <= local_day(stamp, zone):
            eve = event.date - dt.timedelta(days=1)
            before = answer_as_of(str(d.get("template", "")), d, name, attributes, facts, events, rows, eve)
            changed = before is not None and before != answer and before == d.get("answer_before_shock")
        out.append((qid, changed))
    return pd.DataFrame(out, columns=["question_id", "changed"]).astype({"changed": "bool"})


def shocked_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per persona whose shock moved its allocation: n, its finance post_shock questions."""
    return query(con, SHOCKED_PERSONAS_SQL, run_id, "impact_constraints", "events", "questions").astype({"n": "int64"})


def title_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per event-title MCQ item: catalog (every option is a catalog title)."""
    df = query(con, TITLE_SQL, run_id, "questions")
    titles = {e.title for e in catalog.catalog().values()}
    df["catalog"] = [all(str(o) in titles for o in options) for options in df["options"]]
    return df[["question_id", "catalog"]].astype({"catalog": "bool"})


def suites(config: BuildConfig) -> list[Suite]:
    """The `finance` suite for `config`'s pack settings."""
    o = options(config)
    checks: tuple[Check, ...] = (
        at_least("finance.investor type quota met", "types", "value",
                 f"an investor type holds fewer than {o.type_floor:.0%} of the personas"),
        between("finance.events per persona", "events", "n", "persona_id",
                f"a persona lives through fewer than {o.events_min} or more than {o.events_max} catalog events",
                low=o.events_min, high=o.events_max),
        between("finance.event spacing", "spacing", "gap", "key",
                f"two of a persona's catalog events are fewer than {o.min_gap_days} days apart", low=o.min_gap_days),
        all_true("finance.post-shock answers changed", "post_shock", "changed", "question_id",
                 "a post_shock item's answer was the same the day before its shock"),
        at_least("finance.grid covered", "grid", "value", "a FinPerMA category has no items at a checkpoint"),
        between("finance.impact fallback share", "fallbacks", "share", None,
                f"more than {MAX_FALLBACK_SHARE:.0%} of impact narrations are template fallbacks",
                high=MAX_FALLBACK_SHARE + 1e-9),
        all_true("finance.impact rows consistent", "impact", "consistent", "constraint_id",
                 "an impact row differs from the constraint layer 1 rebuilds, or its passed narration fails layer 3"),
        between("finance.post-shock items per shocked persona", "shocked", "n", "persona_id",
                "a persona whose shock moved its allocation has no post_shock item", low=1),
        all_true("finance.event-title options are catalog titles", "titles", "catalog", "question_id",
                 "an event-title item offers an option that is not a catalog title"),
    )
    frames = {"types": type_frame(o.type_floor), "events": events_frame, "spacing": spacing_frame,
              "post_shock": shock_frame, "grid": grid_frame, "fallbacks": fallback_frame,
              "impact": impact_frame(o.shock_severity), "shocked": shocked_frame, "titles": title_frame}
    return [Suite(name="finance", frames=frames, checks=checks)]


def release_stats(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """Figures for the manifest: personas per type, anti-typical count, events per persona (min/max),
    impact fallbacks, questions per dimension x checkpoint."""
    types = query(con, TYPES_SQL, run_id, "personas")
    events = events_frame(con, run_id)
    fallbacks = fallback_frame(con, run_id).iloc[0]
    grid = query(con, GRID_SQL, run_id, "questions")
    grid = grid[grid["category"].isin(list(FINPERMA_CHARACTERISTICS))]
    return {
        "personas_per_type": {t: int((types["bit_type"] == t).sum()) for t in BIT_TYPES},
        "anti_typical": int(types["anti_typical"].sum()),
        "events_per_persona": {"min": int(events["n"].min()) if len(events) else 0,
                               "max": int(events["n"].max()) if len(events) else 0},
        "impact_fallbacks": int(fallbacks["fallbacks"]),
        "impact_rows": int(fallbacks["n"]),
        "questions_grid": {f"{c}/{k}": int(n) for c, k, n in sorted(grid.itertuples(index=False, name=None))},
    }
