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
