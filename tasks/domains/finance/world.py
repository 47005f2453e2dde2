"""The finance pack's persona and world hooks (FinancePack delegates to these functions).

- personas: `persona_seeds` samples investors (investors.py: distributions, type rule, quotas),
  `profile_hints` and `shape_persona` make the profile agree with the sampled attributes.
- world: `baseline_facts` states the initial risk stance, allocation, goal, horizon and (for
  experienced investors) a formative market memory; `schedule` dates events_min..events_max catalog
  events at least min_gap_days apart; `roll_out` applies layer 1 of the Impact Model (impact.py) and
  turns the constraint into facts; `narrate` runs layers 2 and 3: up to three narrations through the
  `impact_reaction` prompt, each checked, then the rule-written template with confidence 0.2.
Every random choice comes from `rng_for`; the rest is a pure function of the config and the persona.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from schemas.config import BuildConfig, ConfigError
from schemas.finance import BIASES, CatalogEvent, FinanceOptions, ImpactConstraint, ImpactNarration, InvestorProfile
from schemas.profile import Persona
from schemas.world import Event
from tasks.common.rng import rng_for
from tasks.domains.base import PackOutcome, PersonaSeed, ScheduledEvent
from tasks.domains.finance import catalog
from tasks.domains.finance import impact as im
from tasks.domains.finance import investors as inv
from tasks.world import banks
from tasks.world.evolve import FactDraft, WorldState, get_path

PREFS = "traits.preferences"
FORMATIVE = ((2001, "lost money in the dot-com crash"), (2008, "lost money in the 2008 crash"),
             (2020, "lived through the COVID crash of 2020"), (2022, "lost money in the 2022 bear market"))
"""(year, what an investor who was in the market then remembers), oldest first."""
MAX_ATTEMPTS, FALLBACK = 3, 0.2
"""Narrations tried per event before the template, and the template's confidence."""
_ALLOC = re.compile(r"(\d+)% in stocks")


def options(config: BuildConfig) -> FinanceOptions:
    """The pack's validated settings (defaults when `[pack]` is empty)."""
    opts = config.pack_options
    return opts if isinstance(opts, FinanceOptions) else FinanceOptions.model_validate(config.pack)


# -- config ------------------------------------------------------------------------------------------
def check(config: BuildConfig) -> None:
    """ConfigError when the personas cannot meet the type floors or the window cannot hold the events."""
    opts, n = options(config), config.personas
    if n < 4:
        raise ConfigError(f"field 'personas': the finance pack needs at least 4 personas (one per investor "
                          f"type), got {n}")
    floor = inv.floor_count(opts.type_floor, n)
    if 4 * floor > n:
        raise ConfigError(f"field 'pack.type_floor': {opts.type_floor} asks {floor} personas of each of the 4 "
                          f"investor types ({4 * floor}), but personas = {n}")
    if opts.events_min > opts.events_max:
        raise ConfigError(f"field 'pack.events_min': {opts.events_min} is above events_max {opts.events_max}")
    if (opts.events_min - 1) * opts.min_gap_days > config.days - 1:
        raise ConfigError(f"field 'days': {config.days} days cannot hold events_min = {opts.events_min} events "
                          f"{opts.min_gap_days} days apart (need at least "
                          f"{(opts.events_min - 1) * opts.min_gap_days + 1})")
    market = spaced(catalog.events_between(config.start_date, config.end_date), opts.min_gap_days)
    if not market or len(market) + len(catalog.personal_events()) < opts.events_min:
        dated = catalog.market_events()
        raise ConfigError(
            f"field 'start_date': {config.start_date} to {config.end_date} holds {len(market)} spaced market "
            f"events of the catalog (it covers {dated[0].date} to {dated[-1].date}), too few for "
            f"events_min = {opts.events_min}")
    check_shocks(config)


