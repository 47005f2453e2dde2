"""The personal documents say some facts in other words.

A journal entry, an email the persona writes or one a friend writes to them is in someone's own words, so, like
the persona's turns, it says a share of its facts with the dialogue's paraphrase frames (tasks/dialogue/mentions.py:
"I've joined Pulse" for `gym = Pulse Gym`; a friend's email in the second person: "you've joined Pulse"), a share
set by `stages.sources.paraphrased` (None: the dialogue's `mention_modes` paraphrased and implied shares together;
a document paraphrases, it does not imply). What is said that way is
recorded on the document (`Document.realized`: fact id -> the phrases that carry the value), so the verifier, the
chunker and the dialogue stage's `chunk_mentions` know where the fact is stated without its surface form. A fact
whose surface form the text holds anyway (an event title that names it) is explicit, not realized. An
organisation keeps its own sentence (tasks/sources/organisations.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from schemas.config import BuildConfig
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common.facttext import carries_first, clause, mentions, must_include, names_to_keep
from tasks.common.rng import rng_for
from tasks.dialogue.mentions import Realization, paraphrase
from tasks.llm.providers.narrators.realize import second_person
from tasks.sources.docplan import STAGE


def share(config: BuildConfig) -> float:
    """The share of a persona document's facts said in other words."""
    own = config.stages.sources.paraphrased
    modes = config.stages.dialogue.mention_modes
    return own if own is not None else min(1.0, modes.get("paraphrased", 0.0) + modes.get("implied", 0.0))


def planned(config: BuildConfig, persona: Persona, world: World, facts: Sequence[Fact],
            key: str) -> dict[str, Realization]:
    """Per fact of the document `key`, its paraphrase when the draw says so and its attribute has a frame."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, None, f"realized:{key}")
    cut, out = share(config), {}
    for fact in facts:
        draw, pick = rng.random(), rng.random()
        r = paraphrase(fact, persona, world, pick) if draw < cut else None
        if r is not None:
            out[fact.fact_id] = r
    return out


def fact_context(fact: Fact, persona: Persona, person: str, plan: Mapping[str, Realization]) -> dict[str, str]:
    """What the narrating call is told of a fact: its clause (the paraphrase when one is planned), the phrase the
    offline narrator writes (a surface form the paraphrase holds, else its last part), the value's proper `names`
    (all a real model must keep verbatim); a paraphrased fact also names the surface form the offline narrator
    should `avoid` (it would make the mention explicit)."""
    r = plan.get(fact.fact_id)
    if r is None:  # names: all a real model must keep verbatim (tasks/sources/livecheck.py)
        return {"fact_id": fact.fact_id, "clause": clause(fact, persona, person), "must_include": must_include(fact),
                "mode": "explicit", "names": names_to_keep(fact)}
    said = second_person(r.clause) if person == "second" else r.clause  # a friend writing to the persona
    form = next((f for f in reversed(fact.surface_forms) if mentions(said, f)), r.parts[-1])
    return {"fact_id": fact.fact_id, "clause": said, "must_include": form, "mode": "paraphrased",
            "avoid": must_include(fact), "keep": list(r.parts), "names": names_to_keep(fact, said)}


def said(body: str, fact: Fact, plan: Mapping[str, Realization]) -> bool:
    """Whether `body` states the fact: its first surface form, or every part of its planned paraphrase."""
    r = plan.get(fact.fact_id)
    return carries_first(body, fact) or (r is not None and said_so(body, r.parts))


def said_so(text: str, parts: Sequence[str] | None) -> bool:
    """Whether `text` holds every phrase of a recorded paraphrase (None or empty: no paraphrase to hold)."""
    return bool(parts) and all(mentions(text, p) for p in parts)


def realized_in(body: str, facts: Sequence[Fact], parts: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Of `facts`, those `body` says in other words: every part of the phrases in `parts` (a paraphrase plan's or
    a parent document's record) and not the first surface form."""
    return {f.fact_id: list(parts[f.fact_id]) for f in facts
            if not carries_first(body, f) and said_so(body, parts.get(f.fact_id))}


def claimed(body: str, facts: Sequence[Fact], realized: Mapping[str, Sequence[str]],
            judged: Collection[str] = ()) -> list[str]:
    """The ids of the facts `body` states, verbatim, as recorded in `realized` or by a fact_check verdict
    (`judged`), in the order of `facts`."""
    return [f.fact_id for f in facts if carries_first(body, f) or f.fact_id in realized or f.fact_id in judged]


def judged_of(body: str, facts: Sequence[Fact], realized: Mapping[str, Sequence[str]],
              judged: Collection[str]) -> list[str]:
    """Of `judged` (the facts the fact_check verdict found in a real model's words), those no rule finds in `body`:
    what `Document.judged` records, in the order of `facts`."""
    return [f.fact_id for f in facts
            if f.fact_id in judged and not carries_first(body, f) and f.fact_id not in realized]


def parts_of(plan: Mapping[str, Realization]) -> dict[str, list[str]]:
    """A paraphrase plan as `realized_in` reads it."""
    return {fid: list(r.parts) for fid, r in plan.items()}
