"""Stage `profile`: persona ids, seed parsing, hints and the enriched six-dimension profile."""

from __future__ import annotations

import re
from collections import Counter
from zoneinfo import ZoneInfo

import pytest

from schemas.config import BuildConfig, ProviderConfig
from schemas.profile import Persona
from tasks.llm.gateway import Gateway
from tasks.world import banks
from tasks.world.profile import (
    BUNDLED_SEEDS,
    SeedFileError,
    enrich_persona,
    parse_seed,
    persona_ids,
    read_seed_file,
    seed_texts,
)


def config(**kw) -> BuildConfig:
    return BuildConfig(name="t", **kw)


def test_persona_ids_count_and_pattern():
    assert persona_ids(config(personas=3)) == ["p0000", "p0001", "p0002"]


def test_bundled_seeds_are_diverse_and_drawn_deterministically():
    assert len(BUNDLED_SEEDS) >= 12
    ages = [parse_seed(s)["age"] for s in BUNDLED_SEEDS]
    assert min(ages) < 25 and max(ages) > 70
    assert len({parse_seed(s)["city"] for s in BUNDLED_SEEDS}) >= 12
    first = seed_texts(config(personas=5, seed=3))
    assert first == seed_texts(config(personas=5, seed=3))
    assert len(set(first)) == 5 and set(first) <= set(BUNDLED_SEEDS)
    assert first != seed_texts(config(personas=5, seed=4))


def test_seed_file_jsonl(tmp_path):
    path = tmp_path / "seeds.jsonl"
    path.write_text(
        '{"seed": "A 30-year-old chef in Madrid"}\n\n{"description": "A retired nurse in Dublin"}\n'
    )
    cfg = config(seed_file=path)
    assert seed_texts(cfg) == ["A 30-year-old chef in Madrid", "A retired nurse in Dublin"]
    assert persona_ids(cfg) == ["p0000", "p0001"]


def test_seed_file_csv_with_quoted_commas(tmp_path):
    path = tmp_path / "seeds.csv"
    path.write_text('id,description\n1,"A nurse in Lisbon, Portugal"\n2,A student in Seoul\n')
    assert read_seed_file(path) == ["A nurse in Lisbon, Portugal", "A student in Seoul"]


def test_seed_file_plain_text_skips_comments(tmp_path):
    path = tmp_path / "seeds.txt"
    path.write_text("# people\nA baker in Porto\n\nA driver in Chicago\n")
    assert read_seed_file(path) == ["A baker in Porto", "A driver in Chicago"]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("bad.jsonl", '{"seed": "ok"}\n{"seed": "ok too"}\n{"seed": broken\n', 3),
        ("nokey.jsonl", '{"seed": "ok"}\n{"name": "no seed here"}\n', 2),
        ("empty.jsonl", '{"seed": "  "}\n', 1),
        ("nocol.csv", "id,name\n1,Ann\n", 1),
        ("short.csv", "id,seed\n1,A chef\n2\n", 3),
        ("blank.csv", "seed,id\nA chef,1\n,2\n", 3),
    ],
)
def test_malformed_seed_file_names_the_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SeedFileError, match=rf"line {line}\b"):
        read_seed_file(path)
    assert issubclass(SeedFileError, ValueError)


def test_empty_seed_file_is_an_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n")
    with pytest.raises(SeedFileError, match="no seed"):
        seed_texts(config(seed_file=path))


def test_parse_seed_reads_structured_hints():
    hints = parse_seed(
        "A 41-year-old software engineer in Toronto, Canada; married with two kids, high income."
    )
    assert hints["age"] == 41 and hints["city"] == "Toronto" and hints["occupation"] == "software engineer"
    assert hints["income_band"] == "high" and {"married", "kids"} <= set(hints["family"])
    assert parse_seed("A retired accountant in Sydney")["occupation"] == "retired accountant"
    assert "children" not in parse_seed("in a relationship, no children")["family"]


@pytest.fixture(scope="module")
def personas() -> list[Persona]:
    cfg = config(personas=6, seed=11)
    gateway = Gateway(ProviderConfig())
    return [
        enrich_persona(cfg, pid, s, gateway) for pid, s in zip(persona_ids(cfg), seed_texts(cfg), strict=True)
    ]


def test_enriched_persona_follows_the_seed(personas):
    for persona in personas:
        ident = persona.profile.identity
        hints = parse_seed(persona.seed_text)
        assert persona.name == ident.name and persona.domain == "general"
        assert ident.age == hints["age"] and ident.city == hints["city"]
        assert ident.occupation == hints["occupation"]


def test_timezone_matches_the_city(personas):
    for persona in personas:
        ident = persona.profile.identity
        ZoneInfo(ident.timezone)
        assert banks.CITY_BY_NAME[ident.city].timezone == ident.timezone
        assert banks.CITY_BY_NAME[ident.city].country == ident.country


def test_relationships_have_distinct_roles_and_a_near_duplicate_first_name(personas):
    for persona in personas:
        rels = persona.profile.relationships
        assert 4 <= len(rels) <= 6
        assert len({r.role for r in rels}) == len(rels)
        assert len({r.name for r in rels}) == len(rels)
        firsts = Counter(r.name.split()[0] for r in rels)
        twins = [r for r in rels if firsts[r.name.split()[0]] == 2]
        assert len(twins) == 2 and twins[0].name.split()[-1] != twins[1].name.split()[-1]
        assert persona.name.split()[0] not in firsts


def test_profile_has_style_and_concrete_belongings(personas):
    for persona in personas:
        profile = persona.profile
        comm = profile.personality.communication
        assert 0 <= comm.formality <= 1 and 0 <= comm.verbosity <= 1 and len(comm.vocabulary) >= 3
        assert re.fullmatch(r"[EI][SN][TF][JP]", profile.personality.mbti)
        home = [b for b in profile.belongings if b.kind == "home"]
        assert len(home) == 1 and re.search(r" at \d+ ", home[0].name)
        assert profile.traits.hobbies and profile.current_status.ongoing_matters


def test_enrichment_is_deterministic_and_seed_dependent():
    gateway = Gateway(ProviderConfig())
    seed = BUNDLED_SEEDS[0]
    a = enrich_persona(config(seed=1), "p0000", seed, gateway)
    b = enrich_persona(config(seed=1), "p0000", seed, Gateway(ProviderConfig()))
    c = enrich_persona(config(seed=2), "p0000", seed, gateway)
    assert a == b
    assert a.profile != c.profile
    ledger = gateway.drain_ledger()
    assert {row.prompt_name for row in ledger} == {"profile"} and {row.stage for row in ledger} == {"profile"}
