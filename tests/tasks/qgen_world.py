"""A hand-built four-month world with a hand-built corpus, for the fact/temporal/aggregation generators.

Maya Okafor (America/New_York, tests/tasks/worldfixture.py's persona, income band middle), 2024-01-01 ..
2024-04-30; questions are asked 2024-05-01 09:00. Relations: brother Daniel Okafor, manager Daniel Reyes
(namesakes), friend Priya Shah. Standing colleagues Noor Gonzales (front desk) and Noor Kobayashi (the kitchen).

  e0000 01-01 baseline: city Boston, employer Brightwave Labs, home flat at 82 Elm Road, three relationships
  e0001 01-05 new_cafe +  Café Lumen (favourite)        e0010 03-09 family_call + Daniel Reyes (booked a holiday)
  e0002 01-10 lunch +     Noor Gonzales (podcast tip)   e0011 03-10 family_call + Daniel Okafor (repainting)
  e0003 01-12 lunch +     Noor Kobayashi (dentist tip)  e0012 03-16 weekly_shop - Corner Stores
  e0004 01-20 family_call + Daniel Okafor (walking club) e0013 03-25 new_cafe + Daily Grind (favourite)
  e0005 02-03 new_cafe -  Bean There (disliked)         e0014 03-25 move_flat + flat at 95 Rua das Flores
  e0006 02-04 new_cafe +  Blue Door Coffee (favourite)  e0015 04-06 weekly_shop + FreshMart
  e0007 02-05 weekly_shop + Maple Grocers               e0016 04-12 lunch + Noor Gonzales (running route tip)
  e0008 02-14 friend_visit + Priya Shah (Vancouver)     e0017 04-25 lunch + Noor Gonzales (lunch spot tip)
  e0009 03-02 weekly_shop - Fresh Market                e0018 04-02 promotion + income band upper-middle

Every fact has one user turn at 20:00 on its event's day that claims it and states it with `clause`
(so a relation's news turn also says "my brother Daniel Okafor's news ...").
"""

from __future__ import annotations

import datetime as dt

from schemas.config import BuildConfig
from schemas.corpus import Corpus, Turn
from schemas.profile import Persona
from schemas.world import Event, Fact, Plan, World
from tasks.common.facttext import clause
from tasks.common.timeutil import local_date, local_datetime, question_time
from tasks.questions.base import QContext
from tasks.world.ontology import ATTRIBUTES
from tests.tasks.worldfixture import PID, make_config, make_persona

START = dt.date(2024, 1, 1)
DAYS = 121
ME = "Maya Okafor"

