"""More places, names and occupations for the bundled seeds (merged into tasks/world/banks.py).

Plain tuples, so this module imports nothing: cities (name, country, time zone, naming region), two
more naming regions, and occupations (title, employers, education, seed keywords) that are mostly not
professional: cleaners, drivers, farmers, carers, trades, retail, hospitality, the unemployed.
"""

from __future__ import annotations

CITIES = (
    ("Manila", "Philippines", "Asia/Manila", "southeast_asian"),
    ("Cebu", "Philippines", "Asia/Manila", "southeast_asian"),
    ("Jakarta", "Indonesia", "Asia/Jakarta", "southeast_asian"),
    ("Hanoi", "Vietnam", "Asia/Ho_Chi_Minh", "southeast_asian"),
    ("Cairo", "Egypt", "Africa/Cairo", "arabic"),
    ("Casablanca", "Morocco", "Africa/Casablanca", "arabic"),
    ("Amman", "Jordan", "Asia/Amman", "arabic"),
    ("Istanbul", "Turkey", "Europe/Istanbul", "arabic"),
    ("Accra", "Ghana", "Africa/Accra", "african"),
    ("Johannesburg", "South Africa", "Africa/Johannesburg", "african"),
    ("Addis Ababa", "Ethiopia", "Africa/Addis_Ababa", "african"),
    ("Eldoret", "Kenya", "Africa/Nairobi", "african"),
    ("Lima", "Peru", "America/Lima", "iberian"),
    ("Medellín", "Colombia", "America/Bogota", "iberian"),
    ("Santiago", "Chile", "America/Santiago", "iberian"),
    ("Kingston", "Jamaica", "America/Jamaica", "anglo"),
    ("Fresno", "United States", "America/Los_Angeles", "anglo"),
    ("Glasgow", "United Kingdom", "Europe/London", "anglo"),
    ("Toowoomba", "Australia", "Australia/Brisbane", "anglo"),
    ("Warsaw", "Poland", "Europe/Warsaw", "germanic"),
    ("Naples", "Italy", "Europe/Rome", "iberian"),
    ("Marseille", "France", "Europe/Paris", "iberian"),
    ("Ludhiana", "India", "Asia/Kolkata", "south_asian"),
    ("Dhaka", "Bangladesh", "Asia/Dhaka", "south_asian"),
    ("Lahore", "Pakistan", "Asia/Karachi", "south_asian"),
    ("Osaka", "Japan", "Asia/Tokyo", "japanese"),
    ("Busan", "South Korea", "Asia/Seoul", "korean"),
)
GIVEN_NAMES = {
    "southeast_asian": {
        "female": ("Maria", "Dewi", "Lan", "Siti", "Angelica", "Mai", "Putri", "Rosalie"),
        "male": ("Jose", "Budi", "Minh", "Rizal", "Paolo", "Agus", "Tuan", "Marvin"),
    },
    "arabic": {
        "female": ("Fatima", "Layla", "Nour", "Amira", "Yasmin", "Salma", "Elif", "Zeynep"),
        "male": ("Omar", "Youssef", "Karim", "Hassan", "Tariq", "Mehmet", "Samir", "Amr"),
    },
}
SURNAMES = {
    "southeast_asian": ("Santos", "Reyes", "Nguyen", "Tran", "Wijaya", "Gonzales", "Pham", "Susanto"),
    "arabic": ("Haddad", "El-Sayed", "Benali", "Mansour", "Yilmaz", "Khalil", "Demir", "Nasser"),
}
OCCUPATIONS = (
    ("office cleaner", ("BrightClean Services", "Sparkle Facilities"), "primary school", ("cleaner",)),
    ("delivery driver", ("QuickDrop Couriers", "Parcel Express"), "secondary school", ("delivery",)),
    ("taxi driver", ("self-employed", "City Cabs"), "secondary school", ("taxi", "tuk-tuk")),
    ("lorry driver", ("Northline Haulage", "Transcargo"), "vocational certificate", ("lorry", "truck")),
    ("farmer", ("the family farm", "Greenfield Cooperative"), "primary school", ("farm",)),
    ("care worker", ("Sunrise Care Home", "HomeCare Partners"), "care certificate", ("carer", "care worker")),
    ("plumber", ("self-employed", "FlowRight Plumbing"), "trade certificate", ("plumber",)),
    ("car mechanic", ("Ace Auto Repairs", "Roadside Garage"), "trade certificate", ("mechanic",)),
    ("construction worker", ("Ironside Builders", "Keystone Construction"), "secondary school",
     ("construction", "builder", "bricklayer")),
    ("hairdresser", ("Curl Up & Dye", "Salon Mira"), "vocational diploma", ("hairdresser",)),
    ("waiter", ("The Corner Bistro", "Harbour Grill"), "secondary school", ("waiter", "waitress")),
    ("security guard", ("Sentinel Security", "Guardline"), "secondary school", ("security guard",)),
    ("warehouse worker", ("Parcel Hub", "Northside Distribution"), "secondary school", ("warehouse",)),
    ("factory worker", ("Apex Garments", "Delta Foods"), "secondary school", ("factory", "garment")),
    ("call-centre agent", ("Connect Solutions", "VoiceLink"), "secondary school", ("call centre", "call-centre")),
    ("fisherman", ("self-employed", "Bayside Fishing Co-op"), "primary school", ("fisher",)),
    ("market trader", ("self-employed", "Central Market"), "primary school", ("market trader", "street vendor")),
    ("domestic worker", ("a private household", "HomeHelp Agency"), "primary school", ("domestic worker",)),
    ("postal worker", ("the Postal Service", "Royal Mail"), "secondary school", ("postal", "postman")),
    ("unemployed", ("unemployed",), "secondary school", ("unemployed", "out of work", "jobless")),
    ("stay-at-home parent", ("unemployed",), "secondary school", ("stay-at-home",)),
    ("tailor", ("self-employed", "Fine Stitch"), "apprenticeship", ("tailor", "seamstress")),
    ("kitchen porter", ("The Copper Pot", "Saffron Table"), "secondary school", ("kitchen porter",)),
)

