"""How facts, events and personas are put into words, and how a text is recognised as carrying a fact.

One definition shared by the corpus stages and the verifier: a text carries a fact when it contains
one of the fact's surface forms as a whole phrase (case-insensitive, not inside a longer word).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from schemas.profile import Persona
from schemas.world import Event, Fact, Plan, World
from tasks.common import worldindex
from tasks.common.happened import took_place
from tasks.common.stateframes import state_clause
from tasks.common.timeutil import human_date
from tasks.world.ontology import ATTRIBUTES

Person = Literal["first", "second", "third"]


def is_acronym(form: str) -> bool:
    """`IT`, `NHS`, `BBC`: a short all-capitals form, which only matches in capitals (`it` is not `IT`)."""
    form = form.strip()
    return 1 < len(form) <= 5 and form.isalpha() and form.isupper()


@functools.lru_cache(maxsize=16384)
def phrase_pattern(form: str) -> re.Pattern[str]:
    """The compiled whole-phrase pattern `mentions` uses for `form` (case-insensitive unless an acronym)."""
    flags = 0 if is_acronym(form) else re.IGNORECASE
    return re.compile(r"(?<!\w)" + re.escape(form.strip()) + r"(?!\w)", flags)


def mentions(text: str, form: str) -> bool:
    """True when `form` occurs in `text` as a whole phrase, ignoring case (except for acronyms)."""
    needle, exact, ascii_form = _needle(form)
    if not needle:
        return False
    if exact:
        if needle not in text:
            return False
    elif ascii_form and text.isascii():  # case folds position by position: find the phrase without a regex
        return _whole_phrase_in(_lower(text), needle)
    return phrase_pattern(form).search(text) is not None


def _whole_phrase_in(text: str, needle: str) -> bool:
    """Whether `needle` occurs in the ASCII `text` with no word character either side (what `phrase_pattern`'s
    lookarounds ask; for ASCII, a word character is a letter, digit or underscore)."""
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        if (at == 0 or not _word(text[at - 1])) and (end == len(text) or not _word(text[end])):
            return True
        at = text.find(needle, at + 1)
    return False


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


@functools.lru_cache(maxsize=16384)
def _needle(form: str) -> tuple[str, bool, bool]:
    """(what a text must contain for `form` to match: the stripped form, lower-cased unless an acronym;
    whether the match is case-sensitive; whether the form is ASCII). For ASCII text and form, a
    case-insensitive phrase match implies the lower-cased form is a substring of the lower-cased text."""
    stripped = form.strip()
    exact = is_acronym(form)
    return (stripped if exact else stripped.lower()), exact, stripped.isascii()


@functools.lru_cache(maxsize=4096)
def _lower(text: str) -> str:
    """text.lower(), once per text (a text is checked against many forms in a row)."""
    return text.lower()


NOT_AN_EMPLOYER = frozenset({"unemployed", "retired", "self-employed"})
"""Employer values that name no employer: `Samir's employer is unemployed`, `a job at self-employed` are nonsense."""
NOT_AN_OCCUPATION = frozenset({"unemployed", "retired", "stay-at-home parent"})
"""Occupation values that are no job: `start a new job as a stay-at-home parent` is nonsense."""
NOT_A_SLOT_VALUE: dict[str, frozenset[str]] = {
    "employer": NOT_AN_EMPLOYER, "company": NOT_AN_EMPLOYER,
    "occupation": NOT_AN_OCCUPATION, "role": NOT_AN_OCCUPATION, "job": NOT_AN_OCCUPATION,
}
"""Attribute (or plan entity field) -> values that cannot fill its slot in a question or statement template."""


def fits_slot(attribute: str, value: str) -> bool:
    """False when `value` cannot be slotted into a template as the attribute's value (`<holder>'s employer is
    <value>`, `a job as a <role> at <company>`): an employer of `unemployed`, a job as a `stay-at-home parent`.
    `attribute` may be a dotted path or a plan entity field (`company`, `role`)."""
    key = attribute.rsplit(".", 1)[-1]
    return value.strip().lower() not in NOT_A_SLOT_VALUE.get(key, frozenset())


def fits_slots(fields: dict[str, str]) -> bool:
    """True when every field of a plan entity (or drawn event) fits its slot."""
    return all(fits_slot(k, v) for k, v in fields.items())


def says_value(text: str, values: Iterable[str]) -> bool:
    """True when `text` says one of `values` whole (a phrase match, as `mentions`): what a reference back to a
    told fact avoids, so the value is said once, as planned. A value of three words or more after its article
    counts with any article (`the pot of Earl Grey at Copper Kettle Coffee` says `a pot of Earl Grey at ...`)."""
    return any(v and (mentions(text, v) or _articled(v) and mentions(text, _ARTICLE.sub("", v.strip())))
               for v in values)


_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


def _articled(value: str) -> bool:
    """True for a value that starts with an article and has three words or more after it."""
    return bool(_ARTICLE.match(value.strip())) and len(_ARTICLE.sub("", value.strip()).split()) >= 3


def carries(text: str, fact: Fact) -> bool:
    """True when `text` contains any of the fact's surface forms."""
    return any(mentions(text, form) for form in fact.surface_forms)


def carries_first(text: str, fact: Fact) -> bool:
    """True when `text` contains the fact's first (most specific) surface form."""
    return bool(fact.surface_forms) and mentions(text, fact.surface_forms[0])


def must_include(fact: Fact) -> str:
    """The phrase a text stating the fact must contain: its first surface form (else its value)."""
    return fact.surface_forms[0] if fact.surface_forms else fact.value


def carried_ids(text: str, facts: Iterable[Fact], first_only: bool = False) -> list[str]:
    """Ids of the facts among `facts` that `text` carries, in the given order."""
    test = carries_first if first_only else carries
    return [f.fact_id for f in facts if test(text, f)]


_NAME = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:of|the|and|&|de|da|van|von)?\s*[A-Z][\w'&.-]*)*")


def value_names(value: str) -> list[str]:
    """The proper names in a value ("Copper Kettle Coffee" in "a pot of Earl Grey at Copper Kettle Coffee"): the
    words a real model must keep as written."""
    return [m.group(0).strip() for m in _NAME.finditer(value) if len(m.group(0).strip()) > 1]


def _short_of(name: str, text: str) -> str | None:
    """A name in `text` that is `name` written shorter ("Dr Desai" for "Dr. Aditya Desai", "Pulse" for "Pulse
    Gym"): it shares a word of three letters or more with it."""
    words = {w.strip(".'").lower() for w in name.split() if len(w.strip(".'")) > 2}
    return next((n for n in value_names(text) if {w.strip(".'").lower() for w in n.split()} & words), None)


def names_to_keep(fact: Fact, said: str | None = None) -> list[str]:
    """The names a real model must write as given for `fact`: its value's proper names, each as the planned
    wording `said` writes it (shorter: "Dr Desai") when it does."""
    if said is None:
        return value_names(fact.value)
    return [n if mentions(said, n) else (_short_of(n, said) or n) for n in value_names(fact.value)]


def names_lost(text: str, fact: Fact) -> list[str]:
    """The value's proper names that `text` holds neither as written nor shorter ("Dr Desai")."""
    return [n for n in value_names(fact.value) if not mentions(text, n) and _short_of(n, text) is None]


def capital(text: str) -> str:
    """`text` with its first character upper-cased."""
    return text[:1].upper() + text[1:]


def first_name(name: str) -> str:
    """The first word of a name."""
    return name.split()[0] if name.split() else name


def attribute_phrase(attribute: str) -> str:
    """`relationships.Dan.home_city` -> `home city`: the last path segment, in words."""
    return attribute.rsplit(".", 1)[-1].replace("_", " ").strip().lower()


def attribute_noun(attribute: str) -> str:
    """The attribute as a question names it after a possessive (`Maya's cancelled lunch`, `Maya's usual grocery
    shop`): its ontology noun, else its name in words."""
    declared = ATTRIBUTES.get(attribute.rsplit(".", 1)[-1])
    return declared.noun if declared is not None and declared.noun else attribute_phrase(attribute)


def event_question(attribute: str, who: str) -> str | None:
    """The question an event attribute's value answers, asked of `who` (`which lunch did Maya have to cancel`);
    None for state and for an event attribute without one."""
    declared = ATTRIBUTES.get(attribute.rsplit(".", 1)[-1])
    return declared.ask.format(who=who) if declared is not None and declared.ask else None


def role_of(persona: Persona, name: str) -> str | None:
    """The relationship role (brother, manager, ...) of `name` to the persona, if they are related."""
    for rel in persona.profile.relationships:
        if rel.name == name:
            return rel.role
    return None


def holder(fact: Fact, persona: Persona, person: Person) -> str:
    """Who holds the attribute, as the given speaker would say it (`my`, `your`, `Maya's`, ...)."""
    if fact.subject == persona.name:
        return {"first": "my", "second": "your", "third": f"{first_name(persona.name)}'s"}[person]
    role = role_of(persona, fact.subject)
    if role and person != "third":
        return f"{'my' if person == 'first' else 'your'} {role} {fact.subject}'s"
    return f"{fact.subject}'s"


