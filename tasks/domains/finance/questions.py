"""FinPerMA's questions: three dimensions (memory fidelity, preference reasoning, context adaptation), three
characteristics each, crossed with the four checkpoints. This module holds the preference-reasoning
generators and the zero-memory controls, and imports the others (questions_memory.py,
questions_adapt.py; shared readers and option pools in questions_common.py), so importing it registers
all nine generators.

Every answer is computed from the fact store as of the candidate's question time (the persona's
`stock_allocation`, `risk_tolerance`, `investment_goal`, `investment_horizon` facts and one `reaction`
fact per catalog event, subject the event's title) and, for the constraint items, from the Impact
Model's rows (`World.extras["impact_constraints"]`, dated up to the question day). Time-dependent items
(the current stance, the net shift, the largest cut, the suitable product) keep one question text at every
question time, so the framework's ShockCheck can ask the same question just before a critical event; the
derivation also records the latest shock that changed the answer and the answer the day before it
(`shock_event_id`, `answer_before_shock`), which the finance gate recomputes from the facts. Such items
are also asked one hour after each new value was first told, so a persona whose shock moved its
allocation has post_shock items.

Event items are asked either soon after the persona told about the event (in_timeline) or after a block of
unrelated sessions (post_distraction), alternating by event. Options come only from the candidate's own
closed pool (`own_distractors`): catalog titles, allocations on the 5-point grid, shifts into the same end
allocation from other grid starts, the catalog's responses, the six products, plans and bias words.
`controls` builds zero-memory items that state the profile in the question and ask what the stated type
rule implies (no evidence needed).
"""

from __future__ import annotations

import datetime as dt

from tasks.common.facttext import capital, first_name
from tasks.domains.finance.investors import RISK_BANDS
from tasks.domains.finance.questions_adapt import (  # noqa: F401  (registers the context-adaptation generators)
    bias_guard,
    constraint_compliance,
    product_on,
    remembered,
    suitable_option,
)
from tasks.domains.finance.questions_common import (  # noqa: F401  (re-exported for callers and tests)
    FALLBACK_BANDS,
    FIXED,
    Lived,
    alloc,
    alloc_pool,
    alloc_text,
    asked,
    cand,
    catalog_titles,
    change_of,
    event_moment,
    lived,
    other_titles,
    pct,
    shift_pool,
    shift_text,
    shock_record,
    timed,
    value_on,
)
from tasks.domains.finance.questions_memory import (  # noqa: F401  (registers the memory generators)
    event_recall,
    latest_title,
    reaction_recall,
    stated_preference_recall,
)
from tasks.domains.finance.review import (  # noqa: F401  (wording tables, re-exported)
    BIAS_WORDS,
    MOVES,
    PERSONAL_RULE,
    PLANS,
    PRODUCTS,
    TYPE_RULES,
    product_for,
    rule_move,
)
from tasks.questions.base import Candidate, QContext, generator


# -- preference reasoning --------------------------------------------------------------------------
@generator("preference_reasoning", "current_risk_stance")
def current_risk_stance(ctx: QContext) -> list[Candidate]:
    """The persona's stock allocation and risk band at the question time (changed by every shock): asked now, and
    since each of their events while it is still their latest one (`since_latest`)."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    asks = {"stock_allocation": ("allocation", f"Given everything {who} has been through, how much of {who}'s "
                                               "portfolio is in stocks now?", "{} now holds {}."),
            "risk_tolerance": ("band", f"How would you describe {who}'s risk tolerance at this point?",
                               "{}'s risk tolerance is now {}.")}
    for attribute, (variant, question, reference) in asks.items():
        for moment, day, value, record in timed(ctx, ctx.history(name, attribute),
                                                lambda d, a=attribute: value_on(ctx, a, d)):
            fact = ctx.current(name, attribute, day)
            if fact is not None and (variant == "band" or pct(value) is not None):
                out.append(cand("preference_reasoning", "current_risk_stance", variant, question, value,
                                reference.format(who, value), [fact.fact_id], moment,
                                stance_pool(ctx, attribute, value),
                                extra={"subject": name, "attribute": attribute, "answer_rule": "current_value",
                                       **record}))
    return out + since_latest(ctx)


SINCE = {"stock_allocation": ("since_allocation", "Since {title}, how much of {who}'s portfolio has been in stocks?",
                              "Since {title}, {who} has held {value}."),
         "risk_tolerance": ("since_band", "Since {title}, how would you describe {who}'s risk tolerance?",
                            "Since {title}, {who}'s risk tolerance has been {value}.")}
"""The current stance asked from the persona's latest event on: the text names the event, so each event asks
its own question (a persona asks a question text once; the `now` wording above can be asked only once)."""


def stance_pool(ctx: QContext, attribute: str, value: str) -> list[str]:
    """Same-form options for a stance: grid allocations around it, or the persona's bands then the band scale."""
    if attribute == "stock_allocation":
        return list(alloc_pool(pct(value) or 0))
    return [f.value for f in ctx.history(ctx.persona.name, attribute)] + list(risk_bands())


