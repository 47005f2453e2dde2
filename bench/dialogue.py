"""Dialogue scale per persona-year on the rhelm preset, offline: turns, tokens, variety and stage time.

RHELM's scale is at least 1,000 turns and 500,000 to 1,000,000 tokens of dialogue and documents per
persona-year. Run alone with `python -m bench.dialogue`; `make bench` includes it in bench/results.md.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter

from schemas.config import ProviderConfig, load_preset
from tasks.dialogue import stage as dialogue
from tasks.llm.gateway import Gateway
from tasks.sources import stage as sources
from tasks.sources.chunking import count_tokens
from tasks.world import loop, profile

PRESET = "rhelm"


def four_gram_ratio(texts: list[str]) -> float:
    """Distinct word 4-grams over all word 4-grams (lower-cased), as in the release manifest."""
    grams = [tuple(w[i:i + 4]) for t in texts for w in [t.lower().split()] for i in range(len(w) - 3)]
    return len(set(grams)) / max(1, len(grams))


def measure(preset: str = PRESET) -> dict:
    """Per persona: user and all turns, dialogue and document tokens, 4-gram ratio, dialogue stage seconds."""
    cfg = load_preset(preset)
    rows = []
    for pid, seed in zip(profile.persona_ids(cfg), profile.seed_texts(cfg), strict=True):
        gateway = Gateway(ProviderConfig())
        persona = profile.enrich_persona(cfg, pid, seed, gateway)
        world = loop.simulate(cfg, persona, gateway)
        docs = sources.write_sources(cfg, persona, world, gateway).documents
        started = time.perf_counter()
        talk = dialogue.write_dialogue(cfg, persona, world, docs, gateway)
        seconds = time.perf_counter() - started
        users = [t.text for t in talk.turns if t.role == "user"]
        kinds = Counter(t.kind for t in talk.turns if t.role == "user")
        dialogue_tokens = sum(count_tokens(t.text) for t in talk.turns)
        document_tokens = sum(count_tokens(d.body) for d in docs)
        rows.append({"persona_id": pid, "user_turns": len(users), "turns": len(talk.turns),
                     "filler_user_turn_share": round(kinds["filler"] / max(1, len(users)), 3),
                     "dialogue_tokens": dialogue_tokens, "document_tokens": document_tokens,
                     "tokens": dialogue_tokens + document_tokens, "user_4gram_ratio": round(four_gram_ratio(users), 3),
                     "repairs": len(talk.findings), "seconds": round(seconds, 2)})
    return {"preset": preset, "rows": rows, "command": "python -m bench.dialogue"}


def markdown(result: dict) -> list[str]:
    """The results.md section for the dialogue benchmark."""
    rows = result["rows"]
    keys = [k for k in rows[0] if k != "persona_id"]
    lines = ["", "## Dialogue scale (offline, per persona-year)", "",
             f"Preset `{result['preset']}`, {len(rows)} personas; `{result['command']}` (the dialogue stage alone "
             "is timed; tokens are cl100k_base).", "",
             "| per persona-year | min | mean | max |", "|---|---:|---:|---:|"]
    for k in keys:
        values = [r[k] for r in rows]
        lines.append(f"| {k} | {min(values)} | {round(statistics.mean(values), 3)} | {max(values)} |")
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(measure())))
