"""What a model call costs: a small, dated price table of known models, overridable from the config.

`price_for(config)` is the `Price` of the configured provider and model: the config's own prices when it sets
`price_per_mtok_in` and `price_per_mtok_out` (a negotiated rate, a model not listed, a self-hosted server billed by
the hour: set both to 0), else the table's row for the model (a dated snapshot id such as
`gpt-4.1-mini-2025-04-14` is looked up as `gpt-4.1-mini`), else None: the price is unknown, and the plan says so
instead of guessing. The offline narrator costs nothing.

The table (USD per million tokens) was read from the providers' pricing pages on PRICES_AS_OF; prices change, so
the plan prints that date beside every cost it derives from the table. Both providers bill a batch job at half the
synchronous price (OpenAI Batch API, Anthropic Message Batches), on every token kind; a cached prompt prefix is
billed at `cached_input` (OpenAI: automatic, a quarter to a tenth of the input price; Anthropic: a cache read, a
tenth, and writing the prefix into the cache costs `cache_write`, 1.25 times the input price for the default
five-minute cache).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.config import ProviderConfig

PRICES_AS_OF = "2026-11-05"
"""When the table below was read from https://openai.com/api/pricing and https://www.anthropic.com/pricing."""

BATCH_DISCOUNT = 0.5
"""The share of the synchronous price a batch job pays (both providers)."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model: input, output, a cached prefix read, and writing one (Anthropic)."""

    input: float
    output: float
    cached_input: float | None = None
    """None: no discount for a cached prefix (it is billed as input)."""
    cache_write: float | None = None
    """None: writing the cache costs nothing extra (OpenAI's automatic caching)."""
    batch: float | None = BATCH_DISCOUNT
    """The share of the price a batch job pays; None: the model has no batch API."""
    source: str = f"price table of {PRICES_AS_OF}"

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0, written_tokens: int = 0,
             batch: bool = False) -> float:
        """USD for a call (or a sum of calls): `cached_tokens` of the input read from the prompt cache and
        `written_tokens` written to it (both part of `input_tokens`), at the batch price when `batch`."""
        plain = input_tokens - cached_tokens - written_tokens
        usd = (plain * self.input + output_tokens * self.output
               + cached_tokens * (self.input if self.cached_input is None else self.cached_input)
               + written_tokens * (self.input if self.cache_write is None else self.cache_write)) / 1e6
        return usd * (self.batch or 1.0) if batch else usd


FREE = Price(0.0, 0.0, 0.0, source="offline narrator")


def _openai(inp: float, cached: float, out: float) -> Price:
    return Price(inp, out, cached)


ANTHROPIC_READ, ANTHROPIC_WRITE = 0.1, 1.25
"""Anthropic's prompt cache, as shares of the input price: a read, and a write to the five-minute cache."""


def _anthropic(inp: float, out: float) -> Price:
    return Price(inp, out, cached_input=round(inp * ANTHROPIC_READ, 4), cache_write=round(inp * ANTHROPIC_WRITE, 4))


PRICES: dict[tuple[str, str], Price] = {
    ("openai", "gpt-5"): _openai(1.25, 0.125, 10.00),
    ("openai", "gpt-5-mini"): _openai(0.25, 0.025, 2.00),
    ("openai", "gpt-5-nano"): _openai(0.05, 0.005, 0.40),
    ("openai", "gpt-4.1"): _openai(2.00, 0.50, 8.00),
    ("openai", "gpt-4.1-mini"): _openai(0.40, 0.10, 1.60),
    ("openai", "gpt-4.1-nano"): _openai(0.10, 0.025, 0.40),
    ("openai", "gpt-4o"): _openai(2.50, 1.25, 10.00),
    ("openai", "gpt-4o-mini"): _openai(0.15, 0.075, 0.60),
    ("anthropic", "claude-opus-4-5"): _anthropic(5.00, 25.00),
    ("anthropic", "claude-sonnet-4-5"): _anthropic(3.00, 15.00),
    ("anthropic", "claude-sonnet-4-0"): _anthropic(3.00, 15.00),
    ("anthropic", "claude-haiku-4-5"): _anthropic(1.00, 5.00),
    ("anthropic", "claude-3-5-haiku"): _anthropic(0.80, 4.00),
}
"""Known models on the providers' own endpoints (USD per million tokens, PRICES_AS_OF)."""

ALIASES = {"claude-sonnet-4": "claude-sonnet-4-0", "claude-3-5-haiku-latest": "claude-3-5-haiku"}

_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")


def base_model(model: str) -> str:
    """`gpt-4.1-mini` for `gpt-4.1-mini-2025-04-14`, `claude-sonnet-4-0` for `claude-sonnet-4`: the table's id."""
    base = _SNAPSHOT.sub("", model)
    return ALIASES.get(base, base)


def table_price(provider: str, model: str) -> Price | None:
    """The table's price of `model` at `provider` (a dated snapshot id as its base id), or None."""
    return PRICES.get((provider, base_model(model)))


def price_for(config: ProviderConfig) -> Price | None:
    """The price of the configured model: the config's (when it sets both prices), else the table's for a provider's
    own endpoint, else None (unknown: a self-hosted or unlisted model without prices in the config)."""
    if config.name == "offline":
        return FREE
    if config.price_per_mtok_in is not None and config.price_per_mtok_out is not None:
        known = table_price(config.name, config.model)
        cached, write = config.price_per_mtok_cached_in, None
        if config.name == "anthropic":  # Anthropic's rule for every model: reads a tenth, writes 1.25 times the input
            cached = round(config.price_per_mtok_in * ANTHROPIC_READ, 6) if cached is None else cached
            write = round(config.price_per_mtok_in * ANTHROPIC_WRITE, 6)
        return Price(config.price_per_mtok_in, config.price_per_mtok_out, cached, write,
                     known.batch if known else BATCH_DISCOUNT, source="the config's prices")
    if config.base_url is not None:
        return None  # a server of one's own, or a proxy: its price is not the provider's list price
    return table_price(config.name, config.model)


def describe(price: Price | None) -> str:
    """`$0.40 in / $1.60 out per MTok (price table of 2026-11-05)`, or `unknown price`."""
    if price is None:
        return "unknown price"
    return f"${price.input:g} in / ${price.output:g} out per MTok ({price.source})"
