"""Offline narrators for user_turn_initial and user_turn_followup: a user message planned sentence by sentence.

An opening message is a sentence plan: a greeting that fits the local time (only when the session starts), the
announcement of what happened (the event's own fact as the news itself, else the plan's verb phrase in the past
tense or what was meant to happen and did not, with `when` placed verbatim), or, when the event was told earlier
in the session (`continues`), a short pointer back to it instead of a second announcement; the callback to an
earlier event; every fact's clause (a planned paraphrase as given: tasks/dialogue/mentions.py); the outcome
detail; a feeling in the persona's register; and the act the category calls for (a question an assistant can
answer, a scheduling request, a status line). A follow-up reacts to a suggestion the assistant actually made and
asks one deeper question, naming the topic by its paraphrase. Every required phrase stays verbatim; the persona's
voice (formality, emoji, favourite words) is applied last (dialogue.py).
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import mentions, says_value
from tasks.llm.providers.narrators.corpus import band, recent
from tasks.llm.providers.narrators.dialogue import attachment_lines, build, ensure_phrases, time_greeting, timed
from tasks.llm.providers.narrators.lexicon import handle_of, short_handle, specific_handle
from tasks.llm.providers.narrators.realize import (
    capital,
    first_person,
    gerund,
    is_gerund,
    past,
    referred,
    sentence,
    short_np,
    uncap,
)
from tasks.llm.providers.narrators.user_details import detail_line
from tasks.llm.providers.offline import narrator

FEELINGS = {
    "positive": ("pleased", "relieved", "happy", "chuffed", "excited", "proud", "glad"),
    "negative": ("disappointed", "frustrated", "annoyed", "deflated", "fed up", "a bit down", "let down"),
}
DEGREES = {"casual": ("so", "really", "pretty", ""), "neutral": ("really", "quite", "very", ""),
           "formal": ("quite", "rather", "very", "")}


FEELING_SHARE = 0.45
"""Of the follow-ups after one that named no feeling, the share that names one (`I'm a bit down about it.`)."""


def felt(text: str) -> bool:
    """Whether a message of the user's names a feeling of theirs (`I'm really relieved about the bill`)."""
    return any(f" {a} {p} " in f" {text.lower()} " for bank in FEELINGS.values() for a in bank
               for p in ("about", "of", "with", "by"))


def feeling(valence: str, style: dict[str, Any], handle: str, rng: random.Random, said: str = "") -> str:
    """`I'm really relieved about the bill.`, `I'm a bit down about it.`, `The lunch made my day.`: a feeling the
    user has not named yet in the session (`said`: their earlier turns, lower-cased), while one is left."""
    b = band(style)
    fresh = [a for a in FEELINGS[valence] if not any(f"{a} {p}" in said for p in ("about", "of", "with", "by"))]
    adjective = rng.choice(fresh or list(FEELINGS[valence]))
    degree = "" if adjective.startswith(("a bit", "fed")) else rng.choice(DEGREES[b])
    prep = {"proud": "of", "fed up": "with", "let down": "by"}.get(adjective, "about")
    about = f"{prep} {handle}"
    core = " ".join(w for w in ("I'm", degree, adjective, about) if w)
    if valence == "positive" and rng.random() < 0.25:
        return sentence(rng.choice((f"{capital(handle)} made my day", f"{capital(handle)} went better than I hoped",
                                    f"{capital(handle)} was the best part of the week",
                                    f"{capital(handle)} was a real highlight",
                                    f"{capital(handle)} turned out really well")))
    return sentence(core)


def announce(context: dict[str, Any], rng: random.Random, lead: str) -> str:
    """What happened: `I had lunch with Charlie Eze from IT yesterday, and it went well.`; for a plan that did not
    take place, `I was supposed to have dinner at Kebab Corner two days ago, but it fell through.`; for one that
    took place and went badly, `I saw Dr. Lee about my knee two days ago, and it didn't go well.`"""
    event, when = context["event"], context.get("when")
    title = event["title"]
    if event["valence"] == "positive":
        core = f"I {past(title)}"
        tail = rng.choice(("", "", ", and it went well", ", and it was lovely", ", which felt good", ", at last"))
    elif event.get("took_place") is False:
        core = f"I was {rng.choice(('supposed', 'meant', 'hoping', 'planning', 'going'))} to {title}"
        tail = rng.choice((", but it fell through", ", but it didn't work out", ", but it was called off",
                           ", but it didn't happen in the end"))
    else:
        core = f"I {past(title)}"
        tail = rng.choice((", but it went wrong", ", and it didn't go well", ", but it didn't go to plan",
                           ", and it went badly"))
    body = f"{when}, {uncap(core)}{tail}" if when and rng.random() < 0.4 else f"{core} {when or ''}{tail}"
    return sentence(f"{lead} {uncap(body)}" if lead else body)


