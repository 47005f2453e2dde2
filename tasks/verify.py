"""The per-persona verifier: audits the sources, dialogue and questions stages against the world.

Every cited id must resolve, every piece of evidence must precede its question and carry a surface
form of its fact, every question must have evidence and a non-empty answer equal to its derivation,
and every text that claims a fact must carry it. The item sign-off (tasks/signoff/) then reads every landed
question as a reviewer would, against the world and the history (stage `signoff`). Problems become `Finding` rows
(error, warning or info); a clean corpus yields no error findings.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from schemas.audit import Finding
from schemas.corpus import REALIZED_MODES, Chunk, Corpus, Turn
from schemas.profile import Persona
from schemas.qa import Evidence, Question, QuestionSet
from schemas.world import Fact, World
from tasks.common.evidence import conveys, realized_spans
from tasks.common.facttext import carries, carries_first, mentions
from tasks.dialogue.agreement import history_findings
from tasks.dialogue.verify import WARNINGS, TurnScope, scopes_for, turn_problems
from tasks.signoff import signoff
from tasks.sources.verify import document_problems, states
from tasks.world.ontology import Attribute
from tasks.world.verify import verify_world

STATE_CHARACTERISTICS = ("state_dependent_attribute", "entity_disambiguation")
STATE_TEMPLATES = tuple(f"fact.{c}" for c in STATE_CHARACTERISTICS) + tuple(
    f"fact.state_dependent_attribute.{moment}" for moment in ("now", "before_change", "after_change"))
"""Templates whose answer is the current value of their first fact at the question time (other variants may ask
the past); each of state_dependent_attribute's moments asks the value then holding."""
SUGGESTIONS = {
    "turn_carries_fact": "claim only facts the text states",
    "turn_fact_not_valid": "claim only facts that hold on the turn's day",
    "turn_anticipates_fact": "mention only what is true by the turn's day",
    "turn_states_stale_fact": "state the value that holds on the turn's day, or put the old one in the past",
    "turn_contradicts_fact": "reword the turn so it agrees with the fact store",
    "time_ref_in_text": "record only time phrases the text contains",
    "relative_time_mismatch": "use tasks.dialogue.relativetime.describe for the event's date",
    "assistant_reveals_untold": "the assistant states only what it was told in the session",
    "pastes_document": "talk about the document instead of copying it",
    "upload_marker": "open a turn that shares a document with [Upload <doc_id>]",
    "assistant_length": "keep replies within the category's reply_words",
}


@dataclass
class Audit:
    """Lookups over one persona's artifacts, and the findings gathered so far."""

    persona: Persona
    world: World
    corpus: Corpus
    questions: QuestionSet
    found: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.facts = {f.fact_id: f for f in self.world.facts}
        self.turns = {t.turn_id: t for t in self.corpus.turns}
        self.chunks = {c.chunk_id: c for c in self.corpus.chunks}
        self.docs = {d.doc_id: d for d in self.corpus.documents}
        self.bullets = {b.bullet_id: b for b in self.corpus.bullets}
        self.sessions = {s.session_id: s for s in self.corpus.sessions}
        self.by_question = {q.question_id: q for q in self.questions.questions}
        self.spans = realized_spans(self.corpus.mentions)

    def flag(
        self,
        stage: str,
        artifact: str,
        check: str,
        message: str,
        suggestion: str = "",
        severity: str = "error",
    ) -> None:
        """Record one finding, numbered in the order found."""
        pid = self.persona.persona_id
        self.found.append(
            Finding(
                finding_id=f"{pid}-v{len(self.found) + 1:04d}",
                persona_id=pid,
                stage=stage,
                artifact_id=artifact,
                check=check,
                severity=severity,
                message=message,
                suggestion=suggestion,
            )
        )

    def item(self, row: Evidence) -> Turn | Chunk | None:
        """The turn or chunk an evidence row cites, if it exists under that kind."""
        return (self.turns if row.evidence_kind == "turn" else self.chunks).get(row.evidence_id)

    def fact_ok(self, stage: str, artifact: str, fact_id: str) -> Fact | None:
        """The fact, or None after flagging a dangling fact id."""
        fact = self.facts.get(fact_id)
        if fact is None:
            self.flag(
                stage,
                artifact,
                "fact_resolves",
                f"{artifact} cites fact {fact_id}, which does not exist",
                "cite only fact ids from the world's fact store",
            )
        return fact


