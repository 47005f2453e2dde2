"""The offline narrators' surface realizer: English morphology and small syntactic operations on verb phrases
and noun phrases, so sentences are built from a plan (who, what happened, when, how it went) rather than pasted
from fixed strings.

Verb forms come from `lemminflect` (had, sorted out, going), articles and number words from `inflect`. A plan's
title is a base-form verb phrase (`have lunch with Charlie Eze from IT`); `past`, `gerund` and `participle`
inflect its head verb, `object_np` takes the thing it is about (`lunch with Charlie Eze`), `short_np` a handle
for referring back to it (`the lunch`).
"""

from __future__ import annotations

import functools
import random
import re

from lemminflect import getAllLemmas, getInflection

from tasks.common.english import INFLECT

_ENGINE = INFLECT
_IRREGULAR_FALLBACK = {"be": ("was", "been", "being"), "have": ("had", "had", "having"), "do": ("did", "done", "doing")}
PARTICLES = frozenset("out off by up over on in down back through around away".split())
DETERMINERS = frozenset("a an the my your his her our their this that these those some".split())
PREPOSITIONS = frozenset("at with from in on for about by to of near".split())


@functools.lru_cache(maxsize=4096)
def inflected(verb: str, tag: str) -> str:
    """`verb` (a base form) in the Penn tag's form: VBD past, VBN participle, VBG gerund, VBZ third person."""
    low = verb.lower()
    forms = getInflection(low, tag)
    if forms:
        return forms[0]
    fallback = _IRREGULAR_FALLBACK.get(low)
    if fallback and tag in ("VBD", "VBN", "VBG"):
        return fallback[("VBD", "VBN", "VBG").index(tag)]
    return low


@functools.lru_cache(maxsize=65536)
def _head(phrase: str, tag: str) -> str:
    """`phrase` with its head verb inflected, and the head of each verb phrase coordinated with it (`stretch and
    rest properly` -> `stretching and resting properly`, `print or save the tickets` -> `printing or saving the
    tickets`); not a verb inside a clause of its own (`note anything that asks you to reply or act`)."""
    words = phrase.split()
    if not words:
        return phrase
    out = [inflected(words[0], tag)]
    clause = ""  # the last subordinating word: a coordinated verb past it belongs to that clause
    for i, w in enumerate(words[1:], 1):
        after = words[i + 1] if i + 1 < len(words) else ""
        takes_object = after.startswith("{") or after.lower() in DETERMINERS | _OBJECTS
        relative = clause in ("that", "which", "who") and takes_object  # `the things that cannot move first and fit
        if words[i - 1] in ("and", "or") and _base_verb(w) and (not clause or relative):  # {np} around them`
            w = inflected(w, tag)
        clause = w.lower() if w.lower() in _SUBORDINATORS else clause
        out.append(w)
    return " ".join(out)


_SUBORDINATORS = frozenset("that when who what which if whether while where because so to".split())
_OBJECTS = frozenset("it them him her me us everything something anything one".split())
_STEP_VERBS = frozenset("rest save book plan keep fit drink call check note try stretch walk text message "
                        "write ask eat bring set".split())
"""Verbs the suggestions coordinate that are also nouns (`rest`, `book`): read as verbs after `and` or `or`."""


@functools.lru_cache(maxsize=4096)
def _base_verb(word: str) -> bool:
    """True for a lower-case verb base form that is no noun or adjective (`ask`, `eat`), or one of the suggestions'
    verbs that are nouns too (`rest`, `book`): a plural noun, a determiner or a noun like `amount` is not."""
    if word in _STEP_VERBS:
        return True
    lemmas = getAllLemmas(word) if word.isalpha() and word.islower() else {}
    return word in lemmas.get("VERB", ()) and len(lemmas) == 1


def past(vp: str) -> str:
    """`have lunch with Ann` -> `had lunch with Ann`; `sort out the bill` -> `sorted out the bill`."""
    return _head(vp, "VBD")


def participle(vp: str) -> str:
    """`see the Night Owls` -> `seen the Night Owls`."""
    return _head(vp, "VBN")


