"""The one gateway every model call goes through.

prompt name + context + output model in, validated model out. On the way: the prompt is rendered
from `prompts/<name>.jinja`; the call cache is consulted (keyed by the full rendered request); the
provider is called under the endpoint's shared limiter (transient errors retried with backoff); the
answer is checked (truncation, pydantic validation, the prompt's hard check) and repaired with the
error fed back up to `max_attempts` times; then it is replaced by the offline narrator's template
output (outcome `fallback`, confidence 0.2). Every call leaves one ledger row (`LLMCall`).

`generate_many` runs independent calls concurrently on a thread pool. Threads, not asyncio: stages are
plain functions that Prefect runs on worker threads, and the limiter must be shared by every stage
gateway in the process, across those threads; a thread-safe limiter over the SDKs' (thread-safe) sync
clients gives one budget for all of them, where an asyncio limiter would be bound to one event loop.
Results come back in input order and depend only on each request, so concurrency changes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from schemas.config import ProviderConfig
from schemas.llm import LLMCall
from schemas.secrets import clip
from tasks.llm import checks, prompts
from tasks.llm.cache import CallCache
from tasks.llm.pricing import price_for
from tasks.llm.types import LLMRequest, LLMResponse, Provider, estimate_tokens

M = TypeVar("M", bound=BaseModel)
FALLBACK_CONFIDENCE = 0.2


class CallSpec(NamedTuple):
    """One call for `generate_many`: the arguments of `generate`."""

    prompt_name: str
    context: dict[str, Any]
    output_model: type[BaseModel]
    stage: str
    persona_id: str | None = None
    sample: int = 0


class GatewayError(RuntimeError):
    """A model call that could not produce a valid output, even through the fallback."""


@functools.cache
def _schema_json(output_model: type[BaseModel]) -> str:
    return json.dumps(output_model.model_json_schema(), sort_keys=True)


def output_schema(output_model: type[BaseModel]) -> dict[str, Any]:
    """The output model's JSON schema (built once per model: it is the same for every call)."""
    return json.loads(_schema_json(output_model))


