"""Dialogue synthesis: each day's outcomes become atomic bullets, each bullet a topic of a conversation.

Rules decide everything but the wording (the model only narrates turns):

1. Bullets. For every non-baseline event, each fact it produced is one bullet (its clause, carrying
   that fact id), and up to `details_per_event` sentences of the event's outcome narrative that state
   no fact become detail bullets (no fact ids): small things the user mentions in passing.
2. Categories. A bullet's category (information sharing, advice seeking, status update, scheduling,
   attachment consultation) is drawn with the seeded RNG from weights set by the persona's likely
   intent and emotional context: a bad outcome pushes towards advice (more so for an anxious persona or
   a critical event), a changed attribute towards a status update (more so for a conscientious one),
   time-bound attributes towards scheduling, good news towards sharing (more so for an extravert); a
   document about the event that the user shares makes the event's first fact bullet an attachment
   consultation. The category shapes the turns (tasks/dialogue/shape.py): document talk is longer and
   more formal than a quick status update.
3. Days and times. An event is talked about on its own day, or (share `delay_share`) one to six days
   later while its facts still hold; the opening turn then says when it happened ("yesterday", "last
   Tuesday", "three days ago", tasks/dialogue/relativetime.py), recorded as a TimeRef the verifier checks
   against the calendar. A status update may call back an earlier related event the same way. A
   day's topics spread from morning to evening, each starting at a seeded time; turns advance the
   clock by a role-dependent gap and never leave the day.
4. Turns. Each topic is an initial user turn (a new thread, stating its facts by their first surface
   form), the assistant's reply, then `followups` follow-up user turns (deeper on the same topic,
   referring to the fact by paraphrase rather than repeating it) each answered. The assistant sees the
   last `context_window` turns of the session and is only ever told what the user said or uploaded.
   Attachment consultations open with `[Upload <doc_id>]` (RHELM's convention) and talk about the
   document's sections, points and tables without pasting it. Small talk and unrelated requests make
   up `filler_rate` of the topics, and some otherwise quiet days get a filler-only session.
5. Verification. Every turn is checked as it is written (tasks/dialogue/verify.py: claimed facts
   carried and valid that day, nothing from the future, relative-time phrases agree with the calendar,
   the assistant reveals nothing untold, no pasted document, the upload marker); a failing turn gets a
   fresh wording, up to `max_attempts`, then a rule-built template; a topic whose opening still fails is
   dropped. Each repair lands as a finding (Corpus.findings).

6. Memory rate. With `memory_rate` set, planned callbacks are thinned, or callback topics added (the user
   comes back to something told in an earlier session without restating it; their turns have
   `callback_of` set), until that share of user turns needs memory from outside the recent window
   (tasks/dialogue/recall.py); None leaves the dialogue exactly as the topics produce it.
7. Later corrections. A share `corrected_later` of the planned slips (mention mode `corrected`) is put right in
   a later session: the opening says only the slip and a one-turn topic days later corrects it
   (tasks/dialogue/latefix.py), planned with the topics.

Sessions are independent call chains advanced together in rounds (tasks/llm/rounds.py), so ids,
clocks and rows never depend on which call finishes first.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from schemas.audit import Finding
from schemas.config import BuildConfig
from schemas.corpus import Bullet, Chunk, Corpus, Document, FactMention, Session, Turn
from schemas.profile import Persona
from schemas.world import World
from tasks.common.facttext import carries_first, mentions
from tasks.dialogue import recall as dialogue_recall
from tasks.dialogue.bullets import STAGE, make_bullets
from tasks.dialogue.latefix import settled, with_late_fixes
from tasks.dialogue.mentions import sentence_with
from tasks.dialogue.session import SessionWriter
from tasks.dialogue.topics import Topic, plan_topics, topic_starts, with_recalls
from tasks.llm.gateway import Gateway
from tasks.llm.rounds import Chain, run_rounds
from tasks.sources.realized import said_so


def write_dialogue(
    config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], gateway: Gateway,
    chunks: Sequence[Chunk] = (),
) -> Corpus:
    """Bullets, one session per day that has topics, the sessions' turns, what the turns and the documents'
    `chunks` mention (fact_mentions), and the stage's repairs."""
    corpus = dialogue_corpus(config, persona, world, documents, gateway)
    live = config.provider_for("sources").name != "offline"
    return corpus.model_copy(update={"mentions": corpus.mentions + chunk_mentions(persona, world, chunks, documents,
                                                                                  live)})


def chunk_mentions(persona: Persona, world: World, chunks: Sequence[Chunk],
                   documents: Sequence[Document] = (), live: bool = False) -> list[FactMention]:
    """A chunk's facts: paraphrased, spanning the sentence that holds them, when its document records the fact
    said in other words there (`Document.realized`) and the chunk lacks the first surface form; else explicit,
    spanning the surface form it holds; paraphrased, spanning a surface form it holds or none, when a real model's
    words were judged to convey it and its first surface form is absent (`Document.judged`: checked_by
    `fact_check`). `live`: a real model wrote the documents (checked_by `wording`)."""
    facts = {f.fact_id: f for f in world.facts}
    docs = {d.doc_id: d for d in documents}
    out = []
    for chunk in chunks:
        doc = docs.get(chunk.doc_id)
        record, judged = (doc.realized, doc.judged) if doc is not None else ({}, [])
        for n, fid in enumerate((f for f in chunk.fact_ids if f in facts), start=1):
            parts, checked = tuple(record.get(fid, ())), "wording" if live else "realizer"
            form = next((f for f in facts[fid].surface_forms if mentions(chunk.text, f)), None)
            if not carries_first(chunk.text, facts[fid]) and said_so(chunk.text, parts):
                mode, span = "paraphrased", sentence_with(chunk.text, parts) or parts[-1]
            elif fid in judged and not carries_first(chunk.text, facts[fid]):
                mode, span, checked = "paraphrased", form, "fact_check"
            else:
                mode, span = "explicit", form
            out.append(FactMention(mention_id=f"{chunk.chunk_id}-m{n}", persona_id=persona.persona_id, fact_id=fid,
                                   evidence_id=chunk.chunk_id, evidence_kind="chunk", mode=mode, span=span,
                                   checked_by=checked))
    return out


