"""The `openai` provider: OpenAI, or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) via base_url.

Structured output uses the chat completions `response_format` of type `json_schema`, strict when the
output model allows it. `finish_reason == "length"` marks the answer truncated (a failure, not data).
The SDK's own retries are off (`max_retries=0`): the gateway's limiter decides when to try again.
"""

from __future__ import annotations

import json

from schemas.config import ProviderConfig
from schemas.secrets import clip, display_url
from tasks.llm.batch import BatchError, RowResult, rows_digest
from tasks.llm.providers.common import (
    SYSTEM,
    ProviderError,
    answer_name,
    batch_refused,
    chat_messages,
    read_key,
    status_error,
    strict_schema,
)
from tasks.llm.types import LLMRequest, LLMResponse

OPENAI_ENDED = frozenset({"completed", "expired", "cancelled"})
"""Batch statuses after which no row changes (`failed` is raised: the batch never ran)."""


class OpenAIProvider:
    """Chat completions with a JSON-schema response format."""

    name = "openai"

    def __init__(self, config: ProviderConfig, timeout_s: float | None = None) -> None:
        import openai

        self.config, self.model = config, config.model
        self._key = read_key(config)
        self.label = f"openai {config.model} at {display_url(config.base_url) or 'api.openai.com'}"
        self.client = openai.OpenAI(api_key=self._key, base_url=config.base_url, max_retries=0,
                                    timeout=timeout_s or config.timeout_s)
        self._errors = (openai.APIError,)

    def complete(self, request: LLMRequest) -> LLMResponse:
        """One chat completion; SDK errors become ProviderError (rate_limit, transient, permanent, fatal)."""
        try:
            raw = self.client.chat.completions.with_raw_response.create(**self.payload(request))
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        try:
            completion = raw.parse()
        except ValueError as exc:  # a body that is not JSON (or not the expected shape)
            raise ProviderError(f"{self.label}: unreadable response body ({type(exc).__name__})", "transient") from None
        headers = {k.lower(): v for k, v in raw.headers.items()}
        return self.response(completion, headers)

    def payload(self, request: LLMRequest) -> dict:
        """The request body: system + user messages, the schema response format, generation params."""
        strict = strict_schema(request.output_schema)
        schema = strict or request.output_schema
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": SYSTEM}, *chat_messages(request)],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": answer_name(request), "schema": schema, "strict": bool(strict)}},
            "temperature": request.temperature,
            "max_tokens": request.max_output_tokens,
            "seed": request.sample,
        }

    def response(self, completion, headers: dict[str, str]) -> LLMResponse:
        """Text, usage and truncation from a ChatCompletion."""
        if isinstance(completion, str) or not getattr(completion, "choices", None):
            raise ProviderError(f"{self.label}: the response is not a chat completion", "transient")
        choice = completion.choices[0]
        message = choice.message
        text = message.content or ""
        if getattr(message, "refusal", None):
            text = json.dumps({"refusal": message.refusal})
        usage = completion.usage
        details = getattr(usage, "prompt_tokens_details", None)
        return LLMResponse(
            text=text,
            input_tokens=getattr(usage, "prompt_tokens", 0) or 0,  # cached tokens included (automatic caching)
            output_tokens=getattr(usage, "completion_tokens", 0) or 0,
            cached_input_tokens=getattr(details, "cached_tokens", 0) or 0,
            truncated=choice.finish_reason == "length",
            finish_reason=choice.finish_reason or "",
            headers=headers,
        )

    def ping(self) -> list[str]:
        """Model ids the endpoint offers (one cheap request); raises ProviderError."""
        try:
            return [m.id for m in self.client.models.list()]
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None

    # -- batch mode (tasks/llm/batch.py) -------------------------------------------------------------------
    def batch_submit(self, rows: list[tuple[str, LLMRequest]]) -> str:
        """Upload the rows as a JSONL file of chat completions and start a batch on it; the batch id."""
        lines = [json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions",
                             "body": self.payload(req)}) for cid, req in rows]
        try:
            upload = self.client.files.create(file=("lifeloom-batch.jsonl", "\n".join(lines).encode()),
                                              purpose="batch")
            batch = self.client.batches.create(
                input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h",
                metadata={"sent_by": "lifeloom", "lifeloom_rows": rows_digest([cid for cid, _ in rows])})
        except self._errors as exc:
            raise batch_refused(status_error(exc, self._key, self.label)) from None
        return batch.id

    def batch_find(self, ids: list[str], since: float) -> str | None:
        """The batch of exactly these requests sent since `since` (epoch seconds), by the digest its metadata
        carries: a batch the provider accepted whose id a killed build never recorded."""
        digest = rows_digest(ids)
        try:
            for batch in self.client.batches.list(limit=100):
                if (batch.created_at or 0) < since - 60:
                    break  # newest first: the rest are older
                if (batch.metadata or {}).get("lifeloom_rows") == digest:
                    return batch.id
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        return None

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        try:
            batch = self.client.batches.retrieve(batch_id)
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        if batch.status == "failed":  # the provider would not run it (a model without batch, a bad file)
            errors = "; ".join(e.message or e.code or "" for e in (batch.errors.data if batch.errors else []) or [])
            raise BatchError(f"{self.label}: batch {batch_id} failed: {errors or 'no reason given'}")
        return batch.status in OPENAI_ENDED, batch.status

    def batch_results(self, batch_id: str) -> dict[str, RowResult]:
        """Each row's answer from the output file, its error from the error file; rows in neither (an expired or
        cancelled batch) are left out, and the runner sends them again."""
        batch = self.client.batches.retrieve(batch_id)
        out: dict[str, RowResult] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            text = self.client.files.content(file_id).text
            for n, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    cid = row["custom_id"]
                except (ValueError, KeyError, TypeError):
                    raise BatchError(f"{self.label}: the results of batch {batch_id} cannot be read (file "
                                     f"{file_id}, line {n} is not a result)") from None
                out[cid] = self._row_result(cid, row)
        return out

    def _row_result(self, cid: str, row: dict) -> RowResult:
        response, error = row.get("response") or {}, row.get("error")
        status = response.get("status_code")
        if status == 200 and isinstance(response.get("body"), dict):
            from openai.types.chat import ChatCompletion

            try:
                completion = ChatCompletion.model_validate(response["body"])
                return RowResult(cid, response=self.response(completion, {}))
            except (ValueError, ProviderError) as exc:
                return RowResult(cid, error=f"unreadable answer: {type(exc).__name__}", retry=True)
        message = (error or {}).get("message") if isinstance(error, dict) else None
        message = message or str((response.get("body") or {}).get("error", {}).get("message", "")) or "no answer"
        transient = status is None or status == 429 or status >= 500
        return RowResult(cid, error=clip(f"HTTP {status}: {message}", 300, self._key), retry=transient)
