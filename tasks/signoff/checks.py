"""The sign-off's checks: each reads one landed question against the world and the history (tasks/signoff/view.py)
and says what a reviewer would refuse to sign. A check returns (message, suggestion) pairs, one per problem."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from schemas.qa import Question
from tasks.signoff.lexicon import LABEL_PATTERNS, RELATION_PATTERN, request_activities, restriction_scope, role_fits
from tasks.signoff.view import View

Problems = list[tuple[str, str]]
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
MONTH_YEAR = re.compile(rf"\b(?:in|during) (?P<month>{MONTHS}) (?P<year>\d{{4}})\b")
DATED_DOC = re.compile(rf"\"(?P<title>[^\"]+)\"(?:(?!\"|\?).){{0,60}}?\b(?:on|of) "
                       rf"(?P<date>(?:{MONTHS}) \d{{1,2}}, \d{{4}})")
"""A quoted document title and the date the question gives it (`the email "Quick update" I sent on May 28, 2024`)."""


def unquoted(text: str) -> str:
    """`text` with its quoted spans blanked (a title may hold any words)."""
    return QUOTED.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)


def voice(view: View, q: Question) -> Problems:
    """The user asks about themselves in the first person: their own name and `the assistant` never appear."""
    text = unquoted(q.question)
    out: Problems = []
    for m in re.finditer(rf"(?<![\w'’-]){re.escape(view.first)}(?![\w-])", text):
        after = text[m.end():]
        nxt = re.match(r"\s+([A-Z][\w'’-]+)", after)
        other = f"{view.first} {nxt.group(1)}" if nxt else ""
        if other and other != view.persona.name and any(p.startswith(other) for p in view.people):
            continue  # another person of the same first name
        out.append((f"the user speaks of themselves in the third person ({view.first!r} in {q.question!r})",
                    "ask in the first person: I, me, my"))
        break
    if re.search(r"\bthe assistant\b", text, re.IGNORECASE):
        out.append((f"the user calls their assistant 'the assistant' ({q.question!r})", "address the assistant as you"))
    return out


def quoted(view: View, q: Question) -> Problems:
    """Every quoted title or phrase was said, as quoted, before the question; a title given a date names a
    document of that title written on that day."""
    out: Problems = []
    for m in QUOTED.finditer(q.question):
        said = m.group(1) or m.group(2)
        if said not in view.titles and not view.said_before(said, q.question_time):
            out.append((f"quotes {said!r}, which no document or turn before the question holds",
                        "quote titles and words exactly as the history has them"))
    for m in DATED_DOC.finditer(q.question):
        title, day = m.group("title"), dt.datetime.strptime(m.group("date"), "%B %d, %Y").date()
        if title in view.titles and day not in view.titles[title]:
            out.append((f"dates the document {title!r} {m.group('date')}, but it was written on "
                        f"{', '.join(str(d) for d in view.titles[title])}", "give the document's own date"))
    return out


def relation_words(view: View, q: Question) -> Problems:
    """Every relation word the question uses of a person holds for that person on the question's day: `my sister
    Ana` is the persona's sister then, `which friend did I host` is answered by a friend."""
    day, text = view.day(q), unquoted(q.question)
    referents = view.referents(q)
    out: Problems = []
    for m in RELATION_PATTERN.finditer(text):
        det, word, name = m.group("det"), m.group("word"), (m.group("name") or "").strip()
        if det.endswith(("'s", "’s")) and det[:-2] != view.first:
            continue  # someone else's relation (`Karim's husband`): not the persona's
        past = PAST_COPULA.search(text[:m.start()])  # `Joaquim Janssen was my partner`: said of the time before
        bound = _named(view, name) or (_named(view, past.group("name")) if past else None)
        candidates = {bound} if bound else referents
        if not candidates or not bound and not any(role_fits(word, r) for p in view.people
                                                   for r in view.roles_before(p, dt.date.max)):
            continue  # nobody of the world is ever that: `my grandmother's sewing machine` names a belonging
        roles = {c: view.roles(c, day) for c in candidates}
        if q.category == "hallucination" or past:  # a stale relation (a false premise the gold corrects, or one
            # said in the past tense) must have held
            roles = {c: rs | view.roles_before(c, day) for c, rs in roles.items()}
        if not any(role_fits(word, r) for rs in roles.values() for r in rs):
            who = ", ".join(f"{c} ({'/'.join(sorted(rs)) or 'unknown'})" for c, rs in sorted(roles.items()))
            out.append((f"calls {bound or 'its referent'} '{det} {word}', but on {day} that is {who}",
                        "name the person by the relation that holds for them then"))
    return out


