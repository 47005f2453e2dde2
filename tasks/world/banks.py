"""Data banks for the world stages: cities, names, occupations, hobbies and the like.

Pure data, shared by the profile hints (tasks/world/profile.py), the event catalog (tasks/world/catalog.py) and
the offline profile narrator. Nothing here draws randomness.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from tasks.world import banks_extra as _extra


class City(NamedTuple):
    name: str
    country: str
    timezone: str
    region: str


CITIES: tuple[City, ...] = (
    City("Lisbon", "Portugal", "Europe/Lisbon", "iberian"),
    City("Porto", "Portugal", "Europe/Lisbon", "iberian"),
    City("Madrid", "Spain", "Europe/Madrid", "iberian"),
    City("Mexico City", "Mexico", "America/Mexico_City", "iberian"),
    City("São Paulo", "Brazil", "America/Sao_Paulo", "iberian"),
    City("Buenos Aires", "Argentina", "America/Argentina/Buenos_Aires", "iberian"),
    City("London", "United Kingdom", "Europe/London", "anglo"),
    City("Manchester", "United Kingdom", "Europe/London", "anglo"),
    City("Dublin", "Ireland", "Europe/Dublin", "anglo"),
    City("Toronto", "Canada", "America/Toronto", "anglo"),
    City("Chicago", "United States", "America/Chicago", "anglo"),
    City("Seattle", "United States", "America/Los_Angeles", "anglo"),
    City("Sydney", "Australia", "Australia/Sydney", "anglo"),
    City("Auckland", "New Zealand", "Pacific/Auckland", "anglo"),
    City("Berlin", "Germany", "Europe/Berlin", "germanic"),
    City("Stockholm", "Sweden", "Europe/Stockholm", "germanic"),
    City("Amsterdam", "Netherlands", "Europe/Amsterdam", "germanic"),
    City("Mumbai", "India", "Asia/Kolkata", "south_asian"),
    City("Bengaluru", "India", "Asia/Kolkata", "south_asian"),
    City("Tokyo", "Japan", "Asia/Tokyo", "japanese"),
    City("Seoul", "South Korea", "Asia/Seoul", "korean"),
    City("Lagos", "Nigeria", "Africa/Lagos", "african"),
    City("Nairobi", "Kenya", "Africa/Nairobi", "african"),
)
CITIES += tuple(City(*row) for row in _extra.CITIES)
CITY_BY_NAME = {c.name: c for c in CITIES}


def local_given_name(rng: random.Random, profile: dict, local_share: float = 0.8) -> str:
    """A first name for someone the persona meets: from their city's naming region with `local_share`, else from
    any region. Not kept apart from the names already in their life: people met later share first names with
    people they know at the rate the region's names recur (the new colleague called Anna, like their sister)."""
    city = CITY_BY_NAME.get(profile["identity"]["city"])
    region = city.region if city is not None and rng.random() < local_share else rng.choice(sorted(GIVEN_NAMES))
    return rng.choice(GIVEN_NAMES[region][rng.choice(("female", "male"))])

GIVEN_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "iberian": {
        "female": (
            "Inês",
            "Lucía",
            "Beatriz",
            "Camila",
            "Mariana",
            "Sofía",
            "Carmen",
            "Rosa",
            "Valeria",
            "Lia",
        ),
        "male": ("Tiago", "Mateo", "Diego", "Rafael", "Joaquim", "Andrés", "Hugo", "Bruno", "Pablo", "Nuno"),
    },
    "anglo": {
        "female": (
            "Emma",
            "Olivia",
            "Grace",
            "Hannah",
            "Chloe",
            "Megan",
            "Ruth",
            "Isla",
            "Abigail",
            "Claire",
        ),
        "male": ("Liam", "Owen", "Jack", "Henry", "Callum", "Ethan", "Declan", "Mark", "Ryan", "Thomas"),
    },
    "germanic": {
        "female": ("Lena", "Astrid", "Greta", "Sanne", "Frieda", "Ingrid", "Maja", "Elin", "Femke", "Klara"),
        "male": ("Jonas", "Lars", "Felix", "Anders", "Pieter", "Matthias", "Erik", "Niklas", "Bram", "Oskar"),
    },
    "south_asian": {
        "female": (
            "Priya",
            "Ananya",
            "Kavya",
            "Meera",
            "Divya",
            "Ishita",
            "Lakshmi",
            "Nisha",
            "Pooja",
            "Riya",
        ),
        "male": ("Arjun", "Rohan", "Vikram", "Aditya", "Karan", "Rahul", "Sanjay", "Dev", "Nikhil", "Imran"),
    },
    "japanese": {
        "female": ("Yuki", "Haruka", "Aiko", "Sakura", "Hana", "Mei", "Nanami", "Emi"),
        "male": ("Kenji", "Haruto", "Takeshi", "Ren", "Daichi", "Kaito", "Sota", "Hiroshi"),
    },
    "korean": {
        "female": ("Ji-woo", "Seo-yeon", "Min-ji", "Eun-ji", "Ha-eun", "Soo-ah", "Yeon-woo", "Da-eun"),
        "male": ("Min-jun", "Do-hyun", "Ji-ho", "Seung-ho", "Jun-seo", "Hyun-woo", "Tae-yang", "Woo-jin"),
    },
    "african": {
        "female": (
            "Amara",
            "Ngozi",
            "Wanjiru",
            "Chiamaka",
            "Zawadi",
            "Adaeze",
            "Imani",
            "Folake",
            "Achieng",
            "Nia",
        ),
        "male": ("Chidi", "Kofi", "Tunde", "Baraka", "Emeka", "Otieno", "Kwame", "Jabari", "Segun", "Mwangi"),
    },
}