def check_shocks(config: BuildConfig) -> None:
    """ConfigError when a persona could get no shock (severity >= shock_severity): the window holds no
    market shock and personal events cannot supply one (personal_share 0, or no such template for every
    age), or personal_share 1 leaves no market slot and no personal template is that severe."""
    opts = options(config)
    personal_ok = opts.personal_share > 0 and all(personal_shocks(config, age) for age in (22, 45, RETIRED_AGE, 80))
    market_ok = bool(market_shocks(config)) and round(opts.personal_share * opts.events_min) < opts.events_min
    if not (market_ok or personal_ok):
        raise ConfigError(
            f"field 'pack.shock_severity': no persona could get a shock of severity >= {opts.shock_severity}: "
            f"{config.start_date} to {config.end_date} holds {len(market_shocks(config))} such market events "
            f"and personal_share = {opts.personal_share} leaves "
            f"{'no personal slot' if opts.personal_share == 0 else 'no personal template that severe for every age'}")


def spaced(events: list[CatalogEvent], gap: int) -> list[CatalogEvent]:
    """The most dated events that keep `gap` days apart (earliest first, greedily)."""
    chosen: list[CatalogEvent] = []
    for event in sorted(events, key=lambda e: (e.date, e.catalog_id)):
        if not chosen or (event.date - chosen[-1].date).days >= gap:
            chosen.append(event)
    return chosen


# -- personas ----------------------------------------------------------------------------------------
def persona_seeds(config: BuildConfig) -> list[PersonaSeed]:
    """config.personas investors sampled with the type floors and the anti-typical share."""
    opts = options(config)
    rng = rng_for(config.seed, "*", "profile", None, "investors")
    try:
        cands = inv.sample_corpus(rng, config.personas, opts.type_floor, opts.anti_typical_share)
    except ValueError as exc:
        raise ConfigError(f"field 'pack.type_floor': {exc}") from None
    return [PersonaSeed(inv.seed_text(c, config.start_date.year), c.investor.model_dump(mode="json"))
            for c in cands]


def profile_hints(config: BuildConfig, seed: PersonaSeed) -> dict[str, Any]:
    """Age, income band, occupation, gender and city so the profile agrees with the attributes."""
    from tasks.world.profile import parse_seed

    investor = InvestorProfile.model_validate(seed.attributes)
    parsed = parse_seed(seed.seed_text)
    hints: dict[str, Any] = {"age": investor.age, "income_band": inv.income_band(investor.annual_income)}
    hints |= {k: parsed[k] for k in ("occupation", "gender") if k in parsed}
    city = banks.CITY_BY_NAME.get(parsed.get("city", ""))
    if city is not None:
        hints |= {"city": city.name, "country": city.country, "timezone": city.timezone}
    return hints


def shape_persona(config: BuildConfig, persona: Persona, seed: PersonaSeed) -> Persona:
    """The persona with the sampled Big Five, age and income band, and the investing preferences."""
    investor = InvestorProfile.model_validate(seed.attributes)
    profile = persona.profile.model_dump(mode="json")
    profile["personality"]["big_five"] = dict(investor.big_five)
    profile["identity"]["age"] = investor.age
    profile["identity"]["income_band"] = inv.income_band(investor.annual_income)
    profile["traits"]["preferences"] |= preferences(investor)
    return persona.model_validate(persona.model_dump(mode="json") | {"profile": profile})


def preferences(investor: InvestorProfile) -> dict[str, str]:
    """The investing preferences the profile holds (traits.preferences)."""
    return {
        "risk_tolerance": inv.risk_band(investor.risk_score),
        "investment_goal": investor.goals[0],
        "investment_horizon": years(investor.horizon_years),
        "stock_allocation": inv.allocation_phrase(inv.allocation(investor.risk_score)),
    }


def years(n: int) -> str:
    """`1 year`, `5 years`."""
    return f"{n} year" if n == 1 else f"{n} years"


def formative_memory(investor: InvestorProfile, start: dt.date) -> str | None:
    """The first market crash an investor of 3+ years lived through before the simulation, if any."""
    if investor.experience_years < 3:
        return None
    began = start.year - investor.experience_years
    return next((text for year, text in FORMATIVE if began <= year < start.year), None)


