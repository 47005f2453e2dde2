"""History agrees with the world (tasks/dialogue/agreement.py): hand-built turns and documents about a cancelled
dinner and an appointment that took place, clean, then with planted contradictions the checker must report."""

from __future__ import annotations

import datetime as dt

from schemas.corpus import Bullet, Chunk, Corpus, Document, FactMention, TimeRef, Turn
from schemas.world import Event, Fact, Plan, World
from tasks.dialogue.agreement import history_findings
from tests.tasks.worldfixture import make_persona

PID = "p0001"
DAY = dt.date(2024, 3, 5)
TZ = dt.UTC


def plan(n: int, kind: str, title: str, entity: dict[str, str]) -> Plan:
    return Plan(plan_id=f"{PID}-pl{n:04d}", persona_id=PID, created_on=DAY, horizon="short", scheduled_for=DAY,
                title=title, kind=kind, entity=entity)


def event(n: int, kind: str, valence: str, narrative: str) -> Event:
    return Event(event_id=f"{PID}-e{n:04d}", persona_id=PID, date=DAY, plan_id=f"{PID}-pl{n:04d}", kind=kind,
                 valence=valence, severity=2, critical=False, narrative=narrative)


def fact(n: int, event_no: int, attribute: str, value: str, forms: list[str]) -> Fact:
    return Fact(fact_id=f"{PID}-f{n:04d}", persona_id=PID, event_id=f"{PID}-e{event_no:04d}", subject="Maya Okafor",
                attribute=attribute, value=value, valid_from=DAY, surface_forms=forms)


def world() -> World:
    """A cancelled dinner at Kebab Corner (e0001), a diagnosis at Dr. Lee's (e0002, it took place) and a good
    dinner at Casa Lola a week before (e0003)."""
    plans = [plan(1, "dinner_out", "have dinner at Kebab Corner with Kim Kamau",
                  {"restaurant": "Kebab Corner", "companion": "Kim Kamau", "dish": "grilled sardines"}),
             plan(2, "doctor_visit", "see Dr. Lee about headaches",
                  {"doctor": "Dr. Lee", "complaint": "headaches", "diagnosis": "chronic migraine"}),
             plan(3, "dinner_out", "have dinner at Casa Lola with Priya Shah",
                  {"restaurant": "Casa Lola", "companion": "Priya Shah", "dish": "paella"})]
    events = [event(1, "dinner_out", "negative", "Kim was unwell, so we cancelled dinner at Kebab Corner."),
              event(2, "doctor_visit", "negative", "Dr. Lee was clear: it's a chronic migraine."),
              event(3, "dinner_out", "positive", "I had paella at Casa Lola.")]
    facts = [fact(1, 1, "dinner_cancelled", "dinner at Kebab Corner", ["dinner at Kebab Corner", "Kebab Corner"]),
             fact(2, 2, "diagnosis", "chronic migraine", ["chronic migraine"]),
             fact(3, 3, "dinner_out", "paella at Casa Lola", ["paella at Casa Lola", "Casa Lola"])]
    return World(plans=plans, events=events, facts=facts, profile_ops=[], profile_snapshots=[])


def turn(n: int, role: str, text: str, bullet: str | None = "b1", **extra) -> Turn:
    return Turn(turn_id=f"{PID}-s0001-t{n:02d}", session_id=f"{PID}-s0001", persona_id=PID,
                timestamp=dt.datetime(2024, 3, 5, 18, n, tzinfo=TZ), role=role, text=text,
                bullet_id=f"{PID}-{bullet}" if bullet else None, **extra)


def journal(text: str) -> Document:
    return Document(doc_id=f"{PID}-d0001", persona_id=PID, created_at=dt.datetime(2024, 3, 5, 21, tzinfo=TZ),
                    source_type="journal", format="md", title="Journal, March 5, 2024", body=text,
                    event_id=f"{PID}-e0001", fact_ids=[f"{PID}-f0001", f"{PID}-f0002"], kind="journal")


