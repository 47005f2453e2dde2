"""The Impact Model: layer 1 deterministic and monotone, type rules, layer 3 verdicts, fallback."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from schemas.finance import CatalogEvent, ImpactNarration, InvestorProfile, ShockCoefficients
from schemas.world import Event
from tasks.common.facttext import mentions
from tasks.domains.base import PackOutcome
from tasks.domains.finance import impact as im
from tasks.domains.finance import world
from tasks.llm import checks
from tasks.llm.providers.narrators.finance import impact_reaction

BIG_FIVE = {"openness": 0.5, "conscientiousness": 0.5, "extraversion": 0.5, "agreeableness": 0.5, "neuroticism": 0.6}


def investor(bit_type: str = "preserver", anti: bool = False, **kw) -> InvestorProfile:
    base = {"age": 40, "annual_income": 60000, "wealth": 100000, "experience_years": 5,
            "goals": ["saving for retirement"], "horizon_years": 20, "big_five": BIG_FIVE, "risk_score": 0.5,
            "bit_type": bit_type, "anti_typical": anti,
            "region": "Europe"}
    return InvestorProfile(**(base | kw))


def event(kind: str = "macro", severity: int = 4, **shock) -> CatalogEvent:
    return CatalogEvent(
        catalog_id="test_event", date=None if kind == "personal" else dt.date(2020, 3, 9), type=kind,
        title="a test shock", assets=["equities"], region="global", summary="A test.",
        typical_responses=["sold equities into cash", "bought the dip", "held and waited"], severity=severity,
        shock=ShockCoefficients(**shock),
    )


def constraint(inv: InvestorProfile, ev: CatalogEvent, risk_before: float = 0.5, history: list[Event] | None = None):
    return im.build_constraint(persona_id="p0000", number=1, event_id="p0000-e0003", investor=inv, event=ev,
                               date=dt.date(2020, 3, 9), risk_before=risk_before, history=history or [],
                               memory_ref=None, shock_severity=4)


def test_same_inputs_give_the_same_constraint():
    ev = event(equity=-0.8, uncertainty=0.9)
    assert constraint(investor(), ev) == constraint(investor(), ev)


@pytest.mark.parametrize("bit_type", ["preserver", "follower", "independent", "accumulator"])
@pytest.mark.parametrize("anti", [False, True])
@pytest.mark.parametrize(("kind", "coeffs"), [
    ("macro", {"equity": -0.5, "rates": 0.2, "uncertainty": 0.5}),
    ("macro", {"equity": 0.4, "wealth": 0.2}),
    ("industry", {"equity": -0.3, "safe_assets": -0.2}),
    ("personal", {"income": -0.6, "wealth": -0.2, "uncertainty": 0.4}),
    ("personal", {"wealth": 0.5, "income": 0.1}),
])
def test_a_harsher_shock_never_gives_a_smaller_change(bit_type, anti, kind, coeffs):
    inv, scales = investor(bit_type, anti), (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)

    def delta(severity: int, scale: float, risk_before: float) -> float:
        shock = {k: v if k == "uncertainty" else max(-1.0, min(1.0, v * scale)) for k, v in coeffs.items()}
        return constraint(inv, event(kind, severity, **shock), risk_before).delta

    for risk_before in (0.3, 0.5, 0.8):
        grid = [[delta(s, k, risk_before) for k in scales] for s in range(1, 6)]
        for s in range(5):
            for k in range(len(scales)):
                assert s == 0 or grid[s][k] >= grid[s - 1][k], (risk_before, s, k, grid)
                assert k == 0 or grid[s][k] >= grid[s][k - 1], (risk_before, s, k, grid)
        if bit_type == "follower" and not anti:  # moves with every shock: the grid is not flat
            assert grid[-1][-1] > grid[0][0], grid


def test_type_rules_on_a_market_crash():
    crash = event(equity=-0.8, uncertainty=0.9, severity=5)
    assert constraint(investor("preserver"), crash).direction == "decrease"
    assert constraint(investor("follower"), crash).direction == "decrease"
    assert constraint(investor("independent"), crash).direction == "increase"
    preserver, accumulator = constraint(investor("preserver"), crash), constraint(investor("accumulator"), crash)
    assert preserver.delta > accumulator.delta
    assert preserver.evolution_type == "shock_retreat"
    assert "overconfidence" in preserver.forbidden_biases
    assert preserver.action.startswith("cut stocks from 50% to ") and "sold equities into cash" in preserver.action


def test_anti_typical_personas_take_the_opposite_rule():
    rally = event(equity=0.7, severity=4)
    assert constraint(investor("preserver", anti=True), rally) == constraint(investor("accumulator"), rally).model_copy(
        update={"bit_type": "preserver", "anti_typical": True})


def test_job_loss_cuts_risk_for_every_type_and_inheritance_adds():
    job_loss = event("personal", 4, income=-0.9, wealth=-0.2, uncertainty=0.6)
    inheritance = event("personal", 2, wealth=0.8)
    for bit_type in ("preserver", "follower", "independent", "accumulator"):
        assert constraint(investor(bit_type), job_loss).direction == "decrease"
    windfall = constraint(investor("accumulator"), inheritance)
    assert (windfall.direction, windfall.evolution_type) == ("increase", "windfall_expansion")


def test_experience_and_earlier_same_sign_shocks_dampen():
    crash = event(equity=-0.6, uncertainty=0.5)
    fresh = constraint(investor("follower", experience_years=0), crash)
    seasoned = constraint(investor("follower", experience_years=30), crash)
    earlier = [Event(event_id=f"p0000-e000{i}", persona_id="p0000", date=dt.date(2020, 1, i + 1), kind="market:x",
                     valence="negative", severity=4, critical=True, narrative="") for i in range(1, 4)]
    burned = constraint(investor("follower", experience_years=0), crash, history=earlier)
    assert fresh.delta > seasoned.delta and fresh.delta > burned.delta
    assert fresh.experience_factor > burned.experience_factor


def test_hold_has_zero_delta_and_small_bounds():
    mild = constraint(investor("preserver"), event(equity=0.1, severity=1))
    assert (mild.direction, mild.delta, mild.delta_min, mild.evolution_type) == ("hold", 0, 0, "steady_hold")
    assert 0 < mild.delta_max <= 0.02 and mild.action == "kept stocks at 50%"


def good(c) -> ImpactNarration:
    phrases = " ".join(f"{p}." for p in im.fact_phrases(c))
    return ImpactNarration(narrative=f"It hit hard. {phrases}", risk_direction=c.direction, risk_change=c.delta,
                           evolution_type=c.evolution_type, biases=[])


def test_layer3_accepts_a_faithful_narration_and_rejects_a_wrong_direction():
    c = constraint(investor("preserver"), event(equity=-0.8, uncertainty=0.9, severity=5))
    assert im.check_narration(good(c), c) is None
    wrong = good(c).model_copy(update={"risk_direction": "increase"})
    assert "risk_direction" in im.check_narration(wrong, c)


@pytest.mark.parametrize(("update", "word"), [
    ({"risk_change": 0.9}, "outside"),
    ({"biases": ["overconfidence"]}, "may not show"),
    ({"biases": ["astrology"]}, "unknown"),
    ({"evolution_type": "opportunistic_increase"}, "inconsistent"),
    ({"narrative": "I sold some things."}, "verbatim"),
])
def test_layer3_rejects_each_broken_field(update, word):
    c = constraint(investor("preserver"), event(equity=-0.8, uncertainty=0.9, severity=5))
    assert word in im.check_narration(good(c).model_copy(update=update), c)


def test_tolerance_is_twenty_percent_beyond_the_bounds():
    c = constraint(investor("preserver"), event(equity=-0.8, uncertainty=0.9, severity=5))
    edge = good(c).model_copy(update={"risk_change": round(c.delta_max * 1.2, 4)})
    beyond = good(c).model_copy(update={"risk_change": round(c.delta_max * 1.2 + 0.01, 4)})
    assert im.check_narration(edge, c) is None and im.check_narration(beyond, c) is not None


def _outcome(c, ev) -> PackOutcome:
    from tasks.domains.base import ScheduledEvent
    from tasks.domains.finance.world import reaction_context

    profile = {"identity": {"name": "Ana Lima", "age": 40, "occupation": "nurse", "city": "Lisbon"},
               "personality": {"communication": {"formality": 0.4, "verbosity": 0.7, "emoji": False,
                                                 "vocabulary": ["honestly"]}},
               "current_status": {"mood": "calm"}}
    sched = ScheduledEvent(ev.catalog_id, dt.date(2020, 3, 9), "market:test_event", ev.title)
    context = reaction_context(profile, investor("preserver"), ev, sched, c, "lost money in the 2008 crash")
    return PackOutcome("negative", ev.severity, True, narration={"constraint": c, "context": context,
                                                                 "title": ev.title,
                                                                 "memory": "lost money in the 2008 crash"})


def test_offline_narrator_passes_layer3_and_the_prompt_renders():
    from tasks.llm import prompts

    ev = event(equity=-0.8, uncertainty=0.9, severity=5)
    c = constraint(investor("preserver"), ev)
    context = _outcome(c, ev).narration["context"]
    for k in range(20):
        out = ImpactNarration.model_validate(impact_reaction(context, random.Random(k)))
        assert im.check_narration(out, c) is None
        assert checks.check("impact_reaction", out, context) is None  # the registered hard check
    assert "cut stocks from 50%" in prompts.render("impact_reaction", context)


class _WrongGateway:
    """Every narration goes the wrong way."""

    def __init__(self):
        self.samples = []

    def generate_many(self, specs):
        self.samples += [s.sample for s in specs]
        return [ImpactNarration(narrative="I bought more.", risk_direction="increase", risk_change=0.1,
                                evolution_type="opportunistic_increase") for _ in specs]


def test_three_failed_narrations_fall_back_to_the_template_with_low_confidence():
    from schemas.config import BuildConfig
    from schemas.profile import Persona

    ev = event(equity=-0.8, uncertainty=0.9, severity=5)
    c = constraint(investor("preserver"), ev)
    gateway = _WrongGateway()
    persona = Persona.model_construct(persona_id="p0000", name="Ana Lima")
    cfg = BuildConfig(name="t", domain="finance")
    texts, rows = world.narrate(cfg, persona, gateway, [(None, _outcome(c, ev))])
    assert gateway.samples == [0, 1, 2]
    row = rows["impact_constraints"][0]
    assert (row.confidence, row.attempts, row.narrative) == (0.2, 3, texts[0])
    assert all(mentions(texts[0], p) for p in im.fact_phrases(c))
    assert im.check_narration(good(c).model_copy(update={"narrative": texts[0]}), c) is None


class _WrongProvider:
    """A live provider whose every narration goes the wrong way (layer 3 always refuses it)."""

    name, model = "scripted", "m1"

    def __init__(self):
        self.calls = 0

    def complete(self, request):
        from tasks.llm.gateway import LLMResponse

        self.calls += 1
        text = ImpactNarration(narrative="I bought more.", risk_direction="increase", risk_change=0.1,
                               evolution_type="opportunistic_increase").model_dump_json()
        return LLMResponse(text=text, input_tokens=10, output_tokens=5)


def test_a_live_gateway_fallback_counts_as_a_failed_narration():
    from schemas.config import BuildConfig, ProviderConfig
    from schemas.profile import Persona
    from tasks.llm.gateway import Gateway

    ev = event(equity=-0.8, uncertainty=0.9, severity=5)
    c = constraint(investor("preserver"), ev)
    provider = _WrongProvider()
    gateway = Gateway(ProviderConfig(), provider=provider)
    persona = Persona.model_construct(persona_id="p0000", name="Ana Lima")
    texts, rows = world.narrate(BuildConfig(name="t", domain="finance"), persona, gateway, [(None, _outcome(c, ev))])
    row = rows["impact_constraints"][0]
    assert provider.calls == 3  # the gateway's three repairs against layer 3, then no more calls
    assert (row.confidence, row.attempts) == (0.2, 3)
    assert texts[0] == im.fallback_narrative(c, ev.title, "lost money in the 2008 crash")
    [ledger] = gateway.drain_ledger()
    assert (ledger.outcome, ledger.prompt_name) == ("fallback", "impact_reaction")


def test_the_offline_gateway_narration_passes_at_the_first_attempt():
    from schemas.config import BuildConfig, ProviderConfig
    from schemas.profile import Persona
    from tasks.llm.gateway import Gateway

    ev = event(equity=-0.8, uncertainty=0.9, severity=5)
    c = constraint(investor("preserver"), ev)
    persona = Persona.model_construct(persona_id="p0000", name="Ana Lima")
    texts, rows = world.narrate(BuildConfig(name="t", domain="finance"), persona, Gateway(ProviderConfig()),
                                [(None, _outcome(c, ev))])
    assert (rows["impact_constraints"][0].confidence, rows["impact_constraints"][0].attempts) == (1.0, 1)
    assert im.check_narration(good(c).model_copy(update={"narrative": texts[0]}), c) is None


def test_evolution_type_follows_the_size_of_the_cut_not_the_severity():
    crash = event(equity=-0.8, uncertainty=0.9, severity=5)
    trim = constraint(investor("accumulator", big_five=BIG_FIVE | {"neuroticism": 0.3}, experience_years=20), crash)
    assert trim.direction == "decrease" and trim.delta < im.RETREAT
    assert trim.evolution_type == "cautious_drift"
    retreat = constraint(investor("preserver"), crash)
    assert retreat.delta >= im.RETREAT and retreat.evolution_type == "shock_retreat"
    wrong = good(trim).model_copy(update={"evolution_type": "shock_retreat"})
    assert "inconsistent" in im.check_narration(wrong, trim)


@pytest.mark.parametrize(("direction", "shock", "responses", "tail"), [
    ("decrease", -0.5, ["sold all investments", "paused contributions"], "paused contributions"),
    ("increase", 0.5, ["bought the dip in index funds", "bought US stocks"], "bought US stocks"),
    ("increase", -0.5, ["bought treasury bills", "bought the dip in index funds"], "bought the dip in index funds"),
    ("decrease", -0.5, ["bought treasury bills"], "bought treasury bills"),
    ("decrease", -0.5, ["sold Japanese bonds"], None),
    ("decrease", -0.5, ["panic-sold index funds"], None),  # a 5-point trim is no panic
])
def test_the_action_only_borrows_a_response_that_fits_the_change(direction, shock, responses, tail):
    after = 55 if direction == "decrease" else 65
    action = im.action_phrase(direction, 60, after, responses, shock)
    assert action.endswith(f" and {tail}") if tail else " and " not in action


def test_catalog_actions_never_contradict_the_allocation():
    from tasks.domains.finance import catalog

    for ev in catalog.catalog().values():
        for bit_type in ("preserver", "follower", "independent", "accumulator"):
            c = constraint(investor(bit_type), ev, 0.6)
            tail = c.action.partition(" and ")[2].lower()
            assert " all " not in f" {tail} " and not ("dip" in tail and c.shock >= 0), c.action
            assert not (c.direction == "increase" and any(w in tail for w in ("treasur", "bond", "cash", "gold")))


def test_exposure_weights_crypto_by_risk_and_foreign_events_less():
    ftx = event(equity=-0.4, uncertainty=0.8, severity=5).model_copy(update={"assets": ["crypto"]})
    assert abs(im.felt_shock(ftx, investor(risk_score=0.2))) < abs(im.felt_shock(ftx, investor(risk_score=0.9)))
    us = event(equity=-0.4, severity=4).model_copy(update={"region": "US"})
    assert abs(im.felt_shock(us, investor(region="Europe"))) < abs(im.felt_shock(us, investor(region="North America")))
    assert im.felt_shock(us, investor(region="North America")) == im.felt_shock(us)


def test_the_offline_narrators_do_not_import_the_finance_pack():
    import subprocess
    import sys

    code = ("import sys, tasks.llm.providers.narrators; "
            "print(any(m.startswith('tasks.domains') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
