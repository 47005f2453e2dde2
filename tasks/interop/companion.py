"""Export of the companion tracks (issue 12): per persona `<persona>/profile.json` (claims with their evidence),
`<persona>/portrait.md` (the fixed slots) and `<persona>/chat_probes.jsonl` (one probe per line).

Pure: rows in, {relative path: text} out (warehouse/interop.py writes the files). Evidence turns are given with
their text and timestamp, so a profile file can be read without the rest of the release. Each claim carries
`subject`, `attribute` and `value`: the key a reconstruction prediction row must name (tasks/evaluate/companion.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence

from schemas.companion import PORTRAIT_SLOTS, ChatProbe, PortraitSlot, ProfileClaim
from schemas.corpus import Turn


def _profile(pid: str, claims: Sequence[ProfileClaim], turns: dict[str, Turn]) -> dict:
    """The profile file of one persona: as_of and its claims, each with its evidence turns."""
    out = []
    for c in sorted(claims, key=lambda c: c.claim_id):
        row = c.model_dump(mode="json", exclude={"persona_id", "as_of"})
        row["evidence"] = [{"turn_id": t, "timestamp": turns[t].timestamp.isoformat(), "text": turns[t].text}
                           for t in c.evidence_turn_ids if t in turns]
        out.append(row)
    as_of = max((c.as_of for c in claims), default=None)
    return {"persona_id": pid, "as_of": as_of.isoformat() if as_of else None, "claims": out}


def _portrait(pid: str, slots: Sequence[PortraitSlot]) -> str:
    """The portrait as Markdown: one section per fixed slot, in PORTRAIT_SLOTS order."""
    by_slot = {s.slot: s for s in slots}
    as_of = max((s.as_of for s in slots), default=None)
    lines = [f"# Portrait of {pid}", ""] + ([f"As of {as_of.isoformat()}.", ""] if as_of else [])
    for name in PORTRAIT_SLOTS:
        slot = by_slot.get(name)
        text = slot.text.strip() if slot and slot.text.strip() else "_Nothing said._"
        cites = f" (claims: {', '.join(slot.claim_ids)})" if slot and slot.claim_ids else ""
        lines += [f"## {name.replace('_', ' ').capitalize()}", "", text + cites, ""]
    return "\n".join(lines)


def _probes(probes: Sequence[ChatProbe]) -> str:
    return "".join(json.dumps(p.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n"
                   for p in sorted(probes, key=lambda p: p.probe_id))


def export_companion(probes: Sequence[ChatProbe], claims: Sequence[ProfileClaim], portraits: Sequence[PortraitSlot],
                     turns: Sequence[Turn]) -> dict[str, str]:
    """{`<persona>/profile.json`, `<persona>/portrait.md`, `<persona>/chat_probes.jsonl`: text} for every persona
    with companion rows."""
    groups: dict[str, dict[str, list]] = defaultdict(lambda: {"probes": [], "claims": [], "portraits": []})
    for kind, rows in (("probes", probes), ("claims", claims), ("portraits", portraits)):
        for r in rows:
            groups[r.persona_id][kind].append(r)
    cited = {t for c in claims for t in c.evidence_turn_ids}
    by_id = {t.turn_id: t for t in turns if t.turn_id in cited}
    out: dict[str, str] = {}
    for pid in sorted(groups):
        g = groups[pid]
        out[f"{pid}/profile.json"] = json.dumps(_profile(pid, g["claims"], by_id), indent=2, ensure_ascii=False) + "\n"
        out[f"{pid}/portrait.md"] = _portrait(pid, g["portraits"])
        out[f"{pid}/chat_probes.jsonl"] = _probes(g["probes"])
    return out