def baseline_facts(config: BuildConfig, persona: Persona) -> list[FactDraft]:
    """Risk tolerance, stock allocation, goal and horizon facts, and a formative memory when there is one."""
    investor, name = InvestorProfile.model_validate(persona.attributes), persona.name
    prefs = preferences(investor)
    band, alloc = prefs["risk_tolerance"], prefs["stock_allocation"]
    drafts = [
        FactDraft(name, "risk_tolerance", band, (f"{band} risk tolerance",), f"{PREFS}.risk_tolerance"),
        FactDraft(name, "stock_allocation", alloc, (alloc,), f"{PREFS}.stock_allocation"),
        FactDraft(name, "investment_goal", prefs["investment_goal"], (prefs["investment_goal"],),
                  f"{PREFS}.investment_goal"),
        FactDraft(name, "investment_horizon", prefs["investment_horizon"],
                  (f"{investor.horizon_years}-year horizon", prefs["investment_horizon"]),
                  f"{PREFS}.investment_horizon"),
    ]
    memory = formative_memory(investor, config.start_date)
    if memory:
        drafts.append(FactDraft(name, "formative_memory", memory, (memory,)))
    return drafts


# -- schedule ----------------------------------------------------------------------------------------
JOB_LOSS = frozenset({"job_loss", "job_loss_no_savings", "layoff_with_severance"})
WORK = JOB_LOSS | {"promotion_raise", "pay_cut", "bonus_windfall", "new_job_higher_pay", "starting_business",
                   "business_failure", "pension_shortfall", "retirement"}
"""Personal templates that presume a working life (a persona retired at the start gets none of them)."""
PHASE = {"promotion_raise": 0, "pay_cut": 0, "bonus_windfall": 0, "job_loss": 1, "job_loss_no_savings": 1,
         "layoff_with_severance": 1, "starting_business": 1, "new_job_higher_pay": 2, "business_failure": 2,
         "retirement": 3}
"""Order of the working-life templates: events of a job come before losing it, a new job and a failed
business after it, retirement last; other templates take a random phase."""
AGE_LIMITS = {"new_child": (18, 45), "parent_care": (30, 72), "retirement": (58, 70), "pension_shortfall": (40, 64)}
RETIRED_AGE = 67
"""Age at the start from which a persona is retired (investors.py samples retired occupations there)."""


def personal_fits(template: str, age: int) -> bool:
    """True when a personal template can happen to a persona of this age at the start (module rules)."""
    if age >= RETIRED_AGE and template in WORK:
        return False
    low, high = AGE_LIMITS.get(template, (0, 200))
    return low <= age <= high


def market_shocks(config: BuildConfig) -> list[CatalogEvent]:
    """The market events in the window of at least shock_severity."""
    opts = options(config)
    return [e for e in catalog.events_between(config.start_date, config.end_date) if e.severity >= opts.shock_severity]


def personal_shocks(config: BuildConfig, age: int) -> list[CatalogEvent]:
    """The personal templates of at least shock_severity a persona of this age can live through."""
    opts = options(config)
    return [e for e in catalog.personal_events()
            if e.severity >= opts.shock_severity and personal_fits(e.catalog_id, age)]


def schedule(config: BuildConfig, persona: Persona) -> list[ScheduledEvent]:
    """events_min..events_max catalog events in the window, min_gap_days apart, in date order, with at least
    one shock (severity >= shock_severity): a market one when the window holds one, else a personal one."""
    opts = options(config)
    age = InvestorProfile.model_validate(persona.attributes).age if persona.attributes else 45
    for attempt in range(16):
        rng = rng_for(config.seed, persona.persona_id, "loop", None, f"finance-schedule:{attempt}")
        count = rng.randint(opts.events_min, opts.events_max) if attempt < 8 else opts.events_min
        picks = _try_schedule(rng, config, opts, count, age)
        if picks is not None:
            return [_scheduled(event, day) for day, event in sorted(picks, key=lambda p: (p[0], p[1].catalog_id))]
    raise ConfigError(f"persona {persona.persona_id}: could not place {opts.events_min} catalog events "
                      f"{opts.min_gap_days} days apart between {config.start_date} and {config.end_date}")


