"""A local mock of the OpenAI chat completions and Anthropic messages APIs, for tests and bench.

`MockLLM` runs a threaded http.server on 127.0.0.1 (a free port) and answers:
- POST /v1/chat/completions (OpenAI; the schema comes from response_format.json_schema),
- POST /v1/messages (Anthropic; the schema is the forced tool's input_schema),
- GET /v1/models (both formats; Anthropic is told apart by its `anthropic-version` header).

Answers come from `answer(prompt_name, prompt, schema)`: by default `Oracle.answer`, which returns the
offline narrator's output for a prompt the gateway rendered in this process (see `Oracle.install`), and
otherwise a minimal instance of the JSON schema whose strings carry every quoted phrase of the prompt.

Faults, by a script consumed one per completion request (`mock.script(...)`) or at random
(`error_rate` + `error_kinds`, seeded): "429" (with Retry-After), "500", "timeout" (sleeps past the
client timeout), "badbody" (HTTP body that is not JSON), "malformed" (answer text that is not JSON),
"invalid" (JSON that violates the schema), "truncate" (finish_reason length / stop_reason max_tokens),
"omit" (valid JSON that leaves out the prompt's required phrases). Faults that echo the key the client sent,
as some providers and proxies do: "401echo" (short body), "401long" (the key past the first 300 characters),
"400long" (a permanent error with the key deep in its body), "500long" (the same, transient).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "timeout", "badbody", "malformed", "invalid", "truncate", "omit")
ECHO_FAULTS = {"401echo": (401, 0), "401long": (401, 200), "400long": (400, 200), "500long": (500, 200)}
"""fault -> (HTTP status, characters of preamble before the echoed key)."""


class Oracle:
    """Rendered prompt text -> the offline twin of the request, recorded as live gateways build requests.

    With it the mock answers exactly what the offline narrator would have, so a build on a real-provider
    code path (HTTP, SDK, limiter, cache, repair) lands the same corpus as an offline build.
    """

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def install(self, monkeypatch) -> Oracle:
        """Wrap Gateway.request so every live request's offline twin is remembered by prompt text."""
        from schemas.config import ProviderConfig
        from tasks.llm.gateway import Gateway

        real = Gateway.request
        offline = Gateway(ProviderConfig())

        def request(gw, prompt_name, context, output_model, sample=0):
            made = real(gw, prompt_name, context, output_model, sample)
            if gw.live:
                self.seen[made.prompt] = real(offline, prompt_name, context, output_model, sample)
            return made

        monkeypatch.setattr(Gateway, "request", request)
        self.offline = offline.provider
        return self

    def answer(self, prompt_name: str, prompt: str, schema: dict) -> dict:
        """The offline narrator's output for a known prompt, else a minimal schema instance."""
        if prompt in self.seen:
            return json.loads(self.offline.complete(self.seen[prompt]).text)
        return schema_instance(schema, prompt)


def quoted_phrases(prompt: str) -> list[str]:
    """Every double-quoted phrase in the prompt (where lifeloom's prompts put required wording)."""
    return list(dict.fromkeys(re.findall(r'"([^"\n<>{}]{2,80})"', prompt)))


def schema_instance(schema: dict, prompt: str = "") -> Any:
    """A minimal instance of `schema`; its strings carry the prompt's quoted phrases."""
    defs = schema.get("$defs", {})
    filler = " ".join(quoted_phrases(prompt)) or "ok"

    def build(node: dict) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node:
                options = [o for o in node[key] if o.get("type") != "null"] or node[key]
                return build(options[0])
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type", "object")
        if kind == "object":
            return {name: build(sub) for name, sub in node.get("properties", {}).items()}
        if kind == "array":
            return [build(node.get("items", {})) for _ in range(node.get("minItems", 0))]
        if kind in ("integer", "number"):
            return node.get("minimum", node.get("exclusiveMinimum", -1) + 1)
        if kind == "boolean":
            return False
        if node.get("format") == "date":
            return "2024-01-01"
        return filler.ljust(node.get("minLength", 0), ".")

    return build(schema)


def _blocks_text(content: Any) -> str:
    """A message's text: a string, or its text blocks joined."""
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return content