def told_event(fact: dict[str, Any], context: dict[str, Any], rng: random.Random, lead: str) -> str:
    """An event fact told as the news itself, with `when`: `Yesterday I went to Kebab Corner and had the falafel
    wraps.` (no separate announcement repeating it); a change of state said in other words, as it now is:
    `I've joined Pulse as of yesterday`."""
    when = context.get("when")
    clause = said_clause(fact)
    if fact.get("constraint") and when:  # what they were told: `I was told yesterday that I can't travel until 2 May`
        body = f"I was told {when} that {uncap(clause)}"
    elif fact.get("mode") == "implied":  # a consequence, said in the past: `Yesterday, I had my first workout at Pulse`
        body = f"{capital(when)}, {uncap(clause)}" if when else clause
    elif not fact.get("event"):  # a change of state, said as it is now: `I've joined Pulse as of yesterday`
        body = f"{clause.removesuffix(' now')} as of {when.removeprefix('on ')}" if when else clause  # not `as of on`
    elif when and rng.random() < 0.5:
        body = f"{capital(when)}, {uncap(clause)}"
    else:
        body = f"{clause} {when or ''}"
    return corrected(sentence(f"{lead} {uncap(body)}" if lead else body), fact)


def said_clause(fact: dict[str, Any]) -> str:
    """The clause said first: the slip of a corrected fact, else its clause, with the required phrase in it
    (appended in brackets when the clause lacks it and no correction will bring it)."""
    c = fact.get("wrong") or fact["clause"]
    shown = f"{c} {fact.get('correction') or ''}"
    return c if mentions(shown, fact["must_include"]) else f"{c} ({fact['must_include']})"


def corrected(line: str, fact: dict[str, Any]) -> str:
    """`line` followed by the correcting sentence of a corrected fact (mentions.py: `it was X, not Y`)."""
    return f"{line} {fact['correction']}" if fact.get("correction") else line


def continuation(context: dict[str, Any], handle: str, rng: random.Random) -> str:
    """A pointer back to an event told earlier in the session, joined to the first thing the message adds."""
    return rng.choice((f"One more thing about {handle}:", f"Oh, and about {handle}:", f"Back to {handle} for a second:",
                       f"Something else about {handle}:", f"Also, on {handle}:", f"Coming back to {handle}:",
                       f"Before I forget, about {handle}:"))


def callback_line(callback: dict[str, Any], rng: random.Random) -> str:
    """The tie to an earlier event, its time phrase verbatim: `Three weeks ago I visited the shelter, so this
    follows on from that.`"""
    phrase = callback["phrase"].strip().rstrip(".")
    title = callback.get("title") or ""
    if title and len(phrase.split()) < 5:
        link = rng.choice((", so this follows on from that", ", and this is where that led", "",
                           ", which is how this started"))
        if callback.get("took_place") is False:  # called off: meant to, never did
            did = rng.choice(("I was meant to", "I had planned to", "I was supposed to"))
            return sentence(f"{capital(phrase)}, {did} {title}, but it didn't happen{link}")
        return sentence(f"{capital(phrase)}, I {past(title)}{link}")
    return sentence(f"It goes back to {phrase}")


def fact_line(fact: dict[str, Any], rng: random.Random, lead: str = "", doc: bool = False) -> str:
    """A fact's clause as a sentence (its required phrase is in the clause); a clause `X is now Y` also as
    `Y is X now`, and always so with a document at hand (`doc`), which may hold the clause's own wording."""
    c = said_clause(fact)
    head, sep, value = c.partition(" is now ")
    if sep and (doc or rng.random() < 0.4) and mentions(value, fact["must_include"]):
        c = rng.choice((f"{value} is {head} now", f"{head} has changed to {value}", f"{head} is {value} these days"))
    return corrected(sentence(f"{lead} {uncap(c)}" if lead else c), fact)


