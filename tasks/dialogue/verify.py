"""Per-turn dialogue checks, used by the dialogue stage (a failing turn is regenerated, then dropped) and
by the per-persona verifier (tasks/verify.py), whose findings land in verifier_findings.

The rules (each a `Problem.check` name):

- `turn_carries_fact`: every fact a turn claims (`fact_ids`) is carried: one of its surface forms, or
  its value, occurs as a whole phrase (tasks/common/facttext.py), or the turn says it in other words as the
  realizer recorded (a REALIZED_MODES mention with its span: `TurnScope.realized`).
- `turn_fact_not_valid`: a claimed fact holds on the turn's persona-local day
  (valid_from <= day < valid_to): stating a stale or not-yet-true value as current contradicts the store.
- `turn_anticipates_fact`: the text carries a surface form of a fact that only becomes true after the
  turn's day (no fact valid by then has any such form): the turn knows the future. Only a specific form
  counts: the fact's first (most specific) surface form, naming something (it has a capital letter), in a
  text about the fact's subject (the persona, or a text naming the subject's first name). Secondary forms
  ("Riverside Arena" of "cancelled evening at Riverside Arena") and plain phrases ("the kitchen") also
  name places, hobbies and things that exist before the fact does. An assistant turn saying back a form the
  session told it (the user's checked turn said it) knows no future.
- `time_ref_in_text` / `relative_time_mismatch`: each recorded TimeRef's phrase occurs in the text and,
  said on the turn's day, can name its date (tasks/dialogue/relativetime.py); every other past relative-time phrase
  the text contains can name one of the topic's dates (its bullet's event, its time refs) or the day itself.
- `assistant_reveals_untold`: an assistant turn carries a surface form of a world fact that the
  assistant has not been told in this session (the user turns so far and the documents uploaded).
- `pastes_document`: a turn that cites documents copies a run of PASTE_RUN or more consecutive words of
  one of them (talk about a document, do not paste it). Fact surface forms are not counted as copied:
  both texts must state the fact, so its surface form and the clause around it may coincide.
- `upload_marker`: an opening user turn that shares documents contains `[Upload <doc_id>]` for each.
- `assistant_length`: an assistant reply's word count is outside its category's range
  (tasks/dialogue/shape.py); the final verifier reports it as a warning.
- `turn_presupposes_called_off`: in the dialogue stage, a turn about an event that did not take place
  (`TurnScope.called_off`) whose sentences naming it carry a cue that it happened (a review, the staff, `how was
  it`: tasks/dialogue/agreement.py HAPPENED_CUES) is regenerated; the final verifier leaves the scope empty, as
  history_findings checks the whole history.
"""

from __future__ import annotations

import ast
import datetime as dt
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from schemas.corpus import REALIZED_MODES, Corpus, Document, Turn
from schemas.profile import Persona
from schemas.world import Fact, World
from tasks.common.facttext import event_title, first_name, is_acronym, mentions
from tasks.common.timeutil import local_date
from tasks.dialogue.agreement import happened_cues
from tasks.dialogue.relativetime import agrees, find, resolve
from tasks.dialogue.shape import shape_of
from tasks.sources.verify import Problem

PASTE_RUN = 12
"""Consecutive words shared with a cited document that count as pasting it."""
WARNINGS = frozenset({"assistant_length"})
"""Checks the final verifier reports as warnings rather than errors."""
_WORD = re.compile(r"\w+(?:['’]\w+)*")


