"""The event catalog: what can happen to a persona, and which facts each outcome establishes.

Each `EventKind` knows how to draw its concrete entity (a dog's name, a cafe, a race), how to title a
plan for it (a short lower-case verb phrase naming the entity, reused by question templates), and which
facts, profile changes and ongoing matters a positive or a negative outcome produces. Templates use
`str.format` fields taken from the entity dict.
"""

from __future__ import annotations

from tasks.world import entities as E
from tasks.world import entities_life as L
from tasks.world import transitions as T
from tasks.world.catalog_life import LIFE_KINDS
from tasks.world.catalog_stages import STAGE_KINDS
from tasks.world.eventkinds import ConstraintSpec, EventKind, FactSpec, MatterSpec, Outcome, tags
from tasks.world.eventkinds import fs as _fs

__all__ = ["KINDS", "ConstraintSpec", "EventKind", "FactSpec", "MatterSpec", "Outcome"]


CORE_KINDS: list[EventKind] = [
        EventKind(
            "new_job",
            "start a new job as a {role} at {company}",
            E.draw_job,
            Outcome(
                (
                    _fs("employer", "{company}", path="identity.employer"),
                    _fs("occupation", "{role}", path="identity.occupation"),
                ),
                MatterSpec("settling in at {company}", (14, 30)),
                critical=True,
            ),
            Outcome(
                (_fs("job_offer_withdrawn", "job offer from {company}", "{company}"),),
                MatterSpec("job hunting after the {company} offer fell through", (21, 45)),
                took_place=False,
            ),
            weight=1,
            yearly=T.change_jobs,
            long_share=0.9,
            cooldown=365,  # a job search a year at most: about one worker in four changes employer in a year
            requires=E.job_seeker,
            tags=tags("career"),
        ),
        EventKind(
            "move_flat",
            "move into a flat at {address}",
            E.draw_flat,
            Outcome(
                (_fs("home", "flat at {address}", "{address}", path="belongings[kind=home]"),),
                MatterSpec("unpacking at the flat at {address}", (7, 21)),
                critical=True,
                constraint=ConstraintSpec(
                    "spending_restriction", "no big purchases until {until}", "no big purchases",
                    ("big_purchase", "moving"), (30, 60),
                ),
            ),
            Outcome(
                (_fs("move_fell_through", "move to {address}", "{address}"),),
                MatterSpec("still looking for a new flat", (14, 40)),
                took_place=False,
            ),
            weight=1,
            yearly=T.move_home,
            long_share=0.9,
            cooldown=150,
            tags=tags("moving", "spending"),
        ),
        EventKind(
            "adopt_pet",
            "adopt a {pet_kind} named {pet_name}",
            E.draw_pet,
            Outcome(
                (_fs("pet", "{pet_kind} named {pet_name}", "{pet_name}", path="belongings[kind=pet]"),),
                MatterSpec("house-training {pet_name}", (14, 30)),
            ),
            Outcome(
                (_fs("adoption_refused", "adoption of {pet_name} the {pet_kind}", "{pet_name}"),), took_place=False
            ),
            weight=1,
            long_share=0.6,
            cooldown=60,
            requires=lambda p: E.belonging(p, "pet") is None,
            tags=tags("commitment", "spending"),
        ),
        EventKind(
            "start_course",
            "start a {subject} course at {school}",
            E.draw_course,
            Outcome(
                (
                    _fs(
                        "course", "{subject} course at {school}", "{school}", path="traits.preferences.course"
                    ),
                ),
                MatterSpec(
                    "attending the {subject} course at {school}", (28, 70), clears="traits.preferences.course"
                ),
            ),
            Outcome((_fs("course_cancelled", "{subject} course at {school}"),), took_place=False),
            cooldown=45,
            tags=tags("learning", "spending"),
        ),
        EventKind(
            "join_gym",
            "join {gym}",
            E.draw_gym,
            Outcome(
                (_fs("gym", "{gym}", path="traits.preferences.gym"),),
                health="feeling fitter since joining {gym}",
            ),
            Outcome((_fs("gym_signup_failed", "{gym}"),), took_place=False),
            cooldown=90,
            tags=tags("sport", "spending"),
        ),
        EventKind(
            "buy_vehicle",
            "buy a {vehicle}",
            E.draw_vehicle,
            Outcome((_fs("vehicle", "{vehicle}", "{model}", path="belongings[kind=vehicle]"),)),
            Outcome((_fs("purchase_fell_through", "purchase of the {vehicle}", "{model}"),), took_place=False),
            weight=1,
            long_share=0.7,
            cooldown=180,
            tags=tags("spending", "big_purchase"),
        ),
        EventKind(
            "city_trip",
            "take a {length} trip to {city}",
            E.draw_trip,
            Outcome((_fs("trip", "{length} trip to {city}", "{city}"),)),
            Outcome(
                (_fs("trip_cancelled", "trip to {city}", "{city}"),),
                MatterSpec("rebooking the trip to {city}", (7, 21)),
                took_place=False,
            ),
            long_share=0.7,
            cooldown=21,
            tags=tags("travel", "spending"),
        ),
        EventKind(
            "doctor_visit",
            "see {doctor} about {complaint}",
            E.draw_doctor,
            Outcome(
                (_fs("doctor", "{doctor}", path="relationships[role=doctor]"),),
                health="healthy after a check-up with {doctor}",
            ),
            Outcome(
                (_fs("diagnosis", "{diagnosis}"),),
                MatterSpec(
                    "treatment for a {diagnosis}",
                    (14, 45),
                    health="under treatment for a {diagnosis}",
                    health_after="recovered from a {diagnosis}",
                ),
                critical=True,
                constraint=ConstraintSpec(
                    "travel_restriction", "no travel or hard exercise until {until}", "no travel",
                    ("travel", "sport", "exertion", "running"), (14, 35),
                ),
            ),
            long_share=0.3,
            cooldown=30,
            tags=tags("health"),
            keep="doctor",
            keep_share=0.9,
        ),
        EventKind(
            "run_race",
            "run the {race}",
            E.draw_race,
            Outcome((_fs("race_result", "{race} in {minutes} minutes", "{minutes} minutes"),)),
            Outcome(
                (_fs("injury", "{injury}"),),
                MatterSpec(
                    "physiotherapy for a {injury}",
                    (14, 42),
                    health="recovering from a {injury}",
                    health_after="fully recovered from a {injury}",
                ),
                critical=True,
                constraint=ConstraintSpec(
                    "running_restriction", "no running until {until}", "no running",
                    ("running", "sport", "exertion"), (35, 49),
                ),
            ),
            weight=1,
            long_share=0.8,
            cooldown=60,
            tags=tags("running", "sport", "exertion"),
        ),
        EventKind(
            "start_book",
            "start reading {book} by {author}",
            E.draw_book,
            Outcome(
                (_fs("current_book", "{book} by {author}", "{book}", path="traits.preferences.book"),),
                MatterSpec("reading {book}", (10, 30), clears="traits.preferences.book"),
            ),
            Outcome((_fs("abandoned_book", "{book} by {author}", "{book}"),)),
            weight=3,
            long_share=0.1,
            tags=tags("reading"),
        ),
        EventKind(
            "new_cafe",
            "try {cafe} on {street}",
            E.draw_cafe,
            Outcome((_fs("favourite_cafe", "{cafe}", path="traits.preferences.cafe"),)),
            Outcome((_fs("disliked_cafe", "{cafe}"),)),
            weight=3,
            long_share=0.1,
            tags=tags("outing"),
        ),
        EventKind(
            "friend_visit",
            "host {friend} for {occasion}",
            E.draw_visit,
            Outcome(
                (
                    _fs(
                        "{life_attribute}",
                        "{life_value}",
                        "{life_short}",
                        subject="friend",
                        path="relationships[name={friend}].attributes.{life_attribute}",
                    ),
                )
            ),
            Outcome(
                (
                    _fs(
                        "visit_cancelled",
                        "the visit for {occasion} because of {reason}",
                        subject="friend",
                    ),
                ),
                took_place=False,
            ),
            weight=3,
            long_share=0.4,
            cooldown=10,
            spare_cooldown=6,
            requires=lambda p: bool(E.friends(p)),
            tags=tags("hosting", "social"),
        ),
        EventKind(  # a friend's life heard between visits: the news of someone whose life may change now
            "friend_call",
            "catch up with {friend} on the phone about {topic}",
            E.draw_friend_call,
            Outcome(
                (
                    _fs(
                        "{life_attribute}",
                        "{life_value}",
                        "{life_short}",
                        subject="friend",
                        path="relationships[name={friend}].attributes.{life_attribute}",
                    ),
                )
            ),
            Outcome((_fs("missed_call", "{topic}", subject="friend"),), took_place=False),
            weight=2,
            long_share=0.0,
            cooldown=5,
            spare_cooldown=4,
            requires=lambda p: bool(E.friends(p)),
            tags=tags("social"),
        ),
        EventKind(
            "work_project",
            "kick off the {project} project at work",
            E.draw_project,
            Outcome(
                (_fs("work_project", "{project} project"),),
                MatterSpec("leading the {project} project", (30, 90)),
            ),
            Outcome((_fs("project_on_hold", "{project} project"),), took_place=False),
            long_share=0.5,
            cooldown=45,
            requires=L.employed,
            tags=tags("career"),
        ),
]

KINDS: dict[str, EventKind] = {k.key: k for k in CORE_KINDS + LIFE_KINDS + STAGE_KINDS}
