"""`pattern_memory`: a rule-based memory system, the baseline a careful engineer would write in an afternoon.

It reads a persona's user turns in order and extracts statements of the form holder / attribute / value
with generic English patterns (written from English, not from any narrator's phrase banks):

- possessive copula: "my new employer is X", "Kwame's news is X", "our home is now X", "my doctor turned
  into X", "my last trip: X";
- inverted copula: "X is my employer", "X, that's my news now";
- apposition: "my neighbour Kim Tanaka" (Kim Tanaka's relationship is neighbour);
- first person: "I work at X", "I live in X", "I moved to X", "I started reading X", "I'm a nurse";
- third person: "Ana works at X", "Ana moved to X".

It keeps every value per (holder, attribute) with the turn that stated it, and answers a question when the
question names a holder it knows (the persona's name or "I/my", or another person's name) and an attribute
whose words all occur in the question: the latest value before `question_time`, or the one before it when the
question asks about an earlier value ("before", "previous", "used to"). Multiple choice: the option that best
matches that value, else (no value known) a seeded guess, so it scores chance where it knows nothing.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field

from schemas.qa import Question
from tasks.evaluate.text import content_words, normalize
from tasks.metrics.text import fold, sentences, stems

SELF = "<self>"
_NAME = r"[A-Z][\w.'-]*(?: (?:[A-Z][\w.'-]*|de|da|van|von|del|la))*"
_ATTR = r"(?:[a-z][a-z-]* ){0,2}[a-z][a-z-]*"
_COPULA = (r"(?:is|are|was|'s|has become|became|has changed to|changed to|is now|are now|has moved to|ended up as"
           r"|ended up being|turned into|has turned into|turned out to be|switched to|went to|will be|is going to be)")
_POSSESSIVE = re.compile(
    rf"(?:^|[\s,;:(])(?P<holder>[Mm]y|[Oo]ur|{_NAME}'s|[Hh]is|[Hh]er|[Tt]heir) (?P<attr>{_ATTR})(?: {_COPULA}|:)"
    r"(?: now| currently| officially)?(?: called| named)? (?P<value>[^.;!?]+)")
_INVERTED = re.compile(
    rf"(?:^|, )(?P<value>[^,;:!?]+?),? (?:is|that's|that is|which is|it's)(?: now)? (?P<holder>my|our|{_NAME}'s) "
    rf"(?:new |current )?(?P<attr>{_ATTR})(?: now| going forward| as of now| these days| for now| at the moment)?"
    r"\s*[.!]?$")
_APPOSITION = re.compile(
    rf"\b(?:my|our) (?P<value>(?:old |best |new |close )?(?:[a-z]+ ){{0,2}}(?:friend|buddy|mate|sister|brother|"
    r"mother|mum|mom|father|dad|son|daughter|wife|husband|partner|girlfriend|boyfriend|fiancée?|cousin|aunt|uncle|"
    r"grandmother|grandfather|grandma|grandpa|niece|nephew|neighbour|neighbor|colleague|coworker|boss|manager|"
    rf"flatmate|roommate|doctor|dentist|teacher|coach|landlord)) (?P<holder>{_NAME})")
_FIRST = re.compile(
    r"\bI(?:'ve| have|'m| am)?(?: just| now| finally| recently| officially| also)? "
    r"(?P<verb>work(?:ed|ing)? (?:at|for|as)|live(?:d)? (?:in|at|on)|moved (?:to|into)|started(?: reading| working at"
    r"| working as| at| a)?|joined|switched to|bought|adopted|drive|ride|rely on|use|go to|shop at|volunteer(?:ed)? at"
    r"|signed up (?:for|at)|enrolled (?:in|on)|reading|am reading|play|see|got (?:a|an)|get around (?:with|on|by))"
    r" (?P<value>[^.;!?]+)")
_IDENTITY = re.compile(r"\bI(?:'m| am) (?:now |still |currently )?(?:a|an|the) (?P<value>[a-z][a-z -]+)")
_THIRD = re.compile(
    rf"\b(?P<holder>{_NAME}) (?:now |just |recently )?(?P<verb>works (?:at|for|as)|lives in|moved to|started|joined"
    r"|is training for|got|switched to|is learning to|adopted|bought) (?P<value>[^.;!?]+)")
_CUT = re.compile(r",(?!\d)| - | and then | but | because | so that | so | which | who | since | after | before | when "
                  r"| while | though | although | today| yesterday| this (?:week|morning|evening)| last (?:week|month)"
                  r"| now\b| again\b| lately| finally| at last| going forward| as of now| at this point"
                  r"| for now| these days| to be fair"
                  r"| for the record| from now on| lol\b")
_LEADING = re.compile(r"^(?:now |currently |officially |actually |still )+")
_PAST = re.compile(r"\b(?:before|previous|previously|used to|earlier|originally|prior|former|formerly|old|first)\b")
_PRONOUNS = {"his", "her", "their"}
_RELATION = ("relationship",)


@dataclass(frozen=True)
class Statement:
    holder: str
    attribute: tuple[str, ...]
    value: str
    turn_id: str
    timestamp: dt.datetime


def _clean(value: str) -> str:
    value = _LEADING.sub("", fold(value).strip())
    cut = _CUT.search(value)
    value = value[:cut.start()] if cut else value
    words = value.split()[:8]
    return " ".join(words).strip(" \"'")


def _holder(raw: str, last_name: str | None) -> str | None:
    low = raw.lower()
    if low in ("my", "our"):
        return SELF
    if low in _PRONOUNS:
        return last_name
    return normalize(raw.removesuffix("'s"))


def extract(text: str, turn_id: str = "", timestamp: dt.datetime | None = None) -> list[Statement]:
    """The holder / attribute / value statements the patterns find in one user turn."""
    out: list[Statement] = []
    last_name: str | None = None
    when = timestamp or dt.datetime.min.replace(tzinfo=dt.UTC)
    for sentence in sentences(text):
        found: list[tuple[str | None, str, str]] = []
        for m in _POSSESSIVE.finditer(sentence):
            found.append((_holder(m["holder"], last_name), m["attr"], m["value"]))
        m = _INVERTED.search(sentence)
        if m:
            found.append((_holder(m["holder"], last_name), m["attr"], m["value"]))
        for m in _APPOSITION.finditer(sentence):
            found.append((normalize(m["holder"]), "relationship", m["value"]))
        for m in _FIRST.finditer(sentence):
            found.append((SELF, m["verb"], m["value"]))
        for m in _IDENTITY.finditer(sentence):
            found.append((SELF, "am", m["value"]))
        for m in _THIRD.finditer(sentence):
            if m["holder"] not in ("I",):
                found.append((normalize(m["holder"]), m["verb"], m["value"]))
        for holder, attr, value in found:
            value, key = _clean(value), _RELATION if attr == "relationship" else _attribute(attr)
            if holder and value:
                out.append(Statement(holder, key, value, turn_id, when))
        names = re.findall(_NAME, sentence[1:]) if len(sentence) > 1 else []
        last_name = normalize(names[-1]) if names else last_name
    return out


@dataclass
class PatternMemory:
    """One persona's store, filled from its user turns in time order; answers questions as of their time."""

    persona_name: str = ""
    store: dict[tuple[str, tuple[str, ...]], list[Statement]] = field(default_factory=lambda: defaultdict(list))

    def read(self, turns) -> PatternMemory:
        for t in sorted((t for t in turns if t.role == "user"), key=lambda t: (t.timestamp, t.turn_id)):
            for s in extract(t.text, t.turn_id, t.timestamp):
                self.store[(s.holder, s.attribute)].append(s)
        return self

    def facts(self) -> list[Statement]:
        return [s for values in self.store.values() for s in values]

    def _holders(self, question: str) -> set[str]:
        """Who the question asks about: "I/my" or the persona's name, a person it names, or a person named by
        their relationship ("my sister", "Ana's neighbour") when the store knows who that is."""
        asked = normalize(question)
        first = normalize(self.persona_name.split()[0]) if self.persona_name else ""
        own = r"(?:my|" + re.escape(first) + r"(?: s)?)" if first else r"my"
        out = set()
        for (holder, attr), said in self.store.items():
            if holder == SELF or not holder:
                continue
            if re.search(rf"\b{re.escape(holder)}\b", asked) or re.search(rf"\b{re.escape(holder.split()[0])}\b",
                                                                           asked):
                out.add(holder)
            elif attr == _RELATION and said and re.search(
                    rf"\b{own} {re.escape(normalize(said[-1].value).split()[-1])}\b", asked):
                out.add(holder)
        if not out and (re.search(r"\b(?:i|my|me|mine)\b", asked) or (first and re.search(rf"\b{re.escape(first)}\b",
                                                                                          asked))):
            out.add(SELF)
        return out

    def lookup(self, question: Question) -> Statement | None:
        """The statement that answers `question` from what was said before its time, or None."""
        holders = self._holders(question.question)
        asked = stems(question.question)
        best, best_score = None, 0
        for (holder, attr), said in self.store.items():
            if holder not in holders or attr[-1] not in asked:
                continue
            earlier = said[:bisect.bisect_left([s.timestamp for s in said], question.question_time)]
            if not earlier:
                continue
            score = (len(set(attr) & asked), -len(set(attr) - asked), earlier[-1].timestamp)
            if best is None or score > best_score:
                best, best_score = earlier, score
        if best is None:
            return None
        if _PAST.search(normalize(question.question)):
            changed = [s for s in best if normalize(s.value) != normalize(best[-1].value)]
            return changed[-1] if changed else best[0]
        return best[-1]

    def answer(self, question: Question) -> tuple[str, list[str]]:
        """The answer and the turn it rests on (none when the store knows nothing that fits)."""
        found = self.lookup(question)
        if question.answer_type == "mcq":
            if found is not None:
                scores = [_match(found.value, o) for o in question.options]
                if max(scores, default=0) > 0:
                    return question.options[scores.index(max(scores))], [found.turn_id]
            return guess(question), []
        return (found.value, [found.turn_id]) if found is not None else ("", [])


def _attribute(words: str) -> tuple[str, ...]:
    """The attribute's content-word stems in order (its head noun last); the words themselves if none."""
    out = tuple(st for w in words.split() for st in stems(w))
    return out or (words,)


def _match(value: str, option: str) -> float:
    """How well a remembered value names an option: 2 for the same phrase, else the share of shared words."""
    v, o = normalize(value), normalize(option)
    if not o:
        return 0.0
    if v == o or f" {o} " in f" {v} ":
        return 2.0
    ow, vw = set(content_words(option)), set(content_words(value))
    return len(ow & vw) / len(ow) if ow else 0.0


def guess(question: Question) -> str:
    """A seeded guess among the options (by the question id): what a system that knows nothing scores."""
    if not question.options:
        return ""
    n = int(hashlib.sha256(("guess:" + question.question_id).encode()).hexdigest()[:8], 16)
    return question.options[n % len(question.options)]
