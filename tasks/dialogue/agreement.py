"""History agrees with the world: no turn or document speaks of an event that did not take place as if it had
happened, and the turns and documents about one event tell the same outcome.

`history_findings(persona, world, corpus)` reads only the world (events, plans, facts) and the corpus (turns,
bullets, fact_mentions, documents, chunks); whether an event took place is the catalog's declaration
(tasks/common/happened.py), never a guess from words. Two checks, both errors:

- `cancelled_event_as_happened`: a text tied to an event that did not take place (the dinner was cancelled, the
  session rained off) carries a HAPPENED cue (a review, the staff, `how was it`, `last time`, `went well`, a
  receipt, a thank-you for the visit: a small, declared lexicon, below) or states what only its taking place
  brings (the dish of a dinner out, a colleague's tip at lunch: happened.py `unrealized_fields`).
- `event_outcome_disagrees`: what the user or a document tells of an event's outcome (OUTCOME_CUES: it did not
  happen, it went well, it went badly) differs from the world's; with a turn and a document about the same
  event, the finding names both (`the turn says it was called off, the journal that it went well`).

A text is tied to an event by the world's own links: a turn by its bullet (bullet.event_id), by the fact it calls
back to (callback_of) and by the facts it mentions (fact_mentions, counted modes: what is about someone else or
only imagined is no claim); a turn's time reference to an earlier event ties the sentence that says it; a
document by its event_id, a journal (one entry a day, a section per event) section by section, by the event's
facts it carries. Only the sentences about the event are read: a sentence naming another event of the text
(its places and people, or the time phrase that refers to it) and none of this one's is left out, so advice
about last week's good dinner in a reply about tonight's cancelled one is not read as about tonight's.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from schemas.audit import Finding
from schemas.corpus import Corpus, Document, Turn
from schemas.profile import Persona
from schemas.world import Event, Fact, Plan, World
from tasks.common.facttext import carries, is_baseline, mentions, value_names
from tasks.common.happened import took_place, unrealized_fields

HAPPENED_CUES: tuple[tuple[str, str], ...] = (
    # (what it presupposes, pattern): words that only fit an event that took place
    ("a review of it", r"\b(?:leave|leaving|left|write|writing|post|posting)\b[^.?!]{0,30}\breviews?\b|"
                       r"\bcomplain or review\b|\bcheck(?:ing)? reviews\b"),
    ("its staff", r"\bthe staff\b"),
    ("asking how it was", r"\bhow (?:was|were) (?:it|that|the \w+|your \w+)\b(?! going)|\bwhat was it like\b|"
                          r"\bhow did (?:it|that|the \w+|your \w+) go\b"),
    ("that it went well", r"(?<!what )\bwent (?:really |so |very |pretty )?well\b|\bit was lovely\b|"
                          r"\bwent better than\b|\bmade my day\b|\bthe best part of\b"),
    ("enjoying it", r"\benjoy(?:ed|ing)? (?:it|that|the|your|ourselves|myself|every)\b|"
                    r"\bwhat you (?:liked|loved|enjoyed)\b|\bwhat I (?:liked|loved|enjoyed)\b"),
    ("a last time there", r"\b(?:at|with|from) [^.?!]{1,40}\blast time\b|\bthe same [^.?!]{0,40}\blast time\b|"
                          r"\b(?:been|was it) (?:good|the same) before\b"),
    ("a bad night or a bad experience there", r"\bbad (?:night|experience|meal|service)\b|"
                                              r"\bgood places have bad days\b|\bmay have been one of them\b"),
    ("going back", r"\b(?:go|going|went|gone) back (?:to (?!what\b)|there\b|when\b)|\bbefore going back\b|"
                   r"\b(?:one more|another|a second) chance\b"),
    ("living up to hopes", r"\blive[ds]? up to\b|\bnot how (?:I|you)(?:'d| had| would)? pictured\b|"
                           r"\bhadn't happened like that\b|\bhad not happened like that\b"),
    ("a receipt", r"\b(?:your|the|a) receipt\b|\breceipt from\b"),
    ("thanks for the visit", r"\bthank(?:s| you) for (?:dining|hosting|having (?:me|us)|coming|your visit|"
                             r"joining|a lovely|the lovely|a great|taking part)\b|\bpleasure to have you\b|"
                             r"\bwe hope you enjoyed\b"),
    ("a meal or evening had", r"\b(?:we|I) had (?:a |such a )?(?:lovely|great|nice|wonderful|good|fun) "
                              r"(?:time|evening|night|day|meal|chat)\b|\bwe had (?:dinner|lunch)\b|"
                              r"\bthe (?:food|service|menu|waiter|waitress)\b"),
    ("what was said or made there", r"\bwhat (?:you|we|they) talked about\b|\bwhat you made\b|"
                                    r"\bhow (?:it|each session) felt\b|\bGuess what I did\b"),
)
"""Declared cues that presuppose an event took place (`cancelled_event_as_happened`). Each names what it
presupposes; all are matched case-insensitively on the sentences about the event."""

OUTCOME_CUES: dict[str, str] = {
    "did not happen": r"\b(?:cancell?ed|call(?:ed)? (?:it )?off|fell through|didn't happen|did not happen|"
                      r"never happened|postponed|put off|rained off|turned away|turned down|didn't work out|"
                      r"did not work out|for nothing|on hold|no-show|never (?:made it|went|got there))\b",
    "went well": r"\bwent (?:really |so |very |pretty )?well\b|\bit was lovely\b|\bwent better than\b|"
                 r"\bmade my day\b|\bworked out\b(?<!didn't work out)",
    "went badly": r"\bwent (?:wrong|badly)\b|\bdidn't go (?:well|to plan)\b|\bdid not go (?:well|to plan)\b",
}
"""What a user turn or a document tells of an event's outcome (`event_outcome_disagrees`)."""

