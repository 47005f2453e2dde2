"""Multiple choice (tasks/questions/mcq.py): the gold's rank among ordered options is uniform, distractors are
of the gold's own kind (never another attribute's values), no option contains another or is named by the
question, bare yes/no and absence items stay short-answer, and everything is seeded."""

from __future__ import annotations

import random
from collections import Counter

from scipy.stats import chisquare

from schemas.qa import MCQ_OPTIONS
from tasks.questions import mcq, scales
from tasks.questions.assemble import make_mcq
from tasks.questions.base import Candidate
from tasks.questions.generators.aggregation import YES_POOL, count_pool
from tasks.questions.generators.kit import number_distractors
from tasks.questions.select import Prepared
from tests.tasks.questions.test_framework import CITY_TALK, ctx_for, hand_corpus
from tests.tasks.worldfixture import PID, fact, make_world

RANKS = range(MCQ_OPTIONS)


def cand(question: str, answer: str, distractors=(), fact_ids=(), **extra) -> Candidate:
    return Candidate("fact", ("state_dependent_attribute",), question, answer, answer,
                     "fact.state_dependent_attribute.t", "SELECT ...", tuple(fact_ids),
                     distractors=tuple(distractors), extra=extra)


def choose(ctx, pool, c: Candidate, seed: int = 0):
    return mcq.pick_distractors(c.answer, list(c.distractors), pool.same_form(c, c.answer), random.Random(seed))


# -- rank ---------------------------------------------------------------------------------------------
def test_gold_rank_is_uniform_over_many_count_items():
    """Counts 0..39 with the generators' pools: how many options lie below the gold is uniform."""
    ctx = ctx_for()
    pool = mcq.Pool(ctx)
    ranks, placed = Counter(), 0
    for i in range(600):
        n = i % 40
        own = count_pool(n) if i % 2 else number_distractors(n)
        c = cand(f"How many walks did Maya take in week {i}?", str(n), own)
        picked = choose(ctx, pool, c, i)
        if picked is None:
            continue
        placed += 1
        options, gold = mcq.options_for(str(n), picked, i % 6, random.Random(i))
        assert all(int(o) >= 0 for o in options) and len(set(options)) == MCQ_OPTIONS
        ranks[scales.ordinal_rank(options, gold)] += 1
    assert placed >= 450
    assert chisquare([ranks[k] for k in RANKS]).pvalue > 0.05, ranks
    assert max(ranks.values()) - min(ranks.values()) <= 2  # dealt from blocks


def test_gold_rank_is_uniform_for_dates_and_stays_inside_the_simulation():
    ctx = ctx_for()
    pool = mcq.Pool(ctx)
    lo, hi = ctx.config.start_date, ctx.config.end_date
    ranks = Counter()
    for i in range(300):
        day = lo.toordinal() + i % 10
        gold = type(lo).fromordinal(day).isoformat()
        c = cand(f"On what date did Maya do thing {i}?", gold)
        picked = choose(ctx, pool, c, i)
        if picked is None:
            continue
        assert all(lo.isoformat() <= p <= hi.isoformat() for p in picked)
        options, g = mcq.options_for(gold, picked, i % 6, random.Random(i))
        ranks[scales.ordinal_rank(options, g)] += 1
    assert sum(ranks.values()) >= 200 and chisquare([ranks[k] for k in RANKS]).pvalue > 0.05, ranks