@dataclass
class TurnScope:
    """What a turn is checked against: who says it, when, and what the assistant has heard so far."""

    persona: Persona
    facts: dict[str, Fact]
    """The world's facts by id."""
    day: dt.date
    """The persona-local date of the turn."""
    heard: str = ""
    """What the assistant has been told in this session: the user turns up to and including the message
    it answers, plus the bodies of documents uploaded in the session."""
    documents: dict[str, Document] = field(default_factory=dict)
    """The persona's documents by id."""
    topic_dates: tuple[dt.date, ...] = ()
    """Dates of the events the turn's topic is about (its bullet's event date, callback dates)."""
    topic_text: str = ""
    """Titles and narratives of the events the topic is about: what they name is known on the day (a
    plan to try the Golden Dragon names it before a later fact makes it the favourite restaurant)."""
    realized: frozenset[str] = frozenset()
    """Facts the turn says in other words (a recorded paraphrased, split, implied or corrected mention with its
    span): claimed without a surface form (`turn_carries_fact` takes the realizer's record)."""
    called_off: tuple[str, ...] = ()
    """The names of the topic's event (its plan's places and people) when it did not take place: a sentence
    naming them may not presuppose it happened (`turn_presupposes_called_off`)."""


def turn_problems(turn: Turn, scope: TurnScope) -> list[Problem]:
    """Everything wrong with one turn (empty when it may ship)."""
    claimed = [scope.facts[i] for i in turn.fact_ids if i in scope.facts]
    out = [Problem("turn_carries_fact", f"turn claims {f.fact_id} but carries none of its surface forms")
           for f in claimed if not carries_fact(turn.text, f) and f.fact_id not in scope.realized]
    out += [Problem("turn_fact_not_valid", f"turn states {f.fact_id} on {scope.day}, outside its valid time "
                    f"{f.valid_from}..{f.valid_to or ''}") for f in claimed if not holds_on(f, scope.day)]
    index = form_index(scope.facts)
    forms = index.forms_in(turn.text)
    out += anticipations(forms, index, turn.text, scope, scope.heard if turn.role == "assistant" else "")
    out += stale_statements(forms, index, turn.text, scope)
    out += time_problems(turn, scope)
    if turn.role == "assistant":
        out += untold(forms, index, scope.heard)
    out += document_problems(turn, scope, forms)
    out += length_problems(turn)
    out += called_off_problems(turn.text, scope.called_off)
    return out


def called_off_problems(text: str, names: Sequence[str]) -> list[Problem]:
    """`turn_presupposes_called_off` when a sentence of `text` naming the called-off event (`names`) carries a
    cue that it happened."""
    said = " ".join(s for s in _SENTENCES.split(text) if any(mentions(s, n) for n in names)) if names else ""
    cues = happened_cues(said) if said else []
    return [Problem("turn_presupposes_called_off", "the topic's event did not take place, but the turn presupposes "
                    f"it happened: {'; '.join(f'{what} ({words!r})' for what, words in cues)}")] if cues else []


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def carries_fact(text: str, fact: Fact) -> bool:
    """True when `text` contains one of the fact's surface forms, or its value, as a whole phrase."""
    low = text.lower()
    return any(occurs_form(form.strip(), text, low) for form in [*fact.surface_forms, fact.value])


def occurs_form(form: str, text: str, low: str) -> bool:
    """Whether `form` occurs in `text` (lower-cased: `low`) as a whole phrase; acronyms (`IT`) only in
    capitals, so that every "it" is not a mention of working in IT."""
    return bool(spans(form, text)) if is_acronym(form) else occurs(form.lower(), low)


def holds_on(fact: Fact, day: dt.date) -> bool:
    """True when the fact is the current value on `day` (valid_from <= day < valid_to)."""
    return fact.valid_from <= day and (fact.valid_to is None or day < fact.valid_to)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def spans(key: str, low: str) -> list[tuple[int, int]]:
    """Where the lower-cased phrase `key` occurs in the lower-cased `low` as a whole phrase (not inside a
    longer word): plain substring search with boundary tests, no regex to compile."""
    out, i = [], low.find(key) if key else -1
    while i >= 0:
        j = i + len(key)
        if (i == 0 or not _is_word(low[i - 1])) and (j == len(low) or not _is_word(low[j])):
            out.append((i, j))
        i = low.find(key, i + 1)
    return out


def occurs(key: str, low: str) -> bool:
    """Whether the lower-cased phrase `key` occurs in the lower-cased `low` as a whole phrase."""
    return bool(key) and key in low and bool(spans(key, low))