def _try_schedule(rng, config: BuildConfig, opts: FinanceOptions, count: int,
                  age: int = 45) -> list[tuple[dt.date, CatalogEvent]] | None:
    """One random placement: a shock first, market events on their dates, then personal events at free
    spots, the personal templates ordered by their working-life phase."""
    personal_count = round(opts.personal_share * count)
    shocks = market_shocks(config)
    if (not shocks or personal_count == count) and opts.personal_share > 0:
        personal_count = max(1, personal_count)  # the shock must be a personal one
    market = catalog.events_between(config.start_date, config.end_date)
    rng.shuffle(market)
    picks: list[tuple[dt.date, CatalogEvent]] = []
    if shocks and personal_count < count:
        first = rng.choice(shocks)
        picks.append((first.date, first))
    for event in market:
        if len(picks) == count - personal_count:
            break
        if event not in [e for _, e in picks] and _free(event.date, picks, opts.min_gap_days):
            picks.append((event.date, event))
    templates = _personal_templates(rng, config, count - len(picks), age, need_shock=not picks or
                                    all(e.severity < opts.shock_severity for _, e in picks))
    if templates is None:
        return None
    days = [config.start_date + dt.timedelta(days=i) for i in range(config.days)]
    spots_taken: list[dt.date] = []
    for _ in templates:
        spots = [d for d in days if _free(d, picks, opts.min_gap_days)]
        if not spots:
            return None
        day = rng.choice(spots)
        spots_taken.append(day)
        picks.append((day, catalog.personal_events()[0]))  # placeholder, replaced below
    placed = sorted(spots_taken)
    picks = picks[: len(picks) - len(templates)] + list(zip(placed, templates, strict=True))
    return picks if len(picks) == count else None


def _personal_templates(rng, config: BuildConfig, count: int, age: int,
                        need_shock: bool) -> list[CatalogEvent] | None:
    """`count` distinct personal templates that fit the persona (one job loss at most; a shock first
    when `need_shock`), in working-life order (PHASE; others at a random phase)."""
    if count <= 0:
        return [] if not need_shock else None
    pool = [e for e in catalog.personal_events() if personal_fits(e.catalog_id, age)]
    rng.shuffle(pool)
    chosen: list[CatalogEvent] = []
    if need_shock:
        shocks = personal_shocks(config, age)
        if not shocks:
            return None
        chosen.append(rng.choice(shocks))
    for event in pool:
        if len(chosen) == count:
            break
        ids = {e.catalog_id for e in chosen}
        if event.catalog_id in ids or (event.catalog_id in JOB_LOSS and ids & JOB_LOSS):
            continue
        chosen.append(event)
    if len(chosen) < count:
        return None
    phase = {e.catalog_id: PHASE.get(e.catalog_id, rng.randint(0, 3)) for e in chosen}
    return sorted(chosen, key=lambda e: (phase[e.catalog_id], e.catalog_id))


def _free(day: dt.date, picks: list[tuple[dt.date, CatalogEvent]], gap: int) -> bool:
    return all(abs((day - other).days) >= max(gap, 1) for other, _ in picks)


def _scheduled(event: CatalogEvent, day: dt.date) -> ScheduledEvent:
    kind = f"{'personal' if event.type == 'personal' else 'market'}:{event.catalog_id}"
    return ScheduledEvent(key=event.catalog_id, date=day, kind=kind, title=event.title,
                          payload={"catalog_id": event.catalog_id, "type": event.type})


# -- roll-out (layer 1) ------------------------------------------------------------------------------
def current_risk(profile: dict[str, Any], investor: InvestorProfile) -> float:
    """The risk preference the profile shows now: its stock allocation as a share."""
    match = _ALLOC.search(get_path(profile, f"{PREFS}.stock_allocation") or "")
    return int(match.group(1)) / 100 if match else inv.allocation(investor.risk_score) / 100


