"""Preflight: every provider a build will use is checked before any stage runs.

For each distinct provider in the config (the default and every per-stage override) that is not
`offline`: the key must be in the environment (the variable is named, the value never shown), and the
endpoint must answer one cheap request (listing models) within a short timeout, accept the key and,
for OpenAI-compatible servers that list models, offer the configured model.
"""

from __future__ import annotations

from schemas.config import BuildConfig, ProviderConfig
from schemas.secrets import display_url
from tasks.llm.providers.common import ProviderError, ProviderUnavailable

PING_TIMEOUT_S = 10.0


def providers_in_use(config: BuildConfig) -> dict[tuple, tuple[ProviderConfig, list[str]]]:
    """Distinct non-offline providers, each with the stages that use it ("default" for the main one)."""
    found: dict[tuple, tuple[ProviderConfig, list[str]]] = {}
    entries = [("default", config.provider), *sorted(config.stages.providers.items())]
    for stage, provider in entries:
        if provider.name == "offline":
            continue
        key = (provider.name, provider.base_url, provider.model, provider.api_key_env)
        found.setdefault(key, (provider, []))[1].append(stage)
    return found


def check_providers(config: BuildConfig, timeout_s: float = PING_TIMEOUT_S) -> None:
    """Raise ProviderUnavailable with one clear message if any provider the config uses cannot work."""
    for provider, stages in providers_in_use(config).values():
        check_provider(provider, stages, timeout_s)


def check_provider(provider: ProviderConfig, stages: list[str], timeout_s: float = PING_TIMEOUT_S) -> None:
    """Key present, endpoint reachable, key accepted, model offered (when the endpoint lists models)."""
    from tasks.llm.providers import provider_class

    used_by = "the default provider" if stages == ["default"] else f"stages {', '.join(stages)}"
    try:
        cls = provider_class(provider.name)
    except ProviderUnavailable as exc:
        raise ProviderUnavailable(f"{exc} (used by {used_by})") from None
    try:
        client = cls(provider, timeout_s=timeout_s)
    except ProviderUnavailable as exc:
        raise ProviderUnavailable(f"{exc} (used by {used_by})") from None
    try:
        models = client.ping()
    except ProviderError as exc:
        raise ProviderUnavailable(f"{unreachable(provider, exc)} (used by {used_by})") from None
    if provider.name == "openai" and models and provider.model not in models:
        shown = ", ".join(sorted(models)[:8]) + (" ..." if len(models) > 8 else "")
        raise ProviderUnavailable(f"{client.label}: the endpoint does not offer model {provider.model!r} "
                                  f"(it offers: {shown}) (used by {used_by})")


def unreachable(provider: ProviderConfig, exc: ProviderError) -> str:
    """A one-line reason for a failed ping."""
    from tasks.llm.providers.common import key_env

    where = display_url(provider.base_url) or f"the {provider.name} API"
    if exc.status in (401, 403):
        return f"{where} rejected the key in ${key_env(provider)} (HTTP {exc.status})"
    if exc.status is None:
        return f"cannot reach {where} for provider {provider.name!r}: {exc}"
    return f"{where} answered HTTP {exc.status} to a model listing: {exc}"