class MockLLM:
    """The mock server; use as a context manager or call start()/stop()."""

    def __init__(self, *, latency_s: float = 0.0, answer=None, api_key: str | None = None,
                 error_rate: float = 0.0, error_kinds: tuple[str, ...] = ("500",), retry_after: str = "1",
                 timeout_sleep_s: float = 3.0, models: tuple[str, ...] = ("mock-model",), seed: int = 0,
                 reject: str | None = None, limit_rpm: int | None = None, cached_share: float = 0.0,
                 cache_write_share: float = 0.0, prompt_cache: bool = False) -> None:
        self.latency_s, self.api_key, self.retry_after = latency_s, api_key, retry_after
        self.answer = answer or Oracle().answer
        self.error_rate, self.error_kinds, self.timeout_sleep_s = error_rate, error_kinds, timeout_sleep_s
        self.models = models
        self.reject = reject  # an ECHO_FAULTS name: how a wrong key is refused (default: a short echo)
        self.hits: Counter[str] = Counter()
        self.log: list[tuple[float, str, str]] = []
        self.in_flight = self.max_in_flight = 0
        self._script: deque[str] = deque()
        self.limit_rpm = limit_rpm
        self.cached_share, self.cache_write_share = cached_share, cache_write_share
        """Shares of each prompt's tokens reported as read from (and written to) the prompt cache, in each
        provider's usage format."""
        self.prompt_cache = prompt_cache
        """Anthropic's prompt cache as its documentation describes it: a message whose block carries
        `cache_control` writes the prefix up to that block (tools, system, then the message's blocks), and reads the
        longest prefix an earlier request wrote that ends at one of its block boundaries, at the mark or up to 20
        blocks before it (`cache_usage`). Tokens are counted as the mock counts them, four characters a token."""
        self._prefixes: set[str] = set()
        """A server-side limit: a completion request beyond `limit_rpm` started in the last 60 s gets a 429."""
        self._accepted: deque[float] = deque()
        from tests.llm_mock.batches import BatchBook

        self.book = BatchBook()
        """The batch APIs' files and batches (tests/llm_mock/batches.py)."""
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- control -----------------------------------------------------------------------------------
    def script(self, *faults: str) -> None:
        """Queue faults for the next completion requests ("ok" for a normal answer)."""
        with self._lock:
            self._script.extend(faults)

    @property
    def calls(self) -> int:
        """Completion requests received (both formats, any outcome)."""
        return self.hits["chat"] + self.hits["messages"]

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockLLM:
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> MockLLM:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def cache_usage(self, body: dict) -> tuple[int, int]:
        """(tokens read from the prompt cache, tokens written to it) for an Anthropic request (`prompt_cache`)."""
        content = body["messages"][0]["content"]
        if not isinstance(content, list):
            return 0, 0
        marks = [i for i, b in enumerate(content) if b.get("cache_control")]
        if not marks:
            return 0, 0
        head = json.dumps([body.get("tools"), body.get("system")], sort_keys=True)
        texts = [b.get("text", "") for b in content]
        prefix = [head + "\x1e".join(texts[:k]) for k in range(len(texts) + 1)]
        mark = marks[-1] + 1
        with self._lock:
            hit = next((k for k in range(mark, max(0, mark - 20) - 1, -1) if prefix[k] in self._prefixes), None)
            self._prefixes.add(prefix[mark])
        tokens = [len("".join(texts[:k])) // 4 for k in range(len(texts) + 1)]
        read = tokens[hit] if hit is not None else 0
        return read, tokens[mark] - read

    def next_fault(self, kind: str) -> str:
        with self._lock:
            self.hits[kind] += 1
            fault = self._script.popleft() if self._script else "ok"
            if fault == "ok" and self.error_rate and self._rng.random() < self.error_rate:
                fault = self._rng.choice(self.error_kinds)
            now = time.monotonic()
            if self.limit_rpm:
                while self._accepted and self._accepted[0] <= now - 60.0:
                    self._accepted.popleft()
                if len(self._accepted) >= self.limit_rpm:
                    fault = "429"
                else:
                    self._accepted.append(now)
            self.log.append((now, kind, fault))
            return fault

    def batch_script(self, *faults: str, delay_s: float | None = None) -> None:
        """Queue faults for the next batches created (tests/llm_mock/batches.py; "ok" for a clean one)."""
        with self.book.lock:
            self.book.script.extend(faults)
            if delay_s is not None:
                self.book.delay_s = delay_s

    def stats(self) -> dict[str, Any]:
        """What the server saw: completion requests, 429s it sent, the most in flight at once."""
        with self._lock:
            return {"requests": self.calls, "rate_limited": sum(1 for _, _, f in self.log if f == "429"),
                    "max_in_flight": self.max_in_flight,
                    "first": self.log[0][0] if self.log else None, "last": self.log[-1][0] if self.log else None}


class _Handler(BaseHTTPRequestHandler):
    mock: MockLLM
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 1 << 16  # one write per response (flushed by http.server after each request)

    def log_message(self, *args) -> None:  # quiet
        pass

    def send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def given_key(self) -> str:
        return self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")

    def echo(self, fault: str) -> None:
        """An error whose body quotes the key the client sent, after `preamble` characters of explanation."""
        status, preamble = ECHO_FAULTS[fault]
        text = ("The request was rejected by the upstream gateway after policy evaluation. " * 10)[:preamble]
        key = self.given_key()
        if preamble:  # the key at many offsets, so a cut anywhere in the first ~900 characters splits one of them
            text += "".join(f"[attempt {i}] Key provided: {key}; " for i in range(12))
        kind = {401: "authentication_error", 400: "invalid_request_error"}.get(status, "api_error")
        self.send(status, {"type": "error", "error": {"type": kind, "message": f"{text}Key provided: "
                                                      f"{key} (api_key={key})"}})

    def authorised(self) -> bool:
        if self.mock.api_key is None:
            return True
        given = self.given_key()
        if given == self.mock.api_key:
            return True
        if self.mock.reject in ECHO_FAULTS:
            self.echo(self.mock.reject)
            return False
        self.send(401, {"type": "error", "error": {"type": "authentication_error", "code": "invalid_api_key",
                                                  "message": f"Incorrect API key provided: {given}"}})
        return False

    def do_GET(self) -> None:
        if self.path == "/_stats":  # the bench's view of a server in another process (no key needed)
            return self.send(200, self.mock.stats())
        from tests.llm_mock import batches

        if batches.routes(self.path):
            return batches.get(self)
        if not self.path.startswith("/v1/models"):
            return self.send(404, {"error": {"message": "not found"}})
        if not self.authorised():
            return None
        if self.headers.get("anthropic-version"):
            data = [{"type": "model", "id": m, "display_name": m, "created_at": "2024-01-01T00:00:00Z"}
                    for m in self.mock.models]
            return self.send(200, {"data": data, "has_more": False, "first_id": None, "last_id": None})
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "mock"} for m in self.mock.models]
        return self.send(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        from tests.llm_mock import batches

        if batches.routes(self.path):
            return batches.post(self)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        kind = "chat" if self.path.endswith("/chat/completions") else "messages"
        if not self.authorised():
            return
        with self.mock._lock:
            self.mock.in_flight += 1
            self.mock.max_in_flight = max(self.mock.max_in_flight, self.mock.in_flight)
        try:
            self.answer(kind, body)
        finally:
            with self.mock._lock:
                self.mock.in_flight -= 1

    def answer(self, kind: str, body: dict) -> None:
        fault = self.mock.next_fault(kind)
        time.sleep(self.mock.latency_s)
        if fault in ECHO_FAULTS:
            return self.echo(fault)
        if fault == "429":
            return self.send(429, {"error": {"type": "rate_limit_error", "message": "slow down"}},
                             {"retry-after": self.mock.retry_after})
        if fault == "500":
            return self.send(500, {"error": {"type": "api_error", "message": "boom"}})
        if fault == "timeout":
            time.sleep(self.mock.timeout_sleep_s)
        if fault == "badbody":
            return self.send(200, b"{this is not json")
        name, prompt, schema = parse_request(kind, body)
        answer = self.mock.answer(name, prompt, schema)
        if fault == "omit":
            answer = schema_instance(schema, "")
        text = json.dumps(answer)
        if fault == "invalid":
            answer, text = {"unexpected": 1}, '{"unexpected": 1}'
        if fault == "malformed":
            text = text[: len(text) // 2] + "<<<"
        if fault == "truncate":
            text = text[: len(text) // 2]
        usage = (len(prompt) // 4, len(text) // 4)
        cache = (int(usage[0] * self.mock.cached_share), int(usage[0] * self.mock.cache_write_share))
        if self.mock.prompt_cache and kind == "messages":
            cache = self.mock.cache_usage(body)
        if kind == "chat":
            return self.send(200, chat_completion(text, fault == "truncate", usage, cache[0]))
        return self.send(200, message(body, answer, text, fault, usage, cache))


def parse_request(kind: str, body: dict) -> tuple[str, str, dict]:
    """(prompt name, the first user message, the output schema) of a request in either format."""
    first = _blocks_text(body["messages"][0 if kind == "messages" else 1]["content"])
    if kind == "chat":
        spec = body["response_format"]["json_schema"]
        return spec["name"], first, spec["schema"]
    tool = body["tools"][0]
    return tool["name"].removeprefix("write_"), first, tool["input_schema"]


def chat_completion(text: str, truncated: bool, usage: tuple[int, int], cached: int = 0) -> dict:
    """A chat completion; `cached` of the prompt tokens read from the prompt cache (OpenAI counts them in
    prompt_tokens and again in prompt_tokens_details)."""
    return {
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "length" if truncated else "stop",
                     "message": {"role": "assistant", "content": text, "refusal": None}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage),
                  "prompt_tokens_details": {"cached_tokens": cached}},
    }


def message(body: dict, answer: Any, text: str, fault: str, usage: tuple[int, int],
            cache: tuple[int, int] = (0, 0)) -> dict:
    """A message; `cache` (read, written) of the prompt tokens, which Anthropic counts apart from input_tokens."""
    if fault == "malformed":
        content = [{"type": "text", "text": text}]
    else:
        tool_input = {} if fault == "truncate" else answer
        content = [{"type": "tool_use", "id": "toolu_mock", "name": body["tools"][0]["name"], "input": tool_input}]
    return {
        "id": "msg_mock", "type": "message", "role": "assistant", "model": body.get("model", "mock-model"),
        "content": content, "stop_reason": "max_tokens" if fault == "truncate" else "tool_use",
        "stop_sequence": None, "usage": {"input_tokens": usage[0] - sum(cache), "output_tokens": usage[1],
                                         "cache_read_input_tokens": cache[0],
                                         "cache_creation_input_tokens": cache[1]},
    }
