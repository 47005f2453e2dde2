"""Glue between the release gates and the build's domain pack (tasks/domains/).

- the pack's own suites are gathered by validation/suites.py `pack_suites` (the registry every family uses).
- `pack_floors`: coverage floors of `config.gates` restricted to the pack's taxonomy. A floor naming a
  category or characteristic of another pack's taxonomy (the defaults name RHELM's) does not apply to
  this build; a name no taxonomy knows still applies, so a typo fails its gate instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas.config import BuildConfig
from schemas.qa import TAXONOMIES


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
