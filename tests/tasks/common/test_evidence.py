"""A text conveys a fact by a surface form, or by a counted mention in other words recorded for that very item."""

from schemas.corpus import FactMention
from tasks.common.evidence import conveys, realized_spans
from tests.tasks.worldfixture import PID, make_world

FACT = next(f for f in make_world().facts if f.value == "Cambridge")
TEXT = "We're over the river near the university now."


def mention(mode: str = "paraphrased", counts: bool = True, item: str = "t1", kind: str = "turn") -> FactMention:
    return FactMention(mention_id=f"{item}-m1", persona_id=PID, fact_id=FACT.fact_id, evidence_id=item,
                       evidence_kind=kind, mode=mode, span="over the river near the university", counts=counts)


def test_a_surface_form_conveys_the_fact_anywhere():
    assert conveys("Cambridge is home now.", FACT, "chunk", "c9", {})


def test_a_recorded_span_conveys_the_fact_only_in_its_own_item():
    spans = realized_spans([mention()])
    assert conveys(TEXT, FACT, "turn", "t1", spans)
    assert not conveys(TEXT, FACT, "turn", "t2", spans)
    assert not conveys(TEXT, FACT, "chunk", "t1", spans)
    assert not conveys("We stayed put.", FACT, "turn", "t1", spans)  # the span is not in this text


def test_only_counted_mentions_in_other_words_give_spans():
    rows = [mention(counts=False), mention(mode="about_other", counts=False), mention(mode="explicit"),
            mention(mode="corrected", item="t3")]
    assert realized_spans(rows) == {("turn", "t3", FACT.fact_id): ("over the river near the university",)}
