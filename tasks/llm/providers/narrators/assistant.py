"""The offline narrator for assistant_turn: a reply planned from the message it answers.

The plan, in order: react to what the user said (congratulations for good news, sympathy for a setback,
thanks for an update, interest in a document; in a follow-up, to the suggestion they took up, or nothing before
the answer); answer each thing they told in this message, in the second person and in a frame that fits it (a
feeling with its own word, a worry as a worry: engage.py); tie it to something they said earlier in the window;
say what it thinks of the news (observations.py) and remark on a particular they told (details.py); answer what
they asked (the question's intent, read from its
words: plan, tell, remember, schedule, cope, document; a yes/no, how-soon or how-often question gets its direct
answer first, answers.py, naming what they did when the question says it) with two or three practical steps
from the event's area of life (lexicon.py and steps_more.py; for a pastime, by what it is; about the event's
person or place when the user named them: advice.py), each made once a session, by its words or its reason (with
none left, it refers back to one it made); and end with a question about who or where it was or about a detail
they told, and about their situation. A reply short of the length
drawn for it says back what they told in earlier turns of the window before it adds more steps.
It names nothing about the user beyond `mentioned` (what they told it) and the document they shared, and never
says a value they told back whole (`told_values`): it names the event by a detail or by its kind.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import mentions, says_value
from tasks.llm.providers.narrators.advice import named_parties, personal, steps_for
from tasks.llm.providers.narrators.answers import direct_answer
from tasks.llm.providers.narrators.asides import filler_reply
from tasks.llm.providers.narrators.closings import closing, followup_question
from tasks.llm.providers.narrators.corpus import recent
from tasks.llm.providers.narrators.detail_steps import detail_steps
from tasks.llm.providers.narrators.details import asks, remarks, told_details
from tasks.llm.providers.narrators.docnotes import doc_notes, doc_phrase
from tasks.llm.providers.narrators.engage import HEDGES, questions, recalled, responses, user_sentences
from tasks.llm.providers.narrators.lexicon import (
    ASK_INTENTS,
    CALLED_OFF,
    CATEGORY_STEPS,
    attribute_domain,
    domain_of,
    handle_of,
    short_handle,
    specific_handle,
    tone_key,
)
from tasks.llm.providers.narrators.observations import observation
from tasks.llm.providers.narrators.openings import BACK_REFS, answer_lead, followup_reaction, offers_for, reaction
from tasks.llm.providers.narrators.realize import capital, gerund, is_gerund, referred, second_person, uncap
from tasks.llm.providers.narrators.stepwords import (
    LEADS,
    PAIR_LEADS,
    PAIR_SHARE,
    TIMED,
    can_pair,
    pair_sentence,
    said_steps,
    step_sentence,
    timed_handle,
    weekday_phrase,
)
from tasks.llm.providers.offline import narrator


def intent_of(message: str) -> str | None:
    """What the user's last question asks for (ASK_INTENTS), or None when they asked nothing."""
    asked = [s for s in user_sentences(message) if s.endswith("?")]
    if not asked:
        return None
    low = asked[-1].lower()
    for intent, cues in ASK_INTENTS.items():
        if any(c in low for c in cues):
            return intent
    return "plan"


# ---------------------------------------------------------------- the plan's parts


_TAKEN_UP = re.compile(
    r"^(?:I like the idea of|Good point about|I hadn't thought of|I had not thought of|I'll try|I will try|Yes,|"
    r"I might start with|Oh,|I can manage)\s+(?P<a>[^.?!]+?)(?:,? (?:could work|that's clever|that is clever))?[.!]|"
    r"^(?P<b>[A-Z][^.?!]+?) (?:sounds doable|makes sense|is a good shout|is easy enough)[.!]")
"""A user follow-up that takes up a suggestion (narrators/user.py `react`), also in a formal voice's uncontracted
words (`I had not thought of`): the suggestion is group a or b."""


def taken_up(message: str) -> str | None:
    """The suggestion the user's message takes up, in the assistant's words (`writing down how it felt`)."""
    first = HEDGES.sub("", next(iter(user_sentences(message)), ""))  # `..., that's clever, for real.`
    found = _TAKEN_UP.match(first)
    phrase = (found.group("a") or found.group("b")) if found else None
    if not phrase or len(phrase.split()) < 2 or not is_gerund(phrase.split()[0]):
        return None
    phrase = HEDGES.sub("", phrase).strip(" ,")  # `..., lol` is theirs, not the suggestion
    return second_person(phrase[:1].lower() + phrase[1:])  # a gerund, never a name: `asking Mariana ...`


