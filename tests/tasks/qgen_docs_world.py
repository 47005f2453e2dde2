"""A hand-built corpus over worldfixture's Maya Okafor (2024-03-01..10, asked 2024-03-11 09:00 New York)
for the external and mixed question generators: documents with tables, sections, threads and a
revision, chunked small (so tables span several chunks), and user turns carrying facts.

Documents (persona-local times):
- d0001 03-02 10:00 email Maya -> Priya Shah "Meet my new roommate" (pet Biscuit, f0005)
- d0002 03-03 18:00 email Priya -> Maya "Re: Meet my new roommate" (reply to d0001, quotes it)
- d0003 03-05 09:00 email Priya -> Maya "Pottery?" (Clay Studio, f0006; event e0002)
- d0004 03-04 07:00 newsletter City Culture Weekly -> Maya
- d0005 03-06 12:00 receipt Northwind Books: order 12345 for 42.50
- d0006 03-06 21:00 journal: sections "Moving day" (Cambridge, f0007) and "The raise talk" (f0008)
- d0007 03-07 19:00 budget report (html), table BUDGET
- d0008 03-08 21:00 training log (md), table SESSIONS
- d0009 03-09 19:00 budget report version 2 (revision of d0007: Groceries actual 480 -> 530)
- d0010 03-09 11:00 email Daniel Okafor -> Maya "Big news" (Austin, f0009; event e0005)
Turns (user): 03-01 Boston (f0001) and Daniel in Chicago (f0003); 03-02 Biscuit (f0005); 03-04 Clay
Studio (f0006) and Priya in Somerville (f0010); 03-06 Cambridge (f0007); 03-09 Daniel in Austin (f0009).
`late()` adds, after the question time, a move to Somerville (a fact, an email and a turn), one more
email from Priya and a revision of the budget.
"""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Corpus, Document, ReportDraft, ReportSection, Turn
from schemas.world import Fact, World
from tasks.common.timeutil import local_datetime, question_time
from tasks.questions.base import QContext
from tasks.sources.chunking import chunk_document
from tasks.sources.emails import Party, email_document, me
from tasks.sources.reports import render_html, render_md, with_total
from tests.tasks.worldfixture import PID, day, fact, make_config, make_persona, make_world

CHUNK_TOKENS = 60
BUDGET = with_total({"caption": "Budget", "columns": ["category", "planned", "actual", "difference"],
                     "rows": [["Housing", 1500, 1500, 0], ["Groceries", 400, 480, 80], ["Transport", 120, 95, -25],
                              ["Leisure", 200, 260, 60]]})
BUDGET_V2 = with_total(BUDGET | {"caption": "Budget (updated)", "updated": "Groceries",
                                 "rows": [["Housing", 1500, 1500, 0], ["Groceries", 400, 530, 130],
                                          ["Transport", 120, 95, -25], ["Leisure", 200, 260, 60]]})
SESSIONS = {"caption": "Ceramics sessions", "columns": ["date", "minutes", "effort"],
            "rows": [["2024-03-02", 90, 8], ["2024-03-04", 45, 5], ["2024-03-05", 120, 9], ["Total", 255, 22]]}

PRIYA = Party(name="Priya Shah", address="priya.shah@mail.example", relation="friend")
DANIEL = Party(name="Daniel Okafor", address="daniel.okafor@mail.example", relation="brother")


def world() -> World:
    """worldfixture's world plus Priya Shah's city (told in conversation only)."""
    w = make_world()
    return w.model_copy(update={"facts": w.facts + [fact(10, 2, "Priya Shah", "city", "Somerville", 4,
                                                         ["Somerville"])]})


def at(n: int, hour: int, minute: int = 0) -> dt.datetime:
    return local_datetime(make_persona(), day(n), hour, minute)


def email(n: int, when: dt.datetime, sender: Party, to: Party, subject: str, text: str, *, kind: str,
          event: int | None = None, facts: list[Fact] = (), parent: str | None = None,
          thread: str | None = None) -> Document:
    doc = email_document(make_persona(), f"{PID}-d{n:04d}", when, subject, sender, [to], [], text,
                         event_id=f"{PID}-e{event:04d}" if event is not None else None, facts=facts, kind=kind,
                         parent=parent, thread=thread)
    return doc


def report(n: int, when: dt.datetime, kind: str, fmt: str, title: str, table: dict, version: int = 1,
           parent: str | None = None) -> Document:
    draft = ReportDraft(title=title, summary="Prepared by Maya. The table below has the figures.", sections=[
        ReportSection(heading="Highlights", body="Spending was close to plan overall."),
        ReportSection(heading="Concerns", body="Groceries ran over again this period."),
        ReportSection(heading="Next steps", body="Cook at home more often."),
    ])
    body = (render_html if fmt == "html" else render_md)(draft, table)
    return Document(doc_id=f"{PID}-d{n:04d}", persona_id=PID, created_at=when, source_type="report", format=fmt,
                    title=title, sender="Maya Okafor", body=body, kind=kind, tables=[table], version=version,
                    parent_doc_id=parent)


