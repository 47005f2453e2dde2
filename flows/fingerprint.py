"""Stage-cache fingerprints: what a persona stage's output depends on, hashed into a Prefect cache key.

A stage result is reused only when all of these are equal (see README "Operations"):

- the stage name and its version (`version` in flows/pipeline.py; bump it for a change the code hash cannot see);
- the source of the stage module and every project module it imports, transitively (`code_digest`),
  plus the package data under tasks/data: any code edit in that closure re-runs the stage;
- the config subset the stage reads (`config_subset`): the world settings, the options of this and
  upstream stages, the seed file's content; never `name` or `gates`, which change no stage output;
- the stage's effective provider: name, model, endpoint and generation parameters (not rate limits);
- the hashes of the prompt templates the stage renders (`STAGE_PROMPTS`);
- the persona id, its seed text and the content digests of the upstream stage results.

The run id is never part of a key: a later run (or the rerun of a killed one) reuses the results.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import threading
from pathlib import Path
from typing import Any

from flows.pipeline import ALL_OPTIONS, EVAL_PROMPTS, PIPELINE
from schemas.config import BuildConfig
from tasks.llm import prompts

PROJECT_PACKAGES = ("tasks", "schemas", "validation")
"""Only these packages' modules count in a code closure (flows/ and warehouse/ do no stage or gate work)."""

STAGE_MODULES = {s.name: s.module for s in PIPELINE}
"""Each stage's module (flows/pipeline.py declares them)."""

STAGE_VERSIONS = {s.name: s.version for s in PIPELINE}
"""Bump a stage's number (in flows/pipeline.py) to invalidate its cached results when the code hash cannot see
the change; tests raise it here."""

STAGE_GATEWAYS = {s.name: s.gateway for s in PIPELINE if s.gateway}
"""The gateway (provider) name each model-calling stage uses; other stages make no model calls."""

STAGE_PROMPTS = {**{s.name: s.prompts for s in PIPELINE if s.prompts}, "evaluate": EVAL_PROMPTS}
"""Prompt templates each stage renders; tests check every template in prompts/ belongs to a stage."""

_STAGE_OPTIONS = {s.name: s.options for s in PIPELINE}
_WORLD_FIELDS = ("seed", "personas", "domain", "pack", "start_date", "days", "rollout_p", "prune_interval")
_GENERATION_FIELDS = ("name", "model", "base_url", "temperature", "max_output_tokens")


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def config_subset(config: BuildConfig, stage: str) -> dict[str, Any]:
    """The part of the config that can change `stage`'s output."""
    dumped = config.model_dump(mode="json")
    subset = {k: dumped[k] for k in _WORLD_FIELDS}
    subset["options"] = {o: dumped["stages"][o] for o in _STAGE_OPTIONS.get(stage, ALL_OPTIONS)}
    if config.seed_file is not None:
        subset["seed_file"] = hashlib.sha256(config.seed_file.read_bytes()).hexdigest()
    if stage in STAGE_GATEWAYS:
        provider = config.provider_for(STAGE_GATEWAYS[stage]).model_dump(mode="json")
        subset["provider"] = {k: provider[k] for k in _GENERATION_FIELDS}
    return subset


def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