_NOT_REFLECTED = re.compile(r"^(?:I'm|I am|I'll|I will|I'd|I like|I hadn't|I might|I can|Thought|Just|That's where|"
                            r"That's a fair|That makes|Thanks|Okay|Right|Yes|Good point|Oh|Do you|Should|Could|"
                            r"Feeling|Honestly|Lol|Ngl|Tbh)\b", re.IGNORECASE)
"""User sentences that are feelings, acts or hedges, not something they told: never said back to them."""


_CORRECTION = re.compile(r"\b(?:I mixed that up|Actually, it was|I tell a lie|No, hang on)\b", re.IGNORECASE)
"""A user correcting themselves (tasks/dialogue/mentions.py CORRECTIONS): the slip is never said back."""


def reflection(message: str, mentioned: list[str], rng: random.Random, values: list[str] | tuple[str, ...] = ()
               ) -> str | None:
    """A sentence of the user's message that states something they told, said back in the second person; none
    when they corrected themselves (saying back either half would repeat or confuse the slip) or when each such
    sentence says a told value whole (`values`: the reply would only echo the store's words)."""
    if _CORRECTION.search(message):
        return None
    said = [s for s in user_sentences(message) if not s.endswith("?") and any(mentions(s, m) for m in mentioned)
            and not _NOT_REFLECTED.match(s) and not says_value(s, values)]
    if not said:
        return None
    s = second_person(HEDGES.sub("", rng.choice(said))).strip(" ,").rstrip(".!")
    s = re.sub(r"^[^:]{0,40}:\s+", "", s)
    s = re.sub(r"^(?:From what you understand|If you read it right|As far as you can tell),\s+", "", s)
    s = re.sub(r"^(?:(?:So|And|Also|Well|Oh|Plus|Anyway|Basically|Honestly|Which means|Oh, and|By the way),?\s+)+", "",
               s)
    frame = rng.choice(("So {s}.", "If I've got it right, {s}.", "So, to sum up: {s}.", "{S}, then.",
                        "Just so I have it straight: {s}."))
    return frame.format(s=uncap(s), S=capital(s))


def callback(message: str, mentioned: list[str], rng: random.Random) -> str | None:
    """A tie to something the user told earlier in the window (a mentioned detail not in this message)."""
    earlier = [m for m in mentioned if not mentions(message, m)]
    if not earlier:
        return None
    m = rng.choice(earlier)
    return rng.choice((f"And with {m} still in the picture, it's a lot at once.",
                       f"That's on top of what you told me about {m}.",
                       f"It's good to see that next to {m}, which you mentioned earlier.",
                       f"I remember you mentioned {m} as well."))


OPEN_ON_TAKEN = 0.6
"""How often a follow-up reply opens on the suggestion the user took up; else its closing question asks about it."""

MAX_STEPS = 8
"""The most suggestions a reply makes, however long it may be: past that it offers to go on."""

def step_pool(steps: dict[str, tuple[tuple[str, str], ...]], tone: str, category: str, handle: str,
              rng: random.Random, parties: dict[str, str] | None = None, doc: str = "it") -> list[tuple[str, str]]:
    """The suggestions that fit: the event's area of life and outcome first, then the kind of talk's, shuffled
    within each group; `{np}` filled with the event's handle, and the first three that can be said about the event's
    person or place so when the user has named them (`parties`, advice.py)."""
    first = list(steps[tone_key(tone, steps)])
    second = list(CATEGORY_STEPS.get(category, ()))
    rng.shuffle(first)
    rng.shuffle(second)
    out, named = [], 0
    for vp, reason in first + second:  # three suggestions about them at most: a reply is not a list of names
        said = personal(vp, parties or {}) if named < 3 else vp
        named += said != vp
        out.append((said.format(np=handle, doc=doc), reason))
    return out


