"""Investor personas for the finance pack: sampling, Behavioral Investor Type rules and type quotas.

Distributions (one draw per candidate, all from `rng_for(seed, "*", "profile", None, "investors")`):
- region: North America 40%, Europe 30%, Asia-Pacific 18%, Latin America 7%, Africa 5%; the city is
  uniform among the region's cities in `CITIES` (all of them known to the profile stage).
- age: normal(45, 14), rounded, clipped to 22..80; gender: female 49%, male 49%, non-binary 2%.
- annual income (USD): working age (< 67) lognormal with median 58,000 and sigma 0.55, times an age
  curve rising from 0.6 at 22 to 1.0 at 40; retired (>= 67) lognormal median 30,000, sigma 0.4;
  rounded to 1,000, at least 8,000. The income band (for the profile) follows from it (`income_band`).
- wealth (investable, USD): income times a lognormal multiple with median max(0.2, (age - 21) / 8) and
  sigma 0.8, rounded to 1,000.
- experience_years: floor((age - 20) * U ** 1.5), U uniform in [0, 1).
- goals: one (60%) or two distinct goals, weighted by age (`_goal_weights`); horizon from the first
  goal (`_horizon`), 1 to 50 years.
- Big Five: each trait normal(0.5, 0.18), clipped to [0.02, 0.98], rounded to 2 decimals.

Classification (Pompian's BIT, by a stated rule):
- risk score r = 0.5 + 0.45 (hz - 0.5) + 0.2 (ex - 0.5) + 0.3 (O - 0.5) + 0.15 (E - 0.5) - 0.45 (N - 0.5)
  - 0.15 (C - 0.5), clamped to [0.05, 0.95], with hz = min(horizon, 30) / 30, ex = min(experience, 20) / 20.
- activity a = 0.4 O + 0.3 E + 0.3 ex: passive when a < 0.47, else active.
- passive: preserver when r < 0.38, else follower; active: independent when r < 0.52, else accumulator
  (the thresholds are the medians of the sampled population, so each type holds about a quarter).
Rejection sampling: candidates are drawn in turn; one is accepted when its type still lacks its floor
(ceil(type_floor * N)) or when the slots left exceed the floors still open. Anti-typical personas:
round(anti_typical_share * N), chosen round-robin over the types (each type's members shuffled), so
they are never all of one type when there are two or more.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple

from schemas.finance import BIT_TYPES, InvestorProfile

TRAITS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")


class Place(NamedTuple):
    city: str
    country: str
    region: str


_REGIONS: tuple[tuple[str, float, tuple[tuple[str, str], ...]], ...] = (
    ("North America", 40, (("Chicago", "United States"), ("Seattle", "United States"), ("Fresno", "United States"),
                           ("Toronto", "Canada"))),
    ("Europe", 30, (("London", "United Kingdom"), ("Manchester", "United Kingdom"), ("Dublin", "Ireland"),
                    ("Berlin", "Germany"), ("Amsterdam", "Netherlands"), ("Stockholm", "Sweden"),
                    ("Madrid", "Spain"), ("Lisbon", "Portugal"), ("Warsaw", "Poland"))),
    ("Asia-Pacific", 18, (("Sydney", "Australia"), ("Auckland", "New Zealand"), ("Tokyo", "Japan"),
                          ("Seoul", "South Korea"), ("Mumbai", "India"), ("Bengaluru", "India"))),
    ("Latin America", 7, (("São Paulo", "Brazil"), ("Mexico City", "Mexico"), ("Santiago", "Chile"))),
    ("Africa", 5, (("Johannesburg", "South Africa"), ("Lagos", "Nigeria"), ("Nairobi", "Kenya"))),
)
CITIES: tuple[Place, ...] = tuple(Place(c, k, r) for r, _, cities in _REGIONS for c, k in cities)

INCOME_BANDS: tuple[tuple[int, str, str], ...] = (
    (22_000, "low", "a low income"),
    (40_000, "lower-middle", "a lower-middle income"),
    (70_000, "middle", "a middle income"),
    (120_000, "upper-middle", "a comfortable income"),
    (10**12, "high", "a high income"),
)
"""(income below, profile band, seed phrase the profile stage's parser reads back as that band)."""

OCCUPATIONS_BY_BAND: dict[str, tuple[str, ...]] = {
    "low": ("office cleaner", "delivery driver", "waiter", "care worker", "retail assistant", "warehouse worker",
            "security guard", "kitchen porter"),
    "lower-middle": ("bus driver", "hairdresser", "postal worker", "factory worker", "chef", "tailor",
                     "call-centre agent", "lorry driver"),
    "middle": ("nurse", "primary school teacher", "electrician", "plumber", "car mechanic", "graphic designer",
               "journalist", "physiotherapist"),
    "upper-middle": ("accountant", "civil engineer", "pharmacist", "marketing manager", "software engineer",
                     "bakery owner"),
    "high": ("software engineer", "marketing manager", "pharmacist", "civil engineer", "accountant"),
}
RETIRED_FORMER = ("schoolteacher", "accountant", "nurse", "engineer", "bus driver", "shopkeeper")

GOALS: dict[str, str] = {
    "retirement": "saving for retirement",
    "home": "buying a home",
    "education": "paying for the children's education",
    "emergency": "building an emergency fund",
    "growth": "growing long-term wealth",
    "early_retirement": "retiring early",
    "income": "building passive income",
    "preservation": "preserving capital",
}
"""Goal key -> the phrase profiles, facts and seeds use."""

RISK_BANDS: tuple[tuple[float, str], ...] = (
    (0.2, "cautious"), (0.4, "conservative"), (0.6, "moderate"), (0.8, "growth-seeking"), (1.01, "aggressive"),
)
"""Risk score below -> band word (distinct words, so one band's phrase never contains another's)."""


def risk_band(risk: float) -> str:
    """The band word of a risk score."""
    return next(word for upper, word in RISK_BANDS if risk < upper)


def allocation(risk: float) -> int:
    """The percentage held in stocks for a risk score: 5-point steps from 5 to 95."""
    return max(5, min(95, 5 * round(risk * 20)))


def allocation_phrase(percent: int) -> str:
    """`60% in stocks`: the stock-allocation fact's value."""
    return f"{percent}% in stocks"


def income_band(income: int) -> str:
    """The profile's income band for an annual income in USD."""
    return next(band for upper, band, _ in INCOME_BANDS if income < upper)


def risk_score(horizon: int, experience: int, big_five: dict[str, float]) -> float:
    """The stated risk-score rule (module docstring), clamped to [0.05, 0.95]."""
    hz, ex = min(horizon, 30) / 30, min(experience, 20) / 20
    b = big_five
    score = (0.5 + 0.45 * (hz - 0.5) + 0.2 * (ex - 0.5) + 0.3 * (b["openness"] - 0.5)
             + 0.15 * (b["extraversion"] - 0.5) - 0.45 * (b["neuroticism"] - 0.5)
             - 0.15 * (b["conscientiousness"] - 0.5))
    return round(min(0.95, max(0.05, score)), 2)


def activity(experience: int, big_five: dict[str, float]) -> float:
    """How actively the investor trades: 0.4 openness + 0.3 extraversion + 0.3 experience (capped at 20 y)."""
    return 0.4 * big_five["openness"] + 0.3 * big_five["extraversion"] + 0.3 * min(experience, 20) / 20


def classify(risk: float, active: float) -> str:
    """Pompian's type from the risk score and the activity score (thresholds in the module docstring)."""
    if active < 0.47:
        return "preserver" if risk < 0.38 else "follower"
    return "independent" if risk < 0.52 else "accumulator"


OPPOSITE = {"preserver": "accumulator", "accumulator": "preserver", "follower": "independent",
            "independent": "follower"}


def acting_type(investor: InvestorProfile) -> str:
    """The type whose rules the persona's reactions follow: the opposite one when anti-typical."""
    return OPPOSITE[investor.bit_type] if investor.anti_typical else investor.bit_type


class Candidate(NamedTuple):
    investor: InvestorProfile
    place: Place
    gender: str
    occupation: str


def sample_candidate(rng: random.Random) -> Candidate:
    """One investor drawn from the stated distributions and classified."""
    region = rng.choices(_REGIONS, weights=[w for _, w, _ in _REGIONS])[0]
    city, country = rng.choice(region[2])
    age = max(22, min(80, round(rng.gauss(45, 14))))
    gender = rng.choices(("female", "male", "non-binary"), weights=(49, 49, 2))[0]
    income = _income(rng, age)
    wealth = round(income * rng.lognormvariate(math.log(max(0.2, (age - 21) / 8)), 0.8), -3)
    experience = math.floor((age - 20) * rng.random() ** 1.5)
    goals = _goals(rng, age)
    horizon = _horizon(rng, goals[0], age)
    big_five = {t: round(min(0.98, max(0.02, rng.gauss(0.5, 0.18))), 2) for t in TRAITS}
    risk = risk_score(horizon, experience, big_five)
    investor = InvestorProfile(
        age=age, annual_income=income, wealth=int(wealth), experience_years=experience, goals=goals,
        horizon_years=horizon, big_five=big_five, risk_score=risk,
        bit_type=classify(risk, activity(experience, big_five)), region=region[0],
    )
    return Candidate(investor, Place(city, country, region[0]), gender, _occupation(rng, age, income))


def _income(rng: random.Random, age: int) -> int:
    if age >= 67:
        return max(8_000, round(rng.lognormvariate(math.log(30_000), 0.4), -3))
    curve = 0.6 + 0.4 * min(1.0, max(0.0, (age - 22) / 18))
    return max(8_000, round(curve * rng.lognormvariate(math.log(58_000), 0.55), -3))


def _goal_weights(age: int) -> dict[str, float]:
    """Goal -> weight at this age: retirement grows with age, home and early retirement fade, ..."""
    return {
        "retirement": 1 + age / 20, "home": 3 if age < 45 else 0.3, "education": 2.5 if 30 <= age <= 55 else 0.2,
        "emergency": 1.5, "growth": 2, "early_retirement": 1.5 if age < 45 else 0.1,
        "income": 2 if age >= 50 else 0.5, "preservation": 3 if age >= 60 else 0.3,
    }


def _goals(rng: random.Random, age: int) -> list[str]:
    weights = _goal_weights(age)
    keys = sorted(weights)
    first = rng.choices(keys, weights=[weights[k] for k in keys])[0]
    if rng.random() < 0.6:
        return [GOALS[first]]
    rest = [k for k in keys if k != first]
    second = rng.choices(rest, weights=[weights[k] for k in rest])[0]
    return [GOALS[first], GOALS[second]]


def _horizon(rng: random.Random, goal: str, age: int) -> int:
    """Years until the first goal is due."""
    key = next(k for k, phrase in GOALS.items() if phrase == goal)
    years = {
        "retirement": max(3, 65 - age) if age < 62 else rng.randint(5, 15),
        "home": rng.randint(3, 10), "education": rng.randint(5, 18), "emergency": rng.randint(1, 3),
        "growth": rng.randint(10, 30), "early_retirement": max(5, 55 - age), "income": rng.randint(10, 25),
        "preservation": rng.randint(3, 10),
    }[key]
    return max(1, min(50, years))


def _occupation(rng: random.Random, age: int, income: int) -> str:
    if age >= 67:
        return f"retired {rng.choice(RETIRED_FORMER)}"
    return rng.choice(OCCUPATIONS_BY_BAND[income_band(income)])


def floor_count(type_floor: float, n: int) -> int:
    """The least personas each type must hold in a corpus of n."""
    return math.ceil(round(type_floor * n, 9))


def sample_corpus(rng: random.Random, n: int, type_floor: float, anti_share: float,
                  max_draws: int | None = None) -> list[Candidate]:
    """n candidates with each type at its floor (rejection sampling) and the anti-typical share marked."""
    need = {t: floor_count(type_floor, n) for t in BIT_TYPES}
    if sum(need.values()) > n:
        raise ValueError(f"type_floor {type_floor} needs {sum(need.values())} personas but there are {n}")
    accepted: list[Candidate] = []
    for _ in range(max_draws or 500 * n + 1000):
        if len(accepted) == n:
            break
        cand = sample_candidate(rng)
        kind = cand.investor.bit_type
        if need[kind] > 0 or n - len(accepted) > sum(need.values()):
            accepted.append(cand)
            need[kind] = max(0, need[kind] - 1)
    if len(accepted) < n:
        raise ValueError(f"rejection sampling did not fill the type floors of {n} personas")
    return mark_anti_typical(rng, accepted, round(anti_share * n))


def mark_anti_typical(rng: random.Random, cands: list[Candidate], count: int) -> list[Candidate]:
    """Mark `count` personas anti-typical, round-robin over the types (members of each type shuffled)."""
    members = {t: [i for i, c in enumerate(cands) if c.investor.bit_type == t] for t in BIT_TYPES}
    for t in BIT_TYPES:
        rng.shuffle(members[t])
    order = list(BIT_TYPES)
    start = rng.randrange(len(order))
    order = order[start:] + order[:start]
    chosen: list[int] = []
    while len(chosen) < min(count, len(cands)):
        for t in order:
            if members[t] and len(chosen) < count:
                chosen.append(members[t].pop(0))
    flip = set(chosen)
    return [c._replace(investor=c.investor.model_copy(update={"anti_typical": True})) if i in flip else c
            for i, c in enumerate(cands)]


def seed_text(cand: Candidate, start_year: int) -> str:
    """A natural one-paragraph description the profile stage can parse (age, city, job, money, goals)."""
    inv, place = cand.investor, cand.place
    subject, has, is_ = {"female": ("She", "has", "is"), "male": ("He", "has", "is")}.get(
        cand.gender, ("They", "have", "are"))
    band_phrase = next(phrase for upper, _, phrase in INCOME_BANDS if inv.annual_income < upper)
    earn = "draws" if cand.occupation.startswith("retired") else "earns"
    earn = earn if subject != "They" else earn[:-1]
    if inv.experience_years:
        span = f"{inv.experience_years} year{'s' if inv.experience_years != 1 else ''}"
        since = f"{has} been investing for {span} (since {start_year - inv.experience_years})"
    else:
        since = f"{is_} new to investing"
    goals = " and ".join(inv.goals)
    return (
        f"A {inv.age}-year-old {cand.occupation} living in {place.city}, {place.country}. "
        f"{subject} {earn} {band_phrase} of about ${inv.annual_income:,} a year and {has} "
        f"${inv.wealth:,} in savings and investments. {subject} {since}, and {is_} focused on {goals}, "
        f"with a {inv.horizon_years}-year horizon."
    )


def describe(investor: InvestorProfile) -> dict[str, Any]:
    """Plain-language summary of the investor, for prompts and narrators."""
    return {
        "type": investor.bit_type, "acts_as": acting_type(investor), "anti_typical": investor.anti_typical,
        "goal": investor.goals[0], "horizon_years": investor.horizon_years,
        "experience_years": investor.experience_years,
    }
