"""Domain packs: what a corpus is about beyond RHELM's everyday life (tasks/domains/base.py says what a
pack supplies). `pack_for(config)` is the pack of a build; the core stages call its hooks and never test
which pack they run. "general" is `DomainPack()` itself; other packs are imported on first use, so the
general pack works while a pack's modules are missing or broken.
"""

from __future__ import annotations

import importlib
import threading

from schemas.config import PACK_OPTIONS, BuildConfig, ConfigError
from tasks.domains.base import DomainPack, PackOutcome, PersonaSeed, ScheduledEvent

__all__ = ["PACKS", "DomainPack", "PackOutcome", "PersonaSeed", "ScheduledEvent", "pack_for", "pack_named"]

PACKS: dict[str, str] = {"general": "tasks.domains.base:DomainPack", "finance": "tasks.domains.finance:FinancePack"}
"""Pack name -> `module:class` of its DomainPack (the names match schemas.config.PACK_OPTIONS)."""

_LOADED: dict[str, DomainPack] = {}
_LOCK = threading.Lock()


def pack_named(name: str) -> DomainPack:
    """The pack called `name` (one shared instance; packs hold no per-build state)."""
    if name not in PACKS:
        raise ConfigError(f"field 'domain': unknown domain pack {name!r}; known packs: {', '.join(sorted(PACKS))}")
    with _LOCK:
        if name not in _LOADED:
            module, _, cls = PACKS[name].partition(":")
            _LOADED[name] = getattr(importlib.import_module(module), cls)()
        return _LOADED[name]


def pack_for(config: BuildConfig) -> DomainPack:
    """The domain pack a build config names (`config.domain`)."""
    return pack_named(config.domain)


def known_packs() -> list[str]:
    """Every pack name, sorted (each has its settings model, or none, in schemas.config.PACK_OPTIONS)."""
    return sorted(set(PACKS) & set(PACK_OPTIONS))
