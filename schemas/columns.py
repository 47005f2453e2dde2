"""What each column of the release tables holds, for the dataset card's column dictionary (warehouse/card.py).

A column's description is its pydantic `Field(description=...)`, else the docstring under its annotation, else
`COLUMNS["table.column"]`, else `COLUMNS["column"]` (the meaning a name has in every table).
tests/schemas/test_columns.py holds every column of every release table to having one.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap

from pydantic import BaseModel

COLUMNS: dict[str, str] = {
    # ids and links
    "run_id": "the build (or import) that wrote the row",
    "persona_id": "the simulated person (`p0003`)",
    "event_id": "the rolled-out event (`p0003-e0042`); null for a row no event produced",
    "fact_id": "the fact (`p0003-f0117`)",
    "fact_ids": "the facts the row carries or rests on",
    "plan_id": "the plan item (`p0003-...`)",
    "doc_id": "the document (`p0003-d0017`)",
    "doc_ids": "documents uploaded with the message",
    "chunk_id": "the retrieval chunk (`p0003-d0017-c02`)",
    "session_id": "the conversation session (`p0003-s0042`)",
    "turn_id": "the message (`p0003-s0042-t05`)",
    "bullet_id": "the atomic bullet the message narrates",
    "question_id": "the benchmark item (`p0003-q0009`)",
    "constraint_id": "the constraint a critical event imposed",
    "entity_id": "the person, place, organisation or item of the persona's world",
    "op_id": "the profile change",
    "finding_id": "the verifier finding",
    "evidence_id": "a turn or chunk id",
    "evidence_kind": "turn or chunk",
    "call_key": "the model call: a digest of the full rendered request",
    "catalog_id": "the market event of the domain pack's catalog",
    "claim_ids": "the profile claims the portrait slot rests on",
    "artifact_id": "the row (persona, event, document, turn, question) a finding is about",
    # time
    "date": "the simulated day",
    "as_of": "the simulated day the row describes the state at",
    "created_at": "when it was written (simulated time, with time zone)",
    "created_on": "the simulated day the plan was made",
    "scheduled_for": "the simulated day the plan is for",
    "started_at": "when the session began (simulated time, with time zone)",
    "timestamp": "when the message was sent (simulated time, with time zone)",
    "question_time": "when the question is asked; every piece of its evidence precedes it",
    "valid_from": "the first simulated day the value holds",
    "valid_to": "the day the value stopped holding (null while it still holds)",
    "first_seen": "the first simulated day the history says it",
    "last_seen": "the last simulated day the history says it",
    "time_refs": "relative-time phrases in the text with the calendar dates they name",
    # personas and world
    "name": "the display name",
    "seed_text": "the seed description the persona was built from",
    "domain": "the domain pack the persona belongs to (`general`, `finance`)",
    "profile": "the six-dimension profile as JSON (identity, personality, traits, relationships, belongings, "
               "current status)",
    "phase": "factual (the event's facts), state (traits and status) or prune",
    "op": "add, modify or remove",
    "path": "the profile path changed (`identity.employer`, `relationships[role=sister]`)",
    "old_value": "the value before the change (JSON)",
    "new_value": "the value after the change (JSON)",
    "horizon": "short or long",
    "title": "the title as a person would write it",
    "kind": "the kind of event, entity or document",
    "valence": "positive or negative outcome",
    "severity": "how strongly the row matters (events: 1 mild to 3 severe; findings: error, warning, info)",
    "critical": "true for a critical event (injury, illness, move, job change, ...), which imposes a constraint",
    "narrative": "what happened, in a sentence",
    "subject": "whom the value belongs to (the persona or a person of their life)",
    "attribute": "the attribute of the ontology (tasks/world/ontology.py)",
    "value": "the value",
    "description": "the constraint in words (`no running until March 3, 2024`)",
    "attributes": "the entity's attributes (JSON)",
    # documents and dialogue
    "source_type": "email, journal or report",
    "format": "txt, md or html",
    "sender": "who sent the email",
    "recipients": "to whom",
    "cc": "copied to",
    "body": "the document's text",
    "version": "the document's version (a revision is 2)",
    "ordinal": "the chunk's position in its document, from 0",
    "text": "the text",
    "n_tokens": "tokens of the text (cl100k_base)",
    "category": "the category (questions: RHELM's seven; sessions and bullets: the dialogue category)",
    "role": "user or assistant",
    "mode": "how the mention conveys the fact: explicit, paraphrased, implied, split, corrected, about someone else "
            "(a distractor) or hypothetical",
    # questions
    "characteristics": "RHELM's challenge characteristics, the primary first",
    "question": "the question as the person asks it",
    "reference_answer": "the long reference answer (false premises, conflicts, declines)",
    "answer_type": "short, long or mcq",
    "options": "the six options of a multiple-choice item (empty otherwise)",
    "checkpoint": "zero_memory, in_timeline, post_distraction or post_shock",
    "template": "the derivation template that wrote the item",
    "answer": "the gold answer, computed from the fact store",
    # model calls
    "stage": "the pipeline stage",
    "provider": "offline, openai or anthropic",
    "model": "the model name",
    "prompt_name": "the prompt template (prompts/<name>.jinja)",
    "prompt_hash": "a digest of the prompt template",
    "input_tokens": "tokens sent",
    "output_tokens": "tokens received",
    "latency_ms": "wall time of the call",
    "cost_usd": "the call's cost at the provider's configured prices",
    "attempts": "tries the call took (retries and repairs included)",
    "outcome": "ok, repaired, fallback or error",
    "cached": "true when this run did not pay for the call (it came from the cache)",
    "requests": "HTTP requests the call made",
    "fallback": "true when the template fallback wrote the output",
    "confidence": "how far the row may be trusted (a template fallback is 0.2)",
    "error": "the error of a failed call, redacted",
    # audit
    "check": "the verifier check that found it",
    "message": "what the finding says",
    "suggestion": "what to do about it",
    "correctness": "the answer recomputed from the fact store agrees (0 to 1)",
    "uniqueness": "the question has one answer (0 to 1)",
    "consistency": "the evidence agrees with the fact store (0 to 1)",
    "quality": "the wording is well formed (0 to 1)",
    "overall": "the mean of the four scores",
    "status": "kept or withdrawn",
    "details": "each failed check in words",
    "suite": "the gate suite (integrity, coverage, consistency, leakage, distribution, companion, validity)",
    "expectation": "the expectation's readable name",
    "column_name": "the frame column the expectation reads",
    "success": "whether the expectation held",
    "unexpected_count": "rows that broke it",
    "sample": "up to ten ids of rows that broke it",
    "group": "the measure family (language, coherence, facts, questions, difficulty)",
    # companion and finance tracks
    "stratum": "the probe's stratum (what it tests)",
    "tier": "how hard the probe is",
    "slot": "the portrait slot",
    "temporality": "current, past or planned",
    "bit_type": "the Impact Model's behavioural bit",
    "anti_typical": "true when the reaction runs against the persona's type",
    "big_five_multiplier": "the personality factor of the Impact Model",
    "experience_factor": "the experience factor of the Impact Model",
    "risk_before": "risk tolerance before the event",
    "direction": "up or down",
    "delta_min": "the smallest change the constraint allows",
    "delta_max": "the largest change the constraint allows",
    "risk_after": "risk tolerance after the event",
    "evolution_type": "how the persona's finances evolve after it",
    "forbidden_biases": "biases the narration must not show",
}
"""Descriptions of column names, by `table.column` where a name means something particular to one table."""


def describe(model: type[BaseModel], table: str, column: str) -> str:
    """The description of `table.column` (see the module docstring); "" when there is none."""
    field = model.model_fields.get(column)
    if field is not None and field.description:
        return field.description
    return (_attribute_docs(model).get(column) or COLUMNS.get(f"{table}.{column}") or COLUMNS.get(column)
            or ("the build (or import) that wrote the row" if column == "run_id" else ""))


@functools.cache
def _attribute_docs(model: type[BaseModel]) -> dict[str, str]:
    """The docstring written under each annotated field of the model and its bases (first line)."""
    out: dict[str, str] = {}
    for klass in model.__mro__:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, after in zip(body, body[1:], strict=False):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
                out.setdefault(node.target.id, " ".join(after.value.value.split()))
    return out