def since_latest(ctx: QContext) -> list[Candidate]:
    """The allocation and band one of the persona's events set, asked as what has held since it: soon after the
    event was told or after a distraction block (`event_moment`), and only while it is still their latest event
    and the value has not moved since it (so `since` is true). The derivation names subject and attribute (the
    review and the shock check recompute the value held then) and carries the shock record of a changed value,
    as `timed` does."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    items = [i for i in lived(ctx, ctx.day) if i.reaction is not None]
    for n, item in enumerate(items):
        later = items[n + 1].event.date if n + 1 < len(items) else None
        for attribute, (variant, question, reference) in SINCE.items():
            fact = ctx.current(name, attribute, item.event.date)
            if fact is None or fact.event_id != item.event.event_id or (
                    attribute == "stock_allocation" and pct(fact.value) is None):
                continue  # `since` an event that set the value: one that left it alone did not start anything
            moment, day = asked(ctx, event_moment(ctx, n, [fact.fact_id, item.reaction.fact_id], item.event.event_id))
            now = ctx.current(name, attribute, day)
            if (later is not None and day >= later) or now is None or now.fact_id != fact.fact_id:
                continue
            record = shock_record(ctx, fact.value, day, lambda d, a=attribute: value_on(ctx, a, d))
            if moment is not None and not record and any(i.event.critical for i in lived(ctx, day)):
                continue  # a shock precedes it without changing it: no post_shock suspicion that cannot hold
            text = question.format(title=item.title, who=who)
            out.append(cand("preference_reasoning", "current_risk_stance", variant, text, fact.value,
                            reference.format(title=item.title, who=who, value=fact.value),
                            [fact.fact_id, item.reaction.fact_id], moment, stance_pool(ctx, attribute, fact.value),
                            extra={"subject": name, "attribute": attribute, "answer_rule": "current_value",
                                   "event_id": item.event.event_id, "event_ids": [item.event.event_id], **record}))
    return out


def risk_bands() -> tuple[str, ...]:
    """The investor model's band words (then a fallback scale, for a sixth same-form option)."""
    return tuple(dict.fromkeys(tuple(word for _, word in RISK_BANDS) + FALLBACK_BANDS))


def net_shift(ctx: QContext, day: dt.date) -> str | None:
    """The shift from the first allocation the persona stated to the one holding on `day`."""
    history = [f for f in ctx.history(ctx.persona.name, "stock_allocation") if f.valid_from <= day]
    now = alloc(ctx, day)
    if not history or now is None or pct(history[0].value) is None or pct(now.value) is None:
        return None
    return shift_text(pct(history[0].value) or 0, pct(now.value) or 0)


