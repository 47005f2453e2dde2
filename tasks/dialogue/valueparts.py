"""A fact's value taken apart, so a turn can say it the way a person would rather than in the store's words.

The store's values have known shapes (the catalog and the baseline write them): `jollof rice at Casa Lola`,
`no running until March 20, 2024`, `Dr. Emi Watanabe`, `a greyhound named Comet`, `blue Honda Civic`,
`Blue Door Coffee`. `value_parts` parses a value by its attribute's shape into named parts, each either a phrase
of the value (`dish`, `restaurant`) or the same thing said another way, derived here and nowhere else:
- `day`: the date as people say it (`March 20, 2024` -> `20 March`; the year only when it is not the event's);
- `short`: a place's name without its generic head (`Blue Door Coffee` -> `Blue Door`, `Pulse Gym` -> `Pulse`,
  `Copper Kettle Café` -> `the Copper Kettle`), as people name the places they go to;
- `title`: a doctor by title and surname (`Dr. Emi Watanabe` -> `Dr Watanabe`);
- `first`: a person of the persona's life by first name (`Robin Otieno` -> `Robin`), only when no one else
  close to them has that first name, so the name still picks out one person;
- `person`: for a relationship, the person it is with (the frames say what the two do together: `Kim Doyle
  and I work together` for a colleague);
- `x_a`: a part with its article (`a greyhound`, `an upright piano`);
- `do`: a home project's verb in its base form (`re-tiling the bathroom` -> `re-tile` ... `the bathroom`).

`FRAMES` says each attribute's value in other words with those parts (mentions.py PARAPHRASES holds the frames
made of a story plan's fields; both are used the same way). A frame is used only when the parts it names are all
the value's (plan fields or parsed here), the clause says every one of them and never the value verbatim: a reader
recovers the value, a string match on it does not.
"""

from __future__ import annotations

import datetime as dt
import re

from lemminflect import getLemma

from schemas.profile import Persona
from schemas.world import Fact
from tasks.common.facttext import first_name
from tasks.llm.providers.narrators.realize import indefinite

PLACES = ("favourite_cafe", "disliked_cafe", "gym", "gym_signup_failed", "grocery_shop")
"""Attributes whose value is a place's name, said by its short name (`short_name`)."""

