"""The generator kit's basics: how questions name the persona and pick their moment (`who`, `ask_on`, `at`,
`moment`, `when`, `day_of`), evidence (`known`, `refs`, `carried_refs`), distractor pools (`pool`, `distinct`,
`stable_pick`), fact-store queries (`state_query`, `history_query`, `sql`), months and phrasing."""

from __future__ import annotations

import datetime as dt
import re
import string
from collections.abc import Callable, Iterable
from typing import Any

from schemas.world import Event, Fact, Plan
from tasks.common import worldindex
from tasks.common.facttext import NOT_AN_EMPLOYER, NOT_AN_OCCUPATION, first_name, is_baseline, mentions
from tasks.common.rng import stable_hash
from tasks.common.timeutil import local_date, local_datetime
from tasks.questions.base import QContext, Ref
from tasks.world.catalog import KINDS


def who(ctx: QContext) -> str:
    """The persona as questions name them: their first name."""
    return first_name(ctx.persona.name)


def ask_on(ctx: QContext, day: dt.date) -> dt.datetime:
    """09:00 persona-local on `day` (the time of a mid-timeline question)."""
    return local_datetime(ctx.persona, day, 9)


def when(ctx: QContext, asked_at: dt.datetime) -> dt.datetime | None:
    """None for the default question time (the framework fills it in), else `asked_at`."""
    return None if asked_at == ctx.asked_at else asked_at


def day_of(ctx: QContext, asked_at: dt.datetime) -> dt.date:
    """The persona-local day of a question time."""
    return ctx.day if asked_at == ctx.asked_at else local_date(ctx.persona, asked_at)


def known(ctx: QContext, fact_ids: Iterable[str], before: dt.datetime) -> bool:
    """True when every fact has evidence (claimed and carried) strictly before `before`."""
    return all(ctx.evidence_for(fid, before) for fid in fact_ids)


def refs(ctx: QContext, fact_ids: Iterable[str], before: dt.datetime | None = None,
         keep: Callable[[Ref], bool] | None = None) -> tuple[Ref, ...]:
    """Evidence for the facts (each turn/chunk claiming and carrying one), strictly before `before`."""
    out: list[Ref] = []
    for fid in fact_ids:
        out += [r for r in ctx.evidence_for(fid, before) if keep is None or keep(r)]
    return tuple(dict.fromkeys(out))


def hop_sources(ctx: QContext, first: Iterable[Ref], second: Iterable[Ref],
                link: Fact | None = None) -> dict[str, object] | None:
    """Where each hop of a two-hop question was said (sessions and documents), or None when one session or
    document says both: a question one passage answers is no multi-hop question (issue 25). `needed` is False
    when an item of the second hop also names the `link` (its value or a surface form: "my brother Daniel has
    started repainting the kitchen" answers "what is Maya's brother doing" alone), so the first hop is not
    needed; generators ask those only after the ones whose every hop is."""
    second = list(second)
    a = {s for r in first if (s := ctx.source(r))}
    b = {s for r in second if (s := ctx.source(r))}
    if not a or not b or a & b:
        return None
    needed = True
    if link is not None:
        forms = [f for f in (link.value, *link.surface_forms) if len(f) > 2]
        needed = not any((item := ctx.item(ref)) is not None and any(mentions(item[1], f) for f in forms)
                         for ref in second)
    return {"first": sorted(a), "second": sorted(b), "needed": needed}


def carried_refs(ctx: QContext, fact: Fact, before: dt.datetime, limit: int = 3) -> tuple[Ref, ...]:
    """Evidence for a linking fact: items claiming it, else the earliest items carrying its first (most
    specific) surface form even without claiming it (a turn saying "my mentor Rizal Wijaya's news ...";
    the verifier notes such a ref as a warning, evidence_claims_fact)."""
    claimed = ctx.evidence_for(fact.fact_id, before)
    if claimed:
        return tuple(claimed)
    form = fact.surface_forms[0] if fact.surface_forms else fact.value
    found: list[Ref] = []
    for stamp, kind, item_id, text in ctx.timeline:  # by time: the first `limit` found are the earliest
        if stamp >= before or len(found) == limit:
            break
        if mentions(text, form):
            found.append(Ref(kind, item_id, fact.fact_id))
    return tuple(found)


def pool(values: Iterable[str], answer: str, limit: int = 12) -> tuple[str, ...]:
    """Distinct distractors in the given order, without the answer (case-insensitively)."""
    seen = {answer.strip().lower()}
    out = []
    for v in values:
        key = v.strip().lower()
        if key and key not in seen:
            seen.add(key)
            out.append(v)
    return tuple(out[:limit])


