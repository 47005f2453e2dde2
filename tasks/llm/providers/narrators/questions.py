"""Offline narrator for the `rephrase_question` prompt: the question, unchanged.

The questions stage never calls a model offline; this narrator exists so a live rephrasing that fails
falls back to the template text (which the stage then keeps as it is)."""

from __future__ import annotations

import random
from typing import Any

from tasks.llm.providers.offline import narrator


@narrator("rephrase_question")
def rephrase_question(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """{"question": the question as given}."""
    return {"question": str(context["question"])}
