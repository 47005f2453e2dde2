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
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators import dialogue_filler
from tasks.llm.providers.narrators.corpus import band, capital
from tasks.llm.providers.narrators.dialogue_banks import (
    ACK_HEADS,
    ACK_TAILS,
    ADVERB_VERBS,
    ADVERBS,
    ADVICE,
    CALLBACK_LEADS,
    CALLBACK_LINKS,
    CALLBACK_VERBS,
    CHAT,
    CLOSERS,
    DEGREE,
    DETAIL_LEADS,
    DOC_ABOUT,
    DOC_GOALS,
    DOC_POINT,
    DOC_SECTION,
    DOC_SHARE,
    DOC_TABLE,
    DOC_VERBS,
    EMOJI,
    FACT_LEADS,
    FEEL,
    FEEL_FORMAL_DEGREE,
    FEEL_OPENERS,
    FEEL_TAILS,
    FILLER_ACKS,
    FILLER_CLOSERS,
    FOLLOW_LEADS,
    GENERIC,
    GREETINGS,
    KEY_PHRASES,
    MENTION_FRAMES,
    NEG_TAILS,
    NEG_VERBS,
    NOW_WORDS,
    PARA_OBJECT_LEADS,
    PARA_SUBJECT_PREDICATES,
    PARA_TAILS,
    POINT_FRAMES,
    POS_TAILS,
    POS_VERBS,
    PREFIXES,
    Q_CORES,
    Q_LEADS,
    Q_PRE,
    Q_TAILS,
    REACT,
    REACT_REFS,
    REACT_VERBS,
    REQUEST_EXTRAS,
    REQUEST_FRAMES,
    SECTION_FRAMES,
    SHARE_CLOSERS,
    SHARE_TAILS,
    SMALL_TALK_COMMENTS,
    SMALL_TALK_OPENERS,
    SMALL_TALK_QUESTIONS,
    SMALL_TALK_VERBS,
    STATUS_CLOSERS,
    STATUS_NEXT,
    STATUS_TAILS,
    TABLE_FRAMES,
    TITLE_ADJECTIVES,
    TITLE_SWAPS,
    TRANSITIONS,
    WHAT_IFS,
    WORRY_PREDICATES,
    WORRY_SUBJECTS,
    WORRY_TAILS,
)
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
    text = text.replace("\u2019", "'")
    for pattern, full in _CONTRACTIONS:
        text = re.sub(pattern, lambda m, full=full: _same_case(m, full), text, flags=re.IGNORECASE)
    return text


def _same_case(match: re.Match[str], full: str) -> str:
    """The expansion `full` of a contraction, capitalised like the match."""
    out = match.expand(full)
    return capital(out) if match.group(0)[:1].isupper() else out


def voiced(text: str, style: dict[str, Any], rng: random.Random) -> str:
    """`text` in the persona's voice: no contractions when formal, emoji only when they use them."""
    if band(style) == "formal":
        text = formal(text)
    if not style.get("emoji"):
        text = re.sub(r"\s{2,}", " ", _EMOJI_RE.sub("", text)).strip()
    elif not _EMOJI_RE.search(text) and rng.random() < 0.6:
        text = f"{text} {rng.choice(EMOJI)}"
    if band(style) == "casual" and rng.random() < 0.35 and not text.startswith("["):
        text = text[:1].lower() + text[1:]
    return text


def join(*parts: str) -> str:
    """Parts joined by single spaces, empty parts dropped."""
    return re.sub(r"\s+([,.!?:;])", r"\1", " ".join(p for p in parts if p)).strip()


def sentence(*parts: str, end: str = ".") -> str:
    """A capitalised sentence from `parts`, ending with `end` unless it already ends with a stop."""
    text = join(*parts)
    return capital(text if text[-1:] in ".!?" else text + end)


def vocab_word(style: dict[str, Any], rng: random.Random) -> str | None:
    """One of the persona's favourite words or phrases, or None."""
    vocab = [v for v in style.get("vocabulary") or [] if v.strip()]
    return rng.choice(vocab) if vocab else None


