"""Ceilings a build is checked against before any work, with the plan's estimate of time, memory and model calls.

Hard ceilings (the config's own validation, and the seed reader in tasks/world/profile.py):
- personas: 100,000 (`personas`, or the rows of a seed file); days: 5,479 (fifteen years, `[world] years`);
- seed file: 64 MiB and 100,000 rows, checked before it is parsed in full.

Estimates, refused past the config's `[limits]` (schemas/config.py `Limits`):
- time: `max_hours` (24 by default);
- peak memory: `max_memory_gb` (default: 80% of this machine's memory);
- model calls through a paid provider: `max_calls` (250,000 by default).

The estimate is fitted to builds measured on the reference machine (2 cores, Python 3.11, offline narrator):
tiny (2 personas x 21 days) 21 s and 577 MB peak RSS; 20 x 21 days 45 s, 765 MB; 40 x 21 days 67 s, 876 MB;
365-day personas 16.4 s each, 10 / 20 / 40 of them 990 / 1,123 / 1,462 MB (bench/results.md, "scale slope"); a
rhelm build makes 20.6 model calls per persona-day (demo 13.9). On the four presets the estimate is within 16% of
the measured time and peak memory (`/usr/bin/time lifeloom build --preset P`: tiny 21 s / 657 MB estimated against
23.6 s / 653 MB, demo 28 s / 684 MB against 29.6 s / 696 MB (30 s estimated since its days are as full as rhelm's;
not re-measured on a quiet machine), rhelm 230 s / 987 MB against 204-221 s / 864-897 MB since issue 55 filled
its days (183 s against 189 s / 1,129 MB before), finperma 135 s / 923 MB against 117 s / 1,042 MB) and within a
factor of two of the calls (tiny 756 against 394, rhelm 65,700 against 75,103): more than a refusal needs, since
a 100,000-persona build is not a few minutes off.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.config import BuildConfig
from tasks.llm.limits import planned_concurrency

BASE_S = 19.0
"""Fixed cost of a build: Prefect start-up, gates, measures and freeze."""
PERSONA_S, PERSONA_DAY_S = 0.19, 0.0444
BASE_MB = 640.0
ACTIVE_DAY_MB = 0.13
"""Memory of a branch in flight, per simulated day (runner.max_active_personas branches are)."""
PERSONA_MB, PERSONA_DAY_MB = 5.0, 0.0294
"""Memory that grows with the corpus (the gates and measures read whole tables)."""
DAY_WEIGHT = {"general": 1.0, "finance": 0.16}
"""Work of a simulated day relative to the general pack's: the finance pack's multi-year days are sparse (finperma,
8 personas x 2,008 days, measured 117 s, 1.04 GB and 47,995 calls, against 734 s, 2.2 GB and 289,152 calls
estimated at weight 1)."""
PLANS_DRAWN_PER_DAY = 0.9
"""Plans the default loop draws a day (`plan_probability` 0.6 times a mean of 1.5 plans)."""
DENSE_DAY_SLOPE = 0.29
"""Time of a simulated day denser in plans than the default: it grows by this share of the ratio above 1 (more
events, facts, turns and measures; rhelm draws 0.9 x 2 = 1.8 a day: x 1.29). The catalog's cooldowns and the
ontology's rates level a year off (rhelm: about 400 events a persona-year against 310 at the default), so the time
does not grow with the ratio itself; sparser days are the pack's DAY_WEIGHT."""
CALLS_PER_PERSONA_DAY = 18.0
CALL_LATENCY_S = 1.5
"""Assumed seconds per call of a real provider (the limiter runs `max_concurrency`, or what Little's law on the
rate limit gives, at once; `lifeloom plan` counts the real calls)."""


class LimitExceeded(ValueError):
    """A build the limits refuse; the message holds the estimate and the setting that would allow it."""


@dataclass(frozen=True)
class Estimate:
    personas: int
    days: int
    seconds: float
    peak_mb: float
    calls: int
    paid_calls: int

    def line(self) -> str:
        hours = self.seconds / 3600
        when = f"{hours:,.1f} h" if hours >= 1 else f"{self.seconds / 60:,.0f} min" if self.seconds >= 90 \
            else f"{self.seconds:.0f} s"
        paid = f", {self.paid_calls:,} through a paid provider" if self.paid_calls else ""
        return (f"{self.personas:,} personas x {self.days:,} days: about {when}, {self.peak_mb / 1024:,.1f} GB peak "
                f"memory and {self.calls:,} model calls{paid}")


def estimate(config: BuildConfig, personas: int) -> Estimate:
    """Time, peak memory and model calls of building `personas` personas with `config` on one machine."""
    days = config.days * DAY_WEIGHT.get(config.domain, 1.0)
    calls = int(CALLS_PER_PERSONA_DAY * personas * days)
    providers = [config.provider, *config.stages.providers.values()]
    paid = [p for p in providers if p.name != "offline"]
    paid_calls = calls if paid else 0
    seconds = BASE_S + personas * (PERSONA_S + PERSONA_DAY_S * days * density(config))
    if paid:
        seconds += paid_calls * CALL_LATENCY_S / min(planned_concurrency(p, CALL_LATENCY_S) for p in paid)
    active = min(personas, config.runner.max_active_personas)
    peak = BASE_MB + ACTIVE_DAY_MB * active * days + personas * (PERSONA_MB + PERSONA_DAY_MB * days)
    return Estimate(personas, config.days, seconds, peak, calls, paid_calls)


def density(config: BuildConfig) -> float:
    """How much more a simulated day costs than a default one for the loop's plan rate (1 at the default or below)."""
    loop = config.stages.loop
    drawn = loop.plan_probability * (1 + loop.max_plans_per_day) / 2
    return 1.0 + DENSE_DAY_SLOPE * max(0.0, drawn / PLANS_DRAWN_PER_DAY - 1.0)


def machine_memory_gb() -> float | None:
    """This machine's memory (MemTotal), or None where /proc/meminfo is not there."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_limits(config: BuildConfig, personas: int, memory_gb: float | None = None) -> Estimate:
    """The build's estimate, or LimitExceeded naming each ceiling it passes and how to raise it."""
    est = estimate(config, personas)
    limits = config.limits
    problems = []
    if est.seconds > limits.max_hours * 3600:
        problems.append(f"longer than [limits] max_hours = {limits.max_hours:g}")
    budget = limits.max_memory_gb
    if budget is None:
        total = memory_gb if memory_gb is not None else machine_memory_gb()
        budget = None if total is None else round(0.8 * total, 1)
    if budget is not None and est.peak_mb / 1024 > budget:
        problems.append(f"more memory than {budget:g} GB ([limits] max_memory_gb"
                        + (")" if limits.max_memory_gb is not None else "; 80% of this machine's)"))
    if est.paid_calls > limits.max_calls:
        problems.append(f"more paid model calls than [limits] max_calls = {limits.max_calls:,}")
    if problems:
        raise LimitExceeded(f"refusing to build: {est.line()}, which is " + "; ".join(problems) + ". Build fewer "
                            "personas or days, or raise the limit in the config's [limits] table if the machine "
                            "(and budget) can take it")
    return est