def intro_reply(context: dict[str, Any], rng: random.Random) -> str:
    """A reply to background (no event): interest in what they told, by the names they used (`Declan`, `Delta
    Foods`), and a question about it; nothing it already said in the window (a session of introductions gets a
    different reply to each)."""
    name = context.get("user_first_name") or "there"
    message = context["user_message"]
    mentioned = [m for m in context.get("mentioned") or [] if len(m.split()) <= 4 and m[:1].isupper()]
    named = mentioned or [n.split()[0] if len(n.split()) == 2 else n for n in names_in(message)
                          if n.split()[0] not in _NOT_NAMES]
    before = said_before(recent(context))

    def fresh(options: tuple[str, ...] | list[str]) -> list[str]:
        return [o for o in options if o.lower() not in before] or list(options)

    parts = [rng.choice(fresh((f"Thanks for telling me a bit about yourself, {name}.",
                               f"It's nice to get to know you, {name}.", "Good to know, thank you.",
                               "That's helpful to know.", f"Thanks, {name}, that fills in the picture.")))]
    values = list(context.get("told_values") or [])
    reflected = reflection(message, mentioned, rng, values)
    parts += [reflected] if reflected else []
    answered = [r for r in responses(message, "neutral", rng, values, 2, before)  # the rest of what they told
                if not reflected or r.lower().rstrip(".")[-25:] not in reflected.lower()]
    parts.append(rng.choice(fresh(("I'll keep that in mind when we talk.", "That helps me understand your days "
                                   "better.", "It's useful context for anything you want to plan."))))
    m = rng.choice(named) if named else "that"
    lines = [f"I'll remember {m} when we plan things together.", f"If anything changes with {m}, tell me and "
             "I'll keep up.", f"It sounds like {m} is a real part of your week.", "Knowing a little about your "
             "life makes my suggestions less generic.", f"We can come back to {m} whenever it's useful.",
             f"Tell me more about {m} any time; I'm listening.",
             "Every detail like that helps me give you advice that fits.",
             f"{capital(m)} sounds like an important part of the picture.",
             "That gives me a much better sense of your week.",
             "I'd like to hear more whenever you feel like sharing."]
    more = fresh(lines)
    rng.shuffle(more)
    said = [line for line in lines if line not in more]  # a session of introductions can use up the fresh ones:
    rng.shuffle(said)  # then a line said earlier in the window, rather than a reply too short for its range
    close = rng.choice(fresh((f"What do you like most about {m}?", f"How long has {m} been part of your life?",
                              f"Is {m} something you'd like to tell me more about?",
                              f"What should I know about {m}?"))) if named else "What else would you like me to know?"
    more = said + answered[::-1] + more  # popped from the end: what they told is said back last, before the question
    while more and words(parts + [close]) < int(context["min_words"]):
        parts.append(more.pop())
    return " ".join(parts + [close])


def correction_reply(context: dict[str, Any], rng: random.Random) -> str:
    """A reply to a correction of something told in an earlier session (tasks/dialogue/latefix.py): thanks, the
    correction taken on board (which it was), a word that mix-ups happen when the reply runs short, and a question
    that follows from it."""
    fix, name = context["fix"], context.get("user_first_name") or "there"
    right, wrong, p = fix["right"], fix["wrong"], second_person(fix["phrase"])
    parts = [rng.choice((f"Thanks for putting me straight, {name}.", "Thanks for letting me know.",
                         f"Good to have that right, {name}.", "No problem at all, and thanks for telling me.")),
             rng.choice((f"I'll remember that it was {right} and not {wrong}.", f"So it was {right}, not {wrong}.",
                         f"Got it: it was {right} rather than {wrong}.",
                         f"I've got it down as {right} now, not {wrong}."))]
    more = ["Mix-ups like that happen to everyone.", "It's easy to muddle details when a lot is going on.",
            "It's good to have the details right for later."]
    rng.shuffle(more)
    close = rng.choice((f"Is there anything else about {p} I should know?", f"How do you feel about {p} now?",
                        f"Was there anything else from {p} you wanted to talk through?"))
    while more and words(parts + [close]) < int(context["min_words"]):
        parts.append(more.pop())
    return " ".join(parts + [close])


_NAMES = re.compile(r"(?<=[a-z,:] )[A-Z][\w'-]+(?: [A-Z][\w'-]+)*")
"""Names the user used mid-sentence (`my brother Declan Reid`, `Ari Okafor and I`): what an intro reply names."""
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "I'll", "Since", "A", "The", "Hi", "Monday", "Tuesday",
                        "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"})
