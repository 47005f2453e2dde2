"""bench/operations.py: the process-tree memory figure counts a build's descendants, not just the build."""

import os
import signal
import subprocess
import sys
import time

from bench.operations import tree_pss_mb

CHILD = "import time; data = b'x' * (80 << 20); print('ready', flush=True); time.sleep(60)"
PARENT = (f"import subprocess, sys, time; data = b'x' * (40 << 20); "
          f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], stdout=sys.stdout); time.sleep(60)")


def test_tree_peak_sums_the_process_and_its_descendants():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    children: list[int] = []
    try:
        assert parent.stdout.readline().strip() == "ready"  # the grandchild's 80 MB are resident
        time.sleep(0.2)
        whole = tree_pss_mb(parent.pid)
        assert whole > 40 + 80  # both processes' own pages (and their interpreters)
        children = [int(p) for p in open(f"/proc/{parent.pid}/task/{parent.pid}/children").read().split()]
        assert len(children) == 1
        alone = tree_pss_mb(children[0])
        assert 80 < alone < whole - 40
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()
    assert tree_pss_mb(parent.pid) == 0  # gone: nothing to count