# n: (date, kind, valence, title, entity, [(subject, attribute, value, forms)])
EVENTS: dict[int, tuple[str, str, str, str, dict[str, str], list[tuple[str, str, str, list[str]]]]] = {
    1: ("01-05", "new_cafe", "positive", "try Café Lumen on Elm Road", {"cafe": "Café Lumen", "street": "Elm Road"},
        [(ME, "favourite_cafe", "Café Lumen", ["Café Lumen"])]),
    2: ("01-10", "colleague_lunch", "positive", "have lunch with Noor Gonzales from front desk",
        {"colleague": "Noor Gonzales", "team": "front desk"},
        [("Noor Gonzales", "recommendation", "a podcast on budgeting", ["a podcast on budgeting"]),
         ("Noor Gonzales", "team", "front desk", ["front desk"])]),
    3: ("01-12", "colleague_lunch", "positive", "have lunch with Noor Kobayashi from the kitchen",
        {"colleague": "Noor Kobayashi", "team": "the kitchen"},
        [("Noor Kobayashi", "recommendation", "a good dentist", ["a good dentist"]),
         ("Noor Kobayashi", "team", "the kitchen", ["the kitchen"])]),
    4: ("01-20", "family_call", "positive", "call Daniel Okafor about a birthday", {"relative": "Daniel Okafor"},
        [("Daniel Okafor", "home_project", "building a shed", ["building a shed"])]),
    5: ("02-03", "new_cafe", "negative", "try Bean There on Harbour Street", {"cafe": "Bean There"},
        [(ME, "disliked_cafe", "Bean There", ["Bean There"])]),
    6: ("02-04", "new_cafe", "positive", "try Blue Door Coffee on Willow Crescent", {"cafe": "Blue Door Coffee"},
        [(ME, "favourite_cafe", "Blue Door Coffee", ["Blue Door Coffee"])]),
    7: ("02-05", "weekly_shop", "positive", "do the weekly shop at Maple Grocers", {"market": "Maple Grocers"},
        [(ME, "grocery_shop", "Maple Grocers", ["Maple Grocers"])]),
    8: ("02-14", "friend_visit", "positive", "host Priya Shah for the football final",
        {"friend": "Priya Shah", "occasion": "the football final"},
        [("Priya Shah", "next_city", "Vancouver", ["Vancouver"])]),
    9: ("03-02", "weekly_shop", "negative", "do the weekly shop at Fresh Market", {"market": "Fresh Market"},
        [(ME, "wasted_shop", "trip to Fresh Market", ["trip to Fresh Market"])]),
    10: ("03-09", "family_call", "positive", "call Daniel Reyes about the weekend", {"relative": "Daniel Reyes"},
         [("Daniel Reyes", "home_project", "re-tiling the bathroom", ["re-tiling the bathroom"])]),
    11: ("03-10", "family_call", "positive", "call Daniel Okafor about family news", {"relative": "Daniel Okafor"},
         [("Daniel Okafor", "home_project", "repainting the kitchen yellow",
                                                                   ["repainting the kitchen yellow"])]),
    12: ("03-16", "weekly_shop", "negative", "do the weekly shop at Corner Stores", {"market": "Corner Stores"},
         [(ME, "wasted_shop", "trip to Corner Stores", ["trip to Corner Stores"])]),
    13: ("03-25", "new_cafe", "positive", "try Daily Grind on Quarry Hill", {"cafe": "Daily Grind"},
         [(ME, "favourite_cafe", "Daily Grind", ["Daily Grind"])]),
    14: ("03-25", "move_flat", "positive", "move into a flat at 95 Rua das Flores", {"address": "95 Rua das Flores"},
         [(ME, "home", "flat at 95 Rua das Flores", ["flat at 95 Rua das Flores", "95 Rua das Flores"])]),
    15: ("04-06", "weekly_shop", "positive", "do the weekly shop at FreshMart", {"market": "FreshMart"},
         [(ME, "grocery_shop", "FreshMart", ["FreshMart"])]),
    16: ("04-12", "colleague_lunch", "positive", "have lunch with Noor Gonzales from front desk",
         {"colleague": "Noor Gonzales", "team": "front desk"},
         [("Noor Gonzales", "recommendation", "a quiet running route", ["a quiet running route"])]),
    17: ("04-25", "colleague_lunch", "positive", "have lunch with Noor Gonzales from front desk",
         {"colleague": "Noor Gonzales", "team": "front desk"},
         [("Noor Gonzales", "recommendation", "a new lunch spot", ["a new lunch spot"])]),
    18: ("04-02", "promotion", "positive", "ask for a promotion at Brightwave Labs", {"employer": "Brightwave Labs"},
         [(ME, "income_band", "upper-middle", ["upper-middle"])]),
}

BASELINE = [
    (ME, "city", "Boston", ["Boston"]),
    (ME, "employer", "Brightwave Labs", ["Brightwave Labs"]),
    (ME, "home", "flat at 82 Elm Road", ["flat at 82 Elm Road", "82 Elm Road"]),
    ("Daniel Okafor", "relationship", "brother", ["brother Daniel Okafor", "brother"]),
    ("Daniel Reyes", "relationship", "manager", ["manager Daniel Reyes", "manager"]),
    ("Priya Shah", "relationship", "friend", ["friend Priya Shah", "friend"]),
]


def on(mmdd: str) -> dt.date:
    return dt.date.fromisoformat(f"2024-{mmdd}")


def config(days: int = DAYS) -> BuildConfig:
    return make_config(start_date=START, days=days)