def verify_persona(persona: Persona, world: World, corpus: Corpus, questions: QuestionSet,
                   window: int | None = None, attributes: tuple[Attribute, ...] = (),
                   step: int = 0) -> list[Finding]:
    """Audit one persona's world, documents, chunks, bullets, turns, questions and evidence (`attributes`: the
    domain pack's, beyond the core ontology)."""
    audit = Audit(persona, world, corpus, questions)
    check_sources(audit)
    check_dialogue(audit, window, step)
    check_mentions(audit)
    check_questions(audit)
    audit.found += signoff(persona, world, corpus, questions)
    for found in history_findings(persona, world, corpus):  # the history agrees with the world (issue 55)
        audit.flag(found.stage, found.artifact_id, found.check, found.message, found.suggestion, found.severity)
    for found in verify_world(persona, world, attributes) + corpus.findings:  # the dialogue stage's own repairs/drops
        audit.flag(found.stage, found.artifact_id, found.check, found.message, found.suggestion, found.severity)
    errors = sum(f.severity == "error" for f in audit.found)
    audit.flag(
        "questions",
        persona.persona_id,
        "summary",
        f"checked {len(questions.questions)} questions, {len(questions.evidence)} evidence links, "
        f"{len(corpus.turns)} turns, {len(corpus.chunks)} chunks: {errors} errors",
        severity="info",
    )
    return audit.found


def stamp(item: Turn | Chunk) -> dt.datetime:
    """When a turn was said or a chunk's document was created."""
    return item.timestamp if isinstance(item, Turn) else item.created_at


def check_questions(audit: Audit) -> None:
    """Each question's evidence, derivation and answer."""
    cited: dict[str, list[Evidence]] = defaultdict(list)
    for row in audit.questions.evidence:
        cited[row.question_id].append(row)
        check_evidence(audit, row)
    for q in audit.questions.questions:
        check_question(audit, q, cited[q.question_id])


def check_evidence(audit: Audit, row: Evidence) -> None:
    """One evidence link: its question, item and fact resolve; the item precedes the question and
    carries the fact."""
    ref = f"{row.question_id}/{row.evidence_id}"
    question, item = audit.by_question.get(row.question_id), audit.item(row)
    if question is None:
        audit.flag(
            "questions",
            ref,
            "evidence_question_resolves",
            f"evidence cites unknown question {row.question_id}",
        )
    if item is None:
        audit.flag(
            "questions",
            ref,
            "evidence_resolves",
            f"evidence id {row.evidence_id} is not a {row.evidence_kind} of this persona",
            "cite only ids of turns and chunks that exist",
        )
    fact = audit.fact_ok("questions", ref, row.fact_id) if row.fact_id is not None else None
    if question is None or item is None or (fact is None and row.fact_id is not None):
        return
    if not stamp(item) < question.question_time:
        audit.flag(
            "questions",
            ref,
            "evidence_precedes_question",
            f"{row.evidence_id} at {stamp(item).isoformat()} is not before question_time "
            f"{question.question_time.isoformat()}",
            "cite only items said before the question is asked",
        )
    if fact is None:  # structural evidence (a chunk holding a table or section): no fact to carry
        return
    if not conveys(item.text, fact, row.evidence_kind, row.evidence_id, audit.spans):
        audit.flag(
            "questions",
            ref,
            "evidence_carries_fact",
            f"{row.evidence_id} holds no surface form of {fact.fact_id} ({fact.surface_forms}) and no recorded "
            "mention of it in other words",
            "cite items whose text states the fact",
        )
    if row.fact_id not in item.fact_ids:
        audit.flag(
            "questions",
            ref,
            "evidence_claims_fact",
            f"{row.evidence_id} does not claim {row.fact_id}",
            severity="warning",
        )


def check_question(audit: Audit, q: Question, evidence: list[Evidence]) -> None:
    """One question: evidence exists, answers are non-empty and match the derivation, the facts resolve."""
    qid = q.question_id
    if not evidence and q.checkpoint != "zero_memory":
        audit.flag(
            "questions",
            qid,
            "question_has_evidence",
            "question has no evidence",
            "emit only questions whose facts are carried by some turn or chunk",
        )
    if not q.answer.strip() or not q.reference_answer.strip():
        audit.flag("questions", qid, "answer_nonempty", "answer or reference_answer is empty")
    if str(q.derivation.get("computed_answer", "")) != q.answer:
        audit.flag(
            "questions",
            qid,
            "answer_matches_derivation",
            f"answer {q.answer!r} differs from the derivation's {q.derivation.get('computed_answer')!r}",
        )
    facts = [audit.fact_ok("questions", qid, fid) for fid in q.derivation.get("fact_ids", [])]
    if q.derivation.get("template") in STATE_TEMPLATES:  # a current-value answer rests on its first fact
        day = q.question_time.date()
        for fact in filter(None, facts[:1]):
            if not (fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)):
                audit.flag(
                    "questions",
                    qid,
                    "fact_valid_at_question_time",
                    f"{fact.fact_id} is not valid on {day}, so the answer is stale",
                )
    if q.answer.strip() and not q.derivation.get("options_in_question") and mentions(q.question, q.answer):
        audit.flag(
            "questions",
            qid,
            "answer_not_in_question",
            "the answer string appears in the question",
            severity="warning",
        )


