"""Emails: event emails to and from the persona's people and organisations, replies that quote their
parent (threads), and noise (newsletters, notices, receipts) that carries no benchmark facts.

The body of every email starts with a parseable header block (From, To, Cc, Date, Subject) and a
blank line; `parse_headers` reads it back.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import functools
import random
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from schemas.config import BuildConfig
from schemas.corpus import Document, EmailDraft
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common import worldindex
from tasks.common.facttext import (
    capital,
    carries_first,
    clause,
    event_context,
    event_title,
    facts_of,
    persona_context,
    story_events,
    style_context,
)
from tasks.common.rng import rng_for
from tasks.common.timeutil import local_datetime
from tasks.sources import realized
from tasks.sources.docplan import STAGE, Planned, slug
from tasks.sources.organisations import Writer, line, writer_for
from tasks.world.entities_life import serves

EMPLOYER_WORDS = ("job", "work", "promotion", "project", "office", "raise", "salary", "career", "team", "boss")
NEWSLETTERS = ("The Weekend Digest", "City Culture Weekly", "Deal Hunter Bulletin", "Tech Brief Daily")
SHOPS = ("Corner Market Grocers", "Northwind Books", "BrightHome Supplies", "Urban Threads", "Pixel & Plug")
HEADERS = ("From", "To", "Cc", "Date", "Subject")


class Party(BaseModel):
    """One end of an email: display name, address and relation to the persona."""

    name: str
    address: str
    relation: str

    @property
    def header(self) -> str:
        return f"{self.name} <{self.address}>"


@functools.lru_cache(maxsize=4096)
def address(name: str, domain: str) -> str:
    """`Daniel Okafor` -> `daniel.okafor@<domain>`."""
    local = ".".join(re.sub(r"[^a-z0-9]", "", part.lower()) for part in name.split())
    return f"{local.strip('.') or 'someone'}@{domain}"


def me(persona: Persona) -> Party:
    """The persona as an email party."""
    return Party(name=persona.name, address=address(persona.name, "mail.example"), relation="the persona")


def org_party(name: str, local: str = "noreply") -> Party:
    """An organisation's sending address."""
    return Party(name=name, address=f"{local}@{slug(name)}.example", relation="organisation")


def header_block(sender: str, to: Sequence[str], cc: Sequence[str], sent: dt.datetime, subject: str) -> str:
    """The RFC 5322-style header lines that open every email body."""
    lines = [f"From: {sender}", f"To: {', '.join(to)}"]
    lines += [f"Cc: {', '.join(cc)}"] if cc else []
    lines += [f"Date: {email.utils.format_datetime(sent)}", f"Subject: {subject}"]
    return "\n".join(lines)


def parse_headers(body: str) -> dict[str, Any]:
    """The header block of an email body: from, to, cc (lists of `Name <addr>`), date, subject, text."""
    head, _, text = body.partition("\n\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
    split = [a.strip() for a in re.split(r"(?<=>),\s*", fields.get("Cc", "")) if a.strip()]
    return {
        "from": fields.get("From", ""),
        "to": [a.strip() for a in re.split(r"(?<=>),\s*", fields.get("To", "")) if a.strip()],
        "cc": split,
        "date": email.utils.parsedate_to_datetime(fields["Date"]) if "Date" in fields else None,
        "subject": fields.get("Subject", ""),
        "text": text,
    }


def with_missing_facts(body: str, facts: Sequence[Fact], persona: Persona, person: str,
                       say: Callable[[Fact], str] | None = None,
                       told: Callable[[str, Fact], bool] = carries_first, conveyed: Collection[str] = ()) -> str:
    """`body`, plus a postscript stating any fact the model left out (`told` says whether a text states it: by
    default its first surface form; `conveyed`: ids the fact_check verdict found said), in `say`'s words, else
    the fact's clause."""
    missing = [f for f in facts if f.surface_forms and f.fact_id not in conveyed and not told(body, f)]
    if not missing:
        return body
    lines = " ".join(f"{capital(say(f) if say else clause(f, persona, person))}." for f in missing)
    return f"{body.rstrip()}\n\nP.S. {lines}"


def event_emails(config: BuildConfig, persona: Persona, world: World) -> list[Planned]:
    """One planned email per event selected by `email_probability` that someone would write about."""
    out = []
    for event in story_events(world):
        rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"email:{event.event_id}")
        if rng.random() < config.stages.sources.email_probability:
            planned = event_email(config, persona, world, event)
            out += [planned] if planned is not None else []
    return out


