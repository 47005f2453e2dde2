"""The reconstruction track: a persona's evidenced profile claims and its portrait in fixed slots."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence

from schemas.companion import PORTRAIT_SLOTS, PortraitSlot, ProfileClaim
from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.facttext import attribute_phrase, capital, first_name, mentions
from tasks.world.ontology import ATTRIBUTES

SLOT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("health", ("health", "doctor", "injury", "illness", "running_restriction", "diet", "therapy", "medic")),
    ("relationships", ("relationship", "partner", "dating", "marri", "friend")),
    ("current_matters", ("restriction", "bill", "spending", "financial", "budget", "debt", "loan", "missed_call",
                         "celebration", "matter", "savings", "account", "invest", "portfolio", "shock")),
    ("work", ("occupation", "employer", "job", "work", "team", "promotion", "income", "salary", "office",
              "colleague", "career", "raise")),
    ("home", ("city", "home", "address", "neighbourhood", "cafe", "grocery", "shop_", "flat", "house")),
    ("possessions", ("pet", "vehicle", "possession", "sold_item", "car", "shopping", "bike", "item")),
    ("interests", ("hobby", "book", "concert", "course", "volunteer", "gym", "trip", "dinner", "evening",
                   "lunch", "class", "sport", "music", "film", "game")),
    ("identity", ("name", "age", "gender", "education", "nationality", "language", "birthday")),
)
"""Slot of a fact about the persona: the first slot one of whose words occurs in the attribute's last segment.
A fact about someone else (subject is not the persona) is `relationships`; an attribute matching no word is
`identity` for a baseline fact and `current_matters` for one an event set."""
EVENT_WORDS = ("status", "news", "tip", "milestone", "outcome", "result")
"""An attribute whose last segment contains one of these, or starts with `last_`, records something that
happened (an event), whatever its slot: `job_offer_status`, `news`, `last_hobby_session`."""
STABLE_WORDS = ("occupation", "employer", "job_title", "role", "city", "home", "address", "neighbourhood",
                "partner", "relationship", "pet", "vehicle", "car", "bike", "name", "age", "gender", "education",
                "nationality", "language", "birthday", "possession", "instrument")
"""Attribute kinds that describe who the person is or what they have: stable while open-ended."""
LAPSED_VALUES = ("unemployed", "none", "no ", "not ", "between ", "without ")
"""A value that records an absence (`employer: unemployed`) is transient, not a stable trait."""
STYLE_EVIDENCE = 5
"""Communication claims cite the first and the last STYLE_EVIDENCE user turns that show the trait."""
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")


def slot_of(fact: Fact, persona: Persona) -> str:
    """The portrait slot a fact belongs to (SLOT_WORDS)."""
    if fact.subject != persona.name:
        return "relationships"
    key = fact.attribute.rsplit(".", 1)[-1].lower()
    for slot, words in SLOT_WORDS:
        if any(w in key for w in words):
            return slot
    return "identity" if fact.event_id.endswith("-e0000") else "current_matters"


def temporality_of(fact: Fact, slot: str) -> str:
    """By the attribute's kind, not its slot: `event` for what happened at an event (an event attribute of the
    ontology; for another attribute, EVENT_WORDS or `last_*`); `transient` for a fact with an end (valid_to), a
    restriction, a current matter or a value recording an absence (LAPSED_VALUES); `stable` for a baseline fact or
    an open-ended one of a STABLE_WORDS kind; else `event` (something an event set that still holds)."""
    key = fact.attribute.rsplit(".", 1)[-1].lower()
    declared = ATTRIBUTES.get(fact.attribute)
    if (declared is not None and declared.event) or key.startswith("last_") or any(w in key for w in EVENT_WORDS):
        return "event"
    lapsed = f"{fact.value.strip().lower()} ".startswith(LAPSED_VALUES)
    if fact.valid_to is not None or "restriction" in key or slot == "current_matters" or lapsed:
        return "transient"
    if fact.event_id.endswith("-e0000") or any(w in key for w in STABLE_WORDS):
        return "stable"
    return "event"


def confidence_of(mentions: int) -> float:
    """0.6 for one explicit mention (a turn carrying the fact's surface form), +0.15 per further one, at most 1."""
    return round(min(1.0, 0.6 + 0.15 * (mentions - 1)), 2)


def claim_text(fact: Fact, persona: Persona) -> str:
    """The claim as a sentence: `Kim Doyle is Samir's colleague.`, `Samir's employer is Casa Verde.`"""
    who = first_name(persona.name)
    if fact.attribute.rsplit(".", 1)[-1] == "relationship" and fact.subject != persona.name:
        return f"{fact.subject} is {who}'s {fact.value}."
    owner = f"{who}'s" if fact.subject == persona.name else f"{fact.subject}'s"
    value = fact.value.strip()
    value = value[3:] if value.lower().startswith("is ") else value  # "news is is opening a bookshop"
    return capital(f"{owner} {attribute_phrase(fact.attribute)} is {value}.")


def holds_on(fact: Fact, day: dt.date) -> bool:
    return fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)