def check_dialogue(audit: Audit, window: int | None = None, step: int = 0) -> None:
    """Bullets, sessions and turns: ids resolve, clocks run forward, and every turn passes the per-turn
    checks of tasks/dialogue/verify.py (claimed facts carried and valid, no foreknowledge, relative times
    that fit the calendar, no untold facts from the assistant, no pasted documents, upload markers,
    reply lengths)."""
    for bullet in audit.corpus.bullets:
        for fid in bullet.fact_ids:
            audit.fact_ok("dialogue", bullet.bullet_id, fid)
    scopes = scopes_for(audit.persona, audit.world, audit.corpus, window, step)
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for turn in audit.corpus.turns:
        by_session[turn.session_id].append(turn)
        check_turn(audit, turn, scopes[turn.turn_id])
    for sid, turns in by_session.items():
        check_clock(audit, sid, sorted(turns, key=turn_number))
    check_initial_turns(audit)


def check_turn(audit: Audit, turn: Turn, scope: TurnScope) -> None:
    """One turn's references, then its per-turn problems (assistant_length is a warning, the rest errors)."""
    tid = turn.turn_id
    if turn.bullet_id is not None and turn.bullet_id not in audit.bullets:
        audit.flag("dialogue", tid, "bullet_resolves", f"turn cites unknown bullet {turn.bullet_id}")
    for doc_id in turn.doc_ids:
        doc = audit.docs.get(doc_id)
        if doc is None:
            audit.flag("dialogue", tid, "attachment_resolves", f"turn cites unknown document {doc_id}")
        elif not doc.created_at < turn.timestamp:
            audit.flag(
                "dialogue", tid, "attachment_precedes_turn", f"document {doc_id} is created after the turn"
            )
    for fid in turn.fact_ids:
        audit.fact_ok("dialogue", tid, fid)
    for problem in turn_problems(turn, scope):
        severity = "warning" if problem.check in WARNINGS else "error"
        audit.flag("dialogue", tid, problem.check, problem.message, SUGGESTIONS.get(problem.check, ""), severity)


def turn_number(turn: Turn) -> tuple[int, str]:
    """A turn's position in its session from its id (`...-t07`, `...-t112`): numeric, so t100 follows t99."""
    tail = turn.turn_id.rsplit("-t", 1)[-1]
    return (int(tail), "") if tail.isdigit() else (10**9, turn.turn_id)


def check_clock(audit: Audit, session_id: str, turns: list[Turn]) -> None:
    """A session exists, and its turns' timestamps are strictly increasing from its start."""
    session = audit.sessions.get(session_id)
    if session is None:
        audit.flag("dialogue", session_id, "session_resolves", f"turns cite unknown session {session_id}")
        return
    previous = session.started_at
    for turn in turns:
        if not previous < turn.timestamp:
            audit.flag(
                "dialogue",
                turn.turn_id,
                "turn_order",
                f"turn at {turn.timestamp.isoformat()} is not after "
                f"the previous turn or session start ({previous.isoformat()})",
            )
        previous = max(previous, turn.timestamp)


def check_mentions(audit: Audit) -> None:
    """Each fact_mentions row: its fact and its turn or chunk resolve, its span is in that text, and a mention that
    counts as evidence of the value is in a text carrying one of the fact's surface forms, or, said in other words
    (REALIZED_MODES), has its recorded span there or a real model's fact_check verdict (`mention_resolves`)."""
    for m in audit.corpus.mentions:
        item = audit.turns.get(m.evidence_id) if m.evidence_kind == "turn" else audit.chunks.get(m.evidence_id)
        fact = audit.facts.get(m.fact_id)
        if item is None or fact is None:
            missing = m.evidence_id if item is None else m.fact_id
            audit.flag("dialogue", m.mention_id, "mention_resolves", f"mention cites {missing}, which does not exist",
                       "record mentions of existing facts in existing turns and chunks")
        elif m.span and not mentions(item.text, m.span) or m.counts and not carries(item.text, fact) and not (
                (m.span or m.checked_by == "fact_check") and m.mode in REALIZED_MODES):
            audit.flag("dialogue", m.mention_id, "mention_resolves", f"{m.evidence_id} does not hold the mention's "
                       f"{'span ' + repr(m.span) if m.span else 'fact'} ({m.fact_id}, {m.mode})",
                       "record a mention only for words the text says")