class FormIndex:
    """The surface forms of a fact store, indexed by their longest word (the rarest, as a rule) for fast
    whole-phrase lookup: only forms whose key word is among a text's words are searched for."""

    def __init__(self, facts: dict[str, Fact]) -> None:
        self.first_known: dict[str, dt.date] = {}
        self.owners: dict[str, list[str]] = defaultdict(list)
        self.acronyms: dict[str, str] = {}
        for fact in facts.values():
            for form in fact.surface_forms:
                key = form.strip().lower()
                if not key:
                    continue
                if is_acronym(form):
                    self.acronyms[key] = form.strip()
                self.owners[key].append(fact.fact_id)
                known = self.first_known.get(key)
                self.first_known[key] = fact.valid_from if known is None else min(known, fact.valid_from)
        self.by_word: dict[str, list[str]] = defaultdict(list)
        self.wordless: list[str] = []
        for key in self.first_known:
            words = _WORD.findall(key)
            (self.by_word[max(words, key=len)] if words else self.wordless).append(key)
        self.key_words = frozenset(self.by_word)
        self.specific: dict[str, list[Fact]] = defaultdict(list)
        self.holders: dict[str, list[Fact]] = defaultdict(list)  # form -> the facts that have it
        self.history: dict[tuple[str, str], list[Fact]] = defaultdict(list)  # (subject, attribute) -> facts in order
        for fact in facts.values():
            first = fact.surface_forms[0].strip() if fact.surface_forms else ""
            if first.lower() != first:
                self.specific[first.lower()].append(fact)
            for form in dict.fromkeys(f.strip().lower() for f in fact.surface_forms):
                self.holders[form].append(fact)
            self.history[(fact.subject, fact.attribute)].append(fact)
        self.starts = {key: [f.valid_from for f in facts_] for key, facts_ in self.history.items()}

    def current(self, key: tuple[str, str], day: dt.date) -> Fact | None:
        """The last fact of `key` (in the store's order, which is time order) that holds on `day`: found from the
        facts begun by then backwards, so the cost does not grow with the history (a long life's thousands)."""
        history = self.history.get(key, [])
        for n in range(bisect_right(self.starts.get(key, []), day) - 1, -1, -1):
            if holds_on(history[n], day):
                return history[n]
        return None

    def live(self, form: str, day: dt.date) -> bool:
        """Whether a fact holding as its key's current value on `day` has the (lower-cased) surface form."""
        return any(self.current((f.subject, f.attribute), day) is f for f in self.holders.get(form, ()))

    def forms_in(self, text: str) -> list[str]:
        """The (lower-cased) surface forms that occur in `text` as whole phrases."""
        low = text.lower()
        hits = self.key_words.intersection(_WORD.findall(low))
        keys = [k for w in hits for k in self.by_word[w]] + self.wordless
        return sorted(k for k in keys if self.occurs(k, text, low))

    def occurs(self, key: str, text: str, low: str) -> bool:
        """Whether the indexed form `key` occurs in `text` (acronyms in capitals only)."""
        return bool(spans(self.acronyms[key], text)) if key in self.acronyms else occurs(key, low)


_INDEXES: dict[int, tuple[dict[str, Fact], int, FormIndex]] = {}


def form_index(facts: dict[str, Fact]) -> FormIndex:
    """The FormIndex of a fact store, built once per dict (the same dict is shared by a persona's scopes)."""
    cached = _INDEXES.get(id(facts))
    if cached is not None and cached[0] is facts and cached[1] == len(facts):
        return cached[2]
    if len(_INDEXES) >= 16:
        _INDEXES.clear()
    index = FormIndex(facts)
    _INDEXES[id(facts)] = (facts, len(facts), index)
    return index