def state_query(subject: str, attribute: str, day: dt.date) -> str:
    """The fact-store query behind a value-at-a-day question."""
    return (
        f"SELECT value FROM facts WHERE subject = '{sql(subject)}' AND attribute = '{attribute}' "
        f"AND valid_from <= '{day}' AND (valid_to IS NULL OR valid_to > '{day}') ORDER BY valid_from DESC LIMIT 1"
    )


def sql(text: str) -> str:
    """A string literal's body with quotes doubled."""
    return text.replace("'", "''")


def month_name(day: dt.date) -> str:
    """`March 2024`."""
    return f"{day:%B} {day.year}"


def month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def month_end(day: dt.date) -> dt.date:
    """The last day of `day`'s month."""
    nxt = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return nxt - dt.timedelta(days=1)


NOT_ENTITIES = NOT_AN_EMPLOYER | NOT_AN_OCCUPATION
"""Values that name no entity (a job "at self-employed"): never asked about as if they were one."""


def as_noun(value: str) -> str:
    """A value as the subject of a sentence: `flat at 82 Elm Road` -> `the flat at 82 Elm Road`."""
    if value.split(" ", 1)[0] in ("flat", "house") or " course at " in value or value.endswith(" project"):
        return f"the {value}"
    return value


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def at(ctx: QContext, day: dt.date) -> dt.datetime | None:
    """asked_at for a question asked on `day` (09:00 persona-local); None for the default day."""
    return None if day == ctx.day else local_datetime(ctx.persona, day, 9)


def moment(ctx: QContext, day: dt.date) -> dt.datetime:
    """The question time of a question asked on `day`."""
    return ctx.asked_at if day == ctx.day else local_datetime(ctx.persona, day, 9)


def item_texts(ctx: QContext) -> dict[tuple[str, str], str]:
    """(kind, id) -> text of every turn and chunk."""
    texts = {("turn", t.turn_id): t.text for t in ctx.corpus.turns}
    texts.update({("chunk", c.chunk_id): c.text for c in ctx.corpus.chunks})
    return texts


def plans_by_id(ctx: QContext) -> dict[str, Plan]:
    """The context's plans by id (the world's index: built once, not per call)."""
    return worldindex.index(ctx.world).plans


def facts_of_event(ctx: QContext, event_id: str) -> list[Fact]:
    return sorted(worldindex.index(ctx.world).facts_of(event_id), key=lambda f: f.fact_id)


def story(ctx: QContext, before: dt.date) -> list[Event]:
    """Non-baseline events dated before `before`, in date order."""
    events = [e for e in ctx.world.events if not is_baseline(e) and e.date < before]
    return sorted(events, key=lambda e: (e.date, e.event_id))


def title_fields(kind: str) -> list[str]:
    """The entity fields a kind's plan title names, in order."""
    return [name for _, name, _, _ in string.Formatter().parse(KINDS[kind].title) if name]


def history_query(subject: str, attribute: str, day: dt.date) -> str:
    return (
        f"SELECT fact_id, value, valid_from, valid_to FROM facts WHERE subject = '{subject}' "
        f"AND attribute = '{attribute}' ORDER BY valid_from; -- current: valid_from <= '{day}' "
        f"AND (valid_to IS NULL OR valid_to > '{day}')"
    )


def stable_pick(ctx: QContext, key: str, options: Iterable[Any]) -> Any:
    """The option with the smallest seeded hash: unlike a draw from the list, the pick stays the same
    when a later context (a longer world) adds options, unless a new one hashes lower."""
    seed = f"{ctx.config.seed}:{ctx.persona.persona_id}:{key}"
    return min(options, key=lambda o: stable_hash(seed, o))


def distinct(values: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """Distinct non-empty values in order, without those in `exclude`."""
    banned = set(exclude)
    return [v for v in dict.fromkeys(values) if v and v not in banned]


CUE_FILLER = frozenset("a an the for at to of on in with and i my me".split())
"""Words a description holds that tell no referent apart."""


def confusable(a: str, b: str) -> bool:
    """True when a reader could take description `a` for `b` or the other way round: the telling words of one
    contain the other's ("the person I hosted for the weekend" and "... for the long weekend": a long weekend is a
    weekend). Generators keep a description only when no other referent's is confusable with it."""
    wa = {w for w in re.findall(r"[\w'-]+", a.lower()) if w not in CUE_FILLER}
    wb = {w for w in re.findall(r"[\w'-]+", b.lower()) if w not in CUE_FILLER}
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)
