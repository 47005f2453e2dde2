"""Offline simulation time per persona-year: enrich + simulate called directly (no Prefect, no I/O).

Run alone with `python -m bench.world`; `make bench` includes it in bench/results.md.
"""

from __future__ import annotations

import statistics
import time

from schemas.config import ProviderConfig, load_preset
from tasks.llm.gateway import Gateway
from tasks.world import loop, profile

PRESET = "rhelm"


def time_world(preset: str = PRESET) -> dict:
    """Seconds per persona-year and the world's size, over every persona of the preset."""
    cfg = load_preset(preset)
    rows = []
    for pid, seed in zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True):
        started = time.perf_counter()
        gateway = Gateway(ProviderConfig())
        persona = profile.enrich_persona(cfg, pid, seed, gateway)
        world = loop.simulate(cfg, persona, gateway)
        seconds = time.perf_counter() - started
        events = world.events[1:]
        rows.append({"seconds": seconds, "events": len(events), "critical": sum(e.critical for e in events),
                     "event_days": len({e.date for e in events}), "facts": len(world.facts),
                     "ops": len(world.profile_ops)})
    years = cfg.days / 365
    per_year = [r["seconds"] / years for r in rows]
    summary = {k: (min(r[k] for r in rows), round(statistics.mean(r[k] for r in rows), 1)) for k in rows[0]
               if k != "seconds"}
    return {"preset": preset, "personas": len(rows), "days": cfg.days,
            "seconds_per_persona_year_mean": round(statistics.mean(per_year), 3),
            "seconds_per_persona_year_max": round(max(per_year), 3), "min_mean": summary,
            "command": f"python -m bench.world  (enrich + simulate per persona of preset {preset})"}


def markdown(result: dict) -> list[str]:
    """The results.md section for the world benchmark."""
    lines = ["", "## World simulation (offline, per persona-year)", "",
             f"Preset `{result['preset']}`: {result['personas']} personas x {result['days']} days; "
             f"`{result['command']}`", "",
             f"- seconds per persona-year: mean {result['seconds_per_persona_year_mean']}, "
             f"max {result['seconds_per_persona_year_max']}", "",
             "| per persona-year | min | mean |", "|---|---:|---:|"]
    lines += [f"| {k} | {lo} | {mean} |" for k, (lo, mean) in result["min_mean"].items()]
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(time_world())))
