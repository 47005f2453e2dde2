"""The `openai` provider: OpenAI, or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) via base_url.

Structured output uses the chat completions `response_format` of type `json_schema`, strict when the
output model allows it. `finish_reason == "length"` marks the answer truncated (a failure, not data).
The SDK's own retries are off (`max_retries=0`): the gateway's limiter decides when to try again.
"""

from __future__ import annotations

import json

from schemas.config import ProviderConfig
from schemas.secrets import display_url
from tasks.llm.providers.common import SYSTEM, ProviderError, chat_messages, read_key, status_error, strict_schema
from tasks.llm.types import LLMRequest, LLMResponse


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
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": request.prompt_name, "schema": schema, "strict": bool(strict)}},
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
