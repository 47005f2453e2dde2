"""The project's import graph has no cycles: every import counts, the ones inside functions too (they hide a cycle
from Python, not from a reader); only `if TYPE_CHECKING:` imports, which never run, are left out."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "tasks", "warehouse", "validation", "schemas")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The project modules `path` imports, at any depth of its code."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and _is_type_checking(block.test)
                   for stmt in block.body for n in ast.walk(stmt)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:  # annotations only: never imported at run time
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(path, name, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    import sys

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_is_seen_whole():
    edges = graph()
    assert "tasks.llm.providers" in edges["tasks.llm.preflight"]  # a function-level import is an edge
    assert len(edges) > 150


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Each extension point registers in one place; a registered name without an implementation, or the reverse, fails.

def test_every_provider_name_has_one_registered_class_and_the_reverse():
    from typing import get_args

    from schemas.config import ProviderConfig
    from tasks.llm.providers import PROVIDERS, provider_class

    assert set(PROVIDERS) == set(get_args(ProviderConfig.model_fields["name"].annotation))
    for name in PROVIDERS:
        assert callable(getattr(provider_class(name), "complete", None)), name


def test_every_domain_pack_name_loads_and_the_reverse():
    from typing import get_args

    from schemas.config import PACK_OPTIONS, BuildConfig
    from tasks.domains import PACKS, pack_for

    assert set(PACKS) == set(get_args(BuildConfig.model_fields["domain"].annotation))
    assert set(PACK_OPTIONS) <= set(PACKS)
    for name in PACKS:
        assert pack_for(BuildConfig(name="x", domain=name)).name == name


def test_every_suite_module_registers_the_family_of_its_name_and_nothing_else():
    from validation.suites import FACTORIES, all_suites, core_families

    all_suites()
    assert set(FACTORIES) == set(core_families())


def test_every_characteristic_has_its_generator_and_every_generator_a_characteristic():
    import tasks.domains.finance.questions  # noqa: F401  (the finance pack's generators)
    import tasks.questions  # noqa: F401  (every core generator module)
    from schemas.qa import TAXONOMIES
    from tasks.questions.base import GENERATORS

    known = {f"{c}.{ch}" for tax in TAXONOMIES.values() for c, chars in tax.items() for ch in chars}
    assert set(GENERATORS) == known


def test_every_prompt_has_an_offline_narrator_and_every_narrator_a_prompt():
    from tasks.llm.providers import narrators  # noqa: F401  (registers every narrator)
    from tasks.llm.providers.offline import NARRATORS

    prompts = {p.stem for p in (ROOT / "prompts").glob("*.jinja") if not p.stem.startswith("_")}  # _: a shared part
    assert set(NARRATORS) == prompts


# The layout: stage packages, small modules, tests that mirror the source.

MAX_LINES = 500
OVERSIZE_ALLOWED = ("tasks/llm/providers/narrators/",)
"""The offline narrators' internals stay as they are until the narration issue rewrites them."""


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in modules().values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert {p: n for p, n in long.items() if not p.startswith(OVERSIZE_ALLOWED)} == {}


def test_tasks_is_stage_packages_with_at_most_two_top_level_modules():
    top = sorted(p.name for p in (ROOT / "tasks").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= 2, top


def test_every_test_folder_mirrors_a_source_package():
    """tests/<package>/<sub>/ exists only for a source package tasks/<sub>/ (or flows/, warehouse/, ...); the
    e2e flows, the deployment checks, the mock LLM server and the fixtures are the only other folders."""
    others = {"e2e", "deploy", "llm_mock", "fixtures", "__pycache__"}
    for folder in sorted(p for p in (ROOT / "tests").rglob("*") if p.is_dir()):
        rel = folder.relative_to(ROOT / "tests")
        if rel.parts[0] in others or "__pycache__" in rel.parts:
            continue
        assert (ROOT / rel / "__init__.py").is_file(), f"tests/{rel} mirrors no source package"