_ING_VERBS = frozenset({"bring", "sing", "ring", "string", "swing", "cling", "fling", "sting", "wring", "spring"})


def bare(value: str) -> str:
    """`value` without its leading article (`an itchy rash` -> `itchy rash`)."""
    return re.sub(r"^(?:a|an|the)\s+", "", value.strip(), flags=re.IGNORECASE)


def is_gerund(word: str) -> bool:
    """True for an -ing form (`bringing`, `noting`), not a verb that ends in -ing (`bring`)."""
    w = word.lower()
    return w.endswith("ing") and w not in _ING_VERBS and len(w) > 4


def gerund(vp: str) -> str:
    """`host Kim for a quiz night` -> `hosting Kim for a quiz night`."""
    return _head(vp, "VBG")


def third(vp: str) -> str:
    """`keep a log` -> `keeps a log`."""
    return _head(vp, "VBZ")


def object_np(vp: str) -> str:
    """What a plan's verb phrase is about: its words after the head verb and any particle (`sort out the vet
    bill` -> `the vet bill`, `have lunch with Ann` -> `lunch with Ann`, `call Ann about the weekend` -> `the call
    with Ann about the weekend` is not attempted: a verb taking a person gives `Ann about the weekend`)."""
    words = vp.split()[1:]
    while words and words[0].lower() in PARTICLES | {"to", "a", "on"} and len(words) > 1 and words[0].lower() != "a":
        words = words[1:]
    return " ".join(words)


_CUT = re.compile(r"\s+(?:at|with|from|in|on|for|about|by|near|to)\s+.*$")


def short_np(vp: str) -> str:
    """A definite handle for what a plan is about, to refer back to it (`the vet bill`, `the lunch`, `the
    concert`, `the weekly shop`); a bare proper name gives `that` + the plan's noun (`the visit`)."""
    words = vp.split()
    verb = words[0].lower() if words else ""
    noun = NOMINAL.get(verb)
    np = _CUT.sub("", object_np(vp)).strip()
    tokens = np.split()
    if noun and (not tokens or tokens[0][:1].isupper() or verb in ("see", "visit", "call", "host", "meet", "spend")):
        return f"the {noun}"
    while tokens and tokens[0].lower() in ("for", "to", "about", "with", "on", "at", "in"):  # `ask for a raise`
        tokens = tokens[1:]
    np = " ".join(tokens)
    if not tokens:
        return f"the {noun or 'plan'}"
    first = tokens[0].lower()
    if first in ("a", "an", "some"):
        tokens = tokens[1:]
    elif first in DETERMINERS:
        return np
    elif tokens[0][:1].isupper():
        return f"the {noun or 'plan'}"
    return "the " + " ".join(tokens)


NOMINAL = {
    "call": "call", "visit": "visit", "host": "evening", "see": "appointment", "meet": "meeting",
    "spend": "session", "volunteer": "volunteering", "try": "new place", "adopt": "adoption", "join": "membership",
    "buy": "purchase", "move": "move", "apply": "application", "ask": "conversation", "celebrate": "celebration",
    "go": "outing", "take": "trip", "get": "meeting", "stop": "visit", "start": "start", "kick": "project",
    "attend": "event", "book": "booking", "run": "race", "sell": "sale", "finish": "finish", "plan": "plan",
}
"""The noun for what a plan did when its object cannot name it (`call Ann about the weekend` -> `the call`)."""


@functools.lru_cache(maxsize=16384)
def a(noun_phrase: str) -> str:
    """`hour` -> `an hour`; a phrase that already has a determiner is left as it is."""
    first = noun_phrase.split()[0].lower() if noun_phrase.split() else ""
    return noun_phrase if first in DETERMINERS or noun_phrase[:1].isupper() else _ENGINE.a(noun_phrase)


@functools.lru_cache(maxsize=16384)
def indefinite(noun_phrase: str) -> str:
    """`Honda Civic` -> `a Honda Civic`, `upright piano` -> `an upright piano`: always with `a`/`an` (inflect),
    for a phrase that names a kind of thing even when it is capitalised (a make and model)."""
    return _ENGINE.a(noun_phrase)


