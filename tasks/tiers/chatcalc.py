"""The computed parts of the everyday task chats that are arithmetic: workouts and running plans, compound growth,
loan payments, budgets, savings goals, bill splits, percentages and the worked math of study chats. Each builder
registers itself in tasks/tiers/chatbuild.BUILDERS (this module re-exports the full registry, so importing it is
what makes every builder available); the words around the numbers live in the data files under
tasks/tiers/data/.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

from tasks.tiers.chatbuild import BUILDERS, NUMBER_WORDS, WEEKDAYS, builder, cap, money, num

__all__ = ["BUILDERS", "NUMBER_WORDS"]


# --- fitness -------------------------------------------------------------------------------------------------------

EQUIPMENT = {"bodyweight": "no equipment", "dumbbells": "just dumbbells", "gym": "gym equipment"}


@builder
def workout(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A workout for a goal, equipment and level: `workout_table`, `workout_lines`, rest, warm-up and a swap."""
    goal = rng.choice(topic["pools"]["goals"])
    equip = rng.choice(list(EQUIPMENT))
    level = rng.choice(["beginner", "intermediate"])
    allowed = {"bodyweight": {"bodyweight"}, "dumbbells": {"bodyweight", "dumbbells"},
               "gym": {"bodyweight", "dumbbells", "gym"}}[equip]
    pool = topic["pools"]["exercises"]
    chosen: list[dict[str, Any]] = []
    for tag in goal["tags"] + rng.sample(goal["tags"], 1):
        options = [e for e in pool if tag in e["tags"] and allowed & set(e["tags"]) and e not in chosen]
        if options:
            chosen.append(rng.choice(options))
    sets, reps = (3, "10-12") if level == "beginner" else (4, "8-10")
    rows = [["Exercise", "Sets", "Reps"]]
    for e in chosen:
        timed = e["name"] in ("plank", "side plank")
        rows.append([cap(e["name"]), str(sets), "20-40 s" if timed else reps])
    ctx.update(goal=goal["name"], goal_note=rng.choice(goal["note"]), level=level, equipment_phrase=EQUIPMENT[equip],
               reps_top=reps.split("-")[1])
    ctx["workout_table"] = rows
    ctx["workout_lines"] = [f"**{cap(e['name'])}**: {row[1]} x {row[2]}. {e['cues'][-1]}"
                            for e, row in zip(chosen, rows[1:], strict=True)]
    ctx["rest"] = "60-90 seconds" if level == "beginner" else "90 seconds to 2 minutes"
    ctx["minutes"] = str(10 + len(chosen) * sets * 2)
    ctx["warm"] = rng.sample(["arm circles", "leg swings", "10 bodyweight squats", "hip circles", "a few inchworms",
                              "band pull-aparts", "cat-cow"], 3)
    out = rng.choice(chosen)
    focus = max(chosen, key=lambda e: len(e["mistake"]))
    ctx.update(form_focus=focus["name"], form_tip=focus["mistake"], swap_out=out["name"], swap_src=out,
               swap_allowed=sorted(allowed))


