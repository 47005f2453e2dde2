"""Entity draws for the everyday and life-transition event kinds (tasks/world/catalog_life.py).

Draws take the seeded RNG and a view of the profile; the simulator adds a `_world` key holding the
persona's standing world entities (two colleagues who share a first name, the neighbourhood's places)
so repeated routines meet the same, deliberately confusable, people and places. Without `_world`
(narrator tests) the draws fall back to the banks.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from tasks.world import banks
from tasks.world.banks_extra import GENERIC_HOBBY_GOALS, HOBBY_GOALS
from tasks.world.eventkinds import Entity
from tasks.world.ontology import ATTRIBUTES

RUNNING_HOBBIES = frozenset({"trail running"})
SPORT_HOBBIES = frozenset({"bouldering", "cycling", "open-water swimming", "yoga", "salsa dancing", "trail running"})
PARTNER_ROLES = ("partner", "wife", "husband", "girlfriend", "boyfriend")
FAMILY_ROLES = ("mother", "father", "sister", "brother", "daughter", "son", "cousin", "granddaughter", "wife",
                "husband", "partner")
RESTAURANTS = ("Casa Lola", "Casa Lolita", "The Olive Tree", "Olive & Thyme", "Golden Dragon", "Jade Dragon",
               "Mama Ngozi's Kitchen", "Kebab Corner")
VENUES = ("the Roundhouse", "the Old Mill", "Riverside Arena", "the Blue Note Club", "Parkside Bandstand")
ARTISTS = ("the Lantern Quartet", "DJ Koko", "Marisol & the Tides", "the Night Owls", "Kofi Blue")
MARKETS = ("Maple Grocers", "FreshMart", "Fresh Market", "the Saturday farmers' market", "Corner Stores")
VOLUNTEERING = (("food bank", "Northside Food Bank"), ("animal shelter", "Paws Rescue"),
                ("library", "the public library"), ("community garden", "Greenway Community Garden"))
VOLUNTEER_TASKS = {"food bank": ("sorting donations", "packing food parcels"),
                   "animal shelter": ("walking the dogs", "cleaning the kennels"),
                   "library": ("the front desk", "shelving returns"),
                   "community garden": ("weeding", "watering the beds")}
"""What a volunteer does at each kind of place: no weeding at the library."""
BILLS = (("boiler repair", "1,200"), ("dental bill", "850"), ("car repair", "1,400"), ("tax bill", "2,100"),
         ("roof leak repair", "1,750"), ("vet bill", "900"))
MILESTONES = ("wedding", "graduation", "50th birthday party", "housewarming", "retirement party", "baby shower")


def world(profile: dict[str, Any]) -> dict[str, Any]:
    """The standing world entities the simulator attached, or an empty dict."""
    return profile.get("_world", {})


def partner(profile: dict[str, Any]) -> str | None:
    """The name of the persona's partner or spouse, if any."""
    return next((r["name"] for r in profile["relationships"] if r["role"] in PARTNER_ROLES), None)


def family(profile: dict[str, Any]) -> list[str]:
    """Names of related family members."""
    return [r["name"] for r in profile["relationships"] if r["role"] in FAMILY_ROLES]


def has_boss(profile: dict[str, Any]) -> bool:
    """True when the persona works for an employer other than themselves (someone can promote them)."""
    return employed(profile) and profile["identity"]["employer"] != "self-employed"


def employed(profile: dict[str, Any]) -> bool:
    """True when the persona has an employer (not retired, not unemployed, not a student)."""
    employer = profile["identity"]["employer"]
    return employer not in ATTRIBUTES["employer"].vacant and "university student" != profile["identity"]["occupation"]


HOBBY_SPOTS: dict[str, tuple[str, ...]] = {
    "bouldering": ("the climbing wall", "the boulder park"), "sourdough baking": ("the community kitchen",
                                                                                 "a friend's place"),
    "birdwatching": ("the wetland reserve", "the riverside"), "chess": ("the chess club", "the library"),
    "trail running": ("the forest trails", "the ridge path", "the park"),
    "watercolour painting": ("the art club", "the harbour"), "gardening": ("the allotment", "the community garden"),
    "salsa dancing": ("the dance studio", "the community centre"), "film photography": ("the old town", "the harbour"),
    "knitting": ("the knitting circle", "a friend's place", "the community centre"),
    "cycling": ("the canal towpath", "the hill roads"), "playing the ukulele": ("the community centre",
                                                                               "a friend's place"),
    "board games": ("the games café", "a friend's place"), "open-water swimming": ("the lake", "the lido"),
    "crosswords": ("the library", "a friend's place"), "woodworking": ("the community workshop", "the club"),
    "yoga": ("the yoga studio", "the park"), "fishing": ("the river", "the reservoir"),
}
"""Where each hobby is done away from home (a session the weather or a venue can call off): no swim at home."""
OTHER_SPOTS = ("the park", "the community centre", "the club", "a friend's place")


