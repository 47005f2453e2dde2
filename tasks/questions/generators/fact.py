"""Fact questions: the value of an attribute at a moment, reached directly, through a link or by exclusion.

- multi_hop_traversal: two facts chained through a person. A role or a team names a person (fact 1), and
  something of their own life (their job, their pet, the race they train for), their latest tip or
  celebration is asked (fact 2); or the other way round ("Which team is the colleague
  who recommended X on?"); or an event names the person ("the friend Maya hosted for the football final").
- entity_disambiguation: two people who share a first name (the simulator plants such pairs); one is named
  by first name plus a cue only they fit (their role, their team, the tip they gave) and a current value
  of theirs is asked. The namesake's value is the first distractor.
- state_dependent_attribute: the value of an attribute that changed, asked at the default question time
  (its current value: template `.now`) and mid-timeline on the day before each change (the value about to be
  replaced: `.before_change`) and a few days after it (the new value: `.after_change`); and the value it held
  when something else happened, since changed (`.at_event`, kit/then.py: "What was Maya's job when she moved
  into the flat at 8 Elm Road?", years apart in a long life).
- negative_constraints: the one plan of a kind that did NOT work out in a month ("Which café that Maya
  tried in March did she NOT like?"); the kind's successful entities are the distractors.

Answers are computed from the fact store at the candidate's asked_at; every fact a candidate uses has
evidence (a turn or chunk that claims and carries it) before that moment. The helpers (phrasing, story
events, evidence, asked_at) are the kit's (tasks/questions/generators/kit/).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable

from schemas.world import Fact
from tasks.common.facttext import first_name, is_event_attribute
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, generator
from tasks.questions.generators.kit import (
    NOT_ENTITIES,
    Story,
    ask_on,
    attribute_pool,
    carried_refs,
    changes_with_reasons,
    confusable,
    day_of,
    entity_pool,
    histories,
    hop_sources,
    known,
    month_end,
    month_name,
    month_start,
    pool,
    possessive,
    refs,
    state_query,
    stories,
    value_at_event,
    values_of,
    when,
    who,
)
from tasks.world.standing import TEAMS

# ---------------------------------------------------------------------------------------------- helpers


AFTER_CHANGE_DAYS = 3
"""A state question is also asked this many days after a change (once its evidence is in)."""

# Question wording per persona attribute: {p} is the persona's first name, {ps} its possessive.
STATE_QUESTIONS: dict[str, str] = {
    "occupation": "What is {ps} job now?",
    "employer": "Who is {ps} employer now?",
    "city": "Which city does {p} live in now?",
    "home": "Where is {ps} home now?",
    "pet": "What pet does {p} have now?",
    "vehicle": "What vehicle does {p} own now?",
    "gym": "Which gym is {p} a member of now?",
    "doctor": "Who is {ps} doctor now?",
    "course": "Which course is {p} taking now?",
    "current_book": "Which book is {p} reading now?",
    "favourite_cafe": "Which café is {ps} favourite now?",
    "grocery_shop": "Where does {p} do the weekly shop now?",
    "volunteering": "What volunteering does {p} do now?",
    "work_project": "Which work project is {p} on now?",
    "income_band": "What is {ps} income band now?",
    "relationship_status": "What is {ps} relationship status now?",
    "hobby": "What is {ps} main hobby now?",
    "hobby_goal": "What is {p} working towards in their hobbies these days?",
    "age": "How old did {p} turn on {ps} most recent birthday?",
    "trip": "What was {ps} most recent trip?",
    "concert": "What was the most recent concert {p} went to?",
    "dinner_out": "What did {p} eat at {p}'s most recent dinner out, and where was it?",
    "hobby_session": "What was {ps} most recent hobby session?",
    "bill_paid": "Which big bill did {p} most recently sort out?",
    "family_visit": "What was {ps} most recent family visit?",
    "evening_out": "Where did {p} go on the most recent evening out?",
    "race_result": "What was {ps} most recent race result?",
}

# What the persona's people are up to in their own lives (ontology domain `life`, and their pet and course):
# {x} names the person (full name or a cue phrase).
LIFE_QUESTIONS: dict[str, str] = {
    "job_title": "What job does {x} have now?",
    "workplace": "Where does {x} work now?",
    "partner": "Who is {x} seeing now?",  # the history says "a new partner", "seeing Teo", not always engaged
    "next_city": "Which city is {x} moving to?",
    "side_project": "What side project has {x} started?",
    "race_goal": "Which race is {x} training for?",
    "club": "Which club has {x} joined?",
    "home_project": "What is {x} doing at home these days?",
    "next_holiday": "Where is {x} going on their next holiday?",
    "pet": "What pet does {x} have now?",
    "course": "Which course is {x} taking now?",
    "age": "How old is {x} now?",
    "school": "Which school does {x} go to now?",
}
# Wording for attributes of other people: {x} names the person (full name or a cue phrase).
PERSON_QUESTIONS: dict[str, str] = LIFE_QUESTIONS | {
    "recommendation": "What did {x} most recently recommend to {p}?",
    "celebration": "What did {x} most recently celebrate?",
    "team": "Which team is {x} on?",
}


def roles(ctx: QContext, day: dt.date) -> dict[str, tuple[str, Fact]]:
    """Person -> (role, the relationship fact) for relations holding on `day`."""
    out = {}
    for f in ctx.world.facts:
        if f.attribute == "relationship" and ctx.valid_on(f, day) and f.value != "ex-partner":
            out[f.subject] = (f.value, f)
    return out


def teams(ctx: QContext, day: dt.date) -> dict[str, Fact]:
    """Colleague -> their team fact holding on `day`."""
    return {f.subject: f for f in ctx.world.facts if f.attribute == "team" and ctx.valid_on(f, day)}


# ------------------------------------------------------------------------------ state_dependent_attribute


def state_text(ctx: QContext, fact: Fact) -> str | None:
    """The question asking for the fact's attribute now, or None when it has no wording."""
    p = who(ctx)
    if fact.subject == ctx.persona.name and fact.attribute in STATE_QUESTIONS:
        return STATE_QUESTIONS[fact.attribute].format(p=p, ps=possessive(p))
    if fact.subject != ctx.persona.name and fact.attribute in PERSON_QUESTIONS:
        role = roles(ctx, fact.valid_from).get(fact.subject)
        x = f"{possessive(p)} {role[0]} {fact.subject}" if role else fact.subject
        return PERSON_QUESTIONS[fact.attribute].format(x=x, p=p)
    return None


