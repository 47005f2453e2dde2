"""The world's ontology and its consistency (issue 23): every attribute is declared, a simulated life keeps to the
declared rates and to its events' preconditions, and the checks find each kind of violation planted in a world."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from schemas.config import BuildConfig, ProviderConfig, load_preset
from schemas.world import Event, Fact, Plan, World
from tasks.domains import PACKS, pack_for
from tasks.llm.gateway import Gateway
from tasks.world import banks, consistency, loop, profile
from tasks.world.catalog import KINDS
from tasks.world.entities import CAREER_CHANGE_SHARE, FRIEND_UPDATES, career_moves
from tasks.world.entities_life import FAMILY_UPDATES
from tasks.world.ontology import ATTRIBUTES, Attribute, ontology
from tasks.world.verify import verify_world

NAME = "Ana Silva"
START = dt.date(2024, 1, 1)


def fact(n: int, event: int, attribute: str, value: str, on: int, subject: str = NAME) -> Fact:
    return Fact(fact_id=f"p0000-f{n:04d}", persona_id="p0000", event_id=f"p0000-e{event:04d}", subject=subject,
                attribute=attribute, value=value, valid_from=START + dt.timedelta(days=on), surface_forms=[value])


def event(n: int, on: int, kind: str) -> Event:
    return Event(event_id=f"p0000-e{n:04d}", persona_id="p0000", date=START + dt.timedelta(days=on),
                 plan_id=f"p0000-l{n:04d}" if n else None, kind=kind, valence="positive", severity=2,
                 critical=False, narrative="")


def plan(n: int, on: int, kind: str, **entity: str) -> Plan:
    day = START + dt.timedelta(days=on)
    return Plan(plan_id=f"p0000-l{n:04d}", persona_id="p0000", created_on=day, horizon="short", scheduled_for=day,
                title=kind, kind=kind, entity=entity)


def closed(facts: list[Fact]) -> list[Fact]:
    """Each fact ended where the next of its key begins (as the simulator commits them)."""
    out = []
    for i, f in enumerate(facts):
        later = [g for g in facts[i + 1:] if (g.subject, g.attribute) == (f.subject, f.attribute)]
        out.append(f.model_copy(update={"valid_to": later[0].valid_from}) if later else f)
    return out


def make(**parts) -> World:
    return World(**({"events": [], "plans": [], "facts": [], "profile_ops": [], "profile_snapshots": []} | parts))


def checks(world: World) -> Counter:
    found = consistency.ontology_problems(world, NAME, ATTRIBUTES) + consistency.rate_problems(world, ATTRIBUTES)
    found += consistency.precondition_problems(world, NAME)
    return Counter(p.check for p in found)


def test_every_attribute_the_simulator_can_write_is_declared():
    written = {s.attribute for k in KINDS.values() for o in (k.positive, k.negative) for s in o.facts
               if "{" not in s.attribute}
    written |= {u.attribute for u in FAMILY_UPDATES + FRIEND_UPDATES}  # `{life_attribute}`
    written |= {o.constraint.kind for k in KINDS.values() for o in (k.positive, k.negative) if o.constraint}
    written |= {"occupation", "employer", "city", "hobby", "relationship", "home", "vehicle", "pet",
                "prized_possession"}  # the baseline's (loop.baseline_drafts)
    assert written <= set(ATTRIBUTES), sorted(written - set(ATTRIBUTES))
    for name in PACKS:
        extra = pack_for(BuildConfig(name="x", domain=name)).attributes()
        assert not {a.name for a in extra} & set(ATTRIBUTES)
        assert set(ontology(extra)) == set(ATTRIBUTES) | {a.name for a in extra}
    with pytest.raises(ValueError, match="redeclares core attributes: employer"):
        ontology((Attribute("employer", "persona", "work", 3),))


def test_rates_hold_big_changes_rare_and_small_ones_often():
    assert ATTRIBUTES["employer"].min_days == ATTRIBUTES["home"].min_days == 365
    assert ATTRIBUTES["favourite_cafe"].min_days == 122 and ATTRIBUTES["current_book"].min_days == 30
    assert ATTRIBUTES["recommendation"].event and ATTRIBUTES["recommendation"].min_days is None
    assert ATTRIBUTES["pet"].holder == "any" and ATTRIBUTES["side_project"].domain == "life"
    assert not ATTRIBUTES["spending_restriction"].record and ATTRIBUTES["spending_restriction"].min_days is None


def test_a_sound_world_has_no_problems():
    world = make(events=[event(0, 0, "baseline"), event(1, 200, "new_job")],
                  plans=[plan(1, 200, "new_job", role="nurse", company="Northgate Clinic")],
                  facts=closed([fact(1, 0, "employer", "St. Anne's Hospital", 0),
                                fact(2, 1, "employer", "Northgate Clinic", 200)]))
    assert checks(world) == Counter()


def test_a_planted_precondition_violation_is_found():
    """p0001-e0030 of the old simulator: a restructuring three weeks after she left the employer."""
    world = make(events=[event(0, 0, "baseline"), event(1, 100, "new_job"), event(2, 121, "restructure"),
                          event(3, 150, "colleague_lunch")],
                  plans=[plan(1, 100, "new_job", company="Northgate Clinic"),
                         plan(2, 121, "restructure", employer="St. Anne's Hospital"),
                         plan(3, 150, "colleague_lunch", employer="Northgate Clinic", colleague="Sam Reid")],
                  facts=closed([fact(1, 0, "employer", "St. Anne's Hospital", 0),
                                fact(2, 1, "employer", "Northgate Clinic", 100)]))
    found = consistency.precondition_problems(world, NAME)
    assert [(p.artifact_id, p.check) for p in found] == [("p0000-e0002", "event_precondition")]
    assert "St. Anne's Hospital" in found[0].message and "Northgate Clinic" in found[0].message


def test_a_promotion_of_the_self_employed_is_found_and_never_planned():
    """'Status report: ask for a promotion at self-employed' (rhelm p0005): nobody promotes or restructures the
    self-employed; their own work projects and lunches are fine."""
    world = make(events=[event(0, 0, "baseline"), event(1, 40, "promotion"), event(2, 60, "work_project")],
                 plans=[plan(1, 40, "promotion", employer="self-employed"),
                        plan(2, 60, "work_project", employer="self-employed", project="Harbour")],
                 facts=closed([fact(1, 0, "employer", "self-employed", 0)]))
    found = consistency.precondition_problems(world, NAME)
    assert [(p.artifact_id, p.check) for p in found] == [("p0000-e0001", "event_precondition")]
    assert "self-employed" in found[0].message
    from tasks.world.catalog import KINDS

    profile = {"identity": {"employer": "self-employed", "occupation": "plumber", "age": 40}}
    assert not KINDS["promotion"].requires(profile) and not KINDS["restructure"].requires(profile)
    assert KINDS["work_project"].requires(profile)
    assert KINDS["promotion"].requires({"identity": {"employer": "FlowRight Plumbing", "occupation": "plumber",
                                                     "age": 40}})


def test_an_event_at_work_while_unemployed_is_found_but_the_layoff_itself_is_not():
    world = make(events=[event(0, 0, "baseline"), event(1, 50, "restructure"), event(2, 60, "work_project")],
                  plans=[plan(1, 50, "restructure", employer="Brightwave"), plan(2, 60, "work_project",
                                                                              employer="Brightwave")],
                  facts=closed([fact(1, 0, "employer", "Brightwave", 0), fact(2, 1, "employer", "unemployed", 50)]))
    found = consistency.precondition_problems(world, NAME)
    assert [p.artifact_id for p in found] == ["p0000-e0002"] and "no employer" in found[0].message


def test_changes_faster_than_the_rate_restatements_and_undeclared_attributes_are_found():
    world = make(events=[event(0, 0, "baseline")] + [event(n, n * 10, "new_cafe") for n in range(1, 5)],
                  facts=closed([fact(1, 1, "favourite_cafe", "Bean There", 10),
                                fact(2, 2, "favourite_cafe", "Café Lumen", 20),       # 10 days later: too soon
                                fact(3, 3, "favourite_cafe", "Café Lumen", 160),      # the same value again
                                fact(4, 4, "call status", "missed call", 40),         # not in the ontology
                                fact(5, 0, "team", "accounts", 0)]))                  # the persona has no team
    assert checks(world) == Counter({"change_rate": 1, "fact_restates_value": 1, "fact_in_ontology": 2})


def test_the_core_declares_no_pseudo_attribute_and_names_give_one_away():
    assert [a.name for a in ATTRIBUTES.values() if a.record] == []
    assert Attribute("call_status", "person", "relations").record and Attribute("last_trip", "persona", "home").record
    assert Attribute("news", "person", "life").record and Attribute("tip", "person", "event").record is False
    assert Attribute("visit", "person", "record").record
    frames = [a for a in ATTRIBUTES.values() if a.event]
    assert frames and all(a.frame and "{who}" in a.frame and "{value}" in a.frame for a in frames)


def test_the_verifier_reports_them_as_errors_and_the_pseudo_share_as_a_warning():
    pack = (Attribute("lunch_status", "person", "relations", 2),)  # state named as a record: pseudo
    world = make(events=[event(0, 0, "baseline"), event(1, 5, "family_call")],
                  facts=closed([fact(1, 0, "city", "Porto", 0),
                                fact(2, 1, "lunch_status", "cancelled lunch", 5, "Rui Silva"),
                                fact(3, 1, "bogus", "x", 5)]))
    persona = profile.enrich_persona(BuildConfig(name="t"), "p0000", profile.BUNDLED_SEEDS[0],
                                     Gateway(ProviderConfig()))
    persona = persona.model_copy(update={"name": NAME})
    found = {f.check: f for f in verify_world(persona, world, pack)}
    assert found["fact_in_ontology"].severity == "error"
    assert found["pseudo_attributes"].severity == "warning" and "1 of 3 facts" in found["pseudo_attributes"].message


def test_what_happened_at_an_event_is_never_superseded():
    """Two dinners out are two events: both facts hold on, the latest is "the most recent dinner out", the same
    dish twice is no restatement, and an event fact with an end is an error."""
    from tasks.world.evolve import FactDraft, WorldState

    state = WorldState("p0000", {})
    dinner = FactDraft(NAME, "dinner_out", "risotto at Luigi's", ("Luigi's",))
    for day in (START, START + dt.timedelta(days=9)):
        state.commit_facts(state.changes([dinner], day), f"p0000-e000{day.day}", day)
    assert [f.valid_to for f in state.facts] == [None, None]
    ids = ("p0000-e0001", "p0000-e0009")
    world = make(events=[event(0, 0, "baseline"), event(1, 0, "dinner_out"), event(9, 9, "dinner_out")],
                 facts=[f.model_copy(update={"event_id": e}) for f, e in zip(state.facts, ids, strict=True)])
    assert checks(world) == Counter()
    ended = world.model_copy(update={"facts": closed(world.facts)})
    assert checks(ended) == Counter({"event_fact_ended": 1})


def test_careers_stay_within_their_schooling():
    rng = __import__("random").Random(5)
    nurse = [career_moves("nurse", rng)[0].title for _ in range(400)]
    assert set(nurse) == {"nurse"}  # no other occupation needs a nursing degree
    waiter = Counter(career_moves("waiter", rng)[0].title for _ in range(2000))
    assert 0.75 < waiter["waiter"] / 2000 < 0.95 and abs(1 - waiter["waiter"] / 2000 - CAREER_CHANGE_SHARE) < 0.05
    schooling = {o.title: o.education for o in banks.OCCUPATIONS}
    assert {schooling[t] for t in waiter} == {"secondary school"}
    assert "university student" not in {o.title for _ in range(200) for o in career_moves("unemployed", rng)}


@pytest.fixture(scope="module")
def two_years():
    """Four personas of the rhelm preset over two years: the rates bind across a year boundary."""
    cfg = load_preset("rhelm").model_copy(update={"days": 730, "personas": 4})
    out = []
    for pid, seed in zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True):
        gateway = Gateway(ProviderConfig())
        persona = profile.enrich_persona(cfg, pid, seed, gateway)
        out.append((cfg, persona, loop.simulate(cfg, persona, gateway)))
    return out


def test_simulated_lives_keep_the_ontology_rates_and_preconditions(two_years):
    for _cfg, persona, world in two_years:
        found = [f for f in verify_world(persona, world) if f.severity == "error"]
        assert found == [], [f.message for f in found]
        figures = consistency.figures(world, persona.name, ATTRIBUTES)
        assert figures["restated"] == 0 and figures["records"] == 0 and figures["event_facts"] > 0
        jobs = [f for f in world.facts if f.subject == persona.name and f.attribute == "employer"
                and not consistency.is_baseline(f) and f.value not in ATTRIBUTES["employer"].vacant]
        assert len(jobs) <= 2 and figures["changes"].get("home", 0) <= 2  # two years, one a year
        assert figures["changes"].get("favourite_cafe", 0) <= 6


def test_cancelled_plans_say_why(two_years):
    reasons = Counter(p.blocked_by.split(":")[0] for _, _, w in two_years for p in w.plans if p.blocked_by)
    assert set(reasons) <= {"profile", "precondition", "rate"} | {r for r in reasons if r.startswith("p0")}
    assert sum(reasons.values()) > 0


def test_a_new_job_brings_new_colleagues(two_years):
    for _cfg, persona, world in two_years:
        colleagues = [e for e in world.entities if e.role == "colleague" and e.attributes.get("works_at")]
        employers = {f.value for f in world.facts if f.subject == persona.name and f.attribute == "employer"}
        assert {e.attributes["works_at"] for e in colleagues} <= employers


def test_constraints_and_their_facts_agree_and_one_of_a_kind_holds_at_a_time(two_years):
    """p0002-q0040 of the old simulator: a second restriction of a kind superseded the first's fact while the
    constraint store still held the first, so a question's answer and the constraint disagreed."""
    for _cfg, _persona, world in two_years:
        facts = {(f.event_id, f.value): f for f in world.facts}
        for c in world.constraints:
            fact = facts[(c.event_id, c.description)]
            assert (fact.valid_from, fact.valid_to) == (c.valid_from, c.valid_to), c.constraint_id
        by_kind: dict[str, list] = {}
        for c in sorted(world.constraints, key=lambda c: c.valid_from):
            assert all(o.valid_to <= c.valid_from for o in by_kind.get(c.kind, [])), c.constraint_id
            by_kind.setdefault(c.kind, []).append(c)


