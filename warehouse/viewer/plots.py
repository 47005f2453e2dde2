"""The viewer's plots (matplotlib, Agg backend, PNG): where a person would rather look than read."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

CHECKPOINTS = ("zero_memory", "in_timeline", "post_distraction", "post_shock")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def questions_by_category(questions: list[dict], path: Path) -> Path:
    """Questions per category, stacked by checkpoint."""
    plt = _plt()
    counts = Counter((q["category"], q.get("checkpoint") or "") for q in questions)
    categories = sorted({c for c, _ in counts})
    fig, ax = plt.subplots(figsize=(8, 3.6))
    bottom = [0] * len(categories)
    for checkpoint in [c for c in CHECKPOINTS if any(k == c for _, k in counts)]:
        values = [counts[(c, checkpoint)] for c in categories]
        ax.bar(categories, values, bottom=bottom, label=checkpoint)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set(title="questions by category and checkpoint", ylabel="questions")
    ax.legend(fontsize=7)
    plt.setp(ax.get_xticklabels(), rotation=15, ha="right")
    return _save(fig, path)


def turns_per_day(days: dict[str, int], path: Path) -> Path:
    """Messages per simulated day, all personas together."""
    import datetime as dt

    plt = _plt()
    xs = sorted(days)
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot([dt.date.fromisoformat(x) for x in xs], [days[x] for x in xs], linewidth=0.8)
    ax.set(title="messages per day (every persona)", ylabel="messages")
    fig.autofmt_xdate()
    return _save(fig, path)


def tokens_per_persona(tokens: dict[str, dict[str, int]], path: Path) -> Path:
    """Tokens of dialogue and documents per persona (the manifest's cl100k_base counts)."""
    plt = _plt()
    people = sorted(tokens)
    fig, ax = plt.subplots(figsize=(max(5, 0.6 * len(people) + 2), 3.2))
    dialogue = [tokens[p].get("dialogue", 0) for p in people]
    docs = [tokens[p].get("documents", 0) for p in people]
    ax.bar(people, dialogue, label="dialogue")
    ax.bar(people, docs, bottom=dialogue, label="documents")
    ax.set(title="tokens per persona", ylabel="tokens (cl100k_base)")
    ax.legend(fontsize=7)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    return _save(fig, path)


def profile_changes(ops: list[dict], path: Path) -> Path:
    """A persona's profile changes per month, stacked by the profile dimension they touched."""
    plt = _plt()
    counts: dict[str, Counter] = defaultdict(Counter)
    for op in ops:
        month = op["date"].strftime("%Y-%m") if hasattr(op["date"], "strftime") else str(op["date"])[:7]
        counts[op["path"].split(".")[0].split("[")[0]][month] += 1
    months = sorted({m for c in counts.values() for m in c})
    fig, ax = plt.subplots(figsize=(8, 3.2))
    bottom = [0] * len(months)
    for dimension in sorted(counts):
        values = [counts[dimension][m] for m in months]
        ax.bar(months, values, bottom=bottom, label=dimension)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set(title="profile changes per month, by dimension", ylabel="changes")
    ax.legend(fontsize=7, ncol=2)
    plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    plt = _plt()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