SURNAMES: dict[str, tuple[str, ...]] = {
    "iberian": (
        "Ortiz",
        "Silva",
        "Ferreira",
        "Navarro",
        "Costa",
        "Morales",
        "Ramos",
        "Vidal",
        "Mendes",
        "Castro",
    ),
    "anglo": (
        "Walsh",
        "Bennett",
        "Carter",
        "Hughes",
        "Murphy",
        "Fletcher",
        "Doyle",
        "Parker",
        "Reid",
        "Lawson",
    ),
    "germanic": (
        "Becker",
        "Lindqvist",
        "de Vries",
        "Hoffmann",
        "Berg",
        "Janssen",
        "Keller",
        "Nilsson",
        "Vogel",
    ),
    "south_asian": ("Patel", "Sharma", "Iyer", "Reddy", "Nair", "Khan", "Mehta", "Rao", "Kapoor", "Desai"),
    "japanese": ("Tanaka", "Sato", "Yamamoto", "Nakamura", "Suzuki", "Kobayashi", "Ito", "Watanabe"),
    "korean": ("Kim", "Park", "Lee", "Choi", "Han", "Jung", "Kang", "Yoon"),
    "african": (
        "Okafor",
        "Mwangi",
        "Adeyemi",
        "Kamau",
        "Eze",
        "Otieno",
        "Balogun",
        "Njoroge",
        "Okeke",
        "Achebe",
    ),
}

GIVEN_NAMES |= _extra.GIVEN_NAMES
SURNAMES |= _extra.SURNAMES

SHARED_FIRST_NAMES = ("Sam", "Alex", "Jordan", "Robin", "Kim", "Sasha", "Andrea", "Charlie", "Noor", "Ari")


class Occupation(NamedTuple):
    title: str
    employers: tuple[str, ...]
    education: str
    keywords: tuple[str, ...]


OCCUPATIONS: tuple[Occupation, ...] = (
    Occupation(
        "nurse",
        ("St. Anne's Hospital", "Riverside Medical Centre", "Northgate Clinic"),
        "BSc in Nursing",
        ("nurse",),
    ),
    Occupation(
        "software engineer",
        ("Northwind Labs", "Brightline Software", "Kestrel Systems"),
        "BSc in Computer Science",
        ("software", "developer", "programmer"),
    ),
    Occupation(
        "primary school teacher",
        ("Oakfield Primary School", "Hillcrest Elementary"),
        "teaching degree",
        ("teacher",),
    ),
    Occupation("accountant", ("Hartley & Moss", "Bluewater Accounting"), "BA in Accounting", ("accountant",)),
    Occupation(
        "chef", ("Casa Verde", "The Copper Pot", "Saffron Table"), "culinary school diploma", ("chef", "cook")
    ),
    Occupation(
        "electrician",
        ("Volt Brothers Electrical", "Sparkline Services"),
        "trade certificate",
        ("electrician",),
    ),
    Occupation("graphic designer", ("Studio Fern", "Pixel & Paper"), "BA in Graphic Design", ("designer",)),
    Occupation(
        "pharmacist", ("GreenCross Pharmacy", "Linden Apotheke"), "Master of Pharmacy", ("pharmacist",)
    ),
    Occupation("bus driver", ("City Transit Authority", "Metro Coachlines"), "secondary school", ("driver",)),
    Occupation("marketing manager", ("Lumen Brands", "Tallpine Media"), "MBA", ("marketing",)),
    Occupation(
        "university student",
        ("University of {city}", "{city} Technical Institute"),
        "high school diploma",
        ("student",),
    ),
    Occupation(
        "retail assistant",
        ("Harbour Books", "Maple Grocers", "Kite Outfitters"),
        "secondary school",
        ("retail", "shop assistant", "cashier"),
    ),
    Occupation(
        "civil engineer",
        ("Arcbridge Engineering", "Stonefield Consulting"),
        "MEng in Civil Engineering",
        ("civil engineer", "engineer"),
    ),
    Occupation(
        "journalist", ("The Daily Ledger", "Eastside Radio"), "BA in Journalism", ("journalist", "reporter")
    ),
    Occupation("physiotherapist", ("MoveWell Physio", "Active Clinic"), "BSc in Physiotherapy", ("physio",)),
    Occupation(
        "bakery owner", ("Rise & Shine Bakery", "Golden Crust"), "vocational diploma", ("baker", "bakery")
    ),
)
OCCUPATIONS = tuple(Occupation(*row) for row in _extra.OCCUPATIONS[:20]) + OCCUPATIONS + tuple(
    Occupation(*row) for row in _extra.OCCUPATIONS[20:]
)
RETIRED_FORMER = ("schoolteacher", "accountant", "nurse", "farmer", "engineer", "postal worker", "miner",
                  "seamstress", "bus driver", "shopkeeper", "soldier", "factory worker")

