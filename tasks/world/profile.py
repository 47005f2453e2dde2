"""Stage `profile`: who the simulated people are.

`persona_ids` and `seed_texts` say how many people there are and how each is described (a user's seed
file, or a deterministic draw from the bundled seeds); `enrich_persona` turns one seed description into
a full six-dimension `Profile` through the gateway's `profile` prompt. Seed descriptions are also parsed
into structured hints (age, city, occupation, ...) and the gaps filled from the seeded RNG, so the
narrator, offline or real, receives a consistent brief.

A domain pack that samples its own people (`DomainPack.persona_seeds`, e.g. finance's investors) replaces
the seeds: its `PersonaSeed`s give the descriptions and the attributes landed in `personas.attributes`,
its `profile_hints` override the core's, and its `shape_persona` has the last word on the persona.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import threading
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from schemas.config import BuildConfig, ConfigError
from schemas.profile import Persona, Profile
from tasks.common.jsonl import JSONLError, iter_jsonl
from tasks.common.rng import rng_for
from tasks.domains import PersonaSeed, pack_for
from tasks.llm.gateway import Gateway
from tasks.world import banks

SEED_KEYS = ("seed", "description")


def bundled_seed_rows() -> list[dict[str, Any]]:
    """The bundled seeds (tasks/data/seeds.jsonl): `seed` plus the age, country and occupation it states."""
    text = resources.files("tasks").joinpath("data", "seeds.jsonl").read_text(encoding="utf-8")
    return [row for _, row in iter_jsonl(text)]


BUNDLED_SEEDS: tuple[str, ...] = tuple(row["seed"] for row in bundled_seed_rows())
"""At least 60 seed descriptions written for lifeloom, spread over occupations (most not professional),
income, education, ages 18 to 80, family situations, countries and cultures."""


class SeedFileError(ValueError):
    """A seed file that cannot be read; the message names the file and the line."""


def persona_ids(config: BuildConfig) -> list[str]:
    """One id per persona, `p0000`, `p0001`, ...: config.personas, one per seed-file row, or one per
    person the domain pack samples."""
    sampled = pack_seeds(config)
    if sampled is not None:
        count = len(sampled)
    else:
        count = len(read_seed_file(config.seed_file)) if config.seed_file else config.personas
    return [f"p{i:04d}" for i in range(count)]


def seed_texts(config: BuildConfig) -> list[str]:
    """The seed description of each persona, in persona-id order."""
    sampled = pack_seeds(config)
    if sampled is not None:
        return [s.seed_text for s in sampled]
    if config.seed_file:
        return read_seed_file(config.seed_file)
    order = list(BUNDLED_SEEDS)
    rng_for(config.seed, "*", "profile", None, "bundled-seeds").shuffle(order)
    return [order[i % len(order)] for i in range(config.personas)]


_PACK_SEEDS: dict[str, tuple[PersonaSeed, ...] | None] = {}
_PACK_LOCK = threading.Lock()


def pack_seeds(config: BuildConfig) -> tuple[PersonaSeed, ...] | None:
    """The people the domain pack samples for the corpus (None: the core's seeds), computed once per
    config hash (the sampling is deterministic). A seed file with such a pack is a ConfigError."""
    key = f"{config.domain}:{config.config_hash()}"
    with _PACK_LOCK:
        if key not in _PACK_SEEDS:
            sampled = pack_for(config).persona_seeds(config)
            _PACK_SEEDS[key] = None if sampled is None else tuple(sampled)
        sampled = _PACK_SEEDS[key]
    if sampled is not None and config.seed_file:
        raise ConfigError(f"field 'seed_file': domain {config.domain!r} samples its own personas; "
                          "remove seed_file or use domain 'general'")
    return sampled


def persona_seed(config: BuildConfig, persona_id: str, seed_text: str | None = None) -> PersonaSeed:
    """The seed of one persona: the pack's sample for it, or `seed_text` (default: its core seed) with
    no attributes."""
    sampled = pack_seeds(config)
    if sampled is not None:
        index = int(persona_id.removeprefix("p")) if re.fullmatch(r"p\d+", persona_id) else -1
        if not 0 <= index < len(sampled):
            raise ValueError(f"persona {persona_id!r}: domain {config.domain!r} sampled {len(sampled)} personas")
        seed = sampled[index]
        return seed if seed_text is None else PersonaSeed(seed_text=seed_text, attributes=seed.attributes)
    if seed_text is None:
        seed_text = seed_texts(config)[persona_ids(config).index(persona_id)]
    return PersonaSeed(seed_text=seed_text)


SEED_FILE_MAX_BYTES = 64 * 2**20
SEED_FILE_MAX_ROWS = 100_000
"""A seed file's ceilings (the persona ceiling of BuildConfig.personas), checked before it is read in full."""


def read_seed_file(path: Path) -> list[str]:
    """Seeds from JSONL (.jsonl/.ndjson/.json), CSV (.csv) or plain text (one per line; # comments). A file
    past 64 MiB is refused before it is read, and one past 100,000 rows as soon as its 100,001st is parsed;
    a file read once is not parsed again while it is unchanged."""
    try:
        stat = Path(path).stat()
    except OSError as exc:
        raise SeedFileError(f"seed file {str(path)!r} cannot be read: {exc}") from None
    if stat.st_size > SEED_FILE_MAX_BYTES:
        raise SeedFileError(f"seed file {str(path)!r} is {stat.st_size / 2**20:,.1f} MiB; the ceiling is "
                            f"{SEED_FILE_MAX_BYTES // 2**20} MiB ({SEED_FILE_MAX_ROWS:,} personas)")
    return list(_read_seeds(str(path), stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=4)
def _read_seeds(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedFileError(f"seed file {path!r} cannot be read: {exc}") from None
    suffix = Path(path).suffix.lower()
    parse = (
        _parse_jsonl
        if suffix in (".jsonl", ".ndjson", ".json")
        else _parse_csv
        if suffix == ".csv"
        else _parse_text
    )
    seeds = []
    for seed in parse(text, path):
        seeds.append(seed)
        if len(seeds) > SEED_FILE_MAX_ROWS:
            raise SeedFileError(f"seed file {path!r} holds more than {SEED_FILE_MAX_ROWS:,} seeds (the persona "
                                "ceiling); split it into several corpora")
    if not seeds:
        raise SeedFileError(f"seed file {path!r} holds no seed descriptions")
    return tuple(seeds)


def _parse_jsonl(text: str, name: str) -> Iterator[str]:
    try:
        for lineno, row in iter_jsonl(text):
            yield _seed_of(row, name, lineno)
    except JSONLError as exc:
        raise SeedFileError(f"seed file {name!r}, line {exc.lineno}: invalid JSON ({exc.msg})") from None


def _parse_csv(text: str, name: str) -> Iterator[str]:
    reader = csv.DictReader(io.StringIO(text))
    column = next((k for k in SEED_KEYS if k in (reader.fieldnames or [])), None)
    if column is None:
        raise SeedFileError(f"seed file {name!r}, line 1: the header needs a 'seed' or 'description' column")
    for row in reader:
        if None in row or any(v is None for v in row.values()):
            raise SeedFileError(f"seed file {name!r}, line {reader.line_num}: wrong number of fields")
        yield _seed_of(row, name, reader.line_num, column)


def _parse_text(text: str, name: str) -> Iterator[str]:
    return (s for s in (line.strip() for line in text.splitlines()) if s and not s.startswith("#"))


def _seed_of(row: Any, name: str, lineno: int, column: str | None = None) -> str:
    keys = (column,) if column else SEED_KEYS
    value = next((row.get(k) for k in keys if isinstance(row, dict) and k in row), None)
    if not isinstance(value, str) or not value.strip():
        raise SeedFileError(
            f"seed file {name!r}, line {lineno}: expected a non-empty 'seed' or 'description'"
        )
    return value.strip()


def parse_seed(seed_text: str) -> dict[str, Any]:
    """Hints read from a seed description: age, city, country, occupation, gender, income, family."""
    text = seed_text.lower()
    family = [w for w in _FAMILY_WORDS if re.search(rf"\b{w}", text)]
    family = [w for w in family if not re.search(rf"\bno {w}", text)]
    hints: dict[str, Any] = {
        "family": family + (["flatmate"] if re.search(r"\bshar\w* a flat", text) else [])
    }
    age = re.search(r"\b(\d{2,3})[- ]years?[- ]old\b|\baged? (\d{2,3})\b", text)
    if age and 18 <= int(age.group(1) or age.group(2)) <= 100:
        hints["age"] = int(age.group(1) or age.group(2))
    city = next((c for c in banks.CITIES if _mentions(text, c.name)), None)
    country = next((c.country for c in banks.CITIES if _mentions(text, c.country)), None)
    hints.update({"city": city.name} if city else {"country": country} if country else {})
    hints.update(_occupation_hint(text))
    hints.update(_gender_hint(text))
    income = next((band for words, band in _INCOME_WORDS if any(w in text for w in words)), None)
    return hints | ({"income_band": income} if income else {})


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name.lower())}\b", text) is not None


_FAMILY_WORDS = (
    "married",
    "divorced",
    "widowed",
    "single",
    "relationship",
    "children",
    "kids",
    "daughter",
    "son",
    "grandchildren",
    "parents",
    "expecting",
)
_INCOME_WORDS = (
    (("low-to-middle", "lower-middle"), "lower-middle"),
    (("low income", "tight budget"), "low"),
    (("high income", "wealthy"), "high"),
    (("comfortable",), "upper-middle"),
    (("modest", "pension"), "lower-middle"),
    (("middle income",), "middle"),
)


def _occupation_hint(text: str) -> dict[str, str]:
    if "retired" in text:
        former = next((f for f in banks.RETIRED_FORMER if f in text), None)
        return {"occupation": f"retired {former}"} if former else {"occupation": "retired"}
    occ = next((o for o in banks.OCCUPATIONS if any(k in text for k in o.keywords)), None)
    return {"occupation": occ.title} if occ else {}


def _gender_hint(text: str) -> dict[str, str]:
    if re.search(r"\b(she|her|woman|mother|wife of)\b", text):
        return {"gender": "female"}
    if re.search(r"\b(he|his|man|father|husband of)\b", text):
        return {"gender": "male"}
    return {}


def profile_hints(config: BuildConfig, persona_id: str, seed_text: str) -> dict[str, Any]:
    """Seed hints with every gap filled from the seeded RNG: age, gender, city, occupation, name, ..."""
    rng = rng_for(config.seed, persona_id, "profile", config.start_date, "hints")
    hints = parse_seed(seed_text)
    city = _fill_city(rng, hints)
    occupation = hints.get("occupation") or _default_occupation(rng, hints.get("age"))
    if occupation == "retired":
        occupation = f"retired {rng.choice(banks.RETIRED_FORMER)}"
    age = hints.get("age") or _default_age(rng, occupation)
    gender = hints.get("gender") or rng.choices(("female", "male", "non-binary"), (48, 48, 4))[0]
    names = banks.GIVEN_NAMES[city.region]
    given = rng.choice(names[gender] if gender in names else names["female"] + names["male"])
    return {
        "name": f"{given} {rng.choice(banks.SURNAMES[city.region])}",
        "age": age,
        "gender": gender,
        "city": city.name,
        "country": city.country,
        "timezone": city.timezone,
        "occupation": occupation,
        "income_band": hints.get("income_band") or rng.choice(banks.INCOME_BANDS[1:4]),
        "family": hints["family"] or [_default_family(rng, age)],
    }


def _fill_city(rng, hints: dict[str, Any]) -> banks.City:
    if "city" in hints:
        return banks.CITY_BY_NAME[hints["city"]]
    options = [c for c in banks.CITIES if c.country == hints.get("country")] or list(banks.CITIES)
    return rng.choice(options)


def _default_occupation(rng, age: int | None) -> str:
    if age is not None and age >= 67:
        return "retired"
    pool = [o.title for o in banks.OCCUPATIONS if age is None or age <= 25 or o.title != "university student"]
    return rng.choice(pool)


def _default_family(rng, age: int) -> str:
    if age < 26:
        return rng.choice(("single", "parents", "flatmate", "relationship"))
    return rng.choice(("single", "married", "relationship", "divorced", "children"))


def _default_age(rng, occupation: str) -> int:
    if occupation.startswith("retired"):
        return rng.randint(66, 80)
    return rng.randint(18, 24) if occupation == "university student" else rng.randint(24, 62)


def profile_context(config: BuildConfig, persona_id: str, seed_text: str,
                    seed: PersonaSeed | None = None) -> dict[str, Any]:
    """What the `profile` prompt needs: the seed, the persona id, the start date and the hints (the
    domain pack's hints for `seed` override the core's)."""
    hints = profile_hints(config, persona_id, seed_text)
    if seed is not None:
        hints |= pack_for(config).profile_hints(config, seed)
    return {
        "persona_id": persona_id,
        "seed_text": seed_text,
        "start_date": config.start_date.isoformat(),
        "hints": hints,
    }


def enrich_persona(config: BuildConfig, persona_id: str, seed_text: str, gateway: Gateway) -> Persona:
    """The full persona for one seed description, its profile generated through the `profile` prompt,
    carrying the pack's attributes and shaped by the pack."""
    seed = persona_seed(config, persona_id, seed_text) if pack_seeds(config) is not None else PersonaSeed(seed_text)
    context = profile_context(config, persona_id, seed_text, seed)
    profile = gateway.generate("profile", context, Profile, stage="profile", persona_id=persona_id)
    persona = Persona(
        persona_id=persona_id,
        name=profile.identity.name,
        seed_text=seed_text,
        domain=config.domain,
        profile=profile,
        attributes=dict(seed.attributes),
    )
    return pack_for(config).shape_persona(config, persona, seed)