def anticipations(forms: list[str], index: FormIndex, text: str, scope: TurnScope, heard: str = "") -> list[Problem]:
    """Specific surface forms in the text that only some later fact has (the turn knows the future); not one the
    assistant says back from what it heard in the session (`heard`: the user said it, and that turn was checked)."""
    low, known, out = text.lower(), scope.topic_text.lower(), []
    told = heard.lower()
    for form in forms:
        if index.first_known[form] <= scope.day or index.occurs(form, scope.topic_text, known) \
                or heard and index.occurs(form, heard, told):
            continue
        about = [f for f in index.specific.get(form, ()) if f.subject == scope.persona.name
                 or occurs(first_name(f.subject).lower(), low)]
        if about:
            out.append(Problem("turn_anticipates_fact", f"turn says {form!r} on {scope.day}, but only "
                               f"{', '.join(index.owners[form])} (true from {index.first_known[form]}) has it"))
    return out


PAST_WORDING = re.compile(
    r"\b(?:used to|previous(?:ly)?|former(?:ly)?|old|before|anymore|any more|no longer|was|were|had been|ago|"
    r"until|instead of|from|changed|switched|moved|replaced|then|back then|once|miss|missed)\b", re.IGNORECASE)
"""Wording that puts a value in the past ("my old flat", "I used to ..."): naming a superseded value so
is no contradiction."""


PRESENT_CUE = r"\b(?:is|are|am|['’]s|['’]m|now|currently|still|live|lives|living|work|works|working|stay|stays)\b"
"""Wording that states something as current ("I still live in ...", "my gym is ...")."""


def stated_as_current(form: str, text: str) -> bool:
    """Whether a sentence of `text` puts a present-tense cue shortly before `form`."""
    cue = re.compile(PRESENT_CUE + r"[^.!?\n]{0,40}?(?<!\w)" + re.escape(form) + r"(?!\w)", re.IGNORECASE)
    return cue.search(text) is not None


def stale_statements(forms: list[str], index: FormIndex, text: str, scope: TurnScope) -> list[Problem]:
    """Specific surface forms of a superseded value stated as current: the fact no longer holds on the
    turn's day, another value of the same subject's attribute does, the text puts a present-tense cue
    before the old value ("I still live in Boston"), names neither the new value nor any past wording,
    and the topic's own events do not name it (`turn_states_stale_fact`)."""
    if not forms or PAST_WORDING.search(text):
        return []
    known, out = scope.topic_text.lower(), []
    for form in forms:
        if index.live(form, scope.day) or index.occurs(form, scope.topic_text, known):
            continue
        for fact in index.specific.get(form, ()):
            now = index.current((fact.subject, fact.attribute), scope.day)
            ended = fact.valid_to is not None and fact.valid_to <= scope.day
            if (ended and now is not None and now.fact_id != fact.fact_id and not carries_fact(text, now)
                    and stated_as_current(form, text)):
                out.append(Problem("turn_states_stale_fact", f"turn says {form!r} on {scope.day}, but "
                                   f"{fact.fact_id} ended on {fact.valid_to} and {now.fact_id} "
                                   f"({now.value!r}) holds now"))
                break
    return out


def untold(forms: list[str], index: FormIndex, heard: str) -> list[Problem]:
    """Surface forms of world facts in an assistant turn that the session has not told the assistant."""
    low = heard.lower()
    return [
        Problem("assistant_reveals_untold", f"assistant says {form!r} ({', '.join(index.owners[form])}), "
                "which it was not told in this session")
        for form in forms if not index.occurs(form, heard, low)
    ]  # fmt: skip


_UNTOLD = re.compile(  # the message `untold` writes
    r"^assistant says (?P<form>'[^']*'|\"[^\"]*\") \(")


def untold_forms(problems: Sequence[Problem]) -> list[str]:
    """The fact surface forms a rejected assistant wording said without being told them (`untold`'s messages)."""
    found = (_UNTOLD.match(p.message) for p in problems if p.check == "assistant_reveals_untold")
    return [ast.literal_eval(m.group("form")) for m in found if m]


