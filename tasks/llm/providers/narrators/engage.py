"""What the assistant says back to each thing the user told it: the reply engages with the message sentence by
sentence, as a person would, before it gives any advice.

A statement of the user's message (not a question, not an act such as "Just keeping you posted", not the
reaction to the last reply, not a sentence that says a told value whole) gets one response, said in the second
person and framed by what kind of thing it is:

- a feeling ("I'm really deflated about the celebration") is acknowledged with its own word ("Feeling deflated
  about the celebration makes sense.");
- a second thought ("I keep replaying the lunch in my head") gets a frame for a worry or a hope ("It's natural
  that you keep replaying the lunch in your head.");
- anything else they told is said back with a frame that fits how it sounds ("It sounds like you grabbed a
  double espresso from Daily Grind today." / "I'm sorry Beatriz postponed the party.").

`questions` asks about the event's own person or place once the user has named them ("What did you and Charlie
end up talking about?"), never about something they have not said. Nothing here states a fact of its own.
"""

from __future__ import annotations

import random
import re

from tasks.common.facttext import says_value
from tasks.llm.providers.narrators.lexicon import BAD, CALLED_OFF
from tasks.llm.providers.narrators.realize import capital, second_person, uncap

_FEELING = re.compile(
    r"^(?:I'm|I am)\s+(?:(?:so|really|pretty|quite|very|rather)\s+)?(?P<adj>pleased|relieved|happy|chuffed|excited|"
    r"proud|glad|disappointed|frustrated|annoyed|deflated|fed up|a bit down|let down)\s+(?P<prep>about|of|with|by)\s+"
    r"(?P<what>.+)$", re.IGNORECASE)
_SECOND_THOUGHT = re.compile(
    r"^(?:I don't want|I do not want|I keep|I'm trying not|I am trying not|I'd rather|I would rather|I just hope|"
    r"I told myself|Part of me|I'd like|I would like|I was smiling|I'll bounce back|I can't stop|I wish|"
    r"I'd really|I had really|I still can't quite believe|I still cannot quite believe|I'm still buzzing|"
    r"I am still buzzing)\b|"
    r"\b(?:still bothers me|threw me off|put a dent|not how I'd pictured|still feels new|made my day|"
    r"put me in a good mood|felt like a small reward|best part of the week|went better than I hoped|"
    r"gave me a real lift|was worth every minute|left me a bit rattled|took more out of me|was a real highlight|"
    r"turned out really well)\b",
    re.IGNORECASE)
_SKIP = re.compile(
    r"^(?:Just keeping you posted|I'll let you know|That's where|So that's the latest|More on|That's the state|"
    r"Thought you'd like|Just wanted to tell|I had to share|Anyway, that was|I wanted you to hear|Here's|"
    r"I'm attaching|I am attaching|I've uploaded|I have uploaded|Here is|"
    r"This is (?:a|an|the) |Thanks|That makes sense|Okay|Ok\b|That's a fair|That is a fair|Right, I'll|Right, I will|"
    r"Good, that|Good point|I like the idea|I hadn't thought|I had not thought|That's reassuring|That is reassuring|"
    r"You're right|You are right|I hadn't looked|I had not looked|That puts|"
    r"I'll try|I will try|I might start|I can manage|Oh, [a-z]|"
    r"Yes, |Morning|Good morning|Hi\b|Hey\b|Evening|Good evening|Afternoon|Hello)", re.IGNORECASE)
_ACT = re.compile(r"\b(?:that was (?:the|my)|let you know how|keeping you posted|wanted you to hear|you'd like to know|"
                  r"had to share|wait to tell you|been meaning to mention|been wanting to tell you)\b", re.IGNORECASE)
"""What the user does with the news (narrators/user.py ASKS: `Anyway, that was the knitting.`), not news."""
_TAKEN = re.compile(r"\b(?:sounds doable|makes sense|is a good shout|is easy enough|that's clever|that is clever|"
                    r"could work)\b")
_CORRECTION = re.compile(r"\b(?:I mixed that up|Actually, it was|I tell a lie|No, hang on|not\b[^.]*, I mean)\b",
                         re.IGNORECASE)
_SUBJECT = re.compile(
    r"^(?:(?:I|I'm|I've|I'd|I'll|My|We|We're|We've|Our|The|It|It's|This|That|There|Everything|Nobody|Someone|"
    r"Everyone|Nothing|He|She|They|He's|She's|They're)\b|"
    r"(?:Dr\. )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)+(?:'s)? (?!\w+ing\b)[a-z]|"
    r"[A-Z][\w'-]+(?:'s \w+)? (?:\w+ed|has|have|is|was|rang|said|told|came|got|made|took|gave|left|sent|seems|"
    r"wants|loves|and I)\b)")
