"""Persona-local time: every simulated timestamp is aware and expressed in the persona's IANA zone."""

from __future__ import annotations

import datetime as dt
import functools
from zoneinfo import ZoneInfo

from schemas.config import BuildConfig
from schemas.profile import Persona


def persona_zone(persona: Persona) -> ZoneInfo:
    """The persona's time zone (Profile.identity.timezone)."""
    return _zone(persona.profile.identity.timezone)


@functools.lru_cache(maxsize=256)
def _zone(name: str) -> ZoneInfo:
    """ZoneInfo(name), looked up once per name (ZoneInfo's own cache returns the same object)."""
    return ZoneInfo(name)


def local_datetime(persona: Persona, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    """An aware datetime at `hour:minute` on `day`, wall-clock time in the persona's zone."""
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=persona_zone(persona))


def local_date(persona: Persona, moment: dt.datetime) -> dt.date:
    """The calendar day `moment` falls on in the persona's zone."""
    return moment.astimezone(persona_zone(persona)).date()


def question_time(config: BuildConfig, persona: Persona) -> dt.datetime:
    """When questions are asked: 09:00 persona-local on the day after the simulation ends."""
    return local_datetime(persona, config.end_date + dt.timedelta(days=1), 9)


def human_date(day: dt.date) -> str:
    """`March 3, 2024` style, without platform-specific strftime flags."""
    return _human_day(day) if type(day) is dt.date else f"{day:%B} {day.day}, {day.year}"


@functools.lru_cache(maxsize=8192)
def _human_day(day: dt.date) -> str:
    """`human_date` of a plain date, formatted once per day (questions format tens of thousands)."""
    return f"{day:%B} {day.day}, {day.year}"