def dialogue_corpus(config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document],
                    gateway: Gateway) -> Corpus:
    """The dialogue, with memory_rate's callback passes when it is set."""
    bullets = make_bullets(config, persona, world, documents)
    topics = with_late_fixes(config, persona, world, plan_topics(config, persona, world, documents, bullets))
    rate = config.stages.dialogue.memory_rate
    if rate is None:
        return written(config, persona, world, documents, gateway, bullets, topics)
    topics = dialogue_recall.thinned_callbacks(config, persona, topics, rate)
    corpus = written(config, persona, world, documents, gateway, bullets, topics)
    for round_no in range(dialogue_recall.PASSES):
        extra = dialogue_recall.recalls(config, persona, world, corpus.turns, rate, round_no)
        if not extra:
            break
        topics = with_recalls(topics, extra)
        corpus = written(config, persona, world, documents, gateway, bullets, topics)
    return corpus


def written(config: BuildConfig, persona: Persona, world: World, documents: Sequence[Document], gateway: Gateway,
            bullets: list[Bullet], topics: list[Topic]) -> Corpus:
    """The planned topics written: one session per day that has topics, its turns and the stage's repairs."""
    by_day: dict[dt.date, list[Topic]] = defaultdict(list)
    for topic in topics:
        by_day[topic.day].append(topic)
    facts = {f.fact_id: f for f in world.facts}
    by_id = {d.doc_id: d for d in documents}  # once, not per session (a long life has thousands of both)
    live = config.provider_for(STAGE).name != "offline"
    sessions: list[Session] = []
    chains: list[Chain[tuple[list[Turn], list[dict[str, str]], list[dict[str, Any]]]]] = []
    for day in sorted(by_day):
        day_topics = by_day[day]
        starts = topic_starts(config, persona, day, day_topics)
        session = Session(
            session_id=f"{persona.persona_id}-s{len(sessions) + 1:04d}",
            persona_id=persona.persona_id,
            started_at=starts[0] - dt.timedelta(minutes=1),
            category=day_topics[0].category,
        )
        sessions.append(session)
        writer = SessionWriter(config, persona, world, by_id, session, facts, live)
        chains.append(writer.write(list(zip(day_topics, starts, strict=True))))
    turns: list[Turn] = []
    notes: list[dict[str, str]] = []
    said: list[dict[str, Any]] = []
    for session_turns, session_notes, session_mentions in run_rounds(gateway, chains):
        turns += session_turns
        notes += session_notes
        said += session_mentions
    turns, said, late = settled(config, persona, world, bullets, turns, said)
    sessions, turns, notes, said = renumbered(persona, sessions, turns, notes + late, said)
    return Corpus(bullets=bullets, sessions=sessions, turns=turns, mentions=turn_mentions(persona, said),
                  findings=findings(persona, notes))


def turn_mentions(persona: Persona, said: list[dict[str, Any]]) -> list[FactMention]:
    """The recorded mentions as fact_mentions rows `<turn id>-m<n>`."""
    out, n = [], Counter()
    for m in said:
        n[m["evidence_id"]] += 1
        out.append(FactMention(mention_id=f"{m['evidence_id']}-m{n[m['evidence_id']]}", persona_id=persona.persona_id,
                               evidence_kind="turn", **m))
    return out


def renumbered(persona: Persona, sessions: list[Session], turns: list[Turn], notes: list[dict[str, str]],
               said: list[dict[str, Any]]):
    """Sessions left with turns, numbered without gaps (a session whose every topic was dropped goes), with
    their turns' ids, the notes' artifact ids and the mentions' evidence ids following."""
    talked = {t.session_id for t in turns}
    kept = [s for s in sessions if s.session_id in talked]
    rename = {s.session_id: f"{persona.persona_id}-s{n:04d}" for n, s in enumerate(kept, start=1)}
    if all(old == new for old, new in rename.items()):
        return kept, turns, notes, said

    def moved(item_id: str) -> str:
        session = item_id[:len(kept[0].session_id)]
        return rename[session] + item_id[len(session):] if session in rename else item_id

    sessions = [s.model_copy(update={"session_id": rename[s.session_id]}) for s in kept]
    turns = [t.model_copy(update={"session_id": rename[t.session_id], "turn_id": moved(t.turn_id)}) for t in turns]
    return (sessions, turns, [n | {"artifact_id": moved(n["artifact_id"])} for n in notes],
            [m | {"evidence_id": moved(m["evidence_id"])} for m in said])


def findings(persona: Persona, notes: list[dict[str, str]]) -> list[Finding]:
    """The stage's repairs as findings `<pid>-dlgNNNN`, in session order."""
    pid = persona.persona_id
    return [Finding(finding_id=f"{pid}-dlg{n:04d}", persona_id=pid, stage=STAGE, **note)
            for n, note in enumerate(notes, start=1)]