def with_vocab(s: str, style: dict[str, Any], rng: random.Random, chance: float = 0.35) -> str:
    """`s`, sometimes opened or closed with one of the persona's words (kept off required phrases)."""
    word = vocab_word(style, rng)
    if word is None or rng.random() >= chance or s.startswith("["):
        return s
    if rng.random() < 0.6 and "," not in " ".join(s.split()[:3]) and ":" not in " ".join(s.split()[:3]):
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
    if rng.random() < 0.55:  # one of their favourite words, at most once a message
        i = rng.randrange(len(parts))
        parts[i] = with_vocab(parts[i], style, rng, 1.0)
    return voiced(" ".join(parts), style, rng)


# ---------------------------------------------------------------- questions and closers


def question(category: str, rng: random.Random, obj: str | None = None, pre: str | None = None) -> str:
    """A combinatorial question for `category` (lead x core x tail), optionally about `obj`."""
    core = rng.choice(Q_CORES[category])
    if obj and core.endswith(" it") and rng.random() < 0.7:
        core = f"{core[:-3]} {obj}"
    lead = rng.choice(Q_LEADS)
    pre = rng.choice(Q_PRE) if pre is None else pre
    return sentence(pre, lead if not pre else lead[:1].lower() + lead[1:], core, rng.choice(Q_TAILS), end="?")


def closer(category: str, rng: random.Random) -> str:
    """The message's closing sentence: a question, a share or a status line, by category."""
    if category == "information_sharing" and rng.random() < 0.6:
        return sentence(*(rng.choice(bank) for bank in SHARE_CLOSERS), rng.choice(SHARE_TAILS))
    if category == "status_update":
        bank = STATUS_CLOSERS if rng.random() < 0.6 else STATUS_NEXT
        tail = rng.choice(STATUS_TAILS) if bank is STATUS_CLOSERS else ""
        return sentence(*(rng.choice(b) for b in bank), tail)
    if category == "attachment_consultation" and rng.random() < 0.6:
        return sentence(f"Could you {rng.choice(DOC_VERBS)} it and", rng.choice(DOC_GOALS), end="?")
    return question(category, rng)


def feeling(valence: str, style: dict[str, Any], rng: random.Random) -> str:
    """`I'm pretty relieved about it.`"""
    if band(style) == "formal":
        return sentence("I am", rng.choice(FEEL_FORMAL_DEGREE), rng.choice(FEEL[valence]), rng.choice(FEEL_TAILS))
    return sentence(rng.choice(FEEL_OPENERS), rng.choice(DEGREE),
                    rng.choice(FEEL[valence]), rng.choice(FEEL_TAILS))


# ---------------------------------------------------------------- user_turn_initial


def opener(context: dict[str, Any], rng: random.Random, lead: str) -> str:
    """The sentence that says what happened: verb frame x title x when x tail."""
    event, when = context["event"], context.get("when")
    positive = event["valence"] == "positive"
    verb = rng.choice(POS_VERBS if positive else NEG_VERBS)
    adverb = rng.choice(ADVERBS) if positive and verb.split()[1] in ADVERB_VERBS else ""
    if adverb and adverb not in verb:
        verb = verb.replace("I ", f"I {adverb} ", 1)
    tail = rng.choice(POS_TAILS if positive else NEG_TAILS)
    core = join(verb, short_title(event["title"], rng))
    if when and rng.random() < 0.5:
        body = join(f"{when},", core, f", {tail}" if tail else "")
    else:
        body = join(core, when or "", f", {tail}" if tail else "")
    return sentence(lead, body)


def fact_line(fact: dict[str, Any], style: dict[str, Any], rng: random.Random, doc: bool = False) -> str:
    """A sentence stating the fact around its clause; the must_include phrase stays verbatim. With a
    document at hand (`doc`), never the clause's own `X is now Y` wording, which the document may hold."""
    c, m = fact["clause"], fact["must_include"]
    if not mentions(c, m):
        c = f"{c} ({m})"
    lead = rng.choice(FACT_LEADS[band(style)])
    head, sep, value = c.partition(" is now ")
    if sep and (doc or rng.random() < 0.8):
        now = rng.choice(NOW_WORDS)
        frames = (f"{head} has changed to {value}", f"{head} ended up as {value}", f"{value}, that's {head} {now}",
                  f"{head}: {value}, {now}", f"{head} has become {value}", f"{head} turned into {value}")
        if not doc:
            frames += (f"{head} is {value} {now}", f"{now}, {head} is {value}", f"{head} is now {value}")
        c = rng.choice(frames)
        if not mentions(c, m):
            c = fact["clause"]
        if c.startswith(now):
            lead = ""
    return sentence(lead, c)


