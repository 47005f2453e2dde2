"""Selection and balance: which prepared candidates become a persona's questions.

- The persona gets up to `questions.per_persona` questions, `questions.zero_memory` of them controls.
  The zero-memory controls are kept in the set as controls but count toward no characteristic floor and
  no category cap: the cap and the floors apply to the other questions only.
- Characteristics take turns (round robin over those with candidates: RHELM's 27 or the domain pack's
  taxonomy, in a seeded order); each first gets up to
  `characteristic_floor` items when it has candidates, then the turns continue until the total is met.
- No category holds more than `max_category_share` of the persona's final count (nor more than
  `per_category`, when set): the final count is the largest one the available candidates can fill
  under that cap, so the cap holds on what is emitted, not on a target.
- The result is ordered by category and characteristic, the zero-memory controls last.
- No template writes more than `max_template_share` of the persona's count (at least one item): a
  characteristic's turn takes its next template under the cap. A characteristic's floor outranks the cap;
  beyond the floors, only when the candidates cannot fill the total under it is the cap raised, one item at
  a time.
- Within a characteristic (`rank`): lower `priority` first; then its templates in turn, and within a
  template its distinct answers in turn, starting from the persona's stratum (`Strata`: so a template's
  answers are spread over what its candidates allow across the release, not skewed to the commonest: the
  `answer_prior` baseline, per-template answer shares and yes/no balance); then checkpoints interleaved (the
  rarer post_shock and in_timeline items are not crowded out by post_distraction ones); then a seeded draw.
  A question text is asked once per persona.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schemas.config import QuestionOptions
from tasks.questions.base import CATEGORY_OF, TAXONOMY, Candidate, Ref

CHECKPOINT_ORDER = {"post_shock": 0, "in_timeline": 1, "post_distraction": 2, "zero_memory": 3}
GOLDEN = (math.sqrt(5) - 1) / 2
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")


class Strata:
    """Where in a template's ordered answers a persona starts: a point of the golden-ratio sequence over the
    personas (`p0003` is the fourth), shifted per template by a seeded offset. A persona selects alone, so a
    uniform draw per persona lets the answers most personas' candidates share pile up across the release ("5"
    emails for a third of a template's items); the sequence spreads the personas' starting points evenly over
    every template's answer range instead (each persona's start still its own, and the same on every rebuild).
    Within a persona the order carries no signal: which quantile of its own answers it starts from is not
    visible in any item."""

    def __init__(self, seed: int, persona_id: str) -> None:
        digits = re.findall(r"\d+", persona_id)
        self.index = int(digits[-1]) if digits else zlib.crc32(persona_id.encode())
        self.seed = seed

    def point(self, key: str) -> float:
        """The persona's point in [0, 1) for `key` (a template, or a template and its side)."""
        offset = zlib.crc32(f"{self.seed}|{key}".encode()) / 2**32
        return (offset + self.index * GOLDEN) % 1.0

    def order(self, key: str, groups: list[list], answer: Callable[[list], str]) -> list[list]:
        """`groups` (one per distinct answer) in the answers' canonical order, rotated to start at the
        persona's point."""
        ranked = sorted(groups, key=lambda g: canonical(answer(g)))
        start = int(self.point(key) * len(ranked)) if ranked else 0
        return ranked[start:] + ranked[:start]


def canonical(answer: str) -> tuple:
    """An answer's place in its template's order: numbers (counts, "3 months") by value, then text."""
    key = answer_key(answer)
    found = _NUMBER.match(key)
    return (0, float(found.group()), key) if found else (1, 0.0, key)


@dataclass
class Prepared:
    """A candidate that passed the framework's checks, with its question time, evidence and checkpoint."""

    candidate: Candidate
    generator: str  # the registry key, or "control"
    asked_at: dt.datetime
    context_time: dt.datetime  # the question time of the context it was generated in
    refs: tuple[Ref, ...]
    checkpoint: str

    @property
    def category(self) -> str:
        return self.candidate.category

    @property
    def characteristic(self) -> str:
        return self.candidate.characteristic


def effective_share(options: QuestionOptions, categories: int) -> float:
    """max_category_share, or 1/k when only k < 1/share categories have candidates (a tiny world): the cap
    cannot hold then, and the coverage and share gates report it instead of an empty question set."""
    return max(options.max_category_share, 1 / categories) if categories else 1.0


def category_cap(options: QuestionOptions, total: int, share: float | None = None) -> int:
    """The most questions one category may hold when the persona holds `total`."""
    cap = math.floor((share or options.max_category_share) * total + 1e-9)
    return min(cap, options.per_category) if options.per_category else cap


def template_cap(options: QuestionOptions, total: int) -> int:
    """The most questions one template may write when the persona holds `total` (at least one)."""
    return max(1, math.floor(options.max_template_share * total + 1e-9))