@generator("fact", "state_dependent_attribute")
def state_dependent_attribute(ctx: QContext) -> list[Candidate]:
    """The current value of every attribute that changed, at the default time and on the day before each
    change (when the older value still held); for an event attribute, the most recent such event."""
    out = []
    for (subject, attribute), history in sorted(histories(ctx).items()):
        if len(history) < 2 or (question := state_text(ctx, history[-1])) is None:
            continue
        moments = {ctx.asked_at: (0, "now")}
        for new in history[1:]:  # the morning before each change, and a few days after it
            moments.setdefault(ask_on(ctx, new.valid_from - dt.timedelta(days=1)), (1, "before_change"))
            moments.setdefault(ask_on(ctx, new.valid_from + dt.timedelta(days=AFTER_CHANGE_DAYS)), (1, "after_change"))
        for asked_at, (priority, moment) in moments.items():
            day = day_of(ctx, asked_at)
            now = ctx.current(subject, attribute, day)
            if now is None or asked_at > ctx.asked_at or not known(ctx, [now.fact_id], asked_at):
                continue
            if asked_at != ctx.asked_at and day == ctx.day:
                continue
            before = [f for f in history if f.valid_from < now.valid_from]
            later = [f for f in history if f.valid_from > day]
            if is_event_attribute(attribute):
                reference = (f"As of {human_date(day)}, the most recent was on {human_date(now.valid_from)}: "
                             f"{now.value}.")
            else:
                reference = f"As of {human_date(day)}, the answer is {now.value} (since {human_date(now.valid_from)})."
            if before:
                reference += f" Before that it was {before[-1].value}."
            event = is_event_attribute(attribute)  # "the most recent dinner out": earlier ones still happened
            earlier = "earlier_event_fact_ids" if event else "superseded_fact_ids"
            out.append(Candidate(
                "fact", ("state_dependent_attribute",), question, now.value, reference,
                f"fact.state_dependent_attribute.{moment}", state_query(subject, attribute, day), (now.fact_id,),
                asked_at=when(ctx, asked_at),
                distractors=pool([f.value for f in reversed(history)] + values_of(ctx, attribute)
                                 + attribute_pool(ctx, attribute), now.value),
                priority=priority,
                extra={earlier: [f.fact_id for f in before], "later_fact_ids": [f.fact_id for f in later],
                       "subject": subject, "attribute": attribute,
                       "answer_rule": "latest_event" if event else "current_value"},
            ))
    return out + value_at_event(ctx)  # the value when something else happened (kit/then.py)


