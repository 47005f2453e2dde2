"""A Hugging Face `datasets`-loadable folder: one Parquet file per table (split `train`) and a dataset card
whose YAML front matter names one config per table, so `load_dataset("parquet", ...)` or
`load_dataset(folder, name=table)` reads it with no network."""

from __future__ import annotations

import pyarrow as pa

from schemas.release import LICENSE
from schemas.tables import TABLES


def export_tables(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """Relative path -> table: `data/<table>/train.parquet` for each table."""
    return {f"data/{name}/train.parquet": table for name, table in tables.items()}


def dataset_card(release: str, names: list[str], rows: dict[str, int] | None = None) -> str:
    """README.md with YAML front matter: one config per table that has rows (`datasets` cannot load a Parquet file
    of none: "BatchSize must be greater than 0"), `questions` the default; the licence is the release's (MIT)."""
    rows = rows or {}
    empty = [n for n in names if n in rows and rows[n] == 0]
    configs = []
    for name in names:
        if name in empty:
            continue
        default = "  default: true\n" if name == "questions" else ""
        configs.append(f"- config_name: {name}\n{default}  data_files:\n  - split: train\n"
                       f"    path: data/{name}/train.parquet")
    described = "\n".join(f"- `{n}`: one row per {TABLES[n].model.__name__.lower()} (key: {', '.join(TABLES[n].key)})"
                          + (" (empty in this release: no config)" if n in empty else "")
                          for n in names if n in TABLES)
    return (
        "---\nconfigs:\n" + "\n".join(configs) + f"\nlicense: {LICENSE}\ntags:\n- long-term-memory\n- lifeloom\n---\n\n"
        f"# lifeloom release {release}\n\nExported by `lifeloom export --format hf`. Each table with rows is a config "
        "with a single `train` split:\n\n" + described + "\n\n```python\nfrom datasets import load_dataset\n"
        'questions = load_dataset("path/to/this/folder", name="questions", split="train")\n```\n'
    )
