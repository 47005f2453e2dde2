"""A reviewer's sample of a release (issue 55): N questions drawn at random with a stated seed, each with its gold,
reference answer, the text of every evidence item it cites, the world facts its derivation rests on (with their
validity) and the people it names with their relation to the persona on the question's day, as Markdown to read
against the world tables and sign or refuse item by item.

`python -m bench.item_sample RELEASE_FOLDER [--n 40] [--seed 55] > sample.md`
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from tasks.signoff.view import View
from warehouse.persona_rows import persona_rows


def sample(folder: Path, n: int = 40, seed: int = 55) -> str:
    """The Markdown of `n` items of the release `folder`, drawn with `random.Random(seed)` over question ids."""
    rows = {r.persona.persona_id: r for r in persona_rows(folder)}
    ids = sorted(q.question_id for r in rows.values() for q in r.questions.questions)
    chosen = sorted(random.Random(seed).sample(ids, min(n, len(ids))))
    out = [f"# {n} items of {folder} (seed {seed})", ""]
    for qid in chosen:
        r = rows[qid.split("-")[0]]
        view = View(r.persona, r.world, r.corpus)
        q = next(q for q in r.questions.questions if q.question_id == qid)
        items = {t.turn_id: (t.timestamp, f"{t.role}: {t.text}") for t in r.corpus.turns}
        items |= {c.chunk_id: (c.created_at, c.text) for c in r.corpus.chunks}
        facts = {f.fact_id: f for f in r.world.facts}
        out += [f"## {qid} · {q.category}/{','.join(q.characteristics)} · {q.derivation.get('template')}",
                f"- persona: {r.persona.name}; asked {q.question_time.isoformat()}",
                f"- question: {q.question}", f"- gold: {q.answer}", f"- reference: {q.reference_answer}"]
        if q.options:
            out.append(f"- options: {q.options} (gold {q.gold_option})")
        for fid in q.derivation.get("fact_ids") or []:
            f = facts.get(fid)
            if f is not None:
                out.append(f"- fact {fid}: {f.subject} · {f.attribute} = {f.value} ({f.valid_from}..{f.valid_to})")
        people = sorted(view.referents(q))
        if people:
            out.append("- people: " + "; ".join(f"{p} ({'/'.join(sorted(view.roles(p, view.day(q))))})"
                                                for p in people))
        for e in [e for e in r.questions.evidence if e.question_id == qid][:6]:
            when, text = items.get(e.evidence_id, (None, "(missing)"))
            out.append(f"- evidence {e.evidence_id} ({when}, fact {e.fact_id}): {text[:600].replace(chr(10), ' / ')}")
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=55)
    args = parser.parse_args()
    print(sample(args.release, args.n, args.seed))


if __name__ == "__main__":
    main()
