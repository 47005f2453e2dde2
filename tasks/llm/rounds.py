"""Call chains run in rounds: concurrency for sequences of dependent model calls.

A chain is a generator that yields a `CallSpec`, receives the validated output, and eventually returns
its result (a dialogue session is one: each turn sees the turns before it). `run_rounds` advances every
chain to its next call, sends all of those calls in one `Gateway.generate_many` (in chain order), hands
each chain its answer, and repeats until every chain has returned. Which call lands in which round
depends only on the chains, never on timing, so results and ledger rows are the same at any concurrency.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from pydantic import BaseModel

from tasks.llm.gateway import CallSpec, Gateway

T = TypeVar("T")
Chain = Generator[CallSpec, BaseModel, T]


def run_rounds(gateway: Gateway, chains: list[Chain[T]]) -> list[T]:
    """Every chain's return value, in chain order."""
    results: list[Any] = [None] * len(chains)
    waiting: dict[int, CallSpec] = {}

    def advance(i: int, answer: BaseModel | None) -> None:
        try:
            waiting[i] = chains[i].send(answer)  # type: ignore[arg-type]
        except StopIteration as stop:
            results[i] = stop.value

    for i in range(len(chains)):
        advance(i, None)
    while waiting:
        order = sorted(waiting)
        answers = gateway.generate_many([waiting.pop(i) for i in order])
        for i, answer in zip(order, answers, strict=True):
            advance(i, answer)
    return results