SHAPES: dict[str, str] = {
    "dinner_out": r"(?P<dish>.+) at (?P<restaurant>.+)",
    "cafe_visit": r"(?P<drink>.+) at (?P<cafe>.+)",
    "bad_visit": r"(?P<problem>.+) at (?P<cafe>[^,]+)",
    "concert": r"(?P<artist>.+) at (?P<venue>.+)",
    "course": r"(?P<subject>.+) course at (?P<school>.+)",
    "course_cancelled": r"(?P<subject>.+) course at (?P<school>.+)",
    "celebration": r"(?P<milestone>.+) at (?P<venue>.+)",
    "hobby_session": r"(?P<hobby>.+) at (?P<spot>.+)",
    "session_rained_off": r"(?P<hobby>.+) session at (?P<spot>.+)",
    "volunteering": r"(?P<task>.+) at (?P<org>.+)",
    "dinner_cancelled": r"dinner at (?P<restaurant>.+)",
    "evening_cancelled": r"evening at (?P<place>.+)",
    "evening_out": r"(?P<place>.+) with (?P<partner>.+)",
    "trip": r"(?P<length>.+?) trip to (?P<city>.+)",
    "trip_cancelled": r"trip to (?P<city>.+)",
    "wasted_shop": r"trip to (?P<market>.+)",
    "lunch_cancelled": r"lunch with (?P<colleague>.+)",
    "family_visit": r"a visit to (?P<relative>.+) for (?P<topic>.+)",
    "current_book": r"(?P<book>.+) by (?P<author>.+)",
    "abandoned_book": r"(?P<book>.+) by (?P<author>.+)",
    "home": r"(?P<flat>.+?) at (?P<address>.+)",
    "race_result": r"(?P<race>.+) in (?P<minutes>\d+) minutes",
    "home_project": r"(?P<doing>[a-z][\w-]*ing) (?P<what>.+)",
    "financial_shock": r"(?P<bill>.+) costing (?P<amount>[\d,.]+)",
    "bill_paid": r"(?P<bill>.+)",
    "gig_cancelled": r"(?P<artist>.+) gig",
    "work_project": r"(?P<codename>[A-Z]\w+) (?P<work>[a-z][\w -]*) project",
    "project_on_hold": r"(?P<codename>[A-Z]\w+) (?P<work>[a-z][\w -]*) project",
    "purchase_fell_through": r"purchase of the (?P<vehicle>.+)",
    "adoption_refused": r"adoption of (?P<name>[A-Z][\w'-]*) the (?P<animal>.+)",
    "pet": r"(?:an? )?(?P<animal>[a-z][\w -]*) named (?P<name>[A-Z][\w'-]*)",
    "partner": r"an? (?P<job>[a-z][\w -]*) named (?P<name>[A-Z][\w'-]*)",
    "side_project": r"an? (?P<thing>[a-z][\w -]*) called (?P<name>.+)",
    "race_goal": r"the (?P<city>[A-Z][\w-]+) (?P<race>(?:[Hh]alf )?[Mm]arathon|10K)",
    "appointment": r"(?P<service>.+) at (?P<place>.+)",
    "appointment_missed": r"(?P<service>.+) at (?P<place>.+)",
    "relationship_status": r"together with (?P<partner>.+)",
    "running_restriction": r"no running until (?P<date>.+)",
    "travel_restriction": r"no travel(?P<hard> or hard exercise)? until (?P<date>.+)",
    "spending_restriction": r"no non-essential spending until (?P<date>.+)",
    "dating_pause": r"no dating until (?P<date>.+)",
    "doctor": r"Dr\.? (?P<given>\S+) (?P<surname>.+)",
    "injury": r"(?P<hurt>sprained|pulled|twisted|strained|broken|bruised|torn) (?P<part>.+)",
    "visit_cancelled": r"the visit for (?:an? |the )?(?P<occasion>.+) because of (?P<reason>.+)",
    "recommendation": r"an? (?P<thing>podcast|book|app|course|class) (?:on|about) (?P<topic>.+)"
                      r"|an? (?P<quality>good|cheaper|cheap|quiet|great|decent|better|quick|simple) "
                      r"(?P<kind>[a-z][\w -]+)",
    "vehicle": r"(?P<looks>(?:(?:second-hand|used|new|old|vintage|black|white|silver|grey|gray|blue|red|green|yellow|"
               r"orange|navy|dark blue|bright red) )+)(?P<model>.+)",
    "sold_item": r"(?P<looks>(?:(?:second-hand|used|old|vintage|black|white|silver|grey|gray|blue|red|green|yellow|"
                 r"orange|navy) )+)(?P<model>.+)",
    **{name: r"(?P<place>.+)" for name in PLACES},
}
"""Attribute -> the shape of its values, with the parts named (the catalog's and the baseline's wording)."""

