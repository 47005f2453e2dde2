"""The mock's batch APIs: OpenAI's files and batches (`/v1/files`, `/v1/batches`) and Anthropic's Message Batches
(`/v1/messages/batches`), answering each row as the mock answers a synchronous request.

A batch ends `batch_delay_s` after it was created. Faults are scripted per batch (`MockLLM.batch_script`):
- `row_error`: the batch's first row fails with a server error (OpenAI: in the error file; Anthropic: errored);
- `expire`: the batch expires with only its first half answered;
- `garbage`: the results file is not JSONL;
- `invalid`: every row answers JSON that does not validate;
- `reject`: creating the batch is refused (400: the model has no batch);
- `cancel`: the batch ends cancelled with no row answered;
- `lost`: the batch is created, but the reply to the create request is a server error (the client never learns its
  id: a lost reply, or a build killed before it recorded it).

Both list endpoints (`GET /v1/batches`, `GET /v1/messages/batches`) answer newest first, as the providers do.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections import deque
from email import policy
from email.parser import BytesParser
from typing import Any


class BatchBook:
    """Files and batches the mock holds, and what it was asked."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.script: deque[str] = deque()
        self.created: list[int] = []  # rows of each batch created, in order
        self.delay_s = 0.0
        self.lock = threading.Lock()

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{len(self.files) + len(self.batches) + 1:04d}"


def routes(path: str) -> bool:
    return path.startswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))


def post(handler) -> None:
    book: BatchBook = handler.mock.book
    raw = handler.rfile.read(int(handler.headers.get("content-length", 0)))
    if not handler.authorised():
        return None
    if handler.path == "/v1/files":
        content = _multipart_file(handler.headers.get("content-type", ""), raw)
        with book.lock:
            file_id = book.new_id("file-")
            book.files[file_id] = content
        return handler.send(200, {"id": file_id, "object": "file", "bytes": len(content), "created_at": 0,
                                  "filename": "batch.jsonl", "purpose": "batch", "status": "processed"})
    body = json.loads(raw or b"{}")
    if handler.path == "/v1/batches":
        rows = [json.loads(line) for line in book.files[body["input_file_id"]].decode().splitlines() if line]
        return _create(handler, "openai", [(r["custom_id"], r["body"]) for r in rows], body)
    if handler.path == "/v1/messages/batches":
        return _create(handler, "anthropic", [(r["custom_id"], r["params"]) for r in body["requests"]], body)
    if handler.path.endswith("/cancel"):
        batch = book.batches[handler.path.split("/")[-2]]
        batch["fault"] = "cancel"
        batch["ends"] = time.monotonic()
        return handler.send(200, _view(handler, batch))
    return handler.send(404, {"error": {"message": "not found"}})


def get(handler) -> None:
    book: BatchBook = handler.mock.book
    if not handler.authorised():
        return None
    parts = handler.path.split("?")[0].split("/")
    if parts[1:] in (["v1", "batches"], ["v1", "messages", "batches"]):  # the list, newest first
        api = "openai" if parts[2] == "batches" else "anthropic"
        views = [_view(handler, b) for b in reversed(list(book.batches.values())) if b["api"] == api]
        return handler.send(200, {"object": "list", "data": views, "has_more": False,
                                  "first_id": views[0]["id"] if views else None,
                                  "last_id": views[-1]["id"] if views else None})
    if handler.path.startswith("/v1/files/") and handler.path.endswith("/content"):
        data = book.files.get(parts[3])
        if data is None:
            return handler.send(404, {"error": {"message": "no such file"}})
        return handler.send(200, data)
    if handler.path.endswith("/results"):
        batch = book.batches[parts[-2]]
        _finish(handler, batch)
        return handler.send(200, batch["results"])
    batch = book.batches.get(parts[-1])
    if batch is None:
        return handler.send(404, {"error": {"message": "no such batch"}})
    return handler.send(200, _view(handler, batch))


def _multipart_file(content_type: str, raw: bytes) -> bytes:
    message = BytesParser(policy=policy.default).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            return part.get_payload(decode=True)
    raise ValueError("no file in the upload")


