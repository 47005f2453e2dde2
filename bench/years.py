"""Multi-year lives: CPU time of each simulated year, to show no stage's cost grows with the life behind it.

`python -m bench.years` lives one persona (offline narrator, the default densities, `[world] years`) and runs the
stages directly (no Prefect, no I/O): profile, loop, sources, dialogue, questions. It reports per stage the CPU
time (`time.process_time`) of simulated year 1 and of the last year:

- loop: every day of the longest life is timed as it is lived (plan, rollout, evolve, prune), and the narration
  of each year's events as one `generate_many` of that year's calls; summed by calendar year;
- sources, dialogue, questions: these read the whole world at once, so the cost of year k is the marginal cost
  T(k years) - T(k - 1 years) of the same life lived k and k - 1 years (the loop is deterministic by day, so the
  shorter life is the longer one cut short); year 1 is T(1 year). The questions stage asks a fixed number of
  questions whatever the length (60 here), and which ones it selects decides how many it recomputes before
  critical events, so its marginal cost is noisy: the report adds the mean per year, T(N) / N.

A one-year life is lived first and thrown away (imports, the tokenizer and Link Grammar load once per process);
`--repeat R` times each point R times and keeps the least (CPU time on a shared machine only ever grows).
`--points 1,2,9,10` (the default with `--years 10`) lives the life 1, 2, 9 and 10 years; the report's `ratio` is
year 10 / year 1 (the target: within 1.15). `--seed` picks the life. About five minutes a repeat on one core of
the two-core reference machine.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from typing import Any

from schemas.config import BuildConfig, ProviderConfig, config_from_dict
from schemas.corpus import Corpus
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import CallSpec, Gateway
from tasks.questions import stage as questions
from tasks.sources import stage as sources
from tasks.world import loop, profile

STAGES = ("loop", "sources", "dialogue", "questions")


def light_config(years: int, seed: int) -> BuildConfig:
    """One persona, `years` calendar years from 2024-01-01, the default densities, no companion track."""
    return config_from_dict({"name": "bench-years", "seed": seed, "personas": 1, "start_date": "2024-01-01",
                             "world": {"years": years}, "stages": {"companion": {"enabled": False},
                                                                   "questions": {"per_persona": 60}}})


class YearGateway(Gateway):
    """The offline gateway, timing each calendar year's share of a `generate_many` of outcome calls."""

    def __init__(self) -> None:
        super().__init__(ProviderConfig())
        self.by_year: dict[int, float] = defaultdict(float)

    def generate_many(self, items: list[CallSpec | tuple]) -> list[Any]:
        specs = [i if isinstance(i, CallSpec) else CallSpec(*i) for i in items]
        if not specs or any(s.prompt_name != "outcome" for s in specs):
            return super().generate_many(specs)
        groups: dict[int, list[CallSpec]] = defaultdict(list)
        for spec in specs:  # events come in date order, so each year's calls are one run of the list
            groups[int(spec.context["event"]["date"][:4])].append(spec)
        out: list[Any] = []
        for year, group in groups.items():
            started = time.process_time()
            out += super().generate_many(group)
            self.by_year[year] += time.process_time() - started
        return out


def live(config: BuildConfig, persona) -> tuple[Any, dict[int, float]]:
    """The persona's world and the loop's CPU seconds by calendar year (days lived plus their narration)."""
    gateway = YearGateway()
    sim = loop._Simulation(config, persona, gateway)
    by_year: dict[int, float] = defaultdict(float)
    day = config.start_date
    while day <= config.end_date:
        started = time.process_time()
        sim.live(day)
        by_year[day.year] += time.process_time() - started
        day = day.fromordinal(day.toordinal() + 1)
    sim.narrate_all()
    for year, seconds in gateway.by_year.items():
        by_year[year] += seconds
    return sim.world(), dict(by_year)


def timed(fn, *args) -> tuple[Any, float]:
    started = time.process_time()
    value = fn(*args)
    return value, time.process_time() - started