# --------------------------------------------------------------------------------- entity_disambiguation


def namesakes(ctx: QContext) -> dict[str, list[str]]:
    """First name -> the people (fact subjects or relations, not the persona, no titles) sharing it."""
    people = {r.name for r in ctx.persona.profile.relationships}
    people |= {f.subject for f in ctx.world.facts
               if f.attribute in ("relationship", "team", "recommendation", *LIFE_QUESTIONS) and f.valid_from < ctx.day}
    people.discard(ctx.persona.name)
    groups: dict[str, list[str]] = defaultdict(list)
    for name in sorted(people):
        if len(name.split()) > 1 and not name.split()[0].endswith("."):
            groups[first_name(name)].append(name)
    return {k: v for k, v in groups.items() if len(v) > 1}


@generator("fact", "entity_disambiguation")
def entity_disambiguation(ctx: QContext) -> list[Candidate]:
    """An attribute of one of two people sharing a first name, named by a cue only they fit."""
    out: list[Candidate] = []
    p, day, at = who(ctx), ctx.day, ctx.asked_at
    rel, team = roles(ctx, day), teams(ctx, day)
    for first, names in sorted(namesakes(ctx).items()):
        for name in names:
            others = [n for n in names if n != name]
            cues = []
            if name in rel and all(rel.get(o, ("",))[0] != rel[name][0] for o in others):
                cues.append((f"{possessive(p)} {rel[name][0]} {first}", rel[name][1], "role"))
            if name in team and all(o not in team or team[o].value != team[name].value for o in others):
                cues.append((f"{first} from {team[name].value}", team[name], "team"))
            for attribute in (*LIFE_QUESTIONS, "recommendation", "celebration"):
                now = ctx.current(name, attribute, day)
                if now is None:
                    continue
                rival = [ctx.current(o, attribute, day) for o in others]
                rival_values = [r.value for r in rival if r is not None]
                if now.value in rival_values:
                    continue
                for cue, cue_fact, kind in cues:
                    fids = (now.fact_id, cue_fact.fact_id)
                    if not known(ctx, [now.fact_id], at):
                        continue
                    evidence = refs(ctx, [now.fact_id], at) + carried_refs(ctx, cue_fact, at)
                    question = PERSON_QUESTIONS[attribute].format(x=cue, p=p)
                    out.append(Candidate(
                        "fact", ("entity_disambiguation",), question, now.value,
                        f"{cue} is {name} (not {', '.join(others)}); as of {human_date(day)} the answer is "
                        f"{now.value}.",
                        f"fact.entity_disambiguation.{kind}", state_query(name, attribute, day), fids,
                        evidence=evidence,
                        distractors=pool(rival_values + [f.value for f in histories(ctx).get((name, attribute), [])]
                                         + values_of(ctx, attribute), now.value),
                        priority=(0 if rival_values else 1) + (not ctx.evidence_for(cue_fact.fact_id, at)),
                        extra={"resolved_entity": name, "confusable_with": others, "cue": cue,
                               "answer_rule": "current_value"},
                    ))
            out += _team_by_tip(ctx, name, others, team)
    return out


def _team_by_tip(ctx: QContext, name: str, others: list[str], team: dict[str, Fact]) -> list[Candidate]:
    """"Which team is the <first> who recommended <tip> to <persona> on?" (the tip singles them out)."""
    if name not in team:
        return []
    p, first, at = who(ctx), first_name(name), ctx.asked_at
    other_tips = {f.value for o in others for f in ctx.history(o, "recommendation") if f.valid_from < ctx.day}
    out = []
    for tip in ctx.history(name, "recommendation"):
        if tip.value in other_tips or tip.valid_from >= ctx.day:
            continue
        if not known(ctx, [tip.fact_id, team[name].fact_id], at):
            continue
        question = f"Which team is the {first} who recommended {tip.value} to {p} on?"
        answer = team[name].value
        out.append(Candidate(
            "fact", ("entity_disambiguation",), question, answer,
            f"The {first} who recommended {tip.value} is {name} (not {', '.join(others)}), who is on {answer}.",
            "fact.entity_disambiguation.tip", state_query(name, "team", ctx.day), (team[name].fact_id, tip.fact_id),
            distractors=pool([team[o].value for o in others if o in team] + values_of(ctx, "team") + list(TEAMS),
                             answer),
            priority=0,
            extra={"resolved_entity": name, "confusable_with": others, "answer_rule": "current_value"},
        ))
    return out


