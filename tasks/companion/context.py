"""What context each user turn needs: the rule lives in tasks/common/memory_need.py (shared with the dialogue's
memory_rate steering); here the probe-side labels built on it: category and distance."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from schemas.world import Fact
from tasks.common.memory_need import Need, needs, refers, told_changes, window_of

__all__ = ["Need", "category_of", "distance_days", "is_profile_fact", "needs", "window_of"]


def is_profile_fact(fact: Fact) -> bool:
    """A baseline fact (the persona's profile when the story starts: event `<pid>-e0000`)."""
    return fact.event_id.endswith("-e0000")


def category_of(need: Need, facts: dict[str, Fact], day: dt.date) -> str:
    """no_memory (nothing required); recent_followup (no episode); state_update (the probe itself states the
    new value of a told change among its required facts); profile_grounded (every required fact is a baseline
    fact); else episodic_callback."""
    if not need.required_facts:
        return "no_memory"
    if not need.memory_need:
        return "recent_followup"
    said = set(refers(need.turn))
    if any(new.fact_id in said for _, new in told_changes([facts[f] for f in need.required_facts], day)):
        return "state_update"
    if all(is_profile_fact(facts[f]) for f in need.required_facts):
        return "profile_grounded"
    return "episodic_callback"


def distance_days(probe_time: dt.datetime, episode_times: Sequence[dt.datetime]) -> float | None:
    """Days from the earliest required episode turn to the probe (None without episodes), in elapsed time: two
    times in one zone subtract as wall clocks in Python, an hour off across a daylight-saving change."""
    if not episode_times:
        return None
    return round((utc(probe_time) - utc(min(episode_times))).total_seconds() / 86400, 3)


def utc(stamp: dt.datetime) -> dt.datetime:
    """`stamp` in UTC (an aware time; a naive one is taken as UTC already)."""
    return stamp.astimezone(dt.UTC) if stamp.tzinfo is not None else stamp
