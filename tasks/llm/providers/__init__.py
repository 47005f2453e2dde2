"""Model providers behind the gateway: `offline` (embedded default), `openai`, `anthropic`.

`PROVIDERS` is the one registry (name -> `module:class`, the names of schemas.config.ProviderConfig.name); the
gateway builds through `make_provider` and preflight checks through `provider_class`, so a provider is added in
one module and one line here.
"""

from __future__ import annotations

import importlib

from schemas.config import ProviderConfig
from tasks.llm.providers.common import ProviderError, ProviderUnavailable

__all__ = ["PROVIDERS", "ProviderError", "ProviderUnavailable", "make_provider", "provider_class"]

PROVIDERS: dict[str, str] = {
    "offline": "tasks.llm.providers.offline:OfflineProvider",
    "openai": "tasks.llm.providers.openai:OpenAIProvider",
    "anthropic": "tasks.llm.providers.anthropic:AnthropicProvider",
}


def provider_class(name: str) -> type:
    """The class registered under `name`; ProviderUnavailable naming the known ones otherwise."""
    if name not in PROVIDERS:
        raise ProviderUnavailable(f"unknown provider {name!r}; use {', '.join(PROVIDERS)}")
    module, _, cls = PROVIDERS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def make_provider(config: ProviderConfig):
    """The provider named by the config; a missing key raises ProviderUnavailable naming the variable."""
    cls = provider_class(config.name)
    return cls(model=config.model) if config.name == "offline" else cls(config)
