"""Hallucination generators on the hand-built premise world (tests/tasks/qgen_premise_world.py): each false
premise is verified false, answers are the truth at question time, nothing after it changes them."""

from __future__ import annotations

import datetime as dt

import pytest

from tasks.common.facttext import mentions
from tasks.questions import GENERATORS
from tasks.questions.generators.hallucination.conflicts import contextual_contradiction, preference_conflict
from tasks.questions.generators.hallucination.premises import NO_RECORD, fabrication, misattribution
from tasks.questions.generators.kit import world_text
from tests.tasks.qgen_premise_world import build_corpus, build_world, context, with_later
from tests.tasks.worldfixture import make_persona

KEYS = ("misattribution", "fabrication", "preference_conflict", "contextual_contradiction")


@pytest.fixture(scope="module")
def ctx():
    return context()


def only(cands, **fields):
    """The single candidate whose fields (template, question fragment) match."""
    found = [c for c in cands if all(
        (v in c.question) if k == "asks" else getattr(c, k) == v for k, v in fields.items())]
    assert len(found) == 1, [(c.template, c.question) for c in cands]
    return found[0]


def test_generators_are_registered():
    for key in KEYS:
        assert GENERATORS[f"hallucination.{key}"].__name__ == key


def test_misattribution_agent_names_the_persona(ctx):
    cand = only(misattribution(ctx), template="hallucination.misattribution.agent", asks="Biscuit")
    assert cand.question.startswith("When did Maya's ") and "Maya Okafor" not in cand.question
    assert cand.answer == "Maya Okafor, on March 2, 2024"
    wrong = cand.extra["false_premise"].split(" (")[0]
    assert wrong in {"Daniel Okafor", "Daniel Reyes", "Priya Shah"} and wrong in cand.question
    assert "Sam Ortiz" not in cand.question  # an ex-partner is no longer a relation to credit
    assert cand.answer_type == "long" and cand.rubric and wrong in cand.reference_answer
    assert f"{wrong}, on March 2, 2024" in cand.distractors
    assert [r.item_id for r in cand.evidence] == ["p0001-t0009"]


def test_misattribution_swaps_the_companion(ctx):
    cand = only(misattribution(ctx), template="hallucination.misattribution.companion")
    assert cand.question in ("When did Maya have dinner at Casa Lola with Daniel Okafor?",
                             "When did Maya have dinner at Casa Lola with Daniel Reyes?")
    assert cand.answer == "Priya Shah, on March 5, 2024"
    assert "Priya Shah" not in cand.question
    assert cand.extra["swapped_field"] == "companion"
    # no restaurant swap: the world knows no other restaurant
    assert not [c for c in misattribution(ctx) if c.template.endswith(".restaurant")]


def test_misattribution_moves_the_month(ctx):
    cand = only(misattribution(ctx), template="hallucination.misattribution.time", asks="Biscuit")
    assert cand.question == "Why did Maya adopt a rescue dog named Biscuit in May 2024?"
    assert cand.answer == "March 2, 2024" and "March 2, 2024" not in cand.distractors


def test_fabrication_is_absent_from_the_whole_world(ctx):
    cands = fabrication(ctx)
    assert {c.template.rsplit(".", 1)[1] for c in cands} >= {"adopt_pet", "move_flat", "concert", "new_cafe"}
    text = world_text(ctx)
    titles = {p.title for p in ctx.world.plans}
    dates = {e.event_id: e.date.isoformat() for e in ctx.world.events}
    for cand in cands:
        if cand.extra.get("answerable_twin"):  # the same question of a real event: answered by its date
            assert cand.answer == dates[cand.extra["event_ids"][0]] and cand.evidence
            continue
        assert cand.answer == NO_RECORD and cand.answer_type == "long" and cand.rubric
        assert cand.extra["abstention"] in ("never_said", "someone_else", "only_planned")
        if cand.extra["abstention"] != "never_said":
            continue
        assert cand.extra["false_premise"] not in titles
        assert all(not mentions(text, form) for form in cand.extra["absent_forms"])
        assert cand.evidence and cand.fact_ids  # the closest real event of that kind
    pet = only([c for c in cands if not c.extra.get("answerable_twin")], template="hallucination.fabrication.adopt_pet")
    assert "Biscuit" not in pet.question and "Biscuit" in pet.reference_answer