def call_key(provider: str, model: str, prompt: str, prompt_name: str, schema: dict[str, Any], temperature: float,
             max_output_tokens: int, sample: int, system: str) -> str:
    """The call cache's key: a hash of everything the provider is sent."""
    material = json.dumps(
        {"provider": provider, "model": model, "system": system, "prompt": prompt, "prompt_name": prompt_name,
         "schema": schema, "temperature": temperature, "max_output_tokens": max_output_tokens, "sample": sample},
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


class Gateway:
    """Validated model calls with cache, limits, repair, fallback and a ledger.

    Hard checks (tasks/llm/checks.py) run on live providers' answers; the offline narrator is checked
    by its own tests. `hard_checks=False` turns them off (to test a stage's own safety nets).
    """

    def __init__(self, config: ProviderConfig, provider: Provider | None = None, cache: CallCache | None = None,
                 max_attempts: int = 3, limiter=None, hard_checks: bool | None = None) -> None:
        from tasks.llm.limits import limiter_for
        from tasks.llm.providers import make_provider
        from tasks.llm.providers.offline import OfflineProvider

        self.config = config
        self.provider = provider or make_provider(config)
        self.fallback = OfflineProvider()
        self.cache = cache or CallCache(None)
        self.live = self.provider.name != "offline"
        self.hard_checks = self.live if hard_checks is None else hard_checks
        self.limiter = limiter or (limiter_for(config) if self.live else None)
        self.max_attempts = max_attempts
        self._price = price_for(config) if self.live else None
        self._ledger: list[LLMCall] = []
        self._lock = threading.Lock()
        self.batches = None
        if self.live and config.mode == "batch":
            from tasks.llm.batchmode import runner_for

            self.batches = runner_for(config, self.provider, self.cache)

    def generate(self, prompt_name: str, context: dict[str, Any], output_model: type[M], *, stage: str,
                 persona_id: str | None, sample: int = 0) -> M:
        """Render, call (or read from cache), validate, repair or fall back; record a ledger row."""
        spec = CallSpec(prompt_name, context, output_model, stage, persona_id, sample)
        if self.batches is not None:
            [(result, row)] = self._batch([spec])
        else:
            result, row = self._generate(spec)
        with self._lock:
            self._ledger.append(row)
        return result

    def generate_many(self, items: list[CallSpec | tuple]) -> list[BaseModel]:
        """`generate` for every item, concurrently under the limits; results and ledger rows in input order.

        An item is a `CallSpec` or a tuple of its fields. The first error that stops a call (circuit
        open, unusable provider) cancels the calls not yet started and is raised.
        """
        return [result for result, _ in self.generate_many_traced(items)]

    def generate_many_traced(self, items: list[CallSpec | tuple]) -> list[tuple[BaseModel, LLMCall]]:
        """`generate_many`, with each result's ledger row (its outcome, attempts, fallback flag) beside it,
        for callers that handle a fallback themselves; the rows are recorded in the ledger all the same."""
        specs = [item if isinstance(item, CallSpec) else CallSpec(*item) for item in items]
        if self.batches is not None:
            done = self._batch(specs)
            with self._lock:
                self._ledger.extend(row for _, row in done)
            return done
        top = self.limiter.max_cap if self.limiter is not None else (self.config.max_concurrency or 1)
        workers = 1 if not self.live else min(len(specs), max(1, top))
        if workers <= 1:
            done = [self._generate(spec) for spec in specs]
        else:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm")
            try:
                done = [f.result() for f in [pool.submit(self._generate, spec) for spec in specs]]
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            self._ledger.extend(row for _, row in done)
        return done

    def _batch(self, specs: list[CallSpec]) -> list[tuple[BaseModel, LLMCall]]:
        from tasks.llm.batchmode import batch_round

        return batch_round(self, specs)

    def drain_ledger(self) -> list[LLMCall]:
        """Ledger rows recorded since the last drain, in call order."""
        with self._lock:
            rows, self._ledger = self._ledger, []
        return rows

    # -- one call ----------------------------------------------------------------------------------
    def _generate(self, spec: CallSpec) -> tuple[BaseModel, LLMCall]:
        request = self.request(spec.prompt_name, spec.context, spec.output_model, spec.sample)
        started = time.perf_counter()
        cached = self.cache.get(request.call_key)
        if cached is not None:
            result = spec.output_model.model_validate(cached["output"])
            return result, self._row(request, spec, cached, started, cached=True)
        entry, result = self._call_with_repair(request, spec.output_model)
        self.cache.put(request.call_key, entry, request.prompt_name)
        return result, self._row(request, spec, entry, started, cached=False)

    def request(self, prompt_name: str, context: dict[str, Any], output_model: type[BaseModel],
                sample: int = 0) -> LLMRequest:
        """The rendered request; its call key hashes everything the provider is sent."""
        from tasks.llm.providers.common import SYSTEM

        blocks, cached = prompts.render_blocks(prompt_name, context)
        text = "".join(blocks)
        schema = output_schema(output_model)
        return LLMRequest(
            prompt_name=prompt_name, prompt=text, blocks=blocks if len(blocks) > 1 else [], cached_blocks=cached,
            context=context, output_schema=schema, model=self.provider.model,
            temperature=self.config.temperature, max_output_tokens=self.config.max_output_tokens,
            call_key=call_key(self.provider.name, self.provider.model, text, prompt_name, schema,
                              self.config.temperature, self.config.max_output_tokens, sample, SYSTEM),
            sample=sample,
        )

    def _call_with_repair(self, request: LLMRequest, output_model: type[M]) -> tuple[dict, M]:
        from tasks.llm.providers.common import ProviderError

        usage = {"input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "cache_write_tokens": 0,
                 "cost_usd": 0.0, "requests": 0}
        note = previous = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                response = self._send(request.model_copy(update={"repair_note": note, "previous_answer": previous}),
                                      usage)
            except ProviderError as exc:
                return self._fallback(request, output_model, attempt, usage, str(exc), retry=exc.transient)
            usage["input_tokens"] += response.input_tokens
            usage["output_tokens"] += response.output_tokens
            usage["cached_input_tokens"] += response.cached_input_tokens
            usage["cache_write_tokens"] += response.cache_write_tokens
            usage["cost_usd"] += response.cost_usd + self.price(response)
            result, note = self._judge(request, response, output_model)
            if result is not None:
                return self._entry(result, "ok" if attempt == 1 else "repaired", attempt, usage), result
            previous = response.text[:4000]
        return self._fallback(request, output_model, self.max_attempts, usage, note or "", retry=False)

    def _judge(self, request: LLMRequest, response: LLMResponse, output_model: type[M]) -> tuple[M | None, str | None]:
        """The validated output, or None and the problem to feed back."""
        if response.truncated:
            return None, "The previous answer was cut off at the token limit; answer more briefly."
        try:
            result = output_model.model_validate_json(response.text)
        except ValidationError as exc:
            return None, f"The previous answer did not validate: {exc.errors(include_url=False)}"[:2000]
        problem = checks.check(request.prompt_name, result, request.context) if self.hard_checks else None
        return (None, f"The previous answer failed a check: {problem}") if problem else (result, None)

    def _send(self, request: LLMRequest, usage: dict) -> LLMResponse:
        """One provider request under the limiter; transient errors are retried with jittered backoff."""
        from tasks.llm.providers.common import ProviderError, ProviderUnavailable

        if self.limiter is None:
            usage["requests"] += 1
            return self.provider.complete(request)
        for retry in range(self.config.max_retries + 1):
            ticket = self.limiter.acquire(estimate_tokens(request.prompt))
            usage["requests"] += 1
            try:
                response = self.provider.complete(request)
            except ProviderError as exc:
                delay = self.limiter.failed(ticket, str(exc), rate_limited=exc.kind == "rate_limit",
                                            retry_after=exc.retry_after, attempt=retry)
                if exc.kind == "fatal":
                    raise ProviderUnavailable(str(exc)) from None
                if not exc.transient or retry == self.config.max_retries:
                    raise
                if exc.kind != "rate_limit":
                    self.limiter.sleep(delay)
                continue
            except BaseException as exc:
                self.limiter.failed(ticket, type(exc).__name__)
                raise
            self.limiter.succeeded(ticket, response.input_tokens, response.output_tokens, response.headers)
            return response
        raise AssertionError("unreachable")

    def price(self, response: LLMResponse) -> float:
        """USD for one response at the model's price (tasks/llm/pricing.py: the config's, else the dated table;
        0 when the price is unknown, which `lifeloom plan` says before the build)."""
        if self._price is None:
            return 0.0
        return self._price.cost(response.input_tokens, response.output_tokens, response.cached_input_tokens,
                                response.cache_write_tokens)

    def _fallback(self, request: LLMRequest, output_model: type[M], attempts: int, usage: dict, error: str,
                  retry: bool) -> tuple[dict, M]:
        response = self.fallback.complete(request)
        try:
            result = output_model.model_validate_json(response.text)
        except ValidationError as exc:
            raise GatewayError(f"{request.prompt_name}: no valid output after {attempts} attempts "
                               f"and the template fallback: {exc}") from None
        entry = self._entry(result, "fallback", attempts, usage)
        entry.update(error=clip(error, 500) or None, retry=retry)
        return entry, result

    @staticmethod
    def _entry(result: BaseModel, outcome: str, attempts: int, usage: dict) -> dict:
        return {"output": result.model_dump(mode="json"), "outcome": outcome, "attempts": attempts, **usage}

    def _row(self, request: LLMRequest, spec: CallSpec, entry: dict, started: float, cached: bool,
             batch_id: str | None = None) -> LLMCall:
        fallback = entry["outcome"] == "fallback"
        return LLMCall(
            call_key=request.call_key[:24],
            stage=spec.stage,
            persona_id=spec.persona_id,
            provider=self.provider.name,
            model=self.provider.model,
            prompt_name=request.prompt_name,
            prompt_hash=prompts.prompt_hash(request.prompt_name),
            input_tokens=entry["input_tokens"],
            output_tokens=entry["output_tokens"],
            cached_input_tokens=entry.get("cached_input_tokens", 0),
            cache_write_tokens=entry.get("cache_write_tokens", 0),
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            cost_usd=0.0 if cached else round(entry["cost_usd"], 8),
            attempts=entry["attempts"],
            outcome=entry["outcome"],
            cached=cached,
            fallback=fallback,
            confidence=FALLBACK_CONFIDENCE if fallback else 1.0,
            error=entry.get("error"),
            requests=0 if cached else entry.get("requests", 0),
            batch_id=None if cached else batch_id,
        )