# ----------------------------------------------------------------------------------- multi_hop_traversal


def _hop(ctx: QContext, question: str, target: Fact, link: Fact, reference: str, variant: str,
         distractors: Iterable[str], extra: dict | None = None) -> Candidate | None:
    """A two-fact candidate: `link` identifies the person, `target` (current at asked_at) answers."""
    at = ctx.asked_at
    if not known(ctx, [target.fact_id], at):
        return None
    linked, answered = carried_refs(ctx, link, at), refs(ctx, [target.fact_id], at)
    evidence = answered + linked
    if not any(r.fact_id == link.fact_id for r in evidence):
        return None
    sources = hop_sources(ctx, linked, answered, link)
    if sources is None:
        return None
    return Candidate(
        "fact", ("multi_hop_traversal",), question, target.value, reference,
        f"fact.multi_hop_traversal.{variant}",
        f"SELECT t.value FROM facts l JOIN facts t ON t.subject = l.subject WHERE l.fact_id = '{link.fact_id}' "
        f"AND t.attribute = '{target.attribute}' AND t.valid_from <= '{ctx.day}' "
        f"AND (t.valid_to IS NULL OR t.valid_to > '{ctx.day}') ORDER BY t.valid_from DESC LIMIT 1",
        (target.fact_id, link.fact_id), evidence=evidence, distractors=pool(distractors, target.value),
        # links cited only through unclaiming items later, chains one passage also resolves last
        priority=1 + (not ctx.evidence_for(link.fact_id, at)) + 2 * (not sources["needed"]),
        extra={"hop_entity": target.subject, "link_fact_id": link.fact_id, "answer_rule": "current_value",
               "hop_sources": {"link": sources["first"], "answer": sources["second"]},
               "hops_needed": sources["needed"], **(extra or {})},
    )


@generator("fact", "multi_hop_traversal")
def multi_hop_traversal(ctx: QContext) -> list[Candidate]:
    """Chains of two facts through a person: role -> person -> their own life or latest celebration; team ->
    colleague -> latest tip; tip -> colleague -> team; event -> person -> their own life."""
    p, day = who(ctx), ctx.day
    out: list[Candidate | None] = []
    rel, team = roles(ctx, day), teams(ctx, day)
    role_count = Counter(r for r, _ in rel.values())
    for person, (role, link) in sorted(rel.items()):
        if role_count[role] != 1:
            continue
        for attribute in (*LIFE_QUESTIONS, "celebration"):
            if (now := ctx.current(person, attribute, day)) is None:
                continue
            question = PERSON_QUESTIONS[attribute].format(x=f"{possessive(p)} {role}", p=p)
            out.append(_hop(ctx, question, now, link, f"{possessive(p)} {role} is {person}; the answer is {now.value}.",
                            "role", values_of(ctx, attribute)))
    team_count = Counter(f.value for f in team.values())
    tip_count = Counter(values_of(ctx, "recommendation"))
    for person, link in sorted(team.items()):
        tip = ctx.current(person, "recommendation", day)
        if tip is None:
            continue
        if team_count[link.value] == 1:
            question = f"What did the colleague from {link.value} most recently recommend to {p}?"
            out.append(_hop(ctx, question, tip, link, f"The colleague from {link.value} is {person}; their latest "
                            f"recommendation is {tip.value}.", "team", values_of(ctx, "recommendation")))
        for old in ctx.history(person, "recommendation"):
            if tip_count[old.value] == 1 and old.valid_from < day:
                question = f"Which team is the colleague who recommended {old.value} to {p} on?"
                out.append(_hop(ctx, question, link, old, f"{person} recommended {old.value}; {person} is on "
                                f"{link.value}.", "tip", values_of(ctx, "team") + list(TEAMS)))
    out += _event_hops(ctx) + _cause_hops(ctx)
    return [c for c in out if c is not None]


EVENT_CUES: dict[str, tuple[str, str]] = {
    "friend_visit": ("friend", "the person {p} hosted for {occasion}"),  # not only friends visit
    "milestone": ("person", "the person whose {milestone} {p} celebrated at {venue}"),
    "first_date": ("date_name", "the person {p} went on a first date with at {place}"),
}
EVENT_CUES_FAILED: dict[str, str] = {
    "friend_visit": "the person whose visit for {occasion} was cancelled",
    "milestone": "the person whose {milestone} celebration at {venue} was postponed",
    "first_date": "the person {p} went on a first date with at {place}",
}
"""The cue for an event that went badly (the plan did not happen as planned)."""