PAST_COPULA = re.compile(r"(?:(?P<name>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)\s+)?\b(?:was|were|used to be)\s+$")
"""What comes before a relation word said of the past (`Joaquim Janssen was my partner`): the name it is said of."""


def _named(view: View, name: str) -> str | None:
    """The person a name after a relation word names (`Ana` or `Ana Reyes`), when it is one of the world's."""
    if not name:
        return None
    if name in view.people:
        return name
    hits = [p for p in view.people if p.split()[0] == name.split()[0]]
    return hits[0] if len(hits) == 1 else None


def reference(view: View, q: Question) -> Problems:
    """The reference answer says what the gold says: for a question listing its options, the reference names the
    gold before any other option; a short answer's reference contains it."""
    out: Problems = []
    options = listed_options(q.question)
    if options and q.answer in options:
        ref = q.reference_answer
        seen = sorted((ref.find(o), o) for o in options if o in ref)
        if seen and seen[0][1] != q.answer:
            out.append((f"the reference names {seen[0][1]!r} first, but the gold is {q.answer!r}",
                        "lead the reference with the gold answer"))
    if q.answer_type == "short" and not q.abstention and not states(q.reference_answer, q.answer):
        out.append((f"the reference {q.reference_answer!r} does not contain the gold {q.answer!r}",
                    "state the gold answer in the reference"))
    return out


def states(reference: str, gold: str) -> bool:
    """True when `reference` says `gold`: every part of it (`A, then B`), a date in any of its spellings; a yes or
    no is stated by the reference's reasons, not its words."""
    if gold.lower() in ("yes", "no"):
        return True
    low = reference.lower()
    parts = [p for p in re.split(r",? then |; | and ", gold) if p.strip()] if gold.lower() not in low else [gold]
    for part in parts:
        spelled = {part.lower()}
        if re.fullmatch(r"\d{4}-\d\d-\d\d", part):
            day = dt.date.fromisoformat(part)
            spelled |= {f"{day:%B} {day.day}, {day.year}".lower(), part}
        if not any(s in low for s in spelled):
            return False
    return True


def listed_options(question: str) -> list[str]:
    """The options a question lists after a colon (`Which did I do first: a, b, or c?`)."""
    m = re.search(r":\s*(?P<opts>[^:?]+)\?\s*$", question)
    if not m:
        return []
    parts = re.split(r",\s*or\s+|\s+or\s+|,\s*", m.group("opts"))
    return [p.strip() for p in parts if p.strip()]


GARBLED = re.compile(r"\b[a-z]+[,;:][a-z]+\b|\b[a-z]+_[a-z_]+\b|\bp\d{4}-[a-z]\d{2,}|\{[a-z_]+\}")
"""Words no English sentence holds: punctuation inside a word (`make,ed`), a field name, an id, a template slot."""


def garbled(view: View, q: Question) -> Problems:
    """The question is made of words: none broken by the machinery that wrote it."""
    found = GARBLED.search(unquoted(q.question))
    return [(f"the question holds {found.group(0)!r}, which is no word", "repair the wording that produced it")] \
        if found else []


def labels(view: View, q: Question) -> Problems:
    """The gold answer is a phrase a person would say, never the fact store's bookkeeping."""
    return [(f"the gold answer {q.answer!r} is {why}", "answer in the words a person would use")
            for pattern, why in LABEL_PATTERNS if pattern.search(q.answer)][:1]


def restriction_scope_check(view: View, q: Question) -> Problems:
    """A restriction is held against a request only when it rules out (or, for a reminder, bears on) what the
    request asks to do (scope per restriction wording, tasks/signoff/lexicon.py)."""
    ids = q.derivation.get("constraint_ids") or []
    if not ids:
        return []
    wanted = request_activities(unquoted(q.question))
    if not wanted:
        return []
    found = {c.constraint_id: c for c in view.world.constraints}
    out: Problems = []
    for cid in ids:
        c = found.get(cid)
        scope = restriction_scope(c.description) if c is not None else None
        if c is not None and scope is not None and not (scope & wanted) and c.description in q.answer:
            out.append((f"holds {c.description!r} against a request for {', '.join(sorted(wanted))}, which it does "
                        "not rule out", "apply a restriction only to requests within its scope"))
    return out


