"""`mentions`: a whole-phrase match, the same with the ASCII fast path as with the compiled pattern."""

from __future__ import annotations

import random

from tasks.common.facttext import mentions, phrase_pattern


def test_whole_phrases_only():
    assert mentions("We moved to New York in May.", "new york")
    assert not mentions("Newcastle is far.", "new")
    assert not mentions("a_cat sat", "cat") and not mentions("cats sat", "cat")
    assert mentions("Tom's bike", "Tom's") and mentions("at the café", "café")


def test_the_fast_path_agrees_with_the_pattern():
    rng = random.Random(7)
    words = ["cat", "Cat", "cats", "a_cat", "cat1", "the", "Tom's", "New York", "york", "new", "-", ".", "x", "é"]
    forms = ["cat", " Cat ", "new york", "Tom's", "a_cat", "york", "cats", "x", "Cat.", "s"]
    for _ in range(5000):
        text = "".join(rng.choice(words) + rng.choice(["", " ", ",", "'", "_", "-"]) for _ in range(rng.randint(0, 8)))
        form = rng.choice(forms)
        assert mentions(text, form) == (phrase_pattern(form).search(text) is not None), (text, form)
