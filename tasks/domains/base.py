"""The domain-pack interface: what a pack supplies to the core pipeline.

A pack is one object with hooks; the core stages call the hooks of `pack_for(config)` and never test
which pack they run. `DomainPack` itself is the general pack (RHELM's everyday life): every hook has
the core's behaviour, so a new pack overrides only what it changes.

- personas: `persona_seeds` samples the corpus's people (None: the core's bundled seeds or seed file);
  each seed carries the attributes the pack sampled (landed in `personas.attributes`).
- world: `baseline_facts` adds facts to the first day's baseline event; `schedule` dates the pack's
  own events for one persona; `roll_out` turns one of them into an event outcome (facts, profile
  changes, rows of the pack's tables) when LOOP reaches its day; `narrate` words those events
  (the pack checks and retries its own narrations) once the simulation is over.
- questions: `taxonomy` (categories -> characteristics) and `generators` (registry keys -> functions);
  `controls` builds the zero-memory controls.
- gates: `suites` adds the pack's own release-gate suites (quotas, spacing, ...).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from schemas.config import BuildConfig
from schemas.profile import Persona
from schemas.world import Event
from tasks.world.ontology import Attribute

if TYPE_CHECKING:
    from tasks.llm.gateway import Gateway
    from tasks.questions.base import Candidate, Generator, QContext
    from tasks.world.evolve import FactDraft, WorldState
    from validation.suites import Suite


@dataclass(frozen=True)
class PersonaSeed:
    """One sampled person: the seed description the profile stage enriches, and the pack's attributes."""

    seed_text: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScheduledEvent:
    """A pack event dated for one persona (finance: a catalog event the persona lives through)."""

    key: str  # the pack's id for it (finance: the catalog_id)
    date: dt.date
    kind: str  # Event.kind of the rolled-out event, e.g. "market:svb_collapse"
    title: str  # short lower-case phrase naming it, as question templates quote it
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class PackOutcome:
    """What one scheduled event does when rolled out on its day.

    `drafts` are committed in the factual phase like any outcome's facts (their `path` changes the
    profile); `state` maps profile paths to values set in the state phase; `rows` are rows of the pack's
    own tables by table name (they land with the persona's world, see `World.extras`); `narration`
    is whatever the pack's `narrate` needs later (kept in event order)."""

    valence: str  # "positive" | "negative"
    severity: int
    critical: bool
    drafts: list[FactDraft] = field(default_factory=list)
    state: dict[str, str] = field(default_factory=dict)
    rows: dict[str, list[Any]] = field(default_factory=dict)
    narration: Any = None


class DomainPack:
    """The general pack, and the base every other pack overrides."""

    name = "general"
    taxonomy_name = "rhelm"

    def check(self, config: BuildConfig) -> None:
        """Raise ConfigError when the config cannot work for this pack (checked before any stage runs).
        The core's check: the category share gate can hold with this pack's number of categories."""
        from schemas.config import ConfigError

        categories = len(self.taxonomy())
        share = config.gates.max_category_share
        if share * categories < 1 - 1e-9:
            raise ConfigError(
                f"field 'gates.max_category_share': {share} cannot hold with the {categories} question categories "
                f"of domain {config.domain!r} (at least {1 / categories:.2f} is needed)")

    # -- personas ----------------------------------------------------------------------------------
    def persona_seeds(self, config: BuildConfig) -> list[PersonaSeed] | None:
        """The corpus's people in persona-id order, or None to use the core's seeds."""
        return None

    def profile_hints(self, config: BuildConfig, seed: PersonaSeed) -> dict[str, Any]:
        """Hints that override the core's (age, income_band, occupation, ...) for the profile prompt."""
        return {}

    def shape_persona(self, config: BuildConfig, persona: Persona, seed: PersonaSeed) -> Persona:
        """The enriched persona made consistent with the pack's attributes (e.g. its Big Five)."""
        return persona

    # -- world -------------------------------------------------------------------------------------
    def attributes(self) -> tuple[Attribute, ...]:
        """The attributes the pack's facts carry, beyond the core ontology's (tasks/world/ontology.py)."""
        return ()

    def baseline_facts(self, config: BuildConfig, persona: Persona) -> list[FactDraft]:
        """Facts the pack adds to the baseline event on the first day."""
        return []

    def schedule(self, config: BuildConfig, persona: Persona) -> list[ScheduledEvent]:
        """The pack's events for one persona, dated within [config.start_date, config.end_date]."""
        return []

    def owned_kinds(self, scheduled: list[ScheduledEvent]) -> frozenset[str]:
        """Core event kinds the simulator does not plan for a persona with these pack events, because the pack's
        events decide that part of the life (finance: a job loss or a retirement in the schedule owns the career)."""
        return frozenset()

    def roll_out(self, config: BuildConfig, persona: Persona, state: WorldState, event: ScheduledEvent,
                 event_id: str, history: list[Event]) -> PackOutcome:
        """The outcome of one scheduled event on its day (`history`: the persona's events so far)."""
        raise NotImplementedError(f"domain pack {self.name!r} schedules no events")

    def narrate(self, config: BuildConfig, persona: Persona, gateway: Gateway,
                pending: list[tuple[Event, PackOutcome]]) -> tuple[list[str], dict[str, list[Any]]]:
        """Narratives for the rolled-out pack events (in order), and the pack's rows updated with them."""
        return [], {}

    # -- questions ---------------------------------------------------------------------------------
    def taxonomy(self) -> dict[str, tuple[str, ...]]:
        """Question categories -> characteristics this pack's questions use."""
        from schemas.qa import TAXONOMIES

        return TAXONOMIES[self.taxonomy_name]

    def generators(self) -> dict[str, Generator]:
        """Registry key (`category.characteristic`) -> generator, for this pack's taxonomy."""
        from tasks.questions import GENERATORS  # importing the package registers every core generator

        return {k: fn for k, fn in GENERATORS.items() if k.split(".", 1)[0] in self.taxonomy()}

    def controls(self, ctx: QContext) -> list[Candidate]:
        """The zero-memory control candidates."""
        from tasks.questions.checkpoints import control_candidates

        return control_candidates(ctx)

    def recompute(self, question: Any, persona: Persona, world: Any, corpus: Any) -> str | None:
        """The QA review's independent recomputation of a pack question's answer (None: no pack rule)."""
        return None

    # -- gates and release ---------------------------------------------------------------------------
    def suites(self, config: BuildConfig) -> list[Suite]:
        """The pack's own release-gate suites."""
        return []

    def release_stats(self, con: Any, run_id: str) -> dict[str, Any]:
        """Figures for the manifest's `domain` entry (DuckDB connection over the run's tables)."""
        return {}
