"""The simulated span as years of a life: the `[world]` table of a build config (schemas/config.py) and how its
`years` set the config's `days`."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_YEARS = 15
"""The longest life `[world] years` simulates."""
MAX_DAYS = 5479
"""The longest simulation in days: fifteen calendar years (15 x 365 days and at most four February 29ths)."""


def years_later(start: dt.date, years: int) -> dt.date:
    """The same calendar day `years` later (a February 29th falls on March 1st in a common year)."""
    try:
        return start.replace(year=start.year + years)
    except ValueError:
        return dt.date(start.year + years, 3, 1)


class WorldOptions(BaseModel):
    """The simulated span as a life (tasks/world/ages.py, README "World model")."""

    model_config = ConfigDict(extra="forbid")

    years: int | None = Field(
        None, description=f"calendar years of one continuous life from start_date (1 to {MAX_YEARS}); sets `days` "
                          "(a `days` that disagrees is an error). None: `days` gives the span")

    @field_validator("years")
    @classmethod
    def _a_life_span(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= MAX_YEARS:
            raise ValueError(f"years must be from 1 to {MAX_YEARS} (got {value})")
        return value


def span_days(start: dt.date, years: int | None, days: int, days_given: bool) -> int:
    """The simulated days: `days`, or with `years` that many calendar years from `start` (an error when `days` was
    given too and disagrees, or when the years run past the calendar)."""
    if years is None:
        return days
    if dt.date.max.year - start.year <= years:
        raise ValueError(f"start_date {start} plus {years} years runs past the calendar's end ({dt.date.max}); choose "
                         "an earlier start_date")
    derived = (years_later(start, years) - start).days
    if days_given and days != derived:
        raise ValueError(f"[world] years = {years} from {start} is {derived} days, but days = {days}; give one of "
                         f"them (or days = {derived})")
    return derived