def draw_hobby_session(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """One of the persona's current hobbies (not their volunteering, a kind of its own), where it is done, for how
    long, and what they are working towards in it (kept from session to session with its hobby and place: the
    catalog's `keep` and `keep_with`)."""
    hobbies = [h for h in profile["traits"]["hobbies"] if not h.startswith("volunteering")]
    hobby = rng.choice(hobbies or ["walking"])
    tag = "running sport exertion" if hobby in RUNNING_HOBBIES else "sport" if hobby in SPORT_HOBBIES else ""
    spot = rng.choice(HOBBY_SPOTS.get(hobby, OTHER_SPOTS))
    goals = HOBBY_GOALS.get(hobby) or tuple(g.format(hobby=hobby) for g in GENERIC_HOBBY_GOALS)
    hours = rng.randint(1, 4)
    return {"hobby": hobby, "spot": spot, "hours": str(hours), "tags": tag, "goal": rng.choice(goals),
            "duration": ("an hour", "two hours", "three hours", "four hours")[hours - 1]}


DRINKS = ("a flat white", "an oat latte", "a pot of Earl Grey", "a cortado", "an iced americano", "a hot chocolate",
          "a chai latte", "a double espresso")
BAD_VISITS = ("cold coffee and a forty-minute wait", "a rude barista and a stale croissant",
              "a new owner who had doubled the prices", "a burnt flat white and a sticky table",
              "music so loud I couldn't hear myself think", "a mouse running behind the counter")


def draw_cafe_visit(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The favourite café, what the persona orders there and what would spoil a visit."""
    cafe = profile["traits"]["preferences"].get("cafe") or "the café on the corner"  # none: the kind is not planned
    return {"cafe": cafe, "drink": rng.choice(DRINKS),
            "problem": rng.choice(BAD_VISITS)}


def new_friend_places(profile: dict[str, Any]) -> list[str]:
    """Where the persona's routines bring them among people they could befriend, not yet the place of a friend."""
    prefs = profile["traits"]["preferences"]
    places = [f"the {hobby} group" for hobby in profile["traits"]["hobbies"] if not hobby.startswith("volunteering")]
    if prefs.get("gym"):
        places.append(prefs["gym"])
    if prefs.get("volunteering"):  # `{task} at {org}`: the org
        places.append(prefs["volunteering"].rpartition(" at ")[2])
    if prefs.get("course"):  # `{subject} course at {school}`
        places.append(f"the {prefs['course']}")
    roles = {r["role"] for r in profile["relationships"]}
    return [p for p in places if f"friend from {p}" not in roles]


def draw_new_friend(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """Someone the persona gets talking to where a routine takes them, named as anyone met is (so they may share
    a first name with someone the persona knows: `banks.local_given_name`)."""
    where = rng.choice(new_friend_places(profile) or ["the community centre"])
    surname = rng.choice([s for group in banks.SURNAMES.values() for s in group])
    return {"new_name": f"{banks.local_given_name(rng, profile)} {surname}", "where": where}


SERVICE_ROLES = frozenset({"doctor", "gp", "dentist", "landlord", "therapist"})
"""Relationships who serve the persona (their GP): they do not come to dinner or celebrate milestones with them."""


def serves(role: str) -> bool:
    """Whether a relationship of this role serves the persona (`doctor`) rather than being close to them."""
    return role.strip().lower() in SERVICE_ROLES


def close_people(profile: dict[str, Any]) -> list[str]:
    """The names of the persona's people who are friends, family, partners or colleagues, not their GP."""
    return [r["name"] for r in profile["relationships"] if not serves(r["role"])]


def draw_dinner(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A restaurant (from a bank with near-duplicate names) and a friend or relative to eat with."""
    people = close_people(profile) or ["an old friend"]
    dish = rng.choice(banks.FOODS)
    return {"restaurant": rng.choice(RESTAURANTS), "companion": rng.choice(people), "dish": dish}


class LifeUpdate(NamedTuple):
    """What someone in the persona's life is up to: how they tell it (`phrase`, after their name), and the state it
    sets: an attribute of their own life (tasks/world/ontology.py, domain `life`), its value (a phrase inside
    `phrase`) and a short form."""

    phrase: str
    attribute: str
    value: str
    short: str


FAMILY_UPDATES: tuple[LifeUpdate, ...] = tuple(LifeUpdate(*row) for row in (
    ("is repainting the kitchen yellow", "home_project", "repainting the kitchen yellow", "the kitchen"),
    ("is re-tiling the bathroom", "home_project", "re-tiling the bathroom", "the bathroom"),
    ("is building a shed at the bottom of the garden", "home_project", "building a shed", "the shed"),
    ("booked a holiday to Crete", "next_holiday", "Crete", "Crete"),
    ("booked a week in Lisbon for the spring", "next_holiday", "Lisbon", "Lisbon"),
    ("started night classes in bookkeeping", "course", "night classes in bookkeeping", "night classes"),
    ("is taking driving lessons", "course", "driving lessons", "driving lessons"),
    ("started working at the library", "workplace", "the library", "the library"),
    ("found a job at the garden centre", "workplace", "the garden centre", "the garden centre"),
    ("joined a walking club", "club", "a walking club", "walking club"),
    ("joined the church choir", "club", "the church choir", "the choir"),
))
"""What a relative tells on a call."""
CHILD_UPDATES: tuple[LifeUpdate, ...] = tuple(LifeUpdate(*row) for row in (
    ("joined the school football team", "club", "the school football team", "football"),
    ("joined the Scouts", "club", "the Scouts", "the Scouts"),
    ("started swimming lessons", "course", "swimming lessons", "swimming lessons"),
    ("is learning the recorder", "course", "recorder lessons", "the recorder"),
    ("is building a treehouse in the garden", "home_project", "building a treehouse", "the treehouse"),
))
"""What a child under CHILD_AGE tells (no job, no night classes, no holiday they booked)."""
CHILD_AGE = 16


def known_age(profile: dict[str, Any], person: str) -> int | None:
    """A relation's age as the profile holds it (tasks/world/ages.py writes it), if it does."""
    age = next((r.get("attributes", {}).get("age", "") for r in profile["relationships"] if r["name"] == person), "")
    return int(age) if age.isdigit() else None


def life_update(rng: random.Random, profile: dict[str, Any], person: str, bank: tuple[LifeUpdate, ...]) -> LifeUpdate:
    """An update of `person`'s life from `bank`: one that changes something, mostly about a part of their life not
    told yet (their attributes in the profile say what is known)."""
    known = next((r.get("attributes", {}) for r in profile["relationships"] if r["name"] == person), {})
    if (age := known_age(profile, person)) is not None and age < CHILD_AGE:
        bank = CHILD_UPDATES
    changes = [u for u in bank if known.get(u.attribute) != u.value] or list(bank)
    fresh = [u for u in changes if u.attribute not in known]
    return rng.choice(fresh if fresh and rng.random() < 0.7 else changes)


def update_fields(update: LifeUpdate) -> dict[str, str]:
    """The entity fields a life update fills (`news` is the phrase the narrative tells it with)."""
    return {"news": update.phrase, "life_attribute": update.attribute, "life_value": update.value,
            "life_short": update.short}


def draw_call(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A family member to call and the update of their life they share."""
    who = rng.choice(family(profile) or close_people(profile) or [r["name"] for r in profile["relationships"]])
    update = life_update(rng, profile, who, FAMILY_UPDATES)
    return {"relative": who, "topic": rng.choice(("the weekend", "family news", "a birthday"))} | update_fields(update)


def draw_shop(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A grocery shop (near-duplicate names) and the amount spent."""
    return {"market": rng.choice(MARKETS), "amount": str(rng.randint(18, 140))}


SERVICES: dict[str, tuple[str, ...]] = {
    "haircut": ("Clip Joint", "Clip & Curl", "Mane Street Barbers"),
    "dental check-up": ("Bright Smile Dental", "Brightside Dental"),
    "sight test": ("Clearview Opticians", "Clear Sight Opticians"),
    "bike service": ("Spoke & Chain Cycles", "the Bike Doctor"),
    "phone screen repair": ("FixIt Phones", "Phone Fixers"),
    "passport photo": ("Snappy Prints", "the photo booth at the post office"),
    "shoe repair": ("Heel Bar Express", "the cobbler's on Mill Lane"),
    "trouser alteration": ("Stitch in Time Tailors", "the tailor's on Mill Lane"),
}
"""Everyday appointments and errands (each told `I had a {service} at {place}`), and where each is done: a small
bank per service with near-duplicate names, so the same places recur and two of them are easy to mix up."""


def draw_appointment(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """An everyday appointment or errand and the place it is booked at."""
    service = rng.choice(sorted(SERVICES))
    return {"service": service, "place": rng.choice(SERVICES[service])}


def draw_concert(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """An artist and a venue."""
    return {"artist": rng.choice(ARTISTS), "venue": rng.choice(VENUES)}


def draw_volunteer(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A place to volunteer and the task there."""
    kind, org = rng.choice(VOLUNTEERING)
    return {"org": org, "org_kind": kind, "task": rng.choice(VOLUNTEER_TASKS[kind])}


TIPS = (
    "a cheaper phone plan", "a good dentist", "a quiet running route", "a podcast on budgeting",
    "a good mechanic", "a cheaper energy supplier", "a decent barber", "a great bakery", "a quick bus route",
    "a good physio", "a cheaper broadband deal", "a quiet swimming pool", "a decent bike shop", "a great pizza place",
    "a good plumber", "a simple recipe app", "a podcast about sleep", "a book on personal finance",
    "a class on bread baking", "a course on first aid", "a book about plant care", "a podcast on history",
    "a class on pottery", "a course on photography", "a good walking trail", "a cheap gym",
)
"""What a colleague recommends over lunch: each in a shape the dialogue's value parts know
(tasks/dialogue/valueparts.py: "a <quality> <kind>" or "a <podcast|book|app|course|class> on <topic>"), and no
topic starting with a vowel ("a {topic} {thing}" is said with "a")."""


def draw_colleague(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """A colleague from the standing pair who share a first name, and what the lunch was about."""
    pairs = world(profile).get("colleagues") or [("Sam Lawson", "accounts"), ("Sam Reid", "logistics")]
    name, team = rng.choice(pairs)
    tip = rng.choice(TIPS)
    return {"colleague": name, "team": team, "tip": tip, "employer": profile["identity"]["employer"]}


def draw_date(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """Someone new to meet (mostly from the persona's own city, `banks.local_given_name`) and a place to meet."""
    given = banks.local_given_name(rng, profile)  # may share a first name with someone they know
    surname = rng.choice([s for group in banks.SURNAMES.values() for s in group])
    return {"date_name": f"{given} {surname}", "place": rng.choice(RESTAURANTS)}


def draw_partner_evening(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The partner and the evening out."""
    return {"partner": partner(profile) or "my partner", "place": rng.choice(RESTAURANTS + VENUES)}


def draw_bill(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """An expensive bill, its amount, and a belonging that might be sold to pay it."""
    bill, amount = rng.choice(BILLS)
    sellable = [b["name"] for b in profile["belongings"] if b["kind"] not in ("home", "pet")]
    return {"bill": bill, "amount": amount, "item": sellable[0] if sellable else "old laptop"}


def draw_promotion(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The next income band and the role the promotion is for."""
    bands = banks.INCOME_BANDS
    band = profile["identity"]["income_band"]
    up = bands[min(len(bands) - 1, bands.index(band) + 1)] if band in bands else "middle"
    return {"role": profile["identity"]["occupation"], "band": up, "employer": profile["identity"]["employer"]}


def draw_restructure(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The employer that is restructuring."""
    return {"employer": profile["identity"]["employer"], "months": str(rng.randint(2, 4))}


def draw_milestone(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """Someone close and the milestone being celebrated."""
    person = rng.choice(close_people(profile) or [r["name"] for r in profile["relationships"]])
    age = known_age(profile, person)
    fits = [m for m in MILESTONES if age is None or (m != "50th birthday party" or age == 50)
            and (m != "retirement party" or age >= 58) and (age >= 18 or m == "graduation")]
    return {"person": person, "milestone": rng.choice(fits or ["graduation"]), "venue": rng.choice(VENUES)}


def draw_retirement(rng: random.Random, profile: dict[str, Any]) -> Entity:
    """The job being retired from."""
    ident = profile["identity"]
    return {"occupation": ident["occupation"], "employer": ident["employer"]}
