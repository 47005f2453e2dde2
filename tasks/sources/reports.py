"""Reports: the persona's periodic reviews, budgets (with revisions) and hobby logs, and a status report
after each work project event, in Markdown or HTML, each with a table of numbers fixed by the rules.

Tables are ground truth: the rules compute them (from the world's events, or seeded draws) and store
them in `Document.tables`; the model writes only the prose around them. With a real provider a report
takes two calls: `report_questions` (what should it answer?) and then `report`.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Document, ReportDraft, ReportQuestions
from schemas.profile import Persona
from schemas.world import Event, Fact, World
from tasks.common import worldindex
from tasks.common.facttext import (
    carried_ids,
    clause,
    event_context,
    event_title,
    facts_of,
    must_include,
    names_to_keep,
    persona_context,
    story_events,
    style_context,
)
from tasks.common.happened import took_place
from tasks.common.rng import rng_for
from tasks.common.timeutil import human_date, local_datetime
from tasks.llm.gateway import CallSpec
from tasks.sources.docplan import STAGE, Planned
from tasks.sources.emails import EMPLOYER_WORDS, with_missing_facts
from tasks.world.catalog import KINDS

BUDGET_LINES = (("Housing", 900, 1600), ("Groceries", 250, 520), ("Transport", 60, 220), ("Utilities", 90, 210),
                ("Leisure", 80, 300), ("Savings", 150, 600))


@dataclass
class ReportPlan:
    """A report the rules decided on: kind, format, when, its table and facts; narrated in two steps."""

    key: str
    kind: str
    fmt: str
    created: dt.datetime
    topic: str
    table: dict[str, Any]
    persona: Persona
    facts: list[Fact] = field(default_factory=list)
    event_id: str | None = None
    parent: str | None = None
    version: int = 1

    def context(self) -> dict[str, Any]:
        return {"persona": persona_context(self.persona), "style": style_context(self.persona), "kind": self.kind,
                "topic": self.topic, "date": human_date(self.created.date()), "table": self.table,
                "version": self.version, "facts": [
                    {"fact_id": f.fact_id, "clause": clause(f, self.persona, "first"),
                     "must_include": must_include(f), "names": names_to_keep(f)} for f in self.facts]}

    def research(self) -> CallSpec:
        """Step one: the questions the report should answer."""
        context = self.context()
        context["claims"] = [f["clause"] for f in context.pop("facts")]  # no phrase to include in a question list
        return CallSpec("report_questions", context, ReportQuestions, STAGE, self.persona.persona_id)

    def planned(self, questions: ReportQuestions) -> Planned:
        """Step two: the report itself, answering the questions around the rules' table."""
        context = self.context() | {"questions": questions.questions}
        return Planned(self.key, self.created, "report", context, ReportDraft, self.persona.persona_id,
                       self.render, {"parent": self.parent}, tuple(self.facts))

    def render(self, draft: ReportDraft, conveyed: frozenset[str] = frozenset()) -> Document:
        body = (render_html if self.fmt == "html" else render_md)(draft, self.table)
        body = with_missing_facts(body, self.facts, self.persona, "first", conveyed=conveyed)
        carried = carried_ids(body, self.facts, first_only=True)
        judged = [f.fact_id for f in self.facts if f.fact_id in conveyed and f.fact_id not in carried]
        return Document(doc_id=self.key, persona_id=self.persona.persona_id, created_at=self.created,
                        source_type="report", format=self.fmt, title=draft.title.strip()[:200],
                        sender=self.persona.name, body=body, event_id=self.event_id,
                        fact_ids=[f.fact_id for f in self.facts if f.fact_id in carried or f.fact_id in judged],
                        kind=self.kind, parent_doc_id=self.parent, version=self.version, tables=[self.table],
                        judged=judged)


def cell(value: Any) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else str(value)


def render_md(draft: ReportDraft, table: dict[str, Any]) -> str:
    """Title, summary, sections and the table as Markdown."""
    parts = [f"# {draft.title.strip()}", draft.summary.strip()]
    parts += [f"## {s.heading.strip()}\n\n{s.body.strip()}" for s in draft.sections]
    rows = [table["columns"], ["---"] * len(table["columns"])] + table["rows"]
    parts += [f"## {table['caption']}", "\n".join("| " + " | ".join(cell(v) for v in r) + " |" for r in rows)]
    return "\n\n".join(parts)