def test_a_new_restriction_replaces_one_of_its_kind_without_lifting_anything_early():
    import random

    from schemas.world import Constraint
    from tasks.world.evolve import WorldState
    from tasks.world.loop import constraint_of

    state = WorldState("p0000", profile.enrich_persona(BuildConfig(name="t"), "p0000", profile.BUNDLED_SEEDS[0],
                                                       Gateway(ProviderConfig())).profile.model_dump(mode="json"))
    first = Constraint(constraint_id="p0000-c0001", persona_id="p0000", event_id="p0000-e0001",
                       kind="travel_restriction", description="no travel until March 30, 2024",
                       blocks=["sport", "travel"], valid_from=dt.date(2024, 3, 1), valid_to=dt.date(2024, 3, 30))
    state.add_constraint(first)
    outcome = KINDS["doctor_visit"].negative  # travel_restriction for 14 to 35 days
    day = dt.date(2024, 3, 10)
    second = constraint_of(outcome, {"diagnosis": "x"}, "p0000", 2, "p0000-e0002", day, random.Random(1),
                           state.holding("travel_restriction", day))
    assert second.valid_to >= first.valid_to and set(second.blocks) >= set(first.blocks)
    state.add_constraint(second)
    assert [c.valid_to for c in state.constraints] == [day, second.valid_to]
    assert state.holding("travel_restriction", day) == [second]
    assert first.description not in state.profile["current_status"]["ongoing_matters"]


