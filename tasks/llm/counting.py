"""Counting what a build would send: the gateway `lifeloom plan` runs the stages through (flows/plan.py).

`CountingProvider` stands in for the configured provider under its own name and model (so call keys, and with
them the call cache's hits, are the real build's): the offline narrator writes the answer, so every stage runs as
it would, and the tokens are counted as the real provider would bill them. For the offline provider itself the
response is the narrator's own, so a plan of an offline build equals its ledger exactly. For a real provider:

- input: the request the provider is sent (the system message, the rendered prompt and the output schema, as the
  providers put them; tasks/llm/providers/openai.py and anthropic.py) counted with the model family's tokenizer
  (o200k_base for OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series, cl100k_base otherwise; Anthropic publishes no
  tokenizer, and cl100k_base is used as its stand-in, which counts English within a few percent of it), plus
  MESSAGE_OVERHEAD tokens a message;
- output: the offline narrator's answer counted the same way (a model writes about as much JSON for the same
  schema; the plan names this as an assumption), each call answered at the first attempt (no repairs).

`PlanGateway` records each call's ledger row as the real gateway does (a call answered from the cache is a hit
and costs nothing), never sleeps on a rate limit, writes nothing to the on-disk call cache (`PeekCache` reads it),
and records the rounds of calls as the stages make them: one `generate` is a round of one, one `generate_many` a
round of its calls, in order. A stage's rounds run one after the other, so they are what the plan's minimum wall
time is made of (a dialogue turn waits for the one before it).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from schemas.config import ProviderConfig
from schemas.llm import LLMCall
from tasks.llm.cache import CallCache
from tasks.llm.gateway import CallSpec, Gateway
from tasks.llm.types import LLMRequest, LLMResponse

MESSAGE_OVERHEAD = 4
"""Tokens a chat message costs beyond its text (role and separators)."""
ANTHROPIC_TOOL_TOKENS = 313
"""The system prompt Anthropic adds for a forced tool (`tool_choice` of type `tool`), per its tool-use pricing
documentation; the anthropic provider forces one tool for structured output (tasks/llm/providers/anthropic.py)."""

O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")


@functools.cache
def _encoding(name: str):
    import bpe_openai

    return bpe_openai.get_encoding(name)


def tokenizer_name(provider: str, model: str) -> str:
    """The tokenizer that counts `model`'s tokens (or stands in for it)."""
    return "o200k_base" if provider == "openai" and model.startswith(O200K_PREFIXES) else "cl100k_base"


def count(text: str, tokenizer: str) -> int:
    return len(_encoding(tokenizer).encode(text))


class CountingProvider:
    """The configured provider's name and model, the offline narrator's answers, the real provider's token counts."""

    def __init__(self, config: ProviderConfig) -> None:
        from tasks.llm.providers.offline import OfflineProvider

        self.name, self.model = config.name, config.model
        self.offline = OfflineProvider() if config.name != "offline" else OfflineProvider(config.model)
        self.tokenizer = tokenizer_name(config.name, config.model)

    def complete(self, request: LLMRequest) -> LLMResponse:
        if self.name == "offline":
            return self.offline.complete(request)
        response = self.offline.complete(self.twin(request))
        return LLMResponse(text=response.text, input_tokens=self.input_tokens(request),
                           output_tokens=count(response.text, self.tokenizer) + MESSAGE_OVERHEAD)

    @staticmethod
    def twin(request: LLMRequest) -> LLMRequest:
        """The request as an offline build makes it (the offline narrator's key, at the default settings), so a plan
        on a real provider walks the corpus an offline build writes (as tests/llm_mock's oracle answers)."""
        from tasks.llm.gateway import call_key
        from tasks.llm.providers.common import SYSTEM

        offline = ProviderConfig()
        return request.model_copy(update={"call_key": call_key(
            offline.name, offline.model, request.prompt, request.prompt_name, request.output_schema,
            offline.temperature, offline.max_output_tokens, request.sample, SYSTEM)})

    def input_tokens(self, request: LLMRequest) -> int:
        """The request as the provider is sent it: system message, prompt and output schema."""
        from tasks.llm.providers.common import SYSTEM

        schema = json.dumps(request.output_schema, separators=(",", ":"))
        tool = ANTHROPIC_TOOL_TOKENS if self.name == "anthropic" else 0
        return tool + sum(count(part, self.tokenizer) + MESSAGE_OVERHEAD for part in (SYSTEM, request.prompt, schema))


class PeekCache(CallCache):
    """The data root's call cache read, never written: what a plan finds there is a hit, and what the plan itself
    answers is remembered in memory only (a request made twice in one build is paid once)."""

    def __init__(self, root: Path | None) -> None:
        super().__init__(None)
        self.file = root / CallCache.FILE if root is not None else None

    def get(self, key: str) -> dict | None:
        found = super().get(key)
        if found is not None or self.file is None or not self.file.is_file():
            return found
        con = sqlite3.connect(f"file:{self.file}?mode=ro", uri=True, timeout=30)
        try:
            row = con.execute("select entry, retry from calls where key = ?", [key]).fetchone()
        finally:
            con.close()
        return None if row is None or row[1] else json.loads(row[0])


class PlanGateway(Gateway):
    """The gateway of a plan: counting provider, no limiter, no hard checks, rounds recorded (module doc)."""

    def __init__(self, config: ProviderConfig, cache: CallCache) -> None:
        super().__init__(config, provider=CountingProvider(config), cache=cache, hard_checks=False)
        self.limiter = None
        self.rounds: list[list[LLMCall]] = []

    def generate(self, prompt_name: str, context: dict[str, Any], output_model: type, *, stage: str,
                 persona_id: str | None, sample: int = 0) -> Any:
        result, row = self._generate(CallSpec(prompt_name, context, output_model, stage, persona_id, sample))
        self._ledger.append(row)
        self.rounds.append([row])
        return result

    def generate_many_traced(self, items: list[CallSpec | tuple]) -> list[tuple[BaseModel, LLMCall]]:
        specs = [item if isinstance(item, CallSpec) else CallSpec(*item) for item in items]
        done = [self._generate(spec) for spec in specs]
        rows = [row for _, row in done]
        self._ledger.extend(rows)
        if rows:
            self.rounds.append(rows)
        return done