def abstention_context():
    from tests.tasks.qgen_premise_world import EVENTS

    events = dict(EVENTS)
    events[20] = ("04-05", "family_call", "positive", False, "call Daniel Okafor about his weekend",
                  {"relative": "Daniel Okafor"},
                  [("Daniel Okafor", "side_project", "a pottery stall", ["a pottery stall"])], None, 0)
    events[21] = ("04-07", "friend_visit", "positive", False, "host Priya Shah for brunch", {"friend": "Priya Shah"},
                  [("Priya Shah", "pet", "ginger cat named Saffron", ["ginger cat named Saffron"])], None, 0)
    world = build_world(events)
    return context(world, build_corpus(make_persona(), world, events))


def test_abstention_items_are_declines_with_the_nearest_misleading_mention():
    ctx = abstention_context()
    cands = [c for c in fabrication(ctx) if c.extra.get("abstention") not in ("never_said", None)]
    other = only(cands, template="hallucination.fabrication.someone_else.side_project")
    assert other.question == "What side project has Maya started?" and other.answer == NO_RECORD
    assert "Daniel Okafor" in other.reference_answer and "Daniel" not in other.question
    said = {t.turn_id: t.text for t in ctx.corpus.turns}
    assert other.evidence and all("a pottery stall" in said[r.item_id] for r in other.evidence)
    # Priya's cat is never asked as Maya's: Maya has a dog of her own, so "What pet does Maya have?" has an answer
    assert not [c for c in cands if c.template.endswith("someone_else.pet")]
    planned = only(cands, template="hallucination.fabrication.only_planned.move_fell_through")
    assert planned.question == "When did Maya move into the flat at 8 Birch Road?"
    assert "fell through on March 16, 2024" in planned.reference_answer
    assert [ctx.facts[f].attribute for f in planned.extra["misleading_fact_ids"]] == ["move_fell_through"]
    never = [c for c in fabrication(ctx) if c.extra.get("abstention") == "never_said"]
    assert never and all(c.extra["misleading_fact_ids"] == list(c.fact_ids) for c in never)
    # each abstention template also asks, in the same words, of what did happen (its answerable twins)
    twins = [c for c in fabrication(ctx) if c.extra.get("answerable_twin")]
    daniel = only(twins, template="hallucination.fabrication.someone_else.side_project")
    assert (daniel.question, daniel.answer) == ("What side project has Daniel Okafor started?", "a pottery stall")
    moved = only(twins, template="hallucination.fabrication.only_planned.move_fell_through")
    assert (moved.question, moved.answer) == ("When did Maya move into the flat at 12 Oak Lane?", "2024-03-06")
    assert {c.template for c in never} <= {c.template for c in twins}


def test_preference_conflict_names_the_current_preference(ctx):
    cand = only(preference_conflict(ctx))
    assert cand.question == "What should Maya order next time at Maya's favourite café, Café Lumen?"
    assert cand.answer == "Blue Door Coffee"
    assert "March 12, 2024" in cand.reference_answer and "Café Lumen" in cand.reference_answer
    assert cand.extra["superseded_fact_ids"] and "Café Lumen" in cand.distractors
    assert [r.item_id for r in cand.evidence] == ["p0001-t0016"]


def test_preference_conflict_needs_profile_and_facts_to_agree(ctx):
    world = ctx.world.model_copy(update={"profile_ops": ctx.world.profile_ops[:1]})  # profile never changed
    assert preference_conflict(context(world=world)) == []


def test_contextual_contradiction_corrects_the_value(ctx):
    cands = contextual_contradiction(ctx)
    stale = only(cands, asks="3 Pine Street")
    assert stale.answer == "flat at 12 Oak Lane" and stale.extra["variant"] == "stale"
    failed = only(cands, asks="8 Birch Road")
    assert failed.answer == "flat at 12 Oak Lane" and failed.extra["variant"] == "fell_through"
    assert "fell through on March 16, 2024" in failed.reference_answer
    ex = only(cands, asks="Sam Ortiz")
    assert ex.question == "How are things going with Maya's partner Sam Ortiz?" and ex.answer == "ex-partner"
    job = only(cands, asks="Brightwave Labs")
    assert job.answer == "City Hospital"


def test_no_answer_in_question_and_evidence_precedes(ctx):
    for key in KEYS:
        for cand in GENERATORS[f"hallucination.{key}"](ctx):
            assert not mentions(cand.question, cand.answer), cand
            assert cand.category == "hallucination" and cand.characteristic == key
            twin = cand.extra.get("answerable_twin")  # fabrication's real-event twins are short date items
            assert (cand.answer_type == "short" if twin else cand.answer_type == "long" and cand.rubric)
            assert cand.evidence
            for ref in cand.evidence:
                stamp, _ = ctx.item(ref)
                assert stamp < (cand.asked_at or ctx.asked_at)