def test_leaving_for_no_employer_is_not_rate_bound_but_the_next_job_counts_from_the_last():
    world = make(events=[event(0, 0, "baseline")] + [event(n, d, "x") for n, d in ((1, 30), (2, 90), (3, 200))],
                 facts=closed([fact(1, 0, "employer", "Brightwave", 0), fact(2, 1, "employer", "Northwind", 30),
                               fact(3, 2, "employer", "unemployed", 90),   # a layoff two months in: allowed
                               fact(4, 3, "employer", "Kestrel Ltd", 200)]))  # 170 days after the last job: too soon
    found = consistency.rate_problems(world, ATTRIBUTES)
    assert [(p.artifact_id, p.check) for p in found] == [("p0000-f0004", "change_rate")]


def test_two_layoffs_within_a_year_are_too_many():
    world = make(events=[event(0, 0, "baseline")] + [event(n, d, "x") for n, d in ((1, 30), (2, 60), (3, 400),
                                                                                   (4, 500))],
                 facts=closed([fact(1, 0, "employer", "Brightwave", 0), fact(2, 1, "employer", "unemployed", 30),
                               fact(3, 2, "employer", "Northwind", 60), fact(4, 3, "employer", "unemployed", 400),
                               fact(5, 4, "employer", "Kestrel Ltd", 500)]))
    assert consistency.rate_problems(world, ATTRIBUTES) == []  # a layoff a year, a job a year
    world = world.model_copy(update={"facts": closed([*world.facts[:3], fact(4, 3, "employer", "unemployed", 200),
                                                      fact(5, 4, "employer", "Kestrel Ltd", 500)])})
    found = consistency.rate_problems(world, ATTRIBUTES)
    assert [(p.artifact_id, p.check) for p in found] == [("p0000-f0004", "change_rate")]