"""A sentence with a subject (`I ...`, `Beatriz postponed ...`): fragments (`Feeling good about this`, `Quick run
round the market`) are never framed as a clause."""
_NEGATIVE = re.compile(
    r"n't\b|\b(?:not|never|wrong|bother|dent|threw me|fell through|cancel\w*|call(?:ed)? off|postpone\w*|turned away|"
    r"missed|knocked|dwell|replay\w*|worr\w*|stress\w*|let down|rather|hadn't|sick|ill|hurt|injur\w*|lost|broke\w*|"
    r"late|rejected|refused|allowed|can't|cannot|owe|down)\b", re.IGNORECASE)
_LEADS = re.compile(r"^(?:(?:So|And|Also|Well|Oh|Plus|Anyway|Basically|Honestly|Frankly|All things considered|"
                    r"To be fair|To be honest|To be sure|I must say|Y'know|Tbh|Ngl|Lol|For real|Oh, and|By the way|"
                    r"Another thing|One more thing about [^:]+|Oh, and about [^:]+|Back to [^:]+ for a second|"
                    r"Something else about [^:]+|Also, on [^:]+),?:?\s+)+", re.IGNORECASE)
HEDGES = re.compile(r",?\s*\b(?:to be fair|to be honest|honestly|y'know|for real|lol|haha|ngl|tbh|kind of|basically|"
                    r"frankly|I must say|to be sure|all things considered|indeed|certainly|in any case)\b,?",
                    re.IGNORECASE)
"""The persona's favourite words and hedges (tasks/world/banks.py VOCAB_CASUAL, VOCAB_FORMAL): theirs, never
said back inside what they told (`a bit down about the visit, haha`)."""

_SENT = re.compile(r"(?<=[.!?])(?<!\bSt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)\s+(?=[\"'A-Z\[])")
"""A sentence break, but not after a title or `St.` (`the promotion at St. Mary's`)."""


def user_sentences(message: str) -> list[str]:
    """The sentences of a user message, without the upload marker and emoji."""
    body = re.sub(r"^\[Upload [^\]]*\]\s*", "", message.strip())
    body = re.sub("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]", "", body)
    return [s.strip() for s in _SENT.split(body) if s.strip()]


FEELING_FRAMES = {
    "positive": ("You've every reason to be {adj} {prep} {what}.", "No wonder you're {adj} {prep} {what}!",
                 "I'd be {adj} {prep} {what} too.", "Being {adj} {prep} {what} sounds well deserved.",
                 "It's lovely to hear you're {adj} {prep} {what}.", "Of course you're {adj} {prep} {what}; you should "
                 "be.", "I'm happy you're {adj} {prep} {what}.", "Anyone would be {adj} {prep} {what}."),
    "negative": ("Feeling {adj} {prep} {what} is completely understandable.", "Of course you're {adj} {prep} {what}.",
                 "It's fair to be {adj} {prep} {what}.", "Anyone would be {adj} {prep} {what}.",
                 "Being {adj} {prep} {what} makes sense, and it won't last forever.",
                 "I'd be {adj} {prep} {what} too.", "It's okay to be {adj} {prep} {what} for a while.",
                 "Nobody could blame you for being {adj} {prep} {what}."),
}
THOUGHT_FRAMES = {
    "positive": ("It's wonderful that {s}.", "I'm glad {s}.", "{S}, and that's worth holding on to.",
                 "That's a good sign: {s}.", "I love that {s}.", "It's great that {s}.",
                 "{S}, which says a lot.", "How lovely that {s}."),
    "negative": ("It's natural that {s}.", "I can understand why {s}.", "It makes sense that {s}.",
                 "{S}, and that's a very human reaction.", "I hear you: {s}.", "It's understandable that {s}.",
                 "{S}, and that's okay.", "I can see why {s}."),
}
TOLD_FRAMES = {
    "positive": ("It sounds like {s}.", "How nice that {s}.", "I'm glad {s}.", "So {s}, which is great.",
                 "{S}, and that sounds like a good day."),
    "negative": ("I'm sorry {s}.", "It sounds like {s}, which can't have been easy.", "That's hard: {s}.",
                 "So {s}; that's a lot to take in.", "{S}, and I can see why that stings."),
    "neutral": ("It sounds like {s}.", "So {s}.", "Good to know {s}.", "{S}, then.", "Thanks for explaining that {s}."),
}


