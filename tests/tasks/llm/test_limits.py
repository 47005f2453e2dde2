import threading

import pytest

from tasks.llm.limits import CircuitOpen, EndpointLimiter, parse_reset, parse_retry_after


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.lock = threading.Lock()

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        with self.lock:
            self.now += seconds


def run(limiter, n, tokens_in=0, tokens_out=0):
    starts = []
    for _ in range(n):
        ticket = limiter.acquire(tokens_in)
        starts.append(limiter.clock())
        limiter.succeeded(ticket, tokens_in, tokens_out)
    return starts


def threaded_starts(limiter, threads, each):
    """`threads` real threads each making `each` requests through `limiter`; the start times, sorted."""
    import time

    starts = []

    def worker():
        for _ in range(each):
            ticket = limiter.acquire()
            starts.append(time.monotonic())
            limiter.succeeded(ticket, 1, 1)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    [t.start() for t in pool]
    [t.join() for t in pool]
    return sorted(starts)


def max_in_window(starts, window=60.0):
    return max(sum(1 for t in starts if s <= t < s + window) for s in starts)


def test_requests_per_minute_is_never_exceeded():
    clock = FakeClock()
    limiter = EndpointLimiter(requests_per_minute=120, clock=clock, sleep=clock.sleep)
    starts = run(limiter, 500)
    assert max_in_window(starts) <= 121
    assert starts[-1] == pytest.approx(499 * 0.5, rel=0.01)  # and it is reached: paced, not throttled below


def test_input_and_output_tokens_per_minute_are_respected():
    clock = FakeClock()
    limiter = EndpointLimiter(input_tokens_per_minute=1000, output_tokens_per_minute=10_000, clock=clock,
                              sleep=clock.sleep)
    starts = run(limiter, 50, tokens_in=100)
    assert max_in_window(starts) <= 10
    clock2 = FakeClock()
    out = EndpointLimiter(output_tokens_per_minute=500, clock=clock2, sleep=clock2.sleep)
    assert max_in_window(run(out, 30, tokens_out=100)) <= 5


def test_a_short_real_window_holds_the_rate():

    limiter = EndpointLimiter(requests_per_minute=1200, max_concurrency=4)  # one start per 50 ms
    starts = threaded_starts(limiter, threads=4, each=5)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) >= 0.045 and len(starts) == 20


def test_429_halves_concurrency_pauses_and_recovers():
    clock = FakeClock()
    limiter = EndpointLimiter(max_concurrency=8, clock=clock, sleep=clock.sleep)
    delay = limiter.failed(limiter.acquire(), "429", rate_limited=True, retry_after=2.0)
    assert 2.0 <= delay <= 2.5 and limiter.cap == 4 and limiter.paused_until == pytest.approx(delay)
    ticket = limiter.acquire()
    assert clock() >= 2.0  # waited out the Retry-After
    limiter.succeeded(ticket, 1, 1)
    run(limiter, 40)
    assert limiter.cap == 8


def test_rate_limit_headers_pause_until_reset():
    clock = FakeClock()
    limiter = EndpointLimiter(clock=clock, sleep=clock.sleep)
    limiter.succeeded(limiter.acquire(), 1, 1, {"x-ratelimit-remaining-requests": "0",
                                               "x-ratelimit-reset-requests": "1m30s"})
    limiter.acquire()
    assert clock() >= 90.0


def test_breaker_opens_after_sustained_errors_with_a_clear_message_then_half_opens():
    clock = FakeClock()
    limiter = EndpointLimiter("openai m at http://x", breaker_threshold=3, cooldown_s=30, clock=clock,
                              sleep=clock.sleep)
    for _ in range(3):
        limiter.failed(limiter.acquire(), "HTTP 500 boom")
    with pytest.raises(CircuitOpen, match="openai m at http://x: 3 requests failed in a row .*HTTP 500 boom"):
        limiter.acquire()
    clock.now += 31
    limiter.succeeded(limiter.acquire(), 1, 1)
    assert limiter.failures == 0


def test_parsers():
    assert parse_reset("6m0s") == 360 and parse_reset("120ms") == pytest.approx(0.12) and parse_reset("2") == 2
    assert parse_retry_after({"retry-after": "3"}) == 3 and parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({}) is None


def test_a_waiting_request_sleeps_once_until_its_slot():
    """Eight threads share a 1,200 rpm endpoint: each request reserves its start slot and sleeps once until it, so
    the sleeps are one per request (the old pacer woke every waiting thread at every slot), and the rate holds."""
    import time

    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        time.sleep(seconds)

    limiter = EndpointLimiter(requests_per_minute=1200, max_concurrency=8, sleep=sleep)
    starts = threaded_starts(limiter, threads=8, each=5)
    assert len(starts) == 40 and min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 0.045
    assert len(sleeps) <= 40


def test_concurrency_follows_the_rate_limit_and_the_latency():
    """Unset, the cap follows Little's law: 500 rpm answered in 2 s keeps about 22 requests in flight (8 of them
    reached 46 percent of the limit); a 429 halves it, and it regrows one step at a time until a quiet minute."""
    from tasks.llm.limits import AUTO_MAX_CONCURRENCY, UNPACED_MAX_CONCURRENCY, ceiling, little

    clock = FakeClock()
    limiter = EndpointLimiter(max_concurrency=None, requests_per_minute=500, clock=clock, sleep=clock.sleep)
    assert limiter.cap == 8 and limiter.max_cap == AUTO_MAX_CONCURRENCY
    ticket = limiter.acquire()
    clock.now += 2.0
    limiter.succeeded(ticket, 10, 10)
    assert limiter.cap == little(500, 2.0, AUTO_MAX_CONCURRENCY) == 22
    limiter.failed(limiter.acquire(), "429", rate_limited=True, retry_after=1.0)
    assert limiter.cap == 11
    for _ in range(11):
        ticket = limiter.acquire()
        clock.now += 2.0
        limiter.succeeded(ticket, 1, 1)
    assert limiter.cap == 12  # one step after `cap` successes, not straight back
    clock.now += 61
    ticket = limiter.acquire()
    clock.now += 2.0
    limiter.succeeded(ticket, 1, 1)
    assert limiter.cap == 22
    assert ceiling(None, None) == UNPACED_MAX_CONCURRENCY and ceiling(4, 500) == 4
    fixed = EndpointLimiter(max_concurrency=8, requests_per_minute=500, clock=clock, sleep=clock.sleep)
    ticket = fixed.acquire()
    clock.now += 2.0
    fixed.succeeded(ticket, 1, 1)
    assert fixed.cap == 8  # a configured max_concurrency is kept


def test_the_token_window_keeps_running_sums():
    clock = FakeClock()
    limiter = EndpointLimiter(input_tokens_per_minute=1000, clock=clock, sleep=clock.sleep)
    tickets = [limiter.acquire(100) for _ in range(3)]
    assert limiter.used_in == 300
    limiter.succeeded(tickets[0], 250, 40)  # the usage the provider reported replaces the estimate
    assert limiter.used_in == 450 and limiter.used_out == 40
    clock.now += 61
    limiter.acquire(10)
    assert limiter.used_in == 10 and limiter.used_out == 0  # the old records left the window
    limiter.succeeded(tickets[1], 999, 999)  # reported after its record left the window: no effect on the sums
    assert limiter.used_in == 10
