"""The one redactor: every string that can carry a provider error, header, URL or body passes through `redact`
before it is truncated, logged, raised, pickled, written to a table or sent to the Prefect API.

It masks, in this order:
1. every run of 8 or more characters of a configured key (the values of the environment variables a provider
   reads its key from, registered by `register_secret` as keys are read, plus the default variables), so a
   key cut short by an echoing endpoint or by truncation elsewhere is masked too;
2. values shaped like a key next to a name that says so (`api_key=...`, `"token": "..."`,
   `Authorization: Bearer ...`, `x-api-key: ...`, `?key=...`, `API key provided: ...`);
3. well-known key prefixes (`sk-...`, `sk-ant-...`, `key-...`).

`install_log_redaction` makes every log record of the process pass through it (a log record factory, so it
covers records of every logger and handler, Prefect's API log handler included). URLs are shown by
`display_url`, without credentials, query or fragment; `url_problem` says why a `base_url` is refused.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import traceback
from urllib.parse import parse_qsl, urlsplit, urlunsplit

MASK = "***"
MIN_RUN = 8
"""A configured key is masked wherever 8 of its characters appear in a row."""

DEFAULT_KEY_ENVS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")

_NAMES = (r"(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|secret[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret"
          r"|secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|password|passwd|authorization"
          r"|x-api-key)|key")
_VALUE = r"[A-Za-z0-9._~+/=\-]{8,}"
_NAMED = re.compile(
    rf"(?i)(?<![A-Za-z0-9_])((?:{_NAMES})(?![A-Za-z0-9_])[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?)"
    rf"({_VALUE})")
_BEARER = re.compile(rf"(?i)\b((?:bearer|basic)\s+|\bkey(?:\s+[a-z]+){{1,2}}\s*:\s*)({_VALUE})")
_PREFIXED = re.compile(r"\b(sk-ant|sk-proj|sk|key|rk|pk)-[A-Za-z0-9_\-]{6,}")
_KEYLIKE_PARAM = re.compile(rf"(?i)^(?:{_NAMES}|sig|signature|auth|credential|credentials|code)$")
_KEYLIKE_VALUE = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9._~+/=\-]{16,}$")

_lock = threading.RLock()  # reentrant: a log record made while the lock is held (by a __del__) redacts too
_secrets: set[str] = set()
_key_envs: set[str] = set(DEFAULT_KEY_ENVS)
_installed = False


def register_secret(value: str | None) -> None:
    """Remember a key this process uses (keys shorter than 8 characters cannot be matched and are ignored);
    installs the log redaction on first use."""
    if value and len(value) >= MIN_RUN:
        with _lock:
            _secrets.add(value)
    install_log_redaction()


def register_key_env(name: str | None) -> None:
    """Remember an environment variable that holds a key (its value is read when redacting)."""
    if name:
        with _lock:
            _key_envs.add(name)


def known_secrets() -> list[str]:
    """Every registered key and the current value of every key variable, longest first."""
    with _lock:
        found, names = set(_secrets), tuple(_key_envs)
    found |= {os.environ.get(n, "").strip() for n in names}
    return sorted((s for s in found if len(s) >= MIN_RUN), key=len, reverse=True)


def _mask_runs(text: str, secret: str) -> str:
    """`text` with every run of MIN_RUN or more characters that also occurs in `secret` masked."""
    grams = {secret[i:i + MIN_RUN] for i in range(len(secret) - MIN_RUN + 1)}
    starts = [i for i in range(len(text) - MIN_RUN + 1) if text[i:i + MIN_RUN] in grams]
    if not starts:
        return text
    out, end = [], 0
    for i in starts:
        if i > end:
            out.append(text[end:i] + MASK)
        elif not out:
            out.append(MASK)
        end = i + MIN_RUN
    return "".join(out) + text[end:]


def redact(text: str, *secrets: str | None) -> str:
    """`text` with the given secrets, every configured key and anything shaped like a key masked."""
    if not text:
        return text
    text = str(text)
    for secret in sorted({s for s in (*secrets, *known_secrets()) if s and len(s) >= MIN_RUN}, key=len,
                         reverse=True):
        text = _mask_runs(text, secret)
    text = _NAMED.sub(lambda m: m.group(1) + MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _PREFIXED.sub(lambda m: f"{m.group(1)}-{MASK}", text)


def clip(text: str, limit: int, *secrets: str | None) -> str:
    """Redacted first, then cut to `limit` characters (cutting first could leave part of a key unmatched)."""
    text = redact(text, *secrets)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact_mapping(values: dict[str, str], *secrets: str | None) -> dict[str, str]:
    """Headers (or any string mapping) with every value redacted and credential headers dropped."""
    drop = {"authorization", "x-api-key", "api-key", "cookie", "set-cookie", "proxy-authorization"}
    return {k: redact(str(v), *secrets) for k, v in values.items() if k.lower() not in drop}


def display_url(url: str | None) -> str | None:
    """The URL as lifeloom prints it: scheme, host, port and path only (no credentials, query or fragment)."""
    if url is None:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a provider's base_url (it carries credentials), or None when it is fine."""
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as exc:
        return f"base_url is not a valid URL ({exc})"
    if parts.username or parts.password:
        return "base_url must not carry credentials (user:password@); name the key's variable in api_key_env"
    for where, text in (("query string", parts.query), ("fragment", parts.fragment)):
        for name, value in parse_qsl(text, keep_blank_values=True) or ([("", text)] if text else []):
            if _KEYLIKE_PARAM.match(name) or _KEYLIKE_VALUE.match(value) or _PREFIXED.search(value):
                shown = f"parameter {name!r}" if name else "a key-like value"
                return (f"base_url's {where} holds {shown}, which looks like a credential; keys are never read "
                        "from config files or URLs: name the key's variable in api_key_env")
    return None


class _Factory:
    """A log record factory that redacts the message, its arguments and the traceback text of every record."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __call__(self, *args, **kwargs) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format: leave it to the handler's error path
            return record
        clean = redact(message)
        if clean != message:  # records left alone keep their arguments (uvicorn's access formatter reads them)
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            if redact(text) != text:
                record.exc_text = redact(text)
        return record


def install_log_redaction() -> None:
    """Make every log record of this process pass through `redact` (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    logging.setLogRecordFactory(_Factory(logging.getLogRecordFactory()))
