"""Coherence, fact and question measures on tiny hand-written corpora with known values."""

import datetime as dt

from tasks.metrics.coherence import CoherenceTally, connected, intent_plan_ok
from tasks.metrics.facts import FactTally
from tasks.metrics.questions import QuestionTally
from tasks.metrics.text import sentences, speech_act
from tests.tasks.metrics_rows import Bullet, Document, Event, Plan, WorldEntity, corpus, fact, question, turn


def rows_of(tally, *corpora):
    for c in corpora:
        tally.add(c)
    return {r.measure: r for r in tally.rows()}


def acts(text):
    return [speech_act(s) for s in sentences(text)]


def test_intent_plan_and_connection():
    collage = "Fair. Okay, but any way to note it down quickly? The background part still feels new. If it lasts?"
    plain = "Oliver stretched out beside me this morning. Oliver seemed so content. Do you think pets sense calm?"
    assert not intent_plan_ok(acts(collage))  # two separate question blocks
    assert intent_plan_ok(acts(plain))
    assert connected(list(sentences(plain)), acts(plain)) is True
    unrelated = "My bike has a flat tyre. The soup tasted of ginger. Taxes are due in April."
    assert connected(list(sentences(unrelated)), acts(unrelated)) is False
    assert connected(["Fair.", "One sentence only."], ["react", "inform"]) is None


def test_turn_measures_count_multi_sentence_turns_only():
    c = corpus(turns=[
        turn("p0001", 1, "Oliver stretched out beside me. Oliver seemed content. Do you think pets sense calm?"),
        turn("p0001", 2, "Fair. Any way to note it down? The part feels new. If it lasts?", minutes=100),
        turn("p0001", 3, "Just one sentence here.", minutes=200),
    ])
    rows = rows_of(CoherenceTally(), c)
    assert (rows["coherence.user.single_intent_turns"].value, rows["coherence.user.single_intent_turns"].n) == (0.5, 2)
    assert rows["coherence.assistant.connected_turns"].value is None


def test_restating_followups_within_a_topic():
    c = corpus(turns=[
        turn("p0001", 1, "I adopted a rabbit named Toast from the shelter.", bullet_id="b1"),
        turn("p0001", 2, "Toast the rabbit from the shelter, adopted.", bullet_id="b1", kind="followup"),
        turn("p0001", 3, "How often should I clean the hutch?", bullet_id="b1", kind="followup"),
        turn("p0001", 4, "Work was busy today with a deadline.", bullet_id="b2"),
    ])
    row = rows_of(CoherenceTally(), c)["coherence.user.restating_followups"]
    assert (row.value, row.n) == (0.5, 2)


def test_repeat_announcements_greetings_and_senders():
    zone = dt.timezone(dt.timedelta(hours=3))
    events = [Event(event_id="p0001-e0001", persona_id="p0001", date=dt.date(2024, 3, 1), plan_id="pl1",
                    kind="start_book", valence="positive", severity=1, critical=False, narrative="I started Dune."),
              Event(event_id="p0001-e0000", persona_id="p0001", date=dt.date(2024, 3, 1), plan_id=None,
                    kind="baseline", valence="positive", severity=1, critical=False, narrative="Background.")]
    plans = [Plan(plan_id="pl1", persona_id="p0001", created_on=dt.date(2024, 3, 1), horizon="short",
                  scheduled_for=dt.date(2024, 3, 1), title="read", kind="start_book",
                  entity={"book": "Dune", "club": "Riverside Book Club"})]
    bullets = [Bullet(bullet_id=b, persona_id="p0001", date=dt.date(2024, 3, 1), event_id=e,
                      category="information_sharing", text="x", fact_ids=[])
               for b, e in (("b1", "p0001-e0001"), ("b2", "p0001-e0001"), ("b0", "p0001-e0000"), ("b9", "p0001-e0000"))]
    turns = [turn("p0001", 1, "Good evening! I started Dune.", bullet_id="b1", minutes=0),      # 12:00 local
             turn("p0001", 2, "Good morning, more on Dune.", bullet_id="b2", minutes=30),     # 12:30 local
             turn("p0001", 3, "Background: I live in Lisbon.", bullet_id="b0", session=2),
             turn("p0001", 4, "Background: I work at a bakery.", bullet_id="b9", session=2),
             turn("p0001", 5, "Morning! Quick question.", session=3, minutes=-240)]           # 08:00 local
    docs = [Document(doc_id=f"p0001-d{i}", persona_id="p0001", created_at=dt.datetime(2024, 3, 1, tzinfo=dt.UTC),
                     source_type="email", format="txt", title="t", sender=s, body="b", event_id="p0001-e0001")
            for i, s in enumerate(["Ana Lima <ana@x>", "Riverside Book Club <club@x>", "Parcel Co <noreply@p>",
                                   "Kim Tanaka <kim@x>"])]
    people = [WorldEntity(entity_id="p0001-n1", persona_id="p0001", kind="person", name="Kim Tanaka",
                          role="neighbour", first_seen=dt.date(2024, 3, 1))]
    c = corpus(turns=turns, events=events, plans=plans, bullets=bullets, documents=docs, entities=people, zone=zone)
    rows = rows_of(CoherenceTally(), c)
    assert (rows["coherence.repeat_announcements"].value, rows["coherence.repeat_announcements"].n) == (1.0, 1)
    greet = rows["coherence.greetings_against_time"]
    assert (greet.value, greet.n, greet.detail["mistimed"]) == (0.6667, 3, 2)
    senders = rows["coherence.unrelated_senders"]
    assert (senders.value, senders.n) == (0.25, 4)  # only the parcel firm has nothing to do with the book
    assert "Parcel Co".lower() in senders.detail["examples"][0]