def _create(handler, api: str, rows: list[tuple[str, dict]], body: dict) -> None:
    book: BatchBook = handler.mock.book
    with book.lock:
        fault = book.script.popleft() if book.script else "ok"
        if fault == "reject":
            return handler.send(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "this model does not support batch requests"}})
        batch_id = book.new_id("batch_" if api == "openai" else "msgbatch_")
        book.batches[batch_id] = {"id": batch_id, "api": api, "rows": rows, "fault": fault, "body": body,
                                  "ends": time.monotonic() + book.delay_s, "results": None, "created": time.time()}
        book.created.append(len(rows))
    if fault == "lost":
        return handler.send(500, {"error": {"type": "api_error", "message": "the connection was reset"}})
    return handler.send(200, _view(handler, book.batches[batch_id]))


def _finish(handler, batch: dict) -> None:
    """Answer the batch's rows once, when it has ended."""
    if batch["results"] is not None or time.monotonic() < batch["ends"]:
        return
    from tests.llm_mock.server import chat_completion, message, parse_request

    fault, api, rows = batch["fault"], batch["api"], batch["rows"]
    answered = rows[: len(rows) // 2] if fault == "expire" else [] if fault == "cancel" else rows
    out, errors = [], []
    for n, (cid, body) in enumerate(answered):
        if fault == "row_error" and n == 0:
            if api == "openai":
                errors.append({"custom_id": cid, "response": {"status_code": 500, "body": {
                    "error": {"message": "boom"}}}, "error": None})
            else:
                out.append({"custom_id": cid, "result": {"type": "errored", "error": {
                    "type": "error", "error": {"type": "api_error", "message": "boom"}}}})
            continue
        kind = "chat" if api == "openai" else "messages"
        name, prompt, schema = parse_request(kind, body)
        answer = handler.mock.answer(name, prompt, schema) if fault != "invalid" else {"unexpected": 1}
        text = json.dumps(answer)
        usage = (len(prompt) // 4, len(text) // 4)
        if api == "openai":
            out.append({"custom_id": cid, "response": {"status_code": 200, "body": chat_completion(
                text, False, usage)}, "error": None})
        else:
            cache = handler.mock.cache_usage(body) if handler.mock.prompt_cache else (0, 0)
            out.append({"custom_id": cid, "result": {"type": "succeeded", "message": message(
                body, answer, text, "ok", usage, cache)}})
    if api == "anthropic":
        out += [{"custom_id": cid, "result": {"type": "expired" if fault == "expire" else "canceled"}}
                for cid, _ in rows[len(answered):]]
    book: BatchBook = handler.mock.book
    if api == "openai":
        batch["output"] = book.new_id("file-")
        book.files[batch["output"]] = b"{not jsonl" if fault == "garbage" else \
            "\n".join(json.dumps(r) for r in out).encode()
        batch["errors"] = None
        if errors:
            batch["errors"] = book.new_id("file-")
            book.files[batch["errors"]] = "\n".join(json.dumps(r) for r in errors).encode()
        batch["results"] = b""
    else:
        batch["results"] = b"{not jsonl" if fault == "garbage" else "\n".join(json.dumps(r) for r in out).encode()


def _view(handler, batch: dict) -> dict:
    """The batch as the API describes it."""
    _finish(handler, batch)
    ended = batch["results"] is not None
    if batch["api"] == "openai":
        status = ("expired" if batch["fault"] == "expire" else "cancelled" if batch["fault"] == "cancel"
                  else "completed") if ended else "in_progress"
        return {"id": batch["id"], "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
                "input_file_id": batch["body"].get("input_file_id"), "completion_window": "24h", "status": status,
                "output_file_id": batch.get("output") if ended else None,
                "error_file_id": batch.get("errors") if ended else None, "created_at": int(batch["created"]),
                "metadata": batch["body"].get("metadata"),
                "request_counts": {"total": len(batch["rows"]), "completed": 0, "failed": 0}}
    now = dt.datetime.now(dt.UTC).isoformat()
    created = dt.datetime.fromtimestamp(batch["created"], dt.UTC).isoformat()
    base = f"http://127.0.0.1:{handler.mock.port}"
    return {"id": batch["id"], "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
            "request_counts": {"processing": 0 if ended else len(batch["rows"]),
                               "succeeded": len(batch["rows"]) if ended else 0, "errored": 0, "canceled": 0,
                               "expired": 0},
            "created_at": created, "expires_at": now, "ended_at": now if ended else None, "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{base}/v1/messages/batches/{batch['id']}/results" if ended else None}
