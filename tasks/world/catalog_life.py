"""Everyday and life-transition event kinds, merged into tasks/world/catalog.py's KINDS.

Short-term plans: routines (hobby sessions, the weekly shop), social life (calls, dinners, lunches
with colleagues, evenings with a partner, dates) and interests (concerts, volunteering). Long-term
plans: career progress (promotion, restructuring, retirement), milestones (celebrations), transitions.
Critical negatives (breakup, financial shock, job loss, illness) impose lasting constraints.
"""

from __future__ import annotations

from tasks.world import entities_life as L
from tasks.world import transitions as T
from tasks.world.eventkinds import ConstraintSpec, EventKind, MatterSpec, Outcome, fs, tags


def _single(profile) -> bool:
    return L.partner(profile) is None and profile["identity"]["age"] < 70


def _near_retirement(profile) -> bool:
    return L.employed(profile) and profile["identity"]["age"] >= 58


LIFE_KINDS: list[EventKind] = [
    EventKind(
        "hobby_session", "spend {duration} on {hobby} at {spot}", L.draw_hobby_session,
        Outcome((fs("hobby_session", "{hobby} at {spot}", "{hobby}"), fs("hobby_goal", "{goal}"))),
        Outcome((fs("session_rained_off", "{hobby} session at {spot}", "{hobby}"),), took_place=False),
        weight=5, long_share=0.0, cooldown=5, spare_cooldown=3, tags=tags("routine"), keep="hobby_goal",
        keep_share=0.85, keep_with=("hobby", "spot", "tags"),
    ),
    EventKind(
        "weekly_shop", "do the weekly shop at {market}", L.draw_shop,
        Outcome((fs("grocery_shop", "{market}", path="traits.preferences.grocery_shop"),)),
        Outcome((fs("wasted_shop", "trip to {market}", "{market}"),), took_place=False),
        weight=3, long_share=0.0, cooldown=7, tags=tags("routine", "errand"),
        keep="grocery_shop", keep_share=0.85,
    ),
    EventKind(
        "cafe_visit", "stop by {cafe} for {drink}", L.draw_cafe_visit,
        Outcome((fs("cafe_visit", "{drink} at {cafe}", "{cafe}"),)),
        Outcome((fs("bad_visit", "{problem} at {cafe}", "{cafe}"),)),
        weight=2, long_share=0.0, cooldown=10, spare_cooldown=6,
        requires=lambda p: bool(p["traits"]["preferences"].get("cafe")),
        tags=tags("outing"),
    ),
    EventKind(
        "family_call", "call {relative} about {topic}", L.draw_call,
        Outcome((fs("{life_attribute}", "{life_value}", "{life_short}", subject="relative",
                    path="relationships[name={relative}].attributes.{life_attribute}"),)),
        Outcome((fs("missed_call", "{topic}", subject="relative"),), took_place=False),
        weight=3, long_share=0.0, cooldown=7, spare_cooldown=4, requires=lambda p: bool(p["relationships"]),
        tags=tags("social"),
    ),
    EventKind(
        "dinner_out", "have dinner at {restaurant} with {companion}", L.draw_dinner,
        Outcome((fs("dinner_out", "{dish} at {restaurant}", "{restaurant}"),)),
        Outcome((fs("dinner_cancelled", "dinner at {restaurant}", "{restaurant}"),), took_place=False),
        weight=3, long_share=0.2, cooldown=6, requires=lambda p: bool(p["relationships"]),
        tags=tags("social", "outing", "spending"),
    ),
    EventKind(
        "colleague_lunch", "have lunch with {colleague} from {team}", L.draw_colleague,
        Outcome((fs("recommendation", "{tip}", subject="colleague"), fs("team", "{team}", subject="colleague"))),
        Outcome((fs("lunch_cancelled", "lunch with {colleague}", "{colleague}"),), took_place=False),
        weight=3, long_share=0.0, cooldown=7, requires=L.employed, tags=tags("social", "work"),
    ),
    EventKind(  # the admin of a life: a haircut, the dentist, the bike in for a service (a booked slot kept or missed)
        "appointment", "book a {service} at {place}", L.draw_appointment,
        Outcome((fs("appointment", "{service} at {place}", "{place}"),)),
        Outcome((fs("appointment_missed", "{service} at {place}", "{place}"),), took_place=False),
        weight=1, long_share=0.3, cooldown=8, tags=tags("errand"),
    ),
    EventKind(
        "concert", "see {artist} at {venue}", L.draw_concert,
        Outcome((fs("concert", "{artist} at {venue}", "{artist}"),)),
        Outcome((fs("gig_cancelled", "{artist} gig", "{artist}"),), took_place=False),
        weight=2, long_share=0.6, cooldown=20, tags=tags("outing", "spending"),
    ),
    EventKind(
        "volunteer", "volunteer at {org}", L.draw_volunteer,
        Outcome((fs("volunteering", "{task} at {org}", "{org}", path="traits.preferences.volunteering"),),
                hobby="volunteering at {org}"),
        Outcome((fs("turned_away", "{org}"),), took_place=False),
        weight=2, long_share=0.3, cooldown=14, spare_cooldown=7, tags=tags("social", "commitment"),
        keep="volunteering", keep_share=0.8, keep_with=("org_kind",),
    ),
    EventKind(
        "partner_evening", "take {partner} out to {place}", L.draw_partner_evening,
        Outcome((fs("evening_out", "{place} with {partner}", "{place}"),)),
        Outcome((fs("evening_cancelled", "evening at {place}", "{place}"),), took_place=False),
        weight=2, long_share=0.2, cooldown=12, requires=lambda p: L.partner(p) is not None,
        tags=tags("social", "partner", "spending"),
    ),
    EventKind(
        "relationship_talk", "have a serious talk with {partner} at {place}", L.draw_partner_evening,
        Outcome((fs("relationship_status", "together with {partner}", "{partner}"),)),
        Outcome(
            (fs("relationship", "ex-partner", "{partner}", subject="partner"),),
            MatterSpec("getting over the breakup with {partner}", (30, 75)),
            critical=True,
            constraint=ConstraintSpec("dating_pause", "no dating until {until}", "no dating",
                                      ("dating", "partner"), (60, 120)),
            removes=("relationships[name={partner}]",),
        ),
        weight=1, long_share=0.6, cooldown=90, requires=lambda p: L.partner(p) is not None,
        tags=tags("partner"),
    ),
    EventKind(
        "meet_someone", "get to know {new_name} at {where}", L.draw_new_friend,
        Outcome((fs("relationship", "friend", "{new_name}", subject="new_name",
                    path="relationships[role=friend from {where}]", writes="{new_name}"),)),
        Outcome((fs("went_nowhere", "{new_name}"),)),
        weight=1, long_share=0.0, cooldown=90, spare_cooldown=60, requires=lambda p: bool(L.new_friend_places(p)),
        tags=tags("social"),
    ),
    EventKind(
        "first_date", "go on a first date with {date_name} at {place}", L.draw_date,
        Outcome((fs("relationship", "partner", "{date_name}", subject="date_name",
                    path="relationships[role=partner]", writes="{date_name}"),)),
        Outcome((fs("no_second_date", "{date_name}"),)),
        weight=1, long_share=0.2, cooldown=30, requires=_single, tags=tags("dating", "social", "spending"),
    ),
    EventKind(
        "visit_family", "visit {relative} for {topic}", L.draw_call,
        Outcome((fs("family_visit", "a visit to {relative} for {topic}", "{relative}"),)),
        Outcome(
            (fs("illness", "bad flu"),),
            MatterSpec("recovering from a bad flu", (7, 14), health="down with a bad flu",
                       health_after="back to full health after the flu"),
            critical=True,
            constraint=ConstraintSpec("travel_restriction", "no travel or hard exercise until {until}", "no travel",
                                      ("travel", "sport", "running", "exertion"), (10, 21)),
        ),
        weight=3, long_share=0.5, cooldown=20, spare_cooldown=12, requires=lambda p: bool(L.family(p)),
        tags=tags("travel", "social"),
    ),
    EventKind(
        "big_bill", "sort out the {bill}", L.draw_bill,
        Outcome((fs("bill_paid", "{bill}", "{bill}"),)),
        Outcome(
            (fs("financial_shock", "{bill} costing {amount}", "{bill}"), fs("sold_item", "{item}")),
            MatterSpec("paying off the {bill}", (30, 90)),
            critical=True,
            constraint=ConstraintSpec("spending_restriction", "no non-essential spending until {until}",
                                      "no non-essential spending", ("spending", "big_purchase", "travel"), (45, 90)),
            removes=("belongings[name={item}]",),
        ),
        weight=3, long_share=0.3, cooldown=30, tags=tags("errand"),
    ),
    EventKind(
        "promotion", "ask for a promotion at {employer}", L.draw_promotion,
        Outcome((fs("income_band", "{band}", "{band} income", path="identity.income_band"),)),
        Outcome((fs("passed_over", "passed over for promotion", "passed over"),)),
        weight=1, long_share=0.9, cooldown=120, requires=L.has_boss, tags=tags("career"),
    ),
    EventKind(
        "restructure", "get through the restructuring at {employer}", L.draw_restructure,
        Outcome((fs("restructuring_survived", "kept the job after the restructuring", "kept the job"),)),
        Outcome(
            (fs("employer", "unemployed", "laid off", path="identity.employer"),),
            MatterSpec("looking for work after the layoff at {employer}", (30, 90)),
            critical=True,
            constraint=ConstraintSpec("spending_restriction", "no big purchases or trips until {until}",
                                      "no big purchases", ("big_purchase", "travel"), (60, 120)),
        ),
        weight=1, long_share=0.9, cooldown=365, requires=L.has_boss, tags=tags("career"), yearly=T.restructuring,
    ),
    EventKind(
        "milestone", "celebrate {person}'s {milestone} at {venue}", L.draw_milestone,
        Outcome((fs("celebration", "{milestone} at {venue}", "{milestone}", subject="person"),)),
        Outcome((fs("celebration_postponed", "{milestone}", subject="person"),), took_place=False),
        weight=2, long_share=0.8, cooldown=30, requires=lambda p: bool(p["relationships"]),
        tags=tags("social", "outing"),
    ),
    EventKind(
        "retire", "retire from {employer}", L.draw_retirement,
        Outcome(
            (fs("occupation", "retired {occupation}", path="identity.occupation"),
             fs("employer", "retired", path="identity.employer")),
            critical=True,
            lifestyle="early riser enjoying a slower retired life",
        ),
        Outcome((fs("retirement_postponed", "put off retirement by a year", "retirement"),), took_place=False),
        weight=1, long_share=1.0, cooldown=200, requires=_near_retirement, tags=tags("career"),
    ),
]