def is_event_attribute(attribute: str) -> bool:
    """True for an event attribute of the core ontology: what happened at one event, never superseded."""
    declared = ATTRIBUTES.get(attribute)
    return declared is not None and declared.event


def is_event_fact(fact: Fact) -> bool:
    """True for a fact of an event attribute (`is_event_attribute`)."""
    return is_event_attribute(fact.attribute)


def event_reference(fact: Fact, persona: Persona) -> str | None:
    """How the persona refers back to what happened at an event without its value (its ontology recall phrase:
    `that dinner out`, `my sister Ann's missed call`); None for state."""
    declared = ATTRIBUTES.get(fact.attribute)
    if declared is None or not declared.recall:
        return None
    return declared.recall.format(whose=holder(fact, persona, "first"))


def who(fact: Fact, persona: Persona, person: Person) -> str:
    """The fact's subject as the given speaker names them (`I`, `you`, `Maya`, `my sister Ann`, `Ann`)."""
    if fact.subject == persona.name:
        return {"first": "I", "second": "you", "third": first_name(persona.name)}[person]
    role = role_of(persona, fact.subject)
    if role and person != "third":
        return f"{'my' if person == 'first' else 'your'} {role} {fact.subject}"
    return fact.subject


def clause(fact: Fact, persona: Persona, person: Person = "first") -> str:
    """A clause stating the fact that always contains its first surface form: state as it now is, in its
    attribute's words (`I go to Pulse Gym now`, tasks/common/stateframes.py; a domain pack's attribute without
    frames: `my gym is now X`), an event fact as what happened (`I had risotto at Luigi's`, its ontology frame)."""
    declared = ATTRIBUTES.get(fact.attribute)
    if declared is not None and declared.frame:
        text = declared.frame.format(who=who(fact, persona, person), value=fact.value)
    else:
        me = {"first": "I", "second": "you", "third": first_name(persona.name)}[person]
        mine = {"first": "my", "second": "your", "third": f"{me}'s"}[person]
        text = state_clause(fact.attribute, fact.value, fact.fact_id, who(fact, persona, person),
                            holder(fact, persona, person), fact.subject, mine, me) or (
            f"{holder(fact, persona, person)} {attribute_phrase(fact.attribute)} is now {fact.value}")
    if fact.surface_forms and not carries_first(text, fact):
        text += f" ({must_include(fact)})"
    return text