def test_plain_pool_draws_the_rank_uniformly_and_keeps_format():
    ranks = Counter()
    for i in range(1200):
        picked = mcq.pick_distractors("$1,250.00", [], [], random.Random(i))
        options, g = mcq.options_for("$1,250.00", picked, 0, random.Random(i))
        assert all(o.startswith("$") and o.endswith(".00") for o in options)
        ranks[scales.ordinal_rank(options, g)] += 1
    assert chisquare([ranks[k] for k in RANKS]).pvalue > 0.01, ranks
    months = ["March 2024", "April 2024", "May 2024", "June 2024", "July 2024", "August 2024"]
    assert scales.ordinal_rank(months, 2) == 2
    assert scales.ordinal_rank(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"], 2) is None
    assert scales.ordinal_rank(["3 km", "4 km", "5 km", "6 km", "7 km", "Boston"], 0) is None


# -- form ---------------------------------------------------------------------------------------------
def world_with_cities(n_cities: int):
    """make_world plus extra city facts (other people's) and a few other families."""
    world = make_world()
    extra = [fact(20 + k, 0, f"Friend {k}", "city", city, 1, [city])
             for k, city in enumerate(["Seattle", "Portland", "Miami", "Phoenix"][: max(n_cities - 5, 0)])]
    extra += [fact(40, 0, "Maya Okafor", "hobby", "Salsa dancing", 1, ["salsa"]),
              fact(41, 0, "Maya Okafor", "vehicle", "Blue bicycle", 1, ["bicycle"])]
    return world.model_copy(update={"facts": list(world.facts) + extra})


def test_distractors_come_only_from_the_gold_attribute_family():
    world = world_with_cities(8)
    ctx = ctx_for(world=world, corpus=hand_corpus(CITY_TALK))
    cities = {f.value for f in world.facts if f.attribute == "city"}
    # the generator's own pool is polluted with other families (a pet, an employer, a hobby)
    c = cand("Which city does Maya live in now?", "Cambridge",
             ["Boston", "Biscuit", "Brightwave Labs", "Salsa dancing", "Blue bicycle"], [f"{PID}-f0007"])
    for seed in range(30):
        picked = choose(ctx, mcq.Pool(ctx), c, seed)
        assert picked is not None and set(picked) <= cities - {"Cambridge"}, picked


def test_fewer_than_five_same_family_values_stay_short_answer():
    ctx = ctx_for()  # four other cities only (Boston, Chicago, Denver, Austin)
    c = cand("Which city does Maya live in now?", "Cambridge", ["Boston", "Biscuit", "Brightwave Labs"],
             [f"{PID}-f0007"])
    assert choose(ctx, mcq.Pool(ctx), c) is None


def test_form_of_yes_no_is_exact():
    assert scales.form_of("no big purchases until May 7, 2024") == "text"
    assert scales.form_of("No") == scales.form_of("yes") == scales.form_of("Yes, 3 times") == "yesno"
    assert scales.form_of("Yes, twice") == "yesno" and scales.form_of("nobody") == "text"
    assert scales.form_of("Yes please, the blue one") == "text"


def test_absence_items_stay_short_and_yes_counts_keep_one_form():
    ctx = ctx_for()
    pool = mcq.Pool(ctx)
    no = cand("Between March 1 and March 5, did Maya ever go to a concert?", "No", YES_POOL)
    assert all(choose(ctx, pool, no, s) is None for s in range(12))
    assert mcq.pick_distractors("No", list(YES_POOL), [], random.Random(1)) is None
    for s in range(12):
        yes = cand("Did Maya go swimming in March?", "Yes, twice", YES_POOL)
        picked = choose(ctx, pool, yes, s)
        if picked is not None:
            assert all(p.startswith("Yes, ") for p in picked) and "No" not in picked
            assert {scales.scale_of(p).key for p in picked} == {scales.scale_of("Yes, twice").key}


# -- ruling out ---------------------------------------------------------------------------------------
def test_no_option_contains_another_and_none_is_named_by_the_question():
    gold = "The Salt Road"
    own = ["The Salt Road by Henrik Sand", "Paper Moons", "Paper Moons (second edition)", "Glasshouse Summer",
           "Tidewater", "Nine Rivers", "The Lighthouse Ledger", "Dog-Eared Days"]
    for seed in range(40):
        picked = mcq.pick_distractors(gold, own, [], random.Random(seed))
        assert picked is not None
        options = [gold] + picked
        assert not any(mcq.overlaps(a, b) for i, a in enumerate(options) for b in options[i + 1:]), options
    ctx = ctx_for(world=world_with_cities(9))
    c = cand("Did Maya move from Boston to Seattle or to another city?", "Cambridge",
             ["Boston", "Seattle", "Chicago", "Denver", "Austin", "Portland", "Miami", "Phoenix"], [f"{PID}-f0007"])
    for seed in range(20):
        picked = choose(ctx, mcq.Pool(ctx), c, seed)
        assert picked is not None and "Boston" not in picked and "Seattle" not in picked


def test_items_listing_their_options_stay_short_answer():
    ctx = ctx_for()
    c = cand("Which did Maya do first: move to Cambridge, adopt Biscuit, or start pottery?", "adopt Biscuit",
             ["move to Cambridge", "start pottery"], options_in_question=True)
    assert choose(ctx, mcq.Pool(ctx), c) is None


# -- determinism --------------------------------------------------------------------------------------
def test_make_mcq_is_deterministic_and_positions_stay_uniform():
    world = world_with_cities(9)
    ctx = ctx_for(world=world, corpus=hand_corpus(CITY_TALK), mcq_share=1.0)
    items = [cand(f"How many walks did Maya take in week {i}?", str(i % 9), count_pool(i % 9)) for i in range(24)]
    items += [cand(f"Which city does Maya live in now ({i})?", "Cambridge", ["Boston"], [f"{PID}-f0007"])
              for i in range(6)]
    chosen = [Prepared(c, "t", ctx.asked_at, ctx.asked_at, (), "in_timeline") for c in items]
    first, again = make_mcq(ctx, chosen), make_mcq(ctx, chosen)
    assert first == again and len(first) >= 10  # items a heuristic wins only as far as its losses offset them
    # no memory-free heuristic is expected to score more than its chance share (one in six) of the items: a tie
    # that includes the gold counts as the guess among the tied it is
    index = mcq.history_index(ctx)
    expected = Counter()
    for i, (options, gold) in first.items():
        expected.update(mcq.shortcut_credit(items[i].question, options, gold, ctx.asked_at, index))
    assert set(expected) == set(mcq.SHORTCUTS)
    assert all(v <= len(first) / MCQ_OPTIONS + 1 + 1e-9 for v in expected.values())
    for i, (options, gold) in first.items():
        assert options[gold] == items[i].answer and len({scales.normalize(o) for o in options}) == MCQ_OPTIONS


def test_shortcuts_name_the_heuristics_that_single_out_the_gold():
    ctx = ctx_for(corpus=hand_corpus(CITY_TALK))
    options = ["Boston", "Cambridge Heights Café", "Denver", "Seattle", "Chicago", "Lisbon"]
    found = mcq.shortcuts("Which café does Maya like?", options, 1, ctx.asked_at, mcq.history_index(ctx))
    assert "question_only_longest" in found and "question_only_overlap" in found
    # Boston is said once in the history, the others never: the frequency heuristic would pick it
    assert "question_only_frequent" in mcq.shortcuts("Where?", options, 0, ctx.asked_at, mcq.history_index(ctx))
    prior = Counter({"denver": 3, "boston": 1})
    assert mcq.shortcuts("Where?", options, 2, ctx.asked_at, mcq.history_index(ctx), prior) == ["answer_prior"]


def test_shortcut_credit_counts_a_tie_with_the_gold_as_a_guess_among_the_tied():
    ctx = ctx_for(corpus=hand_corpus(CITY_TALK))
    index = mcq.history_index(ctx)
    options = ["Boston", "Cambridge Heights Café", "Denver", "Seattle", "Chicago", "Lisbon"]
    credit = mcq.shortcut_credit("Which café does Maya like?", options, 1, ctx.asked_at, index)
    assert credit["question_only_longest"] == 1.0 and credit["question_only_overlap"] == 1.0
    # no option of these is said more than another but Boston: Denver ties with four others at zero, Boston wins
    assert credit["question_only_frequent"] == 0.0 and credit["answer_prior"] == 1 / 6
    tied = mcq.shortcut_credit("Which city is it?", ["Denver", "Paris", "Oslo", "Lima", "Rome", "Kyiv"], 2,
                               ctx.asked_at, index, Counter({"oslo": 2, "lima": 2}))
    assert tied["answer_prior"] == 0.5 and tied["question_only_longest"] == 0.0
