"""Everyday task chats for the haystack of a length tier: a user asks an assistant for help with writing, cooking,
code, travel, home, fitness, money basics, study or tech, and the assistant answers; no chat says anything about
the user's own life, and none names a person.

`task_chats(seed, persona_id)` is an endless, seeded stream of such chats for one persona. Each chat draws from its
own RNG (`rng_for(seed, persona_id, "tiers", None, f"chat {index}")`): a topic, a scenario of the topic (a recipe, a
code task, an itinerary ...), its subject and the picks it needs, the user's opening request and the assistant's
answer, then some follow-up exchanges (a change, a further question) and sometimes a thank-you. The words -- frames,
lexicons, code snippets -- live in TOML files under tasks/tiers/data/ (layout and template syntax:
tasks/tiers/chatdata.py); computed parts (scaled recipes, loan payments, worked math, itineraries) come from
tasks/tiers/chatbuild.py and tasks/tiers/chatcalc.py. Python holds only the composition.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tasks.common.rng import rng_for
from tasks.tiers.chatcalc import BUILDERS
from tasks.tiers.chatdata import Renderer, TemplateError, draw, has, library

FOLLOWUP_COUNTS = (0, 1, 2, 3, 4, 5)
FOLLOWUP_WEIGHTS = (16, 26, 26, 16, 10, 6)
THANKS_SHARE = 0.35
"""How often a chat ends with the user's thank-you and the assistant's short reply."""
MORE_SHARE = (0.45, 0.3)
"""How often the user goes on to a second request of the same topic, and from there to a third."""


@dataclass(frozen=True)
class TaskChat:
    """One everyday request and the exchange that answers it."""

    chat_id: str
    topic: str
    turns: tuple[tuple[str, str], ...]
    """(role, text) pairs: "user" first, then alternating, ending with "assistant"."""

    @property
    def text(self) -> str:
        """Every turn's text, joined."""
        return "\n".join(t for _, t in self.turns)


def task_chats(seed: int, persona_id: str) -> Iterator[TaskChat]:
    """An endless, seeded stream of everyday task chats for one persona's haystack: the same (seed, persona_id) gives
    the same stream; different personas get different streams. A chat whose text the stream already gave is drawn
    again (from the same RNG), so no chat repeats within a stream."""
    seen: set[bytes] = set()
    index = 0
    while True:
        rng = rng_for(seed, persona_id, "tiers", None, f"chat {index}")
        while True:
            topic, turns = compose(rng)
            key = hashlib.blake2b("\n".join(t for _, t in turns).encode(), digest_size=16).digest()
            if key not in seen:
                break
        seen.add(key)
        yield TaskChat(f"{persona_id}-c{index:05d}", topic, tuple(turns))
        index += 1


def compose(rng: random.Random) -> tuple[str, list[tuple[str, str]]]:
    """One chat: its topic and turns."""
    lib = library()
    common, topics = lib["common"], lib["topics"]
    names = sorted(topics)
    name = rng.choices(names, weights=[topics[n]["weight"] for n in names])[0]
    topic = topics[name]
    scenarios = topic["scenario"]
    scenario = rng.choices(scenarios, weights=[s.get("weight", 1) for s in scenarios])[0]
    styles = sorted(common["styles"])
    style = rng.choices(styles, weights=[common["styles"][s] for s in styles])[0]
    chat = Chat(rng, topic, common, style)
    chat.open(scenario)
    chat.follow(scenario)
    for share in MORE_SHARE:
        if rng.random() >= share:
            break
        others = [s for s in scenarios if s is not scenario]
        scenario = rng.choices(others, weights=[s.get("weight", 1) for s in others])[0]
        chat.open(scenario, bridge=rng.choice(common["pools"]["bridge"]))
        chat.follow(scenario)
    fixed = len(chat.turns) == 2 and "build" not in scenario
    if fixed or rng.random() < THANKS_SHARE:  # a lone answer of fixed text would recur across personas
        chat.exchange(chat.followup("thanks"))
    return name, chat.turns


