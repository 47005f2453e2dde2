"""The `anthropic` provider: the Messages API, structured output through one forced tool.

The output schema becomes the input schema of a tool named after the prompt, and `tool_choice` forces
the model to call it; the tool input is the answer. `stop_reason == "max_tokens"` marks truncation.
This SDK's `messages.create` takes no sampling parameters, so the configured temperature is not sent
(it still enters the call key).
The SDK's own retries are off (`max_retries=0`): the gateway's limiter decides when to try again.
"""

from __future__ import annotations

import json

from schemas.config import ProviderConfig
from schemas.secrets import display_url
from tasks.llm.batch import BatchError, RowResult
from tasks.llm.providers.common import (
    SYSTEM,
    ProviderError,
    answer_name,
    batch_refused,
    chat_messages,
    inline_refs,
    read_key,
    status_error,
)
from tasks.llm.types import LLMRequest, LLMResponse

BATCH_FIND_WINDOW_S = 600
"""How long after a build meant to send a batch the batch it lost may have been created."""


class AnthropicProvider:
    """Messages with a forced tool call for structured output."""

    name = "anthropic"

    def __init__(self, config: ProviderConfig, timeout_s: float | None = None) -> None:
        import anthropic

        self.config, self.model = config, config.model
        self._key = read_key(config)
        self.label = f"anthropic {config.model} at {display_url(config.base_url) or 'api.anthropic.com'}"
        self.client = anthropic.Anthropic(api_key=self._key, base_url=config.base_url, max_retries=0,
                                          timeout=timeout_s or config.timeout_s)
        self._errors = (anthropic.APIError,)

    def complete(self, request: LLMRequest) -> LLMResponse:
        """One message with the forced tool; SDK errors become ProviderError."""
        try:
            raw = self.client.messages.with_raw_response.create(**self.payload(request))
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        try:
            message = raw.parse()
        except ValueError as exc:  # a body that is not JSON (or not the expected shape)
            raise ProviderError(f"{self.label}: unreadable response body ({type(exc).__name__})", "transient") from None
        headers = {k.lower(): v for k, v in raw.headers.items()}
        return self.response(message, headers)

    def payload(self, request: LLMRequest) -> dict:
        """The request body: system, messages, the one tool and the forced tool choice."""
        tool = {"name": tool_name(answer_name(request)), "description": "Record the answer.",
                "input_schema": inline_refs(request.output_schema)}
        return {
            "model": self.model,
            "system": SYSTEM,
            "messages": chat_messages(request, cache_marks=True),
            "tools": [tool],
            "tool_choice": {"type": "tool", "name": tool["name"]},
            "max_tokens": request.max_output_tokens,
        }

    def response(self, message, headers: dict[str, str]) -> LLMResponse:
        """The forced tool's input as JSON text, usage and truncation from a Message."""
        if isinstance(message, str) or not hasattr(message, "content"):
            raise ProviderError(f"{self.label}: the response is not a message", "transient")
        blocks = [b for b in message.content if getattr(b, "type", "") == "tool_use"]
        if blocks:
            text = json.dumps(blocks[0].input, ensure_ascii=False)
        else:
            text = "".join(getattr(b, "text", "") for b in message.content)
        usage = message.usage
        read = getattr(usage, "cache_read_input_tokens", 0) or 0
        written = getattr(usage, "cache_creation_input_tokens", 0) or 0
        return LLMResponse(
            text=text,
            input_tokens=(getattr(usage, "input_tokens", 0) or 0) + read + written,  # Anthropic counts them apart
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
            cached_input_tokens=read,
            cache_write_tokens=written,
            truncated=message.stop_reason == "max_tokens",
            finish_reason=message.stop_reason or "",
            headers=headers,
        )

    def ping(self) -> list[str]:
        """Model ids the endpoint offers (one cheap request); raises ProviderError."""
        try:
            return [m.id for m in self.client.models.list(limit=100)]
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None


    # -- batch mode (tasks/llm/batch.py) -------------------------------------------------------------------
    def batch_submit(self, rows: list[tuple[str, LLMRequest]]) -> str:
        """One Message Batch of the rows; its id."""
        try:
            batch = self.client.messages.batches.create(
                requests=[{"custom_id": cid, "params": self.payload(req)} for cid, req in rows])
        except self._errors as exc:
            raise batch_refused(status_error(exc, self._key, self.label)) from None
        return batch.id

    def batch_find(self, ids: list[str], since: float) -> str | None:
        """A batch of as many requests as `ids`, created within BATCH_FIND_WINDOW_S of `since` (epoch seconds): a
        batch the provider accepted whose id a killed build never recorded. Message Batches carry no metadata, so
        the match is by time and size; its results say whether it holds these requests (a request it does not
        hold has no result and is sent again)."""
        found: list[tuple[float, str]] = []
        try:
            for batch in self.client.messages.batches.list(limit=100):
                created = batch.created_at.timestamp()
                if created < since - 60:
                    break  # newest first
                if created <= since + BATCH_FIND_WINDOW_S and sum(dict(batch.request_counts).values()) == len(ids):
                    found.append((abs(created - since), batch.id))
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        return min(found)[1] if found else None

    def batch_state(self, batch_id: str) -> tuple[bool, str]:
        try:
            batch = self.client.messages.batches.retrieve(batch_id)
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        return batch.processing_status == "ended", batch.processing_status

    def batch_results(self, batch_id: str) -> dict[str, RowResult]:
        """Each row's result: its message, or its error (a server error, an expired or cancelled row: sent again;
        an invalid request: falls back)."""
        out: dict[str, RowResult] = {}
        try:
            for row in self.client.messages.batches.results(batch_id):
                result = row.result
                if result.type == "succeeded":
                    out[row.custom_id] = RowResult(row.custom_id, response=self.response(result.message, {}))
                elif result.type == "errored":
                    kind = getattr(getattr(result.error, "error", None), "type", "") or ""
                    out[row.custom_id] = RowResult(row.custom_id, error=f"errored: {kind or 'unknown'}",
                                                   retry=kind not in ("invalid_request_error", "not_found_error",
                                                                      "permission_error", "authentication_error"))
                else:  # canceled, expired
                    out[row.custom_id] = RowResult(row.custom_id, error=result.type, retry=True)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BatchError(f"{self.label}: the results of batch {batch_id} cannot be read "
                             f"({type(exc).__name__})") from None
        except self._errors as exc:
            raise status_error(exc, self._key, self.label) from None
        return out


def tool_name(prompt_name: str) -> str:
    """A valid tool name for the prompt (letters, digits, underscores and hyphens)."""
    return "write_" + "".join(c if c.isalnum() or c in "_-" else "_" for c in prompt_name)
