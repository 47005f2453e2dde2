"""The computed parts of the everyday task chats (tasks/tiers/chats.py): a builder reads the chat's context and adds
values its frames use -- a recipe scaled to other servings, a meal plan and its shopping list, a loan's monthly
payment, a worked equation, an itinerary split into days. The numbers are computed, so they are right; the words
around them stay in the data files under tasks/tiers/data/.

A builder is `f(rng, ctx, topic) -> None`; a scenario or follow-up names it with `build = "<name>"`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

Builder = Callable[[random.Random, dict[str, Any], dict[str, Any]], None]
BUILDERS: dict[str, Builder] = {}

NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def builder(f: Builder) -> Builder:
    """Register a builder under its name."""
    BUILDERS[f.__name__] = f
    return f


def money(x: float, symbol: str = "$") -> str:
    """$1,234 or $1,234.56 (cents only when there are any)."""
    return f"{symbol}{x:,.0f}" if abs(x - round(x)) < 0.005 else f"{symbol}{x:,.2f}"


def num(x: float, places: int = 2) -> str:
    """A number without trailing zeros."""
    text = f"{x:,.{places}f}".rstrip("0").rstrip(".")
    return text or "0"


# --- cooking -------------------------------------------------------------------------------------------------------

QTY = re.compile(r"^(\d+ \d/\d|\d+/\d|\d+(?:\.\d+)?)(\s+)(.*)$")
OF_QTY = re.compile(r"^((?:zest and )?juice of )(\d+(?:/\d)?)(\s+)(.*)$")
PLURALS = {"can": "cans", "clove": "cloves", "stalk": "stalks", "sprig": "sprigs", "head": "heads",
           "packet": "packets", "slice": "slices", "cup": "cups", "onion": "onions", "carrot": "carrots",
           "lemon": "lemons", "lime": "limes", "egg": "eggs", "avocado": "avocados", "tomato": "tomatoes",
           "potato": "potatoes", "leek": "leeks", "cucumber": "cucumbers", "eggplant": "eggplants",
           "pepper": "peppers", "banana": "bananas", "apple": "apples", "jalapeno": "jalapenos", "yolk": "yolks",
           "squash": "squashes", "liter": "liters", "chili": "chilies", "zucchini": "zucchini"}
SINGULARS = {v: k for k, v in PLURALS.items()}
METRIC = {"g", "ml"}
DECIMAL = {"kg", "liter", "liters"}
STAPLES = {"salt", "pepper", "salt and pepper", "black pepper", "oil", "neutral oil", "olive oil", "water",
           "extra-virgin olive oil", "vegetable oil", "ice water", "sugar"}


def fraction_text(x: Fraction) -> str:
    """1 1/2, 3/4, 2."""
    whole, rest = divmod(x, 1)
    if rest == 0:
        return str(int(whole))
    part = f"{rest.numerator}/{rest.denominator}"
    return f"{int(whole)} {part}" if whole else part


def parse_qty(text: str) -> Fraction:
    """A quantity such as "1 1/2", "3/4" or "1.2"."""
    return sum((Fraction(p) for p in text.split()), Fraction(0))


def scale_line(line: str, factor: Fraction) -> str:
    """An ingredient line with its quantity multiplied (lines without a leading quantity are kept)."""
    m = OF_QTY.match(line)
    if m:
        qty = max(Fraction(1, 2), round(parse_qty(m.group(2)) * factor * 2) / Fraction(2))
        return m.group(1) + fraction_text(qty) + m.group(3) + _count_noun(m.group(4), qty)
    m = QTY.match(line)
    if not m:
        return line
    old = parse_qty(m.group(1))
    new = old * factor
    rest = m.group(3)
    unit = rest.split(" ", 1)[0]
    if unit in METRIC:
        step = 5 if new < 100 else 10
        amount = str(max(step, int(round(float(new) / step) * step)))
    elif unit in DECIMAL:
        amount = num(float(new), 2)
    else:
        quarters = 4 if unit in ("tbsp", "tsp", "cup", "cups") else 2
        rounded = max(Fraction(1, quarters), round(new * quarters) / Fraction(quarters))
        if unit in ("egg", "eggs", "clove", "cloves") or (len(rest.split()) > 1 and rest.split()[1] == "cloves"):
            rounded = max(Fraction(1), Fraction(round(new)))
        amount = fraction_text(rounded)
        rest = _count_noun(rest, rounded)
    return amount + m.group(2) + rest


def _count_noun(rest: str, qty: Fraction) -> str:
    """The words after a quantity, with the first countable noun in the number the quantity needs."""
    words = rest.split(" ")
    for i, w in enumerate(words[:4]):
        bare = w.rstrip(",")
        tail = w[len(bare):]
        if qty > 1 and bare in PLURALS:
            words[i] = PLURALS[bare] + tail
            break
        if qty <= 1 and bare in SINGULARS:
            words[i] = SINGULARS[bare] + tail
            break
        if bare in SINGULARS or bare in PLURALS:
            break
    return " ".join(words)


def targets(serves: int) -> list[int]:
    """Servings a recipe for `serves` scales to with tidy quantities."""
    return {1: [2, 4], 2: [1, 4], 3: [6], 4: [2, 6, 8], 5: [10], 6: [3, 12]}.get(serves) or [serves // 2, serves * 2]


@builder
def servings(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """The servings a recipe request asks for (`serves_n`, `portion`) and its ingredient lines (`ingr`) scaled to
    them: the dish's own servings half the time."""
    dish = ctx["x"]
    target = dish["serves"] if rng.random() < 0.5 else rng.choice(targets(dish["serves"]))
    factor = Fraction(target, dish["serves"])
    ctx["serves_n"] = target
    ctx["portion"] = dish.get("portion", "servings" if target > 1 else "serving")
    ctx["ingr"] = [scale_line(line, factor) for line in dish["ingredients"]]