_HAPPENED = [(what, re.compile(p, re.IGNORECASE)) for what, p in HAPPENED_CUES]
_OUTCOME = {what: re.compile(p, re.IGNORECASE) for what, p in OUTCOME_CUES.items()}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_SECTION = re.compile(r"^(?:#{2,3} |<h[23]>)", re.MULTILINE)


@dataclass
class Text:
    """One turn, or one section of a document, and the events it is tied to (with the sentences to read: all,
    or those that say one of `phrases`)."""

    kind: str  # turn | document
    artifact: str
    role: str  # user | assistant | document
    body: str
    events: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """event id -> the phrases whose sentences alone tie it (empty: the whole text)."""
    others: tuple[str, ...] = ()
    """Time phrases of the text that refer to other events than its own (their sentences are about them)."""
    facts: tuple[str, ...] = ()
    """The facts the text may speak of (its claims, its mentions, a cited document's): a sentence carrying one of
    another event and none of this one's names is about that event."""
    skip: tuple[str, ...] = ()
    """Sentences that are no claim about the persona's events (fact_mentions about someone else, hypothetical)."""


def world_outcome(event: Event, world: World) -> str:
    """`did not happen`, `went well` or `went badly`: the world's outcome of `event`."""
    if not took_place(event, world):
        return "did not happen"
    return "went well" if event.valence == "positive" else "went badly"


def event_names(event: Event, plan: Plan | None) -> list[str]:
    """The proper names an event's plan names (a restaurant, a friend, a city): what a sentence about it says."""
    if plan is None:
        return []
    names = {n for key, value in plan.entity.items() if key not in CAUSE_FIELDS
             for n in value_names(str(value)) if len(n) > 2}
    names |= {n.split()[0] for n in list(names) if len(n.split()) == 2 and len(n.split()[0]) > 2}  # `Kim` of Kim Kamau
    return sorted(names)


