"""Concrete entities for the event catalog: who, what and where each planned event involves.

Each `draw_*` function takes the seeded RNG and the current profile (a JSON dict) and returns the
entity fields a kind's templates use (a pet's kind and name, a cafe and its street, a race and a
finishing time, ...). The banks are fictional and deliberately hold near-duplicates (similar cafe,
course and race names) so memory systems meet distractors.
"""

from __future__ import annotations

import random
from typing import Any

from tasks.world import banks
from tasks.world.entities_life import LifeUpdate, life_update, update_fields

Entity = dict[str, str]
FRIENDLY_ROLES = frozenset(
    {
        "friend",
        "best friend",
        "colleague",
        "neighbour",
        "sister",
        "brother",
        "cousin",
        "gym buddy",
        "mentor",
        "manager",
        "old school friend",
        "old friend",
        "classmate",
    }
)


def pick(rng: random.Random, items, exclude: set[str] = frozenset()):
    """A random item not in `exclude` (tuples are compared by their first element)."""
    options = [i for i in items if (i[0] if isinstance(i, tuple) else i) not in exclude] or list(items)
    return rng.choice(options)


def belonging(profile: dict[str, Any], kind: str) -> str | None:
    """The name of the belonging of this kind, if the profile holds one."""
    return next((b["name"] for b in profile["belongings"] if b["kind"] == kind), None)


def friends(profile: dict[str, Any]) -> list[str]:
    """Names of the related people who might come to visit."""
    return [r["name"] for r in profile["relationships"]
            if r["role"] in FRIENDLY_ROLES or r["role"].startswith("friend from ")]


def working(profile: dict[str, Any]) -> bool:
    """True unless the persona is retired."""
    return not profile["identity"]["occupation"].startswith("retired")


NOT_A_CAREER = ("university student", "unemployed", "stay-at-home parent")
"""Occupations a new job leaves behind: the job is drawn among those of the same schooling."""
CAREER_CHANGE_SHARE = 0.15
"""A working persona's new job is the same occupation at another employer, except this share of the time, when it
is another occupation needing the same schooling (a waiter becoming a retail assistant, not a nurse a fisherman)."""


def job_seeker(profile: dict[str, Any]) -> bool:
    """True when a new job makes sense: working age and not in full-time study (`working`, not a student)."""
    return working(profile) and profile["identity"]["occupation"] != "university student"


def career_moves(occupation: str, rng: random.Random) -> list[banks.Occupation]:
    """The occupations a persona in `occupation` may take a new job in (see CAREER_CHANGE_SHARE)."""
    same = [o for o in banks.OCCUPATIONS if o.title == occupation]
    schooling = {o.education for o in same} or {"secondary school"}
    kin = [o for o in banks.OCCUPATIONS if o.education in schooling and o.title not in NOT_A_CAREER + (occupation,)]
    if same and occupation not in NOT_A_CAREER and (not kin or rng.random() >= CAREER_CHANGE_SHARE):
        return same
    return kin or [o for o in banks.OCCUPATIONS if o.title not in NOT_A_CAREER]