def detail_line(detail: str, valence: str, style: dict[str, Any], rng: random.Random) -> str:
    """The outcome narrative's sentence, framed in the user's words; a bare feeling line ("Feeling really
    good about this.") is said afresh as a feeling of the same valence."""
    text = detail.strip()
    if is_bare_feeling(text):
        return feeling(valence, style, rng)
    lead = rng.choice(DETAIL_LEADS)
    if lead and not text.startswith(("I ", "I'")):
        text = text[:1].lower() + text[1:] if text[1:2].islower() else text
    return sentence(lead, text)


def is_bare_feeling(text: str) -> bool:
    """A short sentence with no names and no numbers: a mood, not a detail."""
    tokens = text.split()
    named = any(t[:1].isupper() and not t.startswith(("I'", "I")) for t in tokens[1:])
    return len(tokens) <= 10 and not named and not re.search(r"\d", text)


def callback_line(callback: dict[str, Any], rng: random.Random) -> str:
    """The tie to an earlier event: the phrase verbatim (a time phrase gets the earlier plan after it)."""
    phrase = callback["phrase"].strip().rstrip(".")
    link = rng.choice(CALLBACK_LINKS)
    para, title = callback.get("paraphrase") or "", callback.get("title") or ""
    if para and para != title and rng.random() < 0.5:
        link = rng.choice(("and {p} is why this matters", "so {p} is part of the picture",
                           "and {p} comes into it too", "and {p} led here")).format(p=para)
    if len(phrase.split()) < 4 or " I " not in f" {phrase} ":
        earlier = short_title(title, rng) if title else ""
        phrase = join(phrase, rng.choice(CALLBACK_VERBS), earlier) if earlier else phrase
    return sentence(rng.choice(CALLBACK_LEADS), f"{phrase},", link)


_FULL_NAME = re.compile(r"\b(with|call|phone|ring|to|visit|see|on|take|host|meet) ([A-Z][^\W\d_]+) [A-Z][\w'-]+")


def short_title(title: str, rng: random.Random) -> str:
    """The event title in a varied form: a synonym for its verb, a first name instead of a full name, or
    without its trailing place or detail (`grab lunch with Noor`)."""
    for prefix, swaps in TITLE_SWAPS:
        if title.startswith(prefix) and rng.random() < 0.5:
            title = rng.choice(swaps) + title[len(prefix):]
            break
    if rng.random() < 0.4:
        title = _FULL_NAME.sub(r"\1 \2", title)
    words_ = title.split()
    cuts = [i for i, w in enumerate(words_) if w in ("at", "from", "in", "on", "for", "about", "by") and i >= 3]
    if cuts and rng.random() < 0.5:
        return " ".join(words_[: rng.choice(cuts)])
    return title