FRAMES: dict[str, tuple[str, ...]] = {
    "favourite_cafe": ("{short} has become my favourite café", "I keep going back to {short}; it's my favourite now",
                       "my go-to café these days is {short}"),
    "disliked_cafe": ("I won't be going back to {short}", "{short} has really gone downhill for me"),
    "gym": ("I've joined {short}", "I'm a member at {short} now", "I train at {short} these days"),
    "gym_signup_failed": ("I couldn't get signed up at {short}", "my sign-up at {short} fell through"),
    "grocery_shop": ("I do my food shopping at {short} now", "I've switched to {short} for the weekly shop"),
    "doctor": ("I'm registered with {title} now", "my new GP is {title}", "I'm seeing {title} these days"),
    "running_restriction": ("I'm not allowed to run until {day}", "running is off the cards for me until {day}"),
    "travel_restriction": ("I can't travel{hard_words} until {day}",
                           "travel{hard_plain} is off limits for me until {day}"),
    "spending_restriction": ("I'm not spending on anything non-essential until {day}",
                             "anything non-essential has to wait until {day}, money-wise"),
    "dating_pause": ("I'm taking a break from dating until {day}", "I'm not seeing anyone new until {day}"),
    "injury": ("I {hurt} my {part}", "I've {hurt} my {part}"),
    "pet": ("{who} got {animal_a}, {name}", "{name}, {whose} new {animal}, has moved in"),
    "partner": ("{who} is seeing {name} now, a {job}", "{who} has a new partner, {name}, who works as {job_a}"),
    "side_project": ("{who} is opening {thing_a}: {name}", "{who} has started {name}, {thing_a}"),
    "race_goal": ("{who} is training for {race_a} in {city}", "{who} has {race_a} in {city} coming up"),
    "appointment": ("{who} went to {place} for a {service}", "{who} booked in at {place} for a {service}"),
    "appointment_missed": ("{who} never made it to {place} for the {service}",
                           "{place} had me down for a {service}, but I never turned up"),
    "vehicle": ("I got {model_a}, a {looks} one", "I'm driving {model_a} now, a {looks} one"),
    "sold_item": ("I sold my {model}, the {looks} one",),
    "work_project": ("I'm on the {work} for {codename} now", "my work now is the {codename} {work}"),
    "project_on_hold": ("the {codename} {work} has been put on hold", "{codename}'s {work} is on hold for now"),
    "visit_cancelled": ("{who} called off the {occasion}: {reason} got in the way",
                        "{reason} meant {who} couldn't come for the {occasion}"),
    "course": ("{who} signed up at {school} to learn {subject}", "{who} started learning {subject} at {school}"),
    "current_book": ("{who} started {author}'s {book}", "{who} picked up {book}, the one by {author}"),
    "hobby_session": ("{who} put in some time on {hobby}, over at {spot}", "{who} went to {spot} for some {hobby}"),
    "home_project": ("{who} finally decided to {do} {what}", "{who} set a weekend aside to {do} {what}"),
    "recommendation": ("{who} put me onto a {topic} {thing}", "{who} told me about a good {thing} on {topic}",
                       "{who} put me onto {kind_a} that's {quality}",
                       "{who} knows {kind_a} that's {quality}, apparently"),
    "lunch_cancelled": ("{colleague_first} and I had to call off our lunch", "lunch with {colleague_first} is off"),
    "celebration": ("{who} went to {venue} for the {milestone}", "{who} had the {milestone} over at {venue}"),
    "dinner_cancelled": ("our dinner plans at {restaurant} fell through", "{restaurant} is off, we cancelled dinner"),
    "evening_cancelled": ("we never made it to {place} in the end", "the night at {place} didn't happen"),
    "bad_visit": ("{cafe} was a letdown: {problem}", "{cafe} let me down: {problem}"),
    "adoption_refused": ("they turned me down for {name}, the {animal}",
                         "I wasn't allowed to adopt {name}, the {animal}"),
    "relationship_status": ("{partner_first} and I are properly together now",
                            "I'm with {partner_first} now, officially"),
    "family_visit": ("{relative_first} and I got together for {topic}",),
    "evening_out": ("{partner_first} and I spent the evening at {place}", "I took {partner_first} to {place}"),
    # a relationship by what the two do together (`relationship:<role>`): the role is implied, not named
    "relationship:neighbour": ("{person} lives next door to me", "{person} lives just down the road from me"),
    "relationship:colleague": ("{person} and I work together", "{person} works on the same team as me"),
    "relationship:flatmate": ("{person} and I share a flat",),
    "relationship:gym buddy": ("{person} and I train together at the gym",),
    "relationship:classmate": ("{person} and I are in the same class",),
    "relationship:mentor": ("{person} has been guiding me at work for years",),
    "relationship:old school friend": ("{person} and I go back to our school days",),
    "relationship:ex-partner": ("{person} and I used to be together",),
    "relationship:best friend": ("{person} is the closest friend I have",),
}
"""Attribute (or `attribute:value`) -> frames saying the value by its parsed parts (`{who}`/`{whose}`: the holder as
the persona names them; `{x_a}`: the part with its article; `{x_first}`: a person's first name)."""

PERSONA_ONLY = frozenset({"favourite_cafe", "disliked_cafe", "gym", "gym_signup_failed", "grocery_shop", "doctor",
                          "running_restriction", "travel_restriction", "spending_restriction", "dating_pause",
                          "injury", "vehicle", "sold_item", "work_project", "adoption_refused",
                          "relationship_status", "lunch_cancelled", "dinner_cancelled", "evening_cancelled",
                          "bad_visit", "family_visit", "evening_out", "appointment_missed"})
"""Attributes whose frames speak as the holder (`I've joined`, `my new GP`): used only for the persona's own."""

HEADS = ("Swim Club", "Yoga Studio", "Coffee House", "Coffee", "Café", "Cafe", "Bakery", "Gym", "Fitness",
         "Studio", "Club", "Grocers", "Supermarket", "Stores", "Coffee Co.")
"""Generic heads people drop from a place's name (`Pulse Gym` -> `Pulse`)."""

DERIVED = frozenset({"person", "day", "short", "title", "model_a", "hard_words", "hard_plain", "hard_bag", "animal_a",
                     "thing_a", "job_a", "kind_a", "do", "colleague_first", "partner_first", "relative_first",
                     "race_a"})
