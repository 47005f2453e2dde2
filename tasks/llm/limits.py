"""Client-side limits for model calls: a concurrency cap and a requests-per-minute pacer."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager


class Limits:
    def __init__(self, max_concurrency: int = 8, requests_per_minute: int | None = None) -> None:
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    @contextmanager
    def slot(self):
        """Hold one concurrency slot, waiting for the pacer first when a rate is set."""
        with self._slots:
            if self._interval:
                with self._lock:
                    now = time.monotonic()
                    wait = max(0.0, self._next - now)
                    self._next = max(now, self._next) + self._interval
                if wait:
                    time.sleep(wait)
            yield
