"""Client-side limits for model calls, shared per provider endpoint.

One `EndpointLimiter` per (provider, base_url, model) in the process (`limiter_for`), so every stage
gateway and every persona branch draws from the same budget. It combines:

- a requests-per-minute pacer (request starts at least 60/rpm seconds apart, so no 60-second window
  ever holds more than rpm + 1 starts);
- input and output tokens per minute over a sliding 60-second window (input is reserved from an
  estimate before the call and corrected from the response usage);
- a concurrency cap that follows the limits and the observed latency (Little's law: requests a second times
  seconds a request, with a quarter to spare, so a 500 rpm endpoint answering in 2 s runs about 22 at once),
  never above `max_concurrency` (None: AUTO_MAX_CONCURRENCY), halved on a 429 and then regrown by one after
  `cap` successes in a row (AIMD) until a minute passes without one;
- pauses from the provider: Retry-After on a 429 (with jitter), and rate-limit headers that say the
  remaining budget is zero until a reset time;
- a circuit breaker: after `breaker_threshold` failed requests in a row, `acquire` raises
  `CircuitOpen` (a clear message naming the endpoint and the last error) for `cooldown_s`, then lets
  one request probe the endpoint again.

Waiting costs no polling: a request reserves its start slot when it is admitted (the pacer hands out slots
60/rpm apart) and sleeps once until it; a request waiting for a free place in the cap is woken by the request
that frees it (one wake per freed place); the token window keeps running sums instead of re-adding the last
minute at every check. The clock and sleep are injectable, so tests can check the rate with a fake clock.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

from schemas.secrets import display_url

WINDOW_S = 60.0
BACKOFF_BASE_S = 0.5  # first retry delay after a 5xx or timeout without Retry-After; doubles, capped at 30 s
AUTO_MAX_CONCURRENCY = 256
"""The ceiling of a cap that follows the limits when `max_concurrency` is not set (with no rate limit configured:
UNPACED_MAX_CONCURRENCY, and 429s halve it)."""
UNPACED_MAX_CONCURRENCY = 64
START_CONCURRENCY = 8
"""The cap before any latency is observed."""
LITTLE_SPARE = 1.25
LATENCY_WEIGHT = 0.2
"""Weight of the newest latency in the moving average."""
REGROW_QUIET_S = 60.0
"""After a 429 the cap regrows one step at a time until this long has passed without another."""


def ceiling(max_concurrency: int | None, requests_per_minute: int | None) -> int:
    """The most requests an endpoint runs at once: the configured `max_concurrency`, else AUTO_MAX_CONCURRENCY
    with a rate limit (the cap follows it) and UNPACED_MAX_CONCURRENCY without."""
    if max_concurrency is not None:
        return max_concurrency
    return AUTO_MAX_CONCURRENCY if requests_per_minute else UNPACED_MAX_CONCURRENCY


def little(requests_per_minute: int | None, latency_s: float, top: int) -> int:
    """Requests in flight that keep a paced endpoint busy (Little's law, with LITTLE_SPARE), at most `top`;
    `top` when there is no rate to keep."""
    if not requests_per_minute:
        return top
    return max(1, min(top, math.ceil(requests_per_minute / 60.0 * latency_s * LITTLE_SPARE) + 1))


class CircuitOpen(RuntimeError):
    """The endpoint failed too many requests in a row; the stage stops instead of stalling."""


class Ticket:
    """One admitted request: its record in the token window ([start, tokens in, tokens out, still counted])."""

    __slots__ = ("record",)

    def __init__(self, record: list[float]) -> None:
        self.record = record


class EndpointLimiter:
    """Rate, token, concurrency and breaker limits for one provider endpoint."""

    def __init__(self, label: str = "endpoint", *, max_concurrency: int | None = 8,
                 requests_per_minute: int | None = None,
                 input_tokens_per_minute: int | None = None, output_tokens_per_minute: int | None = None,
                 breaker_threshold: int = 12, cooldown_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.label = label
        self.rpm = requests_per_minute
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.itpm, self.otpm = input_tokens_per_minute, output_tokens_per_minute
        self.max_cap = ceiling(max_concurrency, requests_per_minute)
        self.auto = max_concurrency is None
        self.cap = min(self.max_cap, START_CONCURRENCY) if self.auto else self.max_cap
        self.latency_s: float | None = None
        self.limited_at = -math.inf
        self.used_in = self.used_out = 0.0
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
                self._cond.wait(self.cooldown_s)  # woken by the request that frees a place (or the breaker)
            self.in_flight += 1
        try:
            return self._pace(estimated_input_tokens)
        except BaseException:
            self._release()
            raise

    def _pace(self, tokens_in: int) -> Ticket:
        """Reserve the next start slot and sleep once until it; at the slot, start unless a pause or the token
        window holds it longer (then wait for that, once, and reserve a fresh slot)."""
        slot = None
        while True:
            with self._cond:
                self._check_breaker()
                now = self.clock()
                if slot is None:
                    slot = max(now, self.next_start, self.paused_until)
                    self.next_start = slot + self.interval
                hold = max(self._budget_wait(now, tokens_in), self.paused_until - now)
                if hold > 0 and hold > slot - now:
                    wait, slot = hold, None
                else:
                    wait = slot - now
                    if wait <= 0:
                        record = [now, float(tokens_in), 0.0, 1.0]  # start, tokens in, out, still in the window
                        self.window.append(record)
                        self.used_in += tokens_in
                        self.stats["requests"] += 1
                        return Ticket(record)
            self.sleep(wait)

    def _budget_wait(self, now: float, tokens_in: int) -> float:
        """Seconds until the token window has room for `tokens_in` (0: now)."""
        while self.window and self.window[0][0] <= now - WINDOW_S:
            old = self.window.popleft()
            self.used_in -= old[1]
            self.used_out -= old[2]
            old[3] = 0.0
        if not self.window:
            return 0.0
        if self.itpm and self.used_in + tokens_in > self.itpm or self.otpm and self.used_out >= self.otpm:
            return self.window[0][0] + WINDOW_S - now
        return 0.0

    def _check_breaker(self) -> None:
        if self.failures >= self.breaker_threshold and self.clock() < self.open_until:
            raise CircuitOpen(
                f"{self.label}: {self.failures} requests failed in a row (last: {self.last_error}); "
                f"stopping instead of retrying forever. Check the endpoint, the key and the rate limits."
            )

    def _release(self) -> None:
        with self._cond:
            self.in_flight -= 1
            self._cond.notify()

    # -- outcomes --------------------------------------------------------------------------------
    def succeeded(self, ticket: Ticket, tokens_in: int, tokens_out: int,
                  headers: Mapping[str, str] | None = None) -> None:
        """A request that got an answer: correct the token window, close the breaker, grow the cap."""
        with self._cond:
            if ticket.record[3]:  # still counted in the window: correct the sums to the usage reported
                self.used_in += tokens_in - ticket.record[1]
                self.used_out += tokens_out - ticket.record[2]
            ticket.record[1], ticket.record[2] = float(tokens_in), float(tokens_out)
            self.failures = 0
            self._streak += 1
            took = max(0.0, self.clock() - ticket.record[0])
            self.latency_s = took if self.latency_s is None else \
                (1 - LATENCY_WEIGHT) * self.latency_s + LATENCY_WEIGHT * took
            before = self.cap
            target = little(self.rpm, self.latency_s, self.max_cap) if self.auto else self.max_cap
            if self.auto and self.rpm and self.clock() - self.limited_at >= REGROW_QUIET_S:
                self.cap = target  # follow the rate limit and the latency
            elif self._streak >= self.cap and self.cap < target:
                self.cap += 1
                self._streak = 0
            self._observe(headers or {})
            if self.cap > before:
                self._cond.notify(self.cap - before)
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
                self.limited_at = self.clock()
                self.paused_until = max(self.paused_until, self.clock() + delay)
            if self.failures >= self.breaker_threshold:
                self.open_until = self.clock() + self.cooldown_s
                self._cond.notify_all()  # the waiting requests learn the circuit is open
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


def planned_concurrency(config, latency_s: float) -> int:
    """The requests a provider config runs at once when its calls take `latency_s`: its `max_concurrency`, else
    what the cap settles at (Little's law on its rate limit; UNPACED_MAX_CONCURRENCY without one)."""
    top = ceiling(config.max_concurrency, config.requests_per_minute)
    return top if config.max_concurrency is not None else little(config.requests_per_minute, latency_s, top)


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
