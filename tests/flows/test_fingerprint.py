"""Stage-cache keys: what invalidates a stage's cached result and what must not."""

from flows import fingerprint as fp
from schemas.config import load_preset
from tasks.llm import prompts


def key(stage="loop", config=None, inputs=("abc",), persona="p0000"):
    return fp.stage_fingerprint(stage, config or load_preset("tiny"), persona, list(inputs))


def test_key_is_stable_and_readable():
    assert key() == key()
    assert key().startswith("loop-p0000-")


def test_name_gates_and_runner_do_not_change_keys():
    base = load_preset("tiny")
    gates = base.gates.model_copy(update={"category_floors": {"fact": 99}})
    for other in (base.model_copy(update={"name": "other"}), base.model_copy(update={"gates": gates}),
                  base.model_copy(update={"runner": base.runner.model_copy(update={"kind": "dask"})})):
        assert key(config=other) == key(config=base)


def test_world_settings_inputs_persona_and_version_change_keys(monkeypatch):
    base = load_preset("tiny")
    assert key(config=base.model_copy(update={"days": 22})) != key(config=base)
    assert key(inputs=("abd",)) != key()
    assert key(persona="p0001") != key()
    before = key()
    monkeypatch.setitem(fp.STAGE_VERSIONS, "loop", fp.STAGE_VERSIONS["loop"] + 1)
    assert key() != before


def test_stage_options_reach_only_their_stage_and_downstream():
    base = load_preset("tiny")
    more = base.model_copy(deep=True)
    more.stages.questions.per_category = 9
    assert key("loop", more) == key("loop", base)
    assert key("questions", more) != key("questions", base)


def test_provider_model_changes_only_model_stages():
    base = load_preset("tiny")
    other = base.model_copy(update={"provider": base.provider.model_copy(update={"model": "other-model"})})
    assert key("dialogue", other) != key("dialogue", base)
    assert key("questions", other) != key("questions", base)  # questions may reword with a real model
    assert key("review", other) == key("review", base)
    limits = base.model_copy(update={"provider": base.provider.model_copy(update={"max_concurrency": 3})})
    assert key("dialogue", limits) == key("dialogue", base)


def test_prompt_edit_changes_only_the_stage_that_renders_it(monkeypatch):
    base_sim, base_src = key("loop"), key("sources")
    real = prompts.prompt_hash
    monkeypatch.setattr(prompts, "prompt_hash", lambda n: "edited" if n == "email" else real(n))
    assert key("sources") != base_src and key("loop") == base_sim


def test_every_prompt_belongs_to_a_stage():
    used = {p for names in fp.STAGE_PROMPTS.values() for p in names}
    assert used == set(prompts.prompt_names())


def test_code_closure_follows_project_imports():
    closure = fp.code_closure("tasks.world.loop")
    assert {"tasks.world.loop", "tasks.world.evolve", "tasks.llm.gateway", "schemas.world"} <= set(closure)
    assert not any(m.startswith(("flows", "warehouse", "prefect")) for m in closure)
    assert "validation.gates" in fp.code_closure("validation.gates")


def test_every_stage_or_gate_module_is_in_some_cache_key():
    """Modules loaded by name (offline narrators, gate suites) must count too, or edits reuse stale results."""
    import importlib
    import pkgutil

    from flows.fingerprint import STAGE_MODULES, code_closure

    covered = set()
    from tasks.domains import PACKS

    packs = [ref.partition(":")[0] for ref in PACKS.values()]  # loaded by name: every key has its pack's digest
    for module in [*STAGE_MODULES.values(), "validation.gates", *packs]:
        covered |= set(code_closure(module))
    modules = set()
    for package in ("tasks", "schemas", "validation"):
        root = importlib.import_module(package)
        modules |= {package} | {m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")}
    # import/export converters and the evaluation harness: CLI only, they produce no corpus rows; the length tiers
    # are built afresh by every build (never cached), and their tables' content keys the gate report
    modules = {m for m in modules if not m.startswith(("tasks.interop", "tasks.evaluate", "tasks.tiers"))}
    # preflight runs before the flow (no rows); columns only describes the card's columns (written at every freeze);
    # counting is `lifeloom plan`'s gateway, which runs the stages before a build and lands nothing
    not_stage_code = {"tasks.llm.preflight", "schemas.columns", "tasks.llm.counting"}
    assert modules - covered == not_stage_code
    assert "tasks.llm.providers.narrators.corpus" in code_closure("tasks.dialogue.stage")
    assert "validation.leakage" in code_closure("validation.gates")