ASKS = {
    "advice_seeking": ("What would you do next about {h}?", "How should I handle {h} from here?",
                       "Should I tell anyone about {h} yet?", "How do I stop worrying about {h}?",
                       "What's the best way to approach {h} now?", "What's my next step with {h}?",
                       "How would you deal with {h} if you were me?", "Is there a sensible plan for {h}?",
                       "How do I get past {h} without stressing?"),
    "scheduling": ("Could you help me fit {h} into next week?", "When should I book time for {h}?",
                   "How do I schedule {h} around work?", "Which day would suit {h} best?",
                   "Can you help me find a slot for {h}?", "How do I fit {h} into a busy week?"),
    "status_update": ("Just keeping you posted on {h}.", "I'll let you know how {h} develops.",
                      "That's where {h} stands for now.", "So that's the latest on {h}.",
                      "More on {h} when I know it.", "That's the state of {h} today."),
    "information_sharing": ("Thought you'd like to know about {h}.", "Just wanted to tell someone about {h}.",
                            "Do you think I should tell anyone about {h}?", "I had to share {h} with someone.",
                            "Anyway, that was {h}.", "I wanted you to hear about {h} first.",
                            "I couldn't wait to tell you about {h}.", "I've been wanting to tell you about {h}."),
    "attachment_consultation": ("Could you look it over and tell me what stands out about {h}?",
                                "Could you help me make sense of it before {h} goes any further?",
                                "What should I check first in it about {h}?",
                                "Could you read it and tell me what matters for {h}?",
                                "Can you check it for anything important about {h}?"),
}
"""The act each category calls for; questions use words the assistant reads as an intent (lexicon.ASK_INTENTS)."""


WORRIED = ("How do I stop worrying about {h}?", "How do I get past {h} without stressing?")
"""Asks that only a setback calls for: good news is not something to get past."""


def ask(category: str, handle: str, rng: random.Random, valence: str | None = None) -> str:
    """The question or act the category calls for, naming `handle`; no worried question after good news."""
    forms = [f for f in ASKS[category] if valence != "positive" or f not in WORRIED]
    return rng.choice(forms).format(h=handle)


def topic_handle(event: dict[str, Any], rng: random.Random | None = None) -> str:
    """How the user refers back to the event: by its own details (`the lunch with Charlie`) or, in passing, by
    its kind (`the lunch`); never by a handle that says one of its facts' values whole (`the dinner at Casa
    Lola` when the fact is `dinner at Casa Lola`: the fact is said once, as planned, and named after)."""
    generic = handle_of(event.get("kind"), short_np(event.get("title") or "the plan"))
    specific = unsaid(specific_handle(event.get("kind"), event.get("entity")), event)
    short = unsaid(short_handle(event.get("kind"), event.get("entity")), event)
    draw = 0.0 if rng is None else rng.random()
    if specific and draw < 0.45:
        return specific
    return short if short and draw < 0.8 else generic


def unsaid(handle: str | None, event: dict[str, Any]) -> str | None:
    """`handle` unless it says one of the event's facts' values whole (`values`; facttext.says_value: `the hot
    chocolate at Little Fig Bakery` says `a hot chocolate at Little Fig Bakery`), else None."""
    return None if handle and says_value(handle, event.get("values") or ()) else handle


def named_once(text: str, event: dict[str, Any], context: dict[str, Any]) -> str:
    """`text` naming the event by its details once and by its kind after (realize.referred), in the sentences
    that state no fact (a fact's words stay as they are)."""
    specific = specific_handle(event.get("kind"), event.get("entity")) or ""
    generic = short_handle(event.get("kind"), event.get("entity")) or handle_of(event.get("kind"), "it")
    phrases = [f["must_include"] for f in context.get("facts") or []]
    phrases += [f["correction"] for f in context.get("facts") or [] if f.get("correction")]
    out, seen = [], False
    for s in _SENTENCES.split(text):
        named = bool(specific) and mentions(s, specific)
        if named and seen and not any(mentions(s, p) for p in phrases):
            s = referred(f"{specific} {s}", specific, generic)[len(specific) + 1:]
        seen = seen or named
        out.append(s)
    return " ".join(out)


