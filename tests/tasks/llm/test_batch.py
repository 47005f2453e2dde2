"""Batch mode against the mock batch APIs of both providers (tests/llm_mock/batches.py): a round goes out as one
batch at the batch price; only the rows that failed go again; invalid answers are repaired in the next batch; an
expired batch's missing rows go again; a killed build that starts again waits for the batch it sent instead of
sending it again; what cannot be batched is one clear error."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from schemas.config import ProviderConfig
from tasks.llm.batch import BatchError, BatchRunner
from tasks.llm.cache import CallCache
from tasks.llm.gateway import CallSpec, Gateway
from tasks.llm.limits import reset_limiters
from tests.llm_mock.prompts import stand_in_prompts
from tests.llm_mock.server import MockLLM

KEY = "sk-batch-Zp4Lm7Qx2Vb9Nc6Rt1Jw"  # shares no 8 characters with the other tests' keys (redaction is per process)


class Note(BaseModel):
    text: str


@pytest.fixture(autouse=True)
def fake_prompt(monkeypatch):
    stand_in_prompts(monkeypatch, lambda name, ctx: f'Write a note. Include "{ctx["word"]}" verbatim.',
                     {"note": lambda ctx, rng: {"text": f"template {ctx['word']}"}})
    monkeypatch.setenv("LLM_BATCH_KEY", KEY)
    reset_limiters()


@pytest.fixture
def mock():
    with MockLLM(api_key=KEY) as server:
        server.batch_script(delay_s=0.05)
        yield server


def gateway(mock, name, root=None, gather_s=0.0):
    url = mock.openai_url if name == "openai" else mock.anthropic_url
    config = ProviderConfig(name=name, model="mock-model", base_url=url, api_key_env="LLM_BATCH_KEY", mode="batch",
                            batch_poll_s=0.02, batch_poll_max_s=0.05, price_per_mtok_in=2.0, price_per_mtok_out=8.0,
                            batch_gather_s=gather_s)
    return Gateway(config, cache=CallCache(root))


def calls(n, offset=0, persona="p0000"):
    return [CallSpec("note", {"word": f"w{i}", "facts": [{"must_include": f"w{i}"}]}, Note, "dialogue", persona)
            for i in range(offset, offset + n)]


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_the_rounds_personas_start_together_go_out_as_one_batch(mock, name, tmp_path):
    """Two persona branches (a gateway each, as the flow makes them) start a round at the same moment: one batch
    holds both rounds, it is polled and read once, and each branch gets its own answers back."""
    from concurrent.futures import ThreadPoolExecutor

    gateways = [gateway(mock, name, tmp_path, gather_s=0.3) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda a: a[0].generate_many_traced(a[1]),
                                 [(gateways[0], calls(3, persona="p0000")), (gateways[1], calls(2, 10, "p0001"))])
    assert mock.book.created == [5]
    assert [r.text for r, _ in first] == ["w0", "w1", "w2"] and [r.text for r, _ in second] == ["w10", "w11"]
    assert len({row.batch_id for _, row in first + second}) == 1
    assert sorted((g.batches.stats["submitted"], g.batches.stats["joined"]) for g in gateways) == [(0, 1), (1, 0)]
    assert sum(g.batches.stats["ended"] for g in gateways) == 1  # read once for both
    alone = gateway(mock, name, tmp_path, gather_s=0.3).generate_many_traced(calls(2, 20))  # no one to wait for
    assert mock.book.created == [5, 2] and all(row.outcome == "ok" for _, row in alone)


def test_a_shared_batch_is_collected_only_once_every_persona_kept_its_answers(tmp_path):
    """Persona A keeps its answers and the build dies before persona B kept its own: the batch stays open for B's
    requests (the next run waits for it instead of sending them again) and is collected once B settles too."""
    from tasks.llm.batch import BatchRegistry

    registry = BatchRegistry(tmp_path)
    registry.record("batch_1", "openai", "m", ["a1", "a2", "b1"])
    assert not registry.settle("batch_1", {"a1", "a2"}, "completed")
    again = BatchRegistry(tmp_path)  # the next run
    assert again.open_batches("openai", "m", {"b1", "c1"}) == {"batch_1": {"b1"}}
    assert again.settle("batch_1", {"b1"}, "completed")
    assert again.open_batches("openai", "m", {"b1"}) == {} and not again.settle("nope", {"x"}, "completed")


def test_a_registry_written_before_shared_batches_is_read(tmp_path):
    import sqlite3

    from tasks.llm.batch import BatchRegistry

    con = sqlite3.connect(tmp_path / BatchRegistry.FILE)
    con.execute("create table batches (batch_id text primary key, provider text not null, model text not null, "
                "ids text not null, status text not null, sent_at real not null, collected_at real)")
    con.execute("""insert into batches values ('b_old', 'openai', 'm', '["x1"]', 'sent', 1.0, null)""")
    con.commit()
    con.close()
    registry = BatchRegistry(tmp_path)
    assert registry.open_batches("openai", "m", {"x1"}) == {"b_old": {"x1"}}
    assert registry.settle("b_old", {"x1"}, "completed") and registry.open_batches("openai", "m", {"x1"}) == {}


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_round_goes_out_as_one_batch_at_the_batch_price(mock, name):
    gw = gateway(mock, name)
    done = gw.generate_many_traced(calls(5))
    assert mock.book.created == [5]
    assert [r.text for r, _ in done] and all(f"w{i}" in r.text for i, (r, _) in enumerate(done))
    rows = [row for _, row in done]
    assert all(r.outcome == "ok" and r.batch_id and not r.fallback for r in rows)
    for r in rows:  # half the synchronous price
        assert r.cost_usd == pytest.approx((r.input_tokens * 2.0 + r.output_tokens * 8.0) / 1e6 / 2, rel=1e-6)
    assert mock.calls == 0  # no synchronous request


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_only_the_rows_that_failed_go_again(mock, name):
    mock.batch_script("row_error", "ok")
    done = gateway(mock, name).generate_many_traced(calls(4))
    assert mock.book.created == [4, 1]
    assert all(row.outcome == "ok" for _, row in done)


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_invalid_answers_are_repaired_in_the_next_batch_and_an_expired_batch_sends_its_missing_rows(mock, name):
    mock.batch_script("invalid", "ok")
    done = gateway(mock, name).generate_many_traced(calls(3))
    assert mock.book.created == [3, 3] and {row.outcome for _, row in done} == {"repaired"}
    mock.book.created.clear()
    mock.batch_script("expire", "ok")
    done = gateway(mock, name).generate_many_traced(calls(4, offset=10))
    assert mock.book.created == [4, 2] and all(row.outcome == "ok" for _, row in done)


def test_a_row_never_answered_falls_back_and_is_asked_again_next_run(mock, tmp_path):
    mock.batch_script("cancel", "cancel", "cancel")
    gw = gateway(mock, "openai", tmp_path)
    [(result, row)] = gw.generate_many_traced(calls(1))
    assert row.fallback and result.text == "template w0" and mock.book.created == [1, 1, 1]
    again = gateway(mock, "openai", tmp_path).generate_many_traced(calls(1))
    assert again[0][1].outcome == "ok" and mock.book.created == [1, 1, 1, 1]


def test_a_killed_build_waits_for_the_batch_it_sent_instead_of_sending_it_again(mock, tmp_path, monkeypatch):
    real_wait = BatchRunner.wait

    def killed(self, batch_id):
        raise KeyboardInterrupt("killed while waiting")

    monkeypatch.setattr(BatchRunner, "wait", killed)
    with pytest.raises(KeyboardInterrupt):
        gateway(mock, "anthropic", tmp_path).generate_many_traced(calls(3))
    assert mock.book.created == [3]
    monkeypatch.setattr(BatchRunner, "wait", real_wait)
    gw = gateway(mock, "anthropic", tmp_path)
    done = gw.generate_many_traced(calls(3))
    assert mock.book.created == [3] and gw.batches.stats["resumed"] == 1  # nothing sent twice
    assert all(row.outcome == "ok" for _, row in done)
    third = gateway(mock, "anthropic", tmp_path).generate_many_traced(calls(3))
    assert mock.book.created == [3] and all(row.cached for _, row in third)  # nothing paid twice


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_batch_sent_whose_reply_was_lost_is_found_not_sent_again(mock, name, tmp_path):
    """The provider accepts the batch but the reply never arrives (or the build dies before recording its id): the
    build stops with the error, and the next run finds that batch at the provider (OpenAI by the digest in its
    metadata, Anthropic by when it was made and its size) and waits for it instead of paying for it again."""
    from tasks.llm.providers.common import ProviderError

    mock.batch_script("lost")
    with pytest.raises(ProviderError):
        gateway(mock, name, tmp_path).generate_many_traced(calls(3))
    assert mock.book.created == [3]
    gw = gateway(mock, name, tmp_path)
    done = gw.generate_many_traced(calls(3))
    assert mock.book.created == [3] and gw.batches.stats["recovered"] == 1
    assert all(row.outcome == "ok" and row.batch_id for _, row in done)
    refused = gateway(mock, name, tmp_path)  # a batch the provider refused was never sent: nothing to look for
    mock.batch_script("reject")
    with pytest.raises(BatchError):
        refused.generate_many_traced(calls(2, 10))
    assert refused.batches.registry._con.execute("select count(*) from intents").fetchone() == (0,)
    assert mock.book.created == [3]
    later = gateway(mock, name, tmp_path)
    later.generate_many_traced(calls(2, 10))
    assert later.batches.stats["recovered"] == 0 and mock.book.created == [3, 2]


def test_a_repeated_request_in_a_round_is_asked_once(mock):
    done = gateway(mock, "openai").generate_many_traced(calls(2) + calls(1))
    assert mock.book.created == [2] and done[2][1].cached and done[2][0] == done[0][0]


@pytest.mark.parametrize("fault", ["garbage", "reject"])
@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_what_cannot_be_batched_is_one_clear_error(mock, name, fault):
    mock.batch_script(fault)
    with pytest.raises(BatchError) as found:
        gateway(mock, name).generate_many_traced(calls(2))
    message = str(found.value)
    assert ("cannot be read" in message) if fault == "garbage" else ("mode = \"sync\"" in message)
    assert KEY not in message


def test_the_offline_provider_is_never_batched():
    gw = Gateway(ProviderConfig(mode="batch"))
    assert gw.batches is None


def test_a_build_killed_during_a_repair_pays_for_no_batch_twice(mock, tmp_path, monkeypatch):
    """The first batch's answers fail validation and a repair batch goes out; the process dies while it waits. The
    next run collects both open batches again (their results stay at the provider) instead of sending them."""
    mock.batch_script("invalid", "ok")
    real_wait, waits = BatchRunner.wait, []

    def dies_on_the_second(self, batch_id):
        waits.append(batch_id)
        if len(waits) == 2:
            raise KeyboardInterrupt("killed while waiting for the repair")
        return real_wait(self, batch_id)

    monkeypatch.setattr(BatchRunner, "wait", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        gateway(mock, "openai", tmp_path).generate_many_traced(calls(2))
    assert mock.book.created == [2, 2]
    monkeypatch.setattr(BatchRunner, "wait", real_wait)
    done = gateway(mock, "openai", tmp_path).generate_many_traced(calls(2))
    assert mock.book.created == [2, 2] and {row.outcome for _, row in done} == {"repaired"}