def run_stages(config: BuildConfig, persona, world) -> dict[str, float]:
    """CPU seconds of sources, dialogue and questions over `world`."""
    gateway = Gateway(ProviderConfig())
    docs, t_sources = timed(sources.write_sources, config, persona, world, gateway)
    talk, t_dialogue = timed(dialogue.write_dialogue, config, persona, world, docs.documents, gateway, docs.chunks)
    corpus = Corpus(documents=docs.documents, chunks=docs.chunks, bullets=talk.bullets, sessions=talk.sessions,
                    turns=talk.turns, mentions=talk.mentions)
    qset, t_questions = timed(questions.write_questions, config, persona, world, corpus)
    return {"sources": t_sources, "dialogue": t_dialogue, "questions": t_questions, "events": len(world.events),
            "turns": len(talk.turns), "documents": len(docs.documents), "questions_n": len(qset.questions)}


def measure(years: int, points: list[int], seed: int, repeat: int = 1) -> dict[str, Any]:
    config = light_config(max(points), seed)
    pid, text = profile.persona_ids(config)[0], profile.seed_texts(config)[0]
    persona = profile.enrich_persona(config, pid, text, Gateway(ProviderConfig()))
    run_stages(light_config(1, seed + 1), persona, live(light_config(1, seed + 1), persona)[0])  # warm-up
    totals: dict[int, dict[str, float]] = {}
    loop_years: dict[int, float] = {}
    for k in sorted(points):
        cfg = light_config(k, seed)
        for _ in range(repeat):
            world, by_year = live(cfg, persona)
            if k == max(points):
                loop_years = {y: min(t, loop_years.get(y, t)) for y, t in by_year.items()}
            found = run_stages(cfg, persona, world)
            totals[k] = {s: min(v, totals.get(k, {}).get(s, v)) for s, v in found.items()}
        print(f"  {k:2d} years: " + ", ".join(f"{s} {totals[k][s]:.2f} s" for s in STAGES[1:])
              + f"; {totals[k]['events']} events, {totals[k]['turns']} turns, {totals[k]['documents']} documents",
              flush=True)
    first_year = config.start_date.year
    rows = {"loop": {"year_1": loop_years[first_year], f"year_{years}": loop_years[first_year + years - 1],
                     "by_year": [round(loop_years[y], 3) for y in sorted(loop_years)]}}
    for stage in STAGES[1:]:
        marginal = {k: totals[k][stage] - totals.get(k - 1, {}).get(stage, 0.0) for k in totals
                    if k == 1 or k - 1 in totals}
        rows[stage] = {"year_1": marginal[1], f"year_{years}": marginal[years],
                       "marginal": {k: round(v, 3) for k, v in marginal.items()},
                       "mean_per_year": {k: round(totals[k][stage] / k, 3) for k in totals}}
    for row in rows.values():
        row["ratio"] = round(row[f"year_{years}"] / row["year_1"], 3) if row["year_1"] else None
        row["year_1"], row[f"year_{years}"] = round(row["year_1"], 3), round(row[f"year_{years}"], 3)
    total_1 = sum(r["year_1"] for r in rows.values())
    total_n = sum(r[f"year_{years}"] for r in rows.values())
    return {"years": years, "points": sorted(points), "seed": seed, "stages": rows,
            "total": {"year_1": round(total_1, 3), f"year_{years}": round(total_n, 3),
                      "ratio": round(total_n / total_1, 3)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--points", default=None, help="lives to live, in years (default 1,2,N-1,N)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    points = ([int(p) for p in args.points.split(",")] if args.points
              else sorted({1, 2, max(1, args.years - 1), args.years}))
    result = measure(args.years, points, args.seed, args.repeat)
    for stage, row in result["stages"].items():
        mean = f"   mean per year {row['mean_per_year']}" if "mean_per_year" in row else ""
        print(f"{stage:10s} year 1 {row['year_1']:7.3f} s   year {args.years} {row[f'year_{args.years}']:7.3f} s   "
              f"ratio {row['ratio']}{mean}")
    total = result["total"]
    print(f"{'total':10s} year 1 {total['year_1']:7.3f} s   year {args.years} {total[f'year_{args.years}']:7.3f} s   "
          f"ratio {total['ratio']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
