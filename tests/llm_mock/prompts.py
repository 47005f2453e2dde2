"""Stand-in prompt templates for the gateway's and the providers' tests."""

from __future__ import annotations

from tasks.llm import prompts
from tasks.llm.providers.offline import NARRATORS


def stand_in_prompts(monkeypatch, render, narrators=None, hash_="h" * 16):
    """Replace the prompt templates with `render(name, context) -> marked text` (tasks/llm/prompts.py marks) and
    register `narrators` (prompt name -> offline narrator), so a test's requests need no template file."""
    monkeypatch.setattr(prompts, "render_marked", render)
    monkeypatch.setattr(prompts, "prompt_hash", lambda name: hash_)
    for name, fn in (narrators or {}).items():
        monkeypatch.setitem(NARRATORS, name, fn)