def reconstruct(persona: Persona, facts: Sequence[Fact], turns: Sequence[Turn],
                as_of: dt.date) -> tuple[list[ProfileClaim], list[PortraitSlot]]:
    """One claim per fact that holds on `as_of` and that some user turn carries (fact_ids: by surface form,
    the turns are its evidence), facts of the same subject, attribute and value (a routine's sessions at the same
    place) making one claim with all their evidence; and the portrait: one slot row per PORTRAIT_SLOTS entry."""
    evidence: dict[str, list[Turn]] = defaultdict(list)
    for turn in evidence_order(turns):
        if turn.role == "user":
            for fid in turn.fact_ids:
                evidence[fid].append(turn)
    rows = []
    same: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)  # a routine's same value, session after session
    for fact in sorted(facts, key=lambda f: f.fact_id):
        if holds_on(fact, as_of) and evidence.get(fact.fact_id):
            key = (fact.subject, fact.attribute, fact.value.strip().lower())
            same[key].append(fact)
            if len(same[key]) == 1:
                slot = slot_of(fact, persona)
                rows.append((PORTRAIT_SLOTS.index(slot), fact.fact_id, slot, fact))
    claims = []
    for n, (_, _, slot, fact) in enumerate(sorted(rows, key=lambda r: r[:2]), start=1):
        held = same[(fact.subject, fact.attribute, fact.value.strip().lower())]  # one claim, every fact its own
        ev = evidence_order({t.turn_id: t for f in held for t in evidence[f.fact_id]}.values())
        claims.append(ProfileClaim(
            claim_id=f"{persona.persona_id}-pc{n:04d}", persona_id=persona.persona_id, slot=slot,
            subject=fact.subject, attribute=fact.attribute, value=fact.value, text=claim_text(fact, persona),
            fact_ids=[f.fact_id for f in held], evidence_turn_ids=[t.turn_id for t in ev], first_seen=ev[0].timestamp,
            last_seen=ev[-1].timestamp, temporality=temporality_of(fact, slot), confidence=confidence_of(len(ev)),
            as_of=as_of))
    claims += style_claims(persona, [t for t in evidence_order(turns) if t.role == "user"], as_of, len(claims))
    return claims, portrait(persona, claims, as_of)


def evidence_order(turns: Sequence[Turn]) -> list[Turn]:
    return sorted(turns, key=lambda t: (t.timestamp, t.turn_id))


def style_claims(persona: Persona, users: Sequence[Turn], as_of: dt.date, n: int) -> list[ProfileClaim]:
    """The `communication` slot, from the persona's style (profile.personality.communication): formality and
    verbosity bands citing the user's messages, emoji use citing the messages with emoji, and each favourite
    phrase citing the messages that use it; evidence is the first and last STYLE_EVIDENCE matching user turns."""
    style, who = persona.profile.personality.communication, first_name(persona.name)
    formality = "formal" if style.formality >= 0.67 else "casual" if style.formality <= 0.33 else "neutral"
    verbosity = "expansive" if style.verbosity >= 0.67 else "terse" if style.verbosity <= 0.33 else "moderate"
    rows = [("communication.formality", formality, f"{who} writes in a {formality} register.", users),
            ("communication.verbosity", verbosity, f"{who}'s messages are {verbosity}.", users)]
    if style.emoji:
        rows.append(("communication.emoji", "uses emoji", f"{who} uses emoji.",
                     [t for t in users if EMOJI.search(t.text)]))
    rows += [("communication.vocabulary", word, f"{who} tends to say \"{word}\".",
              [t for t in users if mentions(t.text, word)]) for word in dict.fromkeys(style.vocabulary) if word.strip()]
    out = []
    for attribute, value, text, shown in rows:
        ev = list({t.turn_id: t for t in [*shown[:STYLE_EVIDENCE], *shown[-STYLE_EVIDENCE:]]}.values())
        if not ev:
            continue
        out.append(ProfileClaim(
            claim_id=f"{persona.persona_id}-pc{n + len(out) + 1:04d}", persona_id=persona.persona_id,
            slot="communication", subject=persona.name, attribute=attribute, value=value, text=text, fact_ids=[],
            evidence_turn_ids=[t.turn_id for t in ev], first_seen=ev[0].timestamp, last_seen=ev[-1].timestamp,
            temporality="stable", confidence=confidence_of(len(shown)), as_of=as_of))
    return out


def portrait(persona: Persona, claims: Sequence[ProfileClaim], as_of: dt.date) -> list[PortraitSlot]:
    """One PortraitSlot per slot: its claims' sentences joined (empty when the evidence says nothing)."""
    by_slot: dict[str, list[ProfileClaim]] = defaultdict(list)
    for c in claims:
        by_slot[c.slot].append(c)
    return [PortraitSlot(persona_id=persona.persona_id, slot=slot, as_of=as_of,
                         text=" ".join(c.text for c in by_slot[slot]), claim_ids=[c.claim_id for c in by_slot[slot]])
            for slot in PORTRAIT_SLOTS]
