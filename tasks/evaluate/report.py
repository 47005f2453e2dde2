"""The evaluation report: markdown tables and PNG plots (matplotlib, Agg backend, no display needed).

Plots: recall@k curves per system (one panel per setting), accuracy by category and by checkpoint (one bar per
system, at the report's k: 20 when evaluated, else the largest k).
"""

from __future__ import annotations

from pathlib import Path

from schemas.eval import EvalResult
from tasks.evaluate.harness import METRIC_KS, summary_rows

PLOTS = ("recall_at_k.png", "accuracy_by_category.png", "accuracy_by_checkpoint.png")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINES = ("-", "--", "-.", ":")
HEURISTIC_NOTE = ("reader: offline-extractive, a deterministic heuristic, not a language model: accuracy shows "
                  "retrieval at work, not what a model would answer")


def reader_note(rows: list[EvalResult]) -> str:
    """What read the retrieved items, for plot captions: the offline reader is named a heuristic."""
    from schemas.eval import OFFLINE_READER

    readers = sorted({r.reader for r in rows})
    return HEURISTIC_NOTE if readers == [OFFLINE_READER] else f"reader: {', '.join(readers)}"


def report_k(rows: list[EvalResult]) -> int:
    ks = sorted({r.k for r in rows})
    return 20 if 20 in ks else ks[-1]


def _fmt(value) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(rows: list[dict], columns: list[str]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def plot_recall(rows: list[EvalResult], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = list(METRIC_KS["recall_at"])
    settings = sorted({r.setting for r in rows})
    fig, axes = plt.subplots(1, len(settings), figsize=(5 * len(settings), 4), squeeze=False)
    summary = summary_rows([r for r in rows if r.k == min(x.k for x in rows)], ("system", "setting"))
    systems = sorted({s["system"] for s in summary})
    for ax, setting in zip(axes[0], settings, strict=True):
        for s in sorted((s for s in summary if s["setting"] == setting), key=lambda s: s["system"]):
            ys = [s[f"recall_at_{k}"] for k in ks]
            if any(y is not None for y in ys):
                j = systems.index(s["system"])
                # each system its own marker, line and size, larger drawn first: systems on the same values (no_memory
                # and broken_oracle at 0) stay visible, and the legend names each with its recall@20
                ax.plot(ks, [y if y is not None else float("nan") for y in ys], marker=MARKERS[j % len(MARKERS)],
                        linestyle=LINES[j % len(LINES)], markersize=10 - 6 * j / max(1, len(systems) - 1),
                        zorder=2 + j, label=f"{s['system']} (@20: {_fmt(s.get('recall_at_20'))})")
        ax.set(title=f"recall@k ({setting})", xlabel="k", ylabel="recall", ylim=(-0.04, 1.04), xscale="log")
        ax.minorticks_off()
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.legend(fontsize=7, loc="center right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_accuracy(rows: list[EvalResult], by: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = report_k(rows)
    chosen = [r for r in rows if r.k == k]
    summary = summary_rows(chosen, ("system", by))
    groups = sorted({s[by] for s in summary})
    systems = sorted({s["system"] for s in summary})
    acc = {(s["system"], s[by]): s["accuracy"] for s in summary}
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(groups) + 2), 4))
    width = 0.8 / max(1, len(systems))
    for j, system in enumerate(systems):
        xs = [i + j * width for i in range(len(groups))]
        ax.bar(xs, [acc.get((system, g)) or 0.0 for g in groups], width=width, label=system)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups, rotation=20, ha="right")
    ax.set(title=f"accuracy by {by} (k={k}, all settings)", ylabel="accuracy", ylim=(0, 1))
    ax.legend(fontsize=7)
    fig.text(0.01, 0.005, reader_note(rows), fontsize=7, style="italic")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_report(rows: list[EvalResult], folder: Path, title: str, notes: list[str] = ()) -> Path:
    """report.md plus plots/*.png in `folder`; returns the markdown file."""
    plots = folder / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    plot_recall(rows, plots / PLOTS[0])
    plot_accuracy(rows, "category", plots / PLOTS[1])
    plot_accuracy(rows, "checkpoint", plots / PLOTS[2])
    path = folder / "report.md"
    path.write_text(markdown(rows, title, notes, plots_dir="plots"))
    return path


def markdown(rows: list[EvalResult], title: str, notes: list[str] = (), plots_dir: str | None = None) -> str:
    k = report_k(rows)
    metric_cols = ["hit_at_1", "hit_at_5", "hit_at_20", "recall_at_5", "recall_at_20", "recall_at_50", "mrr"]
    overall = sorted(summary_rows(rows), key=lambda r: (r["setting"], r["system"], r["k"]))
    readers = sorted({r.reader for r in rows})
    judges = sorted({r.judge for r in rows if r.judge})
    parts = [f"# {title}", "",
             f"{len({r.question_id for r in rows})} questions; reader: {', '.join(readers)}"
             + (f"; long answers judged by: {', '.join(judges)}" if judges else "") + ".", ""]
    if reader_note(rows) == HEURISTIC_NOTE:
        parts += [f"The {HEURISTIC_NOTE}.", ""]
    parts += [f"- {n}" for n in notes]
    parts += ["", "## Retrieval and accuracy by system, setting and k", "",
              "Hit and recall are over questions with evidence in their history (– when none).", "",
              _table(overall, ["system", "setting", "k", "n", *metric_cols, "accuracy"]), ""]
    for by in ("category", "checkpoint", "answer_type"):
        table = sorted(summary_rows([r for r in rows if r.k == k], ("system", by)), key=lambda r: (r[by], r["system"]))
        parts += [f"## Accuracy by {by.replace('_', ' ')} (k={k}, all settings)", "",
                  _table(table, [by, "system", "n", "accuracy", "recall_at_20"]), ""]
    agreement = [r.judge_agreement for r in rows if r.judge_agreement is not None]
    if agreement:
        parts += [f"Judge majority: mean agreement {sum(agreement) / len(agreement):.3f} over {len(agreement)} "
                  "judged answers.", ""]
    if plots_dir:
        parts += ["## Plots", ""] + [f"![{p}]({plots_dir}/{p})" for p in PLOTS] + [""]
    return "\n".join(parts)


def baseline_notes(rows: list[EvalResult], questions) -> list[str]:
    """What the adversarial baselines say: each category where one solves items far above chance (at the
    report's k, first setting; question_only variants over multiple-choice items only)."""
    from tasks.evaluate.baselines import CEILING, MEMORY_FREE, QUESTION_ONLY, chance
    from tasks.metrics.difficulty import FAR_ABOVE_CHANCE, MIN_ITEMS

    by_id = {q.question_id: q for q in questions}
    systems = sorted({r.system for r in rows if r.system in MEMORY_FREE + ("bm25_copy", "pattern_memory")})
    if not rows or not systems:
        return []
    k, setting = report_k(rows), sorted({r.setting for r in rows})[0]
    notes = []
    for system in systems:
        chosen = [r for r in rows if r.system == system and r.k == k and r.setting == setting
                  and r.correct is not None and (system not in QUESTION_ONLY or r.answer_type == "mcq")]
        for category in sorted({r.category for r in chosen}):
            group = [r for r in chosen if r.category == category]
            acc = sum(r.correct for r in group) / len(group)
            base = sum(chance(by_id[r.question_id]) for r in group) / len(group)
            if system not in CEILING and len(group) >= MIN_ITEMS and acc > base + FAR_ABOVE_CHANCE:
                notes.append(f"{system} solves {acc:.2f} of {category} items against chance {base:.2f}: "
                             "these items do not need the memory the benchmark means to test")
    return notes
