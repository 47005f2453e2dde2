"""A hand-built world with critical events, constraints and preference ops, for the hallucination and
misleading generators.

Maya Okafor (America/New_York, tests/tasks/worldfixture.py's persona), 2024-03-01 .. 2024-05-14; questions
are asked 2024-05-15 09:00. Baseline: city Boston, employer Brightwave Labs, occupation product designer,
home flat at 3 Pine Street; brother Daniel Okafor, manager Daniel Reyes, friend Priya Shah, partner Sam Ortiz.

  e0001 03-02 adopt_pet +        rescue dog named Biscuit
  e0002 03-03 new_cafe +         Café Lumen (favourite cafe; op add traits.preferences.cafe)
  e0003 03-05 dinner_out +       Casa Lola with Priya Shah
  e0004 03-06 move_flat + CRIT   flat at 12 Oak Lane; c0001 "no big purchases until April 20, 2024" (03-06..04-20)
  e0005 03-10 run_race - CRIT    pulled hamstring; c0002 "no running until April 14, 2024" (03-10..04-14)
  e0006 03-12 new_cafe +         Blue Door Coffee (favourite cafe; op modify)
  e0007 03-14 visit_family - CRIT bad flu; c0003 "no travel until March 20, 2024" (03-14..03-20)
  e0008 03-16 move_flat -        failed move to 8 Birch Road
  e0009 03-20 relationship_talk - CRIT  Sam Ortiz ex-partner; c0004 "no dating until March 23, 2024"
                                 (03-20..03-23), told only on 03-25: it expired before anything mentioned it
  e0010 04-02 concert +          Kofi Blue at the Old Mill
  e0011 04-25 new_job + CRIT     nurse at City Hospital
  e0012 05-10 doctor_visit - CRIT torn meniscus; c0005 "no travel or hard exercise until June 1, 2024"
                                 (05-10..06-01, still active when the questions are asked)

Every fact has one user turn at 20:00 on its event's day (e0009: three days later) naming the event's plan
title and stating the fact with `clause`.
"""

from __future__ import annotations

import datetime as dt

from schemas.config import BuildConfig
from schemas.corpus import Corpus, Turn
from schemas.profile import Persona
from schemas.world import Constraint, Event, Fact, Plan, ProfileOp, World
from tasks.common.facttext import clause
from tasks.common.timeutil import local_date, local_datetime, question_time
from tasks.questions.base import QContext
from tasks.world.ontology import ATTRIBUTES
from tests.tasks.worldfixture import PID, make_config, make_persona

START = dt.date(2024, 3, 1)
DAYS = 75
ME = "Maya Okafor"

