"""Offline narrators for the external-source prompts: email_notice, journal, report_questions, report.

Each one is a structured template: banks of phrasings chosen with the request's RNG, the persona's
voice for their own writing, every fact's `must_include` phrase verbatim (a paraphrased fact's is a name its
paraphrase keeps, and a journal drops story lines holding the surface form it must `avoid`), and (for reports)
numbers read only from the rules' table in the context. A journal tells each event from its own narrative.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import mentions
from tasks.llm.providers.narrators.corpus import band, capital, extra_sentences, fact_sentence, lead_in, voiced
from tasks.llm.providers.narrators.world import DETAILS as WORLD_DETAILS
from tasks.llm.providers.narrators.world import FEELINGS as WORLD_FEELINGS
from tasks.llm.providers.narrators.world import OPENERS as WORLD_OPENERS
from tasks.llm.providers.offline import narrator

NOTICE_SUBJECTS = {
    "newsletter": ("{s}: this week's picks", "Your weekly update from {s}", "{s} | What's new this week"),
    "receipt": ("Your receipt from {s}", "Order confirmation - {s}", "Thanks for shopping at {s}"),
    "notice": ("Important: {t}", "Notice of {t}", "Heads-up: {t}"),
}
NEWS_ITEMS = ("five weekend events worth a look", "a reader's guide to seasonal recipes",
              "the best-reviewed podcasts of the month", "tips for a calmer morning routine",
              "a local bakery's story", "three free exhibitions opening soon",
              "how to cut your energy bill this winter", "our editors' reading list")
NOTICE_LINES = ("No action is required on your part.", "We apologise for any inconvenience.",
                "Questions can be sent to our help desk.", "Thank you for your patience.",
                "You can manage your notification settings in your account.")
JOURNAL_OPENERS = {
    "casual": ("ok, today.", "long day, writing it down before I forget.", "quick one tonight."),
    "neutral": ("Writing a few lines before bed.", "A full day to note down.", "Today, briefly."),
    "formal": ("A few notes on the day.", "Recording today's events.", "An account of the day."),
}
FEELINGS = {
    "positive": ("I feel genuinely proud of how that went.", "It left me lighter than I expected.",
                 "Honestly relieved and a bit excited.", "That felt like a real step forward."),
    "negative": ("I'm more disappointed than I want to admit.", "It stung a little, I won't pretend otherwise.",
                 "I keep replaying it, which isn't helping.", "Frustrating, but I'll get past it."),
}
FACT_FRAMES = ("{C}.", "For the record, {c}.", "So, {c}.", "Worth remembering: {c}.")
QUESTION_BANK = {
    "review": ("What happened during {t}?", "Which kinds of events were most frequent?",
               "How many outcomes were positive?", "What should change next period?"),
    "budget": ("Where did spending differ most from the plan?", "Is the {t} on track overall?",
               "Which categories need attention?"),
    "training_log": ("How consistent was practice in the {t}?", "How many minutes were logged in total?",
                     "When was effort highest?", "Which session was the longest?"),
    "status_report": ("Where does the work stand after the decision to {t}?", "What do the metrics show?",
                      "What are the next steps?"),
}
HEADINGS = ("Overview", "Highlights", "Observations", "Context", "Next steps", "Reflections")


@narrator("email_notice")
def email_notice(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A newsletter, receipt or notice from an organisation (no personal facts)."""
    kind, sender, topic = context["kind"], context["sender"]["name"], context["topic"]
    subject = rng.choice(NOTICE_SUBJECTS[kind]).format(s=sender, t=topic)
    name = context["recipient"]["name"].split()[0]
    if kind == "newsletter":
        items = rng.sample(NEWS_ITEMS, 3)
        core = "In this issue:\n\n" + "\n".join(f"- {capital(i)}" for i in items)
    elif kind == "receipt":
        core = f"Thank you for your purchase. This email confirms {topic}. Your items will be ready shortly."
    else:
        core = f"We would like to let you know about {topic}. " + " ".join(rng.sample(NOTICE_LINES, 2))
    body = "\n\n".join([f"Hello {name},", core, rng.choice(NOTICE_LINES), f"The {sender} team"])
    return {"subject": subject[:200], "body": body}


