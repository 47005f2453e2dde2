"""The one JSON-lines reader: seed files, the bundled seeds, domain catalogs and prediction files all read with it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


class JSONLError(ValueError):
    """A line that is not JSON: `lineno` (1-based) and the decoder's `msg`."""

    def __init__(self, lineno: int, msg: str) -> None:
        super().__init__(f"line {lineno}: invalid JSON ({msg})")
        self.lineno, self.msg = lineno, msg


def iter_jsonl(lines: str | Iterable[str]) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank line of `lines` (a text or its lines), in order; JSONLError at the
    first line that does not parse."""
    for lineno, line in enumerate(lines.splitlines() if isinstance(lines, str) else lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise JSONLError(lineno, exc.msg) from None
