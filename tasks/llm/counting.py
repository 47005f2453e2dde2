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


MIN_CACHEABLE_TOKENS = 1024
"""The shortest prefix either provider caches (OpenAI: 1,024 tokens, then in 128-token steps; Anthropic: 1,024 for
Sonnet and Opus 4.1 and earlier, more for the models in ANTHROPIC_MIN_CACHEABLE)."""
ANTHROPIC_MIN_CACHEABLE = {"claude-opus-4-5": 4096, "claude-haiku-4-5": 4096, "claude-3-5-haiku": 2048,
                           "claude-3-haiku": 2048}
OPENAI_CACHE_STEP = 128
ANTHROPIC_LOOKBACK = 20
"""Anthropic looks for a cache entry at the block boundaries up to about 20 blocks before a mark."""


def cacheable(provider: str, model: str, shared: int) -> int:
    """The tokens of a `shared` prefix a provider's prompt cache serves: none below its minimum; OpenAI in
    128-token steps above 1,024."""
    from tasks.llm.pricing import base_model

    least = ANTHROPIC_MIN_CACHEABLE.get(base_model(model), MIN_CACHEABLE_TOKENS) if provider == "anthropic" \
        else MIN_CACHEABLE_TOKENS
    if shared < least:
        return 0
    if provider == "openai":
        return least + (shared - least) // OPENAI_CACHE_STEP * OPENAI_CACHE_STEP
    return shared


class PrefixTracker:
    """Which part of each request repeats the start of an earlier one: what a prompt cache serves.

    A request is its static head (the output schema or tool and the system message, which both providers put before
    the conversation) and its prompt. Each provider's rule:

    - OpenAI caches automatically: every prefix of whole lines is remembered, and a request reads the longest one an
      earlier request sent (1,024 tokens or more, in 128-token steps; writing is free).
    - Anthropic caches only at a `cache_control` mark (tasks/llm/prompts.py): a marked request writes the prefix up
      to its mark (billed at 1.25 times the input price) and reads the longest prefix an earlier mark wrote that
      ends at one of its own block boundaries, at the mark or up to ANTHROPIC_LOOKBACK blocks before it. A request
      without a mark reads and writes nothing.

    The figure is what the prompts' order allows: a provider's cache also expires after minutes idle, and a plan
    assumes it does not."""

    def __init__(self, provider: str, model: str, tokenizer: str) -> None:
        self.provider, self.model, self.tokenizer = provider, model, tokenizer
        self.first: set[int] = set()
        self.prompts: list[str] = []
        self.inputs: list[int] = []
        self.reads: list[int] = []
        self.writes: list[int] = []

    def observe(self, prompt_name: str, head: str, head_tokens: int, prompt: str, input_tokens: int,
                blocks: list[str] | None = None, cached_blocks: int = 0) -> int:
        """Record one request; the tokens of it the cache serves."""
        if self.provider == "anthropic":
            read, written = self._marked(head, head_tokens, blocks or [prompt], cached_blocks, input_tokens)
        else:
            read, written = self._automatic(head, head_tokens, prompt, input_tokens), 0
        self.prompts.append(prompt_name)
        self.inputs.append(input_tokens)
        self.reads.append(read)
        self.writes.append(written)
        return read

    def _tokens(self, head_tokens: int, text: str) -> int:
        return head_tokens + (count(text, self.tokenizer) + MESSAGE_OVERHEAD if text else 0)

    def _automatic(self, head: str, head_tokens: int, prompt: str, input_tokens: int) -> int:
        lines = prompt.split("\n")
        chain = [hash(head)]
        for line in lines:
            chain.append(hash((chain[-1], line)))  # chain[k]: the head and the prompt's first k lines
        matched = -1
        for k, key in enumerate(chain):  # every request remembers all its prefixes: the first miss ends the match
            if key not in self.first:
                break
            matched = k
        self.first.update(chain[matched + 1:])
        if matched < 0:
            return 0
        return cacheable(self.provider, self.model, min(self._tokens(head_tokens, "\n".join(lines[:matched])),
                                                        input_tokens))

    def _marked(self, head: str, head_tokens: int, blocks: list[str], cached_blocks: int,
                input_tokens: int) -> tuple[int, int]:
        if not cached_blocks:
            return 0, 0
        chain = [hash(head)]
        for block in blocks[:cached_blocks]:
            chain.append(hash((chain[-1], block)))  # chain[k]: the head and the first k blocks
        read = 0
        for k in range(cached_blocks, max(0, cached_blocks - ANTHROPIC_LOOKBACK) - 1, -1):
            if chain[k] in self.first:
                read = cacheable(self.provider, self.model, self._tokens(head_tokens, "".join(blocks[:k])))
                break
        prefix = cacheable(self.provider, self.model, min(self._tokens(head_tokens, "".join(blocks[:cached_blocks])),
                                                          input_tokens))
        if not prefix:
            return read, 0
        self.first.add(chain[cached_blocks])
        return read, max(0, prefix - read)

    def by_prompt(self) -> dict[str, list[int]]:
        """Prompt name -> [input tokens, tokens the cache serves, tokens written to it (Anthropic)]."""
        out: dict[str, list[int]] = {}
        for i, name in enumerate(self.prompts):
            row = out.setdefault(name, [0, 0, 0])
            row[0] += self.inputs[i]
            row[1] += self.reads[i]
            row[2] += self.writes[i]
        return out


class CountingProvider:
    """The configured provider's name and model, the offline narrator's answers, the real provider's token counts."""

    def __init__(self, config: ProviderConfig) -> None:
        from tasks.llm.providers.offline import OfflineProvider

        self.name, self.model = config.name, config.model
        self.offline = OfflineProvider() if config.name != "offline" else OfflineProvider(config.model)
        self.tokenizer = tokenizer_name(config.name, config.model)
        self.prefixes = PrefixTracker(config.name, config.model, self.tokenizer)
        self._heads: dict[str, tuple[str, int]] = {}

    def complete(self, request: LLMRequest) -> LLMResponse:
        if self.name == "offline":
            return self.offline.complete(request)
        response = self.offline.complete(self.twin(request))
        head, head_tokens = self.head(request)
        prompt_tokens = count(request.prompt, self.tokenizer) + MESSAGE_OVERHEAD
        self.prefixes.observe(request.prompt_name, head, head_tokens, request.prompt, head_tokens + prompt_tokens,
                              request.blocks, request.cached_blocks)
        return LLMResponse(text=response.text, input_tokens=head_tokens + prompt_tokens,
                           output_tokens=count(response.text, self.tokenizer) + MESSAGE_OVERHEAD)

    def head(self, request: LLMRequest) -> tuple[str, int]:
        """What comes before the prompt (the output schema or forced tool, the system message) and its tokens."""
        if request.prompt_name not in self._heads:
            from tasks.llm.providers.common import SYSTEM, answer_name

            schema = answer_name(request) + json.dumps(request.output_schema, separators=(",", ":"))
            tool = ANTHROPIC_TOOL_TOKENS if self.name == "anthropic" else 0
            tokens = tool + sum(count(part, self.tokenizer) + MESSAGE_OVERHEAD for part in (schema, SYSTEM))
            self._heads[request.prompt_name] = (schema + "\n" + SYSTEM, tokens)
        return self._heads[request.prompt_name]

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
        """The request as the provider is sent it: output schema, system message and prompt."""
        return self.head(request)[1] + count(request.prompt, self.tokenizer) + MESSAGE_OVERHEAD


class PeekCache(CallCache):
    """The data root's call cache read, never written: what a plan finds there is a hit, and what the plan itself
    answers is remembered in memory only (a request made twice in one build is paid once)."""

    def __init__(self, root: Path | None) -> None:
        super().__init__(None)
        self.file = root / CallCache.FILE if root is not None else None
        self._reader: sqlite3.Connection | None = None

    def get(self, key: str) -> dict | None:
        found = super().get(key)
        if found is not None or self.file is None or not self.file.is_file():
            return found
        if self._reader is None:  # one read-only connection for the plan's many lookups (a plan counts serially)
            self._reader = sqlite3.connect(f"file:{self.file}?mode=ro", uri=True, timeout=30,
                                           check_same_thread=False)
        row = self._reader.execute("select entry, retry from calls where key = ?", [key]).fetchone()
        return None if row is None or row[1] else json.loads(row[0])


class PlanGateway(Gateway):
    """The gateway of a plan: counting provider, no limiter, no hard checks, rounds recorded (module doc)."""

    def __init__(self, config: ProviderConfig, cache: CallCache) -> None:
        # a batch-mode config is counted as its rounds are made: the same calls, with nothing sent
        super().__init__(config.model_copy(update={"mode": "sync"}), provider=CountingProvider(config), cache=cache,
                         hard_checks=False)
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
