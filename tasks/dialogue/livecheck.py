"""Verification by meaning, for turns a real model writes (issue 24).

The offline narrator builds each sentence to say what it is meant to (the realizer's record). A real model is
asked for natural text, with no phrase to copy but the proper names of a value, so its wording may convey a
fact in words no rule can find. The cheap rule check goes first (a surface form, or the planned paraphrase's
words); a fact it cannot find is put to the `fact_check` call, and the model's verdict decides:

- it refers to the fact, does not contradict it and keeps the value's proper names: the turn claims it, its
  `fact_mentions` row says `checked_by = fact_check` (in the planned mode, no span);
- it contradicts the fact: the wording is rejected (`turn_contradicts_fact`) and written again;
- it does not refer to the fact, or drops a name: the fact is not claimed, the opening's repair appends it
  (`fact_not_conveyed` is noted), as when the rule check fails offline.

Every verdict lands: accepted ones as the mention's `checked_by`, rejections as `verifier_findings` rows of the
wording they rejected; each call is in `llm_calls` (prompt `fact_check`).
"""

from __future__ import annotations

from schemas.corpus import FactCheck
from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.facttext import clause, names_lost
from tasks.dialogue.bullets import STAGE
from tasks.dialogue.verify import Problem
from tasks.llm.gateway import CallSpec
from tasks.llm.rounds import Chain


def check_call(text: str, fact: Fact, persona: Persona, stage: str = STAGE, person: str = "first") -> CallSpec:
    """The fact_check call on `fact` in `text` (the clause in `person`: a document about the persona says it in
    the third)."""
    context = {"text": text, "fact": {"clause": clause(fact, persona, person), "value": fact.value,
                                      "surface_forms": list(fact.surface_forms)}}
    return CallSpec("fact_check", context, FactCheck, stage, persona.persona_id)


def problem_of(verdict: FactCheck, fact: Fact, text: str, what: str = "turn") -> Problem | None:
    """What the verdict finds wrong with `text` (the `what`) for `fact`: a contradiction, a fact not conveyed,
    a name of its value dropped; None when the text conveys it."""
    lost = names_lost(text, fact)
    if verdict.contradicts:
        return Problem(f"{what}_contradicts_fact", f"the model judged the {what} to contradict {fact.fact_id} "
                       f"({fact.value!r})")
    if not verdict.refers:
        return Problem("fact_not_conveyed", f"the model judged the {what} not to convey {fact.fact_id} "
                       f"({fact.value!r})")
    if lost:
        return Problem("fact_names_kept", f"the {what} conveys {fact.fact_id} but drops the name {lost[0]!r}")
    return None


def verdicts(text: str, facts: list[Fact], persona: Persona) -> Chain[tuple[list[str], list[Problem]]]:
    """The fact_check verdict on each of `facts` in `text`: the ids it conveys (names kept) and a problem for
    each one it contradicts, drops a name of, or does not convey."""
    conveyed, problems = [], []
    for fact in facts:
        verdict: FactCheck = yield check_call(text, fact, persona)
        problem = problem_of(verdict, fact, text)
        if problem is None:
            conveyed.append(fact.fact_id)
        else:
            problems.append(problem)
    return conveyed, problems


def judged_opening(writer, topic, kind: str, text: str) -> Chain[list[Problem]]:
    """With a live model, the verdicts on the opening's facts that the rule check cannot find, for a
    `SessionWriter`: those it conveys become `writer.conveyed` (claimed, recorded as `fact_check` mentions), one
    it does not convey is noted and appended by the repair, and a contradiction rejects the wording. Returns the
    rejecting problems."""
    writer.conveyed = frozenset()
    if not writer.live or kind != "initial":
        return []
    unsaid = [f for f in writer.bullet_facts(topic) if f.surface_forms and not writer.said(text, f)
              and not writer.slip_of(f)]  # a slip put right in a later session is no claim of the fact
    conveyed, problems = yield from verdicts(text, unsaid, writer.persona)
    writer.conveyed = frozenset(conveyed)
    kept = [p for p in problems if p.check != "turn_contradicts_fact"]
    if kept:
        writer.note(topic, None, kept, "info", "the fact_check verdict left a fact unsaid; the repair appends it")
    return [p for p in problems if p.check == "turn_contradicts_fact"]