def event_email(config: BuildConfig, persona: Persona, world: World, event: Event) -> Planned | None:
    """Who writes to whom (and who is copied), when, about which facts; None when nobody would write (an event
    that involved no organisation, and no one close to the persona it is not about)."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"parties:{event.event_id}")
    facts = facts_of(world, event)
    writer = writer_for(persona, world, event, facts)
    chosen = parties(persona, world, event, writer, rng)
    if chosen is None:
        return None
    direction, sender, recipient = chosen
    cc = copied(persona, world, event, rng, {sender.name, recipient.name}) if direction != "organisation" else []
    sent = sent_at(config, persona, event)
    person = "first" if direction == "outgoing" else "second"
    key = f"email:{event.event_id}"
    if writer is not None and direction == "organisation":
        facts = list(writer.facts)
    # a personal email says a share of its facts in other words; an organisation writes its own sentence
    plan = realized.planned(config, persona, world, facts, key) if direction in ("outgoing", "incoming") else {}
    told = {f.fact_id: realized.fact_context(f, persona, person, plan) for f in facts}
    if direction == "organisation":
        told = {f.fact_id: told[f.fact_id] | {"clause": line(f)} for f in facts}
    context = {
        "persona": persona_context(persona), "style": style_context(persona), "direction": direction,
        "sender": sender.model_dump(), "recipient": recipient.model_dump(), "sent_at": sent.isoformat(),
        "event": event_context(event, world), "parent": None,
        "notice": writer.notice if writer is not None and direction == "organisation" else None,
        "facts": list(told.values()),
    }

    def said(text: str, fact: Fact) -> bool:
        return realized.said(text, fact, plan)

    def render(draft: EmailDraft, conveyed: frozenset[str] = frozenset()) -> Document:
        text = with_missing_facts(draft.body, facts, persona, person, say=lambda f: told[f.fact_id]["clause"],
                                  told=said, conveyed=conveyed)
        return email_document(persona, key, sent, draft.subject, sender, [recipient], cc, text,
                              event_id=event.event_id, facts=facts, kind=direction, parts=realized.parts_of(plan),
                              judged=conveyed)

    return Planned(key, sent, "email", context, EmailDraft, persona.persona_id, render, {"direction": direction},
                   tuple(facts), said)


def email_document(persona: Persona, key: str, sent: dt.datetime, subject: str, sender: Party,
                   to: list[Party], cc: list[Party], text: str, *, event_id: str | None = None,
                   facts: Sequence[Fact] = (), kind: str = "", parent: str | None = None,
                   thread: str | None = None, parts: Mapping[str, Sequence[str]] | None = None,
                   judged: Collection[str] = ()) -> Document:
    """An email Document whose body is the header block, a blank line and the text; `parts` are the phrases of
    the facts planned in other words (recorded when the body says them so: tasks/sources/realized.py), `judged`
    the facts a real model's words convey by the fact_check verdict."""
    subject = subject.strip()[:200] or "(no subject)"
    body = header_block(sender.header, [p.header for p in to], [p.header for p in cc], sent, subject)
    body += "\n\n" + text.strip()
    record = realized.realized_in(body, facts, parts or {})
    return Document(doc_id=key, persona_id=persona.persona_id, created_at=sent, source_type="email", format="txt",
                    title=subject, sender=sender.header, recipients=[p.header for p in to],
                    cc=[p.header for p in cc], body=body, event_id=event_id,
                    fact_ids=realized.claimed(body, facts, record, judged), kind=kind, parent_doc_id=parent,
                    thread_id=thread or key, realized=record, judged=realized.judged_of(body, facts, record, judged))


ORGANISATION_SHARE = 0.5
"""Of the emailed events that involved an organisation, the share it writes about (the persona's people, the rest)."""


def parties(persona: Persona, world: World, event: Event, writer: Writer | None,
            rng: random.Random) -> tuple[str, Party, Party] | None:
    """(direction, sender, recipient): the organisation the event involved (`writer`), or someone close to the
    persona whom the event is not about, writing to them or written to; None when there is neither."""
    involved = involved_names(persona, world, event)
    others = [r for r in persona.profile.relationships  # the people who would write about it: not their GP
              if r.name not in involved and not serves(r.role)]
    if writer is not None and (not others or rng.random() < ORGANISATION_SHARE):
        return "organisation", org_party(writer.name, writer.mailbox), me(persona)
    if not others:
        return None
    rel = rng.choice(others)
    them = Party(name=rel.name, address=address(rel.name, "mail.example"), relation=rel.role)
    return ("outgoing", me(persona), them) if rng.random() < 0.5 else ("incoming", them, me(persona))