CAUSE_FIELDS = frozenset({"cause", "cause_event"})
"""Plan fields that name the earlier event a plan came of (`being turned away at Northside Food Bank`): its names
are that event's."""


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def about(text: Text, phrases: tuple[str, ...], own: set[str], names: re.Pattern[str] | None,
          foreign: list[Fact], causes: tuple[str, ...] = ()) -> str:
    """The sentences of `text` about the event: those saying one of `phrases` (all when none are given), less
    those that are no claim (`text.skip`) and those about another event and naming none of this one's names (a
    name of the persona's other events, `names`; a time phrase of the text that refers to another event; a fact
    of another event, `foreign`); the earlier event the plan came of (`causes`: `ever since being turned away at
    the library`) is said of that event and left out of the sentence."""
    out = []
    for s in sentences(text.body):
        for cause in causes:
            s = re.sub(re.escape(cause), "", s, flags=re.IGNORECASE)
        if phrases and not any(mentions(s, p) for p in phrases) or any(s in k or k in s for k in text.skip):
            continue
        named = {n.lower() for n in names.findall(s)} if names is not None else set()
        if not named & own and (named - own or any(mentions(s, r) for r in text.others)
                                or any(carries(s, f) for f in foreign)):
            continue
        out.append(s)
    return " ".join(out)


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern finding any of `names` as a whole phrase (longest first), or None when there are none."""
    ordered = sorted({n for n in names if n}, key=lambda n: (-len(n), n))
    if not ordered:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in ordered) + r")(?!\w)", re.IGNORECASE)


def history_findings(persona: Persona, world: World, corpus: Corpus) -> list[Finding]:
    """Error findings where a turn or a document speaks of an event that did not take place as if it had, or
    tells an event's outcome otherwise than the world and the other texts about it (see the module doc)."""
    events = {e.event_id: e for e in world.events if not is_baseline(e) and e.plan_id}
    plans = {p.plan_id: p for p in world.plans}
    facts = {f.fact_id: f for f in world.facts}
    names = {eid: {n.lower() for n in event_names(e, plans.get(e.plan_id or ""))} for eid, e in events.items()}
    pattern = name_pattern(n for ns in names.values() for n in ns)
    texts = tied_texts(corpus, events, facts)
    found: list[Finding] = []
    told: dict[str, list[tuple[Text, str]]] = defaultdict(list)  # event id -> (text, outcome it tells)
    for text in texts:
        for eid, phrases in text.events.items():
            event = events[eid]
            foreign = [facts[i] for i in text.facts if i in facts and facts[i].event_id != eid]
            plan = plans.get(event.plan_id or "")
            causes = tuple(str(plan.entity[k]) for k in ("cause",) if plan and plan.entity.get(k))
            said = about(text, phrases, names[eid], pattern, foreign, causes)
            if not said:
                continue
            if not took_place(event, world):
                found += happened_findings(persona, text, event, plan, said)
            if text.role != "assistant":
                told[eid] += [(text, outcome) for outcome, cue in _OUTCOME.items() if cue.search(said)]
    for eid, tellings in told.items():
        found += outcome_findings(persona, events[eid], world, tellings)
    found += table_findings(persona, world, corpus, events)
    return [f.model_copy(update={"finding_id": f"{persona.persona_id}-hist{n + 1:04d}"})
            for n, f in enumerate(found)]


DONE_ROWS = ("tasks completed", "hours logged")
"""Rows of a document's table that report work done (a project status report): zero for a plan that did not
take place (a project put on hold before it began)."""


def table_findings(persona: Persona, world: World, corpus: Corpus, events: dict[str, Event]) -> list[Finding]:
    """`cancelled_event_as_happened` findings of document tables that report work done on an event that did not
    take place."""
    out = []
    for doc in corpus.documents:
        event = events.get(doc.event_id or "")
        if event is None or took_place(event, world):
            continue
        done = [f"{row[0]} {row[1]}" for table in doc.tables for row in table.get("rows", [])
                if len(row) > 1 and str(row[0]) in DONE_ROWS and isinstance(row[1], int | float) and row[1] > 0]
        if done:
            text = Text("document", doc.doc_id, "document", doc.body)
            out.append(finding(persona, text, "cancelled_event_as_happened",
                               f"document {doc.doc_id} about {event.event_id} ({event.kind}, which did not take "
                               f"place) reports work done on it: {', '.join(done)}",
                               "a plan that did not take place has nothing done (tasks/sources/reports.py)"))
    return out


