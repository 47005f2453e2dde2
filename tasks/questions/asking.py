"""How the selected questions are asked: by whom, in which form, and what they call the people in them.

A generator writes a question once, in the third person, naming every person by their full name. Before the
questions are written, each selected one is asked as the person who lived the history would ask it:

1. Indirect reference (`indirect`): a share `stages.questions.indirect_share` of the questions that name a
   related person by their full name call them by their relation instead (`Daniel Okafor` -> `Maya's
   brother`, then `my brother` in the first person), when that relation is the persona's only one of its kind
   on the question's date and the relationship was said before it. The relationship is then a hop of its own:
   its fact and the turns or chunks that say it join the question's evidence, and the derivation records the
   reference (`derivation.indirect`: said, refers_to, fact_id, evidence).
2. Forms (tasks/questions/forms.py `realize`): the first person (`I`, `my`), a moved adverbial, a request
   (`Do you remember ...`) or a lead, drawn per question and checked by the grammar check; recorded as
   `derivation.wording`.

A question none of whose forms gets a complete parse is regenerated: the stage drops it from the prepared
candidates and selects again (tasks/questions/assemble.py `worded_selection`). The template text stays in
`derivation.template_question` whenever the asked text differs, which is what the QA review recomputes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from tasks.questions.base import QContext
from tasks.questions.forms import QUOTED, Worded, as_written, outside_quotes, realize
from tasks.questions.generators.kit.life import relations
from tasks.questions.select import Prepared

NO_INDIRECT = ("fact.entity_disambiguation", "fact.multi_hop_traversal", "control.", "hallucination.")
"""Templates that already name a person by a cue (entity disambiguation, the chains of multi-hop traversal), ask
nothing of the history, or rest on a wrong name (a false premise names the wrong person on purpose): their
names stay as they are."""
ROLES_NOT_SAID = frozenset({"ex-partner"})
"""Relations a person would not use to refer to someone ("my ex-partner" names them less well than the name)."""


@dataclass(frozen=True)
class Asked:
    """A selected question as it is asked: its text, its evidence and what the derivation records."""

    prepared: Prepared
    text: str
    wording: Worded
    indirect: tuple[dict[str, object], ...] = ()


def indirect(ctx: QContext, p: Prepared, share: float) -> tuple[str, tuple[dict[str, object], ...], Prepared]:
    """(the question text, the references made, the item with the relationship's evidence) for a drawn share
    of the questions that name a related person (module doc); else the text unchanged."""
    text, cand = p.candidate.question, p.candidate
    if share <= 0 or cand.template.startswith(NO_INDIRECT) or cand.extra.get("options_in_question"):
        return text, (), p  # options listed in the question are answered in their own words
    day = p.asked_at.date()
    rel = relations(ctx, day)
    kinds = Counter(rel.values())
    persona = ctx.persona.name.split()[0]
    unquoted = QUOTED.sub('""', text)  # a quoted title keeps its words: a name inside it is not rewritten
    made: list[dict[str, object]] = []
    refs = list(p.refs)
    for name, role in sorted(rel.items()):
        if kinds[role] != 1 or role in ROLES_NOT_SAID or " " not in name or name not in unquoted or \
                name in cand.answer or any(name in d for d in cand.distractors):
            continue
        if re.search(rf"(?<!\w){re.escape(role)}(?!\w)", text, re.IGNORECASE) or name == ctx.persona.name:
            continue
        if ctx.rng(f"indirect:{p.candidate.template}:{p.candidate.question}:{name}").random() >= share:
            continue
        link = ctx.current(name, "relationship", day)
        said_before = ctx.evidence_for(link.fact_id, p.asked_at) if link is not None else []
        if not said_before:
            continue
        said = f"{persona}'s {role}"
        text = outside_quotes(text, lambda part, name=name, said=said: re.sub(
            rf"(?<!\w){re.escape(name)}(?!\w)", said, part))
        unquoted = QUOTED.sub('""', text)
        made.append({"said": said, "refers_to": name, "fact_id": link.fact_id,
                     "evidence": [r.item_id for r in said_before]})
        refs += [r for r in said_before if r not in refs]
    return text, tuple(made), replace(p, refs=tuple(refs)) if made else p


def ask(ctx: QContext, chosen: list[Prepared], parses=None) -> list[Asked]:
    """Each selected question as it is asked (module doc). `parses` replaces the grammar check (tests)."""
    options = ctx.config.stages.questions
    out = []
    for p in chosen:
        text, made, item = indirect(ctx, p, options.indirect_share)
        key = f"{ctx.config.seed}|{ctx.persona.persona_id}|{p.candidate.template}"
        worded = realize(text, ctx.persona.name, key, options.request_share, parses) \
            if options.forms else as_written(text, parses, ctx.persona.name)
        out.append(Asked(item, worded.text, worded, made))
    return out