def build_world(events: dict | None = None, baseline: list | None = None) -> World:
    """The world of the module docstring (or of the given event table): state facts closed by their successors."""
    events = EVENTS if events is None else events
    rows = [(0, START, "baseline", "positive", None, {}, baseline if baseline is not None else BASELINE)]
    rows += [(n, on(d), kind, val, title, ent, facts) for n, (d, kind, val, title, ent, facts) in events.items()]
    rows.sort(key=lambda r: (r[1], r[0]))
    plans, evs, facts, n_fact = [], [], [], 0
    for n, day, kind, valence, title, entity, drafts in rows:
        eid = f"{PID}-e{n:04d}"
        if title:
            plans.append(Plan(plan_id=f"{PID}-pl{n:04d}", persona_id=PID, created_on=START, horizon="short",
                              scheduled_for=day, title=title, kind=kind, entity=entity))
        evs.append(Event(event_id=eid, persona_id=PID, date=day, plan_id=f"{PID}-pl{n:04d}" if title else None,
                         kind=kind, valence=valence, severity=2, critical=False, narrative=title or "Initial state."))
        for subject, attribute, value, forms in drafts:
            n_fact += 1
            for i, old in enumerate(facts):  # state is superseded; what happened at an event is not
                if (old.subject, old.attribute) == (subject, attribute) and old.valid_to is None \
                        and not getattr(ATTRIBUTES.get(attribute), "event", False):
                    facts[i] = old.model_copy(update={"valid_to": day})
            facts.append(Fact(fact_id=f"{PID}-f{n_fact:04d}", persona_id=PID, event_id=eid, subject=subject,
                              attribute=attribute, value=value, valid_from=day, surface_forms=forms))
    return World(plans=plans, events=evs, facts=facts, profile_ops=[], profile_snapshots=[])


def build_corpus(persona: Persona, world: World, lag_days: int = 0) -> Corpus:
    """One claiming user turn per fact at 20:00 on its event's day (plus `lag_days`)."""
    dates = {e.event_id: e.date for e in world.events}
    turns = [
        Turn(turn_id=f"{PID}-t{n:04d}", session_id=f"{PID}-s{n:04d}", persona_id=PID,
             timestamp=local_datetime(persona, dates[f.event_id] + dt.timedelta(days=lag_days), 20),
             role="user", text=f"Quick update: {clause(f, persona)}.", fact_ids=[f.fact_id])
        for n, f in enumerate(world.facts, start=1)
    ]
    return Corpus(turns=turns)


def context(world: World | None = None, corpus: Corpus | None = None, days: int = DAYS,
            seed: int | None = None) -> QContext:
    """A QContext over the fixture world (asked the day after the simulation, 09:00 local)."""
    cfg = config(days)
    if seed is not None:
        cfg = cfg.model_copy(update={"seed": seed})
    persona = make_persona()
    world = world or build_world()
    corpus = corpus or build_corpus(persona, world)
    asked_at = question_time(cfg, persona)
    return QContext(config=cfg, persona=persona, world=world, corpus=corpus, asked_at=asked_at,
                    day=local_date(persona, asked_at))


def add_fact(world: World, subject: str, attribute: str, value: str, day: dt.date, event: int = 99) -> World:
    """The world with one more event and fact (closing the previous fact of that subject and attribute)."""
    eid = f"{PID}-e{event:04d}"
    facts = [f.model_copy(update={"valid_to": day}) if (f.subject, f.attribute) == (subject, attribute)
             and (f.valid_to is None or f.valid_to > day) else f for f in world.facts]
    facts.append(Fact(fact_id=f"{PID}-f{len(facts) + 1:04d}", persona_id=PID, event_id=eid, subject=subject,
                      attribute=attribute, value=value, valid_from=day, surface_forms=[value]))
    events = world.events + [Event(event_id=eid, persona_id=PID, date=day, kind="life_event", valence="positive",
                                   severity=2, critical=False, narrative="later")]
    return world.model_copy(update={"facts": facts, "events": events})


def by_question(candidates, text: str):
    """The candidates whose question is `text`."""
    return [c for c in candidates if c.question == text]