def happened_cues(text: str) -> list[tuple[str, str]]:
    """The HAPPENED_CUES `text` holds: (what it presupposes, the words that say it)."""
    return [(what, m.group(0)) for what, cue in _HAPPENED for m in [cue.search(text)] if m]


def happened_findings(persona: Persona, text: Text, event: Event, plan: Plan | None, said: str) -> list[Finding]:
    """`cancelled_event_as_happened` findings of one text about an event that did not take place."""
    cues = happened_cues(said)
    details = [f"{k} {str(v)!r}" for k, v in (plan.entity.items() if plan else ())
               if k in unrealized_fields(plan.kind if plan else None) and len(str(v)) > 3 and mentions(said, str(v))]
    if not cues and not details:
        return []
    what = "; ".join([f"{w} ({m!r})" for w, m in cues] + [f"what only its taking place brings: {d}" for d in details])
    return [finding(persona, text, "cancelled_event_as_happened",
                    f"{text.role} text about {event.event_id} ({event.kind}, which did not take place) presupposes "
                    f"it happened: {what}",
                    "choose the material by tasks/common/happened.py took_place (called-off advice, questions and "
                    "wording), not by the outcome's valence alone")]


def outcome_findings(persona: Persona, event: Event, world: World, tellings: list[tuple[Text, str]]
                     ) -> list[Finding]:
    """`event_outcome_disagrees` findings: texts telling an outcome the world does not have, naming a text of
    the other kind (turn or document) that tells another."""
    truth = world_outcome(event, world)
    out = []
    for text, outcome in tellings:
        if outcome == truth or truth == "went badly" and outcome == "went well" and text.role == "user":
            continue  # a user looking on the bright side of a setback is no disagreement
        if truth == "did not happen" and outcome != "did not happen":
            continue  # a called-off event told as happened: cancelled_event_as_happened says it
        other = next((t for t, o in tellings if o != outcome and t.kind != text.kind), None)
        versus = f"; {other.kind} {other.artifact} tells it {tellings_of(other, tellings)}" if other else ""
        out.append(finding(persona, text, "event_outcome_disagrees",
                           f"{text.kind} {text.artifact} tells {event.event_id} ({event.kind}) {outcome!r}, but it "
                           f"{truth}{versus}",
                           "tell the outcome the world has (tasks/common/happened.py took_place and the valence) in "
                           "turns and documents alike"))
    return out


def tellings_of(text: Text, tellings: list[tuple[Text, str]]) -> str:
    return " and ".join(repr(o) for t, o in tellings if t is text)


def finding(persona: Persona, text: Text, check: str, message: str, suggestion: str) -> Finding:
    return Finding(finding_id="", persona_id=persona.persona_id,
                   stage="dialogue" if text.kind == "turn" else "sources", artifact_id=text.artifact, check=check,
                   severity="error", message=message, suggestion=suggestion)


# ---------------------------------------------------------------- what is tied to what


def tied_texts(corpus: Corpus, events: dict[str, Event], facts: dict[str, Fact]) -> list[Text]:
    """Every turn and document section tied to an event, with the events it is tied to."""
    bullets = {b.bullet_id: b.event_id for b in corpus.bullets}
    docs = {d.doc_id: d for d in corpus.documents}
    counted, skip = defaultdict(list), defaultdict(list)  # evidence id -> its claims; what is no claim
    for m in corpus.mentions:
        if m.mode in NO_CLAIM:
            skip[m.evidence_id] += [m.span] if m.span else []
        elif m.counts and m.mode != "reference":
            counted[m.evidence_id].append(m)
    out = [turn_text(t, bullets, counted, skip, docs, events, facts) for t in corpus.turns]
    chunks = defaultdict(list)
    for c in corpus.chunks:
        chunks[c.doc_id].append(c)
    for doc in corpus.documents:
        out += document_texts(doc, chunks[doc.doc_id], counted, skip, events, facts)
    return [t for t in out if t.events]