def corpus(turns: list[Turn], docs: list[Document] = (), mentions: list[FactMention] = ()) -> Corpus:
    bullets = [Bullet(bullet_id=f"{PID}-b{n}", persona_id=PID, date=DAY, event_id=f"{PID}-e000{n}",
                      category="information_sharing", text="", fact_ids=[f"{PID}-f000{n}"]) for n in (1, 2, 3)]
    chunks = [Chunk(chunk_id=f"{d.doc_id}-c01", doc_id=d.doc_id, persona_id=PID, created_at=d.created_at, ordinal=0,
                    text=d.body, n_tokens=len(d.body.split()), fact_ids=d.fact_ids) for d in docs]
    return Corpus(documents=list(docs), chunks=chunks, bullets=bullets, turns=turns, mentions=list(mentions))


CLEAN_TURNS = [
    turn(1, "user", "Kim was unwell, so we cancelled dinner at Kebab Corner. I'm a bit down about it."),
    turn(2, "assistant", "I'm sorry the dinner fell through. It could help to send Kim a friendly message to "
                         "rearrange, and to fill the free evening with something you enjoy. Last week's dinner at "
                         "Casa Lola went really well, you said: was it the same at Casa Lola last time?"),
    turn(3, "user", "I went to see Dr. Lee: it's a chronic migraine.", bullet="b2"),
    turn(4, "user", "I had paella at Casa Lola and enjoyed it.", bullet="b3"),
]
CLEAN_JOURNAL = ("# Journal, March 5, 2024\n\n## Kebab Corner\n\nKim was unwell, so we cancelled dinner at Kebab "
                 "Corner. It stung a little.\n\n## The appointment\n\nDr. Lee was clear: it's a chronic migraine.")


def checks(found) -> list[tuple[str, str, str]]:
    return sorted((f.check, f.stage, f.artifact_id) for f in found)


def test_a_history_that_agrees_with_the_world_has_no_findings():
    assert history_findings(make_persona(), world(), corpus(CLEAN_TURNS, [journal(CLEAN_JOURNAL)])) == []


def test_a_reply_presupposing_the_cancelled_dinner_happened_is_an_error():
    planted = turn(5, "assistant", "Tell the staff at Kebab Corner what went wrong. Was it the same at Kebab "
                                   "Corner last time?")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [planted], [journal(CLEAN_JOURNAL)]))
    assert checks(found) == [("cancelled_event_as_happened", "dialogue", planted.turn_id)]
    assert found[0].severity == "error"
    assert "its staff" in found[0].message and "a last time there" in found[0].message
    assert found[0].finding_id == f"{PID}-hist0001"


def test_a_callback_asking_how_the_cancelled_dinner_was_is_an_error():
    back = turn(5, "assistant", "How was the dinner in the end? I hope you enjoyed it.", bullet=None,
                callback_of=f"{PID}-f0001")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [back]))
    assert checks(found) == [("cancelled_event_as_happened", "dialogue", back.turn_id)]


def test_a_time_reference_to_the_cancelled_dinner_that_tells_it_as_had_is_an_error():
    later = turn(5, "user", "Two weeks ago we had dinner at Kebab Corner, so this follows on from that. I went to "
                            "see Dr. Lee.", bullet="b2",
                 time_refs=[TimeRef(phrase="Two weeks ago", date=DAY, event_id=f"{PID}-e0001")])
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [later]))
    assert checks(found) == [("cancelled_event_as_happened", "dialogue", later.turn_id)]


def test_the_dish_of_a_dinner_that_never_was_is_an_error():
    dish = turn(5, "user", "I had the grilled sardines, for what it's worth.")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [dish]))
    assert checks(found) == [("cancelled_event_as_happened", "dialogue", dish.turn_id)]
    assert "dish 'grilled sardines'" in found[0].message


def test_a_journal_enjoying_the_cancelled_dinner_is_an_error_and_its_other_sections_are_not_read_for_it():
    body = CLEAN_JOURNAL.replace("It stung a little.", "We had a lovely evening; the food was great.")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS, [journal(body)]))
    assert checks(found) == [("cancelled_event_as_happened", "sources", f"{PID}-d0001-c01")]


def test_a_turn_and_a_document_telling_different_outcomes_disagree():
    said = turn(5, "user", "I was supposed to see Dr. Lee about headaches, but it fell through.", bullet="b2")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [said], [journal(CLEAN_JOURNAL)]))
    assert checks(found) == [("event_outcome_disagrees", "dialogue", said.turn_id)]
    assert "'did not happen'" in found[0].message and "went badly" in found[0].message