def copied(persona: Persona, world: World, event: Event, rng: random.Random, taken: set[str]) -> list[Party]:
    """Sometimes one more relation on Cc (never someone the event is about)."""
    skip = taken | involved_names(persona, world, event)
    pool = [r for r in persona.profile.relationships
            if r.name not in skip and not serves(r.role)]
    if not pool or rng.random() >= 0.3:
        return []
    rel = rng.choice(pool)
    return [Party(name=rel.name, address=address(rel.name, "mail.example"), relation=rel.role)]


def involved_names(persona: Persona, world: World, event: Event) -> set[str]:
    """Relations the event is about (named in its title or as a fact subject): they hear it first-hand."""
    text = event_title(event, world) + " " + " ".join(f.subject for f in facts_of(world, event))
    return {rel.name for rel in persona.profile.relationships if rel.name in text}


def sent_at(config: BuildConfig, persona: Persona, event: Event) -> dt.datetime:
    """Office hours on the event day or the day after (never after the simulation's last day)."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"sent:{event.event_id}")
    offset = 0 if event.date >= config.end_date else rng.choice([0, 0, 1])
    return local_datetime(persona, event.date + dt.timedelta(days=offset), rng.randint(7, 17), rng.randint(0, 59))


def replies(config: BuildConfig, persona: Persona, world: World, parents: Sequence[Document]) -> list[Planned]:
    """Replies to some personal emails, 1-3 days later, from the recipient back to the sender."""
    out = []
    for doc in parents:
        if doc.source_type != "email" or doc.kind not in ("outgoing", "incoming"):
            continue
        rng = rng_for(config.seed, persona.persona_id, STAGE, doc.created_at.date(), f"reply:{doc.doc_id}")
        day = doc.created_at.date() + dt.timedelta(days=rng.randint(1, 3))
        if rng.random() < config.stages.sources.reply_probability and day <= config.end_date:
            out.append(reply(persona, world, doc, local_datetime(persona, day, rng.randint(8, 21), rng.randint(0, 59))))
    return out


def reply(persona: Persona, world: World, parent: Document, sent: dt.datetime) -> Planned:
    """The reply to `parent`: its recipient answers the sender, same Cc, quoting the parent."""
    head = parse_headers(parent.body)
    sender, to = party_of(parent.recipients[0], persona), party_of(parent.sender or "", persona)
    cc = [party_of(c, persona) for c in parent.cc]
    subject = parent.title if parent.title.lower().startswith("re:") else f"Re: {parent.title}"
    found = worldindex.index(world)
    facts = [found.facts[i] for i in dict.fromkeys(parent.fact_ids) if i in found.facts]  # in the store's order
    event = found.events[parent.event_id]
    context = {
        "persona": persona_context(persona), "style": style_context(persona), "direction": "reply",
        "sender": sender.model_dump(), "recipient": to.model_dump(), "sent_at": sent.isoformat(),
        "event": event_context(event, world), "facts": [], "notice": None,
        "parent": {"subject": parent.title, "text": head["text"]},
    }
    key = f"reply:{parent.doc_id}"

    def render(draft: EmailDraft, conveyed: frozenset[str] = frozenset()) -> Document:
        quoted = "\n".join(f"> {line}".rstrip() for line in head["text"].splitlines())
        stamp = email.utils.format_datetime(parent.created_at)
        text = f"{draft.body.strip()}\n\nOn {stamp}, {to.header} wrote:\n{quoted}"
        return email_document(persona, key, sent, subject, sender, [to], cc, text, event_id=parent.event_id,
                              facts=facts, kind="reply", parent=parent.doc_id, thread=parent.thread_id,
                              parts=parent.realized)

    return Planned(key, sent, "email", context, EmailDraft, persona.persona_id, render, {"parent": parent.doc_id})


def party_of(header: str, persona: Persona) -> Party:
    """A Party from a `Name <address>` header."""
    name, addr = email.utils.parseaddr(header)
    relation = "the persona" if name == persona.name else next(
        (r.role for r in persona.profile.relationships if r.name == name), "organisation")
    return Party(name=name or addr, address=addr, relation=relation)
