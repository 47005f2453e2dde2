"""Every process that imports the flows caps glibc malloc arenas and puts Arrow on the system allocator
(flows/memory.py)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from flows.memory import wanted_arenas

ROOT = Path(__file__).resolve().parents[2]

# Eight threads allocate at once, then glibc's malloc_info lists one <heap> per arena.
_PROBE = r"""
import ctypes, ctypes.util, os, sys, tempfile, threading
import flows  # noqa: F401  (applies the cap)
barrier = threading.Barrier(8)
def work():
    barrier.wait()
    keep = [bytes(4096 + i) for i in range(200)]
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
path = tempfile.mktemp()
fp = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, fp); libc.fclose(fp)
print(open(path).read().count("<heap nr="))
os.unlink(path)
"""


def arenas(**env: str) -> int:
    environ = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "LIFELOOM_MALLOC_ARENAS")}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, cwd=ROOT,
                          env=environ | env, check=True)
    return int(done.stdout.strip())


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc arenas are glibc's")
def test_importing_the_flows_caps_malloc_arenas():
    assert arenas() <= 2
    assert arenas(LIFELOOM_MALLOC_ARENAS="0") > 2  # without the cap each thread gets its own arena
    assert arenas(LIFELOOM_MALLOC_ARENAS="3") <= 3


def test_a_malformed_cap_is_one_clear_error():
    assert wanted_arenas({}) == 2 and wanted_arenas({"LIFELOOM_MALLOC_ARENAS": "0"}) == 0
    with pytest.raises(ValueError, match="whole number"):
        wanted_arenas({"LIFELOOM_MALLOC_ARENAS": "two"})
    lifeloom = Path(sys.executable).parent / "lifeloom"
    done = subprocess.run([str(lifeloom), "presets"], capture_output=True, text=True, cwd=ROOT,
                          env=os.environ | {"LIFELOOM_MALLOC_ARENAS": "-1"})
    assert done.returncode == 2 and "LIFELOOM_MALLOC_ARENAS" in done.stderr and "Traceback" not in done.stderr


def arrow_pool(**env: str) -> str:
    """The default Arrow memory pool of a fresh process after `import flows`."""
    environ = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    probe = "import flows, pyarrow as pa; print(pa.default_memory_pool().backend_name)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          env=environ | env, check=True)
    return done.stdout.strip()


def test_importing_the_flows_puts_arrow_on_the_system_allocator():
    assert arrow_pool() == "system"  # the wheels default to mimalloc, which kept every landing's pages
    assert arrow_pool(ARROW_DEFAULT_MEMORY_POOL="mimalloc") == "mimalloc"  # the user's choice wins