def event_cue(p: str, story: Story) -> str:
    """How a question names the person an event involved."""
    template = EVENT_CUES[story.kind][1] if story.event.valence == "positive" else EVENT_CUES_FAILED[story.kind]
    return template.format(p=p, **story.entity)


def _event_hops(ctx: QContext) -> list[Candidate | None]:
    """Event -> person -> what they are up to now (an attribute of their own life), when the event's own fact
    is not that value (a real second hop)."""
    p, day, out = who(ctx), ctx.day, []
    items = [s for s in stories(ctx) if s.kind in EVENT_CUES]
    for s in items:
        person, cue = s.entity.get(EVENT_CUES[s.kind][0]), event_cue(p, s)
        if not person or any(t is not s and t.entity.get(EVENT_CUES[t.kind][0]) != person
                             and confusable(cue, event_cue(p, t)) for t in items):
            continue  # "the person I hosted for the weekend" also fits whoever came for the long weekend
        for attribute in LIFE_QUESTIONS:
            now = ctx.current(person, attribute, day)
            if now is None or now.fact_id in s.fact_ids:
                continue
            question = LIFE_QUESTIONS[attribute].format(x=cue, p=p)
            out.append(_hop(ctx, question, now, s.facts[0], f"That person is {person}; the answer is {now.value}.",
                            f"event.{s.kind}", values_of(ctx, attribute), {"event_ids": [s.event.event_id]}))
    return out


WHY_CHANGED: dict[str, str] = {
    "favourite_cafe": "Why is {old} no longer {p}'s favourite café?",
    "grocery_shop": "Why did {p} stop doing the weekly shop at {old}?",
    "volunteering": "Why did {p} give up {old}?",
    "doctor": "Why did {p} stop seeing {old} as their doctor?",
}
"""A preference changed for a reason (tasks/world/causes.py): the question asks the reason, which is another
event, told apart from the change (a hop from the change to its cause)."""


def _cause_hops(ctx: QContext) -> list[Candidate | None]:
    """"Why did Maya stop going to Café Lumen?": the reason (a bad visit there, a move) is an earlier event; the
    evidence is what was said about both, the reasons of the persona's other changes are the distractors."""
    p, at, out = who(ctx), ctx.asked_at, []
    found = [c for c in changes_with_reasons(ctx) if c.new.attribute in WHY_CHANGED]
    reasons = [c.cause for c in found] + [f"a bad visit at {v}" for v in values_of(ctx, "favourite_cafe")]
    for c in found:
        ids = [c.new.fact_id, *(f.fact_id for f in c.cause_facts)]
        if not known(ctx, ids + [c.old.fact_id], at):
            continue
        sources = hop_sources(ctx, refs(ctx, [c.new.fact_id, c.old.fact_id], at),
                              refs(ctx, [f.fact_id for f in c.cause_facts], at))
        if sources is None:
            continue
        question = WHY_CHANGED[c.new.attribute].format(p=p, old=c.old.value)
        out.append(Candidate(
            "fact", ("multi_hop_traversal",), question, c.cause,
            f"{p} left {c.old.value} for {c.new.value} on {human_date(c.new.valid_from)}, after {c.cause} "
            f"on {human_date(c.cause_event.date)}.", "fact.multi_hop_traversal.cause",
            "SELECT json_extract_string(p.entity, '$.cause') FROM facts f JOIN events e USING (event_id) "
            f"JOIN plans p USING (plan_id) WHERE f.fact_id = '{c.new.fact_id}'",
            (c.new.fact_id, *ids[1:], c.old.fact_id),
            evidence=refs(ctx, ids + [c.old.fact_id], at), distractors=pool(reasons, c.cause), priority=0,
            extra={"cause_event_id": c.cause_event.event_id, "changed_fact_id": c.new.fact_id,
                   "answer_rule": "cause_of_change",
                   "hop_sources": {"change": sources["first"], "cause": sources["second"]}, "hops_needed": True}))
    return out


# ----------------------------------------------------------------------------------- negative_constraints

