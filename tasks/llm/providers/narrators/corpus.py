"""Offline narrators for the corpus prompts: email, user_turn_initial, user_turn_followup, assistant_turn.

Each narrator assembles text from banks of phrasings chosen with the request's RNG, in the
persona's voice (formality, verbosity, emoji, vocabulary), and always includes every fact's
`must_include` phrase verbatim; everything around it is paraphrase.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.facttext import mentions
from tasks.llm.providers.offline import narrator

EMOJI = ("🙂", "😊", "🎉", "🙌", "😅", "🤞", "✨", "👍")
CONTRACTIONS = {
    "I'm": "I am", "I've": "I have", "I'll": "I will", "I'd": "I would", "it's": "it is", "It's": "It is",
    "didn't": "did not", "don't": "do not", "doesn't": "does not", "wasn't": "was not", "can't": "cannot",
    "What's": "What is", "that's": "that is", "That's": "That is", "won't": "will not", "isn't": "is not",
}
GREETINGS = {
    "casual": ("hey!", "ok so.", "heyy!", "hi hi!", "evening!"),
    "neutral": ("Hi!", "Hey there.", "Hello again.", "Evening!", "Hi there!"),
    "formal": ("Good evening.", "Hello.", "Good evening, I hope you are well.", "Hello, I have an update."),
}
OPENERS = {
    "information_sharing": {
        "positive": ("I finally went ahead and decided to {t} today.", "Some news from today: I got to {t}.",
                     "So today I managed to {t}, which I'd been meaning to do for a while.",
                     "Just wanted to tell you that I decided to {t}.",
                     "Big day: I actually went through with my plan to {t}."),
        "negative": ("I tried to {t} today, but it didn't really go to plan.",
                     "Today's attempt to {t} was a bit of a letdown.",
                     "I was supposed to {t} today and it turned out messier than I hoped."),
    },
    "advice_seeking": {
        "positive": ("I went ahead with my plan to {t}, and now I'm not sure how to handle what comes next.",
                     "So I decided to {t}, and I'd love a second opinion on the next steps.",
                     "I got to {t} today, but I'm second-guessing a few things."),
        "negative": ("I tried to {t} and it went badly, so I could use some advice.",
                     "Things went sideways when I tried to {t}.",
                     "My plan to {t} fell apart a bit today and I'm not sure what to do."),
    },
    "status_update": {
        "positive": ("Quick status update: I got to {t}.", "Update on my plan to {t}: it's done.",
                     "Checking in with progress: I managed to {t}."),
        "negative": ("Update on my plan to {t}: it didn't work out the way I wanted.",
                     "Status report: the plan to {t} hit a snag.",
                     "Checking in: I tried to {t}, with mixed results."),
    },
    "scheduling": {
        "positive": ("I've sorted out my plan to {t} and now I need to organise my week around it.",
                     "Now that I've decided to {t}, my calendar needs some rearranging.",
                     "I'm planning the next few days around my decision to {t}."),
        "negative": ("My plan to {t} went wrong, so I need to rearrange my schedule.",
                     "After the trouble with my plan to {t}, my week needs replanning."),
    },
    "attachment_consultation": {
        "positive": ('I have {desc} ("{doc}") about my plan to {t}.',
                     'Can you help me with {desc}, titled "{doc}"? It is about how I went to {t}.',
                     'Sharing {desc}: "{doc}". It is about my plan to {t}.',
                     'Here is {desc} ("{doc}"), all about my plan to {t}.'),
        "negative": ('I have {desc} ("{doc}") after my plan to {t} went wrong.',
                     'Can you look at {desc}, "{doc}"? It follows my failed attempt to {t}.',
                     'Here is {desc} ("{doc}") about my plan to {t}, which did not go well.'),
    },
}
FACT_FRAMES = ("{C}.", "Just so you know, {c}.", "For the record, {c}.", "To be clear, {c}.",
               "Long story short, {c}.", "So yes, {c}.", "The upshot: {c}.")
ASKS = {
    "information_sharing": ("Just wanted to share.", "Thought you'd like to know.",
                            "Anyway, that's my news."),
    "advice_seeking": ("What would you do in my position?", "Any tips on how to handle it?",
                       "How should I approach the next few weeks?"),
    "status_update": ("I'll keep you posted as things move along.",
                      "Nothing urgent, just keeping you in the loop."),
    "scheduling": ("Can you help me plan the next few days around it?",
                   "What's a sensible way to fit this into my week?",
                   "Could you help me block out some time for it?"),
    "attachment_consultation": ("Could you go through it and tell me what matters?",
                                "Can you summarise what it means for me?",
                                "Is there anything in it I should act on?"),
}
THANKS = {
    "casual": ("thx!", "ok cool.", "nice, makes sense.", "haha fair."),
    "neutral": ("Thanks, that's useful.", "That helps, thanks.", "Good points.", "Okay, that makes sense."),
    "formal": ("Thank you, that is helpful.", "I appreciate the advice.", "That is very clear, thank you."),
}
FOLLOWUPS = {
    "information_sharing": ("Do you think it'll change my routine much?",
                            "Is there anything I should keep track of now?",
                            "What else should I keep in mind about it?"),
    "advice_seeking": ("What if it doesn't work out the way you describe?",
                       "How would you prioritise those steps?",
                       "Which of those would you start with?"),
    "status_update": ("What should I focus on next?", "Anything I should follow up on?",
                      "How do I keep the momentum going?"),
    "scheduling": ("What's a realistic timeline for all of that?", "Should I set reminders for any of it?",
                   "How much buffer should I leave around it?"),
    "attachment_consultation": ("Is there anything in that email I should reply to?",
                                "Do I need to keep the email for my records?",
                                "Should I answer them this week?"),
}
ACKS = {
    ("positive", "initial"): ("That's lovely news, thanks for telling me.",
     "Congratulations, that sounds like a real step.",
                              "That's great to hear.", "What a nice development."),
    ("negative", "initial"): ("I'm sorry that was frustrating.", "That sounds like a tough day.",
                              "Thanks for telling me; that sounds disappointing.",
                              "Oof, that's not what you hoped for."),
    ("positive", "followup"): ("Good question.", "Happy to dig into that.", "Sure, let's think it through."),
    ("negative", "followup"): ("That's a fair worry.", "Good question, and an understandable one.",
                               "Let's take it one step at a time."),
}
MENTION_FRAMES = ("Noted: {m}.", "Good to know about {m}.", "Thanks for the detail about {m}.")
ADVICE = {
    "information_sharing": (
        "Changes like this often ripple into small daily habits, so it can help to notice what shifts "
        "over the next week.",
        "It might be worth jotting down how you feel about it now, so you can compare later.",
        "If other people are affected, a short message to them early tends to save confusion.",
        "Celebrating small milestones, even quietly, makes it easier to keep going with bigger plans."),
    "advice_seeking": (
        "A good first step is to separate what you can control from what you can't, and start with "
        "the former.",
        "Try writing down the two or three options you see, with one honest pro and con for each.",
        "It can help to talk it over with someone you trust before committing to a decision.",
        "Give yourself a small, concrete next action for tomorrow rather than solving everything at once.",
        "If the stakes are high, sleeping on it before acting is rarely a bad idea."),
    "status_update": (
        "It sounds like you're making steady progress, and keeping a simple log can show how far "
        "you've come.",
        "Now might be a good moment to decide what the next milestone is and when you'd like to reach it.",
        "If anything is still open, a short checklist can keep it from slipping through the cracks.",
        "Remember to leave some slack in your week so one delay doesn't knock everything else over."),
    "scheduling": (
        "Start with the fixed commitments, then place the flexible tasks around them.",
        "Blocking out time on your calendar, even a rough slot, makes plans far more likely to happen.",
        "Leave buffer time between appointments, especially if travel is involved.",
        "A reminder the day before and an hour before usually works well for one-off tasks.",
        "If the week is already full, it's fine to move lower-priority things to the following week."),
    "attachment_consultation": (
        "When reading an email like that, look first for deadlines, amounts and anything that asks "
        "you to reply.",
        "It's worth saving it in a folder you can find later, in case you need to refer back to it.",
        "If something in it is unclear, replying with a short, specific question is usually the fastest fix.",
        "Check whether it requires any action from you, and note the date if it does."),
}
GENERIC = (
    "Be kind to yourself while things settle; adjusting takes a little time for everyone.",
    "If it helps, we can break this into smaller steps together.",
    "Small routines often make new situations feel manageable much sooner.",
    "It's also worth thinking about what support you might want from friends or family.",
    "Keeping notes on what works and what doesn't will make the next decision easier.",
    "There's no need to get everything perfect straight away.",
)
CLOSERS = ("Would you like me to help you plan the next step?", "How are you feeling about it overall?",
           "Want me to set up a reminder or a short checklist?",
           "Is there a part of this you'd like to focus on first?",
           "Let me know if you'd like to talk any of it through.")
EMAIL_SUBJECTS = {
    "outgoing": ("{T}", "News: {t}", "Quick update", "Guess what I did", "About my plan to {t}"),
    "incoming": ("Re: {t}", "Heard your news", "Checking in", "Re: your plan to {t}"),
    "organisation": ("Confirmation: {T}", "Your request: {t}", "Update regarding your plan to {t}",
                     "Notice: {T}"),
    "reply": ("Re: {t}",),
}
EMAIL_OPENINGS = {
    "outgoing": ("I hope you're doing well.", "Hope your week is going okay.",
                 "I wanted to fill you in on something."),
    "incoming": ("I hope you're doing well.", "I was so glad to hear from you.",
                 "Just catching up on your news."),
    "organisation": ("Thank you for contacting us.", "We are writing regarding your recent request.",
                     "This message is to keep you informed."),
    "reply": ("Thanks for your message.", "Great to hear from you.", "Sorry for the slow reply."),
}
EMAIL_EVENTS = {
    ("outgoing", "positive"): ("I finally went ahead and decided to {t}.", "On {d} I managed to {t}."),
    ("outgoing", "negative"): ("I tried to {t} on {d}, but it didn't go to plan.",
     "My plan to {t} hit a snag."),
    ("incoming", "positive"): ("I heard you decided to {t}. That's wonderful!", "So glad you got to {t}."),
    ("incoming", "negative"): ("I heard things didn't go well when you tried to {t}.",
     "Sorry your plan to {t} was rough."),
    ("organisation", "positive"): ("We are pleased to confirm your request to {t}.",
     "Your plan to {t} is confirmed."),
    ("organisation", "negative"): ("Unfortunately, there was a problem with your request to {t}.",
                                   "We regret that your request to {t} could not be completed as planned."),
    ("reply", "positive"): ("That all sounds good to me.", "Really pleased it worked out.",
                            "Thanks for letting me know how it went."),
    ("reply", "negative"): ("Sorry it turned out that way.", "That sounds frustrating, I am sorry.",
                            "Thanks for telling me, even if it was not the news we hoped for."),
}
EMAIL_FACTS = {
    "outgoing": ("{C}.", "So, {c}.", "The short version: {c}."),
    "incoming": ("If I understood right, {c}.", "So {c}, which is big news.", "{C}, right?"),
    "organisation": ("Our records now show that {c}.", "Please note: {c}.", "This confirms that {c}."),
}
EMAIL_FILLER = {
    "outgoing": ("Otherwise things are fairly quiet here.", "Let's catch up properly soon.",
                 "Work has been busy as usual.",
                 "I still owe you a proper phone call, so consider this a placeholder.",
                 "The weather has been all over the place this week.", "Say hi to everyone for me."),
    "incoming": ("Let me know if you need a hand with anything.", "We should celebrate or commiserate soon.",
                 "Things here are the usual chaos.",
                 "I've been meaning to write for a while, so this was a good excuse.",
                 "We should find a weekend to get together.", "Call me whenever you have a free evening."),
    "reply": ("Let's talk properly at the weekend.", "Keep me posted.", "Speak soon.",
              "I will call you later this week.", "Give me a shout if you need anything."),
    "organisation": ("If you have any questions, reply to this email.",
                     "Please keep this message for your records.",
                     "No further action is needed unless stated above.",
                     "Our office hours are Monday to Friday, 9am to 5pm.",
                     "This is an automated message; replies are read by our support team.",
                     "You can update your contact preferences at any time."),
}
SIGNOFFS = {"outgoing": ("Talk soon,", "Love,", "Best,", "Cheers,"), "incoming": ("Take care,", "Hugs,",
                         "Best,"),
            "organisation": ("Kind regards,", "Sincerely,", "Best regards,"),
            "reply": ("Best,", "Cheers,", "Take care,")}


def band(style: dict[str, Any]) -> str:
    """The persona's register: casual, neutral or formal."""
    f = float(style["formality"])
    return "casual" if f < 0.35 else "formal" if f > 0.65 else "neutral"


