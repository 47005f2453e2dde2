"""A probe's tier: distance and sessions of its required episodes, with `edge` overriding when the probe
depends on a change the user told in an earlier turn (pure: the gates recompute it from the tables)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from schemas.world import Fact
from tasks.common.memory_need import told_changes
from tasks.companion.context import utc

FAR_DAYS = 30
"""An episode farther back than this makes a probe hard."""


def stale(facts: Sequence[Fact], day: dt.date) -> list[str]:
    """Required facts replaced by a told, different, later required value by `day` (the reply must not use them
    as current)."""
    return sorted({old.fact_id for old, _ in told_changes(facts, day)})


def distance_tier(probe_time: dt.datetime, episodes: Sequence[tuple[str, dt.datetime]]) -> str:
    """`basic` with no episode turns; `hard` when they span two or more sessions or the earliest is more than
    FAR_DAYS days before the probe; else `intermediate`. `episodes`: (session_id, timestamp) pairs."""
    if not episodes:
        return "basic"
    farthest = utc(probe_time) - utc(min(t for _, t in episodes))  # elapsed, not wall-clock (DST)
    if len({s for s, _ in episodes}) >= 2 or farthest > dt.timedelta(days=FAR_DAYS):
        return "hard"
    return "intermediate"


def tier_of(probe_time: dt.datetime, probe_date: dt.date, episodes: Sequence[tuple[str, dt.datetime]],
            facts: Sequence[Fact], said: Collection[str]) -> str:
    """`edge` when the required facts hold a told change (tasks/memory_need.told_changes) whose new value the
    probe does not state itself (`said`: the fact ids it refers to), so the reply must bring the latest value
    from memory; else the distance tier."""
    if any(new.fact_id not in said for _, new in told_changes(facts, probe_date)):
        return "edge"
    return distance_tier(probe_time, episodes)