Draft = tuple[str, str, str, list[str]]
# n: (date, kind, valence, critical, title, entity, facts, constraint, lag_days)
EVENTS: dict[int, tuple] = {
    1: ("03-02", "adopt_pet", "positive", False, "adopt a rescue dog named Biscuit",
        {"pet_kind": "rescue dog", "pet_name": "Biscuit"},
        [(ME, "pet", "rescue dog named Biscuit", ["rescue dog named Biscuit", "Biscuit"])], None, 0),
    2: ("03-03", "new_cafe", "positive", False, "try Café Lumen on Elm Road",
        {"cafe": "Café Lumen", "street": "Elm Road"},
        [(ME, "favourite_cafe", "Café Lumen", ["Café Lumen"])], None, 0),
    3: ("03-05", "dinner_out", "positive", False, "have dinner at Casa Lola with Priya Shah",
        {"restaurant": "Casa Lola", "companion": "Priya Shah", "dish": "ramen"},
        [(ME, "dinner_out", "ramen at Casa Lola", ["ramen at Casa Lola", "Casa Lola"])], None, 0),
    4: ("03-06", "move_flat", "positive", True, "move into a flat at 12 Oak Lane", {"address": "12 Oak Lane"},
        [(ME, "home", "flat at 12 Oak Lane", ["flat at 12 Oak Lane", "12 Oak Lane"])],
        ("spending_restriction", "no big purchases until April 20, 2024", "no big purchases",
         ["big_purchase", "moving"], "04-20"), 0),
    5: ("03-10", "run_race", "negative", True, "run the Canal 5K",
        {"race": "Canal 5K", "minutes": "30", "injury": "pulled hamstring"},
        [(ME, "injury", "pulled hamstring", ["pulled hamstring"])],
        ("running_restriction", "no running until April 14, 2024", "no running", ["exertion", "running", "sport"],
         "04-14"), 0),
    6: ("03-12", "new_cafe", "positive", False, "try Blue Door Coffee on Mill Lane",
        {"cafe": "Blue Door Coffee", "street": "Mill Lane"},
        [(ME, "favourite_cafe", "Blue Door Coffee", ["Blue Door Coffee"])], None, 0),
    7: ("03-14", "visit_family", "negative", True, "visit Daniel Okafor for a birthday",
        {"relative": "Daniel Okafor", "topic": "a birthday", "news": "started night classes"},
        [(ME, "illness", "bad flu", ["bad flu"])],
        ("travel_restriction", "no travel until March 20, 2024", "no travel",
         ["exertion", "running", "sport", "travel"], "03-20"), 0),
    8: ("03-16", "move_flat", "negative", False, "move into a flat at 8 Birch Road", {"address": "8 Birch Road"},
        [(ME, "move_fell_through", "move to 8 Birch Road", ["move to 8 Birch Road", "8 Birch Road"])],
        None, 0),
    9: ("03-20", "relationship_talk", "negative", True, "have a serious talk with Sam Ortiz at the Roundhouse",
        {"partner": "Sam Ortiz", "place": "the Roundhouse"},
        [("Sam Ortiz", "relationship", "ex-partner", ["ex-partner", "Sam Ortiz"])],
        ("dating_pause", "no dating until March 23, 2024", "no dating", ["dating", "partner"], "03-23"), 5),
    10: ("04-02", "concert", "positive", False, "see Kofi Blue at the Old Mill",
         {"artist": "Kofi Blue", "venue": "the Old Mill"},
         [(ME, "concert", "Kofi Blue at the Old Mill", ["Kofi Blue at the Old Mill", "Kofi Blue"])], None, 0),
    11: ("04-25", "new_job", "positive", True, "start a new job as a nurse at City Hospital",
         {"role": "nurse", "company": "City Hospital"},
         [(ME, "employer", "City Hospital", ["City Hospital"]), (ME, "occupation", "nurse", ["nurse"])], None, 0),
    12: ("05-10", "doctor_visit", "negative", True, "see Dr. Ana Silva about a sore knee",
         {"doctor": "Dr. Ana Silva", "complaint": "a sore knee", "diagnosis": "torn meniscus in the right knee"},
         [(ME, "diagnosis", "torn meniscus in the right knee", ["torn meniscus in the right knee"])],
         ("travel_restriction", "no travel or hard exercise until June 1, 2024", "no travel",
          ["exertion", "running", "sport", "travel"], "06-01"), 0),
}

BASELINE: list[Draft] = [
    (ME, "city", "Boston", ["Boston"]),
    (ME, "employer", "Brightwave Labs", ["Brightwave Labs"]),
    (ME, "occupation", "product designer", ["product designer"]),
    (ME, "home", "flat at 3 Pine Street", ["flat at 3 Pine Street", "3 Pine Street"]),
    ("Daniel Okafor", "relationship", "brother", ["brother Daniel Okafor", "brother"]),
    ("Daniel Reyes", "relationship", "manager", ["manager Daniel Reyes", "manager"]),
    ("Priya Shah", "relationship", "friend", ["friend Priya Shah", "friend"]),
    ("Sam Ortiz", "relationship", "partner", ["partner Sam Ortiz"]),
]

CAFE_OPS = [("03-03", 2, "add", None, "Café Lumen"), ("03-12", 6, "modify", "Café Lumen", "Blue Door Coffee")]


def on(mmdd: str) -> dt.date:
    return dt.date.fromisoformat(f"2024-{mmdd}")


def config(days: int = DAYS) -> BuildConfig:
    return make_config(start_date=START, days=days)


def _close(facts: list[Fact], subject: str, attribute: str, day: dt.date) -> list[Fact]:
    return [f.model_copy(update={"valid_to": day}) if (f.subject, f.attribute) == (subject, attribute)
            and (f.valid_to is None or f.valid_to > day) else f for f in facts]