HOBBY_GOALS = {
    "bouldering": ("a first V4 problem", "climbing outdoors at a real crag", "the spring bouldering league at the wall",
                   "a one-arm hang for five seconds"),
    "sourdough baking": ("a rye loaf that actually rises", "a proper open crumb", "baking for the school fete",
                         "a starter a friend can keep alive"),
    "birdwatching": ("spotting a kingfisher", "a list of fifty local species", "joining the autumn migration count",
                     "photographing an owl at dusk"),
    "chess": ("a club rating of 1500", "mastering the Sicilian Defence", "the county rapid tournament",
              "beating the club's chess computer"),
    "trail running": ("a first 10k trail race", "running the ridge loop without stopping", "a half-marathon trail",
                      "a sub-hour 12k"),
    "watercolour painting": ("a series of the harbour", "painting skies without mud", "the library's open exhibition",
                             "a portrait of my grandmother"),
    "gardening": ("a bed of winter vegetables", "tomatoes from seed", "a wildflower patch for the bees",
                  "the allotment's best-kept plot prize"),
    "salsa dancing": ("moving up to the intermediate class", "a performance at the studio's summer night",
                      "spinning without losing the beat", "learning the Cuban style"),
    "film photography": ("developing colour film at home", "a zine of street portraits", "a roll a week",
                         "printing in the darkroom"),
    "knitting": ("a first jumper", "a cable-knit scarf", "socks on circular needles", "a blanket for my niece"),
    "cycling": ("a first 100 km ride", "the hill climb without getting off", "commuting by bike all winter",
                "the charity coast ride"),
    "playing the ukulele": ("learning to fingerpick", "playing at the open mic", "ten songs from memory",
                            "a clean barre chord"),
    "board games": ("designing my own game", "the store's monthly tournament", "a full campaign of Gloomhaven",
                    "teaching the family Catan"),
    "open-water swimming": ("a one-mile swim", "swimming through the winter", "the lake crossing",
                            "breathing on both sides"),
    "crosswords": ("finishing a Saturday cryptic", "setting a crossword of my own", "the puzzle without hints",
                   "a crossword a day for a month"),
    "woodworking": ("a dovetailed box", "a bookshelf for the hall", "a chair that does not wobble",
                    "carving spoons for friends"),
    "yoga": ("a steady headstand", "a daily morning practice", "the teacher-training weekend",
             "touching my toes without bending my knees"),
    "fishing": ("a trout on a fly I tied", "the river's night fishing", "the club's summer match",
                "casting twenty metres"),
}
"""What a persona works towards in each hobby: the small goals that change every few months and that a friend
or assistant would ask after (a hobby not listed takes one of GENERIC_HOBBY_GOALS)."""
GENERIC_HOBBY_GOALS = ("getting better at {hobby} week by week", "a {hobby} class for improvers",
                       "doing {hobby} with a friend every week", "a {hobby} group in the neighbourhood")
