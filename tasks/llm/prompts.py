"""Prompt templates: `prompts/<name>.jinja`, rendered with StrictUndefined.

A prompt is ordered for the providers' prompt caches: what stays the same across a persona's or a session's calls
comes first (the conversation so far, one turn a content block), what changes with the call last (the date, the
topic, the facts to tell, the instructions). Two marks, exposed to every template as globals, say where:

- `{{ cut }}` ends a content block (Anthropic is sent the prompt as text blocks, and a cache entry can only start
  being read at a block boundary);
- `{{ cache }}` ends the stable prefix: Anthropic's `cache_control` mark goes on the block it closes. OpenAI caches
  the longest repeated prefix by itself, so its request is the joined text.

`render` gives the text without marks (what the model reads, the call key and the token counts); `render_blocks`
the blocks and how many of them are the stable prefix. Shared parts live in `prompts/_*.jinja` (included, never a
prompt of their own); a prompt's hash covers the parts it includes.
"""

from __future__ import annotations

import functools
import hashlib
import re
from importlib import resources

import jinja2

CUT = "\x1e"
"""Ends a content block (ASCII record separator: never in generated text, removed before anything is sent)."""
CACHE = "\x1d"
"""Ends the stable prefix (ASCII group separator; a block ends with it)."""
INCLUDE = re.compile(r"""{%-?\s*include\s+["']([^"']+)["']""")


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("prompts", ""),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        auto_reload=False,  # a build is one snapshot of the prompts (prompt_hash is cached too); checking each
        # template's file on every render was a tenth of a Dask worker's time on rhelm
    )
    env.globals.update(cut=CUT, cache=CACHE + CUT)
    return env


def prompt_names() -> list[str]:
    files = resources.files("prompts").iterdir()
    return sorted(p.name.removesuffix(".jinja") for p in files
                  if p.name.endswith(".jinja") and not p.name.startswith("_"))


@functools.cache
def prompt_source(name: str) -> str:
    return resources.files("prompts").joinpath(f"{name}.jinja").read_text()


@functools.cache
def prompt_hash(name: str) -> str:
    """Hash of the template source and of the parts it includes: changes whenever the prompt's wording changes."""
    digest = hashlib.sha256()
    seen: set[str] = set()
    todo = [f"{name}.jinja"]
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        source = resources.files("prompts").joinpath(file).read_text()
        digest.update(source.encode())
        todo += sorted(INCLUDE.findall(source))
    return digest.hexdigest()[:16]


def render_marked(name: str, context: dict) -> str:
    """The prompt text with its block and cache marks."""
    return environment().get_template(f"{name}.jinja").render(**context)


def render(name: str, context: dict) -> str:
    """The prompt text for `name`; a missing context variable raises instead of rendering empty."""
    return render_marked(name, context).replace(CUT, "").replace(CACHE, "")


def render_blocks(name: str, context: dict) -> tuple[list[str], int]:
    """The prompt as content blocks (joined, they are `render`'s text) and how many leading blocks form the
    stable prefix a cache mark closes (0: the prompt has no mark). A block of only whitespace joins the one
    before it (a provider refuses an empty text block)."""
    blocks: list[str] = []
    cached = 0
    pending = ""  # whitespace before the first block: it opens that block
    for piece in render_marked(name, context).split(CUT):
        mark = CACHE in piece
        piece = piece.replace(CACHE, "")
        if not piece.strip():
            if blocks:
                blocks[-1] += piece
            else:
                pending += piece
        else:
            blocks.append(pending + piece)
            pending = ""
        if mark and blocks:
            cached = len(blocks)
    if pending:
        blocks.append(pending)
    return blocks, cached