def test_life_transitions_come_at_life_stage_rates():
    from tasks.world import transitions

    def profile_of(age: int, employer: str = "Brightwave") -> dict:
        return {"identity": {"age": age, "employer": employer}}

    moves = [transitions.move_home(profile_of(a)) for a in (22, 38, 50, 70)]
    jobs = [transitions.change_jobs(profile_of(a)) for a in (22, 30, 40, 50, 60)]
    assert moves == sorted(moves, reverse=True) and jobs == sorted(jobs, reverse=True)
    assert transitions.change_jobs(profile_of(40, "unemployed")) > 1  # looking for work most of the year
    assert {k.key for k in KINDS.values() if k.yearly} == {"move_flat", "new_job", "restructure"}


def test_transitions_stay_rare_in_simulated_lives(two_years):
    """Four persona-years x two: no more than a move and a job change a year on average, as the rates imply."""
    events = Counter(e.kind for _, _, world in two_years for e in world.events)
    years = sum(cfg.days for cfg, _, _ in two_years) / 365
    assert events["move_flat"] / years <= 1 and events["new_job"] / years <= 1 and events["restructure"] / years <= 0.5


def test_every_preference_change_has_an_earlier_reason(two_years):
    """Favourite café, usual shop, volunteering and doctor change only after a bad experience there or a move,
    and the plan that changes one names the event that gave the reason."""
    from tasks.world.causes import SWITCHES

    switched = {s.attribute: kind for kind, s in SWITCHES.items()}
    seen = 0
    for _cfg, persona, world in two_years:
        events, plans = {e.event_id: e for e in world.events}, {p.plan_id: p for p in world.plans}
        for (subject, attribute), facts in consistency.histories(world.facts).items():
            if subject != persona.name or attribute not in switched:
                continue
            for before, after in zip(facts, facts[1:], strict=False):
                if after.value == before.value:
                    continue
                seen += 1
                plan = plans[events[after.event_id].plan_id]
                cause = events[plan.entity["cause_event"]]
                assert before.valid_from <= cause.date <= events[after.event_id].date, plan.plan_id
                assert plans[cause.plan_id].kind in ("move_flat", *SWITCHES[switched[attribute]].bad)
    assert seen >= 4


