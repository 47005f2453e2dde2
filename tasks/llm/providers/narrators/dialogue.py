"""Offline narrators for the dialogue prompts: user_turn_initial, user_turn_followup, user_turn_filler,
assistant_turn and fact_check.

User turns are assembled sentence by sentence from small combinatorial banks (lead-ins x verb frames x
tails, question leads x cores x tails) around the context's own words (event title, fact clauses,
the outcome detail, the callback phrase, the attachment's sections and points), so a persona-year of
turns does not repeat itself. Every required phrase (`must_include`, `when`, `callback.phrase`,
`paraphrase`, the `[Upload <doc_id>]` marker) is placed verbatim; the sentence count stays inside
`length`; the persona's voice (formality, verbosity, emoji, vocabulary) is applied last. Assistant
replies land inside [min_words, max_words] and name nothing about the user beyond `mentioned` and the
attachment's points.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators.corpus import SAD_EMOJI, band, capital, recent
from tasks.llm.providers.narrators.dialogue_banks import (
    EMOJI,
    POINT_FRAMES,
    REQUEST_EXTRAS,
    REQUEST_FRAMES,
    SECTION_FRAMES,
    SMALL_TALK_OPENERS,
    SMALL_TALK_QUESTIONS,
    SMALL_TALK_VERBS,
    TABLE_FRAMES,
)
from tasks.llm.providers.narrators.realize import expand_i_d, uncap
from tasks.llm.providers.offline import narrator

_EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")
_CONTRACTIONS = (
    (r"\bcan't\b", "cannot"), (r"\bwon't\b", "will not"), (r"\bshan't\b", "shall not"), (r"\blet's\b", "let us"),
    (r"n't\b", " not"), (r"\bI'm\b", "I am"), (r"'re\b", " are"), (r"'ve\b", " have"), (r"'ll\b", " will"),
    (r"\bI'd\b", "I would"), (r"\b(it|that|what|there|here|he|she|who|where|how)'s\b", r"\1 is"),
)
_ABBREV = re.compile(r"\b(Dr|Mr|Mrs|Ms|St|Prof|Mt|vs|etc|e\.g|i\.e|No)\.\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
STOPWORDS = frozenset(
    "a an the and or but so to of in on at for with from by about into over after before it its it's this "
    "that these those is are was were be been being i you your my me we our they their them he she his her "
    "if then than as just also very really can could would should will may might do does did not no yes "
    "have has had more most some any each every one two what which who how when where why there here up "
    "out off again still even only much many such own same other all both few lot lots".split()
)


# ---------------------------------------------------------------- voice and counting


def sentence_count(text: str) -> int:
    """Sentences in `text` (a bare emoji or the [Upload] marker is no sentence; `Dr.` ends none)."""
    body = _EMOJI_RE.sub("", re.sub(r"^\[Upload [^\]]*\]\s*", "", text.strip()))
    body = _ABBREV.sub(lambda m: m.group(0).replace(".", "\u2024"), body)
    return len([s for s in _SENTENCE_END.split(body) if re.search(r"\w", s)])


def words(text: str) -> int:
    """Whitespace word count."""
    return len(text.split())


def formal(text: str) -> str:
    """`text` without contractions (`don't` -> `do not`, `It's` -> `It is`)."""
    text = expand_i_d(text.replace("\u2019", "'"))
    for pattern, full in _CONTRACTIONS:
        text = re.sub(pattern, lambda m, full=full: _same_case(m, full), text, flags=re.IGNORECASE)
    return text


def _same_case(match: re.Match[str], full: str) -> str:
    """The expansion `full` of a contraction, capitalised like the match."""
    out = match.expand(full)
    return capital(out) if match.group(0)[:1].isupper() else out


def voiced(text: str, style: dict[str, Any], rng: random.Random, valence: str | None = None) -> str:
    """`text` in the persona's voice: no contractions when formal, emoji only when they use them (a sad one about
    a setback: `valence`)."""
    if band(style) == "formal":
        text = formal(text)
    if not style.get("emoji"):
        text = re.sub(r"\s{2,}", " ", _EMOJI_RE.sub("", text)).strip()
    elif not _EMOJI_RE.search(text) and rng.random() < 0.6:
        text = f"{text} {rng.choice(SAD_EMOJI if valence == 'negative' else EMOJI)}"
    if band(style) == "casual" and rng.random() < 0.35 and not text.startswith("["):
        text = uncap(text)  # typed in lower case, but not `i` or a name (`kim Nasser`)
    return text


def join(*parts: str) -> str:
    """Parts joined by single spaces, empty parts dropped."""
    return re.sub(r"\s+([,.!?:;])", r"\1", " ".join(p for p in parts if p)).strip()


def sentence(*parts: str, end: str = ".") -> str:
    """A capitalised sentence from `parts`, ending with `end` unless it already ends with a stop."""
    text = join(*parts)
    return capital(text if text[-1:] in ".!?" else text + end)


LEAD_ONLY = frozenset({"i must say", "to be sure", "certainly", "in any case", "to be fair"})
"""Favourite phrases that open a sentence but cannot close one."""


def vocab_word(style: dict[str, Any], rng: random.Random) -> str | None:
    """One of the persona's favourite words or phrases, or None."""
    vocab = [v for v in style.get("vocabulary") or [] if v.strip()]
    return rng.choice(vocab) if vocab else None