def time_problems(turn: Turn, scope: TurnScope) -> list[Problem]:
    """Recorded time refs occur and agree; unrecorded past phrases agree with a topic date or the day."""
    out = []
    for ref in turn.time_refs:
        if not mentions(turn.text, ref.phrase):
            out.append(Problem("time_ref_in_text", f"time ref {ref.phrase!r} does not occur in the text"))
        elif not agrees(ref.phrase, ref.date, scope.day):
            out.append(Problem("relative_time_mismatch", f"{ref.phrase!r} said on {scope.day} cannot name {ref.date}"))
    recorded = {" ".join(r.phrase.lower().split()) for r in turn.time_refs}
    for phrase in find(turn.text):
        if " ".join(phrase.lower().split()) in recorded:
            continue
        today = resolve(phrase, scope.day) == (scope.day, scope.day)  # "today", "this morning": the present
        if not any(agrees(phrase, d, scope.day) for d in (*scope.topic_dates, *([scope.day] if today else []))):
            dates = ", ".join(str(d) for d in scope.topic_dates) or "none"
            out.append(Problem("relative_time_mismatch", f"{phrase!r} said on {scope.day} names none of the "
                               f"topic's dates ({dates})"))
    return out


@lru_cache(maxsize=512)
def _runs(body: str, n: int = PASTE_RUN) -> frozenset[tuple[str, ...]]:
    """Every run of `n` consecutive lower-cased words of a text."""
    words = _WORD.findall(body.lower())
    return frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def pasted(text: str, body: str, n: int = PASTE_RUN, exempt: tuple[str, ...] = ()) -> bool:
    """True when `text` repeats `n` or more consecutive words of `body` (case and punctuation ignored);
    the lower-cased phrases in `exempt` break runs instead of counting as copied."""
    runs, low = _runs(body, n), text.lower()
    cuts = sorted(span for key in exempt for span in spans(key, low))
    start, parts = 0, []
    for i, j in cuts:
        parts.append(low[start:i])
        start = max(start, j)
    for part in [*parts, low[start:]]:
        words = _WORD.findall(part)
        if any(tuple(words[i : i + n]) in runs for i in range(len(words) - n + 1)):
            return True
    return False


def document_problems(turn: Turn, scope: TurnScope, forms: Sequence[str] = ()) -> list[Problem]:
    """Pasted documents (fact surface forms `forms` aside), and upload markers missing from an opening
    user turn that shares documents."""
    exempt = tuple(forms)
    out = [Problem("pastes_document", f"turn copies {PASTE_RUN}+ consecutive words of {d}")
           for d in turn.doc_ids if d in scope.documents and pasted(turn.text, scope.documents[d].body, exempt=exempt)]
    if turn.role == "user" and turn.kind == "initial":
        out += [Problem("upload_marker", f"opening turn shares {d} without `[Upload {d}]`")
                for d in turn.doc_ids if f"[Upload {d}]" not in turn.text]
    return out


def length_problems(turn: Turn) -> list[Problem]:
    """An assistant reply whose length is outside its category's range."""
    if turn.role != "assistant":
        return []
    low, high = shape_of(turn.category, turn.kind).reply_words
    n = len(turn.text.split())
    if low <= n <= high:
        return []
    return [Problem("assistant_length", f"assistant reply has {n} words (expected {low}-{high})")]


def window_start(i: int, window: int | None, step: int = 0) -> int:
    """Where the turns a model call sees start, when the session has `i` turns so far (the user's next turn, or the
    assistant's reply to turns[i - 1]): at least the `window` turns before the last, from a start that moves in
    steps of `step` turns (0: one turn at a time). A start that stays put for `step` turns is what lets a
    session's calls share a growing prefix a prompt cache serves (tasks/llm/prompts.py)."""
    if window is None:
        return 0
    start = max(0, i - 1 - window)
    return start - start % step if step > 0 else start


