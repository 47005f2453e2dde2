"""Offline narrator for the `email` prompt, and the voice helpers the source narrators share.

The narrator assembles text from banks of phrasings chosen with the request's RNG, in the persona's
voice (formality, verbosity, emoji, vocabulary), and always includes every fact's `must_include` phrase
verbatim; everything around it is paraphrase. The dialogue narrators live in dialogue.py.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators.realize import expand_i_d
from tasks.llm.providers.offline import narrator

EMOJI = ("🙂", "😊", "🎉", "🙌", "😅", "🤞", "✨", "👍")
SAD_EMOJI = ("😞", "😕", "🙃", "😩", "💔")
"""The emoji a persona adds to a setback: never a grin after "I'm more disappointed than I want to admit"."""
CONTRACTIONS = {
    "I'm": "I am", "I've": "I have", "I'll": "I will", "I'd": "I would", "it's": "it is", "It's": "It is",
    "didn't": "did not", "don't": "do not", "doesn't": "does not", "wasn't": "was not", "can't": "cannot",
    "What's": "What is", "that's": "that is", "That's": "That is", "won't": "will not", "isn't": "is not",
}
EMAIL_SUBJECTS = {
    "outgoing": ("{T}", "News: {t}", "Quick update", "About my plan to {t}"),
    "incoming": ("Re: {t}", "Heard your news", "Checking in", "Re: your plan to {t}"),
    "reply": ("Re: {t}",),
}
DONE_SUBJECTS = {"outgoing": ("Guess what I did",)}
"""Subjects that say the plan was carried out: only for an event that took place and went well."""
EMAIL_OPENINGS = {
    "outgoing": ("I hope you're doing well.", "Hope your week is going okay.",
                 "I wanted to fill you in on something."),
    "incoming": ("I hope you're doing well.", "I was so glad to hear from you.",
                 "Just catching up on your news."),
    "reply": ("Thanks for your message.", "Great to hear from you.", "Sorry for the slow reply."),
}
EMAIL_EVENTS = {
    ("outgoing", "positive"): ("I finally went ahead and decided to {t}.", "On {d} I managed to {t}."),
    ("outgoing", "negative"): ("I tried to {t} on {d}, but it didn't go to plan.",
     "My plan to {t} hit a snag."),
    ("incoming", "positive"): ("I heard you decided to {t}. That's wonderful!", "So glad you got to {t}."),
    ("incoming", "negative"): ("I heard things didn't go well when you tried to {t}.",
     "Sorry your plan to {t} was rough."),
    ("reply", "positive"): ("That all sounds good to me.", "Really pleased it worked out.",
                            "Thanks for letting me know how it went."),
    ("reply", "negative"): ("Sorry it turned out that way.", "That sounds frustrating, I am sorry.",
                            "Thanks for telling me, even if it was not the news we hoped for."),
}
EMAIL_FACTS = {
    "outgoing": ("{C}.", "So, {c}.", "The short version: {c}."),
    "incoming": ("If I understood right, {c}.", "So I hear {c}.", "{C}, right?"),
    "organisation": ("{C}.",),
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
NOTICE_FILLER = ("Please keep this email for your records.", "We look forward to seeing you again.",
                 "If anything has changed, just reply to this email.")
NOTICES = {
    "booking": {"subject": ("Your visit to {s}", "Your booking at {s}", "{s}: your reservation"),
                "subject_called_off": ("Your booking at {s}", "{s}: your reservation", "{s}: booking cancelled"),
                "positive": ("Thank you for choosing {s}.", "It was a pleasure to have you with us at {s}."),
                "negative": ("We are sorry your plans with us changed.", "We are writing about your booking at {s}.")},
    "tickets": {"subject": ("Your tickets from {s}", "{s}: booking confirmation", "Your order at {s}"),
                "positive": ("Thank you for booking with {s}.", "Your order with {s} is complete."),
                "negative": ("We are writing about an event you booked at {s}.",
                             "Important information about your booking at {s}.")},
    "enrolment": {"subject": ("Your enrolment at {s}", "{s}: your course", "Enrolment update from {s}"),
                  "positive": ("Thank you for enrolling with {s}.", "We are delighted you have chosen {s}."),
                  "negative": ("We are writing about your enrolment at {s}.",
                               "Thank you for your interest in studying with {s}.")},
    "membership": {"subject": ("Your membership at {s}", "Welcome to {s}", "{s}: your application"),
                   "positive": ("Thank you for joining {s}.", "We are glad to have you as a member."),
                   "negative": ("Thank you for your interest in {s}.", "We are writing about your application.")},
    "appointment": {"subject": ("After your appointment", "Your appointment with {s}", "Your visit today"),
                    "positive": ("Thank you for coming in to see us.", "This is a summary of your appointment."),
                    "negative": ("This is a summary of your appointment.",
                                 "Thank you for coming in; we know it was not the news you hoped for.")},
    "rota": {"subject": ("Volunteering with {s}", "{s}: volunteer update", "Thank you from {s}"),
             "subject_called_off": ("Volunteering with {s}", "{s}: volunteer update", "{s}: about your shift"),
             "positive": ("Thank you for offering your time to {s}.", "We are so glad you could help out."),
             "negative": ("Thank you for offering your time to {s}.", "We are writing about your offer to help.")},
    "results": {"subject": ("Your {s} result", "{s}: official results", "Thank you for running {s}"),
                "positive": ("Thank you for taking part in {s}.", "What a day it was at {s}."),
                "negative": ("Thank you for taking part in {s}.", "We hope you are recovering well after {s}.")},
    "receipt": {"subject": ("Your receipt from {s}", "Thank you for shopping at {s}", "{s}: your purchase"),
                "positive": ("Thank you for your visit.", "We hope to see you again soon."),
                "negative": ("Thank you for your visit.", "We hope to see you again soon.")},
    "work": {"subject": ("An update from {s}", "{s}: your role", "Following our conversation"),
             "positive": ("Thank you for your time this week.", "Following our conversation, a short update."),
             "negative": ("Thank you for your time this week.", "Following our conversation, a short update.")},
}
"""Per kind of notice an organisation sends (tasks/sources/organisations.py): subject lines and openings by the
event's outcome, `{s}` the organisation; `subject_called_off`, where the usual subjects presuppose the plan took
place (`Your visit to ...`), for one that did not (the context's `took_place`)."""
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


def voiced(text: str, style: dict[str, Any], rng: random.Random, valence: str | None = None) -> str:
    """`text` in the persona's voice: no contractions when formal, emoji when they use them (a sad one for a
    setback: `valence`)."""
    if band(style) == "formal":
        text = expand_i_d(text)
        for short, full in CONTRACTIONS.items():
            text = re.sub(rf"(?<!\w){re.escape(short)}(?!\w)", full, text)
    if style.get("emoji") and rng.random() < 0.7:
        text = f"{text} {rng.choice(SAD_EMOJI if valence == 'negative' else EMOJI)}"
    return text


def lead_in(sentence: str, style: dict[str, Any], rng: random.Random) -> str:
    """`sentence`, sometimes opened with one of the persona's favourite words or phrases."""
    vocab = style.get("vocabulary") or []
    if not vocab or rng.random() < 0.5:
        return sentence
    keep = sentence.startswith(("I ", "I'")) or sentence[1:2].isupper()
    return f"{capital(rng.choice(vocab))}, {sentence if keep else sentence[:1].lower() + sentence[1:]}"


def recent(context: dict[str, Any]) -> list[dict[str, str]]:
    """The turns a dialogue narrator reads (what it does not repeat, what the user already said): the last
    `context_window` turns (`recent`), not the longer stretch the prompt shows a model for its prompt cache
    (`history`, tasks/dialogue/verify.py `window_start`). The offline narrator's sense of what was just said is
    the window it was made for."""
    turns = context["recent"] if "recent" in context else context.get("history")
    return list(turns or [])


def capital(text: str) -> str:
    """`text` with its first character upper-cased."""
    return text[:1].upper() + text[1:]


def fact_sentence(fact: dict[str, Any], frames: tuple[str, ...], rng: random.Random) -> str:
    """One sentence stating the fact, built around its clause (which must carry must_include)."""
    c = fact["clause"]
    if not mentions(c, fact["must_include"]):
        c = f"{c} ({fact['must_include']})"
    return rng.choice(frames).format(c=c, C=capital(c))


@narrator("email")
def email(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """An email (subject, body) from the sender to the recipient that carries every listed fact."""
    direction, event = context["direction"], context["event"]
    title, org = event["title"], context["sender"]["name"]
    notice = NOTICES[context.get("notice") or "booking"] if direction == "organisation" else None
    done = event.get("took_place", True) and event["valence"] == "positive"
    if notice:
        subjects = notice.get("subject_called_off", notice["subject"]) if not event.get("took_place", True) \
            else notice["subject"]
    else:
        subjects = EMAIL_SUBJECTS[direction] + (DONE_SUBJECTS.get(direction, ()) if done else ())
    subject = rng.choice(subjects).format(t=title, T=capital(title), s=org)
    opening = rng.choice(notice[event["valence"]]).format(s=org) if notice else rng.choice(EMAIL_OPENINGS[direction])
    body = "\n\n".join([email_greeting(context), opening, email_core(context, rng), email_filler(context, rng),
                        email_signoff(context, rng)])
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
    said = [fact_sentence(f, EMAIL_FACTS[direction], rng) for f in context["facts"]]
    if direction == "organisation":  # its records, as it files them: no retelling of the persona's plan
        return " ".join(said) or rng.choice(NOTICE_FILLER)
    lead = rng.choice(EMAIL_EVENTS[(direction, event["valence"])]).format(t=event["title"], d=event["date"])
    return " ".join([lead] + said)


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
