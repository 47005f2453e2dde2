"""The finance domain pack (FinPerMA): investor personas, a dated event catalog, the Impact Model and
FinPerMA's question grid. `FinancePack` only routes each hook to the module that implements it
(world.py: personas, schedule, roll-out and narration; questions.py: generators and controls;
review.py: the QA review's recomputation; gates.py: suites and release figures); the modules are
imported when a hook first runs, so importing this package costs nothing.
"""

from __future__ import annotations

from typing import Any

from schemas.config import BuildConfig
from schemas.profile import Persona
from tasks.domains.base import DomainPack, PackOutcome, PersonaSeed, ScheduledEvent


def _world():
    from tasks.domains.finance import world

    return world


class FinancePack(DomainPack):
    """Personal finance after FinPerMA; every hook delegates to tasks/domains/finance/<module>.py."""

    name = "finance"
    taxonomy_name = "finperma"

    def check(self, config: BuildConfig) -> None:
        """The core's checks, then the pack's own (catalog coverage of the dates, event counts, ...)."""
        super().check(config)
        _world().check(config)

    def persona_seeds(self, config: BuildConfig) -> list[PersonaSeed] | None:
        """Investor personas sampled with the type quotas (world.persona_seeds)."""
        return _world().persona_seeds(config)

    def profile_hints(self, config: BuildConfig, seed: PersonaSeed) -> dict[str, Any]:
        """Age, income and occupation hints from the sampled investor (world.profile_hints)."""
        return _world().profile_hints(config, seed)

    def shape_persona(self, config: BuildConfig, persona: Persona, seed: PersonaSeed) -> Persona:
        """The persona made consistent with its investor attributes (world.shape_persona)."""
        return _world().shape_persona(config, persona, seed)

    def attributes(self) -> tuple:
        """Risk stance, allocation, goal and horizon, and the work status a catalog event sets (finance state, moved
        at the pace of the pack's own schedule, so not rate-bound here), the formative memory, and the reaction to
        an event (an event attribute: what they did about it, never superseded)."""
        from tasks.world.ontology import Attribute

        state = ("risk_tolerance", "stock_allocation", "investment_goal", "investment_horizon", "formative_memory",
                 "work_status")
        return (*(Attribute(a, "persona", "finance") for a in state), Attribute("reaction", "other", "event"))

    def baseline_facts(self, config: BuildConfig, persona: Persona) -> list:
        """Risk stance, holdings and goals on the first day (world.baseline_facts)."""
        return _world().baseline_facts(config, persona)

    def schedule(self, config: BuildConfig, persona: Persona) -> list[ScheduledEvent]:
        """The persona's catalog events, dated and spaced (world.schedule)."""
        return _world().schedule(config, persona)

    def owned_kinds(self, scheduled: list[ScheduledEvent]) -> frozenset[str]:
        """The core career kinds, when the schedule holds a catalog event that changes the persona's work."""
        from tasks.domains.finance.impact import WORK_STATUS

        career = frozenset({"new_job", "restructure", "retire", "promotion"})
        return career if any(s.key in WORK_STATUS for s in scheduled) else frozenset()

    def roll_out(self, config: BuildConfig, persona: Persona, state: Any, event: ScheduledEvent,
                 event_id: str, history: list) -> PackOutcome:
        """The Impact Model's layer 1 for one event (world.roll_out)."""
        return _world().roll_out(config, persona, state, event, event_id, history)

    def narrate(self, config: BuildConfig, persona: Persona, gateway: Any,
                pending: list[tuple[Any, PackOutcome]]) -> tuple[list[str], dict[str, list[Any]]]:
        """Layers 2 and 3: checked narrations with the template fallback (world.narrate)."""
        return _world().narrate(config, persona, gateway, pending)

    def generators(self) -> dict:
        """FinPerMA's generators (importing questions.py registers them), filtered by the taxonomy."""
        import tasks.domains.finance.questions  # noqa: F401  (registers the @generator functions)

        return super().generators()

    def controls(self, ctx: Any) -> list:
        """FinPerMA's zero-memory controls (questions.controls)."""
        from tasks.domains.finance import questions

        return questions.controls(ctx)

    def recompute(self, question: Any, persona: Persona, world: Any, corpus: Any) -> str | None:
        """The answer recomputed from the constraints and fact store (review.recompute)."""
        from tasks.domains.finance import review

        return review.recompute(question, persona, world, corpus)

    def suites(self, config: BuildConfig) -> list:
        """Type quotas, event counts and spacing, post-shock changes and the impact audit (gates.suites);
        MCQ balance is gated by the core leakage and distribution suites."""
        from tasks.domains.finance import gates

        return gates.suites(config)

    def release_stats(self, con: Any, run_id: str) -> dict[str, Any]:
        """Figures for the manifest's `domain` entry (gates.release_stats)."""
        from tasks.domains.finance import gates

        return gates.release_stats(con, run_id)
