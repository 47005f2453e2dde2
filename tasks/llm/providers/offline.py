"""The offline provider: a deterministic template narrator, keyed by prompt name.

For each request it looks up the narrator registered under the prompt's name, seeds a private RNG
from the request's call key (so the same request always gets the same text), and returns the
narrator's output as JSON. It is honest about what it is: ledger rows say provider `offline`.

A narrator is `fn(context: dict, rng: random.Random) -> dict` matching the prompt's output model.
Narrators live in tasks/llm/providers/narrators/ and register themselves with `@narrator("name")`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from tasks.llm.types import LLMRequest, LLMResponse, estimate_tokens

Narrator = Callable[[dict[str, Any], random.Random], dict[str, Any]]
NARRATORS: dict[str, Narrator] = {}


def narrator(prompt_name: str) -> Callable[[Narrator], Narrator]:
    """Register `fn` as the offline narrator for `prompt_name`."""

    def register(fn: Narrator) -> Narrator:
        NARRATORS[prompt_name] = fn
        return fn

    return register


class OfflineProvider:
    name = "offline"

    def __init__(self, model: str = "offline-narrator-v1") -> None:
        self.model = model
        from tasks.llm.providers import narrators  # noqa: F401  (registers every narrator)

    def complete(self, request: LLMRequest) -> LLMResponse:
        fn = NARRATORS.get(request.prompt_name)
        if fn is None:
            raise KeyError(f"the offline narrator has no template for prompt {request.prompt_name!r}")
        rng = random.Random(int(request.call_key[:16], 16))
        text = json.dumps(fn(request.context, rng), ensure_ascii=False)
        return LLMResponse(text=text, input_tokens=estimate_tokens(request.prompt), output_tokens=estimate_tokens(text))