def draw_job(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A role (`career_moves`) and a company other than the current employer."""
    ident = profile["identity"]
    occ = rng.choice(career_moves(ident["occupation"], rng))
    employers = [e.format(city=ident["city"]) for e in occ.employers]
    return {"role": occ.title, "company": pick(rng, employers, {ident["employer"]})}


def draw_flat(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A street address on a street the persona does not live on yet."""
    home = belonging(profile, "home") or ""
    street = pick(rng, [s for s in banks.STREETS if s not in home])
    return {"address": f"{rng.randint(2, 98)} {street}"}


def draw_pet(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A pet kind and name."""
    kinds = ("rescue dog", "tabby cat", "beagle puppy", "black kitten", "lop-eared rabbit", "greyhound")
    names = ("Biscuit", "Luna", "Pepper", "Miso", "Olive", "Mango", "Pixel", "Juniper", "Toast", "Noodle")
    return {"pet_kind": rng.choice(kinds), "pet_name": rng.choice(names)}


def draw_course(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A course subject and the school that runs it."""
    subjects = (
        "pottery",
        "Spanish",
        "Italian cooking",
        "life drawing",
        "Python programming",
        "first aid",
        "photography",
        "Japanese",
        "bookkeeping",
        "carpentry",
        "creative writing",
    )
    schools = (
        "Clay Corner",
        "Lantern Institute",
        "Northside Community College",
        "Open Studio",
        "Atelier Nove",
        "Fernhill Adult School",
    )
    return {"subject": rng.choice(subjects), "school": rng.choice(schools)}


def draw_gym(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A gym other than the current one."""
    gyms = (
        "Ironworks Fitness",
        "Pulse Gym",
        "Summit Climbing Wall",
        "Flow Yoga Studio",
        "Anchor Boxing Club",
        "Bluewave Swim Club",
        "Core Collective",
    )
    return {"gym": pick(rng, gyms, {profile["traits"]["preferences"].get("gym", "")})}


def draw_vehicle(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A vehicle (full description and short model name) other than the current one."""
    full, short = pick(rng, banks.VEHICLES, {belonging(profile, "vehicle") or ""})
    return {"vehicle": full, "model": short}


def draw_trip(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A destination city other than home, and the trip length."""
    city = pick(rng, [c.name for c in banks.CITIES], {profile["identity"]["city"]})
    return {"city": city, "length": rng.choice(("weekend", "three-day", "week-long", "two-day"))}


_COMPLAINTS = (
    ("a sore knee", "torn meniscus in the right knee"),
    ("recurring headaches", "chronic migraine"),
    ("a persistent cough", "mild case of pneumonia"),
    ("lower back pain", "slipped disc"),
    ("an itchy rash", "flare-up of eczema"),
    ("dizzy spells", "middle-ear infection"),
)


def draw_doctor(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A doctor, the complaint to see them about, and the diagnosis a bad outcome brings."""
    region = rng.choice(sorted(banks.SURNAMES))
    given = rng.choice(banks.GIVEN_NAMES[region][rng.choice(("female", "male"))])
    complaint, diagnosis = rng.choice(_COMPLAINTS)
    doctor = f"Dr. {given} {rng.choice(banks.SURNAMES[region])}"
    return {"doctor": doctor, "complaint": complaint, "diagnosis": diagnosis}


_RACES = (
    ("Parkland 5K", 22, 38),
    ("Riverside 10K", 45, 70),
    ("Old Town 10K", 46, 72),
    ("Harbour Half Marathon", 95, 150),
    ("Lakeside Trail Run", 60, 120),
    ("Canal 5K", 21, 37),
    ("Bridge to Bridge 10K", 44, 71),
    ("Spring Half Marathon", 96, 155),
    ("Hillside Trail 15K", 80, 130),
    ("Night Run 8K", 36, 58),
    ("Forest Park 5K", 23, 39),
    ("City Marathon", 200, 320),
)


def draw_race(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A race, a plausible finishing time, and the injury a bad outcome brings."""
    race, low, high = rng.choice(_RACES)
    injury = rng.choice(("sprained left ankle", "pulled hamstring", "twisted right knee", "strained calf"))
    return {"race": race, "minutes": str(rng.randint(low, high)), "injury": injury}


def draw_book(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A (fictional) book and its author."""
    titles = (
        "The Salt Road",
        "A Map of Small Hours",
        "Glasshouse Summer",
        "The Lighthouse Ledger",
        "Nine Rivers",
        "The Quiet Orchard",
        "Paper Moons",
        "The Cartographer's Daughter",
        "Winter in Lisbon",
        "Tidewater",
    )
    authors = ("Mara Ellison", "Tomás Reyes", "Adaeze Nwosu", "Henrik Sand", "Keiko Mori", "Ruth Calloway")
    return {"book": rng.choice(titles), "author": rng.choice(authors)}


def draw_cafe(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A cafe and its street."""
    cafes = (
        "Copper Kettle Café",
        "Bean There",
        "Little Fig",
        "Café Lumen",
        "Daily Grind",
        "Two Sparrows",
        "Moka House",
        "Kettle & Crumb",
        "Blue Door Coffee",
        "Copper Kettle Coffee",
        "Little Fig Bakery",
    )
    return {"cafe": rng.choice(cafes), "street": rng.choice(banks.STREETS)}


FRIEND_UPDATES: tuple[LifeUpdate, ...] = tuple(LifeUpdate(*row) for row in (
    ("is opening a bookshop called Dog-Eared", "side_project", "a bookshop called Dog-Eared", "Dog-Eared"),
    ("started a podcast called Small Talk", "side_project", "a podcast called Small Talk", "Small Talk"),
    ("got engaged to a violinist named Teo", "partner", "a violinist named Teo", "Teo"),
    ("is training for the Berlin Marathon", "race_goal", "the Berlin Marathon", "Berlin Marathon"),
    ("is training for the Lisbon half marathon", "race_goal", "the Lisbon half marathon", "Lisbon half marathon"),
    ("got promoted to head of design", "job_title", "head of design", "head of design"),
    ("got a job as a ferry pilot", "job_title", "ferry pilot", "ferry pilot"),
    ("is moving to Vancouver in September", "next_city", "Vancouver", "Vancouver"),
    ("is moving to Edinburgh in the spring", "next_city", "Edinburgh", "Edinburgh"),
    ("is moving to Montreal for a new job", "next_city", "Montreal", "Montreal"),
    ("is moving to Melbourne next year", "next_city", "Melbourne", "Melbourne"),
    ("is training for the Porto 10K", "race_goal", "the Porto 10K", "Porto 10K"),
    ("adopted a greyhound named Comet", "pet", "a greyhound named Comet", "Comet"),
    ("adopted a ginger cat named Saffron", "pet", "a ginger cat named Saffron", "Saffron"),
))
"""What a friend tells when they visit."""


def draw_visit(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A friend to host, the occasion, the update of their life they bring, and the reason a visit may be
    cancelled."""
    friend = rng.choice(friends(profile))
    update = life_update(rng, profile, friend, FRIEND_UPDATES)
    reason = rng.choice(("a bad flu", "a work emergency", "a cancelled train", "a family emergency"))
    occasion = rng.choice(
        (
            "the weekend",
            "a birthday dinner",
            "a board-game night",
            "the long weekend",
            "a cooking night",
            "the football final",
            "a movie marathon",
            "a Sunday roast",
            "a karaoke night",
            "a barbecue",
            "a quiz night",
            "a pancake breakfast",
        )
    )
    return {"friend": friend, "occasion": occasion, "reason": reason} | update_fields(update)


def draw_friend_call(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A friend who rings, what about, and the update of their life they tell (a missed call leaves the topic)."""
    friend = rng.choice(friends(profile))
    update = life_update(rng, profile, friend, FRIEND_UPDATES)
    topic = rng.choice(("the weekend", "old times", "a favour", "the match", "a podcast", "their plans"))
    return {"friend": friend, "topic": topic} | update_fields(update)


def draw_project(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A work project code name."""
    code = rng.choice(("Atlas", "Beacon", "Juniper", "Orion", "Meridian", "Quartz", "Kestrel", "Lantern"))
    return {"project": f"{code} {rng.choice(('migration', 'rebrand', 'audit', 'launch', 'redesign'))}",
            "employer": profile["identity"]["employer"]}