NO_CLAIM = frozenset({"about_other", "hypothetical"})
"""fact_mentions modes that claim nothing of the persona's events: what someone else did, what nearly happened."""


def turn_text(turn: Turn, bullets: dict[str, str], counted, skip, docs: dict[str, Document],
              events: dict[str, Event], facts: dict[str, Fact]) -> Text:
    """A turn and its events: its bullet's (whole), the callback's fact's (whole), the facts it mentions (their
    sentences) and the earlier events its time references name (the sentences saying the phrase)."""
    tied: dict[str, tuple[str, ...]] = {}
    own = bullets.get(turn.bullet_id or "")
    if own in events:
        tied[own] = ()
    back = facts.get(turn.callback_of or "")
    if back is not None and back.event_id in events:
        tied[back.event_id] = ()
    for m in counted.get(turn.turn_id, ()):
        fact = facts.get(m.fact_id)
        if fact is not None and fact.event_id in events and fact.event_id not in tied:
            tied[fact.event_id] = tuple(p for p in [m.span, *fact.surface_forms] if p)
    others = tuple(r.phrase for r in turn.time_refs if r.event_id and r.event_id != own)
    for r in turn.time_refs:
        if r.event_id in events and r.event_id not in tied:
            tied[r.event_id] = (r.phrase,)
    known = [*turn.fact_ids, *(m.fact_id for m in counted.get(turn.turn_id, ())),
             *(i for d in turn.doc_ids if d in docs for i in docs[d].fact_ids)]
    return Text("turn", turn.turn_id, turn.role, turn.text, tied, others, tuple(dict.fromkeys(known)),
                tuple(skip.get(turn.turn_id, ())))


def document_texts(doc: Document, chunks, counted, skip, events: dict[str, Event], facts: dict[str, Fact]
                   ) -> list[Text]:
    """A document's sections (a journal's, one per event; else the whole body, tied to the document's event)
    with the events each is about, named by the chunk that holds the section's start."""
    spans = [(m, facts.get(m.fact_id)) for c in chunks for m in counted.get(c.chunk_id, ())]
    skipped = tuple(k for c in chunks for k in skip.get(c.chunk_id, ()))
    out = []
    for section in split_sections(doc.body):
        tied: dict[str, tuple[str, ...]] = {}
        if doc.event_id in events and doc.source_type != "journal":
            tied[doc.event_id] = ()
        for m, fact in spans:
            if fact is not None and fact.event_id in events and (m.span and mentions(section, m.span)
                                                                  or carries(section, fact)):
                tied.setdefault(fact.event_id, ())
        for fid in doc.fact_ids:
            fact = facts.get(fid)
            if fact is not None and fact.event_id in events and carries(section, fact):
                tied.setdefault(fact.event_id, ())
        out.append(Text("document", chunk_of(section, doc, chunks), "document", section, tied,
                        facts=tuple(doc.fact_ids), skip=skipped))
    return out


def split_sections(body: str) -> list[str]:
    """A document body cut before each second- or third-level heading (Markdown `## `, HTML `<h2>`)."""
    starts = [0] + [m.start() for m in _SECTION.finditer(body) if m.start() > 0]
    return [body[a:b] for a, b in zip(starts, starts[1:] + [len(body)], strict=True)]


def chunk_of(section: str, doc: Document, chunks: Iterable) -> str:
    """The id of the chunk holding the start of `section` (the document's id when none does)."""
    head = next(iter(sentences(section)), "")[:60]
    return next((c.chunk_id for c in chunks if head and head in c.text), doc.doc_id)