@generator("preference_reasoning", "shift_direction")
def shift_direction(ctx: QContext) -> list[Candidate]:
    """How one event moved the persona's stock share, and the net shift since their first stated mix."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    for n, item in enumerate(lived(ctx, ctx.day)):
        before, after = change_of(ctx, item)
        if before is None or after is None or item.reaction is None or None in (pct(before.value), pct(after.value)):
            continue
        a, b = pct(before.value) or 0, pct(after.value) or 0
        facts = [before.fact_id, after.fact_id, item.reaction.fact_id]
        moment, _ = asked(ctx, event_moment(ctx, n + 1, facts, item.event.event_id))
        out.append(cand("preference_reasoning", "shift_direction", "event",
                        f"How did {item.title} change {who}'s appetite for stocks?", shift_text(a, b),
                        f"After {item.title}, {who} {shift_text(a, b)}.", facts, moment,
                        shift_pool(a, b), priority=FIXED, extra={"event_id": item.event.event_id,
                                                 "event_ids": [item.event.event_id]}))
    out += first_of(ctx, moved=False)
    history = ctx.history(name, "stock_allocation")
    for moment, day, answer, record in timed(ctx, history[1:], lambda d: net_shift(ctx, d)):
        now = alloc(ctx, day)
        if now is None or now.fact_id == history[0].fact_id:
            continue
        start, extra = pct(history[0].value) or 0, {"superseded_fact_ids": [history[0].fact_id], **record}
        out.append(cand("preference_reasoning", "shift_direction", "net",
                        f"Compared with the mix {who} first described, how has {who}'s stock allocation moved "
                        "overall?",
                        answer, f"Overall {who} {answer.replace(':', '')}.", [history[0].fact_id, now.fact_id],
                        moment, shift_pool(start, pct(now.value) or 0), extra=extra))
    return out


def largest_move(ctx: QContext, day: dt.date, sign: int) -> Lived | None:
    """The event up to `day` with the largest cut (sign -1) or raise (sign 1) of the stock share."""
    best: tuple[int, Lived] | None = None
    for item in lived(ctx, day):
        before, after = change_of(ctx, item)
        if before is None or after is None or None in (pct(before.value), pct(after.value)):
            continue
        move = sign * ((pct(after.value) or 0) - (pct(before.value) or 0))
        if move > 0 and (best is None or move > best[0]):
            best = (move, item)
    return best[1] if best else None


@generator("preference_reasoning", "shift_cause")
def shift_cause(ctx: QContext) -> list[Candidate]:
    """Which event caused the persona's largest cut (or raise) of their stock share so far, and which event first
    left them at a stance (`stance_causes`)."""
    who, out = first_name(ctx.persona.name), stance_causes(ctx) + first_of(ctx, moved=True)
    items = lived(ctx, ctx.day)
    for sign, word in ((-1, "cut"), (1, "raise")):
        def compute(d: dt.date, sign: int = sign) -> str | None:
            found = largest_move(ctx, d, sign)
            return found.title if found else None

        for moment, day, _, record in timed(ctx, [i.reaction for i in items], compute):
            item = largest_move(ctx, day, sign)
            if item is None or item.reaction is None:
                continue
            before, after = change_of(ctx, item)
            extra = {"event_id": item.event.event_id, "event_ids": [item.event.event_id], "sign": sign,
                     "title_options": True, **record}
            facts = [f.fact_id for f in (before, after, item.reaction) if f is not None]
            out.append(cand("preference_reasoning", "shift_cause", f"largest_{word}",
                            f"Which event triggered the biggest {word} in {who}'s stock allocation so far?",
                            item.title, f"{capital(item.title)}: {who} went from {before.value if before else '?'} "
                            f"to {after.value if after else '?'}.", facts, moment,
                            other_titles(ctx, items, item.title), extra=extra))
    return out


FIRST = {True: ("shift_cause", "first_move", "Which was the first event that moved {who}'s stock allocation?"),
         False: ("shift_direction", "first_hold",
                 "Which was the first event that left {who}'s stock allocation where it was?")}


def first_of(ctx: QContext, moved: bool) -> list[Candidate]:
    """The first of the persona's events after which their stock share moved (or stayed where it was), asked
    soon after it was told or after a distraction block; options are catalog titles."""
    who, items = first_name(ctx.persona.name), [i for i in lived(ctx, ctx.day) if i.reaction is not None]
    characteristic, variant, question = FIRST[moved]
    for n, item in enumerate(items):
        before, after = change_of(ctx, item)
        if before is None or after is None or None in (pct(before.value), pct(after.value)):
            continue
        if (pct(before.value) != pct(after.value)) != moved:
            continue
        facts = [before.fact_id, after.fact_id, item.reaction.fact_id]  # type: ignore[union-attr]
        moment, _ = asked(ctx, event_moment(ctx, n, facts, item.event.event_id))
        return [cand("preference_reasoning", characteristic, variant, question.format(who=who), item.title,
                     f"{capital(item.title)}: {who} {item.reaction.value}.", facts, moment,  # type: ignore[union-attr]
                     other_titles(ctx, items, item.title),
                     extra={"event_id": item.event.event_id, "event_ids": [item.event.event_id],
                            "title_options": True})]
    return []


CAUSES = {"risk_tolerance": ("band_change", "Which event left {who} with {article} {value} risk tolerance?"),
          "stock_allocation": ("reached", "Which event first put {who} at {value}?")}


def stance_causes(ctx: QContext) -> list[Candidate]:
    """The event whose reaction first set a risk band or an allocation the persona has held (a value held once in
    their history, set by one of their catalog events), asked soon after it was told or after a distraction block."""
    who, name, out = first_name(ctx.persona.name), ctx.persona.name, []
    items = [i for i in lived(ctx, ctx.day) if i.reaction is not None]
    by_event = {i.event.event_id: (n, i) for n, i in enumerate(items)}
    for attribute, (variant, question) in CAUSES.items():
        history = ctx.history(name, attribute)
        values = [f.value for f in history]
        for fact in history[1:]:
            if values.count(fact.value) != 1 or fact.event_id not in by_event:
                continue
            n, item = by_event[fact.event_id]
            facts = [fact.fact_id, item.reaction.fact_id]  # type: ignore[union-attr]
            moment, _ = asked(ctx, event_moment(ctx, n, facts, item.event.event_id))
            text = question.format(who=who, value=fact.value, article="an" if fact.value[0] in "aeiou" else "a")
            out.append(cand("preference_reasoning", "shift_cause", variant, text, item.title,
                            f"{capital(item.title)}: after it {who} held {fact.value}.", facts, moment,
                            other_titles(ctx, items, item.title),
                            extra={"event_id": item.event.event_id, "event_ids": [item.event.event_id],
                                   "value": fact.value, "title_options": True}))
    return out


# -- zero-memory controls --------------------------------------------------------------------------

def controls(ctx: QContext) -> list[Candidate]:
    """Zero-memory controls on all three dimensions: each states the profile it needs in the question."""
    who, bit = first_name(ctx.persona.name), str(ctx.persona.attributes.get("bit_type", ""))
    out: list[Candidate] = []
    zero = {"checkpoint": "zero_memory"}
    for item in lived(ctx, ctx.day) if bit in TYPE_RULES else []:
        personal, sign = item.event.kind.startswith("personal:"), -1 if item.event.valence == "negative" else 1
        rule = PERSONAL_RULE[0] if personal else TYPE_RULES[bit][0]
        answer, article = rule_move(bit, personal, sign), "an" if bit[0] in "aeiou" else "a"
        out.append(cand("preference_reasoning", "shift_direction", "control_rule",
                        f"{who} is {article} {bit} investor, and {rule}. {capital(item.title)} is "
                        f"{'bad' if sign < 0 else 'good'} news for {who}. Following that rule, what should {who} do?",
                        answer, f"By the rule, {answer}.", [], None, MOVES,
                        extra={"control": True, "bit_type": bit, "personal": personal, "sign": sign}, **zero))
    shares = sorted({s for f in ctx.history(ctx.persona.name, "stock_allocation") if (s := pct(f.value)) is not None})
    for share in shares:
        out.append(cand("context_adaptation", "suitable_option", "control_product",
                        f"An investor keeps {share} percent of their savings in stocks and wants one product that "
                        "matches that mix. Which option fits?", product_for(share),
                        f"{share} percent in stocks fits {product_for(share)}.", [], None, PRODUCTS,
                        extra={"control": True, "share": share}, **zero))
    rng = ctx.rng("finance:controls")
    for start in shares[:3]:
        down, up = rng.choice((5, 10, 15, 20)), rng.choice((5, 10, 15))
        if start - down < 0 or up == down:
            continue
        end = start - down + up
        out.append(cand("memory_fidelity", "stated_preference_recall", "control_arithmetic",
                        f"{who} reported holding {start} percent in stocks, then moving {down} points into bonds "
                        f"after one shock and {up} points back into stocks a month later. What does {who} hold now?",
                        alloc_text(end), f"{start} - {down} + {up} = {end}: {alloc_text(end)}.", [], None,
                        alloc_pool(end), extra={"control": True, "start": start, "down": down, "up": up}, **zero))
    return out
