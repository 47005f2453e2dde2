"""Model providers behind the gateway: `offline` (embedded default), `openai`, `anthropic`."""

from __future__ import annotations

from schemas.config import ProviderConfig


class ProviderUnavailable(RuntimeError):
    """A provider that cannot be used here (missing key, missing client, unreachable endpoint)."""


def make_provider(config: ProviderConfig):
    """The provider named by the config."""
    if config.name == "offline":
        from tasks.llm.providers.offline import OfflineProvider

        return OfflineProvider(model=config.model)
    raise ProviderUnavailable(
        f"provider {config.name!r} is not available in this version of lifeloom; use provider.name = 'offline'"
    )
