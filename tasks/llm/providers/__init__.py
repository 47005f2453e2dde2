"""Model providers behind the gateway: `offline` (embedded default), `openai`, `anthropic`."""

from __future__ import annotations

from schemas.config import ProviderConfig
from tasks.llm.providers.common import ProviderError, ProviderUnavailable

__all__ = ["ProviderError", "ProviderUnavailable", "make_provider"]


def make_provider(config: ProviderConfig):
    """The provider named by the config; a missing key raises ProviderUnavailable naming the variable."""
    if config.name == "offline":
        from tasks.llm.providers.offline import OfflineProvider

        return OfflineProvider(model=config.model)
    if config.name == "openai":
        from tasks.llm.providers.openai import OpenAIProvider

        return OpenAIProvider(config)
    if config.name == "anthropic":
        from tasks.llm.providers.anthropic import AnthropicProvider

        return AnthropicProvider(config)
    raise ProviderUnavailable(f"unknown provider {config.name!r}; use offline, openai or anthropic")