class Chat:
    """The turns of one chat as they are composed, with the context its frames are rendered against."""

    def __init__(self, rng: random.Random, topic: dict[str, Any], common: dict[str, Any], style: str):
        self.rng = rng
        self.topic = topic
        self.common = common
        self.style = style
        self.ctx: dict[str, Any] = {"pool": topic.get("pools", {}), "common": common.get("pools", {})}
        self.renderer = Renderer(rng, self.ctx)
        self.used: set[int] = set()
        self.turns: list[tuple[str, str]] = []

    def followup(self, fid: str) -> dict[str, Any]:
        """A follow-up of the topic, else of common.toml."""
        return self.topic.get("followup", {}).get(fid) or self.common["followup"][fid]

    def ready(self, block: dict[str, Any]) -> bool:
        """Whether the context holds every path the block needs."""
        return all(has(self.ctx, p) for p in block.get("needs", []))

    def prepare(self, block: dict[str, Any], entity: Any = None) -> None:
        """Fill the context for a scenario or follow-up: its subject, draws and computed part."""
        if entity is not None:
            self.ctx["x"] = entity
        elif "entity" in block:
            self.ctx["x"] = draw(block["entity"], self.renderer, self.topic, self.common, self.used)
        for key, spec in block.get("draw", {}).items():
            self.ctx[key] = draw(spec, self.renderer, self.topic, self.common, self.used)
        if "build" in block:
            BUILDERS[block["build"]](self.rng, self.ctx, self.topic)

    def open(self, scenario: dict[str, Any], entity: Any = None, bridge: str = "") -> None:
        """A request and its answer: the chat's first, or (after `bridge`, "Also,") a further one."""
        self.prepare(scenario, entity)
        self.add(scenario, first=not self.turns, bridge=bridge)

    def follow(self, scenario: dict[str, Any]) -> None:
        """Some of the scenario's follow-up exchanges (those the context is ready for), in their listed order."""
        followups = [f for f in (self.followup(fid) for fid in scenario.get("followups", [])) if self.ready(f)]
        count = min(len(followups), self.rng.choices(FOLLOWUP_COUNTS, weights=FOLLOWUP_WEIGHTS)[0])
        for i in sorted(self.rng.sample(range(len(followups)), count)):
            self.exchange(followups[i])

    def exchange(self, block: dict[str, Any]) -> None:
        """One follow-up exchange."""
        self.prepare(block)
        self.add(block, first=False)

    def add(self, block: dict[str, Any], first: bool, frames: tuple[int, int] | None = None, bridge: str = "") -> None:
        """The user turn and the assistant turn of a block (`frames` forces which frame of each)."""
        user, reply = block["user"], block["assistant"]
        u = user[frames[0]] if frames else self.rng.choice(user)
        a = reply[frames[1]] if frames else self.rng.choice(reply)
        text = self.renderer.render(u).strip()
        if bridge:
            text = f"{bridge} {text[:1].lower()}{text[1:]}" if not text[:2].isupper() else f"{bridge} {text}"
        self.turns.append(("user", self.styled(text, first)))
        self.turns.append(("assistant", tidy(self.renderer.render(a))))

    def styled(self, text: str, first: bool) -> str:
        """The user's words in the chat's style."""
        plain = "\n" not in text and "`" not in text and '"' not in text
        if self.style == "casual" and plain:
            if self.rng.random() < 0.4 and len(text) < 160:
                text = text.lower()
            else:
                text = text[:1].lower() + text[1:]
            if text.endswith(".") and not text.endswith(".."):
                text = text[:-1]
            if text.endswith("?") and self.rng.random() < 0.3:
                text = text[:-1]
        elif self.style == "polite" and first:
            pools = self.common["pools"]
            if self.rng.random() < 0.6:
                text = f"{self.rng.choice(pools['hello'])} {text}"
            if self.rng.random() < 0.4:
                text = f"{text} {self.rng.choice(pools['please'])}"
        return text


def tidy(text: str) -> str:
    """An answer without stray blank lines or trailing spaces."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out)


def frame_renders(seed: int = 0) -> Iterator[tuple[str, str]]:
    """(label, text) for every frame of every scenario and follow-up, rendered with every subject of its scenario's
    pool (a scenario without one, 40 times over its computed parts; a follow-up with the subjects it is ready
    for): the data test's check that all of them render. Raises TemplateError naming the frame that does not."""
    lib = library()
    for name, topic in sorted(lib["topics"].items()):
        for scenario in topic["scenario"]:
            for i, subject in enumerate(_subjects(topic, scenario)):
                label = f"{name}/{scenario['id']}#{i}"
                rng = random.Random(f"{seed} {label}")
                pairs = [(u, a) for u in range(len(scenario["user"])) for a in range(len(scenario["assistant"]))]
                for pair in pairs if i == 0 else _each_frame(scenario):
                    chat = _opened(Chat(random.Random(rng.random()), topic, lib["common"], "plain"), label,
                                   scenario, subject, pair)
                    yield label, chat.turns[0][1] + "\n" + chat.turns[1][1]
                for fid in [*scenario.get("followups", []), "thanks"]:
                    chat = _opened(Chat(random.Random(rng.random()), topic, lib["common"], "plain"), label,
                                   scenario, subject, (0, 0))
                    block = chat.followup(fid)
                    if not chat.ready(block):
                        continue
                    try:
                        chat.prepare(block)
                        for u, a in _each_frame(block):
                            chat.add(block, first=False, frames=(u, a))
                            yield f"{label}/{fid}", chat.turns[-2][1] + "\n" + chat.turns[-1][1]
                    except (TemplateError, KeyError, IndexError, ValueError) as e:
                        raise TemplateError(f"{label}/{fid}: {e}") from e


def _each_frame(block: dict[str, Any]) -> list[tuple[int, int]]:
    """Frame pairs that use every user frame and every assistant frame at least once."""
    users, replies = len(block["user"]), len(block["assistant"])
    return [(k % users, k % replies) for k in range(max(users, replies))]


def _subjects(topic: dict[str, Any], scenario: dict[str, Any]) -> list[Any]:
    if "entity" not in scenario:
        return [None] * 40
    return topic["pools"][scenario["entity"].split("[")[0].split("*")[0]]


def _opened(chat: Chat, label: str, scenario: dict[str, Any], subject: Any, frames: tuple[int, int]) -> Chat:
    """A chat opened on a given subject with given frames."""
    try:
        chat.prepare(scenario, subject)
        chat.add(scenario, first=True, frames=frames)
    except (TemplateError, KeyError, IndexError, ValueError) as e:
        raise TemplateError(f"{label}: {e}") from e
    return chat
