"""The gateway's batch path (`[provider] mode = "batch"`; tasks/llm/batch.py says what batch mode promises).

`batch_round(gateway, specs)` answers a round of calls as `generate_many_traced` does, through batches: the
requests the call cache does not hold go out together (identical requests once), each answer is judged as a
synchronous one is (truncation, validation, the prompt's hard check), the answers that fail go out again in the
next batch with the error fed back, up to the gateway's `max_attempts`; rows the provider could not answer (a
server error, an expired or cancelled batch) go again too, and what is left falls back to the offline narrator's
template (`fallback`, flagged as for a synchronous call). Final entries go to the call cache as they arrive, so a
killed build that starts again pays only for what it had not received. Every call leaves one ledger row, with
the batch that answered it and the batch price.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import BaseModel

from schemas.config import ProviderConfig
from schemas.llm import LLMCall
from tasks.llm.batch import LIVE, BatchRegistry, BatchRunner, custom_id, pool_for
from tasks.llm.cache import CallCache

if TYPE_CHECKING:
    from tasks.llm.gateway import CallSpec, Gateway


def runner_for(config: ProviderConfig, provider, cache: CallCache) -> BatchRunner:
    """The batch runner of a gateway in batch mode; a provider with no batch API is refused at once."""
    from tasks.llm.providers.common import ProviderUnavailable

    if not hasattr(provider, "batch_submit"):
        raise ProviderUnavailable(f"provider {provider.name!r} has no batch API; set [provider] mode = \"sync\"")
    key = (provider.name, provider.model, config.base_url, config.api_key_env, str(cache.root))
    return BatchRunner(provider, BatchRegistry(cache.root), config.batch_poll_s, config.batch_poll_max_s,
                       config.batch_timeout_h * 3600, pool=pool_for(key, config.batch_gather_s))


def batch_round(gw: Gateway, specs: list[CallSpec]) -> list[tuple[BaseModel, LLMCall]]:
    """`generate_many_traced` through the provider's batch API (module doc)."""
    started = time.perf_counter()
    requests = [gw.request(s.prompt_name, s.context, s.output_model, s.sample) for s in specs]
    done: dict[int, tuple[BaseModel, LLMCall]] = {}
    first: dict[str, int] = {}  # call key -> the first spec asking it (a repeated request is asked once)
    todo: list[int] = []
    for i, (spec, req) in enumerate(zip(specs, requests, strict=True)):
        cached = gw.cache.get(req.call_key)
        if cached is not None:
            done[i] = (spec.output_model.model_validate(cached["output"]),
                       gw._row(req, spec, cached, started, cached=True))
        elif req.call_key not in first:
            first[req.call_key] = i
            todo.append(i)
    usage = {i: {"input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "cache_write_tokens": 0,
                 "cost_usd": 0.0, "requests": 0} for i in todo}
    notes: dict[int, tuple[str | None, str | None]] = {i: (None, None) for i in todo}
    errors: dict[int, str] = {}
    answers = dict.fromkeys(todo, 0)
    batch_of: dict[int, str] = {}
    for attempt in range(1, gw.max_attempts + 1):
        if not todo:
            break
        ids = {custom_id(requests[i].call_key, attempt): i for i in todo}
        sent = {cid: requests[i].model_copy(update={"repair_note": notes[i][0], "previous_answer": notes[i][1]})
                for cid, i in ids.items()}
        results, source = gw.batches.run(sent)
        again = []
        for cid, i in ids.items():
            found, spec, req = results[cid], specs[i], requests[i]
            usage[i]["requests"] += 1
            batch_of[i] = source.get(cid, "")
            if found.response is None:
                errors[i] = found.error or "no answer"
                if found.retry:
                    again.append(i)
                else:
                    done[i] = _fallen(gw, spec, req, attempt, usage[i], errors[i], started, batch_of[i], retry=False)
                continue
            response = found.response
            for key in ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens"):
                usage[i][key] += getattr(response, key)
            cost = gw._price.cost(response.input_tokens, response.output_tokens, response.cached_input_tokens,
                                  response.cache_write_tokens, batch=True) if gw._price is not None else 0.0
            usage[i]["cost_usd"] += cost
            LIVE.add(cost_usd=cost)
            answers[i] += 1
            result, note = gw._judge(req, response, spec.output_model)
            if result is None:
                notes[i], errors[i] = (note, response.text[:4000]), note or ""
                again.append(i)
                continue
            entry = gw._entry(result, "ok" if answers[i] == 1 else "repaired", attempt, usage[i])  # a row sent
            # again after a server error is no repair
            gw.cache.put(req.call_key, entry, req.prompt_name)
            done[i] = (result, gw._row(req, spec, entry, started, cached=False, batch_id=batch_of[i]))
        todo = again
    for i in todo:  # still unanswered or invalid after every attempt
        transient = notes[i] == (None, None)  # never answered at all: ask again next run
        done[i] = _fallen(gw, specs[i], requests[i], gw.max_attempts, usage[i], errors.get(i, ""), started,
                          batch_of.get(i), retry=transient)
    gw.batches.settle()  # every answer of the round is final and cached: its batches are done with (a crash before
    # this leaves them open, and the next run collects them again, repairs included, instead of paying again)
    for i, req in enumerate(requests):
        if i not in done:  # a repeat of an earlier request in this round: its answer, from the cache
            j = first[req.call_key]
            done[i] = (done[j][0], done[j][1].model_copy(update={"cached": True, "cost_usd": 0.0, "requests": 0,
                                                                   "batch_id": None}))
    return [done[i] for i in range(len(specs))]


def _fallen(gw: Gateway, spec: CallSpec, req, attempts: int, usage: dict, error: str, started: float,
            batch_id: str | None, retry: bool) -> tuple[BaseModel, LLMCall]:
    entry, result = gw._fallback(req, spec.output_model, attempts, usage, error, retry=retry)
    gw.cache.put(req.call_key, entry, req.prompt_name)
    return result, gw._row(req, spec, entry, started, cached=False, batch_id=batch_id)
