"""How a Fact is said in text and how a text is recognised as carrying it.

One definition shared by the corpus stages and the verifier: a text carries a fact when it contains
one of the fact's surface forms as a whole phrase (case-insensitive, not inside a longer word).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from schemas.profile import Persona
from schemas.world import Fact

Person = Literal["first", "second", "third"]


def mentions(text: str, form: str) -> bool:
    """True when `form` occurs in `text` as a whole phrase, ignoring case."""
    if not form.strip():
        return False
    pattern = r"(?<!\w)" + re.escape(form.strip()) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def carries(text: str, fact: Fact) -> bool:
    """True when `text` contains any of the fact's surface forms."""
    return any(mentions(text, form) for form in fact.surface_forms)


def carries_first(text: str, fact: Fact) -> bool:
    """True when `text` contains the fact's first (most specific) surface form."""
    return bool(fact.surface_forms) and mentions(text, fact.surface_forms[0])


def carried_ids(text: str, facts: Iterable[Fact], first_only: bool = False) -> list[str]:
    """Ids of the facts among `facts` that `text` carries, in the given order."""
    test = carries_first if first_only else carries
    return [f.fact_id for f in facts if test(text, f)]


def first_name(name: str) -> str:
    """The first word of a name."""
    return name.split()[0] if name.split() else name


def attribute_phrase(attribute: str) -> str:
    """`relationships.Dan.home_city` -> `home city`: the last path segment, in words."""
    return attribute.rsplit(".", 1)[-1].replace("_", " ").strip().lower()


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


def clause(fact: Fact, persona: Persona, person: Person = "first") -> str:
    """A clause stating the fact that always contains its first surface form."""
    text = f"{holder(fact, persona, person)} {attribute_phrase(fact.attribute)} is now {fact.value}"
    if fact.surface_forms and not carries_first(text, fact):
        text += f" ({fact.surface_forms[0]})"
    return text