FILLER = frozenset("a an the for at to of on in with and i my me".split())


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w'-]+", text.lower()) if w not in FILLER}


def same_meaning(a: str, b: str) -> bool:
    """True when the value `a` a description gives could be said of `b` too: the same words, or the telling words
    of one within the other's (`the weekend` and `the long weekend`)."""
    wa, wb = _words(a), _words(b)
    return a.lower() == b.lower() or (bool(wa) and bool(wb) and (wa <= wb or wb <= wa))


def unique_referent(view: View, q: Question) -> Problems:
    """A description picks out one referent by meaning: for each event the question describes by what its plan
    named (`the person I hosted for the weekend`), no other event of that kind and outcome, before the question and
    in the window the question gives (`in June 2024`; an exact date settles it), fits the description's values by
    meaning and differs in what is asked (the answer, or the people the description stands for)."""
    if q.category == "aggregation" or q.answer_type == "long" or listed_options(q.question):
        return []
    text, day = unquoted(q.question), view.day(q)
    month = MONTH_YEAR.search(text)
    said_by_relation = {str(i.get("refers_to")) for i in q.derivation.get("indirect") or []}
    out: Problems = []
    for eid in q.derivation.get("event_ids") or []:
        event = view.events.get(eid)
        plan = view.plans.get(event.plan_id) if event is not None and event.plan_id else None
        if event is None or plan is None or f"{event.date:%B} {event.date.day}, {event.date.year}" in text:
            continue
        shared = {v for other in q.derivation.get("event_ids") or [] if other != eid
                  for v in getattr(view.plans.get(getattr(view.events.get(other), "plan_id", "") or ""), "entity",
                                   {}).values()}  # a value two of the question's events share describes neither
        given = {k: v for k, v in plan.entity.items() if len(v) > 3 and not v.isdigit() and v in text}
        cues = {k: v for k, v in given.items() if v not in shared}
        related = {k: v for k, v in plan.entity.items() if v in said_by_relation}  # `my son` for Minh Reyes
        if not cues:
            continue
        # a value the question gives is not asked, even when two of its events share it (`visit Ana for a birthday`
        # and `visit Ana for family news`: Ana narrows the rivals and is no answer)
        asked = [k for k, v in plan.entity.items() if k not in given and k not in related and
                 (v == q.answer or v in view.people)]
        if not asked:
            continue  # the question asks a date or a state's start, which the event's date settles
        rivals = []
        for other in view.world.events:
            oplan = view.plans.get(other.plan_id) if other.plan_id else None
            if other.event_id in (q.derivation.get("event_ids") or []) or oplan is None or \
                    other.kind != event.kind or other.valence != event.valence or other.date >= day:
                continue
            if month and (f"{other.date:%B}" != month.group("month") or str(other.date.year) != month.group("year")):
                continue
            if not all(same_meaning(v, oplan.entity.get(k, "")) for k, v in given.items()) or \
                    not all(view.roles(oplan.entity.get(k, ""), day) & view.roles(v, day) for k, v in related.items()):
                continue
            if any(oplan.entity.get(k) != plan.entity.get(k) for k in asked):
                rivals.append(f"{other.event_id} ({oplan.title}, {other.date})")
        if rivals:
            out.append((f"describes {eid} ({plan.title}) by {', '.join(sorted(cues.values()))!r}, which fits "
                        f"{', '.join(rivals[:3])} too", "describe the referent by what only it has"))
    return out


CHECKS: dict[str, Callable[[View, Question], Problems]] = {
    "voice": voice,
    "quoted": quoted,
    "relation_word": relation_words,
    "reference": reference,
    "label_answer": labels,
    "garbled": garbled,
    "restriction_scope": restriction_scope_check,
    "unique_referent": unique_referent,
}
"""Each check by the name its findings carry (`signoff.<name>`)."""