"""Parts said another way (not phrases of the value): the frame check takes them as the value's by construction."""


def short_name(name: str) -> str | None:
    """`Blue Door Coffee` -> `Blue Door`, `Copper Kettle Café` -> `the Copper Kettle`; None when nothing
    distinctive is left (`Fresh Market`, `Core Collective`) or the name has no generic head."""
    for head in ("Café", "Cafe", "Caffè"):
        if name.startswith(head + " ") and len(name.split()) == 2:
            return name.split()[1]  # `Café Lumen` -> `Lumen`
    for head in HEADS:
        if name.endswith(" " + head):
            rest = name[: -len(head) - 1].strip()
            if not rest or rest.lower() in ("the", "fresh", "city", "local", "corner"):
                return None
            words = rest.split()
            if len(words) == 2 and words[0] not in ("The", "the") and rest.lower().split()[0] in (
                    "copper", "golden", "silver", "old", "green", "red", "daily", "morning"):
                return f"the {rest}"
            return rest
    return None


def spoken_date(text: str, year: int | None) -> str | None:
    """`March 20, 2024` -> `20 March` (the year kept when it is not `year`); None when not such a date."""
    try:
        day = dt.datetime.strptime(text.strip(), "%B %d, %Y").date()
    except ValueError:
        return None
    out = f"{day.day} {day:%B}"
    return out if year == day.year else f"{out} {day.year}"


def base_form(gerund: str) -> str:
    """`re-tiling` -> `re-tile`, `building` -> `build` (lemminflect; a hyphenated prefix kept)."""
    prefix, _, word = gerund.rpartition("-")
    lemma = (getLemma(word, upos="VERB") or (word,))[0]
    return f"{prefix}-{lemma}" if prefix else lemma


def first_of(name: str, persona: Persona) -> str | None:
    """A person of the persona's life by first name when that name picks out one of them, else None."""
    first = first_name(name)
    people = [r.name for r in persona.profile.relationships]
    if name not in people or sum(first_name(p) == first for p in people) != 1 or first == name:
        return None
    return first


def frames_for(fact: Fact, bank: dict[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """The value frames of the fact in `bank` (default FRAMES): its value's own (`relationship:neighbour`), else
    its attribute's."""
    bank = FRAMES if bank is None else bank
    return bank.get(f"{fact.attribute}:{fact.value.strip().lower()}") or bank.get(fact.attribute, ())


def value_parts(fact: Fact, persona: Persona, year: int | None = None) -> dict[str, str]:
    """The fact's value taken apart by its attribute's shape, with the derived parts (module doc); {} when the
    value does not have the shape."""
    if fact.attribute == "relationship":  # the holder is the person; the frames imply the role
        return {"person": fact.subject}
    shape = SHAPES.get(fact.attribute)
    found = re.fullmatch(shape, fact.value.strip()) if shape else None
    if found is None:
        return {}
    parts = {k: v.strip() for k, v in found.groupdict().items() if v and v.strip()}
    if "date" in parts:
        day = spoken_date(parts.pop("date"), year)
        if day is None:
            return {}
        parts["day"] = day
    if fact.attribute == "travel_restriction":
        hard = bool(parts.pop("hard", ""))
        parts["hard_words"] = " or do anything strenuous" if hard else ""
        parts["hard_plain"] = " or hard exercise" if hard else ""
        parts["hard_bag"] = ", and the gym bag with it," if hard else ""
    if fact.attribute in PLACES:
        short = short_name(parts["place"])
        if short is None:
            return {}
        parts["short"] = short
    if "given" in parts:
        parts["title"] = f"Dr {parts['surname']}"
    for key in ("animal", "thing", "job", "kind"):
        if key in parts:
            parts[f"{key}_a"] = indefinite(parts[key])
    if fact.attribute == "race_goal":  # `the Berlin Marathon` -> `a marathon` (in Berlin)
        parts["race_a"] = indefinite(parts["race"] if parts["race"] == "10K" else parts["race"].lower())
    if "doing" in parts:  # `re-tiling` -> `re-tile`
        parts["do"] = base_form(parts["doing"])
    if "model" in parts:
        parts["model_a"] = indefinite(parts["model"])
    for key in ("colleague", "partner", "relative"):
        if key in parts:
            first = first_of(parts[key], persona)
            if first is not None:
                parts[f"{key}_first"] = first
    return parts