def doc_parts(attachment: dict[str, Any]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """The document's sections, points and tables that are short enough to name without pasting it."""
    sections = [h for h in attachment.get("sections") or [] if 0 < len(h.split()) <= 7]
    tables = [t for t in attachment.get("tables") or [] if len(str(t.get("caption") or "").split()) <= 7]
    tables = [t | {"columns": list(t.get("columns") or [])[:4]} for t in tables]
    return sections, list(attachment.get("points") or []), tables


def point_words(point: str) -> str:
    """A document point in other words (`X is now Y` -> `X has changed to Y`; long points cut to their
    end), so quoting it never copies a long run of the document."""
    p = point.strip().rstrip(".")
    head, sep, value = p.partition(" is now ")
    if sep:
        return f"{head} has changed to {value}"
    w = p.split()
    return p if len(w) <= 9 else "it comes down to " + " ".join(w[-8:])


def attachment_lines(attachment: dict[str, Any], rng: random.Random, n: int,
                     facts: list[dict[str, Any]] | None = None) -> list[str]:
    """Up to `n` sentences about the document's sections, points (other than `facts` already stated) and
    tables (never its text)."""
    options: list[str] = []
    sections, points, tables = doc_parts(attachment)
    if sections:
        options.append(rng.choice(SECTION_FRAMES).format(s=rng.choice(sections)))
    said = " ".join(f["clause"] for f in facts or [])
    points = [p for p in points if p.strip().rstrip(".") not in said]
    if points:
        p = point_words(rng.choice(points))
        options.append(rng.choice(POINT_FRAMES).format(p=p[:1].lower() + p[1:] if p[1:2].islower() else p))
    if tables:
        t = rng.choice(tables)
        cols = ", ".join(t.get("columns") or []) or "a few columns"
        options.append(rng.choice(TABLE_FRAMES).format(c=t.get("caption") or "table", cols=cols))
    rng.shuffle(options)
    return options[:n]


def doc_opener(context: dict[str, Any], rng: random.Random) -> str:
    """`[Upload p0001-d0003] Here's an email from the clinic ("Your booking"), about the plan to ...`: the
    document's title is quoted only when short, so the turn never copies a long run of its words."""
    a, event = context["attachment"], context["event"]
    desc = a.get("description") or f"a {a.get('source_type', 'document')}"
    title = a.get("title") or ""
    named = f'{desc} ("{title}")' if title and len(title.split()) <= 5 else desc
    about = rng.choice(DOC_ABOUT)
    handle = topic_noun(event)
    when = context.get("when")
    ref = rng.choice(("what happened", f"the {handle}", f"my {handle} plans", f"the {handle} business",
                      f"the whole {handle} thing") + (() if when else ("today's news",)))
    ref = join(ref, when) if when else ref
    return f"[Upload {a['doc_id']}] " + sentence(rng.choice(DOC_SHARE), f"{named},", about, ref)


INTRO_LEADS = {
    "casual": ("ok so a bit about me", "random fact about my life", "fyi, since you don't know me yet",
               "quick bit of background", "oh and so you know"),
    "neutral": ("Some background so you know me better", "A little about my life", "For context about me",
                "Something you should know about me", "Since we're still getting to know each other"),
    "formal": ("Some background that may be useful", "For context, a little about my circumstances",
               "I should mention something about my life", "A brief note about myself"),
}
"""Openers for background topics (`intro`): the user tells the assistant about their life so far."""


def initial_required(context: dict[str, Any], rng: random.Random) -> tuple[list[str], list[str]]:
    """The sentences an opening message must contain, and optional ones in preference order."""
    style, cat, event = context["style"], context["category"], context["event"]
    b = band(style)
    mid_session = bool(context.get("history"))
    lead = rng.choice(TRANSITIONS[b]) if mid_session and rng.random() < 0.7 else rng.choice(PREFIXES[b])
    required: list[str] = []
    attachment = context.get("attachment")
    if attachment:
        required.append(doc_opener(context, rng))
    if context.get("intro"):
        required.append(sentence(lead if mid_session else "", rng.choice(INTRO_LEADS[b])))
    elif not attachment or context.get("when") and not mentions(required[0], context["when"]):
        required.append(opener(context, rng, lead if not attachment else ""))
    if context.get("callback"):
        required.insert(1 if attachment else len(required), callback_line(context["callback"], rng))
    required += [fact_line(f, style, rng, doc=bool(attachment)) for f in context.get("facts") or []]
    bare = bool(context.get("detail")) and is_bare_feeling(context["detail"])
    if context.get("detail"):
        required.append(detail_line(context["detail"], event["valence"], style, rng))
    optional: list[str] = []
    if attachment:
        about_doc = attachment_lines(attachment, rng, 2, context.get("facts"))
        required += about_doc[:1]
        optional += about_doc[1:]
    if cat != "information_sharing" or rng.random() < 0.5:
        optional.append(closer(cat, rng))
    if cat != "status_update" and not bare:
        optional.append(feeling(event["valence"], style, rng))
    optional.append(closer(cat, rng) if cat in ("advice_seeking", "scheduling") else worry(event, rng))
    return required, optional


@narrator("user_turn_initial")
def user_turn_initial(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A user message that opens a topic: what happened (with `when`), every fact, the callback and
    detail, the attachment's content, and a closing question or remark, in the persona's voice."""
    required, optional = initial_required(context, rng)
    greet = not context.get("history") and rng.random() < (0.2 if context["category"] == "status_update" else 0.45)
    greeting = capital(rng.choice(GREETINGS[band(context["style"])])) if greet else None
    return {"text": timed(ensure_phrases(build(required, optional, context, rng, greeting), context), context)}


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

def what_if(rng: random.Random) -> str:
    """`What if it drags on?`"""
    return sentence(*(rng.choice(bank) for bank in WHAT_IFS), end="?")


def para_line(para: str, rng: random.Random) -> str:
    """A sentence that names the topic by its paraphrase, verbatim."""
    if rng.random() < 0.5:
        return sentence(capital(para), rng.choice(PARA_SUBJECT_PREDICATES), rng.choice(PARA_TAILS))
    return sentence(rng.choice(PARA_OBJECT_LEADS), para, rng.choice(PARA_TAILS))


def topic_noun(event: dict[str, Any]) -> str:
    """A one-word handle for the event's topic, from its title (`lunch`, `shop`, `call`)."""
    tokens = [t for t in re.findall(r"\b[a-z]+\b", event["title"]) if t not in STOPWORDS and len(t) > 3]
    verbs = {"have", "call", "visit", "take", "spend", "start", "sort", "join", "host", "move", "volunteer",
             "finish", "book", "apply", "adopt", "attend", "make", "meet", "plan", "find", "give", "keep", "hours"}
    nouns = [t for t in tokens if t not in verbs and t not in TITLE_ADJECTIVES]
    return (nouns or tokens or [event.get("kind", "plan").split("_")[-1]])[0]


def worry(event: dict[str, Any], rng: random.Random) -> str:
    """`The lunch thing still feels new.`"""
    subject = rng.choice(WORRY_SUBJECTS).format(n=topic_noun(event))
    return sentence(subject, rng.choice(WORRY_PREDICATES[event["valence"]]), rng.choice(WORRY_TAILS))


def assistant_word(text: str, rng: random.Random) -> str | None:
    """A phrase from the assistant's reply to react to (`simple log`, `buffer time`), or None."""
    found = [p for p in KEY_PHRASES if mentions(text, p)]
    return rng.choice(found) if found else None


def reaction(context: dict[str, Any], rng: random.Random) -> str:
    """A short reaction to the assistant's last reply, sometimes naming a phrase from it."""
    b = band(context["style"])
    word = assistant_word(context.get("last_assistant") or "", rng)
    if word and rng.random() < 0.7:
        ref, verb = rng.choice(REACT_REFS).format(w=word), rng.choice(REACT_VERBS)
        body = f"{ref}: {verb} that" if verb.startswith("I") else f"{ref} {verb}"
        return sentence(rng.choice(REACT[b]) + ",", body)
    return sentence(rng.choice(REACT[b]), end=rng.choice((".", "!", ".")))


@narrator("user_turn_followup")
def user_turn_followup(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A follow-up on the same topic: a reaction, a deeper question, the paraphrase when given."""
    style, cat, event = context["style"], context["category"], context["event"]
    para = context.get("paraphrase")
    obj = para if para and rng.random() < 0.6 else None if para else f"the {topic_noun(event)}"
    q = question(cat, rng, obj=obj if obj and rng.random() < 0.7 else None)
    lead = rng.choice(FOLLOW_LEADS) if int(context.get("followup_index", 1)) > 1 or rng.random() < 0.3 else ""
    if lead:
        q = question(cat, rng, obj=obj if obj and rng.random() < 0.7 else None, pre="")
        q = sentence(lead, q if lead.endswith(":") else q[:1].lower() + q[1:])
    required = [reaction(context, rng), q]
    if para and not mentions(q, para):
        required.insert(1, para_line(para, rng))
    optional = list(attachment_lines(context["attachment"], rng, 1)) if context.get("attachment") else []
    optional += [worry(event, rng), feeling(event["valence"], style, rng), what_if(rng), question(cat, rng)]
    rng.shuffle(optional)
    return {"text": timed(ensure_phrases(build(required, optional, context, rng), {"paraphrase": para}), context)}


# ---------------------------------------------------------------- user_turn_filler


@narrator("user_turn_filler")
def user_turn_filler(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Small talk or an unrelated request about `filler.topic`; no facts about the user's life."""
    style, filler = context["style"], context["filler"]
    topic = filler["topic"].strip().rstrip(".?")
    b = band(style)
    if filler["kind"] == "request":
        required = [rng.choice(REQUEST_FRAMES).format(t=topic)]
        optional = [rng.choice(REQUEST_EXTRAS), rng.choice(REQUEST_EXTRAS)]
    else:
        verb = rng.choice(SMALL_TALK_VERBS)
        end = "?" if verb.startswith(("can ", "what ", "has ")) else "."
        required = [sentence(rng.choice(SMALL_TALK_OPENERS), verb, topic, end=end)]
        optional = [sentence(rng.choice(SMALL_TALK_COMMENTS)), rng.choice(SMALL_TALK_QUESTIONS)]
    rng.shuffle(optional)
    greeting = capital(rng.choice(GREETINGS[b])) if not context.get("history") and rng.random() < 0.4 else None
    return {"text": timed(build(required, optional, context, rng, greeting), context)}


# ---------------------------------------------------------------- assistant_turn

_YOU = ((r"\bI am\b", "you are"), (r"\bI'm\b", "you're"), (r"\bI was\b", "you were"), (r"\bI've\b", "you've"),
        (r"\bI'll\b", "you'll"), (r"\bI'd\b", "you'd"), (r"\bI\b", "you"), (r"\bmy\b", "your"),
        (r"\bMy\b", "Your"), (r"\bme\b", "you"), (r"\bmine\b", "yours"), (r"\bmyself\b", "yourself"))


def second_person(text: str) -> str:
    """`I owe the clinic 40` -> `you owe the clinic 40`."""
    for pattern, repl in _YOU:
        text = re.sub(pattern, repl, text)
    return text


def doc_notes(attachment: dict[str, Any], rng: random.Random) -> list[str]:
    """What the assistant says about a document it can see: a section, a point, a table."""
    notes = []
    sections, points, tables = doc_parts(attachment)
    if sections:
        notes.append(rng.choice(DOC_SECTION).format(s=rng.choice(sections)))
    if points:
        p = second_person(point_words(rng.choice(points)))
        notes.append(rng.choice(DOC_POINT).format(p=p[:1].lower() + p[1:] if p[1:2].islower() else p))
    if tables:
        t = rng.choice(tables)
        cols = ", ".join(t.get("columns") or []) or "several"
        notes.append(rng.choice(DOC_TABLE).format(c=t.get("caption") or "table", cols=cols))
    return notes


def reply_opening(context: dict[str, Any], rng: random.Random) -> list[str]:
    """Acknowledgement, the filler answer or remark, a mentioned detail, the document notes."""
    kind, tone = context["turn_kind"], context.get("tone") or "neutral"
    filler = context.get("filler")
    if kind == "filler" or filler:
        topic = (filler or {}).get("topic", "")
        if (filler or {}).get("kind") == "request":
            answer = dialogue_filler.ANSWERS.get(topic) or f"Here is a simple take on {topic}: keep it practical."
            return [rng.choice(FILLER_ACKS), answer]
        remark = dialogue_filler.SMALL_TALK.get(topic) or rng.choice(CHAT)
        return [rng.choice(FILLER_ACKS), remark, rng.choice(CHAT)]
    key = (tone if tone in ("positive", "negative") else "neutral", "followup" if kind == "followup" else "initial")
    tail = rng.choice(ACK_TAILS)
    out = [sentence(rng.choice(ACK_HEADS[key]) + ("," if tail else ""), tail)]
    if context.get("mentioned") and rng.random() < 0.6:
        m = rng.choice(context["mentioned"])
        out.append(rng.choice(MENTION_FRAMES).format(m=m, M=capital(m)))
    if context.get("attachment"):
        out += doc_notes(context["attachment"], rng)
    return out


@narrator("assistant_turn")
def assistant_turn(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A helpful reply of min_words..max_words words that states nothing the user has not said."""
    lo, hi = int(context["min_words"]), int(context["max_words"])
    filler = context["turn_kind"] == "filler" or bool(context.get("filler"))
    opening = reply_opening(context, rng)
    end = rng.choice(FILLER_CLOSERS if filler else CLOSERS)
    pool = [] if filler else rng.sample(ADVICE[context["category"]], len(ADVICE[context["category"]]))
    pool += rng.sample(CHAT, len(CHAT)) if filler else []
    pool += rng.sample(GENERIC, len(GENERIC))
    target = rng.randint(lo + 5, max(lo + 5, lo + int(0.75 * (hi - lo))))
    body = opening[:]
    for s in pool:
        if words(" ".join(body + [end])) >= target:
            break
        if s not in body and words(" ".join(body + [s, end])) <= hi:
            body.append(s)
    body = dedupe(body)
    text = " ".join(body + [end])
    while words(text) > hi and len(body) > 1:
        body.pop()
        text = " ".join(body + [end])
    if words(text) > hi:
        text = " ".join(text.split()[: hi - 1]) + "."
    return {"text": timed(text, context)}


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
