"""Language measures on tiny hand-written corpora with known values."""

import pytest

from tasks.metrics import grammar, measure_corpus
from tasks.metrics.language import LanguageTally
from tasks.metrics.text import normal, sentences, skeleton, speech_act, stems
from tests.tasks.metrics_rows import corpus, turn


def by_name(rows):
    return {r.measure: r for r in rows}


def test_sentences_split_abbreviations_lists_and_headings():
    text = ("I saw Dr. Mateo Mendes at 5 p.m. today. He said it's fine! Is it?\n"
            "**Garden Tasks**\n1. Water the seedlings first.\n[Upload p0001-d0004] St. Anne's Hospital called.")
    assert sentences(text) == ("I saw Dr. Mateo Mendes at 5 p.m. today.", "He said it's fine!", "Is it?",
                               "Water the seedlings first.", "St. Anne's Hospital called.")


def test_normal_and_skeleton_mask_entities_numbers_dates():
    assert normal("It’s  “fine”") == "it's \"fine\""
    a = skeleton("I met Kwame Okeke at Copper Kettle on March 3 for 2 hours.")
    b = skeleton("I met Ana Lima at Blue Door on June 14 for three hours.")
    assert a == b == "i met <name> at <name> on <date> # for # hours"
    assert skeleton("Ana called.", ("Ana",)) == "<name> called"
    assert skeleton("Thanks for telling me.") == "thanks for telling me"


def test_speech_acts_and_stems():
    assert [speech_act(s) for s in ("Good morning!", "Fair.", "Do you think so?", "Could you remind me tomorrow",
                                    "I'm so relieved about it.", "The bus was late.")] == [
        "greet", "react", "ask", "request", "feel", "inform"]
    assert stems("Running mornings, the runner ran") >= {"run", "morn", "runner"}
    assert "the" not in stems("the the the")


def test_one_repeated_sentence_has_one_distinct_and_full_skeleton_coverage():
    c = corpus(turns=[turn("p0001", i, "Keeping notes helps a lot.", role="assistant") for i in range(10)])
    tally = LanguageTally(sample=0)
    tally.add(c)
    rows = by_name(tally.rows())
    assert rows["language.assistant.distinct_sentences"].value == 0.1
    assert rows["language.assistant.top50_skeleton_share"].value == 1.0
    assert rows["language.user.distinct_sentences"].value is None  # no user sentences: null with a note
    assert rows["language.user.distinct_sentences"].note == "no user sentences"
    assert rows["language.assistant.cross_persona_share"].value is None  # one persona


def test_all_distinct_sentences_have_no_repeated_skeleton():
    texts = ["The cat sat on the mat.", "My sister bakes bread on Sundays.", "We walked along the river.",
             "Rain kept us indoors all week."]
    c = corpus(turns=[turn("p0001", i, t) for i, t in enumerate(texts)])
    rows = by_name(measure_corpus([c], grammar_sample=0))
    assert rows["language.user.distinct_sentences"].value == 1.0
    assert rows["language.user.top50_skeleton_share"].value == 0.0
    assert rows["language.user.words_per_sentence"].value == pytest.approx(23 / 4)


def test_cross_persona_share_counts_sentences_another_persona_says():
    shared = "Small routines make new situations manageable."
    a = corpus("p0001", turns=[turn("p0001", 1, shared), turn("p0001", 2, "My bike has a flat tyre again.")])
    b = corpus("p0002", turns=[turn("p0002", 1, shared), turn("p0002", 2, "Our garden is full of tomatoes.")])
    tally = LanguageTally(sample=0)
    tally.add(a)
    tally.add(b)
    assert by_name(tally.rows())["language.user.cross_persona_share"].value == 0.5  # 2 of 4 sentences


@pytest.mark.skipif(not grammar.available(), reason="Link Grammar is not installed (apt-get install "
                    "link-grammar python3-link-grammar)")
def test_complete_parse_share_of_parseable_and_unparseable_sentences():
    good = ["My husband is learning to drive.", "The cat sat on the mat."]
    bad = ["Basically, is learning to drive, that's my husband Kwame Okeke's news.", "mat the on sat cat the."]
    assert [grammar.parses(s) for s in good + bad] == [True, True, False, False]
    c = corpus(turns=[turn("p0001", i, t) for i, t in enumerate(good + bad)])
    row = by_name(measure_corpus([c]))["language.user.complete_parses"]
    assert (row.value, row.n) == (0.5, 4)
    assert set(row.detail["unparsed_examples"]) == set(bad)


def test_grammar_sample_is_seeded_and_bounded():
    texts = [f"Sentence number {i} is here." for i in range(50)]
    c = corpus(turns=[turn("p0001", i, t) for i, t in enumerate(texts)])
    picks = []
    for _ in range(2):
        tally = LanguageTally(sample=7)
        tally.add(c)
        picks.append(sorted(s for _, s in tally.roles["user"].sample))
    assert picks[0] == picks[1] and len(picks[0]) == 7