def test_imported_corpus_without_events_gets_null_world_measures():
    rows = rows_of(CoherenceTally(), corpus(turns=[turn("p0001", 1, "Hello there. Nice day.")]))
    assert rows["coherence.repeat_announcements"].value is None
    assert "events" in rows["coherence.repeat_announcements"].note


def test_fact_measures_verbatim_mentions_and_pattern_recall():
    facts = [fact("p0001", 1, "employer", "St. Anne's Hospital"), fact("p0001", 2, "pet", "rabbit named Toast"),
             fact("p0001", 3, "city", "Lisbon")]
    turns = [turn("p0001", 1, "My employer is St. Anne's Hospital.", fact_ids=["p0001-f0001"]),
             turn("p0001", 2, "The little one from the shelter is home now.", paraphrase_ids=["p0001-f0002"]),
             turn("p0001", 3, "We adopted a rabbit named Toast.", fact_ids=["p0001-f0002"])]
    rows = rows_of(FactTally(), corpus(turns=turns, facts=facts))
    # the reference ("the little one from the shelter") names the pet without its value: no evidence of it
    assert (rows["facts.verbatim_mentions"].value, rows["facts.verbatim_mentions"].n) == (1.0, 2)
    assert rows["facts.verbatim_mentions"].detail["by_mode"] == {"reference": 1, "stated": 2}
    assert rows["facts.mentions_per_fact"].value == 0.6667  # 2 mentions over 3 facts (Lisbon never mentioned)
    assert rows["facts.multi_turn_facts"].value == 0.0  # each fact is carried whole by one turn
    assert (rows["facts.pattern_recall"].value, rows["facts.pattern_recall"].n) == (0.5, 2)


def test_split_fact_counts_as_multi_turn():
    facts = [fact("p0001", 1, "wedding_date", "June 14")]
    turns = [turn("p0001", 1, "We picked a date for the wedding.", fact_ids=["p0001-f0001"]),
             turn("p0001", 2, "It's the 14th of June!", fact_ids=["p0001-f0001"])]
    assert rows_of(FactTally(), corpus(turns=turns, facts=facts))["facts.multi_turn_facts"].value == 1.0
    mentions = [{"fact_id": "p0001-f0001", "evidence_id": t.turn_id, "mode": "split"} for t in turns]
    split = corpus(turns=turns, facts=facts, fact_mentions=mentions)
    assert rows_of(FactTally(), split)["facts.multi_turn_facts"].value == 1.0


def test_question_measures_templates_answers_yes_no_entropy():
    qs = [question("p0001", i, f"Did Ana ever go to place {i}?", "No", template="absence",
                   characteristics=("absence_detection",)) for i in range(6)]
    qs += [question("p0001", 10 + i, f"Where does Ana work, try {i}?", a, template="work",
                    characteristics=("state_dependent_attribute",))
           for i, a in enumerate(["Yes", "Yes", "Bakery", "Mill", "Port", "Farm"])]
    rows = rows_of(QuestionTally(), corpus(questions=qs))
    assert rows["questions.templates"].value == 2
    assert rows["questions.top_template_share"].value == 0.5
    assert rows["questions.template_answer_share"].value == round((6 + 2) / 12, 4)
    assert rows["questions.template_answer_share"].detail["one_answer_templates"] == ["absence"]
    yn = rows["questions.yes_no_balance"]
    assert (yn.n, yn.detail["yes_share"], yn.value) == (8, 0.25, 0.5)
    entropy = rows["questions.answer_entropy"]
    assert entropy.detail["by_characteristic"]["absence_detection"] == 0.0
    assert 0 < entropy.detail["by_characteristic"]["state_dependent_attribute"] < 1
