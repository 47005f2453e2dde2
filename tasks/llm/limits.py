"""Client-side limits for model calls, shared per provider endpoint.

One `EndpointLimiter` per (provider, base_url, model) in the process (`limiter_for`), so every stage
gateway and every persona branch draws from the same budget. It combines:

- a requests-per-minute pacer (request starts at least 60/rpm seconds apart, so no 60-second window
  ever holds more than rpm + 1 starts);
- input and output tokens per minute over a sliding 60-second window (input is reserved from an
  estimate before the call and corrected from the response usage);
- an adaptive concurrency cap: halved on a 429, raised by one after `cap` successes in a row (AIMD);
- pauses from the provider: Retry-After on a 429 (with jitter), and rate-limit headers that say the
  remaining budget is zero until a reset time;
- a circuit breaker: after `breaker_threshold` failed requests in a row, `acquire` raises
  `CircuitOpen` (a clear message naming the endpoint and the last error) for `cooldown_s`, then lets
  one request probe the endpoint again.

The clock and sleep are injectable, so tests can check the rate with a fake clock.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

from schemas.secrets import display_url

WINDOW_S = 60.0
BACKOFF_BASE_S = 0.5  # first retry delay after a 5xx or timeout without Retry-After; doubles, capped at 30 s


class CircuitOpen(RuntimeError):
    """The endpoint failed too many requests in a row; the stage stops instead of stalling."""


class Ticket:
    """One admitted request: its record in the token window."""

    __slots__ = ("record",)

    def __init__(self, record: list[float]) -> None:
        self.record = record


class EndpointLimiter:
    """Rate, token, concurrency and breaker limits for one provider endpoint."""

    def __init__(self, label: str = "endpoint", *, max_concurrency: int = 8, requests_per_minute: int | None = None,
                 input_tokens_per_minute: int | None = None, output_tokens_per_minute: int | None = None,
                 breaker_threshold: int = 12, cooldown_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.label = label
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.itpm, self.otpm = input_tokens_per_minute, output_tokens_per_minute
        self.max_cap = self.cap = max_concurrency
        self.breaker_threshold, self.cooldown_s = breaker_threshold, cooldown_s
        self.clock, self.sleep = clock, sleep
        self.backoff_s = BACKOFF_BASE_S
        self.in_flight = 0
        self.next_start = 0.0
        self.paused_until = 0.0
        self.window: deque[list[float]] = deque()
        self.failures = 0
        self.open_until = 0.0
        self.last_error = ""
        self.stats = {"requests": 0, "rate_limited": 0, "errors": 0}
        self._streak = 0
        self._cond = threading.Condition()
        self._jitter = random.Random(label)

    # -- admission -------------------------------------------------------------------------------
    def acquire(self, estimated_input_tokens: int = 0) -> Ticket:
        """Block until one request may start; raises CircuitOpen while the breaker is open."""
        with self._cond:
            while self.in_flight >= self.cap:
                self._check_breaker()
                self._cond.wait(0.5)
            self.in_flight += 1
        try:
            return self._pace(estimated_input_tokens)
        except BaseException:
            self._release()
            raise

    def _pace(self, tokens_in: int) -> Ticket:
        while True:
            with self._cond:
                self._check_breaker()
                now = self.clock()
                wait = self._wait_needed(now, tokens_in)
                if wait <= 0:
                    self.next_start = max(now, self.next_start) + self.interval
                    record = [now, float(tokens_in), 0.0]
                    self.window.append(record)
                    self.stats["requests"] += 1
                    return Ticket(record)
            self.sleep(min(wait, 1.0))

    def _wait_needed(self, now: float, tokens_in: int) -> float:
        while self.window and self.window[0][0] <= now - WINDOW_S:
            self.window.popleft()
        waits = [self.paused_until - now, self.next_start - now]
        if self.window:
            expiry = self.window[0][0] + WINDOW_S - now
            used_in = sum(r[1] for r in self.window)
            used_out = sum(r[2] for r in self.window)
            if self.itpm and used_in + tokens_in > self.itpm:
                waits.append(expiry)
            if self.otpm and used_out >= self.otpm:
                waits.append(expiry)
        return max(waits)

    def _check_breaker(self) -> None:
        if self.failures >= self.breaker_threshold and self.clock() < self.open_until:
            raise CircuitOpen(
                f"{self.label}: {self.failures} requests failed in a row (last: {self.last_error}); "
                f"stopping instead of retrying forever. Check the endpoint, the key and the rate limits."
            )

    def _release(self) -> None:
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    # -- outcomes --------------------------------------------------------------------------------
    def succeeded(self, ticket: Ticket, tokens_in: int, tokens_out: int,
                  headers: Mapping[str, str] | None = None) -> None:
        """A request that got an answer: correct the token window, close the breaker, grow the cap."""
        with self._cond:
            ticket.record[1], ticket.record[2] = float(tokens_in), float(tokens_out)
            self.failures = 0
            self._streak += 1
            if self._streak >= self.cap and self.cap < self.max_cap:
                self.cap += 1
                self._streak = 0
            self._observe(headers or {})
        self._release()

    def failed(self, ticket: Ticket, error: str, *, rate_limited: bool = False, retry_after: float | None = None,
               attempt: int = 0) -> float:
        """A request that failed; returns the jittered delay before the next try (also paused for all)."""
        with self._cond:
            self.failures += 1
            self.last_error = error
            self._streak = 0
            self.stats["rate_limited" if rate_limited else "errors"] += 1
            base = retry_after if retry_after is not None else min(30.0, self.backoff_s * 2**attempt)
            delay = base * (1.0 + self._jitter.uniform(0.0, 0.25))
            if rate_limited:
                self.cap = max(1, self.cap // 2)
                self.paused_until = max(self.paused_until, self.clock() + delay)
            if self.failures >= self.breaker_threshold:
                self.open_until = self.clock() + self.cooldown_s
        self._release()
        return delay

    def _observe(self, headers: Mapping[str, str]) -> None:
        """Pause until the reset time when rate-limit headers say the remaining budget is zero."""
        for remaining, reset in RATE_HEADERS:
            left = headers.get(remaining)
            if left is not None and _number(left) == 0:
                self.paused_until = max(self.paused_until, self.clock() + parse_reset(headers.get(reset, "")))


RATE_HEADERS = (
    ("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"),
    ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
    ("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"),
    ("anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"),
    ("anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"),
)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_reset(value: str, default: float = 1.0) -> float:
    """Seconds until a reset given as `1s`, `6m0s`, `120ms` (OpenAI) or an RFC 3339 time (Anthropic)."""
    value = value.strip()
    if not value:
        return default
    if re.fullmatch(r"(\d+(\.\d+)?(ms|h|m|s))+", value):
        units = {"ms": 0.001, "h": 3600.0, "m": 60.0, "s": 1.0}
        return sum(float(n) * units[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)(ms|h|m|s)", value))
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())
    except ValueError:
        return _number(value) or default


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date), if present."""
    if (ms := _number(headers.get("retry-after-ms", "") or "x")) is not None:
        return ms / 1000
    value = headers.get("retry-after")
    if not value:
        return None
    if (seconds := _number(value)) is not None:
        return seconds
    from email.utils import parsedate_to_datetime

    try:
        return max(0.0, (parsedate_to_datetime(value) - dt.datetime.now(dt.UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


_REGISTRY: dict[tuple, EndpointLimiter] = {}
_REGISTRY_LOCK = threading.Lock()


def limiter_for(config) -> EndpointLimiter:
    """The process-wide limiter of the config's endpoint (keyed by provider, base_url and model)."""
    key = (config.name, config.base_url or "default", config.model)
    with _REGISTRY_LOCK:
        if key not in _REGISTRY:
            _REGISTRY[key] = EndpointLimiter(
                f"{config.name} {config.model} at {display_url(config.base_url) or 'the default endpoint'}",
                max_concurrency=config.max_concurrency, requests_per_minute=config.requests_per_minute,
                input_tokens_per_minute=config.input_tokens_per_minute,
                output_tokens_per_minute=config.output_tokens_per_minute,
                breaker_threshold=config.breaker_threshold,
            )
        return _REGISTRY[key]


def reset_limiters() -> None:
    """Forget every endpoint limiter (tests; a new build in a long-lived process)."""
    with _REGISTRY_LOCK:
        _REGISTRY.clear()