def recall(name: str, shock: float, history: list[Event], state: WorldState) -> tuple[str | None, str]:
    """The memory a reaction recalls: the most severe (then latest) earlier catalog event of the same
    valence, else on a negative shock the baseline's formative-memory fact; (event id, verb phrase).
    memory_ref is always an event id: for a formative memory it is the baseline event (`<persona>-e0000`)
    that states it, and the fact is that event's `formative_memory` fact (subject: the persona)."""
    valence = "negative" if shock < 0 else "positive"
    same = [e for e in history if im.is_impact_event(e) and e.valence == valence]
    if same:
        best = max(same, key=lambda e: (e.severity, e.date, e.event_id))
        title = catalog.event(best.kind.split(":", 1)[1]).title
        return best.event_id, f"reacted to {title} back in {best.date:%B %Y}"
    memory = next((f for f in state.facts if f.subject == name and f.attribute == "formative_memory"), None)
    if memory is not None and shock < 0:
        return memory.event_id, memory.value
    return None, ""


def roll_out(config: BuildConfig, persona: Persona, state: WorldState, event: ScheduledEvent, event_id: str,
             history: list[Event]) -> PackOutcome:
    """Layer 1 for one scheduled event: the constraint, the facts it sets and what narrate needs."""
    opts = options(config)
    investor = InvestorProfile.model_validate(persona.attributes)
    cat = catalog.event(event.key)
    prior = [e for e in history if im.is_impact_event(e)]
    memory_ref, memory = recall(persona.name, im.felt_shock(cat, investor), history, state)
    constraint = im.build_constraint(
        persona_id=persona.persona_id, number=len(prior) + 1, event_id=event_id, investor=investor, event=cat,
        date=event.date, risk_before=current_risk(state.profile, investor), history=prior,
        memory_ref=memory_ref, shock_severity=opts.shock_severity,
    )
    context = reaction_context(state.profile, investor, cat, event, constraint, memory)
    return PackOutcome(
        valence="negative" if constraint.shock < 0 else "positive", severity=cat.severity,
        critical=cat.severity >= opts.shock_severity,
        drafts=impact_drafts(persona.name, constraint, event.title) + work_drafts(persona.name, cat, state),
        rows={"impact_constraints": [constraint]},
        narration={"constraint": constraint, "context": context, "title": event.title, "memory": memory},
    )


def impact_drafts(name: str, constraint: ImpactConstraint, title: str) -> list[FactDraft]:
    """The new risk band (when it changed) and allocation, and the reaction to the event."""
    drafts = []
    if constraint.direction != "hold":
        band = inv.risk_band(constraint.risk_after)
        if band != inv.risk_band(constraint.risk_before):
            drafts.append(FactDraft(name, "risk_tolerance", band, (im.band_phrase(constraint.risk_after),),
                                    f"{PREFS}.risk_tolerance"))
        alloc = inv.allocation_phrase(inv.allocation(constraint.risk_after))
        drafts.append(FactDraft(name, "stock_allocation", alloc, (alloc,), f"{PREFS}.stock_allocation"))
    drafts.append(FactDraft(title, "reaction", constraint.action, (constraint.action,)))
    return drafts


def work_drafts(name: str, cat: CatalogEvent, state: WorldState) -> list[FactDraft]:
    """The work-status fact a job loss, a new job or retirement sets (impact.WORK_STATUS; the persona's trade,
    `occupation`, stays what it is), and the employer it changes in the profile too, so the core's work events (a
    lunch with colleagues, a work project) stop with a job loss and resume with the next job: `unemployed` or
    `retired` when they leave, the first employer of their trade in their city when a new job ends a spell out of
    work."""
    if cat.catalog_id not in im.WORK_STATUS:
        return []
    phrase = im.WORK_STATUS[cat.catalog_id][0]
    ident = state.profile["identity"]
    job = ident["occupation"]
    value = {"out of work": f"out of work (formerly {job})", "retired": f"retired (formerly {job})"}.get(
        phrase, f"{job}, in a better-paid job")
    drafts = [FactDraft(name, "work_status", value, (phrase,))]
    employer = {"out of work": "unemployed", "retired": "retired"}.get(phrase)
    if employer is None and ident["employer"] in ("unemployed", "retired"):
        employer = next(iter(employers_of(job, ident["city"])), None)
    if employer is not None and employer != ident["employer"]:
        forms = (phrase,) if employer in ("unemployed", "retired") else (phrase, employer)  # the narrative says phrase
        drafts.append(FactDraft(name, "employer", employer, forms, "identity.employer"))
    return drafts


