"""The grammar verdict cache: a sentence is parsed once per machine, the measure is the same with it or not."""

from __future__ import annotations

import pytest

from tasks.metrics import grammar
from warehouse.parsecache import ENV, ParseCache, cache_path, default_cache

needs_grammar = pytest.mark.skipif(not grammar.available(), reason="Link Grammar is not installed")


def test_the_cache_lives_where_the_environment_says_and_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "v.sqlite"))
    assert cache_path("k") == tmp_path / "v.sqlite"
    monkeypatch.setenv(ENV, "off")
    assert cache_path("k") is None and default_cache() is None
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_path("k1").parent == tmp_path / "lifeloom" and cache_path("k1") != cache_path("k2")


def test_verdicts_round_trip_and_an_unusable_path_is_skipped(tmp_path):
    cache = ParseCache(tmp_path / "c.sqlite")
    assert cache.get("a cat sat.") == (False, None)
    for sentence, verdict in (("a cat sat.", True), ("cat the sat a.", False), ("too slow.", None)):
        cache.put(sentence, verdict)
    again = ParseCache(tmp_path / "c.sqlite")  # another process reads what this one wrote
    assert [again.get(s) for s in ("a cat sat.", "cat the sat a.", "too slow.")] == [(True, True), (True, False),
                                                                                      (True, None)]
    (tmp_path / "file").write_text("x")
    broken = ParseCache(tmp_path / "file" / "c.sqlite")  # a file where the folder should be
    broken.put("a cat sat.", True)
    assert broken.get("a cat sat.") == (False, None)


@needs_grammar
def test_a_cached_sentence_is_not_parsed_again(tmp_path):
    cache = ParseCache(tmp_path / "c.sqlite")
    sentence = "The cat sat on the mat."
    assert grammar.parses(sentence, cache) is True
    found, verdict = cache.get(grammar.fold(sentence))
    assert found and verdict is True
    cache.put(grammar.fold(sentence), False)  # a planted verdict is what comes back: no parse ran
    assert grammar.parses(sentence, cache) is False
    assert grammar.parses(sentence) is True


@needs_grammar
def test_a_stage_checking_question_forms_reads_the_remembered_cache(tmp_path):
    """`remembering` hands the cache to callers that pass none (the question forms' check within a stage)."""
    cache = ParseCache(tmp_path / "c.sqlite")
    sentence = "The dog ran to the park."
    cache.put(grammar.fold(sentence), False)  # planted: a parse would say True
    with grammar.remembering(cache):
        assert grammar.parses(sentence) is False
        assert grammar.parses("A bird sang in the tree.") is True
    assert cache.get(grammar.fold("A bird sang in the tree.")) == (True, True)  # written through
    assert grammar.parses(sentence) is True  # outside the block: no cache
