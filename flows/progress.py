"""A progress sink the CLI can attach to; the flow reports each finished persona stage to it.

The default sink does nothing, so flows run the same under a worker, in tests or from the CLI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_sink: Callable[[str, str], None] | None = None
_lock = threading.Lock()


def attach(sink: Callable[[str, str], None] | None) -> None:
    """Send (stage, persona_id) events to `sink` (None detaches)."""
    global _sink
    with _lock:
        _sink = sink


def report(stage: str, persona_id: str) -> None:
    with _lock:
        sink = _sink
    if sink is not None:
        sink(stage, persona_id)
