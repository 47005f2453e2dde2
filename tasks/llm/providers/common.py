"""What the real providers share: keys from the environment, messages, schemas, error mapping."""

from __future__ import annotations

import copy
import os
import re
from typing import Any

from schemas.config import ProviderConfig
from schemas.secrets import clip, display_url, redact_mapping, register_key_env, register_secret
from schemas.secrets import redact as _redact

SYSTEM = (
    "You write narration for lifeloom, a synthetic long-term personal-memory benchmark. A symbolic world "
    "model has fixed every fact; you only put them into words. Follow the user's instructions exactly and "
    "answer with one JSON object that matches the given schema, nothing else."
)

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class ProviderUnavailable(RuntimeError):
    """A provider that cannot be used here (missing key, missing client, unreachable endpoint)."""


class ProviderError(RuntimeError):
    """A failed request. kind: rate_limit, transient (5xx, timeout, connection), permanent (4xx), fatal (auth)."""

    def __init__(self, message: str, kind: str, status: int | None = None, retry_after: float | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.kind, self.status, self.retry_after, self.headers = kind, status, retry_after, headers or {}

    @property
    def transient(self) -> bool:
        return self.kind in ("rate_limit", "transient")


def key_env(config: ProviderConfig) -> str:
    """The environment variable that holds the provider's key."""
    return config.api_key_env or DEFAULT_KEY_ENV.get(config.name, "")


def key_required(config: ProviderConfig) -> bool:
    """Official endpoints need a key; a self-hosted base_url (vLLM, Ollama) only when api_key_env is set."""
    return config.base_url is None or config.api_key_env is not None


def read_key(config: ProviderConfig) -> str:
    """The key from the environment; raises ProviderUnavailable naming the variable when it is missing."""
    name = key_env(config)
    register_key_env(name)
    value = os.environ.get(name, "").strip() if name else ""
    if value:
        register_secret(value)
        return value
    if key_required(config):
        where = display_url(config.base_url) or f"the {config.name} API"
        raise ProviderUnavailable(
            f"provider {config.name!r} (model {config.model!r}, {where}) needs an API key: "
            f"set the environment variable {name} (keys are never read from config files)"
        )
    return "not-needed"


def redact(text: str, secret: str | None = None) -> str:
    """`text` with the secret, every configured key and anything shaped like a key masked (schemas.secrets)."""
    return _redact(text, secret)


def answer_name(request) -> str:
    """The name the structured answer is given (OpenAI's json_schema name, Anthropic's tool): the output model's,
    so every prompt answered with the same model sends the same schema or tool first, and their requests can share
    a cached prefix (a name per prompt would make each prompt's requests start differently)."""
    title = str(request.output_schema.get("title") or request.prompt_name)
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", title).lower()  # TurnText: turn_text
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in snake)[:64]


def chat_messages(request, cache_marks: bool = False) -> list[dict]:
    """The conversation after the system message: the prompt, then the failed answer and the repair note.

    With `cache_marks` (Anthropic) a prompt of several blocks is sent as text blocks, and the block that ends its
    stable prefix carries `cache_control` (tasks/llm/prompts.py): the provider caches everything up to it, and a
    later request whose blocks start the same reads it back (Anthropic looks up earlier block boundaries too, so a
    conversation's next call reads what the previous one wrote)."""
    content: str | list[dict] = request.prompt
    if cache_marks and request.blocks:
        content = [{"type": "text", "text": block} for block in request.blocks]
        if request.cached_blocks:
            content[request.cached_blocks - 1]["cache_control"] = {"type": "ephemeral"}
    messages = [{"role": "user", "content": content}]
    if request.repair_note:
        if request.previous_answer:
            messages.append({"role": "assistant", "content": request.previous_answer})
        messages.append({"role": "user", "content": f"{request.repair_note}\nAnswer again with corrected JSON."})
    return messages


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with `$ref`s into `$defs` replaced by their definitions (no recursion expected)."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = defs[node["$ref"].rsplit("/", 1)[-1]]
                return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}})
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """An OpenAI strict-mode version of the schema, or None when the schema does not allow it.

    Strict mode needs every object to list all its properties as required and forbid extra ones;
    a model with optional fields (defaults) or free-form dicts stays non-strict.
    """
    out = copy.deepcopy(schema)
    ok = True

    def walk(node: Any) -> None:
        nonlocal ok
        if isinstance(node, dict):
            node.pop("default", None)
            if node.get("type") == "object" or "properties" in node:
                props = node.get("properties")
                if not props or set(node.get("required", [])) != set(props) or node.get("additionalProperties"):
                    ok = False
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out if ok else None


def status_error(exc: Exception, secret: str | None, label: str) -> ProviderError:
    """A ProviderError for an SDK exception (the OpenAI and Anthropic SDKs share the shape)."""
    from tasks.llm.limits import parse_retry_after

    status = getattr(exc, "status_code", None)
    response = getattr(exc, "response", None)
    headers = redact_mapping({k.lower(): v for k, v in response.headers.items()}, secret) if response is not None \
        else {}
    message = clip(f"{label}: {type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}", 400,
                   secret)
    if status is None:
        return ProviderError(message, "transient")
    if status == 429:
        return ProviderError(message, "rate_limit", status, parse_retry_after(headers), headers)
    if status in (401, 403, 404):
        return ProviderError(message, "fatal", status, headers=headers)
    if status in (408, 409) or status >= 500:
        return ProviderError(message, "transient", status, parse_retry_after(headers), headers)
    return ProviderError(message, "permanent", status, headers=headers)


def batch_refused(error: ProviderError) -> Exception:
    """The error of a provider that will not take a batch: a 4xx names what it refused (a model without batch, a
    file it cannot read) as a BatchError; anything else stays a ProviderError the caller may retry."""
    from tasks.llm.batch import BatchError

    if error.kind in ("permanent", "fatal"):
        return BatchError(f"{error} (batch mode: does this provider offer its batch API for the model? "
                          "set [provider] mode = \"sync\" to call it directly)")
    return error