@builder
def swap_exercise(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`swap_in` and `swap_muscles`: an exercise of the same kind as `swap_out`."""
    out = ctx["swap_src"]
    kind = next(t for t in out["tags"] if t in ("legs", "push", "pull", "core"))
    options = [e for e in topic["pools"]["exercises"] if e is not out and kind in e["tags"]
               and set(ctx["swap_allowed"]) & set(e["tags"])] or [out]
    pick = rng.choice(options)
    ctx.update(swap_in=article(pick["name"]), swap_muscles=pick["muscles"])


def article(text: str) -> str:
    """`text` with "a" or "an"."""
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


@builder
def run_plan(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A run-walk to continuous running progression: `run_table` with three runs a week over `weeks` weeks."""
    start_min, goal_min = rng.choice([(1, 20), (1, 30), (5, 30), (10, 45), (20, 60)])
    weeks = rng.choice([6, 8, 10]) if goal_min <= 30 else rng.choice([8, 10, 12])
    rows = [["Week", "Run 1", "Run 2", "Run 3"]]
    for w in range(weeks):
        share = (w + 1) / weeks
        run = max(start_min, round(start_min + (goal_min - start_min) * share))
        if run < 8:
            walk = max(1, 3 - w // 2)
            reps = max(4, 20 // (run + walk))
            easy = f"{reps} x ({run} min run + {walk} min walk)"
            rows.append([str(w + 1), easy, easy, easy])
        else:
            short = max(start_min, round(run * 0.6))
            mid = max(short, round(run * 0.8))
            rows.append([str(w + 1), f"{short} min easy", f"{mid} min easy", f"{run} min"])
    ctx["weeks"] = weeks
    ctx["start"] = f"{start_min} minute{'s' if start_min > 1 else ''} at a time"
    ctx["goal_run"] = f"{goal_min} minutes nonstop" if goal_min < 60 else "an hour of continuous running"
    ctx["run_table"] = rows
    ctx["run_days"] = rng.choice(["Monday, Wednesday and Saturday", "Tuesday, Thursday and Sunday",
                                  "Monday, Thursday and Saturday", "Tuesday, Friday and Sunday"])
    ctx["repeat_week"] = str(rng.randint(2, weeks - 1))
    ctx["repeat_next"] = str(int(ctx["repeat_week"]) + 1)


@builder
def stretch_routine(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A stretching sequence for a focus: `stretch_focus`, `stretch_lines`, `stretch_minutes`."""
    focus, tag = rng.choice([("tight hips and legs", "legs"), ("after sitting at a desk all day", "desk"),
                             ("the upper back and shoulders", "upper"), ("the lower back", "back"),
                             ("after a run", "running")])
    pool = topic["pools"]["stretches"]
    picks = [s for s in pool if tag in s["tags"]]
    extra = [s for s in pool if s not in picks]
    picks = picks + rng.sample(extra, max(0, 5 - len(picks)))
    ctx["stretch_focus"] = focus
    ctx["stretch_lines"] = [f"**{cap(s['name'])}** ({s['hold']}): {s['cue']}" for s in picks[:6]]
    ctx["stretch_minutes"] = str(min(12, 2 * len(picks[:6])))


# --- money ---------------------------------------------------------------------------------------------------------


def _currency(rng: random.Random) -> str:
    return rng.choice(["$", "$", "€", "£"])


def future_value(monthly: float, rate: float, months: int) -> float:
    """The value of `monthly` deposits at the end of each month for `months` months at `rate` a year."""
    r = rate / 100 / 12
    return monthly * months if r == 0 else monthly * ((1 + r) ** months - 1) / r


@builder
def compound(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """Monthly deposits growing at a yearly rate: the inputs, a milestone table and the final split."""
    cur = _currency(rng)
    monthly = rng.choice([50, 100, 150, 200, 250, 300, 400, 500])
    rate = rng.choice([4, 5, 6, 7, 8])
    years = rng.choice([10, 15, 20, 25, 30])
    final = future_value(monthly, rate, years * 12)
    rows = [["Year", "Paid in", "Value"]]
    for y in sorted({5, 10, years // 2, years} - {0}):
        if y <= years:
            rows.append([str(y), money(monthly * 12 * y, cur), money(round(future_value(monthly, rate, y * 12)), cur)])
    ctx.update(c_monthly=money(monthly, cur), c_rate=str(rate), c_years=str(years), c_months=str(years * 12),
               c_rate_m=num(rate / 12, 3), c_final=money(round(final), cur), c_table=rows,
               c_paid=money(monthly * 12 * years, cur), c_growth=money(round(final - monthly * 12 * years), cur),
               c_real=num(rate - 2.5, 1), c_cur=cur, c_m=monthly, c_r=rate, c_y=years,
               c_later=str(rng.choice([5, 10])), c_rate2=str(rate + rng.choice([-2, -1, 1, 2])))


@builder
def compound_more(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """`c_compare`: the same plan started later, or at another rate (whichever the user asked; both are said)."""
    cur, m, r, y = ctx["c_cur"], ctx["c_m"], ctx["c_r"], ctx["c_y"]
    later = int(ctx["c_later"])
    late = future_value(m, r, max(1, y - later) * 12)
    other = future_value(m, int(ctx["c_rate2"]), y * 12)
    ctx["c_compare"] = (f"starting {later} years later (so {y - later} years of saving) ends at about "
                        f"{money(round(late), cur)} instead of {ctx['c_final']}, and at {ctx['c_rate2']}% for the "
                        f"full {y} years it would be about {money(round(other), cur)}.")


def payment(amount: float, rate: float, months: int) -> float:
    """The monthly payment of an amortizing loan."""
    r = rate / 100 / 12
    return amount / months if r == 0 else amount * r / (1 - (1 + r) ** -months)


@builder
def loan(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A loan's monthly payment, total paid and total interest."""
    cur = _currency(rng)
    kind = rng.choice([(5000, 20000, [2, 3, 4, 5], [6.5, 7.9, 9.5, 11.0]),
                       (15000, 40000, [3, 4, 5, 6], [4.9, 5.9, 6.9, 7.5]),
                       (150000, 400000, [15, 20, 25, 30], [3.5, 4.25, 5.0, 6.0, 6.5])])
    amount = rng.randrange(kind[0], kind[1] + 1, 1000 if kind[1] < 100000 else 10000)
    years, rate = rng.choice(kind[2]), rng.choice(kind[3])
    pay = payment(amount, rate, years * 12)
    total = pay * years * 12
    years2 = years - 1 if years <= 5 else years - 5
    pay2 = payment(amount, rate, years2 * 12)
    ctx.update(l_amount=money(amount, cur), l_rate=num(rate), l_years=str(years), l_months=str(years * 12),
               l_payment=money(round(pay, 2), cur), l_total=money(round(total), cur),
               l_interest=money(round(total - amount), cur), l_years2=str(years2),
               l_payment2=money(round(pay2, 2), cur), l_interest2=money(round(pay2 * years2 * 12 - amount), cur))
    extra = round(pay * 0.1 / 10) * 10 or 10
    ctx["l_extra_note"] = (f"Paying an extra {money(extra, cur)} a month would shorten the loan and cut the "
                           f"interest noticeably; most lenders allow overpayments, but check for early repayment fees.")


@builder
def budget(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A 50/30/20 split of a monthly take-home pay: `b_income` and `b_table`."""
    cur = _currency(rng)
    income = rng.randrange(1800, 7001, 100)
    rows = [["Category", "Share", "Amount"]]
    for name, share in (("Needs", 50), ("Wants", 30), ("Savings and debt", 20)):
        rows.append([name, f"{share}%", money(income * share / 100, cur)])
    ctx.update(b_income=money(income, cur), b_table=rows, b_needs=rows[1][2], b_wants=rows[2][2], b_save=rows[3][2])


@builder
def savings_goal(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """The monthly saving to reach a goal, without and with interest."""
    cur = _currency(rng)
    goal = rng.choice([1500, 2000, 3000, 5000, 8000, 10000, 12000, 20000])
    months = rng.choice([6, 10, 12, 18, 24, 36])
    rate = rng.choice([3, 4, 4.5, 5])
    with_interest = goal / (future_value(1, rate, months))
    ctx.update(g_goal=money(goal, cur), g_months=str(months), g_rate=num(rate),
               g_plain=money(round(goal / months, 2), cur), g_with=money(round(with_interest, 2), cur))


@builder
def split_bill(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A bill, a tip and a split."""
    cur = _currency(rng)
    bill = rng.randrange(4000, 40001, 5) / 100
    people = rng.randint(2, 8)
    tip = rng.choice([10, 12, 15, 18, 20])
    tip_amount = round(bill * tip / 100, 2)
    total = bill + tip_amount
    each = total / people
    ctx.update(s_bill=money(bill, cur), s_people=str(people), s_tip=str(tip), s_tip_amount=money(tip_amount, cur),
               s_total=money(round(total, 2), cur), s_each=money(round(each, 2), cur),
               s_round=money(-(-each // 1), cur))


@builder
def percent_change(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """An old and new price and the percentage change."""
    cur = _currency(rng)
    old = rng.randrange(20, 2001, 5)
    change = rng.choice([-30, -25, -20, -15, -12, -8, 5, 8, 10, 12, 15, 18, 25, 40])
    new = round(old * (1 + change / 100) + rng.choice([-1, 0, 0, 1]))
    pct = (new - old) / old * 100
    word = "increase" if pct > 0 else "decrease"
    ctx.update(p_old=money(old, cur), p_new=money(new, cur), p_pct=f"{num(abs(pct), 1)}% {word}")


# --- study ---------------------------------------------------------------------------------------------------------


def frac_text(f: Fraction) -> str:
    """17/12 or 5 (a fraction in lowest terms)."""
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _linear(rng: random.Random) -> dict[str, str]:
    a, x, b = rng.randint(2, 12), rng.randint(-9, 15), rng.randint(1, 40)
    return {"a": str(a), "b": str(b), "c": str(a * x + b), "cb": str(a * x), "x": str(x), "ax": str(a * x)}


def _percent_of(rng: random.Random) -> dict[str, str]:
    p, n = rng.choice([5, 12, 15, 18, 20, 25, 35, 40, 65, 75]), rng.randrange(40, 1001, 20)
    return {"p": str(p), "n": str(n), "pd": num(p / 100), "r": num(p * n / 100), "ten": num(n / 10),
            "p_tenths": num(p / 10, 1)}


def _percent_what(rng: random.Random) -> dict[str, str]:
    whole = rng.randrange(40, 801, 20)
    pct = rng.choice([5, 10, 15, 20, 25, 30, 35, 40, 45, 60, 75])
    part = whole * pct // 100
    return {"part": str(part), "whole": str(whole), "ratio": num(part / whole, 4), "pct": num(part / whole * 100),
            "pct_dec": num(part / whole, 4)}


def _mean_median(rng: random.Random) -> dict[str, str]:
    values = [rng.randint(1, 60) for _ in range(rng.choice([5, 6, 7]))]
    s = sorted(values)
    mid = len(s) // 2
    if len(s) % 2:
        median, calc = Fraction(s[mid]), str(s[mid])
    else:
        median = Fraction(s[mid - 1] + s[mid], 2)
        calc = f"({s[mid - 1]} + {s[mid]}) / 2 = {num(float(median))}"
    mean = Fraction(sum(values), len(values))
    return {"values": ", ".join(map(str, values)), "sum": str(sum(values)), "count": str(len(values)),
            "mean": num(float(mean)), "sorted": ", ".join(map(str, s)), "median_calc": calc,
            "median": num(float(median)), "gap": num(abs(float(mean - median)))}


def _circle(rng: random.Random) -> dict[str, str]:
    r = rng.randint(2, 25)
    return {"r": str(r), "r2": str(r * r), "area": num(3.1416 * r * r, 1), "circ": num(2 * 3.1416 * r, 1),
            "d": str(2 * r), "sq": str(4 * r * r)}


def _hypotenuse(rng: random.Random) -> dict[str, str]:
    a, b, c = rng.choice([(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (9, 40, 41)])
    k = rng.choice([1, 1, 2, 3])
    a, b, c = a * k, b * k, c * k
    return {"a": str(a), "b": str(b), "c": str(c), "a2": str(a * a), "b2": str(b * b), "c2": str(c * c),
            "ab": str(a + b)}


def _fractions(rng: random.Random) -> dict[str, str]:
    d1, d2 = rng.sample([2, 3, 4, 5, 6, 8, 9, 10, 12], 2)
    f1, f2 = Fraction(rng.randint(1, d1 - 1), d1), Fraction(rng.randint(1, d2 - 1), d2)
    lcd = math.lcm(f1.denominator, f2.denominator)
    n1, n2 = f1.numerator * lcd // f1.denominator, f2.numerator * lcd // f2.denominator
    total = f1 + f2
    whole, rest = divmod(total, 1)
    result = frac_text(total) if whole == 0 or rest == 0 else f"{int(whole)} {frac_text(rest)} ({frac_text(total)})"
    return {"f1": frac_text(f1), "f2": frac_text(f2), "d1": str(f1.denominator), "d2": str(f2.denominator),
            "lcd": str(lcd), "e1": f"{n1}/{lcd}", "e2": f"{n2}/{lcd}", "sum": f"{n1 + n2}/{lcd}", "result": result,
            "v1": num(float(f1), 3), "v2": num(float(f2), 3), "vs": num(float(total), 3)}


def _term(c: int, n: int) -> str:
    if n == 0:
        return str(c)
    body = "x" if n == 1 else f"x^{n}"
    return body if c == 1 else f"-{body}" if c == -1 else f"{c}{body}"


def _poly(terms: list[tuple[int, int]]) -> str:
    text = " + ".join(_term(c, n) for c, n in terms if c)
    return text.replace("+ -", "- ") or "0"


def _derivative(rng: random.Random) -> dict[str, str]:
    degree = rng.choice([2, 3, 3, 4])
    terms = [(rng.choice([1, 2, 3, 4, 5, -2, -3, 6]), n) for n in range(degree, -1, -1)]
    terms = [(c, n) for c, n in terms if c] if rng.random() < 0.8 else terms[:-1]
    deriv = [(c * n, n - 1) for c, n in terms if n > 0]
    steps = "; ".join(f"{_term(c, n)} -> {_term(c * n, n - 1) if n else '0'}" for c, n in terms)
    return {"poly": _poly(terms), "deriv": _poly(deriv), "term_steps": steps,
            "slope1": str(sum(c for c, _ in deriv))}


def _speed(rng: random.Random) -> dict[str, str]:
    speed = rng.randrange(40, 241, 5)
    time = rng.choice([1.5, 2, 2.5, 3, 4, 0.75, 1.25])
    return {"dist": num(speed * time), "time": num(time), "speed": str(speed)}


def _celsius(rng: random.Random) -> dict[str, str]:
    c = rng.choice([-10, -5, 0, 5, 12, 18, 20, 22, 25, 28, 30, 35, 37, 40, 100, 180])
    return {"c": str(c), "c95": num(c * 9 / 5, 1), "f": num(c * 9 / 5 + 32, 1), "rough": str(2 * c + 30)}


def _dice(rng: random.Random) -> dict[str, str]:
    t = rng.randint(2, 12)
    pairs = [(a, t - a) for a in range(1, 7) if 1 <= t - a <= 6]
    f = Fraction(len(pairs), 36)
    return {"t": str(t), "ways_list": ", ".join(f"{a}+{b}" for a, b in pairs), "ways": str(len(pairs)),
            "frac": frac_text(f), "pct": num(len(pairs) / 36 * 100, 1)}


MATH = {"linear": _linear, "percent_of": _percent_of, "percent_what": _percent_what, "mean_median": _mean_median,
        "circle": _circle, "hypotenuse": _hypotenuse, "fractions": _fractions, "derivative": _derivative,
        "speed": _speed, "celsius": _celsius, "dice": _dice}


@builder
def math_problem(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A worked problem: `k`, its kind's frames (study.toml pool `math`), and `m`, the computed numbers."""
    ctx["k"] = rng.choice(topic["pools"]["math"])
    ctx["m"] = MATH[ctx["k"]["kind"]](rng)


@builder
def math_problem_again(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """New numbers for the same kind of problem (turns already written keep the old ones)."""
    ctx["m"] = MATH[ctx["k"]["kind"]](rng)


@builder
def timetable(rng: random.Random, ctx: dict[str, Any], topic: dict[str, Any]) -> None:
    """A week of two study sessions a day over three to five subjects: `t_table`, `t_names`, `t_count`, `t_days`."""
    subjects = rng.sample(topic["pools"]["subjects"], rng.randint(3, 5))
    days = rng.choice([5, 6])
    rows = [["Day", "Session 1", "Session 2"]]
    turn = 0
    for day in WEEKDAYS[:days]:
        cells = []
        for _ in range(2):
            s = subjects[turn % len(subjects)]
            cells.append(f"{cap(s['name'])}: {s['tasks'][(turn // len(subjects)) % len(s['tasks'])]}")
            turn += 1
        rows.append([day, *cells])
    ctx.update(t_table=rows, t_names=[s["name"] for s in subjects], t_count=NUMBER_WORDS[len(subjects)],
               t_days=NUMBER_WORDS[days])
