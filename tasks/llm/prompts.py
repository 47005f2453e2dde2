"""Prompt templates: `prompts/<name>.jinja`, rendered with StrictUndefined."""

from __future__ import annotations

import functools
import hashlib
from importlib import resources

import jinja2


@functools.cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("prompts", ""),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def prompt_names() -> list[str]:
    files = resources.files("prompts").iterdir()
    return sorted(p.name.removesuffix(".jinja") for p in files if p.name.endswith(".jinja"))


@functools.cache
def prompt_source(name: str) -> str:
    return resources.files("prompts").joinpath(f"{name}.jinja").read_text()


def prompt_hash(name: str) -> str:
    """Hash of the template source: changes whenever the prompt's wording changes."""
    return hashlib.sha256(prompt_source(name).encode()).hexdigest()[:16]


def render(name: str, context: dict) -> str:
    """The prompt text for `name`; a missing context variable raises instead of rendering empty."""
    return environment().get_template(f"{name}.jinja").render(**context)