_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def doc_opener(context: dict[str, Any], rng: random.Random) -> str:
    """`[Upload p0001-d0003] Here's an email from the clinic ("Your booking") about the appointment.`: the title
    is quoted only when short, so the turn never copies a long run of the document's words."""
    a, when = context["attachment"], context.get("when")
    desc = a.get("description") or f"a {a.get('source_type', 'document')}"
    title = a.get("title") or ""
    named = f'{desc} ("{title}")' if title and len(title.split()) <= 5 else desc
    handle = topic_handle(context["event"], rng)
    verb = rng.choice(("Here's", "I'm attaching", "I've uploaded", "This is"))
    about = rng.choice((f"about {handle}", f"to do with {handle}", f"about what happened with {handle}"))
    return f"[Upload {a['doc_id']}] " + sentence(f"{verb} {named} {about} {when or ''}")


def initial_plan(context: dict[str, Any], rng: random.Random) -> tuple[list[str], list[str]]:
    """The sentences an opening message must contain, and optional ones in preference order."""
    style, cat, event = context["style"], context["category"], context["event"]
    handle = topic_handle(event, rng)
    mid = bool(recent(context))
    transitions = ("Oh, and", "Also,", "Another thing:", "And", "By the way,")
    lead = rng.choice(transitions) if mid and rng.random() < 0.6 else ""
    required: list[str] = []
    attachment = context.get("attachment")
    if attachment:
        required.append(doc_opener(context, rng))
    facts = list(context.get("facts") or [])
    if context.get("intro"):
        intro = rng.choice(("A bit of background about me:", "Since you don't know me yet:", "Some context about me:"))
        if facts:
            required.append(fact_line(facts.pop(0), rng, intro))
    elif context.get("continues"):
        pointer = continuation(context, handle, rng)
        if facts:
            required.append(fact_line(facts.pop(0), rng, pointer))
        elif context.get("detail"):
            required.append(sentence(f"{pointer} {uncap(context['detail'].rstrip('.'))}"))
            context = context | {"detail": None}
    elif facts and (facts[0].get("event") or facts[0].get("mode", "explicit") != "explicit") and not attachment:
        required.append(told_event(facts.pop(0), context, rng, lead))  # what happened (or changed) is the news
    elif not attachment or context.get("when") and not mentions(required[0], context["when"]):
        required.append(announce(context, rng, lead if not attachment else ""))
    if context.get("callback"):
        required.insert(1 if attachment else len(required), callback_line(context["callback"], rng))
    told = " ".join(required)  # a fact the announcement already says in its words is not said again
    required += [fact_line(f, rng, rng.choice(("", "", "", "Also,")), bool(attachment)) for f in facts
                 if f.get("mode", "explicit") != "explicit" or not mentions(told, f["must_include"])]
    required += list(context.get("distractors") or [])  # what someone else did, or what nearly happened
    if context.get("detail"):
        required.append(sentence(context["detail"]))
    optional: list[str] = []
    if attachment:
        about_doc = attachment_lines(attachment, rng, 2, context.get("facts"))
        required += about_doc[:1]
        optional += about_doc[1:]
    if not context.get("intro"):
        act = ask(cat, handle, rng, event.get("valence"))
        (required if cat in ("advice_seeking", "scheduling", "attachment_consultation") else optional).append(act)
    if not context.get("intro"):
        earlier = " ".join(t["text"] for t in recent(context) if t["role"] == "user").lower()
        mood = feeling(event["valence"], style, topic_handle(event, rng), rng, earlier)
        optional.insert(0 if rng.random() < 0.5 else len(optional), mood)
    return required, optional