@builder
def scale(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`target` servings, `factor`, `factor_word` and the `scaled` ingredient lines of the dish `x`."""
    serves = ctx["x"]["serves"]
    target = rng.choice([t for t in targets(serves) if t != ctx.get("serves_n")] or targets(serves))
    factor = Fraction(target, serves)
    ctx["target"] = target
    ctx["factor"] = fraction_text(factor)
    ctx["factor_word"] = {Fraction(2): "doubled", Fraction(1, 2): "halved", Fraction(3): "tripled"}.get(
        factor, f"multiplied by {num(float(factor))}")
    ctx["scaled"] = [scale_line(line, factor) for line in ctx["x"]["ingredients"]]
    ctx["portion"] = ctx["x"].get("portion", "servings" if target > 1 else "serving")
    notes = "scale_bake" if "baking" in ctx["x"]["tags"] else "scale_up" if factor > 1 else "scale_down"
    ctx["scale_note"] = rng.choice(topic["pools"][notes])


@builder
def fridge(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`have`: some main ingredients of the dish `x`; `ideas`: x and other dishes that use them, one line each."""
    dish = ctx["x"]
    have = rng.sample(dish["keys"], min(len(dish["keys"]), rng.choice([2, 3, 3])))
    others = [d for d in topic["pools"]["dishes"] if d is not dish and "baking" not in d["tags"]
              and "sweet" not in d["tags"] and set(d["keys"]) & set(have)]
    picks = [dish, *rng.sample(others, min(len(others), rng.choice([1, 2, 2])))]
    rng.shuffle(picks)
    ctx["have"] = have
    ctx["ideas"] = [_idea(rng, d, have) for d in picks]


def _idea(rng: random.Random, dish: dict[str, Any], have: list[str]) -> str:
    shared = [k for k in have if k in dish["keys"]]
    about = dish["about"]
    uses = rng.choice(["uses your", "works with the", "takes care of the"])
    return f"**{dish['name'][:1].upper()}{dish['name'][1:]}**: {uses} {_and(shared)}. {about}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@builder
def meal_plan(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`plan_days` dinners (`plan_table`, `plan_lines`), their merged `shopping` list, and `x`, one of them."""
    kind = rng.choice(["vegetarian", "quick", "", ""])
    mains = [d for d in topic["pools"]["dishes"]
             if not {"baking", "breakfast", "snack", "sweet"} & set(d["tags"]) and (not kind or kind in d["tags"])]
    days = rng.randint(3, min(5, len(mains)))
    dishes = rng.sample(mains, days)
    start = rng.choice([0, 0, 1, 6])
    names = [WEEKDAYS[(start + i) % 7] for i in range(days)]
    ctx["plan_days"] = NUMBER_WORDS[days]
    ctx["plan_kind"] = kind or rng.choice(["nothing complicated", "mostly healthy", "fairly easy"])
    ctx["plan_table"] = [["Day", "Dinner", "Time"]] + [[n, d["name"][:1].upper() + d["name"][1:], d["time"]]
                                                       for n, d in zip(names, dishes, strict=True)]
    ctx["plan_lines"] = [f"**{n}**: {d['name']} ({d['time']})" for n, d in zip(names, dishes, strict=True)]
    items: dict[str, str] = {}
    for d in dishes:
        for line in d["ingredients"]:
            item = shopping_item(line)
            if item and item.lower() not in STAPLES:
                items.setdefault(item.lower(), item)
    ctx["shopping"] = sorted(items.values(), key=str.lower)
    ctx["x"] = rng.choice(dishes)


SIZE_WORDS = re.compile(r"^(?:(?:small|large|medium|packed|very|big|heaped|handful|bunch|can|cans|cloves?|stalks?|"
                        r"sprigs?|heads?|cups?|tbsp|tsp|g|kg|ml|liters?|of|a|pinch|splash|knob|each|thick|"
                        r"slices?|few|more|plus)\s+)+")


def shopping_item(line: str) -> str:
    """The thing to buy in an ingredient line: no quantity, unit, size or preparation."""
    text = line.split(",")[0]
    text = re.sub(r"\([^)]*\)", "", text)
    text = re.sub(r"^(?:optional:|toppings:)\s*", "", text)
    text = re.sub(r"^(?:zest and )?juice of ", "", text)
    text = re.sub(r"^[\d/.\s-]+", "", text)
    text = SIZE_WORDS.sub("", text).strip()
    text = re.sub(r"\s+", " ", re.sub(r"\b(?:to serve|for the pan|if needed|optional)\b", "", text)).strip()
    text = re.sub(r"\s(?:or|and)$", "", text)
    return text


# --- travel --------------------------------------------------------------------------------------------------------


def cap(text: str) -> str:
    """The text with its first letter in upper case."""
    return text[:1].upper() + text[1:]


@builder
def itinerary(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`days` (2-4) and `plan`: one block of lines per day, two sights and an evening each, a day trip on day 4."""
    city = ctx["x"]
    days = rng.choice([2, 3, 3, 4])
    sights = list(city["sights"])
    chosen = sorted(rng.sample(range(len(sights)), min(len(sights), 2 * min(days, 3))))
    foods = rng.sample(city["food"], len(city["food"]))
    areas = rng.sample(city["areas"], len(city["areas"]))
    evening = topic["pools"]["evening"]
    labels = rng.choice([("Morning", "Afternoon", "Evening"), ("AM", "PM", "Night"), ("Start", "Then", "Evening")])
    plan: list[str] = []
    for day in range(min(days, 3)):
        pair = [sights[i] for i in chosen[2 * day:2 * day + 2]]
        if not pair:
            break
        area = areas[day % len(areas)]
        text = rng.choice(evening).replace("<area>", area[0]).replace("<desc>", area[1])
        text = text.replace("<food>", foods[day % len(foods)])
        plan.append(f"**Day {day + 1}**")
        plan += [f"- **{label}:** {cap(name)}. {note}" for label, (name, note) in zip(labels, pair, strict=False)]
        plan.append(f"- **{labels[2]}:** {cap(text)}")
        plan.append("")
    if days == 4:
        plan += ["**Day 4: day trip**", f"- {city['daytrip']}", ""]
    ctx["days"] = days
    ctx["days_word"] = NUMBER_WORDS[days]
    ctx["plan"] = plan[:-1]


@builder
def trip_length(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`days` and `days_word` of a trip."""
    days = rng.choice([3, 4, 5, 7, 7, 10])
    ctx["days"] = days
    ctx["days_word"] = NUMBER_WORDS[days]


@builder
def areas(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`area_lines` ("**Area**: what it is like"), `areas_first` (the first-visit pick) and `area_rest`."""
    listed = ctx["x"]["areas"]
    ctx["area_lines"] = [f"**{cap(name)}**: {desc}" for name, desc in listed]
    ctx["areas_first"] = listed[0][0]
    ctx["area_rest"] = [name for name, _ in listed[1:]]


# --- writing -------------------------------------------------------------------------------------------------------


@builder
def cover_skills(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`skill_a`, `skill_b`, `skill_c`: three of the role's skills in a random order."""
    a, b, c = rng.sample(ctx["x"]["skills"], 3)
    ctx.update(skill_a=a, skill_b=b, skill_c=c)


@builder
def titles(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`title_list`: five or six title frames for the subject `x` (rendered where the list is used), and `n`."""
    ctx["s"] = ctx["x"]
    ctx["n"] = rng.choice([3, 5, 7, 10])
    ctx["title_list"] = rng.sample(topic["pools"]["title_frames"], rng.choice([5, 6]))


# --- home ----------------------------------------------------------------------------------------------------------


@builder
def schedule(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A cleaning routine: `daily` chores, a `week_table` spreading the weekly ones, `monthly` ones, and the
    `budget` of minutes on the busiest day."""
    chores = topic["pools"]["chores"]
    weekly = [c for c in chores if c["freq"] == "weekly"]
    rng.shuffle(weekly)
    days = rng.choice([WEEKDAYS[:5], WEEKDAYS, WEEKDAYS[:6]])
    slots: list[list[dict[str, Any]]] = [[] for _ in days]
    for i, chore in enumerate(weekly):
        slots[i % len(days)].append(chore)
    rows = [["Day", "Tasks", "Time"]]
    for day, tasks in zip(days, slots, strict=True):
        if tasks:
            rows.append([day, cap("; ".join(t["name"] for t in tasks)), f"{sum(t['minutes'] for t in tasks)} min"])
    daily = [c for c in chores if c["freq"] == "daily"]
    ctx["daily"] = [f"{cap(c['name'])} ({c['minutes']} min)" for c in daily]
    ctx["daily_names"] = [c["name"] for c in daily]
    ctx["week_table"] = rows
    ctx["monthly"] = [cap(c["name"]) for c in chores if c["freq"] == "monthly"]
    ctx["budget"] = str(sum(c["minutes"] for c in daily) + max(sum(t["minutes"] for t in s) for s in slots))


# --- tech ----------------------------------------------------------------------------------------------------------


@builder
def sheet(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`s`: the drawn spreadsheet layout with one of its example values as `example`."""
    ctx["s"] = {**ctx["sheet"], "example": rng.choice(ctx["sheet"]["examples"])}
