"""Bound the native memory of build processes: cap glibc's malloc arenas, and give Arrow the system allocator.

glibc gives each new thread its own malloc arena, up to eight per core. A build's persona branches run on
Prefect's thread pool, and every arena keeps the freed pages of the texts its threads allocated, so a
process's resident memory grew with the personas it had landed, not only with those in flight. Read from
/proc/self/status after each landing of a 16-persona, 120-day rhelm build in one process, it went from 669
to 881 MiB between the 4th and the 16th landing; with two arenas, from 552 to 638 MiB. A cold rhelm build
peaked at 1.04 GB instead of 1.41 GB and was no slower (190 s against 206 s): the stages hold the GIL, so
threads seldom contend for an arena.

`LIFELOOM_MALLOC_ARENAS` sets the cap (default 2; 0 leaves glibc alone). A `MALLOC_ARENA_MAX` already in the
environment wins: glibc read it at start-up. Anywhere but glibc (macOS, musl) this does nothing.

Arrow's default allocator (mimalloc in the pyarrow wheels) keeps the pages of the Arrow tables every landing
builds and writes, and the rest of the growth came from there: with the arena cap, the same probe read 555
MiB at the 4th landing and 625 MiB at the 16th (6 MiB a landing); with Arrow on the system allocator (so on
the capped arenas), 524 and 540 MiB (1.3 MiB a landing). `use_system_arrow_pool` switches the process's
default Arrow pool unless `ARROW_DEFAULT_MEMORY_POOL` names one (Arrow reads that itself).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_ARENA_MAX = -8  # glibc malloc.h
DEFAULT_ARENAS = 2


def wanted_arenas(env: dict[str, str] | None = None) -> int:
    """The arena cap asked for: `LIFELOOM_MALLOC_ARENAS` (0 = no cap), else 2; one clear error on a bad value."""
    env = os.environ if env is None else env
    raw = env.get("LIFELOOM_MALLOC_ARENAS", "").strip()
    if not raw:
        return DEFAULT_ARENAS
    if not raw.isdigit():
        raise ValueError(f"LIFELOOM_MALLOC_ARENAS must be a whole number (0 = no cap), not {raw!r}")
    return int(raw)


def cap_malloc_arenas(env: dict[str, str] | None = None) -> int | None:
    """Apply the cap with mallopt; returns it, or None when nothing was set (no cap asked, the environment's
    MALLOC_ARENA_MAX rules, or not glibc)."""
    env = os.environ if env is None else env
    arenas = wanted_arenas(env)
    if arenas == 0 or env.get("MALLOC_ARENA_MAX"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return None
    return arenas if mallopt(M_ARENA_MAX, arenas) == 1 else None


def use_system_arrow_pool(env: dict[str, str] | None = None) -> str | None:
    """Make the system allocator Arrow's default memory pool; returns the pool's backend name, or None when
    `ARROW_DEFAULT_MEMORY_POOL` chose one already."""
    env = os.environ if env is None else env
    if env.get("ARROW_DEFAULT_MEMORY_POOL"):
        return None
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    return pa.default_memory_pool().backend_name
