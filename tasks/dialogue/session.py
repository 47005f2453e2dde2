"""Dialogue step 4 and 5 (see tasks/dialogue/stage.py): `SessionWriter` writes one day's topics as turns
(opening, reply, follow-ups) through the gateway, checks each turn as it is written and repairs or drops
the failing ones; the attachment context, fallback wordings and turn gaps it uses."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Document, Session, TimeRef, Turn, TurnText
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common import worldindex
from tasks.common.facttext import (
    attribute_phrase,
    capital,
    carried_ids,
    carries,
    carries_first,
    clause,
    event_context,
    event_reference,
    event_title,
    first_name,
    holder,
    mentions,
    persona_context,
    style_context,
)
from tasks.common.happened import took_place
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_date
from tasks.dialogue import livecheck
from tasks.dialogue.attachments import attachment_context
from tasks.dialogue.bullets import EMOJI, SENTENCE, STAGE
from tasks.dialogue.fallback import FALLBACK_ASKS, FALLBACK_FOLLOWUP, FALLBACK_REPLY
from tasks.dialogue.latefix import LateFixes
from tasks.dialogue.mentions import Distractor, Realization, planned, turn_mentions
from tasks.dialogue.sessionparts import EventViews, SplitHalves
from tasks.dialogue.shape import shape_of, shifted_formality
from tasks.dialogue.topics import Topic
from tasks.dialogue.verify import Problem, TurnScope, call_turns, heard_in, turn_problems, untold_forms, visible
from tasks.llm.gateway import CallSpec
from tasks.llm.rounds import Chain


class SessionWriter(SplitHalves, EventViews, LateFixes):
    """Writes one session's turns, keeping its clock, the conversation so far and its repair notes.

    Its writing methods are call chains: they yield each model call and receive its output.
    """

    def __init__(self, config: BuildConfig, persona: Persona, world: World,
                 documents: Sequence[Document] | dict[str, Document], session: Session, facts: dict[str, Fact],
                 live: bool) -> None:
        self.config, self.persona, self.world = config, persona, world
        self.documents = documents if isinstance(documents, dict) else {d.doc_id: d for d in documents}
        self.session, self.facts, self.live = session, facts, live
        self.day = local_date(persona, session.started_at)
        self.rng = rng_for(config.seed, persona.persona_id, STAGE, self.day, f"clock:{session.session_id}")
        self.clock = session.started_at
        self.turns: list[Turn] = []
        self.notes: list[dict[str, str]] = []
        self.refs: list[TimeRef] = []
        """Time refs recorded so far on the current topic (its opening's `when` and callback)."""
        self.told: set[str] = set()
        """Events already announced in this session: a later bullet of one goes on with it instead."""
        self.whens: dict[str, str] = {}
        """When the user said each event happened, as they said it (`yesterday`): what the assistant may say back."""
        self.conveyed: frozenset[str] = frozenset()
        """The facts a live model's opening conveys by the fact_check verdict (tasks/dialogue/livecheck.py)."""
        self.realized: dict[str, Realization] = {}
        """The current topic's planned realizations by fact id (tasks/dialogue/mentions.py)."""
        self.distractors: list[Distractor] = []
        """The current topic's planned distractors not yet said (about someone else, hypothetical)."""
        self.mentions: list[dict[str, Any]] = []
        """What each committed turn mentions: evidence id, fact id, mode, span, counts."""
        self.k = 0
        """Which follow-up of its topic the user turn being written is (0: the opening)."""
        self.halves: dict[str, set[str]] = {"first": set(), "rest": set()}
        """Split facts whose first half (the opening) and second half (the first follow-up) have been said."""

    def write(self, topics: list[tuple[Topic, dt.datetime]]) -> Chain[tuple[list[Turn], list[dict[str, str]],
                                                                          list[dict[str, Any]]]]:
        """All turns of the session, topic by topic, and the notes on what was repaired or dropped."""
        for topic, start in topics:
            self.clock = max(self.clock, start)
            yield from self.topic(topic)
        return self.turns, self.notes, self.mentions

    def topic(self, topic: Topic) -> Chain[None]:
        self.refs = []
        facts = self.bullet_facts(topic)
        followed = self.rounds(topic) > 0
        plan = planned(self.config, self.persona, self.world, facts, topic.bullet.bullet_id, topic.day,
                       followed) if topic.bullet else None  # the plan tasks/dialogue/latefix.py drew before
        self.realized = self.realizations(topic, plan)
        self.distractors = list(plan.distractors) if plan else []
        opening = yield from self.user_turn(topic, "initial", 0)
        if opening is None:
            return
        try:
            yield from self.thread(topic, opening)
        finally:  # a split fact whose second half no follow-up said is completed in the opening
            self.complete(opening)

    def rounds(self, topic: Topic) -> int:
        """How many follow-ups the topic gets at most (none for a callback or background)."""
        return 0 if topic.recall or topic.fix or topic.intro else self.config.stages.dialogue.followups

    def thread(self, topic: Topic, opening: Turn) -> Chain[None]:
        """The reply to the opening and the topic's follow-ups."""
        if topic.event is not None and not topic.intro:
            self.told.add(topic.event.event_id)
        self.refs = list(opening.time_refs)
        self.whens |= {r.event_id: r.phrase for r in opening.time_refs if r.event_id}
        yield from self.assistant_turn(topic, "filler" if topic.filler else "initial")
        rounds = self.rounds(topic)
        if topic.filler:
            rounds = min(rounds, 1 if self.rng.random() < 0.5 else 0)
        for k in range(1, rounds + 1):
            if (yield from self.user_turn(topic, "followup", k)) is None:
                return
            yield from self.assistant_turn(topic, "filler" if topic.filler else "followup")

    # user turns

    def user_turn(self, topic: Topic, kind: str, k: int) -> Chain[Turn | None]:
        """A user turn that passes the checks: up to max_attempts wordings, then a template, else none."""
        turn_kind = "filler" if topic.filler else kind
        prompt = {"filler": "user_turn_filler", "initial": "user_turn_initial"}.get(turn_kind, "user_turn_followup")
        prompt = "user_turn_callback" if topic.recall else "user_turn_correction" if topic.fix else prompt
        context = self.user_context(topic, turn_kind, k)
        self.k = k
        attempts = self.config.stages.dialogue.max_attempts
        problems: list[Problem] = []
        for sample in range(attempts):
            text = yield from self.generate(prompt, context, sample)
            judged = yield from livecheck.judged_opening(self, topic, turn_kind, text)
            turn, contradicted = yield from self.user_draft(topic, turn_kind, self.repaired(topic, turn_kind, text))
            problems = judged + contradicted + self.problems(turn, topic)
            if not problems:
                return self.commit(turn)
            self.note(topic, turn, problems, "info", f"wording {sample + 1} of {attempts} rejected; regenerated")
        self.conveyed = frozenset()
        turn, contradicted = yield from self.user_draft(topic, turn_kind, self.template_text(topic, turn_kind))
        if not contradicted + self.problems(turn, topic):
            self.note(topic, turn, problems, "warning", "every wording was rejected; used the rule template")
            return self.commit(turn)
        self.note(topic, None, problems, "warning", f"dropped the rest of the topic at its {turn_kind} turn")
        return None

    def user_context(self, topic: Topic, kind: str, k: int) -> dict[str, Any]:
        style = style_context(self.persona)
        style["formality"] = shifted_formality(float(style["formality"]), topic.category, kind)
        lo, hi = shape_of(topic.category, kind).user_sentences
        context: dict[str, Any] = {
            "persona": persona_context(self.persona), "style": style, "category": topic.category,
            **call_turns(self.turns, self.window, self.step), "length": {"min_sentences": lo, "max_sentences": hi},
            "date": human_date(self.day), "part_of_day": self.part_of_day(),
        }
        if kind == "filler":
            return context | {"filler": dict(topic.filler or {})}
        if topic.recall is not None or topic.fix is not None:
            return context | ({"recall": topic.recall.context()} if topic.recall else {"fix": topic.fix.context()})
        event = event_context(topic.event, self.world) if topic.event else {}
        event |= {k: self.as_told(event[k], topic) for k in ("title", "narrative")} if event else {}
        if topic.intro:
            event |= {"title": "my background", "kind": "introduction"}
        attachment = attachment_context(topic.doc, self.persona, self.facts)
        event["entity"] = self.title_fields(topic)
        if kind == "followup":  # the particulars a follow-up may add (the dish, who gave the tip)
            event["details"] = self.plan_details(topic)
        event["values"] = [f.value for f in self.event_facts(topic)]  # never restated whole by a handle
        if kind == "followup":
            last = next((t.text for t in reversed(self.turns) if t.role == "assistant"), "")
            told = [f for fact in self.bullet_facts(topic) for f in fact.surface_forms]
            rest = " ".join(r.rest for r in self.pending() if r.rest) if k == 1 else ""
            return context | {"event": event, "followup_index": k, "last_assistant": last, "told": told,
                              "paraphrase": self.paraphrase(topic), "attachment": attachment,
                              "complete": rest or None}  # the second half of a split fact: said now
        facts = self.bullet_facts(topic)
        return context | {
            "event": event, "attachment": attachment,
            "facts": [self.fact_context(topic, f) for f in facts],
            "detail": None if facts or topic.bullet is None else self.as_told(topic.bullet.text, topic),
            "when": topic.when.phrase if topic.when else None,
            "callback": ({"phrase": topic.callback.phrase, "title": topic.callback_title,
                          "paraphrase": topic.callback_paraphrase, "took_place": self.happened(topic.callback)}
                         if topic.callback else None),
            "intro": topic.intro, "continues": self.continues(topic),
            "distractors": [d.sentence for d in self.distractors],
        }

    def happened(self, ref: TimeRef) -> bool:
        """Whether the event a time reference names took place (tasks/common/happened.py): a callback to a
        cancelled dinner says it was meant to happen, never that it did."""
        event = next((e for e in self.world.events if e.event_id == ref.event_id), None)
        return event is None or took_place(event, self.world)

    def continues(self, topic: Topic) -> bool:
        """True when the topic's event was announced earlier in this session: its opening goes on with it."""
        return topic.event is not None and not topic.intro and topic.event.event_id in self.told

    def fact_clause(self, topic: Topic, fact: Fact) -> str:
        """The clause stating a fact; for background, the persona's own sentence that carries it."""
        if topic.intro and topic.event is not None:
            for line in SENTENCE.split(EMOJI.sub("", topic.event.narrative)):
                if carries_first(line, fact):
                    return line.strip().rstrip(".!")
        return clause(fact, self.persona, "first")

    def repaired(self, topic: Topic, kind: str, text: str) -> str:
        """Deterministic repairs of an opening turn: the upload marker first, left-out facts appended."""
        if kind != "initial":
            return text
        if topic.doc is not None and f"[Upload {topic.doc.doc_id}]" not in text:
            text = f"[Upload {topic.doc.doc_id}] {text}"
        missing = [f for f in self.bullet_facts(topic) if f.surface_forms and not self.said(text, f)
                   and f.fact_id not in self.conveyed]  # a slip put off is said as the slip, never the value
        lines = [self.slip_line(text, f) if self.slip_of(f) else f"{capital(clause(f, self.persona, 'first'))}."
                 for f in missing]
        return " ".join([text] + [line for line in lines if line])

    def template_text(self, topic: Topic, kind: str) -> str:
        """The rule-built wording used when every model wording failed its checks."""
        if kind == "filler":
            return f"Unrelated question: could you help me with {(topic.filler or {}).get('topic', 'something')}?"
        if topic.recall is not None or topic.fix is not None:
            return topic.fix.sentence if topic.fix else (f"{capital(topic.recall.phrase)} has been on my mind "
                                                         f"again. {FALLBACK_ASKS[topic.category]}")
        if kind == "followup":
            return " ".join([r.rest for r in self.pending() if r.rest] + [FALLBACK_FOLLOWUP])
        parts = [f"[Upload {topic.doc.doc_id}]"] if topic.doc else []
        if topic.when and topic.event:
            parts.append(f"{capital(topic.when.phrase)} I set out to "
                         f"{self.as_told(event_title(topic.event, self.world), topic)}.")
        if topic.callback:
            parts.append(f"{capital(topic.callback.phrase)} I set out to {topic.callback_title}.")
        facts = self.bullet_facts(topic)
        parts += [self.slip_line("", f) or f"{capital(clause(f, self.persona, 'first'))}." for f in facts]
        if not facts and topic.bullet is not None:
            parts.append(self.as_told(topic.bullet.text, topic))
        parts.append(FALLBACK_ASKS[topic.category])
        return " ".join(parts)

    def user_draft(self, topic: Topic, kind: str, text: str) -> Chain[tuple[Turn, list[Problem]]]:
        """The turn `text` would become (not yet added): its claims, time references and paraphrases, and
        the facts a live model judged it to contradict."""
        facts = self.bullet_facts(topic) if kind != "filler" else []
        refs = [r for r in (topic.when, topic.callback) if r is not None and kind == "initial" and
                relativetime_in(text, r.phrase)]
        paraphrased: list[str] = []
        contradicted: list[Problem] = []
        if kind == "followup" and facts:
            phrase = self.paraphrase(topic)
            unclaimed = [f for f in facts if not carries(text, f)]
            if phrase and mentions(text, phrase):
                paraphrased = [f.fact_id for f in unclaimed]
            elif self.live and unclaimed:
                paraphrased, problems = yield from livecheck.verdicts(text, unclaimed, self.persona)
                contradicted = [p for p in problems if p.check == "turn_contradicts_fact"]
        if topic.recall is not None:
            said = mentions(text, topic.recall.phrase)
            paraphrased = [topic.recall.fact_id] if said else []
            contradicted += [] if said else [Problem("recall_phrase", f"the callback must say {topic.recall.phrase!r}")]
        fixed, wrong = self.fix_claims(topic, text) if kind != "filler" else ([], [])
        contradicted += wrong
        missing = [r for r in (topic.when, topic.callback) if r is not None and kind == "initial" and r not in refs]
        contradicted += [Problem("time_ref_in_text", f"the opening must say {r.phrase!r} (the event was on {r.date})")
                         for r in missing]
        claims = carried_ids(text, facts, first_only=kind == "followup")  # a follow-up naming `the cycling` refers
        claims += [f.fact_id for f in facts if kind == "initial" and f.fact_id not in claims
                   and (self.said(text, f) or f.fact_id in self.conveyed)]
        paraphrased += [f.fact_id for f in facts if kind == "followup" and f.fact_id not in claims + paraphrased
                        and carries(text, f)]
        halves = [r.fact_id for r in self.pending() if kind == "followup" and r.fact_id not in claims
                  and all(mentions(text, p) for p in r.rest_parts)]  # a split fact's second half
        claims = [i for i in claims + halves + fixed if not self.slip_of(self.facts[i])]  # a slip put off: no claim
        paraphrased = [i for i in paraphrased if i not in halves]
        if kind == "followup" and self.k == 1:
            contradicted += [Problem("split_rest", f"the first follow-up must add {r.rest!r}") for r in self.pending()
                             if r.fact_id not in halves]
        return self.draft("user", text, topic, kind, claims, refs, paraphrased), contradicted

    # assistant turns

    def assistant_turn(self, topic: Topic, kind: str) -> Chain[None]:
        """The assistant's reply: up to max_attempts wordings, then a safe rule-built reply."""
        lo, hi = shape_of(topic.category, kind).reply_words
        context = {
            "user_first_name": first_name(self.persona.name), "category": topic.category,
            "tone": topic.event.valence if topic.event else "neutral",
            "event": self.reply_event(topic),
            **call_turns(self.turns, self.window, self.step, before_last=True),
            "user_message": self.turns[-1].text, "turn_kind": kind,
            "attachment": attachment_context(topic.doc, self.persona, self.facts),
            "mentioned": self.mentioned(), "told_values": self.told_values(topic),
            "filler": dict(topic.filler) if topic.filler else None, "fix": topic.fix.context() if topic.fix else None,
            "min_words": lo, "max_words": hi, "date": human_date(self.day), "part_of_day": self.part_of_day(),
        }
        attempts = self.config.stages.dialogue.max_attempts
        problems: list[Problem] = []
        avoid: list[str] = []  # what a rejected wording said that the user has not told: the next one must not
        for sample in range(attempts):
            text = yield from self.generate("assistant_turn", context | ({"avoid": avoid} if avoid else {}), sample)
            turn = self.draft("assistant", text, topic, kind, [], [], [])
            problems = self.problems(turn, topic)
            if not problems:
                self.commit(turn)
                return
            avoid += [f for f in untold_forms(problems) if f not in avoid]
            self.note(topic, turn, problems, "info", f"wording {sample + 1} of {attempts} rejected; regenerated")
        self.commit(self.draft("assistant", fallback_reply(lo), topic, kind, [], [], []))
        self.note(topic, self.turns[-1], problems, "warning", "every wording was rejected; used a generic reply")

    # shared

    def draft(self, role: str, text: str, topic: Topic, kind: str, fact_ids: list[str], refs: list[TimeRef],
              paraphrased: list[str]) -> Turn:
        """A turn at the clock's next tick (the clock only moves when the turn is committed)."""
        return Turn(
            turn_id=f"{self.session.session_id}-t{len(self.turns) + 1:02d}",
            session_id=self.session.session_id, persona_id=self.persona.persona_id,
            timestamp=self.next_tick(role), role=role, text=text.strip(),
            bullet_id=topic.bullet.bullet_id if topic.bullet else None,
            doc_ids=[topic.doc.doc_id] if topic.doc and kind != "filler" else [],
            fact_ids=fact_ids, category=topic.category, kind=self.stored_kind(role, kind, topic),
            time_refs=refs, paraphrase_ids=paraphrased,
            callback_of=topic.recall.fact_id if topic.recall else None,
        )

    def stored_kind(self, role: str, kind: str, topic: Topic) -> str:
        """The turn's kind as landed: a user opening that goes on with an event told earlier in the session is a
        follow-up of that event's thread, not a new announcement."""
        if kind not in ("initial", "followup"):
            return "filler"
        return "followup" if kind == "initial" and role == "user" and self.continues(topic) else kind

    def next_tick(self, role: str) -> dt.datetime:
        """The clock plus a role-dependent gap drawn from a copy of the session RNG (no draw is spent)."""
        state = self.rng.getstate()
        moment = self.clock + turn_gap(role, self.rng, self.clock.timetz() > dt.time(22, 30, tzinfo=self.clock.tzinfo))
        self.rng.setstate(state)
        return moment

    def commit(self, turn: Turn) -> Turn:
        """Add the turn, record what it mentions and move the clock to it (spending the gap's draw)."""
        turn_gap(turn.role, self.rng, False)
        self.clock = turn.timestamp
        self.turns.append(turn)
        half = ("first",) if self.k == 0 else ("rest",) if self.k == 1 else ()
        found = turn_mentions(turn, self.facts, self.realized, self.turns[:-1], self.distractors,
                              half if turn.role == "user" else (), self.live,
                              self.conveyed if turn.role == "user" else frozenset())
        for m in found:
            if m["mode"] == "split":
                self.halves[half[0]].add(m["fact_id"])
        said = {(m["fact_id"], m["mode"]) for m in found}
        self.distractors = [d for d in self.distractors if (d.fact_id, d.mode) not in said]
        self.mentions += found
        return turn

    def problems(self, turn: Turn, topic: Topic) -> list[Problem]:
        """What the verifier would reject in `turn` (tasks/dialogue/verify.py), with the same scope the final
        verifier builds (scopes_for): what the assistant sees of the session and the recorded time refs."""
        session = [*self.turns, turn]
        seen = visible(session, len(session) - (1 if turn.role == "assistant" else 0), self.window, self.step)
        heard = heard_in(seen, self.documents)
        refs = [*self.refs, *turn.time_refs]
        dates = tuple(dict.fromkeys([topic.event.date] if topic.event else []) | dict.fromkeys(r.date for r in refs))
        scope = TurnScope(persona=self.persona, facts=self.facts, day=self.day, heard=heard,
                          documents=self.documents, topic_dates=dates, topic_text=self.topic_text(topic, refs),
                          called_off=self.called_off_names(topic),
                          realized=frozenset(fid for fid, r in self.realized.items() if turn.role == "user"
                                             and (all(mentions(turn.text, p) for p in r.parts) or r.rest_parts
                                                  and all(mentions(turn.text, p) for p in r.rest_parts)))
                          | (self.conveyed if turn.role == "user" else frozenset()))
        return [p for p in turn_problems(turn, scope) if p.check != "assistant_length"]

    def topic_text(self, topic: Topic, refs: Sequence[TimeRef]) -> str:
        """Titles and narratives of the events the topic is about (what they name is known that day)."""
        events = worldindex.index(self.world).events
        back = self.facts.get((topic.recall or topic.fix).fact_id) if topic.recall or topic.fix else None
        ids = [topic.event.event_id if topic.event else None, back.event_id if back else None] + [
            r.event_id for r in refs]  # a callback or a correction knows the event of the fact it comes back to
        return "\n".join(f"{event_title(events[i], self.world)}\n{events[i].narrative}"
                         for i in dict.fromkeys(ids) if i in events)

    def note(self, topic: Topic, turn: Turn | None, problems: Sequence[Problem], severity: str, action: str) -> None:
        """One finding per failed check: on the turn that shipped, else on the topic's bullet (or session)."""
        shipped = turn is not None and severity == "warning"
        artifact = turn.turn_id if shipped else topic.bullet.bullet_id if topic.bullet else self.session.session_id
        for check in dict.fromkeys(p.check for p in problems):
            message = f"{action}: " + "; ".join(p.message for p in problems if p.check == check)
            self.notes.append({"artifact_id": artifact, "check": check, "severity": severity, "message": message,
                               "suggestion": "see tasks/dialogue/verify.py for the check"})

    def bullet_facts(self, topic: Topic) -> list[Fact]:
        return [self.facts[i] for i in topic.bullet.fact_ids] if topic.bullet else []

    def event_facts(self, topic: Topic) -> list[Fact]:
        """The topic's own facts and those of its event (a detail bullet that goes on with an event told at an
        earlier bullet has none of its own, but its talk is about them)."""
        own = self.bullet_facts(topic)
        event_id = topic.event.event_id if topic.event is not None and not topic.intro else None
        theirs = worldindex.index(self.world).facts_of(event_id) if event_id else []
        theirs = [self.facts[f.fact_id] for f in theirs if f.fact_id in self.facts]
        return own + [f for f in theirs if f not in own]

    def paraphrase(self, topic: Topic) -> str | None:
        """How a follow-up may refer to the topic's fact without its value: `my new gym`; what happened at an event
        by its ontology recall phrase (`that dinner out`, `my sister Ann's missed call`)."""
        facts = self.bullet_facts(topic)
        if not facts or topic.intro:
            return None
        event = event_reference(facts[0], self.persona)
        if event is not None:
            return event
        attribute = attribute_phrase(facts[0].attribute)
        fresh = "" if attribute.split()[0] in ("new", "last", "latest", "current", "recent", "next") else "new "
        return f"{holder(facts[0], self.persona, 'first')} {fresh}{attribute}"

    @property
    def window(self) -> int:
        return self.config.stages.dialogue.context_window

    @property
    def step(self) -> int:
        return self.config.stages.dialogue.context_step

    def part_of_day(self) -> str:
        """`morning`, `afternoon` or `evening` at the next turn's time (a greeting must fit when it is sent)."""
        hour = self.next_tick("user").hour
        return "morning" if hour < 12 else "afternoon" if hour < 17 else "evening"

    def mentioned(self) -> list[str]:
        """Phrases the assistant may repeat: per fact stated in what it sees of the session (the context window and
        the message it answers: user turns and cited documents), its shortest surface form heard there (`Casa
        Lola` of `jollof rice at Casa Lola`): it refers back to what it was told, it does not restate it."""
        seen = visible(self.turns, len(self.turns), self.window, self.step)
        heard = heard_in(seen, self.documents)
        ids = dict.fromkeys(i for t in seen if t.role == "user" for i in t.fact_ids)
        ids.update(dict.fromkeys(i for t in seen for d in t.doc_ids if d in self.documents
                                 for i in self.documents[d].fact_ids if i in self.facts))
        heard_forms = ([f for f in reversed(self.facts[i].surface_forms) if mentions(heard, f)] for i in ids)
        return list(dict.fromkeys(forms[0] for forms in heard_forms if forms))

    def told_values(self, topic: Topic) -> list[str]:
        """The values of the facts the user told in what the assistant sees (user turns and cited documents) and
        of the topic's event (told at its opening, which a long topic's window may have left): it refers back
        to them by a detail or by kind, it does not say them back whole."""
        seen = visible(self.turns, len(self.turns), self.window, self.step)
        ids = dict.fromkeys(f.fact_id for f in self.event_facts(topic))
        ids.update(dict.fromkeys(i for t in seen if t.role == "user" for i in t.fact_ids))
        ids.update(dict.fromkeys(i for t in seen for d in t.doc_ids if d in self.documents
                                 for i in self.documents[d].fact_ids if i in self.facts))
        return [self.facts[i].value for i in ids if i in self.facts]

    def generate(self, prompt: str, context: dict[str, Any], sample: int = 0) -> Chain[str]:
        """One model call: yielded to the round runner, which sends back the validated output."""
        out = yield CallSpec(prompt, context, TurnText, STAGE, self.persona.persona_id, sample)
        return out.text.strip()


def relativetime_in(text: str, phrase: str) -> bool:
    """True when the relative-time phrase occurs in `text` (whole words, any case)."""
    return mentions(text, phrase)


def fallback_reply(min_words: int) -> str:
    """A generic, fact-free reply of at least `min_words` words."""
    out: list[str] = []
    i = 0
    while len(" ".join(out).split()) < min_words:
        out.append(FALLBACK_REPLY[i % len(FALLBACK_REPLY)])
        i += 1
    return " ".join(out)


def turn_gap(role: str, rng: random.Random, hurried: bool) -> dt.timedelta:
    """Time before a turn: a user takes 1-8 minutes to write, the assistant 10-60 seconds; late in the
    evening everything is quicker (10-40 seconds) so the conversation stays on its day."""
    if hurried:
        return dt.timedelta(seconds=rng.randint(10, 40))
    seconds = rng.randint(60, 480) if role == "user" else rng.randint(10, 60)
    return dt.timedelta(seconds=seconds)
