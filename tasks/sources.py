"""External sources: emails about the persona's events, and their retrieval chunks.

For each event, with probability `stages.sources.email_probability`, an email is written to or from
someone the persona knows (or a plausible organisation). The rules pick who writes, when and which
facts the email carries; the model only narrates. A document claims a fact only when its body
contains the fact's first surface form, and a chunk only when its text contains a surface form.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel

from schemas.config import BuildConfig
from schemas.corpus import Chunk, Corpus, Document, EmailDraft
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.facttext import (
    capital,
    carried_ids,
    carries_first,
    clause,
    event_context,
    event_title,
    facts_of,
    must_include,
    persona_context,
    story_events,
    style_context,
)
from tasks.llm.gateway import CallSpec, Gateway
from tasks.rng import rng_for
from tasks.timeutil import local_datetime

STAGE = "sources"
ORGANISATIONS = (
    (("dog", "cat", "pet", "vet", "puppy", "kitten"), "Paws & Whiskers Veterinary Clinic"),
    (("move", "flat", "apartment", "house", "rent", "lease"), "Greenleaf Lettings"),
    (("class", "course", "lesson", "workshop", "study"), "Northside Community Learning Centre"),
    (("doctor", "dentist", "health", "clinic", "physio", "injury"), "CityCare Health Clinic"),
    (("gym", "run", "marathon", "yoga", "swim", "fitness"), "Peak Fitness Club"),
    (("bank", "loan", "savings", "mortgage", "invest", "budget"), "Harbour Savings Bank"),
    (("trip", "flight", "travel", "holiday", "hotel", "visit"), "Wayfarer Travel Desk"),
    (("car", "bike", "repair", "garage"), "Riverside Auto & Cycle"),
)
EMPLOYER_WORDS = (
    "job",
    "work",
    "promotion",
    "project",
    "office",
    "raise",
    "salary",
    "career",
    "team",
    "boss",
)
FALLBACK_ORGANISATIONS = ("Riverside Public Library", "Parcelpoint Deliveries", "Town Hall Services")


class Party(BaseModel):
    """One end of an email: display name, address and relation to the persona."""

    name: str
    address: str
    relation: str

    @property
    def header(self) -> str:
        return f"{self.name} <{self.address}>"


def write_emails(config: BuildConfig, persona: Persona, world: World, gateway: Gateway) -> Corpus:
    """The persona's emails (documents) and their chunks; one email per selected event, in date order.

    Every email is planned first (parties, time, facts, prompt context), then all are narrated with one
    `generate_many` (concurrent on live providers; results in plan order, so ids never depend on timing).
    """
    events = [e for e in story_events(world) if wants_email(config, persona, e)]
    plans = [plan_email(config, persona, world, event) for event in events]
    drafts = gateway.generate_many([plan.call(persona) for plan in plans])
    documents = [
        plan.document(persona, draft, f"{persona.persona_id}-d{n:04d}")
        for n, (plan, draft) in enumerate(zip(plans, drafts, strict=True), start=1)
    ]
    facts = world.facts
    chunks = [c for d in documents for c in chunk_document(d, config.stages.sources.chunk_tokens, facts)]
    return Corpus(documents=documents, chunks=chunks)


def wants_email(config: BuildConfig, persona: Persona, event: Event) -> bool:
    """Whether this event yields an email (seeded draw against email_probability)."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"email:{event.event_id}")
    return rng.random() < config.stages.sources.email_probability


class EmailPlan(NamedTuple):
    """Everything the rules decide about one email before the model words it."""

    event: Event
    direction: str
    sender: Party
    recipient: Party
    sent: dt.datetime
    facts: list[Fact]
    context: dict[str, Any]

    def call(self, persona: Persona) -> CallSpec:
        return CallSpec("email", self.context, EmailDraft, STAGE, persona.persona_id)

    def document(self, persona: Persona, draft: EmailDraft, doc_id: str) -> Document:
        """The email with the model's wording, checked to carry the event's facts."""
        person = "first" if self.direction == "outgoing" else "second"
        body = with_missing_facts(draft.body, self.facts, persona, person)
        return Document(
            doc_id=doc_id,
            persona_id=persona.persona_id,
            created_at=self.sent,
            source_type="email",
            format="txt",
            title=draft.subject.strip(),
            sender=self.sender.header,
            recipients=[self.recipient.header],
            body=body,
            event_id=self.event.event_id,
            fact_ids=carried_ids(body, self.facts, first_only=True),
        )