_STREET = re.compile(r"\b(?:Lane|Road|Street|Avenue|Close|Way|Drive|Square|Place|Gardens|Terrace|Court|Row|Crescent|"
                     r"Hill|Rua|Calle|Via|Rue|Strasse|Straße)$")


def names_in(message: str) -> list[str]:
    """The names the user used mid-sentence (`_NAMES`), but not the tail of a longer one or of an address: in `I live
    at 28 Mill Lane` the regex finds `Lane` after `Mill`, and the reply asked `How long has Lane been part of your
    life?`."""
    out = []
    for match in _NAMES.finditer(message):
        before = message[:match.start()].split()
        if before and (before[-1][:1].isupper() or before[-1][:1].isdigit()) or _STREET.search(match.group()):
            continue
        out.append(match.group())
    return out


def known_handle(event: dict[str, Any], message: str, history: list[dict[str, str]], rng: random.Random,
                 values: list[str] | tuple[str, ...] = (), sharpest: bool = False) -> str:
    """How the reply names the event: by its details when the user has said them in what the assistant sees
    (`the lunch with Charlie`), else by its kind (`the lunch`); never by a handle that says back a value they told
    whole (`values`: `the dinner at Casa Lola` for the fact `dinner at Casa Lola`). `sharpest`: the most specific
    such handle, without a draw (what an observation about this very event names it by)."""
    generic = handle_of(event.get("kind"), "this")
    seen = " ".join([message] + [t.get("text", "") for t in history if t.get("role") == "user"])
    draw = 0.0 if sharpest else rng.random()
    for handle, share in ((specific_handle(event.get("kind"), event.get("entity")), 0.45),
                          (short_handle(event.get("kind"), event.get("entity")), 0.85)):
        names = [w.removesuffix("'s") for w in re.findall(r"\b[A-Z][\w'-]*", handle or "")]
        if handle and draw < share and all(mentions(seen, w) for w in names) and not says_value(handle, values):
            return handle
    return generic


WHEN_SHARE = 0.6
"""How often a reply names the event with when the user said it happened (`yesterday's lunch with Robin`)."""


def said_when(text: str, handle: str, timed: str) -> str:
    """`text` with its first naming of the event by `handle` replaced by `timed`, keeping a sentence's capital;
    unchanged when it already says a time (`the session today` would say it twice)."""
    if re.search(r"\b(?:today|yesterday|tonight|ago|last|this (?:morning|afternoon|evening|week))\b", text, re.I):
        return text
    at = text.lower().find(handle.lower())
    if at < 0:
        return text
    said = capital(timed) if at == 0 and text[:1].isupper() else timed
    return text[:at] + said + text[at + len(handle):]


def said_before(history: list[dict[str, str]]) -> str:
    """The assistant's earlier replies in the window, lower-cased: suggestions already made are not repeated."""
    return " ".join(t["text"] for t in history if t.get("role") == "assistant").lower()


def words(parts: list[str]) -> int:
    return sum(len(p.split()) for p in parts)


