"""Life transitions at life-stage rates: how likely a year is to bring a plan to move home, to change jobs or to
face a restructuring at work, given the persona's age and situation. The catalog's transition kinds carry these as
`EventKind.yearly`; the simulator plans each with its daily share of the yearly chance (tasks/world/loop.py), and
a plan turns out well with the build's `rollout_p` (0.7 in the presets), so the rates are of plans, set a little
above the rates of the changes themselves.

Sources and reasoning (rounded; lives differ by country, and these are caps on plausibility, not a census):
- moving home: in the US Current Population Survey about a fifth of adults under 30 move in a year, one in ten
  at 30 to 44, one in twenty at 45 to 64 and about one in thirty over 65 (CPS geographic mobility, 2019-2022);
- changing jobs: job-to-job moves run at about 2 percent of workers a month in the US (Census LEHD job-to-job
  flows), concentrated among the young: about a third of workers under 25 change employers in a year, a sixth
  at 35 to 44, under a tenth past 55; the unemployed look for work most of the year;
- restructuring: layoffs and discharges run at about 1 percent of employment a month (US BLS JOLTS), so about one
  worker in eight a year lives through one; a third of restructurings (the negative outcome) end the job.
"""

from __future__ import annotations

from typing import Any


def _by_age(age: int, bands: tuple[tuple[int, float], ...]) -> float:
    """The rate of the first band whose upper age `age` is under."""
    return next((rate for upper, rate in bands if age < upper), bands[-1][1])


def move_home(profile: dict[str, Any]) -> float:
    """Plans to move home a year."""
    return _by_age(profile["identity"]["age"], ((30, 0.3), (45, 0.15), (65, 0.07), (200, 0.05)))


def change_jobs(profile: dict[str, Any]) -> float:
    """Plans to take a new job a year (a job search that may fall through)."""
    if profile["identity"]["employer"] == "unemployed":
        return 1.5
    return _by_age(profile["identity"]["age"], ((25, 0.5), (35, 0.35), (45, 0.22), (55, 0.15), (200, 0.1)))


def restructuring(profile: dict[str, Any]) -> float:
    """Restructurings lived through a year at work."""
    return 0.15