def call_turns(turns: Sequence[Turn], window: int, step: int, before_last: bool = False) -> dict[str, list[dict]]:
    """What the next model call of a session is given of its turns (before the message the assistant answers, with
    `before_last`), oldest first: `history`, what its prompt shows (from `window_start`), and `recent`, the last
    `window` of them, which the offline narrator reads to keep from repeating itself (narrators/corpus.py)."""
    if not window:
        return {"history": [], "recent": []}
    end = len(turns) - 1 if before_last else len(turns)
    rows = [{"role": t.role, "text": t.text, "kind": t.kind} for t in turns[:end]]
    return {"history": rows[window_start(len(turns), window, step):], "recent": rows[max(0, end - window):]}


def visible(turns: Sequence[Turn], i: int, window: int | None, step: int = 0) -> Sequence[Turn]:
    """What the assistant sees when it writes turns[i]: at least the `window` turns before the message it answers
    (`window_start`), and that message (the whole session so far when `window` is None)."""
    return turns[window_start(i, window, step):i]


def heard_in(seen: Sequence[Turn], documents: dict[str, Document]) -> str:
    """The user's words among `seen` and the bodies of the documents those turns cite."""
    docs = dict.fromkeys(d for t in seen for d in t.doc_ids if d in documents)
    return "\n".join([t.text for t in seen if t.role == "user"] + [documents[d].body for d in docs])


def scopes_for(persona: Persona, world: World, corpus: Corpus, window: int | None = None,
               step: int = 0) -> dict[str, TurnScope]:
    """Each turn's scope, built by walking every session's turns in order: `heard` is what the assistant
    sees (`visible`: the context window of `window` earlier turns in steps of `step`, None for the whole session) of the
    user's words and cited documents; `topic_dates` are the turn's bullet's event date and the dates of
    the time refs recorded so far in the session's turns on the same bullet."""
    facts = {f.fact_id: f for f in world.facts}
    documents = {d.doc_id: d for d in corpus.documents}
    event_dates = {e.event_id: e.date for e in world.events}
    event_texts = {e.event_id: f"{event_title(e, world)}\n{e.narrative}" for e in world.events}
    bullet_dates = {b.bullet_id: event_dates.get(b.event_id, b.date) for b in corpus.bullets}
    bullet_events = {b.bullet_id: b.event_id for b in corpus.bullets}
    realized: dict[str, set[str]] = defaultdict(set)
    for m in corpus.mentions:
        if m.mode in REALIZED_MODES and m.counts and (m.span or m.checked_by == "fact_check"):
            realized[m.evidence_id].add(m.fact_id)
    sessions: dict[str, list[Turn]] = defaultdict(list)
    for turn in corpus.turns:
        sessions[turn.session_id].append(turn)
    scopes: dict[str, TurnScope] = {}
    for unordered in sessions.values():
        turns = sorted(unordered, key=lambda t: (t.timestamp, t.turn_id))
        topic: dict[str | None, list[dt.date]] = defaultdict(list)
        texts: dict[str | None, list[str]] = defaultdict(list)
        for i, turn in enumerate(turns):
            heard = heard_in(visible(turns, i + 1 if turn.role == "user" else i, window, step), documents)
            topic[turn.bullet_id] += [r.date for r in turn.time_refs]
            back = turn.callback_of or (turn.fact_ids[0] if turn.bullet_id is None and turn.fact_ids else None)
            back = facts[back].event_id if back in facts else None  # a callback or a correction: its fact's event
            events = [bullet_events.get(turn.bullet_id), back] + [r.event_id for r in turn.time_refs]
            texts[turn.bullet_id] += [event_texts[e] for e in events if e in event_texts]
            own = [bullet_dates[turn.bullet_id]] if turn.bullet_id in bullet_dates else []
            scopes[turn.turn_id] = TurnScope(
                persona=persona,
                facts=facts,
                day=local_date(persona, turn.timestamp),
                heard=heard,
                documents=documents,
                topic_dates=tuple(dict.fromkeys(own + topic[turn.bullet_id])),
                topic_text="\n".join(dict.fromkeys(texts[turn.bullet_id])),
                realized=frozenset(realized[turn.turn_id]),
            )
    return scopes
