"""Text units the validity measures count: sentences, their normal forms and skeletons, content stems and
speech acts. Generic English, written for any corpus (ours or a reference written by a real model), never
from the offline narrator's phrase banks.

- Sentences: paragraphs (lines) split by `blingfire` (Microsoft's sentence breaker), with a split after a
  title abbreviation ("St.", "Dr.") joined back; an `[Upload ...]` marker, list markers and Markdown emphasis
  are dropped, and so are headings and labels (title-cased words without a closing mark).
- `normal`: Unicode quotes and dashes folded to ASCII, spaces collapsed, lower case: what "the same sentence"
  means for distinctness.
- `skeleton`: the sentence with its entities, numbers and dates masked (`#` for numbers, `<date>` for month
  and weekday names, `<name>` for proper names: capitalized words after the first, a capitalized first word
  followed by another, and any name the caller knows, such as the world's entity names), then lower-cased
  words and the `?`/`!` marks: two sentences with one skeleton differ only in what fills its slots.
- `stems`: Snowball stems of content words (stop words and generic chat words removed).
- `speech_act`: a sentence's communicative act from its form: greet, react, ask, request, feel or inform.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2014": " - ", "\u2013": " - ",
                       "\u2026": "...", "\u00a0": " "})
_UPLOAD = re.compile(r"\[Upload [^\]]*\]\s*")
_TITLES = ("st", "dr", "mr", "mrs", "ms", "prof", "mt", "no", "vs", "approx", "e.g", "i.e", "etc", "jr", "sr")
_ENDS_WITH_TITLE = re.compile(r"(?:^|\s)(?:" + "|".join(re.escape(t) for t in _TITLES) + r")\.$", re.I)
_SPACES = re.compile(r"\s+")
_LIST_MARK = re.compile(r"^(?:[#>*•|-]+|\d{1,2}[.)])\s*")
_EMPHASIS = re.compile(r"\*\*|__|`")


@functools.lru_cache(maxsize=1 << 16)  # generated corpora repeat their sentences; every measure folds them
def fold(text: str) -> str:
    """Curly quotes, dashes and ellipses as ASCII; spaces collapsed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text).translate(_FOLD)).strip()


@functools.lru_cache(maxsize=1 << 15)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of `text`, folded (see the module doc)."""
    import blingfire

    out: list[str] = []
    for line in _UPLOAD.sub("", text or "").splitlines():
        line = fold(_LIST_MARK.sub("", _EMPHASIS.sub("", line.strip())))
        if not line:
            continue
        parts = [p.strip() for p in blingfire.text_to_sentences(line).split("\n") if p.strip()]
        joined: list[str] = []
        for part in parts:
            if joined and _ENDS_WITH_TITLE.search(joined[-1]):
                joined[-1] = f"{joined[-1]} {part}"
            else:
                joined.append(part)
        out += [s for s in joined if not _heading(s)]
    return tuple(out)


def _heading(text: str) -> bool:
    """A label, not a sentence: no letters, or title-cased words without a closing mark ("Garden Tasks:")."""
    words = re.findall(r"[A-Za-z][A-Za-z']+", text)
    if not words:
        return True
    return not text.rstrip().endswith((".", "!", "?", '"')) and all(w[0].isupper() for w in words if len(w) > 3)


@functools.lru_cache(maxsize=1 << 16)
def normal(sentence: str) -> str:
    """The form two sentences must share to count as the same sentence."""
    return fold(sentence).lower()


_TOKEN = re.compile(r"[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'.-]*[A-Za-z\u00C0-\u024F]|[A-Za-z\u00C0-\u024F]"
                    r"|\d[\d,.:/]*(?:st|nd|rd|th|am|pm|s|k|%)?|[?!]")
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "first second third fourth fifth sixth seventh eighth ninth tenth half dozen".split())
_DATE_WORDS = frozenset(
    "january february march april may june july august september october november december jan feb mar apr jun "
    "jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday".split())
_NOT_NAMES = frozenset("i i'm i've i'd i'll ok okay oh lol tbh".split())


def mask_names(text: str, names: tuple[str, ...]) -> str:
    """`text` with every known name (longest first) replaced by a placeholder the skeleton masks."""
    for name in names:
        if name and name in text:
            text = text.replace(name, " Qqname ")
    return text


@functools.lru_cache(maxsize=1 << 16)
def skeleton(sentence: str, names: tuple[str, ...] = ()) -> str:
    """The sentence with entities, numbers and dates masked (see the module doc)."""
    tokens = _TOKEN.findall(mask_names(fold(sentence), names))
    out: list[str] = []
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if tok == "Qqname":
            mask = "<name>"
        elif tok[0].isdigit() or low in _NUMBER_WORDS:
            mask = "#"
        elif low in _DATE_WORDS and tok[0].isupper():
            mask = "<date>"
        elif tok[0].isupper() and low not in _NOT_NAMES and (
                i > 0 or (len(tokens) > 1 and tokens[1][:1].isupper() and tokens[1].lower() not in _NOT_NAMES)):
            mask = "<name>"
        else:
            mask = low
        if not (mask.startswith(("<", "#")) and out and out[-1] == mask):
            out.append(mask)
    return " ".join(out)


STOPWORDS = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few
for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll
she's should shouldn't so some such than that that's the their theirs them themselves then there there's these
they they'd they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're
we've were weren't what what's when when's where where's which while who who's whom why why's will with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves just really quite still even maybe
much many lot bit thing things something anything everything way kind sort get got getting go going goes went
make makes made making know think feel feels felt feeling like want need say said tell told let yeah yes ok okay
oh lol tbh honestly actually basically anyway well right sure now today tonight yesterday tomorrow day week time
good great nice little new also though since back around always never sometimes often every one two us
""".split())