def test_a_preference_changed_without_a_reason_is_found():
    world = make(events=[event(0, 0, "baseline"), event(1, 10, "new_cafe"), event(2, 150, "cafe_visit"),
                         event(3, 160, "new_cafe")],
                 plans=[plan(1, 10, "new_cafe", cafe="Café Lumen"), plan(2, 150, "cafe_visit", cafe="Café Lumen"),
                        plan(3, 160, "new_cafe", cafe="Daily Grind")],
                 facts=closed([fact(1, 1, "favourite_cafe", "Café Lumen", 10),
                               fact(2, 3, "favourite_cafe", "Daily Grind", 160)]))
    found = consistency.cause_problems(world, NAME)
    assert [(p.artifact_id, p.check) for p in found] == [("p0000-f0002", "preference_change_uncaused")]
    caused = plan(3, 160, "new_cafe", cafe="Daily Grind", cause_event="p0000-e0002", cause="a bad visit")
    world = world.model_copy(update={"plans": [*world.plans[:2], caused]})
    assert consistency.cause_problems(world, NAME) == []


def test_an_orphaned_plan_is_found():
    """A plan due before the last event that neither happened nor was cancelled with a reason."""
    world = make(events=[event(0, 0, "baseline"), event(1, 10, "new_cafe"), event(3, 30, "x")],
                 plans=[plan(1, 10, "new_cafe", cafe="Café Lumen"), plan(2, 20, "concert", artist="Kofi Blue"),
                        plan(3, 30, "x"), plan(4, 40, "concert", artist="later")])
    assert [(p.artifact_id, p.check) for p in consistency.plan_problems(world)] == [("p0000-l0002", "plan_orphaned")]
    cancelled = world.plans[1].model_copy(update={"blocked_by": "rate:favourite_cafe"})
    assert consistency.plan_problems(world.model_copy(update={"plans": [world.plans[0], cancelled,
                                                                       *world.plans[2:]]})) == []