def extra_sentences(style: dict[str, Any], rng: random.Random) -> int:
    """How many optional sentences this persona adds: more for verbose people."""
    v = float(style["verbosity"])
    return (0 if v < 0.34 else 1 if v < 0.67 else 2) + (1 if rng.random() < 0.3 else 0)


def voiced(text: str, style: dict[str, Any], rng: random.Random) -> str:
    """`text` in the persona's voice: no contractions when formal, emoji when they use them."""
    if band(style) == "formal":
        for short, full in CONTRACTIONS.items():
            text = re.sub(rf"(?<!\w){re.escape(short)}(?!\w)", full, text)
    if style.get("emoji") and rng.random() < 0.7:
        text = f"{text} {rng.choice(EMOJI)}"
    return text


def lead_in(sentence: str, style: dict[str, Any], rng: random.Random) -> str:
    """`sentence`, sometimes opened with one of the persona's favourite words or phrases."""
    vocab = style.get("vocabulary") or []
    if not vocab or rng.random() < 0.5:
        return sentence
    keep = sentence.startswith(("I ", "I'")) or sentence[1:2].isupper()
    return f"{capital(rng.choice(vocab))}, {sentence if keep else sentence[:1].lower() + sentence[1:]}"


def capital(text: str) -> str:
    """`text` with its first character upper-cased."""
    return text[:1].upper() + text[1:]


