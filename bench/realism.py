"""How plausible the simulated lives are (issue 23), per persona-year, over every persona of a preset: the share
of facts that are pseudo-attributes (records of events stored as state), the share that are event facts (what
happened at one event, never superseded), facts restating the value they supersede, the persona's state changes,
value changes of the big and the small things, and the world verifier's rate and precondition violations.
"Changes" are changes of value (the baseline's initial value is none); "facts" counts every fact of the
attribute, the baseline's included (how issue 23 first counted them). The world is simulated directly
(enrich + simulate, offline, no Prefect, no I/O), as in bench/world.py.

`python -m bench.realism [preset]` prints the figures as JSON; `--questions RELEASE` adds the question counts
by characteristic of a built release (its questions.parquet).
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from schemas.config import ProviderConfig, load_preset
from tasks.domains import pack_for
from tasks.llm.gateway import Gateway
from tasks.world import consistency, loop, profile
from tasks.world.ontology import ontology

PRESET = "rhelm"
WATCHED = ("employer", "occupation", "home", "doctor", "favourite_cafe", "grocery_shop", "gym", "current_book",
           "hobby_goal")


def realism(preset: str = PRESET) -> dict:
    cfg = load_preset(preset)
    attributes = ontology(pack_for(cfg).attributes())
    facts = records = events = restated = violations = rate = updates = uncaused = namesakes = 0
    changes: Counter = Counter()
    stated: Counter = Counter()
    by_record: Counter = Counter()
    personas = 0
    for pid, seed in zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True):
        gateway = Gateway(ProviderConfig())
        persona = profile.enrich_persona(cfg, pid, seed, gateway)
        world = loop.simulate(cfg, persona, gateway)
        found = consistency.figures(world, persona.name, attributes)
        personas += 1
        facts += found["facts"]
        records += found["records"]
        events += found["event_facts"]
        updates += sum(found["changes"].values())
        restated += found["restated"]
        violations += found["precondition_violations"]
        uncaused += found["uncaused_preference_changes"]
        namesakes += found["namesakes_from_life"]
        rate += sum(p.check == "change_rate" for p in consistency.rate_problems(world, attributes))
        changes.update(found["changes"])
        stated.update(f.attribute for f in world.facts if f.subject == persona.name)
        by_record.update(found["records_by_attribute"])
    years = personas * cfg.days / 365
    return {
        "preset": preset, "personas": personas, "days": cfg.days, "facts": facts,
        "pseudo_attribute_share": round(records / facts, 3) if facts else None,
        "event_fact_share": round(events / facts, 3) if facts else None,
        "persona_state_changes_per_persona_year": round(updates / years, 1),
        "restated_fact_share": round(restated / facts, 3) if facts else None,
        "changes_per_persona_year": {a: round(changes[a] / years, 2) for a in WATCHED},
        "facts_per_persona_year": {a: round(stated[a] / years, 2) for a in WATCHED},
        "top_records": dict(by_record.most_common(8)),
        "precondition_violations": violations, "change_rate_violations": rate,
        "uncaused_preference_changes": uncaused, "namesake_groups_from_life": namesakes,
        "command": f"python -m bench.realism {preset}",
    }


def question_counts(release: str) -> dict:
    """Questions by category.characteristic, and per persona, of a built release."""
    import duckdb

    con = duckdb.connect()
    rows = con.execute(
        f"SELECT category || '.' || c, count(*) FROM (SELECT category, unnest(characteristics) c "
        f"FROM '{release}/questions.parquet') GROUP BY 1 ORDER BY 2, 1").fetchall()
    per = con.execute(f"SELECT min(n), avg(n) FROM (SELECT count(*) n FROM '{release}/questions.parquet' "
                      "GROUP BY persona_id)").fetchone()
    return {"by_characteristic": dict(rows), "per_persona_min": per[0], "per_persona_mean": round(per[1], 1)}


def run() -> dict:
    """`make bench`'s realism section: the rhelm preset."""
    return realism(PRESET)


def markdown(result: dict) -> list[str]:
    """The results.md section for the realism figures."""
    changes = ", ".join(f"{a} {n}" for a, n in result["changes_per_persona_year"].items())
    return ["", "## World realism (per persona-year)", "",
            f"Preset `{result['preset']}`: {result['personas']} personas x {result['days']} days, "
            f"{result['facts']} facts; `{result['command']}`.", "",
            "| figure | value |", "|---|---:|",
            f"| pseudo-attribute share of facts (target 0) | {result['pseudo_attribute_share']} |",
            f"| event facts (what happened at one event, never superseded) | {result.get('event_fact_share')} |",
            f"| facts restating the value they supersede | {result['restated_fact_share']} |",
            "| changes of the persona's state per persona-year (knowledge updates) | "
            f"{result.get('persona_state_changes_per_persona_year')} |",
            f"| precondition violations (target 0) | {result['precondition_violations']} |",
            f"| changes faster than the ontology's rate (target 0) | {result['change_rate_violations']} |",
            "| preference changes without a reason (target 0) | "
            f"{result.get('uncaused_preference_changes', 'not measured')} |",
            "| namesake groups a life brought (people met later sharing a first name with someone known) | "
            f"{result.get('namesake_groups_from_life', 'not measured')} |",
            f"| value changes per persona-year | {changes} |",
            "| facts per persona-year (the baseline's included) | "
            + ", ".join(f"{a} {n}" for a, n in result.get("facts_per_persona_year", {}).items()) + " |"]


def main(argv: list[str]) -> None:
    out = realism(argv[0] if argv and not argv[0].startswith("--") else PRESET)
    if "--questions" in argv:
        out["questions"] = question_counts(argv[argv.index("--questions") + 1])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