def statements(message: str, values: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The user's statements a reply can say back: no questions, acts, reactions, greetings or corrections, and
    none that says a told value whole (the reply would only echo the store's words)."""
    if _CORRECTION.search(message):
        return []
    out = []
    for s in user_sentences(message):
        core = capital(HEDGES.sub("", _LEADS.sub("", s)).strip(" ,"))
        if (s.endswith("?") or len(core.split()) < 4 or _SKIP.match(core) or _SKIP.match(s) or _ACT.search(s)
                or not _SUBJECT.match(core)
                or _TAKEN.search(core)
                or says_value(core, values) or '"' in core or ":" in core):
            continue
        out.append(re.sub(r", but maybe not\.$", ", and now I'm not so sure.", core))  # said back: no doubt tag
    return out


def response(statement: str, tone: str, rng: random.Random) -> str:
    """The reply's sentence about one thing the user said (see the module doc)."""
    body = statement.rstrip(".!")
    feeling = _FEELING.match(body)
    if feeling:
        valence = "positive" if feeling["adj"].lower() in ("pleased", "relieved", "happy", "chuffed", "excited",
                                                            "proud", "glad") else "negative"
        return rng.choice(FEELING_FRAMES[valence]).format(adj=feeling["adj"].lower(), prep=feeling["prep"].lower(),
                                                          what=second_person(feeling["what"]))
    s = re.sub(r"^you just\b", "you", second_person(body))
    negative = bool(_NEGATIVE.search(body))
    if _SECOND_THOUGHT.search(body):
        frames = THOUGHT_FRAMES["negative" if negative or tone in BAD else "positive"]
    elif negative or tone in BAD:
        frames = TOLD_FRAMES["negative"]
    else:
        frames = TOLD_FRAMES["positive" if tone == "positive" else "neutral"]
    frame = rng.choice(frames)
    return frame.format(s=s if frame.startswith("{S}") else mid_sentence(s), S=capital(s))


_COMMON_STARTS = frozenset("you you're you've you'd you'll your the it it's this that there everything nobody "
                           "someone everyone nothing he she they he's she's they're".split())


def mid_sentence(clause: str) -> str:
    """`clause` as it reads inside a sentence: a pronoun or article lower-cased, a name kept (`Kwame rang`)."""
    first = clause.split(" ", 1)[0]
    return uncap(clause) if first.lower() in _COMMON_STARTS else clause


def responses(message: str, tone: str, rng: random.Random, values: list[str] | tuple[str, ...] = (),
              limit: int = 3, said: str = "") -> list[str]:
    """Up to `limit` responses to the message's statements, in the message's order, none the window has seen
    (`said`: the assistant's earlier replies, lower-cased)."""
    out: list[str] = []
    for statement in statements(message, values):
        if len(out) >= limit:
            break
        line = response(statement, tone, rng)
        if line.lower() not in said and line not in out:
            out.append(line)
    return out


RECALL_FRAMES = ("Earlier you said {s}, and that still matters here.", "You mentioned before that {s}.",
                 "Going back to what you said earlier: {s}.", "I haven't forgotten that {s}.",
                 "And as you said before, {s}.", "Keep in mind what you told me earlier: {s}.")
"""A reply saying back something the user told in an earlier turn of its window that it has not answered."""


_PRONOUN = re.compile(r"^(?:It|It's|That|That's|This|They|He|She|There)\b")


def recalled(history: list[dict[str, str]], rng: random.Random, values: list[str] | tuple[str, ...] = (),
             said: str = "", limit: int = 2) -> list[str]:
    """Up to `limit` things the user told in earlier turns of the window (latest first) that no reply in the
    window has said back (`said`, lower-cased), each in the second person; nothing from small talk (filler turns)
    and nothing whose subject is a pronoun (out of its turn it refers to nothing)."""
    out: list[str] = []
    for turn in reversed(history):
        if turn.get("role") != "user" or turn.get("kind") == "filler":  # small talk is not what they told
            continue
        for statement in statements(turn.get("text", ""), values):
            body = second_person(statement.rstrip(".!"))
            if len(out) >= limit or _FEELING.match(statement) or uncap(body).lower() in said \
                    or _PRONOUN.match(statement):  # `it caught me off guard`, out of its turn, is about nothing
                continue
            out.append(rng.choice(RECALL_FRAMES).format(s=mid_sentence(body)))
    return out


QUESTIONS: dict[str, tuple[str, ...]] = {
    "person": ("What did you and {person} end up talking about{at}?", "How did {person} seem{at}?",
               "Is {person} someone you'd like to see more often?", "Did {person} say how things are on their "
               "side{at}?", "Have you heard from {person} since{since}?", "What's {person} like to spend time with?",
               "How long have you known {person}?", "Does {person} know how much it meant to you?",
               "What's {person} up to these days?", "Did {person} enjoy it as much as you did?"),
    "person_negative": ("Have you heard from {person} since?", "Did {person} say what happened?",
                        "Do you think {person} felt the same way about it?", "Is it easy to talk to {person} about it?",
                        "How do things stand with {person} now?"),
    "place": ("What made {place} stand out?", "Would you go back to {place}?", "How did you come across {place}?",
              "Is {place} easy to get to from yours?", "What's the atmosphere like at {place}?",
              "Was {place} busy{when}?", "What was {place} like{when}?", "Did you have {place} mostly to yourself"
              "{when}?", "Were there many people at {place}{when}?"),
    "place_negative": ("Was it {place} itself, or just the timing?", "Had {place} been good before?",
                       "Would you give {place} another try?", "Is there somewhere else near {place} you like?",
                       "Was {place} unusually busy{when}?", "Was it the same at {place} last time?"),
    "person_called_off": ("Have you heard from {person} since?", "Did {person} say what came up?",
                          "Is {person} keen to rearrange?", "How do things stand with {person} now?",
                          "Is it easy to find a date that suits {person}?"),
    "place_called_off": ("Is {place} easy to book again?", "Would you still like to try {place} another time?",
                         "Is there somewhere else near {place} you like?",
                         "Had you been looking forward to {place} for a while?",
                         "Can you get into {place} at short notice?"),
}
"""Questions about the event's own person or place (`{person}` a first name, `{place}` a name the user used;
`{at}` and `{since}` the occasion or its time, or nothing: OCCASIONS; `{when}` the time the user said, `that
day` or nothing); `_called_off` for a plan that did not take place (no `last time`, no `another try`)."""

OCCASIONS = {"colleague_lunch": "at lunch", "dinner_out": "at dinner", "family_call": "on the call",
             "relationship_talk": "during the talk", "first_date": "on the date", "visit_family": "during the visit",
             "friend_visit": "during the visit", "partner_evening": "that evening", "concert": "at the concert",
             "milestone": "at the celebration", "volunteer": "while you were volunteering",
             "hobby_session": "during the session", "cafe_visit": "over coffee", "meet_someone": "when you met",
             "friend_call": "on the call"}
"""Event kind -> where in it a question about its person is set (`How did Robin seem at lunch?`)."""
_SINCE = re.compile(r"^(?:on )?((?:last )?(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|week|weekend)"
                    r"|yesterday)$", re.IGNORECASE)


def occasion_slots(kind: str | None, when: str, rng: random.Random) -> dict[str, str]:
    """`{at}` and `{since}` for a question about the event's person: the occasion (`at lunch`), when the user said
    it was (`yesterday`, `on Tuesday`) or nothing; `{when}` for one about its place (the time, `that day` or
    nothing); drawn for each reply."""
    at = [""] + ([f" {OCCASIONS[kind]}"] if kind in OCCASIONS else []) + ([f" {when}"] if when else [])
    since = _SINCE.match(when or "")
    return {"at": rng.choice(at), "since": rng.choice(["", " then"] + ([f" {since.group(1)}"] if since else [])),
            "when": rng.choice(["", " that day"] + ([f" {when}"] * 2 if when else []))}


def questions(parties: dict[str, str], tone: str, rng: random.Random, said: str = "", kind: str | None = None,
              when: str = "") -> list[str]:
    """The questions the reply could ask about who or where the event was, shuffled, none asked in the window
    (whatever occasion or time it is set in)."""
    out = []
    slots = occasion_slots(kind, when, rng)
    for key in ("person", "place"):
        if key in parties:
            bank = QUESTIONS[f"{key}_called_off" if tone == CALLED_OFF else f"{key}_negative" if tone in BAD
                             else key]
            out += [q.format(**parties, **slots) for q in bank  # asked once, whatever it was set in
                    if q.format(**parties, at="\0", since="\0", when="\0").split("\0")[0].rstrip("?").lower()
                    not in said]
    out = [q for q in out if q.lower() not in said]
    rng.shuffle(out)
    return out