def test_people_met_along_the_way_join_the_life_and_may_share_a_first_name(two_years):
    """A routine brings new friends (`meet_someone`), named as anyone met is, so confusable people come from the
    life itself (a friend from the climbing group called Anna, like the persona's sister), not only planted."""
    met = namesakes = 0
    for _cfg, _persona, world in two_years:
        plans = {p.plan_id: p for p in world.plans}
        for e in world.events:
            if e.kind == "meet_someone" and e.valence == "positive":
                met += 1
                name = plans[e.plan_id].entity["new_name"]
                assert [f.value for f in world.facts if f.event_id == e.event_id] == ["friend"]
                assert any(f.subject == name and f.attribute == "relationship" for f in world.facts)
        namesakes += consistency.namesakes_from_life(world)
    assert met >= 4 and namesakes >= 1


def test_the_persona_s_gp_is_never_their_dinner_companion_or_the_one_celebrating():
    import random

    from tasks.world.entities_life import close_people, draw_dinner, draw_milestone

    profile = {"relationships": [{"name": "Dr. Amr Nasser", "role": "doctor"}, {"name": "Ana Reyes", "role": "friend"},
                                 {"name": "Tomás Reyes", "role": "brother"}]}
    assert close_people(profile) == ["Ana Reyes", "Tomás Reyes"]
    for seed in range(30):
        rng = random.Random(seed)
        assert draw_dinner(rng, profile)["companion"] != "Dr. Amr Nasser"
        assert draw_milestone(rng, profile)["person"] != "Dr. Amr Nasser"


def test_a_hobby_session_works_towards_a_goal_of_its_own_hobby_somewhere_it_is_done(two_years):
    """The kept goal of one hobby was worked towards in another (knitting towards 'a performance at the studio's
    summer night'), and any hobby could be done anywhere ('open-water swimming at home')."""
    from tasks.world.banks_extra import HOBBY_GOALS
    from tasks.world.entities_life import HOBBY_SPOTS, OTHER_SPOTS
    sessions = [p.entity for _, _, w in two_years for p in w.plans if p.kind == "hobby_session"]
    assert sessions
    for entity in sessions:
        hobby = entity["hobby"]
        assert not hobby.startswith("volunteering"), entity
        assert entity["spot"] in HOBBY_SPOTS.get(hobby, OTHER_SPOTS), entity
        if hobby in HOBBY_GOALS:
            assert entity["goal"] in HOBBY_GOALS[hobby], entity


def test_volunteering_is_a_task_that_fits_the_place_and_stays_while_the_place_does(two_years):
    """'weeding at the public library', a library filed as a food bank, and the task at the same place changing
    with no reason (p0009-v0013: 'weeding at the public library' -> 'sorting donations at the public library')."""
    from tasks.world.entities_life import VOLUNTEER_TASKS, VOLUNTEERING
    kinds = {org: kind for kind, org in VOLUNTEERING}
    for _, persona, world in two_years:
        plans = [p.entity for p in world.plans if p.kind == "volunteer"]
        for entity in plans:
            assert kinds[entity["org"]] == entity["org_kind"] and entity["task"] in VOLUNTEER_TASKS[entity["org_kind"]]
        held = sorted((f for f in world.facts if f.subject == persona.name and f.attribute == "volunteering"),
                      key=lambda f: f.valid_from)
        for a, b in zip(held, held[1:], strict=False):
            assert a.value.split(" at ", 1)[1] != b.value.split(" at ", 1)[1], (a.value, b.value)
