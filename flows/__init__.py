"""Prefect flows. Importing the package caps glibc's malloc arenas and puts Arrow on the system allocator
(flows/memory.py), so the CLI, a Prefect worker's flow run and every Dask worker that unpickles a stage get
the same bounded memory. A malformed LIFELOOM_MALLOC_ARENAS leaves glibc alone here; the `lifeloom` command
refuses it with one message."""

from flows.memory import cap_malloc_arenas, use_system_arrow_pool

try:
    cap_malloc_arenas()
except ValueError:
    pass

use_system_arrow_pool()
