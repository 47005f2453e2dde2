"""The length curve: the same systems scored at each length tier of a release (`lifeloom eval --tiers`).

Each tier is evaluated as a release of its own (tasks/tiers/view.py: the tier's history, haystack included, and its
questions with the answers a cut re-derived); this module turns the per-tier results into the curve's rows, its
markdown and its plot: accuracy and retrieval (hit@k, recall@k, MRR) by tier, one line per system and setting at
the report's k. Because the tiers nest, a larger tier holds every question of a smaller one: the curve shows what
length does to the same items, plus the items only the longer histories can hold.
"""

from __future__ import annotations

from pathlib import Path

from schemas.eval import EvalResult
from schemas.tiers import tier_budget
from tasks.evaluate.harness import summary_rows
from tasks.evaluate.report import report_k

COLUMNS = ("tier", "budget", "system", "setting", "k", "n", "accuracy", "hit_at_5", "recall_at_20", "mrr")


def curve_rows(by_tier: dict[str, list[EvalResult]]) -> list[dict]:
    """One row per (tier, system, setting) at the report's k, tiers smallest first."""
    out = []
    for tier in sorted(by_tier, key=tier_budget):
        rows = by_tier[tier]
        if not rows:
            continue
        k = report_k(rows)
        for row in summary_rows([r for r in rows if r.k == k]):
            out.append({"tier": tier, "budget": tier_budget(tier)} | {c: row.get(c) for c in COLUMNS[2:]})
    return out


def curve_markdown(rows: list[dict], title: str, notes: list[str] = ()) -> str:
    """The curve as a markdown table (systems as rows, tiers as columns of accuracy) and the full rows."""
    tiers = sorted({r["tier"] for r in rows}, key=tier_budget)
    systems = sorted({(r["system"], r["setting"]) for r in rows})
    acc = {(r["system"], r["setting"], r["tier"]): r["accuracy"] for r in rows}
    lines = [f"# {title}", "", *[f"- {n}" for n in notes], "", "## Accuracy by tier", "",
             "| system | setting | " + " | ".join(tiers) + " |", "|---|---|" + "---:|" * len(tiers)]
    for system, setting in systems:
        cells = [acc.get((system, setting, t)) for t in tiers]
        lines.append(f"| {system} | {setting} | " + " | ".join("–" if c is None else f"{c:.3f}" for c in cells) + " |")
    lines += ["", "## Every figure", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join("–" if r[c] is None else f"{r[c]:.3f}" if isinstance(r[c], float)
                                       else str(r[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n\n![length curve](length_curve.png)\n"


def plot_curve(rows: list[dict], path: Path) -> Path:
    """Accuracy (solid) and hit@5 (dashed) against the tier's budget (log scale), one colour per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for j, (system, setting) in enumerate(sorted({(r["system"], r["setting"]) for r in rows})):
        mine = sorted((r for r in rows if r["system"] == system and r["setting"] == setting),
                      key=lambda r: r["budget"])
        xs = [r["budget"] for r in mine]
        colour = f"C{j % 10}"
        ax.plot(xs, [r["accuracy"] if r["accuracy"] is not None else float("nan") for r in mine], "o-",
                color=colour, label=f"{system} ({setting})")
        if any(r["hit_at_5"] is not None for r in mine):
            ax.plot(xs, [r["hit_at_5"] if r["hit_at_5"] is not None else float("nan") for r in mine], "--",
                    color=colour, alpha=0.6)
    ax.set_xscale("log")
    ax.minorticks_off()
    ticks = sorted({r["budget"] for r in rows})
    ax.set_xticks(ticks, sorted({r["tier"] for r in rows}, key=tier_budget))
    ax.set(title="accuracy (solid) and hit@5 (dashed) by length tier", xlabel="tier (tokens of history)",
           ylabel="share", ylim=(0, 1))
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
