"""Organisation emails come from the organisation the event involved and state only what its records hold."""

from __future__ import annotations

from tasks.common.facttext import carries_first
from tasks.sources import emails
from tasks.sources.organisations import line, proper, writer_for
from tests.tasks.worldfixture import PID, make_config, make_gateway, make_persona, make_world


def course_world(school: str = "Clay Studio", kind: str = "start_course"):
    """The fixture with e0002 made a course start at `school`: its fact the enrolment, plus one it cannot know."""
    world = make_world()
    plans = [p.model_copy(update={"kind": kind, "entity": {"school": school, "employer": school, "subject": "pottery"}})
             if p.plan_id == f"{PID}-pl0002" else p for p in world.plans]
    course = next(f for f in world.facts if f.fact_id == f"{PID}-f0006").model_copy(
        update={"attribute": "course", "value": f"pottery course at {school}",
                "surface_forms": [f"pottery course at {school}"]})
    mood = course.model_copy(update={"fact_id": f"{PID}-f0099", "attribute": "mood", "value": "nervous",
                                     "surface_forms": ["nervous"]})
    facts = [course if f.fact_id == course.fact_id else f for f in world.facts] + [mood]
    return world.model_copy(update={"plans": plans, "facts": facts}), course, mood


def event_of(world):
    return next(e for e in world.events if e.event_id == f"{PID}-e0002")


def alone():
    persona = make_persona()
    return persona.model_copy(update={"profile": persona.profile.model_copy(update={"relationships": []})})


def test_the_school_writes_about_the_enrolment_and_nothing_else():
    world, course, mood = course_world()
    writer = writer_for(make_persona(), world, event_of(world), [course, mood])
    assert (writer.name, writer.notice, writer.mailbox, writer.facts) == ("Clay Studio", "enrolment", "admissions",
                                                                          (course,))
    assert line(course) == "We are pleased to confirm your place on the pottery course at Clay Studio"


def test_no_organisation_writes_about_an_event_that_involved_none():
    world = make_world()
    assert writer_for(make_persona(), world, event_of(world), []) is None  # a plan kind no organisation follows
    nameless, course, _ = course_world(school="the park")
    assert writer_for(make_persona(), nameless, event_of(nameless), [course]) is None
    own, course, _ = course_world(school="Self-employed", kind="work_project")
    assert writer_for(make_persona(), own, event_of(own), [course]) is None


def test_an_organisation_email_is_sent_by_it_and_says_only_its_facts():
    world, course, mood = course_world()
    planned = emails.event_email(make_config(), alone(), world, event_of(world))
    assert planned.context["direction"] == "organisation" and planned.context["notice"] == "enrolment"
    doc = planned.render(make_gateway().generate_many([planned.call()])[0])
    assert doc.sender == "Clay Studio <admissions@clay-studio.example>"
    assert doc.fact_ids == [course.fact_id] and carries_first(doc.body, course) and "nervous" not in doc.body
    assert "request to" not in doc.body.lower() and "records now show" not in doc.body.lower()


def test_nobody_writes_when_no_organisation_and_no_one_close_would():
    assert emails.event_email(make_config(), alone(), make_world(), event_of(make_world())) is None


def test_proper_names_sign_emails_and_descriptions_do_not():
    assert [proper(n) for n in ("the Old Mill", "Night Run 8K", "Paws & Whiskers", "Dr. Ruth Bennett")] == [True] * 4
    assert [proper(n) for n in ("the park", "the Saturday farmers' market", "self-employed", "")] == [False] * 4


def test_no_receipt_for_a_shop_that_never_happened_but_a_booking_cancelled_is_confirmed():
    world, course, _ = course_world(school="Maple Grocers", kind="weekly_shop")
    plans = [p.model_copy(update={"entity": {"market": "Maple Grocers"}}) if p.plan_id == f"{PID}-pl0002" else p
             for p in world.plans]
    world = world.model_copy(update={"plans": plans})
    wasted = event_of(world).model_copy(update={"kind": "weekly_shop", "valence": "negative"})
    assert writer_for(make_persona(), world, wasted, []) is None  # a wasted trip: the shop holds no record of it
    done = wasted.model_copy(update={"valence": "positive"})
    assert writer_for(make_persona(), world, done, []).notice == "receipt"
    plans = [p.model_copy(update={"kind": "dinner_out", "entity": {"restaurant": "Kebab Corner"}})
             if p.plan_id == f"{PID}-pl0002" else p for p in world.plans]
    dinner = world.model_copy(update={"plans": plans})
    cancelled = course.model_copy(update={"attribute": "dinner_cancelled", "value": "dinner at Kebab Corner",
                                          "surface_forms": ["dinner at Kebab Corner"]})
    off = wasted.model_copy(update={"kind": "dinner_out"})
    writer = writer_for(make_persona(), dinner, off, [cancelled])
    assert writer is not None and writer.facts == (cancelled,)  # it holds the cancellation: it confirms it