def test_a_document_calling_off_an_event_a_turn_told_as_done_names_the_turn():
    told = turn(5, "user", "The appointment with Dr. Lee went badly.", bullet="b2")
    body = CLEAN_JOURNAL.replace("Dr. Lee was clear: it's a chronic migraine.",
                                 "The appointment with Dr. Lee was cancelled. It's a chronic migraine, though.")
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [told], [journal(body)]))
    assert checks(found) == [("event_outcome_disagrees", "sources", f"{PID}-d0001-c01")]
    assert f"turn {told.turn_id} tells it 'went badly'" in found[0].message


def test_what_someone_else_did_or_nearly_happened_claims_nothing():
    aside = turn(5, "user", "Kim was unwell, so we cancelled dinner at Kebab Corner. My friend Priya and I had a "
                            "lovely time at Kebab Corner last month.")
    other = FactMention(mention_id=f"{aside.turn_id}-m1", persona_id=PID, fact_id=f"{PID}-f0001",
                        evidence_id=aside.turn_id, evidence_kind="turn", mode="about_other",
                        span="My friend Priya and I had a lovely time at Kebab Corner last month.", counts=False)
    assert history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [aside], mentions=[other])) == []
    found = history_findings(make_persona(), world(), corpus(CLEAN_TURNS + [aside]))
    assert checks(found) == [("cancelled_event_as_happened", "dialogue", aside.turn_id)]


def test_a_status_report_of_work_done_on_a_project_that_never_began_is_an_error():
    on_hold = World(plans=[plan(4, "work_project", "kick off the Atlas project at work", {"project": "Atlas"})],
                    events=[event(4, "work_project", "negative", "The Atlas project is on hold.")], facts=[],
                    profile_ops=[], profile_snapshots=[])
    report = Document(doc_id=f"{PID}-d0002", persona_id=PID, created_at=dt.datetime(2024, 3, 5, 17, tzinfo=TZ),
                      source_type="report", format="md", title="Status report", body="# Status report",
                      event_id=f"{PID}-e0004", kind="status_report",
                      tables=[{"caption": "Project metrics", "columns": ["metric", "value"],
                               "rows": [["tasks planned", 12], ["tasks completed", 0], ["hours logged", 0]]}])
    assert history_findings(make_persona(), on_hold, Corpus(documents=[report])) == []
    report.tables[0]["rows"][1][1] = 5
    found = history_findings(make_persona(), on_hold, Corpus(documents=[report]))
    assert checks(found) == [("cancelled_event_as_happened", "sources", report.doc_id)]
    assert "tasks completed 5" in found[0].message


def test_the_dialogue_stage_regenerates_a_turn_presupposing_its_called_off_event_happened():
    from tasks.dialogue.verify import called_off_problems

    names = ("Kebab Corner", "Kim")
    said = "I'm sorry the dinner fell through. Was it the same at Kebab Corner last time? Send Kim a message."
    assert [p.check for p in called_off_problems(said, names)] == ["turn_presupposes_called_off"]
    assert called_off_problems("Kebab Corner fell through. Is Kebab Corner easy to book again?", names) == []
    assert called_off_problems(said, ()) == []  # the final verifier's scope: history_findings checks the history
    assert called_off_problems("Casa Lola was lovely; how was it?", names) == []  # not about this event


def test_a_callback_to_the_cancelled_dinner_fails_the_verify_stage_and_the_gate():
    """Issue 55's mutation test at the build's level: the verify stage reports the planted callback as an error,
    and the consistency gate stops the release on it."""
    from schemas.qa import QuestionSet
    from tasks.verify import verify_persona
    from tests.validation.conftest import GATE_CONFIG, clean_corpus, connect
    from validation.gates import run_gates

    back = turn(5, "user", "Back to Kebab Corner: the staff were lovely last time, we should go again.", bullet=None,
                callback_of=f"{PID}-f0001")
    found = [f for f in verify_persona(make_persona(), world(), corpus(CLEAN_TURNS + [back]), QuestionSet())
             if f.check in ("cancelled_event_as_happened", "event_outcome_disagrees")]  # the hand-built turns
    assert all(f.severity == "error" for f in found)  # break rules of other checks that are not this test's
    assert [(f.check, f.artifact_id) for f in found] == [("cancelled_event_as_happened", back.turn_id)]
    landed = clean_corpus()
    landed["verifier_findings"] = found
    report = run_gates(connect({"r1": landed}), "r1", config=GATE_CONFIG)
    assert "consistency.no error finding left" in {r.expectation for r in report.failed()}