def with_vocab(s: str, style: dict[str, Any], rng: random.Random, chance: float = 0.35) -> str:
    """`s`, sometimes opened or closed with one of the persona's words (kept off required phrases)."""
    word = vocab_word(style, rng)
    if word is None or rng.random() >= chance or s.startswith("[") or word.lower() in s.lower():
        return s
    lead_only = word.lower() in LEAD_ONLY or s.endswith("?")  # "Should I go, to be sure?" is no one's English
    if lead_only and ("," in " ".join(s.split()[:3]) or ":" in " ".join(s.split()[:3])):
        return s
    if (lead_only or rng.random() < 0.6) and "," not in " ".join(s.split()[:3]) and ":" not in " ".join(s.split()[:3]):
        keep = s.startswith(("I ", "I'")) or s[1:2].isupper()
        return f"{capital(word)}, {s if keep else s[:1].lower() + s[1:]}"
    return f"{s[:-1]}, {word}{s[-1]}" if s[-1:] in ".!?" else f"{s}, {word}"


def target_count(length: dict[str, Any], style: dict[str, Any], rng: random.Random) -> int:
    """How many sentences to write: inside `length`, more for verbose people."""
    lo, hi = int(length["min_sentences"]), int(length["max_sentences"])
    v = float(style.get("verbosity", 0.5))
    return max(lo, min(hi, lo + round(v * (hi - lo) + rng.uniform(-0.8, 0.8))))


def merged(a: str, b: str) -> str:
    """Two sentences as one: `A, and b.`"""
    b = b[:1].lower() + b[1:] if b[1:2].islower() or b[1:2] == " " and not b.startswith("I ") else b
    return f"{a.rstrip('.!?')}, and {b}" if sentence_count(a) == 1 else f"{a} {b}"


def fit(required: list[str], optional: list[str], n: int, hi: int) -> list[str]:
    """`required` sentences (merged pairwise while there are more than `hi`) plus optional ones while the
    count stays within `n`."""
    out = list(required)
    count = sum(sentence_count(p) for p in out)
    while count > hi and len(out) >= 2:
        out[-2:] = [merged(out[-2], out[-1])]
        count = sum(sentence_count(p) for p in out)
    for s in optional:
        c = sentence_count(s)
        if count + c <= n:
            out.append(s)
            count += c
    return out


def build(required: list[str], optional: list[str], context: dict[str, Any], rng: random.Random,
          greeting: str | None = None) -> str:
    """The message: required sentences, optional ones up to the target count, an optional greeting
    in front, the persona's words sprinkled in, then the voice pass."""
    style, length = context["style"], context["length"]
    n = target_count(length, style, rng)
    parts = fit(required, dedupe(optional), n, int(length["max_sentences"]))
    if greeting and sum(sentence_count(p) for p in parts) < n and not parts[0].startswith("["):
        parts.insert(0, greeting)
    said = " ".join(parts).lower()
    used = any(v.lower() in said for v in style.get("vocabulary") or [] if v.strip())
    if rng.random() < 0.55 and not used:  # one of their favourite words, at most once a message
        i = rng.randrange(len(parts))
        parts[i] = with_vocab(parts[i], style, rng, 1.0)
    return voiced(" ".join(parts), style, rng, (context.get("event") or {}).get("valence"))