@narrator("journal")
def journal(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A Markdown journal entry: one section per event, told from the event's own story (facts a paraphrase states
    are left to it: `avoid`), then each fact the story does not state, and a feeling, in the persona's voice."""
    style, me = context["style"], context["persona"]["name"].split()[0]
    parts = [voiced(lead_in(capital(rng.choice(JOURNAL_OPENERS[band(style)])), style, rng), style, rng)]
    for event in context["events"]:
        avoid = [f["avoid"] for f in event["facts"] if f.get("avoid")]
        story = [line for line in story_lines(event.get("narrative", ""))
                 if not any(mentions(line, a) for a in avoid) and not line.startswith(me)]  # first person only
        told = " ".join(story)
        unsaid = [f for f in event["facts"] if f.get("avoid") or not mentions(told, f["must_include"])]
        said = [fact_sentence(f, FACT_FRAMES if story or i else ("{C}.",), rng) for i, f in enumerate(unsaid)]
        if not story and not said:  # nothing to tell but the plan itself
            verb = "managed to" if event["valence"] == "positive" else "tried to"
            story = [f"Today I {verb} {event['title']}."]
        text = " ".join(story + said + [rng.choice(FEELINGS[event["valence"]])])
        heading = event.get("heading") or capital(event["title"])
        parts.append(f"## {heading}\n\n{voiced(text, style, rng, event['valence'])}")
    bad_day = any(e["valence"] == "negative" for e in context["events"])
    if extra_sentences(style, rng) >= 2 and not bad_day:  # the profile's mood, not said over a setback
        parts.append(f"Mood tonight: {context['mood']}.")
    return {"title": f"Journal, {context['date']}", "body": "\n\n".join(parts)}


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")
_BANKED = frozenset(s for bank in (*WORLD_DETAILS.values(), *WORLD_OPENERS.values()) for s in bank)
_FEELING_STARTS = tuple(s for bank in WORLD_FEELINGS.values() for s in bank)


def story_lines(narrative: str) -> list[str]:
    """What happened, from the event's narrative: its sentences without the world narrator's stock openers,
    details and feelings (the entry says its own), emoji or `For the record` restatements of facts."""
    out = []
    for line in _SENTENCE.split(_EMOJI.sub("", narrative).strip()):
        line = line.strip()
        if line and line not in _BANKED and not line.startswith(_FEELING_STARTS + ("For the record",)):
            out.append(line)
    return out