@narrator("assistant_turn")
def assistant_turn(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A reply planned from the message: reaction, reflection, callback, the answer and a follow-up question,
    with as many suggestions as its length range asks for."""
    if context["turn_kind"] == "filler" or context.get("filler"):
        return {"text": filler_reply(context, rng)}
    if context.get("fix"):
        return {"text": correction_reply(context, rng)}
    if not context.get("event") and not context.get("attachment"):
        return {"text": intro_reply(context, rng)}
    event = context.get("event") or {}
    tone = context.get("tone") or "neutral"
    if event.get("took_place") is False:  # called off, even when called back to: nothing said as if it happened
        tone = CALLED_OFF
    message, mentioned = context["user_message"], list(context.get("mentioned") or [])
    values = list(context.get("told_values") or []) + list(context.get("avoid") or [])  # avoid: said untold
    handle = known_handle(event, message, recent(context), rng, values)
    if event.get("phrase"):  # a callback to background, named as the user named it
        handle = second_person(event["phrase"])
    intent = intent_of(message)
    lo, hi = int(context["min_words"]), int(context["max_words"])
    mid = (lo + hi) // 2
    target = min(hi, rng.randint(max(lo, mid - 20), mid + 30))
    name = context.get("user_first_name") or "there"
    asked = [s for s in user_sentences(message) if s.endswith("?")]
    direct = direct_answer(asked[-1], tone, handle, rng, values, said_before(recent(context))
                           ) if asked else None
    opened = False  # whether the reply opens on the suggestion they took up
    if context["turn_kind"] == "followup":  # a reaction only to the suggestion they took up, then the answer
        took = taken_up(message)
        opened = bool(took) and rng.random() < OPEN_ON_TAKEN  # else the closing question asks about it
        parts = [followup_reaction(took, rng)] if opened else []
    else:
        parts = [reaction(tone, context["turn_kind"], context["category"], handle, name, rng, event.get("kind"))]
    before = said_before(recent(context))
    limit = 3 if context["turn_kind"] == "followup" or context.get("attachment") else 5
    answered = responses(message, tone, rng, values, limit, before)  # what it says back to each thing they told
    parts += answered
    tie = context["turn_kind"] == "initial" and rng.random() < 0.5  # later in a topic, "earlier" is the topic itself
    fields = [str(v) for v in (event.get("details") or event.get("entity") or {}).values() if str(v).strip()]
    elsewhere = [m for m in mentioned if not any(mentions(v, m) or mentions(m, v) for v in fields)]  # not this event
    tied = callback(message, elsewhere, rng) if tie else None
    parts += [tied] if tied else []
    domain = domain_of(event.get("kind")) if event.get("kind") else attribute_domain(event.get("attribute") or "")
    seen = " ".join([message] + [t.get("text", "") for t in recent(context) if t.get("role") == "user"])
    parties = {k: v for k, v in named_parties(event.get("entity"), seen).items() if not says_value(v, values)}
    thought = None
    if context["turn_kind"] == "initial" and not context.get("attachment"):  # what it thinks of the news itself
        sharp = handle if event.get("phrase") else known_handle(event, message, recent(context),
                                                                 rng, values, sharpest=True)
        thought = observation(domain, tone, sharp, parties, rng, before)
        if thought:
            parts.append(thought)
    details = told_details(event.get("details") or event.get("entity"), seen, values)  # what they told: the dish
    picked_up = remarks(details, tone, rng, before, 2)
    parts += picked_up[:1] if context["turn_kind"] == "initial" and not context.get("attachment") else []
    if context.get("attachment"):
        said = " ".join(t["text"] for t in recent(context) if t["role"] == "assistant")
        parts += doc_notes(context["attachment"], rng, said, values)
    taken = taken_up(message) if context["turn_kind"] == "followup" else None  # not suggested again at once
    close = followup_question(tone, context["category"], handle, intent,
                              [m for m in mentioned if not says_value(m, values)], rng,
                              None if opened else taken, before)  # the suggestion taken up is named once
    when = (event.get("when") or "").strip()  # as the user said it, if they did: said back once in the reply
    when = when if when and mentions(seen, when) and not says_value(when, values) else ""
    asked_about = questions(parties, tone, rng, before, event.get("kind"), when)  # who or where, when named
    asked_about = asks(details, tone, rng, before)[:1] + asked_about if rng.random() < 0.5 else asked_about
    close = closing(asked_about, close, rng)  # about who or where first, then about how they are with it
    lead = direct or answer_lead(intent, tone, handle, rng)
    pool = step_pool(steps_for(domain, event.get("kind"), event.get("entity")), tone, context["category"], handle, rng,
                     parties, doc_phrase(context.get("attachment")))
    particular = detail_steps(event.get("details") or event.get("entity"), seen, tone, values, rng)  # the dish
    pool = particular[:2] + pool[:2] + particular[2:] + pool[2:]  # advice about what they told, among the rest
    fresh = [p for p in pool if p[0].lower() not in before and gerund(p[0]).lower() not in before
             and p[1].lower() not in before  # its reason said: made already, maybe about the event by another name
             and not (taken and gerund(p[0]).lower() in taken.lower())]
    stale = [p for p in pool if p not in fresh]
    pool = fresh  # a suggestion is made once a session
    numbered = bool(lead and lead.endswith(":") and rng.random() < 0.2)
    body: list[str] = []
    leads = list(LEADS)
    rng.shuffle(leads)
    cap = 3 if context["category"] in ("advice_seeking", "scheduling") and context["turn_kind"] == "initial" else 2
    date = context.get("date", "")
    made = 0  # steps made so far: a sentence may make two
    while made < len(pool):
        so_far = words(parts + [lead or ""] + body + [close])
        if so_far >= target and made >= 1 or numbered and made >= 5 and so_far >= lo:
            break  # a numbered list stops at five steps once the reply is long enough
        if not numbered and made >= cap:
            break  # a few suggestions, not a list of everything: the rest of the reply is about what they said
        step = pool[made]
        if numbered:
            vp, reason = step
            when = f" {weekday_phrase(date, rng)}" if rng.random() < 0.5 and not TIMED.search(vp) else ""
            body.append(f"{made + 1}. {capital(vp)}{when}: {reason}.")
        elif made + 1 < min(len(pool), cap + 1) and can_pair(step, pool[made + 1]) and rng.random() < PAIR_SHARE:
            body.append(pair_sentence(step, pool[made + 1], rng.choice(PAIR_LEADS), date, rng))  # two in one
            made += 1
        else:
            body.append(step_sentence(step, leads[len(body) % len(leads)], handle, date, rng))
        made += 1
    spare = said_steps(pool[made:MAX_STEPS], handle, date, rng, leads, len(body))  # more, only when the reply is short
    while body and words(parts + [lead or ""] + body + [close]) > hi:
        body.pop()
    if not body and stale:  # nothing new left to suggest: point back to what was said
        body.append(rng.choice(BACK_REFS).format(g=gerund(stale[0][0]), G=capital(gerund(stale[0][0]))))
    if not numbered:  # every new suggestion made and still short: what they told earlier, a thought on the
        tie = callback(message, [m for m in elsewhere if not says_value(m, values)], rng)  # news, then an offer
        more = [tie] if tie and tie not in parts else []
        more += [r for r in picked_up if r not in parts]  # a remark on what they told before more advice
        back = recalled(recent(context), rng, values, before + " ".join(parts).lower(), 3)
        more += back
        while more and words(parts + [lead or ""] + body + [close]) < target:  # what they said, up to its length
            body.append(more.pop(0))
        while spare and words(parts + [lead or ""] + body + [close]) < target:  # more advice, up to its length
            if words(parts + [lead or ""] + body + [close, spare[0]]) > hi:  # two steps in one may be too long
                break
            body.append(spare.pop(0))
        offers = offers_for(handle, rng)
        while words(parts + [lead or ""] + body + [close]) < lo and offers:
            body.append(offers.pop())
    if numbered:  # a short list is followed by an offer to go on, up to the reply's length
        offers = offers_for(handle, rng)
        after: list[str] = []
        while words(parts + [lead or ""] + body + after + [close]) < lo and offers:
            after.append(offers.pop())
        parts.append(lead + "\n\n" + "\n".join(body) + "\n\n" + " ".join(after + [close]))
    else:
        parts += ([lead[:-1] + "." if lead.endswith(":") else lead] if lead else []) + body + [close]
    generic = handle_of(event.get("kind"), handle)
    told = set(answered) | {p for p in parts if any(mentions(p.replace(handle, ""), m) for m in mentioned)}
    told |= {lead, lead[:-1] + "." if lead and lead.endswith(":") else lead, close}  # by its details; steps by kind
    told |= set(picked_up) | ({thought} if thought else set())  # a remark names its detail, a thought its event
    told |= set(back) if not numbered else set()  # what they said, named as they said it
    short = short_handle(event.get("kind"), event.get("entity"))
    others = [generic] + ([short] if short and short.lower() not in (handle.lower(), generic.lower())
                          and not says_value(short, values) else [])
    when = when if rng.random() < WHEN_SHARE and not re.search(r"\b(?:today|yesterday|ago|last|this|then|on "
                                                               r"[A-Z]\w+day)\b", close) else ""  # not twice
    out, named = [], False
    for p in parts:  # the details once in the reply, then by its kind or a detail, in turn
        if p not in told and named:
            other = others[len(out) % len(others)]
            p = referred(f"{handle} {p}", handle, other)[len(handle) + 1:]
        if when and not named and p not in answered and mentions(p, handle):
            p, when = said_when(p, handle, timed_handle(handle, when, rng)), ""
        named = named or mentions(p, handle)
        out.append(p)
    parts = out
    return {"text": " ".join(p for p in parts if p).replace("\n ", "\n")}
