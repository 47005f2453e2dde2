"""Mixed generators: questions that need both the conversation (turns) and the documents (chunks).

- relative_positioning: how many days lay between a document (an email, journal entry or report) and
  the day the persona first told the assistant a fact, and whether the document came before or after;
- contextual_retrieval: the person an email was exchanged with is found in the email; what the
  persona told the assistant about that person gives the answer;
- post_modification_analysis: an attribute that changed (a fact superseded): its value before the
  change a document reported, what it changed to, and what changed (long form).

Answers are computed from the fact store, the documents' dates and headers and the turns' timestamps,
all strictly before the question is asked.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict

from schemas.corpus import Chunk, Document, Turn
from schemas.world import Fact
from tasks.common.facttext import attribute_phrase, first_name, fits_slot, is_event_attribute, mentions
from tasks.common.stateframes import with_article
from tasks.common.timeutil import human_date, local_date
from tasks.questions.base import Candidate, QContext, Ref
from tasks.questions.generators.kit import (
    NOISE_KINDS,
    DocView,
    attribute_of,
    be,
    dedupe,
    doc_view,
    leaks,
    number_distractors,
    party,
    registered,
    said,
    value_pool,
)

WINDOW_DAYS = 30
"""relative_positioning pairs a document with facts first told at most this many days away."""
PAIRS_PER_DOC = 2


COUNTED = frozenset({"vehicle", "pet", "home", "occupation", "prized_possession"})
"""Attributes whose values a predicate gives an article (`my vehicle was a green Brompton folding bike`)."""


def predicate(fact: Fact) -> str:
    """The fact's value after `was`: with its article for a counted thing (COUNTED), else as it is."""
    return with_article(fact.value) if fact.attribute in COUNTED else fact.value


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class TurnView:
    """User turns known at `before` and, per fact, the turns that carry it."""

    def __init__(self, ctx: QContext, before: dt.datetime) -> None:
        self.ctx = ctx
        self.turns: dict[str, Turn] = {t.turn_id: t for t in ctx.corpus.turns if t.timestamp < before}
        self.before = before

    def refs(self, fact_id: str) -> list[Ref]:
        """Turns (user or assistant) that claim and carry the fact, by time."""
        return [r for r in self.ctx.evidence_for(fact_id, self.before) if r.kind == "turn" and r.item_id in self.turns]

    def day(self, ref: Ref) -> dt.date:
        return local_date(self.ctx.persona, self.turns[ref.item_id].timestamp)


def unique_values(ctx: QContext) -> set[str]:
    """Fact ids whose (subject, attribute, value) occurs once (so "told that X" names one fact)."""
    known = [f for f in ctx.facts.values() if f.valid_from <= ctx.day]
    counts = Counter((f.subject, f.attribute, f.value) for f in known)
    return {f.fact_id for f in known if counts[(f.subject, f.attribute, f.value)] == 1}


def told(ctx: QContext, fact: Fact) -> str:
    """What the persona told the assistant, as a clause (kit `said`)."""
    return said(ctx, fact)


def facts_of_refs(refs: tuple[Ref, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.fact_id for r in refs if r.fact_id))


# ------------------------------------------------------------------------------------- relative_positioning


def spread(ctx: QContext, doc: Document, near: list[tuple]) -> list[tuple]:
    """PAIRS_PER_DOC of a document's (gap, ...) pairs, drawn (seeded by the document) one from each part of the
    window's range of gaps, so the day counts asked spread over 1 to WINDOW_DAYS rather than the nearest few."""
    if len(near) <= PAIRS_PER_DOC:
        return near
    rng = ctx.rng(f"relative_positioning:{doc.doc_id}")
    size = len(near) / PAIRS_PER_DOC
    return [near[int(i * size) + rng.randrange(max(1, int(size)))] for i in range(PAIRS_PER_DOC)]


