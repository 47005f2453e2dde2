"""flows/runner.py: how many task threads a Dask worker runs."""

from __future__ import annotations

from flows.runner import threads_per_worker
from schemas.config import config_from_dict


def _config(**over):
    base = {"name": "t", "personas": 4, "runner": {"kind": "dask", "workers": 2, "max_active_personas": 6}}
    for key, value in over.items():
        base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
    return config_from_dict(base)


def test_offline_stages_get_one_thread_a_worker():
    assert threads_per_worker(_config()) == 1


def test_a_model_provider_gets_threads_for_every_branch_in_flight():
    # six branches on two workers: three threads each, so every branch can wait on its provider (a batch) at once
    assert threads_per_worker(_config(provider={"name": "openai", "model": "gpt-4o-mini"})) == 3
    one_stage = _config(stages={"providers": {"dialogue": {"name": "anthropic", "model": "claude-haiku-4-5"}}})
    assert threads_per_worker(one_stage) == 3


def test_the_config_s_own_setting_wins():
    assert threads_per_worker(_config(runner={"threads_per_worker": 4})) == 4
    assert threads_per_worker(_config(provider={"name": "openai", "model": "gpt-4o-mini"},
                                      runner={"threads_per_worker": 1})) == 1
