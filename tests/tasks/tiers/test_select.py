"""The tier builder on tiny hand-made lives: what a cut keeps and drops, counts re-derived on the window, padding
that refuses colliding haystack, nesting, and the bad budgets."""

import datetime as dt

import pytest

from schemas.tiers import TierError, tier_budget, tier_name
from tasks.tiers.model import Item, Life, Need, Unit
from tasks.tiers.select import build_tiers

T0 = dt.datetime(2024, 1, 1, 9, tzinfo=dt.UTC)
ASK = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)


def item(item_id, tokens, day=1, kind="session", persona="p0", text="", attributes=()):
    return Item(item_id, kind, persona, T0 + dt.timedelta(days=day), tokens, text=text,
                attributes=frozenset(attributes))


def need(qid, groups, category="fact", persona="p0", **kw):
    evidence = tuple((f"{g[0]}-ev", g[0]) for g in groups)
    return Need(qid, persona, category, ASK, kw.pop("answer", "x"), kw.pop("reference", "ref"),
                kw.pop("answer_type", "short"), groups=tuple(tuple(g) for g in groups), evidence=evidence, **kw)


def life(items, needs, persona="p0", **kw):
    return Life(persona_id=persona, items=items, needs=needs, **kw)


def by_tier(build, tier):
    return ({h.item_id for h in build.history if h.tier == tier},
            {q.question_id: q for q in build.questions if q.tier == tier},
            next(r for r in build.tiers if r.tier == tier))


def test_a_cut_keeps_the_evidence_that_fits_and_drops_the_rest():
    lives = [life([item("a", 100), item("b", 100, 2), item("c", 100, 3), item("d", 500, 4)],
                  [need("q1", [("a",)]), need("q2", [("d",)])])]
    items, questions, row = by_tier(build_tiers(lives, [300], seed=0), "300")
    assert "a" in items and "d" not in items  # q2's evidence (500 tokens) cannot fit in 300
    assert set(questions) == {"q1"} and questions["q1"].evidence_ids == ["a-ev"]
    assert row.mode == "cut" and row.tokens == 300 and items == {"a", "b", "c"}  # the rest filled while it fits


def test_a_fact_shown_by_several_items_takes_the_smallest():
    lives = [life([item("long", 900), item("short", 50, 2), item("other", 2000, 3)],
                  [need("q1", [("long", "short")])])]
    items, questions, _ = by_tier(build_tiers(lives, [1000], seed=0), "1k")
    assert "short" in items and "q1" in questions


def test_a_count_is_re_derived_on_what_the_cut_keeps_and_an_absence_is_left_out():
    units = (Unit("f1", ("a",), dt.date(2024, 1, 2)), Unit("f2", ("d",), dt.date(2024, 1, 5)))
    count = need("count", [], category="aggregation", answer="2", all_instances=True, units=units,
                 countable=True, reference="2 went badly: January 2 and January 5.")
    absence = need("absent", [], category="aggregation", answer="February 2024", all_instances=True,
                   units=units)
    anchor = need("q1", [("a",)])
    lives = [life([item("a", 100), item("b", 100, 2), item("d", 5000, 4)], [count, absence, anchor])]
    _, questions, row = by_tier(build_tiers(lives, [1000], seed=0), "1k")
    assert questions["count"].rederived and questions["count"].answer == "1"
    assert questions["count"].reference_answer == "1, in what this history holds: January 2, 2024."
    assert "absent" not in questions and row.rederived == 1
    _, whole, _ = by_tier(build_tiers(lives, [10_000], seed=0), "10k")
    assert whole["count"].answer == "2" and not whole["count"].rederived and "absent" in whole


def test_tiers_nest_and_keep_the_smaller_tier_s_questions():
    items = [item(f"s{k}", 40 + 7 * k, k) for k in range(40)]
    needs = [need(f"q{k}", [(f"s{k}",)], category=("fact", "temporal")[k % 2]) for k in range(0, 40, 3)]
    build = build_tiers([life(items, needs)], [300, 900], seed=3)
    small, small_q, _ = by_tier(build, "300")
    large, large_q, _ = by_tier(build, "900")
    assert small < large and set(small_q) <= set(large_q)
    assert build_tiers([life(items, needs)], [300, 900], seed=3) == build  # seeded


def test_padding_fills_to_the_budget_with_haystack_that_collides_with_nothing():
    own = life([item("a", 200)], [need("q1", [("a",)])], vocabulary=frozenset({"Mai Santos", "Mai"}),
               own_names=frozenset({"Rosa"}))
    lender = life([item("o1", 150, 2, persona="p1", text="We talked about Mai and her garden."),
                   item("o2", 150, 3, persona="p1", text="Tom here: the class was great.", attributes={"hobby"}),
                   item("o3", 150, 4, persona="p1", text="Dinner at the new place.", attributes={"dinner_out"}),
                   item("o4", 150, 5, persona="p1", text="A quiet walk by the river.")],
                  [need("p1q", [("o1",)], persona="p1")], persona="p1", own_names=frozenset({"Tom"}))
    own.needs[0] = Need("q1", "p0", "fact", ASK, "x", "ref", "short", groups=(("a",),), evidence=(("a-ev", "a"),),
                        attributes=frozenset({"dinner_out"}))

    def chats(life_, seed):
        for k in range(10_000):
            text = "Is Mai a name?" if k % 5 == 0 else f"How do I boil an egg, take {k}?"
            yield Item(f"{life_.persona_id}-c{k:05d}", "task_chat", life_.persona_id, T0 + dt.timedelta(hours=k),
                       30, text=text, turns=(("user", text), ("assistant", "Nine minutes.")), topic="cooking")

    build = build_tiers([own, lender], [2000], seed=1, chat_share=0.3, task_chats=chats)
    items, questions, row = by_tier(build, "2k")
    borrowed = {h.item_id for h in build.history if h.tier == "2k" and h.persona_id == "p0" and h.source == "haystack"}
    assert "o1" not in borrowed  # names Mai, of p0's world
    assert "o2" not in borrowed  # names Tom, p1's own user
    assert "o3" not in borrowed  # a dinner out: p0 is asked about dinners out
    assert "o4" in borrowed
    assert row.mode == "padded" and abs(row.tokens - 2000) <= 0.02 * 2000 and "q1" in questions
    chat_texts = {c.text for c in build.chats if c.persona_id == "p0"}
    assert chat_texts and not any("Mai" in t for t in chat_texts)


def test_a_budget_below_every_evidence_window_is_one_clear_error():
    lives = [life([item("a", 800), item("b", 900, 2)], [need("q1", [("a",)]), need("q2", [("b",)])])]
    with pytest.raises(TierError, match="below the shortest evidence window of persona p0: its cheapest question "
                                        "needs 800 tokens"):
        build_tiers(lives, [500], seed=0)


@pytest.mark.parametrize("name, budget", [("32k", 32_000), ("128K", 128_000), ("1M", 1_000_000),
                                          ("1.5m", 1_500_000), ("10M", 10_000_000)])
def test_tier_names_are_sizes(name, budget):
    assert tier_budget(name) == budget and tier_budget(tier_name(budget)) == budget


@pytest.mark.parametrize("name", ["big", "32", "1G", "0.1k", "200M"])
def test_a_tier_name_that_is_not_a_size_is_refused(name):
    with pytest.raises(TierError):
        tier_budget(name)