def check_initial_turns(audit: Audit) -> None:
    """The first user turn of each bullet states each of its facts by their first surface form, or in other words
    as recorded (paraphrased, implied, corrected, or the first half of a split value, whose second half a follow-up
    adds), or says only a slip that a later turn puts right (tasks/dialogue/latefix.py)."""
    first: dict[str, Turn] = {}
    for turn in sorted(audit.corpus.turns, key=lambda t: (t.timestamp, t.turn_id)):
        if turn.role == "user" and turn.bullet_id and turn.bullet_id not in first:
            first[turn.bullet_id] = turn
    paraphrased = {(m.evidence_id, m.fact_id) for m in audit.corpus.mentions
                   if m.mode in REALIZED_MODES and m.counts}
    fixed = {m.fact_id: audit.turns[m.evidence_id].timestamp for m in audit.corpus.mentions if m.mode == "corrected"
             and m.counts and m.evidence_kind == "turn" and m.evidence_id in audit.turns}
    for m in audit.corpus.mentions:  # a slip that a later turn puts right
        said = audit.turns.get(m.evidence_id) if m.mode == "corrected" and not m.counts else None
        if said is not None and fixed.get(m.fact_id, said.timestamp) > said.timestamp:
            paraphrased.add((m.evidence_id, m.fact_id))
    for bid, turn in first.items():
        for fid in audit.bullets[bid].fact_ids if bid in audit.bullets else []:
            fact = audit.facts.get(fid)
            if fact is not None and not fact.surface_forms:
                audit.flag(
                    "dialogue",
                    bid,
                    "fact_has_surface_forms",
                    f"{fid} has no surface forms, so no text can be shown to carry it",
                    "give every fact at least one surface form",
                    "warning",
                )
            elif fact is not None and not carries_first(turn.text, fact) and (turn.turn_id, fid) not in paraphrased:
                audit.flag(
                    "dialogue",
                    turn.turn_id,
                    "initial_turn_states_fact",
                    f"the opening turn of {bid} lacks {fact.surface_forms[:1]} of {fid}",
                )


def check_sources(audit: Audit) -> None:
    """Documents carry the facts they claim and agree with the fact store and their tables (see
    tasks/sources/verify.py); chunks belong to a document and carry theirs."""
    for doc in audit.corpus.documents:
        for problem in document_problems(doc, audit.persona, audit.world):
            if problem.check != "document_carries_fact":  # reported below, with the fact id resolved
                audit.flag("sources", doc.doc_id, problem.check, problem.message, "regenerate or drop the document")
        for fid in doc.fact_ids:
            fact = audit.fact_ok("sources", doc.doc_id, fid)
            if fact is not None and not states(doc, fact):
                audit.flag(
                    "sources",
                    doc.doc_id,
                    "document_carries_fact",
                    f"document claims {fid} but lacks its first surface form {fact.surface_forms[:1]} and any "
                    "recorded paraphrase",
                )
    for chunk in audit.corpus.chunks:
        doc = audit.docs.get(chunk.doc_id)
        if doc is None:
            audit.flag(
                "sources", chunk.chunk_id, "chunk_resolves", f"chunk cites unknown document {chunk.doc_id}"
            )
        for fid in chunk.fact_ids:
            fact = audit.fact_ok("sources", chunk.chunk_id, fid)
            said = fact is not None and (carries(chunk.text, fact) or doc is not None and states(doc, fact, chunk.text))
            if fact is not None and not said:
                audit.flag(
                    "sources",
                    chunk.chunk_id,
                    "chunk_carries_fact",
                    f"chunk claims {fid} but contains none of its surface forms nor its document's paraphrase",
                )
            if doc is not None and fid not in doc.fact_ids:
                audit.flag(
                    "sources",
                    chunk.chunk_id,
                    "chunk_fact_in_document",
                    f"chunk claims {fid}, which its document does not",
                    severity="warning",
                )
