"""The data and the template language of the everyday task chats (tasks/tiers/chats.py composes them).

The words live in TOML files under tasks/tiers/data/: common.toml (openings, thanks and closing exchanges shared by
every topic) and one file per topic (cooking.toml, code.toml, writing.toml, travel.toml, ...). A topic file holds

- `topic`, `weight`: the domain and its share of the stream;
- `[fields]`: per pool, the keys each of its entries must have and their types ("str", "list", "int", "table";
  a leading "?" marks an optional key): the schema `validate` checks, with the file layout itself;
- `[pools]`: named lexicons (dishes, cities, code tasks ...), entries plain strings or tables;
- `[[scenario]]`: one kind of request: `entity` (the pool its subject `x` comes from), `draw` (further picks, named),
  `build` (a computed part: a key of chats.BUILDERS), `user` and `assistant` frames (alternatives), `followups`;
- `[followup.<id>]`: one follow-up exchange: `user` and `assistant` frames, `needs` (context paths it requires),
  `draw` and `build` as in a scenario.

Frames are templates. `{a|b|c}` picks one alternative (nesting is allowed; an empty alternative makes a part
optional). `<path:filter:...>` inserts a context value (`x.name`, `veg.0`, `pool.tips`, `common.signoffs`), itself
rendered as a template, through filters: one, some, shuffle and rest pick from a list; cap, lower, title, a,
inline, or, bullets, numbered, lines, paragraphs and table format. Fields named `code` or ending in `_code` are
raw: only `<<path>>` is substituted in them, so code keeps its own braces, brackets and angle brackets.

A draw spec names a pool (the topic's, else common.toml's): `"pool"`, `"pool*3"` (three distinct entries, a list) or
`"pool[tag,!tag]*2"` (entries whose `tags` hold every tag and none of the negated ones); `<path>` in a spec is
resolved first. Entries drawn in one chat are distinct.
"""

from __future__ import annotations

import functools
import random
import re
import tomllib
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"

CHOICE = re.compile(r"\{([^{}]*\|[^{}]*)\}")
SLOT = re.compile(r"<([a-z_][a-z0-9_.]*)((?::[a-z0-9_]+)*)>")
RAW_SLOT = re.compile(r"<<([a-z_][a-z0-9_.]*)>>")
SPEC = re.compile(r"^([a-z_][a-z0-9_]*)(?:\[([^\]]*)\])?(?:\*(\d+))?$")
TYPES = {"str": str, "list": list, "int": int, "table": dict}


class TemplateError(ValueError):
    """A frame that cannot be rendered: an unknown path or filter."""