@narrator("report_questions")
def report_questions(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Two to four research questions the report should answer."""
    bank = list(QUESTION_BANK[context["kind"]])
    rng.shuffle(bank)
    return {"questions": [q.format(t=context["topic"]) for q in bank[: rng.randint(2, min(4, len(bank)))]]}


@narrator("report")
def report(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A titled report: summary and one section per research question, numbers only from the table."""
    table, kind = context["table"], context["kind"]
    heads = rng.sample(HEADINGS, len(context["questions"]))
    sections = [{"heading": h, "body": answer(q, table, rng)} for h, q in zip(heads, context["questions"], strict=True)]
    if context["facts"]:
        text = " ".join(fact_sentence(f, FACT_FRAMES, rng) for f in context["facts"])
        sections.insert(0, {"heading": "What changed", "body": text})
    title = {"review": "Review: {t}", "budget": "Household {t}", "training_log": "{T}",
             "status_report": "Status report: {t}"}[kind].format(t=context["topic"], T=capital(context["topic"]))
    if context.get("version", 1) > 1:
        title += " (revised)"
    summary = f"Prepared by {context['persona']['name']} on {context['date']}. " + rng.choice(
        ("The table below has the figures.", "Figures are in the table at the end.", "Key numbers follow."))
    return {"title": title, "summary": summary, "sections": sections}


def answer(question: str, table: dict[str, Any], rng: random.Random) -> str:
    """A short paragraph answering one question from the table's own cells (the row that differs most, the
    longest session, the total), so each section says something of its own; the total row when nothing fits."""
    lead = rng.choice(("Looking at this question: ", "On this point: ", "In short: ", ""))
    fact = table_fact(question.lower(), table)
    filler = rng.choice(("Nothing here is alarming, but it is worth watching.",
                         "The pattern matches the last few weeks.", "This is a useful baseline for next time.", ""))
    return " ".join(p for p in (question, f"{lead}{fact}" if lead else capital(fact), filler) if p)


def table_fact(q: str, table: dict[str, Any]) -> str:
    """What the table says to question `q` (lower-cased), in one sentence of its cells."""
    columns, rows = table["columns"], [r for r in table["rows"] if r and r[0] != "Total"]
    total = next((r for r in table["rows"] if r and r[0] == "Total"), None)
    if not rows:
        return "the table has no rows for this period."
    if columns[:3] == ["category", "planned", "actual"]:
        if "differ most" in q:
            r = max(rows, key=lambda r: (abs(r[3]), r[0]))
            return f"{r[0]} differs most, {r[2]} spent against {r[1]} planned."
        if "attention" in q:
            over = [r for r in rows if r[3] > 0]
            return (f"{_listed([r[0] for r in over])} went over plan, by {_listed([str(r[3]) for r in over])}."
                    if over else "no category went over plan.")
        if total:
            side = "under plan" if total[3] < 0 else "over plan" if total[3] else "exactly on plan"
            by = f"{abs(total[3])} " if total[3] else ""
            return f"overall, {total[2]} was spent against {total[1]} planned, {by}{side}."
    if columns[:3] == ["kind", "events", "positive"]:
        if "frequent" in q:
            top = max(r[1] for r in rows)
            return f"{_listed([r[0] for r in rows if r[1] == top])} came up most, {top} times."
        if "what happened" in q:
            top = sorted(rows, key=lambda r: (-r[1], r[0]))[:3]
            return f"{sum(r[1] for r in rows)} events, most of them {_listed([f'{r[0]} ({r[1]})' for r in top])}."
        if "change" in q:
            worst = max(r[3] for r in rows)
            return (f"{_listed([r[0] for r in rows if r[3] == worst])} went badly most often ({worst})."
                    if worst else "nothing went badly, so nothing obvious needs to change.")
        if total:
            return f"{total[2]} of the {total[1]} events went well."
    if columns[:2] == ["date", "minutes"]:
        if "consistent" in q:
            return f"{len(rows)} sessions were logged, from {rows[0][0]} to {rows[-1][0]}."
        if "longest" in q:
            r = max(rows, key=lambda r: (r[1], r[0]))
            return f"the longest was on {r[0]}, {r[1]} minutes."
        if "highest" in q:
            r = max(rows, key=lambda r: (r[2], r[1]))
            return f"the session on {r[0]} had the highest effort, {r[2]}, over {r[1]} minutes."
        if total:
            return f"{total[1]} minutes over {len(rows)} sessions."
    if columns == ["metric", "value"]:
        values = {str(r[0]): r[1] for r in rows}
        if "next" in q and "tasks planned" in values and "tasks completed" in values:
            left, planned = values["tasks planned"] - values["tasks completed"], values["tasks planned"]
            if left <= 0:
                return f"all {planned} planned tasks are done."
            return f"{left} of the {planned} planned tasks {'is' if left == 1 else 'are'} still open."
        if "stand" in q and "tasks planned" in values and "tasks completed" in values:
            done, planned = values["tasks completed"], values["tasks planned"]
            share = f", about {round(100 * done / planned)} percent" if planned else ""
            return f"{done} of the {planned} planned tasks {'is' if done == 1 else 'are'} done{share}."
        return "; ".join(f"{r[0]}: {r[1]}" for r in rows[:3]) + "."
    if total:
        return f"the total row reads {', '.join(str(v) for v in total[1:])} for {', '.join(columns[1:])}."
    return f"the table lists {len(rows)} rows."


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