@registered("mixed", "relative_positioning")
def relative_positioning(ctx: QContext) -> list[Candidate]:
    view, turns = doc_view(ctx), TurnView(ctx, ctx.asked_at)
    single = unique_values(ctx)
    firsts: list[tuple[dt.date, Fact, Ref]] = []
    for fact in sorted(ctx.facts.values(), key=lambda f: f.fact_id):
        refs = turns.refs(fact.fact_id)
        if refs and fact.fact_id in single and fits_slot(fact.attribute, fact.value):
            firsts.append((turns.day(refs[0]), fact, refs[0]))
    firsts.sort(key=lambda x: x[0])  # by day: a document looks only at the facts told within its window
    days = [day for day, _, _ in firsts]
    out = []
    for doc in view.docs:
        label = view.short_label(doc)  # without its date: the question needs the document to place it
        if label is None or doc.kind in NOISE_KINDS or not view.chunks.get(doc.doc_id):
            continue
        when = view.day(doc)
        window = firsts[bisect_left(days, when - dt.timedelta(days=WINDOW_DAYS)):
                        bisect_right(days, when + dt.timedelta(days=WINDOW_DAYS))]
        near = sorted(((abs((day - when).days), fact.fact_id, day, fact, ref) for day, fact, ref in window
                       if ctx.facts[fact.fact_id].event_id != doc.event_id and fact.fact_id not in doc.fact_ids
                       and 1 <= abs((day - when).days) <= WINDOW_DAYS), key=lambda x: x[:2])
        for gap, _, day, fact, ref in spread(ctx, doc, near):
            evidence = (ref,) + view.head_and_facts(doc)
            order = "after" if when > day else "before"
            base = dict(fact_ids=(fact.fact_id,) + facts_of_refs(evidence[1:]), evidence=evidence,
                        extra={"doc_ids": [doc.doc_id], "turn_ids": [ref.item_id], "document_date": when.isoformat(),
                               "told_date": day.isoformat()})
            reference = (f"{capital(label)} is dated {human_date(when)}; {view.first} first told the assistant that "
                         f"{told(ctx, fact)} on {human_date(day)}: the document came {gap} day"
                         f"{'s' if gap != 1 else ''} {order}.")
            query = (f"SELECT abs(date_diff('day', (SELECT local_date(created_at) FROM documents WHERE doc_id = "
                     f"'{doc.doc_id}'), (SELECT min(local_date(timestamp)) FROM turns WHERE '{fact.fact_id}' = "
                     f"ANY(fact_ids))))")
            question = (f"How many days passed between {label} and the day {view.first} first told the assistant "
                        f"that {told(ctx, fact)}?")
            if not leaks(question, str(gap)):
                out.append(Candidate("mixed", ("relative_positioning",), question, str(gap), reference,
                                     "mixed.relative_positioning.days", query,
                                     distractors=number_distractors(gap, [gap + 7, max(gap - 7, 0)]), **base))
            question = (f"Was {label} dated before or after the day {view.first} first told the assistant that "
                        f"{told(ctx, fact)}?")
            other = "before" if order == "after" else "after"
            out.append(Candidate("mixed", ("relative_positioning",), question, order, reference,
                                 "mixed.relative_positioning.order",
                                 query.replace("abs(date_diff", "sign(date_diff"), priority=2,
                                 distractors=(other, "on the same day"),
                                 **(base | {"extra": base["extra"] | {"options_in_question": True}})))
    return out


# ------------------------------------------------------------------------------------- contextual_retrieval