@narrator("user_turn_initial")
def user_turn_initial(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A user message that opens (or, `continues`, goes on with) a topic: see the module doc."""
    required, optional = initial_plan(context, rng)
    starts = not recent(context)
    greet = starts and rng.random() < (0.2 if context["category"] == "status_update" else 0.4)
    text = build(required, optional, context, rng, time_greeting(context, rng) if greet else None)
    return {"text": timed(ensure_phrases(named_once(text, context["event"], context), context), context)}


# ---------------------------------------------------------------- user_turn_followup

_SUGGESTION = re.compile(r"(?:start by|help to|You might|Try to|worth trying to|helps is|I'd suggest|would be to|"
                         r"might be worth|works is|useful to|suggestion would be|spare moment[^,.;:]*,) ([^,.;:?]+)|"
                         r"^\d+\. ([^:]+):", re.M)
"""Where a suggestion stands in the assistant's sentences (narrators/stepwords.py LEADS)."""
_AIMED = re.compile(r"\s+(?:(?:before|by|ahead of) \w+day|this week|before the week is out|early next week|"
                    r"in the next few days)$")
"""The time the assistant aimed a suggestion at (stepwords.py `weekday_phrase`): not the user's to repeat."""


def suggestion_of(reply: str) -> str | None:
    """A suggestion the assistant made, as a gerund phrase (`writing down what went well`), or None."""
    reply = reply or ""
    found = [m.group(1) or m.group(2) for m in _SUGGESTION.finditer(reply)
             if reply[m.end():m.end() + 1] != "?"]  # `Would it help to put ... in your calendar?` asks, not suggests
    found = [_AIMED.sub("", f.strip()) for f in found if f]
    found = [f for f in found if 2 <= len(f.split()) <= 9]
    if not found:
        return None
    s = first_person(found[0])  # the assistant's `how the gym changes your week`, in the user's words
    return s if is_gerund(s.split()[0]) else gerund(s[:1].lower() + s[1:])  # `bring` is no gerund


def react(context: dict[str, Any], handle: str, rng: random.Random) -> str:
    """A reaction to the assistant's last reply, naming the suggestion it made when there was one."""
    s = suggestion_of(context.get("last_assistant") or "")
    if s and rng.random() < 0.85:
        return sentence(rng.choice((
            f"I like the idea of {s}", f"{capital(s)} sounds doable", f"Good point about {s}",
            f"I hadn't thought of {s}", f"{capital(s)} makes sense", f"I'll try {s}", f"{capital(s)} is a good shout",
            f"Yes, {s} could work", f"I might start with {s}", f"{capital(s)} is easy enough",
            f"Oh, {s}, that's clever", f"I can manage {s}")))
    return sentence(rng.choice((
        f"Thanks, that helps with {handle}", f"That makes sense for {handle}", f"Okay, that's useful for {handle}",
        f"That's a fair way to look at {handle}", f"Right, I'll keep that in mind for {handle}",
        f"Good, that settles a bit of {handle} for me", f"That's reassuring about {handle}",
        f"You're right about {handle}", f"I hadn't looked at {handle} that way",
        f"That puts {handle} in perspective")))


FOLLOW_ASKS = ("Should I tell people about {p} yet?", "How do I keep track of {p} without overthinking it?",
               "What would you do next with {p}?", "Is it normal to feel unsure about {p}?",
               "When should I make time for {p} again?", "What could go wrong with {p}?",
               "How do I make {p} part of my week?", "Is there anything about {p} I should be careful with?",
               "Who else should know about {p}?", "Would you write {p} down somewhere?",
               "What's the first thing you'd sort out with {p}?", "Am I overthinking {p}?",
               "How would you plan around {p}?", "Is {p} worth making a fuss about?",
               "What would make {p} easier?", "Should {p} change anything else this month?",
               "Do people usually worry about something like {p}?", "How soon should I follow up on {p}?",
               "How should I bring up {p} with my family?", "How would you keep {p} from slipping?")
AGAIN_ASKS = ("Do you think I should {t} again soon?", "Would it be too much to {t} again next week?",
              "Is it worth trying to {t} again?", "How often would you {t}, realistically?",
              "Should I plan to {t} every month?", "Would you {t} again in my place?")
"""Questions that name what the user did (its plan's verb phrase), so they are about this event."""
SAME_ASKS = (("Is it normal to feel unsure about {p}?", "Do people usually worry about something like {p}?"),
             ("Should I tell people about {p} yet?", "Who else should know about {p}?"),
             ("How do I keep track of {p} without overthinking it?", "Would you write {p} down somewhere?"))
"""Follow-up questions that ask the same thing (and get the same answer): one of each group a topic."""


def ask_asked(form: str, asked: str) -> bool:
    """Whether the user has asked `form` (or a question that asks the same, SAME_ASKS) in `asked` (their earlier
    turns, lower-cased), whatever the topic was called then: its words around `{p}` are found there."""
    group = next((g for g in SAME_ASKS if form in g), (form,))
    for f in group:
        head, _, tail = f.lower().partition("{p}")
        if head and head in asked and (not tail.strip("?") or tail.rstrip("?") in asked):
            return True
    return False


def worry(event: dict[str, Any], handle: str, rng: random.Random, said: str = "") -> str:
    """A second thought about the event, naming it; not one the user has already had in the session (`said`:
    their earlier turns, lower-cased), whatever the event was called then."""
    if event["valence"] == "positive":
        return sentence(unsaid_choice(rng, handle, said, (
            f"I just hope {handle} keeps going this well", f"I don't want to overdo {handle}",
            f"{capital(handle)} still feels new", f"I keep thinking about {handle}",
            f"{capital(handle)} put me in a good mood all day", f"I told myself {handle} was a one-off, but maybe not",
            f"Part of me wants more of {handle} already", f"{capital(handle)} felt like a small reward",
            f"I'd like {handle} to become a habit", f"I was smiling about {handle} on the way home",
            f"I still can't quite believe {handle} went so well", f"{capital(handle)} gave me a real lift",
            f"I'm still buzzing from {handle}", f"{capital(handle)} was worth every minute")))
    if event.get("took_place") is False:  # it never happened: nothing about how it went
        return sentence(unsaid_choice(rng, handle, said, (
            f"I don't want {handle} to fall through again", f"{capital(handle)} still bothers me a bit",
            f"I'm trying not to dwell on {handle}", f"{capital(handle)} falling through put a dent in my week",
            f"I keep thinking about {handle} and what might have been", f"I'd really been looking forward to {handle}",
            f"I wish {handle} had gone ahead", f"Honestly, {handle} falling through threw me off")))
    return sentence(unsaid_choice(rng, handle, said, (
        f"I don't want {handle} to go wrong again", f"{capital(handle)} still bothers me a bit",
        f"I'm trying not to dwell on {handle}", f"{capital(handle)} put a dent in my week",
        f"I keep replaying {handle} in my head", f"{capital(handle)} was not how I'd pictured it",
        f"I'd rather {handle} hadn't happened like that", f"Honestly, {handle} threw me off",
        f"{capital(handle)} has left me a bit rattled", f"{capital(handle)} took more out of me than I expected")))


def unsaid_choice(rng: random.Random, handle: str, said: str, options: tuple[str, ...]) -> str:
    """One of `options` whose words other than the handle the user has not said yet (all said: any)."""
    def words(option: str) -> str:
        return " ".join(option.replace(handle, " ").replace(capital(handle), " ").lower().split()).strip(" ,.")
    fresh = [o for o in options if words(o) not in said]
    return rng.choice(fresh or list(options))


@narrator("user_turn_followup")
def user_turn_followup(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A follow-up on the same topic: a reaction to the reply, one deeper question naming the paraphrase, maybe a
    detail of the event not yet told (user_details.py), a second thought and a feeling."""
    event = context["event"]
    handle = topic_handle(event, rng)
    para = context.get("paraphrase")
    asked = " ".join(t["text"] for t in recent(context) if t["role"] == "user").lower()
    again = any(a.split("{t}")[0].lower() in asked for a in AGAIN_ASKS + ("Should I try to {t} another time?",))
    if para or again or rng.random() < 0.5:  # whether to do it again is asked once a topic
        fresh = [a for a in FOLLOW_ASKS if not ask_asked(a, asked)]
        q = sentence(rng.choice(fresh or list(FOLLOW_ASKS)).format(p=para or handle), end="?")  # never asked twice
    else:
        retry = AGAIN_ASKS[2:3] + ("Should I try to {t} another time?",)
        asks = AGAIN_ASKS if event["valence"] == "positive" else retry
        q = sentence(rng.choice(asks).format(t=event["title"]), end="?")
        q = re.sub(r"\b(try|trying) to try\b", r"\1", q)  # `Is it worth trying to try Blue Door again?`
    required = [react(context, handle, rng), q]
    if context.get("complete"):  # the second half of a split fact (tasks/dialogue/mentions.py), said as news
        required.insert(1, context["complete"])
    heard = " ".join(t["text"] for t in recent(context))
    told = list(context.get("told") or [])
    optional = list(attachment_lines(context["attachment"], rng, 1, heard=heard, told=told)) if context.get(
        "attachment") else []
    heard_now = f"{heard} {context.get('complete') or ''}"  # a split value's half is said in this message
    added = detail_line(event, heard_now, rng, told) if rng.random() < 0.6 else None  # something new about it
    optional += [added] if added else []
    optional.append(worry(event, topic_handle(event, rng), rng, asked))
    last = next((t["text"] for t in reversed(recent(context)) if t["role"] == "user"), "")
    if not felt(last) and rng.random() < FEELING_SHARE:  # people do not restate a feeling in every message
        optional.append(feeling(event["valence"], context["style"], topic_handle(event, rng), rng, asked))
    text = build(required, optional, context, rng)
    text = named_once(text, event, {"paraphrase": para})
    return {"text": timed(ensure_phrases(text, {"paraphrase": para}), context)}