INCOME_BANDS = ("low", "lower-middle", "middle", "upper-middle", "high")
HOBBIES = (
    "bouldering",
    "sourdough baking",
    "birdwatching",
    "chess",
    "trail running",
    "watercolour painting",
    "gardening",
    "salsa dancing",
    "film photography",
    "knitting",
    "cycling",
    "playing the ukulele",
    "board games",
    "open-water swimming",
    "crosswords",
    "woodworking",
    "yoga",
    "fishing",
)
FOODS = (
    "ramen",
    "grilled sardines",
    "tacos al pastor",
    "dal makhani",
    "jollof rice",
    "bibimbap",
    "shepherd's pie",
    "pasta carbonara",
    "falafel wraps",
)
MUSIC = ("jazz", "fado", "indie rock", "K-pop", "afrobeats", "classical piano", "80s synth-pop", "bossa nova")
DRINKS = ("oat flat white", "green tea", "black coffee", "chai", "sparkling water", "hibiscus tea")
STREETS = (
    "Harbour Street",
    "Elm Road",
    "Rua das Flores",
    "Mill Lane",
    "Juniper Avenue",
    "Canal Street",
    "Orchard Row",
    "Station Road",
    "Linden Way",
    "Quarry Hill",
    "Baker's Close",
    "Willow Crescent",
)
TREASURES = (
    ("vintage Leica camera", "camera"),
    ("upright piano", "instrument"),
    ("record collection", "music"),
    ("restored Vespa scooter", "vehicle"),
    ("grandmother's sewing machine", "heirloom"),
    ("telescope", "gadget"),
    ("acoustic guitar", "instrument"),
    ("espresso machine", "appliance"),
)
VEHICLES = (
    ("second-hand silver Toyota Yaris", "Toyota Yaris"),
    ("green Brompton folding bike", "Brompton"),
    ("red Vespa Primavera", "Vespa Primavera"),
    ("blue Honda Civic", "Honda Civic"),
    ("white Renault Zoe", "Renault Zoe"),
    ("black Trek gravel bike", "Trek gravel bike"),
    ("grey Kia Picanto", "Kia Picanto"),
    ("yellow Larry vs Harry cargo bike", "cargo bike"),
)

INNER_CHARACTERS = (
    "warm but guarded, slow to trust and fiercely loyal once they do",
    "restless and curious, always half-planning the next project",
    "steady and practical, the person friends call in a crisis",
    "quietly ambitious, hard on themselves, generous with others",
    "playful and sociable, allergic to routine",
    "thoughtful and a little anxious, a careful planner",
)
BEHAVIOURS = (
    "makes lists for everything",
    "replies to messages late at night",
    "cooks big meals on Sundays",
    "walks to think",
    "double-checks the weather before going out",
    "keeps receipts in a shoebox",
    "calls family every weekend",
    "takes on too many favours",
    "reads before bed",
)
IDEALS = (
    "honesty",
    "independence",
    "family first",
    "craftsmanship",
    "fairness",
    "adventure",
    "community",
    "financial security",
    "kindness",
)
LIFESTYLES = (
    "early riser with a strict routine",
    "night owl who works in bursts",
    "busy parent juggling schedules",
    "homebody who loves quiet evenings",
    "social butterfly, out most evenings",
)
VOCAB_CASUAL = ("honestly", "lol", "ngl", "tbh", "for real", "to be fair", "y'know", "haha")
VOCAB_FORMAL = (
    "indeed",
    "I must say",
    "certainly",
    "in any case",
    "frankly",
    "all things considered",
    "to be sure",
)
MOODS_GOOD = ("content", "upbeat", "cheerful", "hopeful", "energised", "proud")
MOODS_BAD = ("frustrated", "disappointed", "anxious", "drained", "irritable", "low")
MATTERS = (
    "renewing a passport",
    "sorting out a dispute with the landlord",
    "saving for a holiday",
    "decluttering the spare room",
    "organising a family reunion",
    "looking for a new dentist",
)