@functools.cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


_WORD = re.compile(r"[a-z][a-z']+")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Snowball stem of one lower-case word (cached: a corpus has a small vocabulary)."""
    return _stemmer().stemWord(word)


@functools.lru_cache(maxsize=1 << 15)
def stems(sentence: str) -> frozenset[str]:
    """Snowball stems of the sentence's content words (three letters or more, not stop words)."""
    words = [w.strip("'") for w in _WORD.findall(fold(sentence).lower())]
    return frozenset(stem(w) for w in words if len(w) >= 3 and w not in STOPWORDS)


def names_in(sentence: str) -> frozenset[str]:
    """Capitalized words after a sentence's first word (proper names, roughly)."""
    tokens = _TOKEN.findall(fold(sentence))
    return frozenset(t.lower() for t in tokens[1:] if t[0].isupper() and t.lower() not in _NOT_NAMES)


_GREETING = re.compile(r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|morning|evening|afternoon)\b", re.I)
_REACTION = frozenset("""
ok okay oh ah aha wow cool nice great fair right sure yes yeah yep no nope hmm hm lol haha thanks thank true gotcha
good fine exactly absolutely definitely totally indeed well alright perfect lovely awesome oops ugh honestly so
point idea that's that sounds makes sense
""".split())
_REQUEST = re.compile(r"^(?:please\b|can you\b|could you\b|would you\b|will you\b|help me\b|remind me\b|let me know\b|"
                      r"tell me\b|let's\b|keep\b|try\b|remember\b|don't forget\b)", re.I)
_ASK_START = re.compile(r"^(?:what|how|why|when|where|which|who|whom|whose|is|are|am|was|were|do|does|did|can|could|"
                        r"should|would|will|shall|may|might|have|has|had|any)\b", re.I)
_FEEL = re.compile(r"\b(?:i(?:'m| am| feel| felt)|feeling|i've been feeling)\b.*\b(?:happy|sad|glad|calm|anxious|"
                   r"nervous|excited|proud|relieved|worried|tired|grateful|thrilled|upset|stressed|hopeful|"
                   r"frustrated|energi[sz]ed|content|satisfied|buoyed|upbeat|overwhelmed|scared|lonely)\b", re.I)

ACTS = ("greet", "react", "ask", "request", "feel", "inform")


def speech_act(sentence: str) -> str:
    """The sentence's communicative act from its surface form (see ACTS)."""
    s = fold(sentence)
    words = _WORD.findall(s.lower())
    if s.endswith("?"):
        return "ask"
    if _REQUEST.match(s):
        return "request"
    if _ASK_START.match(s) and not s.endswith((".", "!")):
        return "ask"
    if _GREETING.match(s) and len(words) <= 4:
        return "greet"
    if words and len(words) <= 4 and all(w in _REACTION or w in STOPWORDS for w in words):
        return "react"
    if _FEEL.search(s):
        return "feel"
    return "inform"