@registered("mixed", "contextual_retrieval")
def contextual_retrieval(ctx: QContext) -> list[Candidate]:
    view, turns = doc_view(ctx), TurnView(ctx, ctx.asked_at)
    me, first = ctx.persona.name, first_name(ctx.persona.name)
    about: dict[str, list[Fact]] = defaultdict(list)  # person -> current facts about them told in a turn
    for fact in sorted(ctx.facts.values(), key=lambda f: (f.attribute, f.fact_id)):
        now = ctx.current(fact.subject, fact.attribute, ctx.day)
        values = {f.value for f in ctx.history(fact.subject, fact.attribute) if ctx.valid_on(f, ctx.day)}
        if (now is fact and len(values) == 1 and fact.subject != me and turns.refs(fact.fact_id)
                and fits_slot(fact.attribute, fact.value) and not is_event_attribute(fact.attribute)):
            about[fact.subject].append(fact)  # a state ("the current job title"), never an event ("visit cancelled")
    mails = [d for d in view.emails() if d.kind not in NOISE_KINDS and d.recipients]
    names = Counter(email_name(view, d) for d in mails)
    out = []
    for doc in mails:
        incoming = party(doc.sender) != me
        person = party(doc.sender) if incoming else party(doc.recipients[0])
        label = email_name(view, doc)
        if names[label] != 1 or person == me or not about.get(person):
            continue
        who = (f"the person who sent {first} {label}" if incoming
               else f"the person {first} wrote to in {label}")
        for fact in about[person]:
            question = (f"According to what {first} has told the assistant, what is the current "
                        f"{attribute_words(fact)} of {who}?")
            if leaks(question, fact.value) or mentions(question, person) or mentions(question, first_name(person)):
                continue
            refs = tuple(turns.refs(fact.fact_id))
            header = tuple(Ref("chunk", c.chunk_id) for c in view.chunks.get(doc.doc_id, [])[:1])
            out.append(Candidate(
                "mixed", ("contextual_retrieval",), question, fact.value,
                f"{capital(label)} was {'from' if incoming else 'to'} {person}; {first} told the assistant that "
                f"{told(ctx, fact)} (true since {human_date(fact.valid_from)}).",
                f"mixed.contextual_retrieval.{'sender' if incoming else 'recipient'}_attribute",
                f"SELECT f.value FROM facts f WHERE f.subject = (SELECT {'sender' if incoming else 'recipients[1]'} "
                f"FROM documents WHERE doc_id = '{doc.doc_id}') AND f.attribute = '{fact.attribute}' "
                f"AND f.valid_from <= '{ctx.day}' AND (f.valid_to IS NULL OR f.valid_to > '{ctx.day}')",
                (fact.fact_id,), evidence=header + refs, distractors=value_pool(ctx, fact),
                priority=1 if incoming else 2,
                extra={"doc_ids": [doc.doc_id], "resolved_entity": person, "turn_ids": [r.item_id for r in refs]},
            ))
    return out


def email_name(view: DocView, doc: Document) -> str:
    """An email named without its correspondent: `the email "<subject>" <persona> received on <date>`."""
    verb = "sent" if party(doc.sender) == view.ctx.persona.name else "received"
    return f'the email "{doc.title}" {view.first} {verb} on {human_date(view.day(doc))}'


def attribute_words(fact: Fact) -> str:
    """The attribute in words, without a leading `current`."""
    phrase = attribute_phrase(fact.attribute)
    return phrase[len("current "):] if phrase.startswith("current ") else phrase


# ------------------------------------------------------------------------------- post_modification_analysis


@registered("mixed", "post_modification_analysis")
def post_modification_analysis(ctx: QContext) -> list[Candidate]:
    view, turns = doc_view(ctx), TurnView(ctx, ctx.asked_at)
    out = []
    seen: set[tuple[str, str]] = set()
    for fact in sorted(ctx.facts.values(), key=lambda f: f.fact_id):
        key = (fact.subject, fact.attribute)
        if key in seen or is_event_attribute(fact.attribute):
            continue  # (a second cancelled lunch is another event, not a change of the first)
        seen.add(key)
        history = [f for f in ctx.history(*key) if f.valid_from <= ctx.day]
        starts = Counter(f.valid_from for f in history)
        for old, new in zip(history, history[1:], strict=False):
            if old.value == new.value or starts[new.valid_from] != 1 or old.valid_to != new.valid_from:
                continue  # a restriction that had lapsed months before is not what the new one changed
            if not (fits_slot(old.attribute, old.value) and fits_slot(new.attribute, new.value)):
                continue  # "Samir's employer was unemployed"
            out += modification(ctx, view, turns, old, new)
    return out