def doc_parts(attachment: dict[str, Any]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """The document's sections, points and tables that are short enough to name without pasting it."""
    sections = [h for h in attachment.get("sections") or [] if 0 < len(h.split()) <= 7]
    tables = [t for t in attachment.get("tables") or [] if len(str(t.get("caption") or "").split()) <= 7]
    tables = [t | {"columns": list(t.get("columns") or [])[:4]} for t in tables]
    return sections, list(attachment.get("points") or []), tables


def point_words(point: str) -> str | None:
    """A document point in the user's words (`X is now Y` -> `X has changed to Y`), or None when it is too long
    to quote without copying a run of the document."""
    p = point.strip().rstrip(".")
    head, sep, value = p.partition(" is now ")
    if sep:
        return f"{head} has changed to {value}"
    return p if len(p.split()) <= 10 else None


def attachment_lines(attachment: dict[str, Any], rng: random.Random, n: int,
                     facts: list[dict[str, Any]] | None = None, heard: str = "", told: Sequence[str] = ()) -> list[str]:
    """Up to `n` sentences about the document's sections, points (other than `facts` already stated or naming a
    phrase in `told`, and not one `heard` already holds) and tables (never its text)."""
    options: list[str] = []
    sections, points, tables = doc_parts(attachment)
    if sections:
        options.append(rng.choice(SECTION_FRAMES).format(s=rng.choice(sections)))
    said = " ".join(f["clause"] for f in facts or [])
    told = [f["must_include"] for f in facts or []] + list(told)
    points = [p for p in points if p.strip().rstrip(".") not in said and not any(mentions(p, t) for t in told)
              and not (heard and (w := point_words(p)) and mentions(heard, w))]
    p = point_words(rng.choice(points)) if points else None
    if p:
        options.append(rng.choice(POINT_FRAMES).format(p=p[:1].lower() + p[1:] if p[1:2].islower() else p))
    if tables:
        t = rng.choice(tables)
        cols = ", ".join(t.get("columns") or []) or "a few columns"
        options.append(rng.choice(TABLE_FRAMES).format(c=t.get("caption") or "table", cols=cols))
    rng.shuffle(options)
    return options[:n]


GREETINGS = {
    "morning": {"casual": ("morning!", "hey, morning.", "hiya, good morning."),
                "neutral": ("Good morning!", "Morning!", "Hi, good morning."),
                "formal": ("Good morning.", "Good morning, I hope you are well.")},
    "afternoon": {"casual": ("hey!", "hi!", "afternoon!"),
                  "neutral": ("Good afternoon!", "Hi there.", "Hello!"),
                  "formal": ("Good afternoon.", "Hello, I hope your afternoon is going well.")},
    "evening": {"casual": ("hey!", "evening!", "hi again."),
                "neutral": ("Good evening!", "Hi there.", "Evening!"),
                "formal": ("Good evening.", "Hello, I hope you are well.")},
}
"""Greetings by the persona's local part of the day and register: no `Evening!` at ten in the morning."""

REQUEST_WHY = ("I've been meaning to sort it out for a while", "It came up at work today",
               "A friend asked me and I had no idea", "I keep forgetting how it goes",
               "I'd like to get it right this time", "I only need the basics",
               "My neighbour asked me about it yesterday", "I've put it off for too long")
"""Why the user asks for an unrelated favour (the request itself names the subject)."""
SMALL_TALK_ABOUT = ("It made me smile today", "I can't stop thinking about it", "It was a nice change",
                    "Nobody else seems to notice it", "It caught me off guard", "It's oddly satisfying",
                    "It cheered me up more than I expected", "It's the little things, really",
                    "I had a good laugh about it")
"""A remark on the small-talk subject, which the opening sentence names."""


def time_greeting(context: dict[str, Any], rng: random.Random) -> str:
    """A greeting for the persona's local part of the day (`part_of_day`), in their register."""
    part = context.get("part_of_day") or "afternoon"
    return capital(rng.choice(GREETINGS.get(part, GREETINGS["afternoon"])[band(context["style"])]))


_TONIGHT = re.compile(r"\b(tonight|this evening)\b", re.IGNORECASE)
_THIS_MORNING = re.compile(r"\bthis morning\b", re.IGNORECASE)


def timed(text: str, context: dict[str, Any]) -> str:
    """`text` with its time-of-day words fitting `context["part_of_day"]`: no "tonight" in the morning, no
    "this morning" in the evening."""
    part = context.get("part_of_day", "evening")
    if part != "evening":
        text = _TONIGHT.sub(lambda m: "Today" if m.group(0)[0].isupper() else "today", text)
    if part != "morning":
        text = _THIS_MORNING.sub(lambda m: "Earlier today" if m.group(0)[0].isupper() else "earlier today", text)
    return text


def dedupe(items: list[str]) -> list[str]:
    """`items` without repeats, in order."""
    return list(dict.fromkeys(items))


def ensure_phrases(text: str, context: dict[str, Any]) -> str:
    """`text` with any required phrase the voice pass disturbed restored (appended verbatim)."""
    need = [f["must_include"] for f in context.get("facts") or []]
    need += [context["when"]] if context.get("when") else []
    need += [context["callback"]["phrase"]] if context.get("callback") else []
    need += [context["paraphrase"]] if context.get("paraphrase") else []
    missing = [p for p in need if not mentions(text, p)]
    return text if not missing else join(text, *(f"({p})" for p in missing))


# ---------------------------------------------------------------- user_turn_followup

# ---------------------------------------------------------------- user_turn_filler


@narrator("user_turn_filler")
def user_turn_filler(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Small talk or an unrelated request about `filler.topic`; no facts about the user's life."""
    filler = context["filler"]
    topic = filler["topic"].strip().rstrip(".?")
    if any(mentions(t["text"], topic) for t in recent(context) if t["role"] == "user"):  # said it
        return {"text": timed(build(*filler_followup(filler["kind"], rng), context, rng), context)}
    if filler["kind"] == "request":
        required = [rng.choice(REQUEST_FRAMES).format(t=topic)]
        optional = [rng.choice(REQUEST_EXTRAS), sentence(rng.choice(REQUEST_WHY))]
    else:
        verb = rng.choice(SMALL_TALK_VERBS)
        end = "?" if verb.startswith(("can ", "what ", "has ")) else "."
        required = [sentence(rng.choice(SMALL_TALK_OPENERS), verb, topic, end=end)]
        optional = [sentence(rng.choice(SMALL_TALK_ABOUT)), rng.choice(SMALL_TALK_QUESTIONS)]
    greeting = time_greeting(context, rng) if not recent(context) and rng.random() < 0.4 else None
    return {"text": timed(build(required, optional, context, rng, greeting), context)}


FILLER_REACTIONS = {"request": ("Thanks, that's clear.", "That helps, thanks.", "Perfect, thank you.",
                                 "Great, that's what I needed.", "Oh, that's simpler than I thought."),
                    "small_talk": ("Ha, I didn't know that.", "Huh, that makes sense.", "Oh, interesting.",
                                   "Good to know.", "That's oddly reassuring.", "Ha, fair enough.")}
FILLER_ASKS = {"request": ("Could you give me an example?", "What's the most common mistake with it?",
                           "Could you make it even shorter?", "Is there a quick way to remember it?"),
               "small_talk": ("Does that happen everywhere?", "Is that why it happens so often?",
                              "Should I do anything about it?", "Is it the same every year?")}
"""A follow-up to the assistant's reply on a small-talk subject or a request: a reaction and one more question,
never the subject announced a second time."""


def filler_followup(kind: str, rng: random.Random) -> tuple[list[str], list[str]]:
    """The required and optional sentences of a filler follow-up (`kind`: request or small_talk)."""
    key = "request" if kind == "request" else "small_talk"
    return [rng.choice(FILLER_REACTIONS[key]), rng.choice(FILLER_ASKS[key])], []


# ---------------------------------------------------------------- fact_check

def attribute_words(clause: str) -> str | None:
    """`my vehicle status is now X` -> `vehicle status` (the attribute named without its holder)."""
    head, sep, _ = clause.partition(" is now ")
    if not sep:
        return None
    head = re.sub(r"^(my|your|our|his|her|their)\s+", "", head.strip(), flags=re.IGNORECASE)
    head = re.sub(r"^.*'s\s+", "", head)
    return head if any(len(w) >= 4 for w in head.split()) else None


@narrator("fact_check")
def fact_check(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Whether `text` refers to the fact: a surface form, the value or the attribute phrase occurs."""
    text, fact = context["text"], context["fact"]
    forms = list(fact.get("surface_forms") or []) + [str(fact.get("value") or "")]
    attr = attribute_words(fact.get("clause") or "")
    refers = any(mentions(text, f) for f in forms if f) or bool(attr and mentions(text, attr))
    return {"refers": refers, "contradicts": False}