def fact_sentence(fact: dict[str, Any], frames: tuple[str, ...], rng: random.Random) -> str:
    """One sentence stating the fact, built around its clause (which must carry must_include)."""
    c = fact["clause"]
    if not mentions(c, fact["must_include"]):
        c = f"{c} ({fact['must_include']})"
    return rng.choice(frames).format(c=c, C=capital(c))


def missing_facts(text: str, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The facts whose must_include phrase `text` does not contain yet."""
    return [f for f in facts if not mentions(text, f["must_include"])]


@narrator("user_turn_initial")
def user_turn_initial(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A user message that opens a topic and states every listed fact."""
    style, cat, event = context["style"], context["category"], context["event"]
    attachment = context.get("attachment") or {}
    opener = rng.choice(OPENERS[cat][event["valence"]]).format(
        t=event["title"], desc=attachment.get("description", "an email"), doc=attachment.get("title",
                                              "an email"))
    parts = [rng.choice(GREETINGS[band(style)]), lead_in(opener, style, rng)]
    facts = context["facts"]
    stated = missing_facts(opener, facts) or (facts if rng.random() < 0.35 else [])
    parts += [fact_sentence(f, FACT_FRAMES, rng) for f in stated]
    asks = list(ASKS[cat])
    rng.shuffle(asks)
    parts += asks[: max(1, extra_sentences(style, rng))]
    return {"text": voiced(" ".join(parts), style, rng)}


@narrator("user_turn_followup")
def user_turn_followup(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A short user follow-up that refers back to the topic without repeating its details."""
    style, cat = context["style"], context["category"]
    questions = list(FOLLOWUPS[cat])
    rng.shuffle(questions)
    n = 1 + (1 if extra_sentences(style, rng) >= 2 else 0)
    text = " ".join([rng.choice(THANKS[band(style)]), lead_in(questions[0], style, rng)] + questions[1:n])
    return {"text": voiced(text, style, rng)}


@narrator("assistant_turn")
def assistant_turn(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A helpful reply of min_words..max_words words that states nothing the user has not said."""
    lo, hi = int(context["min_words"]), int(context["max_words"])
    opening = [rng.choice(ACKS[(context["tone"], context["turn_kind"])])]
    if context["mentioned"] and rng.random() < 0.6:
        opening.append(rng.choice(MENTION_FRAMES).format(m=rng.choice(context["mentioned"])))
    closer = rng.choice(CLOSERS)
    pool = list(ADVICE[context["category"]])
    rng.shuffle(pool)
    pool += rng.sample(GENERIC, len(GENERIC))
    target = rng.randint(lo + 10, max(lo + 10, min(hi - 20, lo + 100)))
    body = opening[:]
    for sentence in pool:
        if words(" ".join(body + [closer])) >= target:
            break
        if words(" ".join(body + [sentence, closer])) <= hi:
            body.append(sentence)
    return {"text": " ".join(body + [closer])}


def words(text: str) -> int:
    """Whitespace word count."""
    return len(text.split())


@narrator("email")
def email(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """An email (subject, body) from the sender to the recipient that carries every listed fact."""
    direction, event = context["direction"], context["event"]
    title = event["title"]
    subject = rng.choice(EMAIL_SUBJECTS[direction]).format(t=title, T=capital(title))
    body = "\n\n".join([email_greeting(context), rng.choice(EMAIL_OPENINGS[direction]),
                        email_core(context, rng), email_filler(context, rng), email_signoff(context, rng)])
    return {"subject": subject[:200], "body": body}


def email_greeting(context: dict[str, Any]) -> str:
    """`Hi Dan,` / `Dear Maya Okafor,` depending on who writes."""
    recipient = context["recipient"]["name"]
    if context["direction"] == "organisation" or band(context["style"]) == "formal":
        return f"Dear {recipient},"
    return f"Hi {recipient.split()[0]},"


def email_core(context: dict[str, Any], rng: random.Random) -> str:
    """The paragraph that says what happened and states each fact."""
    direction, event = context["direction"], context["event"]
    lead = rng.choice(EMAIL_EVENTS[(direction, event["valence"])]).format(t=event["title"], d=event["date"])
    sentences = [lead] + [fact_sentence(f, EMAIL_FACTS[direction], rng) for f in context["facts"]]
    return " ".join(sentences)


def email_filler(context: dict[str, Any], rng: random.Random) -> str:
    """A few sentences of ordinary email padding, more for verbose writers."""
    pool = list(EMAIL_FILLER[context["direction"]])
    rng.shuffle(pool)
    outgoing = context["direction"] == "outgoing"
    n = 2 + (extra_sentences(context["style"], rng) if outgoing else rng.randint(0, 2))
    return " ".join(pool[:n])


def email_signoff(context: dict[str, Any], rng: random.Random) -> str:
    """Sign-off line and the sender's name."""
    name = context["sender"]["name"]
    if context["direction"] != "organisation":
        name = name.split()[0]
    return f"{rng.choice(SIGNOFFS[context['direction']])}\n{name}"