def plan_email(config: BuildConfig, persona: Persona, world: World, event: Event) -> EmailPlan:
    """Who writes to whom, when, about which facts, and the prompt context."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"parties:{event.event_id}")
    direction, sender, recipient = parties(persona, world, event, rng)
    sent = sent_at(config, persona, event)
    facts = facts_of(world, event)
    context = email_context(persona, world, event, facts, direction, sender, recipient, sent)
    return EmailPlan(event, direction, sender, recipient, sent, facts, context)


def parties(persona: Persona, world: World, event: Event, rng: random.Random) -> tuple[str, Party, Party]:
    """Who writes to whom: (direction, sender, recipient); direction is outgoing, incoming or organisation."""
    me = Party(name=persona.name, address=address(persona.name, "mail.example"), relation="the persona")
    relations = persona.profile.relationships
    if not relations or rng.random() < 0.4:
        org = organisation(persona, world, event, rng)
        return "organisation", org, me
    involved = involved_names(persona, world, event)
    others = [r for r in relations if r.name not in involved]
    if not others:
        return "organisation", organisation(persona, world, event, rng), me
    rel = rng.choice(others)
    them = Party(name=rel.name, address=address(rel.name, "mail.example"), relation=rel.role)
    return ("outgoing", me, them) if rng.random() < 0.5 else ("incoming", them, me)


def involved_names(persona: Persona, world: World, event: Event) -> set[str]:
    """Relations the event is about (named in its title or as a fact subject): they hear it first-hand."""
    text = event_title(event, world.plans) + " " + " ".join(f.subject for f in facts_of(world, event))
    return {rel.name for rel in persona.profile.relationships if rel.name in text}


def organisation(persona: Persona, world: World, event: Event, rng: random.Random) -> Party:
    """A plausible organisation for the event: by keywords in its title and kind, else the employer
    or a default."""
    text = f"{event_title(event, world.plans)} {event.kind}".lower()
    name = next((org for keys, org in ORGANISATIONS if any(k in text for k in keys)), None)
    if name is None and any(k in text for k in EMPLOYER_WORDS):
        name = persona.profile.identity.employer
    name = name or rng.choice(FALLBACK_ORGANISATIONS)
    domain = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".example"
    return Party(name=name, address=f"noreply@{domain}", relation="organisation")


def address(name: str, domain: str) -> str:
    """`Daniel Okafor` -> `daniel.okafor@<domain>`."""
    local = ".".join(re.sub(r"[^a-z0-9]", "", part.lower()) for part in name.split())
    return f"{local.strip('.') or 'someone'}@{domain}"


def sent_at(config: BuildConfig, persona: Persona, event: Event) -> dt.datetime:
    """Office hours on the event day or the day after (never after the simulation's last day)."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"sent:{event.event_id}")
    offset = 0 if event.date >= config.end_date else rng.choice([0, 0, 1])
    return local_datetime(
        persona, event.date + dt.timedelta(days=offset), rng.randint(7, 17), rng.randint(0, 59)
    )


def email_context(
    persona: Persona,
    world: World,
    event: Event,
    facts: list[Fact],
    direction: str,
    sender: Party,
    recipient: Party,
    sent: dt.datetime,
) -> dict[str, Any]:
    """The variables of prompts/email.jinja."""
    person = "first" if direction == "outgoing" else "second"
    return {
        "persona": persona_context(persona),
        "style": style_context(persona),
        "direction": direction,
        "sender": sender.model_dump(),
        "recipient": recipient.model_dump(),
        "sent_at": sent.isoformat(),
        "event": event_context(event, world),
        "facts": [fact_context(f, persona, person) for f in facts],
    }


def fact_context(fact: Fact, persona: Persona, person: str) -> dict[str, str]:
    """A fact to convey: its id, a clause stating it, and the phrase the text must contain."""
    return {
        "fact_id": fact.fact_id,
        "clause": clause(fact, persona, person),
        "must_include": must_include(fact),
    }


def with_missing_facts(body: str, facts: Sequence[Fact], persona: Persona, person: str) -> str:
    """`body`, plus a postscript stating any fact whose first surface form the model left out."""
    missing = [f for f in facts if f.surface_forms and not carries_first(body, f)]
    if not missing:
        return body
    lines = " ".join(f"{capital(clause(f, persona, person))}." for f in missing)
    return f"{body.rstrip()}\n\nP.S. {lines}"


def chunk_document(doc: Document, chunk_tokens: int, facts: Sequence[Fact] = ()) -> list[Chunk]:
    """Split a document by paragraphs into chunks of at most ~chunk_tokens whitespace tokens.

    A chunk's fact_ids are those of the document's facts (looked up in `facts`) whose surface form
    the chunk's own text contains; without `facts` no chunk claims a fact.
    """
    claimed = [f for f in facts if f.fact_id in doc.fact_ids]
    texts = pack(pieces(doc.body, chunk_tokens), chunk_tokens)
    return [
        Chunk(
            chunk_id=f"{doc.doc_id}-c{i:02d}",
            doc_id=doc.doc_id,
            persona_id=doc.persona_id,
            created_at=doc.created_at,
            ordinal=i,
            text=text,
            n_tokens=len(text.split()),
            fact_ids=carried_ids(text, claimed),
        )
        for i, text in enumerate(texts, start=1)
    ]


def pieces(body: str, chunk_tokens: int) -> list[str]:
    """The body's paragraphs, with any paragraph longer than chunk_tokens cut into word windows."""
    out: list[str] = []
    for para in (p.strip() for p in re.split(r"\n\s*\n", body)):
        words = para.split()
        if len(words) <= chunk_tokens:
            out += [para] if para else []
        else:
            out += [" ".join(words[i : i + chunk_tokens]) for i in range(0, len(words), chunk_tokens)]
    return out


def pack(paragraphs: list[str], chunk_tokens: int) -> list[str]:
    """Greedily join consecutive paragraphs while the total stays within chunk_tokens."""
    chunks: list[list[str]] = []
    size = 0
    for para in paragraphs:
        n = len(para.split())
        if chunks and size + n <= chunk_tokens:
            chunks[-1].append(para)
            size += n
        else:
            chunks.append([para])
            size = n
    return ["\n\n".join(c) for c in chunks]