def test_facts_after_question_time_change_nothing(ctx):
    persona = make_persona()
    world, corpus = with_later(ctx.world, ctx.corpus, persona, dt.date(2024, 5, 20))
    later = context(world=world, corpus=corpus)
    for key in KEYS:
        before = GENERATORS[f"hallucination.{key}"](ctx)
        after = GENERATORS[f"hallucination.{key}"](later)
        assert [(c.question, c.answer, c.reference_answer, c.evidence) for c in before] == [
            (c.question, c.answer, c.reference_answer, c.evidence) for c in after], key


def test_changed_fact_before_question_time_does_change_the_answer():
    persona = make_persona()
    world, corpus = with_later(build_world(), build_corpus(persona, build_world()), persona, dt.date(2024, 5, 1))
    ctx = context(world=world, corpus=corpus)
    home = only(contextual_contradiction(ctx), asks="3 Pine Street")
    assert home.answer == "flat at 99 Zebra Road"
    # the fact store now disagrees with the profile (no op for the new cafe): no preference item
    assert preference_conflict(ctx) == []


def test_deterministic():
    a, b = context(), context()
    for key in KEYS:
        assert GENERATORS[f"hallucination.{key}"](a) == GENERATORS[f"hallucination.{key}"](b)


def test_fabrication_never_slots_a_non_job_or_non_employer(ctx, monkeypatch):
    """The catalog can draw "stay-at-home parent" at "unemployed": never asked as "start a new job as a
    stay-at-home parent at unemployed" (review finding 10); the next sensible draw is used instead."""
    import dataclasses

    from tasks.world.catalog import KINDS

    draws = iter([{"role": "stay-at-home parent", "company": "unemployed"},
                  {"role": "plumber", "company": "self-employed"},
                  {"role": "unemployed", "company": "Harbor Clinic"}])

    def draw(rng, profile):
        return next(draws, {"role": "pharmacist", "company": "Harbor Clinic"})

    monkeypatch.setitem(KINDS, "new_job", dataclasses.replace(KINDS["new_job"], draw=draw))
    job = only([c for c in fabrication(ctx) if c.extra.get("abstention")], template="hallucination.fabrication.new_job")
    assert job.question == "When did Maya start a new job as a pharmacist at Harbor Clinic?"
    for cand in fabrication(ctx) + misattribution(ctx) + contextual_contradiction(ctx):
        for bad in ("unemployed", "self-employed", "stay-at-home parent", "retired"):
            assert not mentions(cand.question, bad), cand.question


def test_fits_slot():
    from tasks.common.facttext import fits_slot, fits_slots

    assert not fits_slot("employer", "unemployed") and not fits_slot("identity.employer", "Self-employed")
    assert not fits_slot("occupation", "stay-at-home parent") and not fits_slot("role", "retired")
    assert fits_slot("employer", "City Hospital") and fits_slot("city", "unemployed")  # only the slots it spoils
    assert not fits_slots({"role": "nurse", "company": "unemployed"}) and fits_slots({"role": "nurse", "company": "X"})


def test_mentions_caches_its_pattern_and_keeps_the_acronym_rule():
    from tasks.common.facttext import phrase_pattern

    assert mentions("Our IT team", "IT") and not mentions("it works", "IT")  # acronyms match in capitals only
    assert mentions("Lunch at café lumen", "Café Lumen") and not mentions("Café Lumens", "Café Lumen")
    assert phrase_pattern("Café Lumen") is phrase_pattern("Café Lumen")
    assert not mentions("anything", "  ")


@pytest.mark.parametrize("text, form", [
    ("KIT", "k"), ("\u212a", "k"), ("\u017fki", "ski"), ("\u0130stanbul", "istanbul"), ("Skiing", "ski"),
    ("a SKI trip", "ski"), ("the BBC", "BBC"), ("the bbc", "BBC"), ("x-ray", "ray"), ("café LUMEN!", "Café Lumen"),
    ("Ski", " ski "), ("ski", ""),
])
def test_mentions_substring_shortcut_agrees_with_the_phrase_pattern(text, form):
    from tasks.common.facttext import phrase_pattern

    expected = bool(form.strip()) and phrase_pattern(form).search(text) is not None
    assert mentions(text, form) is expected