@functools.lru_cache(maxsize=16384)
def plural(noun: str, n: int = 2) -> str:
    """`knife` -> `knives` unless n is 1."""
    return noun if n == 1 else _ENGINE.plural_noun(noun)


def number(n: int) -> str:
    """14 -> `fourteen`."""
    return _ENGINE.number_to_words(n)


def listed(items: list[str], conj: str = "and") -> str:
    """`a`, `a and b`, `a, b and c`."""
    items = [i for i in items if i]
    if len(items) <= 2:
        return f" {conj} ".join(items)
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


def capital(text: str) -> str:
    """`text` with its first character upper-cased."""
    return text[:1].upper() + text[1:]


def uncap(text: str) -> str:
    """`text` with its first character lower-cased, unless it starts with `I`, an acronym or what looks like a
    name (a word no English dictionary entry covers, or one of the words that are also common first names)."""
    if not text or text.startswith(("I ", "I'", "I,")) or text[1:2].isupper():
        return text
    first = re.sub(r"[^\w'-]", "", text.split()[0])
    low = first.lower()
    if low.partition("'")[0] in COMMON_STARTS | CONTRACTED:  # `It's knocked me`, `They're`: no name
        return text[:1].lower() + text[1:]
    second = text.split()[1] if len(text.split()) > 1 else ""
    if first[:1].isupper() and low not in COMMON_STARTS and second[:1].isupper():  # `Fresh Market`, `Blue Door`
        return text
    if first[:1].isupper() and low not in COMMON_STARTS and (low in NAMELIKE or not getAllLemmas(low)):
        return text
    return text[:1].lower() + text[1:]


COMMON_STARTS = frozenset(
    "the a an my it this that there we you so and but also then when after before today yesterday last on in at "
    "about one just honestly anyway still what how could can should would is are was do does did any if".split())
CONTRACTED = frozenset("he she they who where here let".split())
"""Words that open a contraction (`she's`, `they're`, `let's`) and are no name."""
NAMELIKE = frozenset("grace rose mark bill will may june dawn faith hope joy rob pat sue ray jack frank victor "
                     "amber ruby iris jade pearl ivy holly olive august sky river summer autumn sam max bob ted "
                     "art don dean drew lee gene chase hunter miles neil glen dale cliff lance wade sandy penny daisy "
                     "lily violet crystal carol heath robin kim".split())
"""Dictionary words that are also first names: a sentence starting with one keeps its capital."""


def sentence(text: str, end: str = ".") -> str:
    """A capitalised sentence: single spaces, no space before punctuation, ending with `end` unless it has a
    stop already."""
    text = re.sub(r"\s+([,.!?:;])", r"\1", re.sub(r"\s+", " ", text)).strip().rstrip(",;:")
    if not text:
        return ""
    return capital(text if text[-1:] in ".!?" else text + end)


def referred(text: str, specific: str, generic: str) -> str:
    """`text` naming the event by its details once (`the lunch with Charlie`) and by its kind after that (`the
    lunch`), as people do; a sentence-initial mention keeps its capital."""
    if not specific or specific == generic:
        return text
    first = text.lower().find(specific.lower())
    if first < 0:
        return text
    head, tail = text[: first + len(specific)], text[first + len(specific):]
    noun = re.escape(generic.split()[-1]) if generic.split() else ""  # `the trail running session` -> `the session`
    pattern = re.escape(specific) + (rf"(?:\s+{noun}\b)?" if noun else "")

    def other(m: re.Match) -> str:
        return capital(generic) if m.group(0)[:1].isupper() and generic[:1].islower() and not specific[:1].isupper() \
            else generic
    tail = re.sub(pattern, other, tail, flags=re.IGNORECASE)
    return head + tail


def pick(rng: random.Random, *options: str) -> str:
    """One of `options` (empty strings allowed: "say nothing here")."""
    return rng.choice(options)