@functools.cache
def library() -> dict[str, Any]:
    """Every data file: {"common": <common.toml>, "topics": {topic: <topic file>}} (read once per process)."""
    common: dict[str, Any] = {}
    topics: dict[str, Any] = {}
    for path in sorted(DATA_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if path.stem == "common":
            common = data
        else:
            topics[data.get("topic", path.stem)] = data
    return {"common": common, "topics": topics}


def is_raw(key: str) -> bool:
    """Whether a field holds code (no template syntax but `<<path>>`)."""
    return key == "code" or key.endswith("_code")


def lookup(ctx: dict[str, Any], path: str) -> tuple[Any, str]:
    """The value at a dotted path of the context and the last key on the way (TemplateError when absent)."""
    value: Any = ctx
    key = ""
    for key in path.split("."):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            raise TemplateError(f"no value at <{path}>")
    return value, key


def has(ctx: dict[str, Any], path: str) -> bool:
    """Whether the context holds a value at the dotted path."""
    try:
        lookup(ctx, path)
    except TemplateError:
        return False
    return True


def article(text: str) -> str:
    """`text` with "a" or "an" before it."""
    vowel = text[:1].lower() in "aeiou" and not text.lower().startswith(("uni", "use", "one", "eu"))
    return ("an " if vowel or text.lower().startswith(("hour", "honest")) else "a ") + text


def joined(items: list[str], last: str) -> str:
    """"a, b and c" (or "or")."""
    if len(items) <= 2:
        return f" {last} ".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def table(rows: list[list[Any]]) -> str:
    """A Markdown table; the first row is the header."""
    lines = ["| " + " | ".join(str(c) for c in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows[1:]]
    return "\n".join(lines)


class Renderer:
    """Renders frames against one chat's context with one chat's RNG."""

    def __init__(self, rng: random.Random, ctx: dict[str, Any]):
        self.rng = rng
        self.ctx = ctx

    def render(self, text: str) -> str:
        """A frame with its alternatives picked and its slots filled."""
        while True:
            picked = CHOICE.sub(lambda m: self.rng.choice(m.group(1).split("|")), text)
            if picked == text:
                break
            text = picked
        return SLOT.sub(self._slot, text)

    def raw(self, code: str) -> str:
        """A code field with its `<<path>>` slots filled (values inserted as they are)."""
        return RAW_SLOT.sub(lambda m: str(self.value(m.group(1))), code)

    def value(self, path: str) -> Any:
        """The value at a path, strings rendered (code fields raw), lists rendered element by element."""
        value, key = lookup(self.ctx, path)
        return self._rendered(value, key)

    def _rendered(self, value: Any, key: str) -> Any:
        if isinstance(value, str):
            return self.raw(value) if is_raw(key) else self.render(value)
        if isinstance(value, list):
            return [self._rendered(v, key) for v in value]
        if isinstance(value, dict):
            if "name" not in value:
                raise TemplateError(f"a table without a name in <{key}>")
            return self.render(value["name"])
        if isinstance(value, bool):
            raise TemplateError(f"a boolean in <{key}>")
        return str(value)

    def _slot(self, m: re.Match) -> str:
        path, filters = m.group(1), [f for f in m.group(2).split(":") if f]
        raw, key = lookup(self.ctx, path)
        if isinstance(raw, list) and filters and filters[0] in ("one", "some", "shuffle", "rest"):
            raw = self._select(raw, filters.pop(0))
        value = self._rendered(raw, key)
        for f in filters:
            value = self._filter(value, f, path)
        if isinstance(value, list):
            value = joined([str(v) for v in value], "and")
        return value

    def _select(self, items: list[Any], how: str) -> Any:
        if how == "one":
            return self.rng.choice(items)
        if how == "rest":
            return items[1:]
        if how == "shuffle":
            return self.rng.sample(items, len(items))
        k = self.rng.randint(min(len(items), 3), min(len(items), 5))
        keep = sorted(self.rng.sample(range(len(items)), k))
        return [items[i] for i in keep]

    def _filter(self, value: Any, name: str, path: str) -> Any:
        if name in ("cap", "lower", "a") and isinstance(value, list):
            return [self._filter(v, name, path) for v in value]
        match name:
            case "cap":
                return value[:1].upper() + value[1:]
            case "lower":
                return value.lower()
            case "a":
                return article(value)
            case "inline":
                return joined(value, "and")
            case "or":
                return joined(value, "or")
            case "bullets":
                return "\n".join(f"- {v}" for v in value)
            case "numbered":
                return "\n".join(f"{i}. {v}" for i, v in enumerate(value, 1))
            case "lines":
                return "\n".join(value)
            case "paragraphs":
                return "\n\n".join(value)
            case "title":
                return " ".join(w[:1].upper() + w[1:] if len(w) > 3 or i == 0 else w
                                for i, w in enumerate(value.split(" ")))
            case "table":
                return table(value)
        raise TemplateError(f"unknown filter {name!r} in <{path}>")


def pool_of(topic: dict[str, Any], common: dict[str, Any], name: str) -> list[Any]:
    """A pool of the topic file, else of common.toml."""
    if name in topic.get("pools", {}):
        return topic["pools"][name]
    if name in common.get("pools", {}):
        return common["pools"][name]
    raise TemplateError(f"no pool {name!r}")


def draw(spec: str, renderer: Renderer, topic: dict[str, Any], common: dict[str, Any], used: set[int]) -> Any:
    """The entry (or entries, for `*n`) a draw spec picks; `used` (ids of entries drawn before) is kept distinct."""
    m = SPEC.match(SLOT.sub(lambda s: str(renderer.value(s.group(1))), spec))
    if m is None:
        raise TemplateError(f"bad draw spec {spec!r}")
    items = pool_of(topic, common, m.group(1))
    tags = [t.strip() for t in (m.group(2) or "").split(",") if t.strip()]
    for tag in tags:
        want = not tag.startswith("!")
        items = [i for i in items if (tag.lstrip("!") in (i.get("tags", []) if isinstance(i, dict) else [])) == want]
    fresh = [i for i in items if id(i) not in used] or items
    count = int(m.group(3) or 0)
    if not fresh or len(fresh) < count:
        raise TemplateError(f"draw spec {spec!r} finds too few entries")
    picked = renderer.rng.sample(fresh, count) if count else [renderer.rng.choice(fresh)]
    used.update(id(i) for i in picked)
    return picked if count else picked[0]


def validate(builders: set[str]) -> list[str]:
    """Every way the data files break their schema (empty when they do not)."""
    lib = library()
    errors: list[str] = []
    common, topics = lib["common"], lib["topics"]
    if not topics:
        errors.append("no topic files")
    for key in ("pools", "followup", "styles"):
        if not isinstance(common.get(key), dict):
            errors.append(f"common.toml: [{key}] missing")
    errors += _followups("common", common.get("followup", {}), builders)
    for name, t in topics.items():
        where = f"{name}.toml"
        if not isinstance(t.get("weight"), int | float) or not isinstance(t.get("topic"), str):
            errors.append(f"{where}: topic (str) and weight (number) are required")
        pools, fields = t.get("pools", {}), t.get("fields", {})
        for pool, items in pools.items():
            if not isinstance(items, list) or not items:
                errors.append(f"{where}: pool {pool} is not a non-empty list")
                continue
            schema = fields.get(pool)
            for i, item in enumerate(items):
                errors += _entry(f"{where}: {pool}[{i}]", item, schema)
        for pool in fields:
            if pool not in pools:
                errors.append(f"{where}: [fields] names an unknown pool {pool}")
        known = set(t.get("followup", {})) | set(common.get("followup", {}))
        scenarios = t.get("scenario", [])
        if not scenarios:
            errors.append(f"{where}: no [[scenario]]")
        for s in scenarios:
            sid = f"{where}: scenario {s.get('id')!r}"
            errors += _frames(sid, s, builders)
            for spec in [s.get("entity", ""), *s.get("draw", {}).values()]:
                m = SPEC.match(spec) if spec else None
                if spec and (m is None or (m.group(1) not in pools and m.group(1) not in common.get("pools", {}))):
                    errors.append(f"{sid}: draw spec {spec!r} names no pool")
            for f in s.get("followups", []):
                if f not in known:
                    errors.append(f"{sid}: unknown followup {f!r}")
        errors += _followups(where, t.get("followup", {}), builders)
    return errors


def _entry(where: str, item: Any, schema: dict[str, str] | None) -> list[str]:
    if schema is None:
        return [] if isinstance(item, str) else [f"{where}: a table in a pool without [fields]"]
    if not isinstance(item, dict):
        return [f"{where}: a string where [fields] asks for a table"]
    errors = []
    for key, kind in schema.items():
        optional, kind = kind.startswith("?"), kind.lstrip("?")
        if key not in item:
            if not optional:
                errors.append(f"{where}: missing {key}")
        elif not isinstance(item[key], TYPES[kind]) or isinstance(item[key], bool):
            errors.append(f"{where}: {key} is not {kind}")
        elif kind == "list" and not item[key]:
            errors.append(f"{where}: {key} is empty")
    return errors + [f"{where}: undeclared key {k}" for k in item if k not in schema]


def _frames(where: str, block: dict[str, Any], builders: set[str]) -> list[str]:
    errors = []
    for key in ("user", "assistant"):
        frames = block.get(key)
        if not isinstance(frames, list) or not frames or not all(isinstance(f, str) and f for f in frames):
            errors.append(f"{where}: {key} must be a non-empty list of frames")
    if "build" in block and block["build"] not in builders:
        errors.append(f"{where}: unknown build {block['build']!r}")
    if not isinstance(block.get("draw", {}), dict) or not isinstance(block.get("needs", []), list):
        errors.append(f"{where}: draw must be a table, needs a list")
    return errors


def _followups(where: str, followups: dict[str, Any], builders: set[str]) -> list[str]:
    return [e for fid, f in followups.items() for e in _frames(f"{where}: followup {fid!r}", f, builders)]