def employers_of(occupation: str, city: str) -> list[str]:
    """The employers of an occupation in a city (tasks/world/banks.py), in the bank's order."""
    return [e.format(city=city) for o in banks.OCCUPATIONS if o.title == occupation for e in o.employers]


def reaction_context(profile: dict[str, Any], investor: InvestorProfile, cat: CatalogEvent, event: ScheduledEvent,
                     constraint: ImpactConstraint, memory: str) -> dict[str, Any]:
    """What the `impact_reaction` prompt and its offline narrator need."""
    ident, comm = profile["identity"], profile["personality"]["communication"]
    acts_as = inv.acting_type(investor)
    return {
        "persona": {"name": ident["name"], "age": ident["age"], "occupation": ident["occupation"],
                    "city": ident["city"], "mood": profile["current_status"]["mood"]},
        "style": {k: comm[k] for k in ("formality", "verbosity", "emoji", "vocabulary")},
        "investor": inv.describe(investor),
        "event": {"title": event.title, "date": event.date.isoformat(), "type": cat.type, "summary": cat.summary,
                  "severity": cat.severity, "valence": "negative" if constraint.shock < 0 else "positive",
                  "typical_responses": list(cat.typical_responses)},
        "constraint": constraint.model_dump(mode="json"),
        "allocation_before": inv.allocation_phrase(inv.allocation(constraint.risk_before)),
        "allocation_after": inv.allocation_phrase(inv.allocation(constraint.risk_after)),
        "band_before": inv.risk_band(constraint.risk_before),
        "band_after": inv.risk_band(constraint.risk_after),
        "memory": memory,
        "phrases": im.fact_phrases(constraint),
        "status": im.WORK_STATUS.get(cat.catalog_id, ("", ""))[1],
        "evolutions": sorted(im.allowed_evolutions(constraint, cat.type == "personal")),
        "allowed_biases": [b for b in im.TYPE_BIASES[acts_as] if b not in constraint.forbidden_biases],
        "biases": list(BIASES),
    }


# -- narration (layers 2 and 3) ----------------------------------------------------------------------
def narrate(config: BuildConfig, persona: Persona, gateway: Any,
            pending: list[tuple[Event, PackOutcome]]) -> tuple[list[str], dict[str, list[Any]]]:
    """Up to three checked narrations per event, then the template fallback (confidence 0.2).

    Attempts are counted as the gateway made them: a live gateway repairs against layer 3 itself (it is
    the prompt's hard check), so one call may use all three; a gateway fallback (its offline template
    after failed repairs) is a failed attempt, never a passed narration. A gateway without
    `generate_many_traced` (test doubles) counts one attempt per call."""
    from tasks.llm.gateway import CallSpec

    traced = getattr(gateway, "generate_many_traced", None)
    done: dict[int, tuple[str, int, float]] = {}
    used = [0] * len(pending)
    waiting = list(range(len(pending)))
    for sample in range(MAX_ATTEMPTS):
        waiting = [i for i in waiting if used[i] < MAX_ATTEMPTS]
        if not waiting:
            break
        specs = [CallSpec("impact_reaction", pending[i][1].narration["context"], ImpactNarration, "loop",
                          persona.persona_id, sample) for i in waiting]
        calls = traced(specs) if traced else [(r, None) for r in gateway.generate_many(specs)]
        failed = []
        for i, (result, row) in zip(waiting, calls, strict=True):
            used[i] += max(1, row.attempts) if row is not None else 1
            gateway_fallback = row is not None and row.fallback
            if not gateway_fallback and im.check_narration(result, pending[i][1].narration["constraint"]) is None:
                done[i] = (result.narrative, used[i], 1.0)
            else:
                failed.append(i)
        waiting = failed
    for i in (i for i in range(len(pending)) if i not in done):
        info = pending[i][1].narration
        done[i] = (im.fallback_narrative(info["constraint"], info["title"], info["memory"]), used[i], FALLBACK)
    rows = [pending[i][1].narration["constraint"].model_copy(
        update={"narrative": done[i][0], "attempts": done[i][1], "confidence": done[i][2]})
        for i in range(len(pending))]
    return [done[i][0] for i in range(len(pending))], {"impact_constraints": rows}