_YOU = ((r"\bI am\b", "you are"), (r"\bI'm\b", "you're"), (r"\bI wasn't\b", "you weren't"), (r"\bwas I\b", "were you"),
        (r"\bAm I\b", "Are you"), (r"\bam I\b", "are you"), (r"\bI was\b", "you were"), (r"\bI've\b", "you've"),
        (r"\bI'll\b", "you'll"), (r"\bI'd\b", "you'd"), (r"\bI\b", "you"), (r"\bmy\b", "your"),
        (r"\bMy\b", "Your"), (r"\bme\b", "you"), (r"\bmine\b", "yours"), (r"\bmyself\b", "yourself"),
        (r"\bwe\b", "you"), (r"\bWe\b", "You"), (r"\bour\b", "your"), (r"\bOur\b", "Your"))


@functools.lru_cache(maxsize=65536)
def second_person(text: str) -> str:
    """`I owe the clinic 40` -> `you owe the clinic 40`; the user's `you` after a verb is the assistant, said back
    as `me` (`I wanted to tell you` -> `you wanted to tell me`)."""
    text = re.sub(_OBJECT_YOU, "\\1 \x00", text)
    for pattern, repl in _YOU:
        text = re.sub(pattern, repl, text)
    return text.replace("\x00", "me")


_SUBJECT_YOU = (r"\byou(?= (?!(?:to|a|an|the|that|this|and|or|but|for|with|about|in|on|at|up|down|back|off|out|"
                r"again|too|as|so|if|when|from|into|over|know|feel|like|well|all|both|there|here|now|then|today|"
                r"later|yet|know|can't)\b)[a-z])")
"""A `you` followed by what is not a preposition, article or conjunction: the subject of its verb (`what you
made`, `someone you trust`), said back as `I`, not `me` (`whoever needs you`, `to see you again`)."""
_OBJECT_YOU = (r"\b(help|helps|helped|need|needs|needed|tell|tells|told|ask|asks|asked|give|gives|gave|show|shows|"
               r"showed|let|lets|make|makes|made|remind|reminds|reminded|thank|thanks|get|gets|got|keep|keeps|kept|"
               r"leave|leaves|left|take|takes|took|bring|brings|brought|suit|suits|suited|call|calls|called|see|sees|"
               r"saw|meet|meets|met|join|joins|joined|send|sends|sent|cost|costs|cheer|cheers|cheered) you\b")
"""A `you` right after a verb is its object, said back as `me` (`what helped you most` -> `what helped me most`)."""
_ME = ((r"\byou're\b", "I'm"), (r"\byou've\b", "I've"), (r"\byou'll\b", "I'll"), (r"\byou'd\b", "I'd"),
       (r"\byourself\b", "myself"), (r"\byours\b", "mine"), (r"\byour\b", "my"), (r"\bYour\b", "My"),
       (r"\byou are\b", "I am"), (_OBJECT_YOU, r"\1 me"), (_SUBJECT_YOU, "I"), (r"\byou like\b", "I like"),
       (r"\byou\b", "me"))


@functools.lru_cache(maxsize=65536)
def first_person(text: str) -> str:
    """The assistant's words said back by the user: `how the gym changes your week` -> `how the gym changes my
    week` (a bare `you` is taken as an object: `whoever needs you` -> `whoever needs me`)."""
    for pattern, repl in _ME:
        text = re.sub(pattern, repl, text)
    return text


@functools.lru_cache(maxsize=4096)
def is_participle(word: str) -> bool:
    """Whether `word` is a past participle and not also the verb's base form ("been", "pictured"; not "put")."""
    low = word.lower()
    return any(low in (getInflection(lemma, "VBN") or ()) and low not in (getInflection(lemma, "VB") or ())
               for lemma in getAllLemmas(low).get("VERB", ()))


_I_D = re.compile(r"\b([Ii])'d((?:\s+(?:never|just|already|always|really|also|only|long))*)\s+([A-Za-z]+)")


def expand_i_d(text: str) -> str:
    """`I'd` written out as what it stands for: "I had" before a past participle ("I had been looking forward"),
    "I would" otherwise ("I would rather"), for a voice that uses no contractions."""
    def full(m: re.Match[str]) -> str:
        verb = "had" if is_participle(m.group(3)) else "would"
        return f"{m.group(1)} {verb}{m.group(2)} {m.group(3)}"

    return _I_D.sub(full, text)
