"""The one LLM gateway every stage calls (see gateway.py)."""

from tasks.llm.gateway import Gateway, LLMRequest, LLMResponse, Provider

__all__ = ["Gateway", "LLMRequest", "LLMResponse", "Provider"]
