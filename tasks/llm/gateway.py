"""The one gateway every model call goes through.

prompt name + context + output model in, validated model out. On the way: the prompt is rendered
from `prompts/<name>.jinja`, the call cache is consulted (keyed by the full rendered request), the
provider is called under the client limits, the answer is validated against the output model and
repaired (error fed back) up to `max_attempts` times, then replaced by the offline narrator's
template output (outcome `fallback`). Every call leaves one ledger row (`LLMCall`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.config import ProviderConfig
from schemas.llm import LLMCall
from tasks.llm import prompts
from tasks.llm.cache import CallCache
from tasks.llm.limits import Limits

M = TypeVar("M", bound=BaseModel)


class LLMRequest(BaseModel):
    prompt_name: str
    prompt: str
    context: dict[str, Any]
    output_schema: dict[str, Any]
    model: str
    temperature: float
    max_output_tokens: int
    call_key: str
    repair_note: str | None = None


class LLMResponse(BaseModel):
    text: str
    input_tokens: int
    output_tokens: int
    truncated: bool = False
    cost_usd: float = 0.0


class Provider(Protocol):
    name: str
    model: str

    def complete(self, request: LLMRequest) -> LLMResponse: ...


class GatewayError(RuntimeError):
    """A model call that could not produce a valid output, even through the fallback."""


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class Gateway:
    """Validated model calls with cache, limits, repair, fallback and a ledger."""

    def __init__(
        self,
        config: ProviderConfig,
        provider: Provider | None = None,
        cache: CallCache | None = None,
        max_attempts: int = 3,
    ) -> None:
        from tasks.llm.providers import make_provider
        from tasks.llm.providers.offline import OfflineProvider

        self.config = config
        self.provider = provider or make_provider(config)
        self.fallback = OfflineProvider()
        self.cache = cache or CallCache(None)
        self.limits = Limits(config.max_concurrency, config.requests_per_minute)
        self.max_attempts = max_attempts
        self._ledger: list[LLMCall] = []
        self._lock = threading.Lock()

    def generate(
        self, prompt_name: str, context: dict[str, Any], output_model: type[M], *, stage: str, persona_id: str | None
    ) -> M:
        """Render, call (or read from cache), validate, repair or fall back; record a ledger row."""
        request = self._request(prompt_name, context, output_model)
        started = time.perf_counter()
        cached = self.cache.get(request.call_key)
        if cached is not None:
            result = output_model.model_validate(cached["output"])
            self._record(request, stage, persona_id, cached, started, cached=True)
            return result
        entry, result = self._call_with_repair(request, output_model)
        self.cache.put(request.call_key, entry)
        self._record(request, stage, persona_id, entry, started, cached=False)
        return result

    def drain_ledger(self) -> list[LLMCall]:
        """Ledger rows recorded since the last drain, in call order."""
        with self._lock:
            rows, self._ledger = self._ledger, []
        return rows

    def _request(self, prompt_name: str, context: dict[str, Any], output_model: type[BaseModel]) -> LLMRequest:
        text = prompts.render(prompt_name, context)
        schema = output_model.model_json_schema()
        key_material = json.dumps(
            [self.provider.name, self.provider.model, self.config.temperature, prompt_name, text, schema],
            sort_keys=True,
        )
        return LLMRequest(
            prompt_name=prompt_name,
            prompt=text,
            context=context,
            output_schema=schema,
            model=self.provider.model,
            temperature=self.config.temperature,
            max_output_tokens=self.config.max_output_tokens,
            call_key=hashlib.sha256(key_material.encode()).hexdigest(),
        )

    def _call_with_repair(self, request: LLMRequest, output_model: type[M]) -> tuple[dict, M]:
        tokens_in = tokens_out = 0
        cost = 0.0
        error = ""
        for attempt in range(1, self.max_attempts + 1):
            attempt_request = request.model_copy(update={"repair_note": error or None})
            with self.limits.slot():
                response = self.provider.complete(attempt_request)
            tokens_in += response.input_tokens
            tokens_out += response.output_tokens
            cost += response.cost_usd
            if response.truncated:
                error = "The previous answer was cut off at the token limit; answer more briefly."
                continue
            try:
                result = output_model.model_validate_json(response.text)
            except ValidationError as exc:
                error = f"The previous answer did not validate: {exc.errors(include_url=False)}"
                continue
            outcome = "ok" if attempt == 1 else "repaired"
            return self._entry(result, outcome, attempt, tokens_in, tokens_out, cost), result
        response = self.fallback.complete(request)
        try:
            result = output_model.model_validate_json(response.text)
        except ValidationError as exc:
            raise GatewayError(f"{request.prompt_name}: no valid output after {self.max_attempts} attempts "
                               f"and the template fallback: {exc}") from None
        entry = self._entry(result, "fallback", self.max_attempts, tokens_in, tokens_out, cost)
        return entry, result

    @staticmethod
    def _entry(result: BaseModel, outcome: str, attempts: int, tokens_in: int, tokens_out: int, cost: float) -> dict:
        return {
            "output": result.model_dump(mode="json"),
            "outcome": outcome,
            "attempts": attempts,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost_usd": cost,
        }

    def _record(
        self, request: LLMRequest, stage: str, persona_id: str | None, entry: dict, started: float, cached: bool
    ) -> None:
        row = LLMCall(
            call_key=request.call_key[:24],
            stage=stage,
            persona_id=persona_id,
            provider=self.provider.name,
            model=self.provider.model,
            prompt_name=request.prompt_name,
            prompt_hash=prompts.prompt_hash(request.prompt_name),
            input_tokens=entry["input_tokens"],
            output_tokens=entry["output_tokens"],
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            cost_usd=0.0 if cached else entry["cost_usd"],
            attempts=entry["attempts"],
            outcome=entry["outcome"],
            cached=cached,
        )
        with self._lock:
            self._ledger.append(row)
