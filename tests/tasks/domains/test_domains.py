"""Domain packs: the registry, the general pack's core behaviour, a pack's personas, generators, suites and
QA-review rule reaching the core stages, and bad pack settings stopping the CLI with one message."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from flows.cli import app
from schemas.config import BuildConfig, ConfigError, GateOptions
from schemas.qa import FINPERMA_CHARACTERISTICS
from tasks import domains
from tasks.domains import DomainPack, PersonaSeed, pack_for, pack_named
from tasks.questions import GENERATORS, Candidate, generator
from tasks.questions.select import feasible_total, valid_characteristics
from tasks.world import profile
from validation.domain import pack_floors
from validation.suites import Check, Suite, all_suites, pack_suites

runner = CliRunner()


def finance_config(**overrides) -> BuildConfig:
    data = {"name": "fin", "domain": "finance", "personas": 3, "days": 30,
            "gates": GateOptions(max_category_share=0.4)} | overrides
    return BuildConfig(**data)


class StubPack(DomainPack):
    """A pack that samples three people, hints their age, tags their persona and adds one suite."""

    name = "finance"
    taxonomy_name = "finperma"

    def persona_seeds(self, config):
        return [PersonaSeed(f"Investor number {i}, careful with money", {"bit_type": "preserver", "n": i})
                for i in range(3)]

    def profile_hints(self, config, seed):
        return {"age": 40 + seed.attributes["n"]}

    def shape_persona(self, config, persona, seed):
        return persona.model_copy(update={"attributes": persona.attributes | {"shaped": True}})

    def suites(self, config):
        return [Suite("stub_pack", {"questions": lambda con, run_id: None},
                      (Check("stub.category in set", "questions", "ExpectColumnValuesToBeInSet",
                             {"column": "category", "value_set": ["memory_fidelity"]}),))]


@pytest.fixture
def stub(monkeypatch):
    """The stub stands in for the finance pack (whose modules other work provides)."""
    pack = StubPack()
    monkeypatch.setitem(domains._LOADED, "finance", pack)
    monkeypatch.setattr(profile, "_PACK_SEEDS", {})
    return pack


def test_registry_names_each_pack_once():
    assert type(pack_named("general")) is DomainPack and pack_named("general") is pack_named("general")
    assert pack_for(BuildConfig(name="g")).name == "general"
    assert domains.known_packs() == ["finance", "general"]
    with pytest.raises(ConfigError, match="unknown domain pack 'crypto'"):
        pack_named("crypto")


def test_finance_pack_is_imported_lazily_and_names_its_taxonomy():
    pack = pack_for(finance_config())
    assert (pack.name, pack.taxonomy_name) == ("finance", "finperma")
    assert set(pack.taxonomy()) == {"memory_fidelity", "preference_reasoning", "context_adaptation"}


def test_general_pack_hooks_are_the_core_behaviour():
    pack, cfg = DomainPack(), BuildConfig(name="g")
    assert pack.persona_seeds(cfg) is None and pack.schedule(cfg, None) == [] and pack.suites(cfg) == []
    assert pack.profile_hints(cfg, PersonaSeed("x")) == {} and pack.release_stats(None, "r") == {}
    rhelm = {k for k in GENERATORS if k.split(".")[0] in pack.taxonomy()}
    assert set(pack.generators()) == rhelm and len(rhelm) == 27
    with pytest.raises(NotImplementedError):
        pack.roll_out(cfg, None, None, None, "e", [])
    assert pack_suites(cfg) == []


def test_generators_of_any_taxonomy_register_and_packs_filter_them(monkeypatch):
    core_only = {k: fn for k, fn in GENERATORS.items() if k.split(".")[0] not in FINPERMA_CHARACTERISTICS}
    monkeypatch.setattr("tasks.questions.base.GENERATORS", core_only)  # the finance pack's may be registered already
    from tasks.questions import base

    @generator("memory_fidelity", "event_recall")
    def fake(ctx):
        return []

    assert base.GENERATORS["memory_fidelity.event_recall"] is fake
    with pytest.raises(ValueError, match="unknown characteristic memory_fidelity.fabrication"):
        generator("memory_fidelity", "fabrication")
    monkeypatch.setattr("tasks.questions.GENERATORS", base.GENERATORS)

    class Fin(DomainPack):
        taxonomy_name = "finperma"

    assert "memory_fidelity.event_recall" not in DomainPack().generators()
    assert Fin().generators()["memory_fidelity.event_recall"] is fake
    assert all(k.split(".")[0] in Fin().taxonomy() for k in Fin().generators())


def test_selection_and_coverage_take_the_pack_taxonomy():
    cand = Candidate("memory_fidelity", ("event_recall",), "Which?", "a", "a", "t", "q", ())
    assert valid_characteristics(cand) and valid_characteristics(cand, pack_for(finance_config()).taxonomy())
    assert not valid_characteristics(cand, DomainPack().taxonomy())
    from schemas.config import QuestionOptions

    options = QuestionOptions(per_persona=30, max_category_share=0.4)
    assert feasible_total(options, {"memory_fidelity": 12, "preference_reasoning": 12, "context_adaptation": 3},
                          0.4) == 15  # cap 6 of 15: 6 + 6 + 3
    floors = {"fact": 1, "memory_fidelity": 5, "memory_fidelty": 2}  # a RHELM default, a floor, a typo
    assert pack_floors(finance_config(), "category", floors) == {"memory_fidelity": 5, "memory_fidelty": 2}
    assert pack_floors(BuildConfig(name="g"), "category", floors) == {"fact": 1, "memory_fidelty": 2}


def test_pack_personas_reach_ids_seeds_hints_and_attributes(stub):
    from schemas.config import ProviderConfig
    from tasks.llm.gateway import Gateway

    cfg = finance_config(personas=5)  # the pack decides how many people there are
    assert profile.persona_ids(cfg) == ["p0000", "p0001", "p0002"]
    assert profile.seed_texts(cfg)[2] == "Investor number 2, careful with money"
    assert profile.persona_seed(cfg, "p0001").attributes == {"bit_type": "preserver", "n": 1}
    assert profile.profile_context(cfg, "p0002", "x", profile.persona_seed(cfg, "p0002"))["hints"]["age"] == 42
    persona = profile.enrich_persona(cfg, "p0002", profile.seed_texts(cfg)[2], Gateway(ProviderConfig()))
    assert persona.attributes == {"bit_type": "preserver", "n": 2, "shaped": True}
    assert persona.domain == "finance" and persona.profile.identity.age == 42


def test_a_seed_file_beside_a_sampling_pack_is_a_config_error(stub, tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("A chef in Madrid\n")
    with pytest.raises(ConfigError, match="seed_file.*'finance' samples its own personas"):
        profile.persona_ids(finance_config(seed_file=seeds))


def test_all_suites_include_the_pack_suites(stub):
    suites = all_suites(finance_config())
    assert suites[-1].name == "stub_pack" and "coverage" in [s.name for s in suites]
    stub.suites = lambda config: [Suite("coverage", {}, ())]
    with pytest.raises(ValueError, match="suite name 'coverage' is taken"):
        all_suites(finance_config())


def test_pack_recompute_is_a_correctness_check(monkeypatch):
    from tasks.questions import review
    from tasks.questions import stage as questions
    from tests.tasks.worldfixture import make_config, make_corpus, make_persona, make_world

    config, persona, world = make_config(), make_persona(), make_world()
    corpus = make_corpus(config, persona, world)
    qset = questions.write_questions(config, persona, world, corpus)
    target = next(q for q in qset.questions if q.checkpoint != "zero_memory")

    class Strict(DomainPack):
        def recompute(self, question, persona, world, corpus):
            return "not the answer" if question.question_id == target.question_id else None

    monkeypatch.setitem(domains._LOADED, "general", Strict())
    kept, reviews = review.review_questions(persona, world, corpus, qset, config)
    withdrawn = {r.question_id: r.reason for r in reviews if r.status == "withdrawn"}
    assert {q: why for q, why in withdrawn.items() if why != "category_share"} == {target.question_id: "correctness"}
    assert len(kept.questions) == len(qset.questions) - len(withdrawn)  # and the rebalance's, on a set this small


def _cli_build(tmp_path, body: str):
    cfg = tmp_path / "c.toml"
    cfg.write_text(body)
    return runner.invoke(app, ["build", "--config", str(cfg), "--home", str(tmp_path / "home")])


@pytest.mark.parametrize(("body", "message"), [
    ('name = "x"\ndomain = "crypto"\n', "field 'domain'"),
    ('name = "x"\ndomain = "finance"\n[pack]\nevents_min = 0\n', "field 'pack.events_min'"),
    ('name = "x"\n[pack]\nevents_min = 3\n', "domain 'general' takes no [pack] settings"),
    ('name = "x"\ndomain = "finance"\n', "field 'gates.max_category_share'"),
])
def test_bad_domain_settings_exit_2_with_one_message(tmp_path, body, message):
    result = _cli_build(tmp_path, body)
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("error:") == 1
    assert not (tmp_path / "home" / "releases").exists()


def test_a_failing_pack_check_stops_the_cli_before_any_stage(stub, tmp_path, monkeypatch):
    def refuse(config):
        raise ConfigError("field 'start_date': the catalog starts in 2020")

    monkeypatch.setattr(stub, "check", refuse)
    result = _cli_build(tmp_path, 'name = "x"\ndomain = "finance"\n[gates]\nmax_category_share = 0.4\n')
    assert result.exit_code == 2 and "the catalog starts in 2020" in result.output
    assert not (tmp_path / "home" / "tables").exists()


def test_a_cut_world_keeps_the_pack_rows_known_by_then():
    """Mid-timeline question contexts see the pack's rows up to the cut, as they see facts and events."""
    import datetime as dt

    from schemas.world import World
    from tasks.questions.checkpoints import world_until

    rows = [{"constraint_id": "a", "date": "2022-03-01"}, {"constraint_id": "b", "date": dt.date(2022, 5, 1)},
            {"constraint_id": "c"}]
    world = World(plans=[], events=[], facts=[], profile_ops=[], profile_snapshots=[],
                  extras={"impact_constraints": rows})
    kept = world_until(world, dt.date(2022, 4, 1)).extras["impact_constraints"]
    assert [r["constraint_id"] for r in kept] == ["a", "c"]
