"""Noise emails a memory system must skip: weekly newsletters, shop receipts and routine notices.

They come from organisations, never carry a benchmark fact, and are planned by the rules week by week.
"""

from __future__ import annotations

import datetime as dt

from schemas.config import BuildConfig
from schemas.corpus import Document, EmailDraft
from schemas.profile import Persona
from tasks.common.facttext import persona_context
from tasks.common.rng import rng_for
from tasks.common.timeutil import local_datetime
from tasks.sources.docplan import STAGE, Planned
from tasks.sources.emails import NEWSLETTERS, SHOPS, email_document, me, org_party

NOTICE_TOPICS = ("scheduled system maintenance", "updated privacy policy", "office closure for cleaning",
                 "changes to opening hours", "annual account review", "service interruption in your area")


def noise_emails(config: BuildConfig, persona: Persona) -> list[Planned]:
    """Newsletters (weekly), receipts (about every other week) and notices (every four weeks)."""
    out: list[Planned] = []
    for week in range((config.days + 6) // 7):
        start = config.start_date + dt.timedelta(days=7 * week)
        rng = rng_for(config.seed, persona.persona_id, STAGE, start, "noise")
        letter = NEWSLETTERS[rng.randrange(len(NEWSLETTERS))]
        out.append(notice(config, persona, "newsletter", letter, start + dt.timedelta(days=rng.randint(0, 6)),
                          f"this week's highlights from {letter}", rng.randint(6, 9)))
        if rng.random() < 0.5:
            shop = SHOPS[rng.randrange(len(SHOPS))]
            amount = f"{rng.randint(8, 140)}.{rng.randint(0, 99):02d}"
            out.append(notice(config, persona, "receipt", shop, start + dt.timedelta(days=rng.randint(0, 6)),
                              f"order {rng.randint(10000, 99999)} for {amount}", rng.randint(10, 22)))
        if week % 4 == 1:
            sender = rng.choice([persona.profile.identity.employer, "Harbour Savings Bank", "Town Hall Services"])
            out.append(notice(config, persona, "notice", sender, start + dt.timedelta(days=rng.randint(0, 4)),
                              rng.choice(NOTICE_TOPICS), rng.randint(8, 16)))
    return [p for p in out if p.created.date() <= config.end_date]


def notice(config: BuildConfig, persona: Persona, kind: str, org: str, day: dt.date, topic: str,
           hour: int) -> Planned:
    """One noise email from `org` to the persona about `topic`."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, day, f"{kind}:{org}")
    sent = local_datetime(persona, day, hour, rng.randint(0, 59))
    sender = org_party(org, {"newsletter": "newsletter", "receipt": "orders"}.get(kind, "notices"))
    key = f"{kind}:{day.isoformat()}:{org}"
    context = {"persona": persona_context(persona), "kind": kind, "sender": sender.model_dump(),
               "recipient": me(persona).model_dump(), "sent_at": sent.isoformat(), "topic": topic}

    def render(draft: EmailDraft, conveyed: frozenset[str] = frozenset()) -> Document:  # a notice has no facts
        return email_document(persona, key, sent, draft.subject, sender, [me(persona)], [], draft.body, kind=kind)

    return Planned(key, sent, "email_notice", context, EmailDraft, persona.persona_id, render)
