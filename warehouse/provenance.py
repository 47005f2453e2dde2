"""What produced a build: code version and package versions."""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "lifeloom", "prefect", "great-expectations", "duckdb", "pyarrow", "pydantic", "openai", "anthropic", "jinja2",
)


@functools.cache
def code_version() -> str:
    """`git describe` of the source tree when it is a checkout (with -dirty), else the package version."""
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],
            cwd=root, capture_output=True, text=True, timeout=10, check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return package_versions().get("lifeloom", "unknown")


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions
