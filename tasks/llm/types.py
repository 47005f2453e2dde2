"""What the gateway and the providers exchange: a rendered request, a provider's response, the provider protocol.

Its own module so the providers need nothing from the gateway (which builds them): the import graph stays acyclic.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel


class LLMRequest(BaseModel):
    prompt_name: str
    prompt: str
    context: dict[str, Any]
    output_schema: dict[str, Any]
    model: str
    temperature: float
    max_output_tokens: int
    call_key: str
    sample: int = 0
    blocks: list[str] = []
    """The prompt as content blocks (joined, they are `prompt`); empty when it is one block."""
    cached_blocks: int = 0
    """How many leading blocks form the stable prefix a cache mark closes (tasks/llm/prompts.py); 0 for none."""
    repair_note: str | None = None
    previous_answer: str | None = None


class LLMResponse(BaseModel):
    text: str
    input_tokens: int
    """Every input token the request was billed for, those read from or written to the prompt cache included."""
    output_tokens: int
    cached_input_tokens: int = 0
    """Of the input, the tokens read from the provider's prompt cache (a repeated prefix, billed at its cached
    price)."""
    cache_write_tokens: int = 0
    """Of the input, the tokens written to the prompt cache (Anthropic bills them above the input price)."""
    truncated: bool = False
    cost_usd: float = 0.0
    finish_reason: str = ""
    headers: dict[str, str] = {}


class Provider(Protocol):
    name: str
    model: str

    def complete(self, request: LLMRequest) -> LLMResponse: ...


def estimate_tokens(text: str) -> int:
    """A cheap token estimate for the limiter (four characters a token)."""
    return max(1, len(text) // 4)
