"""Glue between the release gates and the build's domain pack (tasks/domains/).

- `pack_suites`: the pack's own suites (finance: investor-type quotas, event counts and spacing,
  post-shock changes and post-shock items per shocked persona, grid coverage, catalog-only event-title
  options, the impact fallback share and a layer-1 audit of the impact rows), run after the core
  families; a pack suite may not take a core family's name, and its check names must be unique within
  it. Multiple-choice balance (gold position, longest option, ordinal rank) is not a pack check: the
  core leakage suite gates it for every pack's items.
- `pack_floors`: coverage floors of `config.gates` restricted to the pack's taxonomy. A floor naming a
  category or characteristic of another pack's taxonomy (the defaults name RHELM's) does not apply to
  this build; a name no taxonomy knows still applies, so a typo fails its gate instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas.config import BuildConfig
from schemas.qa import TAXONOMIES
from validation.suites import Suite

CORE_FAMILIES = ("integrity", "coverage", "consistency", "leakage", "distribution")


def pack_suites(config: BuildConfig) -> list[Suite]:
    """The domain pack's suites for `config` (none for the general pack)."""
    from tasks.domains import pack_for

    suites = list(pack_for(config).suites(config))
    names = [s.name for s in suites]
    for suite in suites:
        checks = [c.name for c in suite.checks]
        if suite.name in CORE_FAMILIES or names.count(suite.name) > 1:
            raise ValueError(f"domain pack {config.domain!r}: suite name {suite.name!r} is taken")
        if len(set(checks)) != len(checks) or any(c.frame not in suite.frames for c in suite.checks):
            raise ValueError(f"domain pack {config.domain!r}: suite {suite.name!r} repeats a check name "
                             "or checks a frame it does not build")
    return suites


def pack_taxonomy(config: BuildConfig) -> dict[str, tuple[str, ...]]:
    """The categories -> characteristics of the build's pack."""
    from tasks.domains import pack_for

    return pack_for(config).taxonomy()


def pack_floors(config: BuildConfig, dimension: str, floors: Mapping[str, int]) -> dict[str, int]:
    """`floors` of a question `dimension` ("category" or "characteristic") without the names that belong
    to another taxonomy than the pack's (other dimensions are returned unchanged)."""
    if dimension not in ("category", "characteristic"):
        return dict(floors)
    own = pack_taxonomy(config)
    mine = set(own) if dimension == "category" else {ch for chars in own.values() for ch in chars}
    others = set()
    for tax in TAXONOMIES.values():
        others |= set(tax) if dimension == "category" else {ch for chars in tax.values() for ch in chars}
    return {name: n for name, n in floors.items() if name in mine or name not in others}