@functools.cache  # each module is parsed once per process, however many closures it belongs to
def _imports(name: str, path: Path) -> frozenset[str]:
    """Project modules `name` imports (a `from pkg import mod` counts `pkg.mod` when it is a module)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    source = path.read_text()
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    if "import_module(" in source:  # loads modules by name: count its whole package
        found.update(_package_modules(package, path))
    return frozenset(m for m in found if m.split(".")[0] in PROJECT_PACKAGES and _module_file(m) is not None)


def _package_modules(package: str, path: Path) -> set[str]:
    """Every module and subpackage of the package `path` lives in (for modules that import their siblings by
    name; a subpackage's own imports bring in its modules)."""
    folder = path.parent
    found = {f"{package}.{p.stem}" if p.stem != "__init__" else package for p in folder.glob("*.py")}
    return found | {f"{package}.{p.parent.name}" for p in folder.glob("*/__init__.py")}


_LOCK = threading.Lock()  # ast.parse is not safe to call from several threads at once (CPython 3.11)


def code_closure(module: str) -> tuple[str, ...]:
    """`module` and every project module it imports, transitively, sorted."""
    with _LOCK:
        return _closure(module)


@functools.cache
def _closure(module: str) -> tuple[str, ...]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if name in seen or path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parent packages' __init__
        todo.extend(_imports(name, path) - seen)
    return tuple(sorted(seen))


def code_digest(module: str) -> str:
    """SHA-256 over the sources of `module`'s closure and the package data (tasks/data, tasks/domains/*/data)."""
    with _LOCK:
        return _code_digest(module)


@functools.cache
def _code_digest(module: str) -> str:
    digest = hashlib.sha256()
    for name in _closure(module):
        digest.update(name.encode() + b"\0" + _module_file(name).read_bytes() + b"\0")
    root = _module_file("tasks").parent
    for data in [root / "data", *sorted(root.glob("domains/*/data"))]:
        for path in sorted(data.rglob("*")) if data.is_dir() else []:
            if path.is_file():
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def pack_module(config: BuildConfig) -> str:
    """The module of the build's domain pack (tasks.domains.PACKS), loaded by name so the code closure of
    a stage cannot see it: its code digest is part of every stage and gate key."""
    from tasks.domains import PACKS

    return PACKS[config.domain].partition(":")[0]


def pack_digest(config: BuildConfig) -> str:
    """The code digest of the build's domain pack and every module it imports (data included)."""
    return code_digest(pack_module(config))


def stage_fingerprint(stage: str, config: BuildConfig, persona_id: str, inputs: list[str],
                      extra: Any = None) -> str:
    """The cache key of one persona stage: readable prefix, then a hash of everything it depends on."""
    parts = {
        "stage": stage,
        "version": STAGE_VERSIONS[stage],
        "code": code_digest(STAGE_MODULES[stage]),
        "pack": pack_digest(config),
        "config": config_subset(config, stage),
        "prompts": {name: prompts.prompt_hash(name) for name in STAGE_PROMPTS.get(stage, ())},
        "persona": persona_id,
        "inputs": inputs,
        "extra": extra,
    }
    return f"{stage}-{persona_id}-{_digest(parts)[:40]}"


GATE_VERSION = 1
"""Bump to re-run the gates on content they already passed or failed."""


def gate_fingerprint(config: BuildConfig, table_hashes: dict[str, str]) -> str:
    """The gate report's cache key: content hashes of the gated tables, the config (thresholds and the
    settings suites read, such as rollout_p) and the code of validation/. Equal keys give equal reports."""
    parts = {"version": GATE_VERSION, "code": code_digest("validation.gates"), "pack": pack_digest(config),
             "tables": table_hashes, "config": json.loads(config.canonical_json())}
    return f"gates-{_digest(parts)[:40]}"


LAND_VERSION = 1
"""Bump to stop reusing earlier landings (warehouse/landing.py) after a change the code hash cannot see."""

_WRITERS = ("flows/build.py", "warehouse/landing.py", "warehouse/parquet.py")
"""Source files of the landing itself; with the table contract's closure (schemas.tables) they key a landing."""


@functools.cache
def _writers_digest() -> str:
    root = Path(__file__).resolve().parent.parent
    return _digest({"contract": code_digest("schemas.tables"),
                    "writers": {f: hashlib.sha256((root / f).read_bytes()).hexdigest() for f in _WRITERS}})


def land_fingerprint(persona_id: str, land_digests: dict[str, str]) -> str:
    """The key of one persona's landing: what each stage hands to it (value, extra rows and ledger, as
    `Staged.land_digest`), the persona, and the code of the contract and writers. Equal keys land equal
    partitions, the run id aside."""
    parts = {"version": LAND_VERSION, "code": _writers_digest(), "persona": persona_id, "stages": land_digests}
    return f"land-{persona_id}-{_digest(parts)[:40]}"


STATS_VERSION = 1
"""Bump to recompute the corpus figures (hashes, counts, manifest stats) a run reuses from an earlier one."""


def corpus_fingerprint(config: BuildConfig, land_keys: dict[str, str]) -> str:
    """The key of a run's corpus figures (flows/build.py `measure`): the landing keys of its personas (equal
    keys, equal partitions), the config (the stats read settings such as the dialogue window), the domain
    pack, and the code computing the figures and the validity measures (with warehouse/measures.py, their
    reader), and the release calibration whose withdrawals the views apply (tasks/questions/calibrate.py)."""
    release = Path(__file__).resolve().parent.parent / "warehouse" / "release.py"
    # the measures' closure: tasks/metrics/* and what it reads
    parts = {"version": STATS_VERSION, "landings": sorted(land_keys.items()), "config": config.config_hash(),
             "pack": pack_digest(config), "release": hashlib.sha256(release.read_bytes()).hexdigest(),
             "code": [code_digest(m) for m in ("tasks.common.memory_need", "tasks.sources.chunking",
                                               "tasks.companion.context", "tasks.metrics",
                                               "tasks.questions.calibrate")],
             "measures": hashlib.sha256((release.parent / "measures.py").read_bytes()).hexdigest(),
             "views": hashlib.sha256((release.parent / "catalog.py").read_bytes()).hexdigest()}
    return f"corpus-{_digest(parts)[:40]}"


def refresh_requested() -> bool:
    """PREFECT_TASKS_REFRESH_CACHE: recompute every stage, and the figures and gates too, ignoring caches."""
    from prefect.settings import get_current_settings

    return bool(get_current_settings().tasks.refresh_cache)