def feasible_total(options: QuestionOptions, available: dict[str, int], share: float, limit: int | None = None) -> int:
    """The largest total <= `limit` (default per_persona) that the available candidates fill without
    breaking the cap."""
    for total in range((options.per_persona if limit is None else limit), 0, -1):
        cap = category_cap(options, total, share)
        if sum(min(cap, n) for n in available.values()) >= total:
            return total
    return 0


def rank(items: list[Prepared], rng: random.Random, strata: Strata | None = None) -> list[Prepared]:
    """A characteristic's queue: priority first; within a priority, its templates in turn (a seeded order) and,
    within a template, its answers in turn, in their canonical order from the persona's stratum (`Strata`; a
    seeded order without one): the first answer a persona's template asks depends on which answers its
    candidates have, not on how many carry each (a template whose candidates are mostly "No" asks "Yes" as often
    when it can, and a count template does not favour the count its world makes commonest); abstention items
    and answerable ones take turns first (`abstains`), and an abstention template whose answerable twins the
    persona lacks is not asked (its items would all be declines: the form would give the answer). Within one
    answer: checkpoints interleaved (the rarer
    post_shock and in_timeline items first in each turn), then a seeded draw."""
    draws = {id(p): rng.random() for p in items}
    by_key: dict[tuple[int, str, str], list[Prepared]] = defaultdict(list)
    for p in sorted(items, key=lambda p: (p.candidate.priority, draws[id(p)])):
        by_key[(p.candidate.priority, p.candidate.template, answer_key(p.candidate.answer))].append(p)
    levels: dict[int, dict[str, dict[bool, list[list[Prepared]]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    answerable = {p.candidate.template for p in items if not abstains(p.candidate)}
    for (priority, template, _), group in sorted(by_key.items()):
        if abstains(group[0].candidate) and template not in answerable:
            continue  # no twin to take turns with: the template's form would say "decline"
        levels[priority][template][abstains(group[0].candidate)].append(_interleaved(group, draws))
    out: list[Prepared] = []
    for priority in sorted(levels):
        templates = sorted(levels[priority])
        rng.shuffle(templates)
        streams = []
        for template in templates:
            sides = []
            for side in sorted(levels[priority][template]):
                answers = levels[priority][template][side]
                if strata is None:
                    rng.shuffle(answers)
                else:
                    answers = strata.order(f"{template}|{side}", answers, lambda g: g[0].candidate.answer)
                sides.append(round_robin(answers))
            if strata is None or len(sides) < 2:
                rng.shuffle(sides)
            elif strata.point(f"{template}|sides") >= 0.5:
                sides.reverse()
            streams.append(round_robin(sides))
        out += round_robin(streams)
    return out


def abstains(cand: Candidate) -> bool:
    """An abstention item (its gold a decline). Within a template, abstention items and their answerable twins
    take turns like two answers, so about half of a template's items must be declined and half answered."""
    return bool(cand.extra.get("abstention"))


def answer_key(answer: str) -> str:
    """An answer as selection compares it (case and spacing ignored)."""
    return " ".join(answer.lower().split())


def _interleaved(group: list[Prepared], draws: dict[int, float]) -> list[Prepared]:
    """Checkpoints in turn, the rarest first in each turn, then the seeded draw."""
    by_checkpoint: dict[str, list[Prepared]] = defaultdict(list)
    for p in group:
        by_checkpoint[p.checkpoint].append(p)
    keyed = [((turn, CHECKPOINT_ORDER.get(checkpoint, 9), draws[id(p)]), p)
             for checkpoint, members in by_checkpoint.items() for turn, p in enumerate(members)]
    return [p for _, p in sorted(keyed, key=lambda k: k[0])]


def round_robin(streams: list[list]) -> list:
    """The first of each stream in turn, then the second of each, and so on."""
    depth = max((len(s) for s in streams), default=0)
    return [s[i] for i in range(depth) for s in streams if i < len(s)]


def select(options: QuestionOptions, prepared: Sequence[Prepared], rng: random.Random,
           strata: Strata | None = None) -> list[Prepared]:
    """The persona's questions, balanced as the module docstring says, in a stable order. `strata` (the
    persona's, `Strata`) spreads each template's answers over the release; without it, a seeded draw."""
    controls = [p for p in prepared if p.checkpoint == "zero_memory"]
    regular = dedupe([p for p in prepared if p.checkpoint != "zero_memory"], rng)
    picked_controls = _controls(controls, options.zero_memory, rng, strata)
    queues: dict[str, list[Prepared]] = defaultdict(list)
    for p in regular:
        queues[p.characteristic].append(p)
    order = sorted(queues)
    rng.shuffle(order)
    queues = {ch: rank(sorted(queues[ch], key=_stable), rng, strata) for ch in order}
    available = defaultdict(int)
    for p in regular:
        available[p.category] += 1
    share = effective_share(options, len(available))
    total = feasible_total(options, dict(available), share, max(0, options.per_persona - len(picked_controls)))
    cap = category_cap(options, total, share)
    picked: list[Prepared] = []
    per_category: dict[str, int] = defaultdict(int)
    asked: set[str] = {p.candidate.question for p in picked_controls}
    per_template: dict[str, int] = defaultdict(int)
    most = template_cap(options, total)
    # floors first (under the template cap, then over it: a floor outranks the cap), then open turns under the
    # cap; when the candidates cannot fill the total under it, the cap is raised one item at a time (a tiny
    # world, a preset asking more than its templates hold)
    floor = options.characteristic_floor
    rounds = [(floor, most), (floor, total)] + [(None, most + k) for k in range(total + 1)]
    counts: dict[str, int] = defaultdict(int)
    for limit, template_limit in rounds:
        if len(picked) >= total or not any(queues.values()):
            break
        progress = True
        while progress and len(picked) < total:
            progress = False
            for ch in order:
                if len(picked) >= total:
                    break
                if limit is not None and counts[ch] >= limit:
                    continue
                queue, i = queues[ch], 0
                while i < len(queue):
                    p = queue[i]
                    if per_category[p.category] >= cap:
                        queue.clear()
                        break
                    if p.candidate.question in asked:
                        queue.pop(i)
                        continue
                    if per_template[p.candidate.template] >= template_limit:
                        i += 1
                        continue
                    queue.pop(i)
                    picked.append(p)
                    per_category[p.category] += 1
                    per_template[p.candidate.template] += 1
                    asked.add(p.candidate.question)
                    counts[ch] += 1
                    progress = True
                    break
    picked = trim(options, picked, share) + picked_controls
    return sorted(picked, key=lambda p: (p.checkpoint == "zero_memory", p.category, p.characteristic, p.asked_at,
                                         p.candidate.question))


def dedupe(items: list[Prepared], rng: random.Random) -> list[Prepared]:
    """One item per question text: the best ranked (priority, rarer checkpoint, seeded draw)."""
    best: dict[str, tuple[tuple, Prepared]] = {}
    for p in sorted(items, key=_stable):
        key = (p.candidate.priority, CHECKPOINT_ORDER.get(p.checkpoint, 9), rng.random())
        if p.candidate.question not in best or key < best[p.candidate.question][0]:
            best[p.candidate.question] = (key, p)
    return [p for _, p in best.values()]


def trim(options: QuestionOptions, picked: list[Prepared], share: float) -> list[Prepared]:
    """Drop the last-picked items of any category above the cap of the final count, until none is."""
    picked = list(picked)
    while picked:
        counts: dict[str, int] = defaultdict(int)
        for p in picked:
            counts[p.category] += 1
        cap = category_cap(options, len(picked), share)
        over = [c for c, n in counts.items() if n > cap]
        if not over:
            break
        last = max(i for i, p in enumerate(picked) if p.category == over[0])
        picked.pop(last)
    return picked


def _controls(controls: list[Prepared], wanted: int, rng: random.Random, strata: Strata | None = None
              ) -> list[Prepared]:
    """Up to `wanted` controls, templates in turn; within a template, its answers in turn from the persona's
    stratum (a seeded order without one)."""
    by_template: dict[str, list[Prepared]] = defaultdict(list)
    for p in sorted(controls, key=_stable):
        by_template[p.candidate.template].append(p)
    for template, group in by_template.items():
        rng.shuffle(group)
        if strata is not None:
            answers: dict[str, list[Prepared]] = defaultdict(list)
            for p in group:
                answers[answer_key(p.candidate.answer)].append(p)
            ordered = strata.order(template, list(answers.values()), lambda g: g[0].candidate.answer)
            by_template[template] = round_robin(ordered)[::-1]  # popped from the end
    out: list[Prepared] = []
    while len(out) < wanted and any(by_template.values()):
        for template in sorted(by_template):
            if by_template[template] and len(out) < wanted:
                out.append(by_template[template].pop())
    return out


def _stable(p: Prepared) -> tuple:
    return (p.candidate.template, p.candidate.question, str(p.asked_at), p.candidate.answer)


def valid_characteristics(cand: Candidate, taxonomy: dict[str, tuple[str, ...]] | None = None) -> bool:
    """The primary characteristic belongs to the candidate's category in `taxonomy` (the pack's; default:
    any taxonomy's); every other one is known."""
    return (
        bool(cand.characteristics)
        and cand.characteristics[0] in (TAXONOMY if taxonomy is None else taxonomy).get(cand.category, ())
        and all(ch in CATEGORY_OF for ch in cand.characteristics)
    )