def documents(facts: dict[str, Fact]) -> list[Document]:
    f = lambda n: facts[f"{PID}-f{n:04d}"]  # noqa: E731
    maya = me(make_persona())
    d1 = email(1, at(2, 10), maya, PRIYA, "Meet my new roommate",
               "Hi Priya,\n\nWe adopted a rescue dog named Biscuit this morning!\n\nMaya", kind="outgoing", event=1,
               facts=[f(5)])
    quoted = "\n".join(f"> {line}" for line in d1.body.partition("\n\n")[2].splitlines())
    d2 = email(2, at(3, 18), PRIYA, maya, "Re: Meet my new roommate",
               f"So cute! Can't wait to meet him.\n\nOn Sat, Maya wrote:\n{quoted}", kind="reply", event=1,
               facts=[f(5)], parent=d1.doc_id, thread=d1.doc_id)
    d3 = email(3, at(5, 9), PRIYA, maya, "Pottery?",
               "Hey Maya,\n\nHow was the first night of your pottery class at Clay Studio?\n\nPriya",
               kind="incoming", event=2, facts=[f(6)])
    d4 = email(4, at(4, 7), Party(name="City Culture Weekly", address="newsletter@ccw.example", relation="org"),
               maya, "This week in the city", "Hello Maya,\n\nIn this issue: jazz, parks and a new bakery.",
               kind="newsletter")
    d5 = email(5, at(6, 12), Party(name="Northwind Books", address="orders@northwind.example", relation="org"),
               maya, "Thanks for shopping at Northwind Books",
               "Hello Maya,\n\nThis email confirms order 12345 for 42.50. Your items ship soon.", kind="receipt")
    journal_body = ("# A big day\n\nWhat a day.\n\n## Moving day\n\nWe finally moved to a flat in Cambridge. "
                    "Boxes everywhere.\n\n## The raise talk\n\nI asked Daniel Reyes for a raise: my raise was "
                    "declined. Oh well.")
    d6 = Document(doc_id=f"{PID}-d0006", persona_id=PID, created_at=at(6, 21), source_type="journal", format="md",
                  title="A big day", sender="Maya Okafor", body=journal_body, event_id=f"{PID}-e0003",
                  fact_ids=[f"{PID}-f0007", f"{PID}-f0008"], kind="journal")
    d7 = report(7, at(7, 19), "budget", "html", "Household budget for March", BUDGET)
    d8 = report(8, at(8, 21), "training_log", "md", "Ceramics log", SESSIONS)
    d9 = report(9, at(9, 19), "budget", "html", "Household budget for March (revised)", BUDGET_V2, version=2,
                parent=d7.doc_id)
    d10 = email(10, at(9, 11), DANIEL, maya, "Big news",
                "Hi sis,\n\nThe van is unpacked: I live in Austin now.\n\nDaniel", kind="incoming", event=5,
                facts=[f(9)])
    return [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10]


def turn(session: int, when: dt.datetime, text: str, fact_ids: list[int]) -> Turn:
    return Turn(turn_id=f"{PID}-s{session:04d}-t01", session_id=f"{PID}-s{session:04d}", persona_id=PID,
                timestamp=when, role="user", text=text, fact_ids=[f"{PID}-f{n:04d}" for n in fact_ids])


TURNS = [
    (1, (1, 20), "I live in Boston and my brother Daniel Okafor lives in Chicago.", [1, 3]),
    (2, (2, 20), "We adopted a rescue dog named Biscuit today!", [5]),
    (3, (4, 20), "Started a pottery class at Clay Studio. Priya Shah lives in Somerville now, she came too.", [6, 10]),
    (4, (6, 20), "We moved to Cambridge today.", [7]),
    (5, (9, 20), "Daniel Okafor just moved to Austin.", [9]),
]


def corpus(docs: list[Document], turns: list[Turn], facts: list[Fact]) -> Corpus:
    order = sorted(docs, key=lambda d: (d.created_at, d.doc_id))
    chunks = [c for d in order for c in chunk_document(d, CHUNK_TOKENS, facts)]
    return Corpus(documents=order, chunks=chunks, turns=sorted(turns, key=lambda t: t.timestamp))


def make_context(late_items: bool = False) -> QContext:
    """The QContext at question time (2024-03-11 09:00 New York); `late_items` adds what happens after it."""
    config, persona, w = make_config(), make_persona(), world()
    facts = {f.fact_id: f for f in w.facts}
    docs = documents(facts)
    turns = [turn(s, at(d, h), text, ids) for s, (d, h), text, ids in TURNS]
    if late_items:
        w, docs, turns = late(w, docs, turns)
    asked_at = question_time(config, persona)
    return QContext(config, persona, w, corpus(docs, turns, w.facts), asked_at, asked_at.date())


def late(w: World, docs: list[Document], turns: list[Turn]) -> tuple[World, list[Document], list[Turn]]:
    """A move to Somerville on 03-12 (fact, email, turn), another email from Priya and a budget revision."""
    moved = Fact(fact_id=f"{PID}-f0011", persona_id=PID, event_id=f"{PID}-e0006", subject="Maya Okafor",
                 attribute="city", value="Somerville", valid_from=day(12), surface_forms=["Somerville"])
    facts = [f.model_copy(update={"valid_to": day(12)}) if f.fact_id == f"{PID}-f0007" else f for f in w.facts]
    w = w.model_copy(update={"facts": facts + [moved]})
    maya = me(make_persona())
    extra = [
        email(11, at(12, 9), PRIYA, maya, "Pottery again?", "Hi Maya,\n\nSame time next week?\n\nPriya",
              kind="incoming", event=2),
        email(12, at(12, 10), Party(name="Greenleaf Lettings", address="noreply@gl.example", relation="org"), maya,
              "Your new flat", "Dear Maya,\n\nWelcome to Somerville.", kind="organisation", event=6, facts=[moved]),
        report(13, at(13, 19), "budget", "html", "Household budget for March (second revision)",
               with_total(BUDGET | {"rows": [["Housing", 1500, 1500, 0], ["Groceries", 400, 530, 130],
                                             ["Transport", 120, 140, 20], ["Leisure", 200, 260, 60]]}),
               version=3, parent=f"{PID}-d0009"),
    ]
    return w, docs + extra, turns + [turn(9, at(12, 20), "We moved again, to Somerville!", [11])]