def modification(ctx: QContext, view: DocView, turns: TurnView, old: Fact, new: Fact) -> list[Candidate]:
    """Before / after / what-changed questions about one superseded fact, anchored on a document."""
    anchors: list[tuple[Document, list[Chunk]]] = [(d, view.chunks_carrying(d, new))
                                                   for d in view.citing.get(new.fact_id, ()) if view.label(d)]
    anchors = [(d, cs) for d, cs in anchors if cs]
    old_refs, new_refs = ctx.evidence_for(old.fact_id), ctx.evidence_for(new.fact_id)
    if not anchors or not old_refs:
        return []
    doc, chunks = anchors[0]
    label, first, when = view.label(doc) or "", view.first, human_date(new.valid_from)
    doc_refs = tuple(Ref("chunk", c.chunk_id, new.fact_id) for c in chunks)
    what = attribute_of(ctx, new)
    extra = {"doc_ids": [doc.doc_id], "superseded_fact_ids": [old.fact_id], "event_ids": [new.event_id],
             "changed_on": new.valid_from.isoformat()}
    query = (f"SELECT o.value, n.value FROM facts n JOIN facts o ON o.subject = n.subject AND o.attribute = "
             f"n.attribute AND o.valid_to = n.valid_from WHERE n.fact_id = '{new.fact_id}'")
    known = [f.value for f in ctx.history(new.subject, new.attribute) if f.valid_from <= ctx.day][::-1]
    distract_old = dedupe(known + list(value_pool(ctx, old, 12)), old.value)
    distract_new = dedupe(known + list(value_pool(ctx, new, 12)), new.value)
    out = []
    before = tuple(r for r in old_refs)
    if any(r.kind == "turn" for r in before):
        question = f"{capital(label)} reported a change to {what}. What was it before that change?"
        if not leaks(question, old.value):
            out.append(Candidate(
                "mixed", ("post_modification_analysis",), question, old.value,
                f"Before {when}, {what} {be(old.value, 'was')}; {label} reported the change to \"{new.value}\".",
                "mixed.post_modification_analysis.before", query, (old.fact_id, new.fact_id),
                evidence=doc_refs + before, distractors=distract_old, priority=0 if len(anchors) == 1 else 1,
                extra=extra | {"turn_ids": [r.item_id for r in before if r.kind == "turn"]},
            ))
    after = tuple(r for r in new_refs)
    if any(r.kind == "turn" for r in after) and any(r.kind == "chunk" for r in after):
        question = f"Until {when}, {what} {be(predicate(old), 'was')}. What did it change to then?"
        if not leaks(question, new.value):
            out.append(Candidate(
                "mixed", ("post_modification_analysis",), question, new.value,
                f"On {when} {what} changed from \"{old.value}\" to \"{new.value}\".",
                "mixed.post_modification_analysis.after", query, (new.fact_id,),
                evidence=after, distractors=distract_new, priority=1,
                extra=extra | {"turn_ids": [r.item_id for r in after if r.kind == "turn"]},
            ))
    if any(r.kind == "turn" for r in before + after):
        question = f"What changed about {what} on {when}, according to {first}'s conversations and documents?"
        gist = f"{old.value} -> {new.value}"
        out.append(Candidate(
            "mixed", ("post_modification_analysis",), question, gist,
            f"On {when}, {what} changed from \"{old.value}\" to \"{new.value}\" ({label} reports the new value).",
            "mixed.post_modification_analysis.what_changed", query, (old.fact_id, new.fact_id),
            answer_type="long", evidence=doc_refs + before + tuple(r for r in after if r not in doc_refs),
            rubric=(f"Must say {what} changed from '{old.value}' (before) to '{new.value}' (after) on or around "
                    f"{when}. Wrong: swapping old and new, or naming a value that held at another time."),
            priority=2, extra=extra,
        ))
    return out