def render_html(draft: ReportDraft, table: dict[str, Any]) -> str:
    """Title, summary, sections and the table as HTML, one block per line group."""
    e = html.escape
    parts = [f"<h1>{e(draft.title.strip())}</h1>", f"<p>{e(draft.summary.strip())}</p>"]
    for s in draft.sections:
        parts += [f"<h2>{e(s.heading.strip())}</h2>"] + [f"<p>{e(p.strip())}</p>" for p in s.body.split("\n\n")]
    head = "<tr>" + "".join(f"<th>{e(c)}</th>" for c in table["columns"]) + "</tr>"
    rows = ["<tr>" + "".join(f"<td>{e(cell(v))}</td>" for v in r) + "</tr>" for r in table["rows"]]
    parts += [f"<h2>{e(table['caption'])}</h2>", "\n".join(["<table>", head, *rows, "</table>"])]
    return "\n\n".join(parts)


def periods(config: BuildConfig) -> list[tuple[int, dt.date, dt.date]]:
    """(index, first day, last day) of each full report period."""
    n = config.stages.sources.report_period_days
    return [(i, config.start_date + dt.timedelta(days=i * n), config.start_date + dt.timedelta(days=i * n + n - 1))
            for i in range(config.days // n)]


def report_plans(config: BuildConfig, persona: Persona, world: World) -> list[ReportPlan]:
    """Every periodic report (review, budget and its revision, hobby log) and every work report."""
    out: list[ReportPlan] = []
    for i, first, last in periods(config):
        day = min(last + dt.timedelta(days=1), config.end_date)
        rng = rng_for(config.seed, persona.persona_id, STAGE, first, "reports")
        at = lambda h, d=day, r=rng: local_datetime(persona, d, h, r.randint(0, 59))  # noqa: E731
        key = f"{first.isoformat()}"
        out.append(ReportPlan(f"review:{key}", "review", "md", at(18), f"{human_date(first)} to {human_date(last)}",
                              review_table(world, first, last), persona))
        budget = ReportPlan(f"budget:{key}", "budget", "html", at(19), f"budget for {human_date(first)} onwards",
                            budget_table(rng), persona)
        out.append(budget)
        if i % 2 == 0 and day + dt.timedelta(days=3) <= config.end_date:
            out.append(revised(budget, rng, at(20, day + dt.timedelta(days=rng.randint(2, 3)))))
        hobby, sessions = log_sessions(world, first, last)
        if len(sessions) >= 2:  # a log of sessions that happened, none when there were too few to keep one
            out.append(ReportPlan(f"log:{key}", "training_log", "md" if i % 2 else "html", at(21),
                                  f"{hobby} log", log_table(rng, hobby, sessions), persona))
    out += [work_report(config, persona, world, e, n) for n, e in enumerate(work_events(persona, world))]
    return out


def review_table(world: World, first: dt.date, last: dt.date) -> dict[str, Any]:
    """Events of the period by kind: counts and outcomes (recomputable from the world)."""
    events = worldindex.index(world).stories_between(first, last)
    kinds = Counter(e.kind.replace("_", " ") for e in events)
    good = Counter(e.kind.replace("_", " ") for e in events if e.valence == "positive")
    rows = [[k, kinds[k], good[k], kinds[k] - good[k]] for k in sorted(kinds)]
    rows.append(["Total", len(events), sum(good.values()), len(events) - sum(good.values())])
    return {"caption": "Events by kind", "columns": ["kind", "events", "positive", "negative"], "rows": rows,
            "period": [first.isoformat(), last.isoformat()]}


def budget_table(rng) -> dict[str, Any]:
    """Planned and actual spending by category, with a total row."""
    rows = []
    for name, lo, hi in BUDGET_LINES:
        planned = rng.randrange(lo, hi, 10)
        rows.append([name, planned, planned + rng.randrange(-60, 70, 5)])
    return with_total({"caption": "Budget", "columns": ["category", "planned", "actual", "difference"],
                       "rows": [[n, p, a, a - p] for n, p, a in rows]})


def with_total(table: dict[str, Any]) -> dict[str, Any]:
    """The table with a Total row summing its numeric columns."""
    body = table["rows"]
    total = ["Total"] + [sum(r[i] for r in body) for i in range(1, len(table["columns"]))]
    return table | {"rows": body + [total]}


def revised(parent: ReportPlan, rng, when: dt.datetime) -> ReportPlan:
    """Version 2 of a budget: one category's actual spending corrected, totals recomputed."""
    rows = [list(r) for r in parent.table["rows"][:-1]]
    row = rows[rng.randrange(len(rows))]
    row[2] += rng.choice([-1, 1]) * rng.randrange(25, 160, 5)
    row[3] = row[2] - row[1]
    table = with_total(parent.table | {"rows": rows, "caption": "Budget (updated)", "updated": row[0]})
    return ReportPlan(f"{parent.key}:v2", "budget", parent.fmt, when, f"{parent.topic} (updated {row[0]})", table,
                      parent.persona, parent=parent.key, version=2)


def log_sessions(world: World, first: dt.date, last: dt.date) -> tuple[str, list[tuple[dt.date, int]]]:
    """The hobby the persona did most in the period and its sessions that happened (positive hobby_session events):
    (date, minutes) from each plan's hours."""
    found = worldindex.index(world)
    plans = found.plans
    done = [(e.date, plans[e.plan_id].entity) for e in found.stories_between(first, last) if e.kind == "hobby_session"
            and e.valence == "positive" and e.plan_id in plans]
    if not done:
        return "", []
    hobby = Counter(str(entity.get("hobby")) for _, entity in done).most_common(1)[0][0]
    return hobby, [(day, 60 * int(entity.get("hours") or 1)) for day, entity in done if entity.get("hobby") == hobby]


def log_table(rng, hobby: str, sessions: list[tuple[dt.date, int]]) -> dict[str, Any]:
    """The persona's log of the sessions of `hobby` that happened in the period (a view of the world's events):
    date and minutes, and the effort the persona rated each (their own note, not a fact); with a total."""
    rows = [[day.isoformat(), minutes, rng.randint(3, 9)] for day, minutes in sorted(sessions)]
    total = ["Total", sum(r[1] for r in rows), sum(r[2] for r in rows)]
    return {"caption": f"{hobby.capitalize()} sessions", "columns": ["date", "minutes", "effort"],
            "rows": rows + [total]}


PROJECT_KINDS = frozenset({"work_project"})
"""The core catalog's event kinds a project status report (tasks planned and done, hours, open issues) is about:
a work project, not a promotion round or a bill ('Status report: sort out the dental work' came of matching
'work' inside a title)."""
_WORK_WORDS = re.compile(rf"\b(?:{'|'.join(EMPLOYER_WORDS)})\b")


def work_events(persona: Persona, world: World) -> list[Event]:
    """Events a project status report is written for: the core catalog's PROJECT_KINDS; a domain pack's own kinds
    by an employer word (whole words) in their kind or title."""
    return [e for e in story_events(world)
            if e.kind in PROJECT_KINDS or (e.kind not in KINDS and _WORK_WORDS.search(
                f"{event_title(e, world)} {e.kind.replace('_', ' ')}".lower()))]


def work_report(config: BuildConfig, persona: Persona, world: World, event: Event, n: int) -> ReportPlan:
    """A project status report the day of a work event: metrics table and the event's facts. A project that did
    not take place (put on hold before it began: tasks/common/happened.py) has nothing done and no hours logged."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, event.date, f"work:{event.event_id}")
    planned = rng.randint(8, 30)
    done = rng.randint(planned // 3, planned)
    hours = rng.randint(20, 60)
    if not took_place(event, world):
        done, hours = 0, 0
    rows = [["tasks planned", planned], ["tasks completed", done], ["hours logged", hours],
            ["open issues", rng.randint(0, 12)]]
    table = {"caption": "Project metrics", "columns": ["metric", "value"], "rows": rows}
    title = event_context(event, world)["title"]
    return ReportPlan(f"work:{event.event_id}", "status_report", "md" if n % 2 else "html",
                      local_datetime(persona, event.date, 17, rng.randint(0, 59)), title, table, persona,
                      facts_of(world, event), event.event_id)
