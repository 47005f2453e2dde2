"""What context a user turn needs from earlier turns: the rule the chat probes label with (tasks/companion/) and
the dialogue's memory_rate steering measures with (tasks/dialogue/recall.py). It lives in tasks/common/, not
tasks/companion/, so the dialogue stage's cache key does not cover the companion stage's code.

- Turns are in conversation order (timestamp, then id). A turn refers to a fact when the fact id is in its
  fact_ids (said by a surface form) or paraphrase_ids (referred to without its value).
- Candidates of a user turn: the facts it refers to (`direct`), and for each fact it states, its predecessor
  (the fact of the same subject and attribute it replaced) when the turn's time_refs name the predecessor's
  event (the dialogue's callback of a status update): `supersedes` when the values differ, else `callback`.
  Only those facts: the other facts of a called-back event are not needed.
- Required facts: candidates that have begun by the probe's persona-local date and that an EARLIER user turn
  referred to (a carrier). For each, the latest fact of its subject and attribute begun by that date is added
  (reason `latest`) when its value differs and the user told it: the turn refers to it or an earlier user turn
  did. A value the user never told is never required, and a same-value successor is no change.
- A told change: two required facts f, g of the same subject and attribute with different values, f ended by
  the probe's date (valid_to <= date) and g begun after f and by that date (told_changes). The probe states it
  itself when g is among the facts it refers to (a state update), else the change was told earlier (edge).
- required_recent: carriers of a required fact inside the recent window (the `window` turns just before the
  turn in its session); required_episodes: carriers outside it, the latest EPISODES_PER_FACT per fact.
- memory_need = bool(required_episodes); cold_open: the session's first user turn with no required fact.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.world import Fact
from tasks.common.facttext import is_event_fact

EPISODES_PER_FACT = 3
"""Earlier carriers outside the window kept per required fact (the latest ones)."""


@dataclass(frozen=True)
class Need:
    """One user turn's required context, with why each fact is needed."""

    turn: Turn
    session_start: bool
    required_recent: list[str]
    required_episodes: list[str]
    required_facts: list[str]
    reasons: dict[str, str] = field(default_factory=dict)
    """fact id -> `direct`, `supersedes`, `callback` or `latest`: how the turn depends on it."""

    @property
    def memory_need(self) -> bool:
        """Something the turn needs lies outside its recent window."""
        return bool(self.required_episodes)

    @property
    def cold_open(self) -> bool:
        """The first user turn of a session, needing nothing."""
        return self.session_start and not self.required_facts


def window_of(config: BuildConfig) -> int:
    """The recent window: companion.window, else dialogue.context_window."""
    window = config.stages.companion.window
    return config.stages.dialogue.context_window if window is None else window


def same_value(a: Fact, b: Fact) -> bool:
    """Two values are the same when equal ignoring case and surrounding blanks."""
    return a.value.strip().casefold() == b.value.strip().casefold()


def refers(turn: Turn) -> list[str]:
    """The facts a turn refers to: by surface form (fact_ids) or by paraphrase (paraphrase_ids)."""
    return list(dict.fromkeys([*turn.fact_ids, *turn.paraphrase_ids]))


def predecessors(facts: Sequence[Fact]) -> dict[str, str]:
    """fact id -> the fact of the same subject and attribute before it (latest earlier valid_from): the value it
    superseded, or for what happened at an event (an event attribute of the ontology) the previous event of its
    kind, which it does not supersede (both dinners out happened) but a turn may call back to."""
    chains: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        chains[(f.subject, f.attribute)].append(f)
    out: dict[str, str] = {}
    for chain in chains.values():
        chain.sort(key=lambda f: (f.valid_from, f.fact_id))
        for older, newer in zip(chain, chain[1:], strict=False):
            if older.valid_from < newer.valid_from:
                out[newer.fact_id] = older.fact_id
    return out


def latest_of(fid: str, after: dict[str, str], by_id: dict[str, Fact], day: dt.date) -> str:
    """The latest fact of `fid`'s subject and attribute that has begun by `day` (fid itself if none)."""
    while fid in after and by_id[after[fid]].valid_from <= day:
        fid = after[fid]
    return fid


def told_changes(facts: Sequence[Fact], day: dt.date) -> list[tuple[Fact, Fact]]:
    """(old, new) pairs among `facts`: same subject and attribute, different values, old ended by `day` and new
    begun after old and by `day`."""
    out = []
    for old in facts:
        if old.valid_to is None or old.valid_to > day:
            continue
        out += [(old, new) for new in facts if (new.subject, new.attribute) == (old.subject, old.attribute)
                and not same_value(old, new) and old.valid_from < new.valid_from <= day]
    return out


def candidates(turn: Turn, before: dict[str, str], by_id: dict[str, Fact]) -> dict[str, str]:
    """fact id -> reason: what the turn refers to (`direct`) and the predecessors of the facts it states whose
    event its time_refs call back (`supersedes` when the value changed, else `callback`)."""
    out = dict.fromkeys(refers(turn), "direct")
    called = {ref.event_id for ref in turn.time_refs if ref.event_id}
    for fid in turn.fact_ids:
        old = before.get(fid)
        if old is not None and old in by_id and fid in by_id and by_id[old].event_id in called:
            same = same_value(by_id[old], by_id[fid]) or is_event_fact(by_id[fid])  # an event supersedes nothing
            out.setdefault(old, "callback" if same else "supersedes")
    return out


def ordered(turns: Sequence[Turn]) -> list[Turn]:
    """Turns in conversation order: timestamp, then id."""
    return sorted(turns, key=lambda t: (t.timestamp, t.turn_id))


def needs(turns: Sequence[Turn], facts: Sequence[Fact], window: int,
          local_date: Callable[[dt.datetime], dt.date]) -> list[Need]:
    """Every user turn's Need, in conversation order, in one pass (`local_date(ts)`: the persona's date)."""
    by_id = {f.fact_id: f for f in facts}
    before = predecessors(facts)
    after = {old: new for new, old in before.items()}
    carriers: dict[str, list[Turn]] = defaultdict(list)
    sessions: dict[str, list[Turn]] = defaultdict(list)
    out: list[Need] = []
    for turn in ordered(turns):
        session = sessions[turn.session_id]
        session.append(turn)
        if turn.role != "user":
            continue
        recent_ids = {t.turn_id for t in session[max(0, len(session) - 1 - window):-1]}
        day = local_date(turn.timestamp)
        wanted = {f: r for f, r in candidates(turn, before, by_id).items()
                  if f in by_id and by_id[f].valid_from <= day and carriers.get(f)}
        told = set(refers(turn))
        for fid in list(wanted):
            latest = latest_of(fid, after, by_id, day)
            if not same_value(by_id[latest], by_id[fid]) and (latest in told or carriers.get(latest)):
                wanted.setdefault(latest, "latest")
        recent: set[str] = set()
        episodes: set[str] = set()
        for fid in wanted:
            recent.update(t.turn_id for t in carriers[fid] if t.turn_id in recent_ids)
            episodes.update([t.turn_id for t in carriers[fid] if t.turn_id not in recent_ids][-EPISODES_PER_FACT:])
        first = not any(t.role == "user" for t in session[:-1])
        out.append(Need(turn=turn, session_start=first, required_recent=sorted(recent),
                        required_episodes=sorted(episodes), required_facts=sorted(wanted), reasons=wanted))
        for fid in refers(turn):
            carriers[fid].append(turn)
    return out


def natural_rate(found: Sequence[Need]) -> float:
    """Share of user turns with memory_need (0 without user turns)."""
    return sum(n.memory_need for n in found) / len(found) if found else 0.0