def is_baseline(event: Event) -> bool:
    """True for the persona's baseline event (`<pid>-e0000`), which only seeds the initial facts."""
    return event.event_id == f"{event.persona_id}-e0000"


def event_title(event: Event, plans: Iterable[Plan] | Mapping[str, Plan] | World) -> str:
    """The lower-case verb phrase naming what the event was about: its plan's title, else its kind. `plans`: the
    world (looked up in its index, tasks/common/worldindex.py), plans by id, or plans to scan."""
    if isinstance(plans, World):
        plans = worldindex.index(plans).plans
    if isinstance(plans, Mapping):
        plan = plans.get(event.plan_id) if event.plan_id else None
        return plan.title if plan is not None else event.kind.replace("_", " ")
    for plan in plans:
        if plan.plan_id == event.plan_id:
            return plan.title
    return event.kind.replace("_", " ")


def story_events(world: World) -> list[Event]:
    """The non-baseline events in date order."""
    return list(worldindex.index(world).stories())


def facts_of(world: World, event: Event) -> list[Fact]:
    """The facts the event produced, in id order."""
    return list(worldindex.index(world).facts_of(event.event_id))


def persona_context(persona: Persona) -> dict[str, str]:
    """Who the persona is, for prompts."""
    ident = persona.profile.identity
    return {
        "name": persona.name,
        "first_name": first_name(persona.name),
        "occupation": ident.occupation,
        "city": ident.city,
    }


def style_context(persona: Persona) -> dict[str, Any]:
    """The persona's communication style, for prompts and offline narrators."""
    return persona.profile.personality.communication.model_dump()


def event_context(event: Event, world: World) -> dict[str, Any]:
    """What happened, for prompts: `took_place` False when the plan was called off, fell through or was refused
    (tasks/common/happened.py), so nothing is written as if it had happened."""
    return {
        "title": event_title(event, world),
        "date": human_date(event.date),
        "kind": event.kind,
        "valence": event.valence,
        "took_place": took_place(event, world),
        "narrative": event.narrative,
    }