def build_world(events: dict | None = None) -> World:
    """The world of the module docstring (or of the given event table)."""
    events = EVENTS if events is None else events
    rows = [(0, START, "baseline", "positive", False, None, {}, BASELINE, None)]
    rows += [(n, on(d), kind, val, crit, title, ent, facts, cons)
             for n, (d, kind, val, crit, title, ent, facts, cons, _) in events.items()]
    rows.sort(key=lambda r: (r[1], r[0]))
    plans, evs, facts, constraints = [], [], [], []
    for n, day, kind, valence, critical, title, entity, drafts, cons in rows:
        eid = f"{PID}-e{n:04d}"
        if title:
            plans.append(Plan(plan_id=f"{PID}-pl{n:04d}", persona_id=PID, created_on=START, horizon="short",
                              scheduled_for=day, title=title, kind=kind, entity=entity))
        evs.append(Event(event_id=eid, persona_id=PID, date=day, plan_id=f"{PID}-pl{n:04d}" if title else None,
                         kind=kind, valence=valence, severity=4 if critical else 2, critical=critical,
                         narrative=title or "Initial state."))
        drafts = list(drafts)
        until = None
        if cons is not None:
            ckind, text, short, blocks, end = cons
            until = on(end)
            constraints.append(Constraint(constraint_id=f"{PID}-c{len(constraints) + 1:04d}", persona_id=PID,
                                          event_id=eid, kind=ckind, description=text, blocks=sorted(blocks),
                                          valid_from=day, valid_to=until))
            drafts.append((ME, ckind, text, [text, short]))
        for subject, attribute, value, forms in drafts:
            if not getattr(ATTRIBUTES.get(attribute), "event", False):  # state is superseded; events are not
                facts = _close(facts, subject, attribute, day)
            facts.append(Fact(fact_id=f"{PID}-f{len(facts) + 1:04d}", persona_id=PID, event_id=eid, subject=subject,
                              attribute=attribute, value=value, valid_from=day, surface_forms=forms,
                              valid_to=until if attribute == (cons[0] if cons else None) else None))
    ops = [ProfileOp(op_id=f"{PID}-o{i:04d}", persona_id=PID, date=on(d), event_id=f"{PID}-e{n:04d}",
                     phase="factual", op=op, path="traits.preferences.cafe", old_value=old, new_value=new)
           for i, (d, n, op, old, new) in enumerate(CAFE_OPS, start=1) if n in events]
    return World(plans=plans, events=evs, facts=facts, profile_ops=ops, profile_snapshots=[],
                 constraints=constraints)


def build_corpus(persona: Persona, world: World, events: dict | None = None) -> Corpus:
    """One claiming user turn per fact at 20:00 on its event's day (plus the event's lag)."""
    events = EVENTS if events is None else events
    lags = {f"{PID}-e{n:04d}": row[8] for n, row in events.items()}
    by_event = {e.event_id: e for e in world.events}
    titles = {p.plan_id: p.title for p in world.plans}
    turns = []
    for n, f in enumerate(world.facts, start=1):
        event = by_event[f.event_id]
        day = event.date + dt.timedelta(days=lags.get(f.event_id, 0))
        title = titles.get(event.plan_id or "")
        lead = f"Today I set out to {title}. " if title else ""
        turns.append(Turn(turn_id=f"{PID}-t{n:04d}", session_id=f"{PID}-s{n:04d}", persona_id=PID,
                          timestamp=local_datetime(persona, day, 20), role="user",
                          text=f"{lead}Quick update: {clause(f, persona)}.", fact_ids=[f.fact_id]))
    return Corpus(turns=turns)


def context(world: World | None = None, corpus: Corpus | None = None, days: int = DAYS) -> QContext:
    """A QContext over the fixture world (asked the day after the simulation, 09:00 local)."""
    cfg = config(days)
    persona = make_persona()
    world = world or build_world()
    corpus = corpus or build_corpus(persona, world)
    asked_at = question_time(cfg, persona)
    return QContext(config=cfg, persona=persona, world=world, corpus=corpus, asked_at=asked_at,
                    day=local_date(persona, asked_at))


def with_later(world: World, corpus: Corpus, persona: Persona, day: dt.date) -> tuple[World, Corpus]:
    """The world and corpus plus, from `day` on: a new favourite cafe, a new home, a new running ban
    (c0099) and turns telling them, all with values no catalog bank holds."""
    eid = f"{PID}-e0099"
    facts = list(world.facts)
    news = [(ME, "favourite_cafe", "Zebra Lounge"), (ME, "home", "flat at 99 Zebra Road"),
            (ME, "running_restriction", "no running until December 1, 2024")]
    added = []
    for subject, attribute, value in news:
        facts = _close(facts, subject, attribute, day)
        fact = Fact(fact_id=f"{PID}-f{len(facts) + 1:04d}", persona_id=PID, event_id=eid, subject=subject,
                    attribute=attribute, value=value, valid_from=day, surface_forms=[value])
        facts.append(fact)
        added.append(fact)
    event = Event(event_id=eid, persona_id=PID, date=day, kind="run_race", valence="negative", severity=4,
                  critical=True, narrative="later")
    constraint = Constraint(constraint_id=f"{PID}-c0099", persona_id=PID, event_id=eid, kind="running_restriction",
                            description="no running until December 1, 2024", blocks=["running", "sport"],
                            valid_from=day, valid_to=dt.date(2024, 12, 1))
    world = world.model_copy(update={"facts": facts, "events": world.events + [event],
                                     "constraints": world.constraints + [constraint]})
    turns = [Turn(turn_id=f"{PID}-tz{i}", session_id=f"{PID}-sz", persona_id=PID,
                  timestamp=local_datetime(persona, day, 20), role="user", text=f"News: {f.value}.",
                  fact_ids=[f.fact_id]) for i, f in enumerate(added)]
    return world, corpus.model_copy(update={"turns": corpus.turns + turns})