# kind -> (entity field naming what the answer is, question with {p} and {month})
NEGATIVE_QUESTIONS: dict[str, tuple[str, str]] = {
    "new_cafe": ("cafe", "Which café that {p} tried in {month} did {p} NOT like?"),
    "start_book": ("book", "Which book did {p} give up on in {month}?"),  # the event is the day given up, not started
    "weekly_shop": ("market", "At which shop did {ps} weekly shop in {month} NOT work out?"),
    "hobby_session": ("hobby", "Which of {ps} hobby sessions in {month} did NOT go ahead? Name the hobby."),
    "concert": ("artist", "Which act did {p} plan to see in {month} but NOT get to see?"),
    "city_trip": ("city", "Which city did {p} plan to visit in {month} but NOT get to?"),
    "dinner_out": ("restaurant", "At which restaurant did {ps} planned dinner in {month} NOT happen?"),
    "colleague_lunch": ("colleague", "Which colleague's lunch with {p} in {month} did NOT happen?"),
    "join_gym": ("gym", "Which gym did {p} try to join in {month} but NOT manage to?"),
    "volunteer": ("org", "Where did {p} try to volunteer in {month} but NOT get to?"),
    "start_course": ("school", "At which school did {ps} planned course in {month} NOT go ahead?"),
    "buy_vehicle": ("vehicle", "Which vehicle did {p} try to buy in {month} but NOT end up buying?"),
    "adopt_pet": ("pet_name", "Which animal did {p} try to adopt in {month} but NOT get to adopt?"),
    "friend_visit": ("friend", "Whose visit with {p} in {month} did NOT happen?"),
    "milestone": ("person", "Whose celebration in {month} did NOT go ahead as planned?"),
    "partner_evening": ("place", "Where did {p} plan an evening out in {month} that did NOT happen?"),
    "first_date": ("date_name", "Who did {p} go on a first date with in {month} but NOT see again?"),
    "family_call": ("relative", "Whose call with {p} in {month} did NOT happen?"),
    "new_job": ("company", "Which company's job offer to {p} in {month} did NOT work out?"),
    "move_flat": ("address", "Which address did {p} try to move to in {month} but NOT get?"),
}


@generator("fact", "negative_constraints")
def negative_constraints(ctx: QContext) -> list[Candidate]:
    """The single plan of a kind that did NOT work out in a month, among that kind's plans; the entities
    of the kind's successful plans (the same month's first) are the distractors."""
    p, out = who(ctx), []
    items = [s for s in stories(ctx) if s.kind in NEGATIVE_QUESTIONS and s.date < ctx.day]
    by_month: dict[tuple[str, dt.date], list[Story]] = defaultdict(list)
    for s in items:
        by_month[(s.kind, month_start(s.date))].append(s)
    for (kind, month), group in sorted(by_month.items()):
        field_name, template = NEGATIVE_QUESTIONS[kind]
        bad = [s for s in group if s.event.valence == "negative"]
        good = [s for s in group if s.event.valence == "positive"]
        if len(bad) != 1 or field_name not in bad[0].entity:
            continue
        answer = bad[0].entity[field_name]
        if answer in NOT_ENTITIES or any(s.entity.get(field_name) == answer for s in good):
            continue
        fact_ids = bad[0].fact_ids + tuple(f for s in good for f in s.fact_ids)
        if not known(ctx, fact_ids, ctx.asked_at):
            continue
        others = [s.entity.get(field_name, "") for s in good]
        others += [s.entity.get(field_name, "") for s in items if s.kind == kind and s.event.valence == "positive"]
        others = [o for o in others + entity_pool(ctx, field_name) if o not in NOT_ENTITIES]
        question = template.format(p=p, ps=possessive(p), month=month_name(month))
        ok = "; ".join(f"{s.entity.get(field_name)} on {human_date(s.date)} went fine" for s in good)
        reference = f"{answer} ({bad[0].title}, on {human_date(bad[0].date)}) did not work out" + (
            f"; {ok}." if ok else ".")
        out.append(Candidate(
            "fact", ("negative_constraints",), question, answer, reference, f"fact.negative_constraints.{kind}",
            f"SELECT p.entity->>'{field_name}' FROM events e JOIN plans p USING (plan_id) WHERE e.kind = '{kind}' "
            f"AND e.valence = 'negative' AND e.date BETWEEN '{month}' AND '{month_end(month)}'",
            fact_ids, distractors=pool(others, answer), priority=0 if good else 1,
            extra={"event_ids": [bad[0].event.event_id] + [s.event.event_id for s in good],
                   "answer_rule": "computed"},
        ))
    return out
