"""Relative-time phrases: describe/agrees round-trip, find on sample sentences, weekday and month rules."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.dialogue.relativetime import agrees, describe, find, resolve

WED = dt.date(2024, 3, 13)  # a Wednesday


def ago(days: int, on: dt.date = WED) -> dt.date:
    return on - dt.timedelta(days=days)


@settings(max_examples=400, deadline=None)
@given(
    on=st.dates(min_value=dt.date(2023, 1, 1), max_value=dt.date(2026, 12, 31)),
    gap=st.integers(min_value=0, max_value=800),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_every_described_phrase_agrees_with_its_date(on, gap, seed):
    ref = on - dt.timedelta(days=gap)
    phrase = describe(ref, on, random.Random(seed))
    assert agrees(phrase, ref, on), (phrase, ref, on)
    start, end = resolve(phrase, on)
    assert start <= ref <= end <= on
    assert find(f"It happened {phrase}.") == [phrase]


def test_describe_covers_every_gap_of_two_years_from_every_weekday():
    for on in (WED + dt.timedelta(days=k) for k in range(7)):
        for gap in range(0, 731):
            ref = ago(gap, on)
            phrases = {describe(ref, on, random.Random(seed)) for seed in range(8)}
            assert all(agrees(p, ref, on) for p in phrases), (gap, on, phrases)


def test_describe_varies_with_the_rng_and_rejects_the_future():
    assert len({describe(ago(3), WED, random.Random(s)) for s in range(40)}) > 1
    with pytest.raises(ValueError):
        describe(WED + dt.timedelta(days=1), WED, random.Random(0))


def test_describe_picks_the_gap_s_phrases():
    assert {describe(WED, WED, random.Random(s)) for s in range(30)} == {"today", "earlier today"}
    assert {describe(ago(1), WED, random.Random(s)) for s in range(30)} == {"yesterday"}
    assert "the day before yesterday" in {describe(ago(2), WED, random.Random(s)) for s in range(60)}
    assert {describe(ago(70), WED, random.Random(s)) for s in range(30)} == {"two months ago", "back in January"}


def test_a_planted_wrong_phrase_disagrees():
    assert not agrees("three days ago", ago(1), WED)
    assert not agrees("yesterday", ago(3), WED)
    assert not agrees("two weeks ago", ago(3), WED)
    assert not agrees("last week", ago(1), WED)
    assert not agrees("a month ago", ago(90), WED)
    assert not agrees("the other day", ago(1), WED)  # vague: outside the grammar


def test_find_keeps_case_skips_punctuation_and_prefers_the_longest_phrase():
    text = "Yesterday was long. The day before yesterday, too! About two weeks ago; just over a week ago."
    assert find(text) == ["Yesterday", "The day before yesterday", "About two weeks ago", "just over a week ago"]
    assert find("It was two weeks ago.") == ["two weeks ago"]
    assert find("It was weeks ago, years ago even.") == []
    assert find("Twenty-two weeks ago") == []
    assert find("the yesterdays of old, todayish") == []
    assert find("A couple of days ago, and a few weeks ago, 3 days ago") == [
        "A couple of days ago",
        "a few weeks ago",
        "3 days ago",
    ]


def test_find_ignores_future_and_vague_phrases():
    assert find("See you tomorrow, next week, or next Tuesday. The other day was fun, recently too.") == []
    assert find("My pottery class starts on Monday.") == []
    assert find("I will call her on Friday.") == []
    assert find("We met on Friday and talked.") == ["on Friday"]
    assert find("It is the last Monday of the month.") == []
    assert find("In the last week I ran twice; last week I ran once.") == ["the last week", "last week"]


def test_weekday_semantics():
    # on a Wednesday: Monday is two days back, Thursday six
    assert agrees("on Monday", ago(2), WED) and agrees("on Thursday", ago(6), WED)
    assert not agrees("on Monday", ago(9), WED)
    assert resolve("on Wednesday", WED) is None  # said on a Wednesday it names no past day
    assert agrees("last Wednesday", ago(7), WED)
    # on a Friday, "last Tuesday" is this week's Tuesday or the previous week's: both accepted
    fri = dt.date(2024, 3, 15)
    assert agrees("last Tuesday", ago(3, fri), fri) and agrees("last Tuesday", ago(10, fri), fri)
    assert not agrees("last Tuesday", ago(17, fri), fri) and not agrees("last Tuesday", ago(4, fri), fri)
    assert agrees("this past Tuesday", ago(3, fri), fri) and not agrees("this past Tuesday", ago(10, fri), fri)
    assert resolve("last week", WED) == (dt.date(2024, 3, 4), dt.date(2024, 3, 10))
    assert resolve("last weekend", WED) == (dt.date(2024, 3, 9), dt.date(2024, 3, 10))
    assert resolve("earlier this week", WED) == (dt.date(2024, 3, 11), WED)


def test_month_boundaries():
    first = dt.date(2024, 3, 1)
    assert resolve("last month", first) == (dt.date(2024, 2, 1), dt.date(2024, 2, 29))
    assert resolve("last month", dt.date(2024, 1, 5)) == (dt.date(2023, 12, 1), dt.date(2023, 12, 31))
    assert agrees("last month", dt.date(2024, 2, 29), first) and not agrees("last month", first, first)
    assert resolve("back in May", WED) == (dt.date(2023, 5, 1), dt.date(2023, 5, 31))
    assert resolve("back in March", WED) == (dt.date(2023, 3, 1), dt.date(2023, 3, 31))
    assert resolve("back in February", WED) == (dt.date(2024, 2, 1), dt.date(2024, 2, 29))
    assert resolve("last year", WED) == (dt.date(2023, 1, 1), dt.date(2023, 12, 31))


def test_tolerances():
    assert resolve("two weeks ago", WED) == (ago(17), ago(11))
    assert resolve("about a month ago", WED) == (ago(40), ago(24))
    assert resolve("three months ago", WED) == (ago(105), ago(75))
    assert resolve("about three days ago", WED) == (ago(4), ago(2))
    assert resolve("over a week ago", WED) == (ago(14), ago(8))
    assert resolve("less than a week ago", WED) == (ago(6), WED)
    assert resolve("Two  Days Ago", WED) == (ago(2), ago(2))
    assert resolve("an hour ago", WED) == (ago(1), WED)
    assert resolve("the other day", WED) is None
