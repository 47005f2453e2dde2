"""A progress sink the CLI can attach to; the flow reports each finished persona stage to it.

The default sink does nothing, so flows run the same under a worker, in tests or from the CLI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One finished task: a persona stage (or `gate`/`freeze` with persona `all`)."""

    stage: str
    persona_id: str
    ok: bool = True
    calls: int = 0
    errors: int = 0
    cached: bool = False


_sink: Callable[[Event], None] | None = None
_lock = threading.Lock()


def attach(sink: Callable[[Event], None] | None) -> None:
    """Send each Event to `sink` (None detaches)."""
    global _sink
    with _lock:
        _sink = sink


def report(event: Event) -> None:
    with _lock:
        sink = _sink
    if sink is not None:
        sink(event)
