"""External generators over emails and receipts: email_cross_time_count and email_localization (see the
package docstring for what each asks)."""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from dataclasses import replace

from schemas.corpus import Chunk, Document
from tasks.common.facttext import (
    carries,
    event_title,
    fits_slot,
)
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, Ref
from tasks.questions.generators.kit import (
    NOISE_KINDS,
    DocView,
    dedupe,
    doc_view,
    leaks,
    month_span,
    month_windows,
    number_distractors,
    party,
    receipt_details,
    registered,
    said,
)

COUNT_MIN = 1
"""email_cross_time_count: windows with fewer matching emails are not asked (windows are written as month spans
without day numbers, so any count, 1 included, can be asked without the leak filter dropping it; of a
correspondent's windows holding a single email only the first is asked, so 1s do not flood the pool)."""


@registered("external", "email_cross_time_count")
def email_cross_time_count(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    me, out = ctx.persona.name, []
    mails = view.emails()
    if not mails:
        return out
    received: dict[str, list[Document]] = defaultdict(list)
    sent: dict[str, list[Document]] = defaultdict(list)
    for d in mails:
        if party(d.sender) == me:
            for r in d.recipients:
                sent[party(r)].append(d)
        elif me in {party(r) for r in d.recipients + d.cc}:
            received[party(d.sender)].append(d)
    windows = month_windows(view.day(mails[0]), ctx.day)
    for direction, groups in (("from", received), ("to", sent)):
        for who, docs in sorted(groups.items()):
            lone = False
            days = [view.day(d) for d in docs]  # in time order: a window's emails by bisection, not a scan
            for lo, hi in windows:
                hits = _between(docs, days, lo, hi)
                if len(hits) < COUNT_MIN or (len(hits) == 1 and lone):
                    continue  # one window with a lone email per correspondent: 1 is asked, not flooding the pool
                lone = lone or len(hits) == 1
                span = month_span(lo, hi, ctx.day)
                question = (f"How many emails did {who} send {view.first} {span}?" if direction == "from"
                            else f"How many emails did {view.first} send to {who} {span}?")
                n = len(hits)
                nearby = [len(_between(docs, days, lo - dt.timedelta(days=k), hi)) for k in (15, 31)]
                sender, target = (who, me) if direction == "from" else (me, who)
                out.append(Candidate(
                    "external", ("email_cross_time_count",), question, str(n),
                    f"{n} emails: " + "; ".join(f"\"{d.title}\" ({human_date(view.day(d))})" for d in hits) + ".",
                    f"external.email_cross_time_count.{direction}",
                    f"SELECT COUNT(*) FROM documents WHERE source_type = 'email' AND sender_name = '{sender}' "
                    f"AND '{target}' IN recipient_names AND local_date(created_at) BETWEEN '{lo}' AND "
                    f"'{min(hi, ctx.day)}' AND created_at < '{ctx.asked_at.isoformat()}'",
                    (), evidence=tuple(r for d in hits for r in view.chunk_refs(d)), all_instances=True,
                    distractors=number_distractors(n, nearby),
                    priority=1 if hi.month != lo.month else 2,
                    extra={"doc_ids": [d.doc_id for d in hits],
                           "window": [lo.isoformat(), min(hi, ctx.day).isoformat()]},
                ))
    out += thread_counts(view)
    return out


def _between(docs: list[Document], days: list[dt.date], lo: dt.date, hi: dt.date) -> list[Document]:
    """The documents (in time order, `days` their days) dated from `lo` to `hi`."""
    return docs[bisect_left(days, lo):bisect_right(days, hi)]


def thread_counts(view: DocView) -> list[Candidate]:
    """How many messages a thread holds (threads of two or more messages), asked only when the persona's threads
    differ in length: where every thread is a message and its reply, "2" answers every item unread."""
    threads: dict[str, list[Document]] = defaultdict(list)
    for d in view.emails():
        threads[d.thread_id or d.doc_id].append(d)
    out: list[Candidate] = []
    if len({len(docs) for docs in threads.values() if len(docs) >= 2}) < 2:
        return out  # every thread the same length (a corpus whose threads are all one reply): the count is a given
    for root_id, docs in sorted(threads.items()):
        root = view.by_id.get(root_id)
        label = (view.short_label(root) or view.label(root)) if root else None
        if root is None or label is None or len(docs) < 2:
            continue
        n = len(docs)
        out.append(Candidate(
            "external", ("email_cross_time_count",), f"How many messages does the email thread that began with "
            f"{label} hold?", str(n),
            f"{n} messages: " + "; ".join(f"\"{d.title}\" from {view.who(d.sender)} ({human_date(view.day(d))})"
                                          for d in docs) + ".",
            "external.email_cross_time_count.thread",
            f"SELECT COUNT(*) FROM documents WHERE thread_id = '{root_id}'",
            (), evidence=tuple(r for d in docs for r in view.chunk_refs(d)), all_instances=True,
            distractors=number_distractors(n), priority=2, extra={"doc_ids": [d.doc_id for d in docs]},
        ))
    return out


@registered("external", "email_localization")
def email_localization(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    return email_dates(ctx, view) + receipt_dates(view) + thread_subjects(ctx, view)


def email_dates(ctx: QContext, view: DocView) -> list[Candidate]:
    """On what date an email about an event went from one party to the other."""
    about: dict[tuple[str, str, str], list[Document]] = defaultdict(list)
    for d in view.emails():
        event = ctx.events.get(d.event_id or "")
        if event is None or d.parent_doc_id or d.kind in NOISE_KINDS or not d.recipients:
            continue
        about[(view.who(d.sender), view.who(d.recipients[0]), event_title(event, ctx.world))].append(d)
    dates = [view.day(d).isoformat() for d in view.emails()][::-1]
    by_sender: dict[str, list[str]] = defaultdict(list)
    for d in reversed(view.emails()):
        by_sender[view.who(d.sender)].append(view.day(d).isoformat())
    out = []
    for (sender, to, title), docs in sorted(about.items()):
        if len(docs) != 1:
            continue
        doc = docs[0]
        answer = view.day(doc).isoformat()
        question = f"On what date did {sender} email {to} about the plan to {title}?"
        out.append(Candidate(
            "external", ("email_localization",), question, answer,
            f"{sender} emailed {to} about it on {human_date(view.day(doc))} (\"{doc.title}\").",
            "external.email_localization.date",
            f"SELECT local_date(created_at) FROM documents WHERE source_type = 'email' AND sender_name = '{sender}' "
            f"AND event_id = '{doc.event_id}' AND parent_doc_id IS NULL",
            (), evidence=(refs := view.head_and_facts(doc)), distractors=dedupe(by_sender[sender] + dates, answer),
            extra={"doc_ids": [doc.doc_id], "event_ids": [doc.event_id]},
        ))
        out[-1] = replace(out[-1], fact_ids=tuple(dict.fromkeys(r.fact_id for r in refs if r.fact_id)))
    return out


def receipt_dates(view: DocView) -> list[Candidate]:
    """On what date a shop's receipt for an order arrived."""
    receipts = [(d, r) for d in view.emails() if d.kind == "receipt" and (r := receipt_details(d))]
    orders = Counter(r[0] for _, r in receipts)
    dates = [view.day(d).isoformat() for d, _ in receipts][::-1] + [view.day(d).isoformat() for d in view.emails()]
    out = []
    for doc, (order, _) in receipts:
        if orders[order] != 1:
            continue
        shop, answer = view.who(doc.sender), view.day(doc).isoformat()
        out.append(Candidate(
            "external", ("email_localization",), f"On what date did {shop} email {view.first} the receipt for "
            f"order {order}?", answer, f"On {human_date(view.day(doc))} (\"{doc.title}\").",
            "external.email_localization.receipt_date",
            f"SELECT local_date(created_at) FROM documents WHERE kind = 'receipt' AND body LIKE '%order {order}%'",
            (), evidence=view.chunks_with(doc, order), distractors=dedupe(dates, answer), priority=2,
            extra={"doc_ids": [doc.doc_id]},
        ))
    return out


def thread_subjects(ctx: QContext, view: DocView) -> list[Candidate]:
    """The subject line of the only email thread that mentioned a value of an attribute (every fact with
    that subject, attribute and value counts, so the value names one thread)."""
    roots: dict[str, Document] = {}
    for d in view.emails():
        roots.setdefault(d.thread_id or d.doc_id, d)
    subjects = Counter(d.title for d in roots.values())
    carried: dict[tuple[str, str, str], list[tuple[Document, Chunk, str]]] = defaultdict(list)
    for d in view.emails():
        for c in view.chunks.get(d.doc_id, []):
            for fid in c.fact_ids:
                if fid in ctx.facts and carries(c.text, f := ctx.facts[fid]):
                    carried[(f.subject, f.attribute, f.value)].append((d, c, fid))
    out = []
    for _, hits in sorted(carried.items()):
        fact = ctx.facts[hits[0][2]]
        threads = {d.thread_id or d.doc_id for d, _, _ in hits}
        if len(threads) != 1:
            continue
        root = roots[threads.pop()]
        if subjects[root.title] != 1 or fact.valid_from > view.day(root) or not fits_slot(fact.attribute, fact.value):
            continue  # (not "that Samir's employer was unemployed")
        question = (f"Which email thread mentioned that {said(ctx, fact)}? "
                    "Give its subject line.")
        if leaks(question, root.title):
            continue
        fids = tuple(dict.fromkeys(fid for _, _, fid in hits))
        others = [t for t in subjects if t != root.title]
        same_sender = [r.title for r in roots.values() if r.sender == root.sender]
        out.append(Candidate(
            "external", ("email_localization",), question, root.title,
            f"The thread \"{root.title}\" started by {view.who(root.sender)} on {human_date(view.day(root))}.",
            "external.email_localization.thread_subject",
            f"SELECT DISTINCT t.title FROM chunks c JOIN documents d USING (doc_id) JOIN documents t "
            f"ON t.doc_id = d.thread_id JOIN facts f ON f.fact_id = ANY(c.fact_ids) WHERE f.subject = "
            f"'{fact.subject}' AND f.attribute = '{fact.attribute}' AND f.value = '{fact.value}' "
            "AND d.source_type = 'email'",
            fids, evidence=tuple(Ref("chunk", c.chunk_id, fid) for _, c, fid in hits),
            distractors=dedupe(same_sender[::-1] + sorted(others, key=lambda t: (abs(len(t) - len(root.title)), t)),
                               root.title),
            priority=2 if carries(root.title, fact) else 1,  # a subject naming the value is the easy case
            extra={"doc_ids": sorted({d.doc_id for d, _, _ in hits})},
        ))
    return out
