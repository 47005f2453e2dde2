"""Gateway records: one ledger row per model call."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class LLMCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    call_key: str
    stage: str
    persona_id: str | None = None
    provider: str
    model: str
    prompt_name: str
    prompt_hash: str
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0
    """Of the input, the tokens the provider read from its prompt cache (billed at the cached price)."""
    cache_write_tokens: int = 0
    """Of the input, the tokens written to the provider's prompt cache (Anthropic: 1.25 times the input price)."""
    latency_ms: float
    cost_usd: float = 0.0
    attempts: int = 1
    outcome: Literal["ok", "repaired", "fallback", "error"]
    cached: bool = False
    requests: int = 0
    fallback: bool = False
    confidence: float = 1.0
    error: str | None = None
    batch_id: str | None = None
    """The provider's batch that answered the call (batch mode), else None."""
