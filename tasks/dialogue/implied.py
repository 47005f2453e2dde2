"""Facts said by what follows from them (mention mode `implied`): the value is never stated, only a consequence.

`I couldn't finish the falafel wraps; Kebab Corner doesn't do small portions` for `dinner_out = falafel wraps at
Kebab Corner`; `I had my first workout at Pulse` for `gym = Pulse Gym`; `my running shoes have to stay in the
cupboard until 20 March` for `running_restriction = no running until March 20, 2024`. Every part of the value is
still said (a reader who knows what follows from what recovers it), but the fact's own predicate (had dinner at,
joined, is not allowed to run) is not: a reader must infer it, a string match on the value finds nothing, and a
pattern over the paraphrase frames finds nothing either.

Two banks, used the way mentions.py uses PARAPHRASES and valueparts.FRAMES:
- `PLAN_FRAMES`: a story event's fact by its plan's fields (`{dish}`, `{restaurant}`), said in the past as the
  user tells the news (the time phrase goes before the clause: `Yesterday, I couldn't finish ...`);
- `VALUE_FRAMES`: a state or background fact by its value's parts (tasks/dialogue/valueparts.py: `{short}`,
  `{title}`, `{day}`, `{person}`), keyed like valueparts.FRAMES (attribute, or `attribute:value`); a change of
  state is said as a past episode that shows it (`Yesterday, Dr Watanabe saw me for the first time`), a
  relationship as what the two habitually do.
A frame that speaks as the persona (`I`, `my`) is used only for the persona's own facts (and relationships); one
that names the holder (`{who}`, `{whose}`: `my sister Ann`, `my friend Kim's`) for anyone's. A frame says
nothing that the world does not hold beyond the ordinary consequence of the fact (a gym member works out at the
gym; someone told not to run until a date leaves the running shoes in the cupboard).
"""

from __future__ import annotations

PLAN_FRAMES: dict[str, tuple[str, ...]] = {
    "dinner_out": ("I couldn't finish the {dish}; {restaurant} doesn't do small portions",
                   "{restaurant}'s {dish} lived up to the hype",
                   "I took half the {dish} home from {restaurant} in a box"),
    "cafe_visit": ("{drink} from {cafe} kept me going all afternoon",
                   "I sat over {drink} for a good hour at {cafe}"),
    "hobby_session": ("I came home from {spot} happily worn out from {hobby}",
                      "{spot} was quiet, so I had it nearly to myself for {hobby}"),
    "session_rained_off": ("I got soaked at {spot} before any {hobby} could happen",
                           "I packed up at {spot} without doing any {hobby}: the rain never stopped"),
    "current_book": ("I stayed up far too late with {author}'s {book}",
                     "{book} kept me up past midnight; {author} knows how to end a chapter"),
    "wasted_shop": ("I came back from {market} with an empty bag",),
    "lunch_cancelled": ("I ate a sandwich at my desk instead of going out with {colleague}",),
    "course": ("I did my first homework for the {subject} class at {school}",
               "the {subject} teacher at {school} gave us our first homework"),
    "evening_out": ("{partner} and I stayed at {place} until they started stacking the chairs",),
    "concert": ("I sang along to every song {artist} played at {venue}", "{venue} was packed out for {artist}"),
    "celebration": ("{venue} was full of people raising a glass to {whose} {milestone}",),
    "bill_paid": ("the last payment on the {bill} went out",),
    "dinner_cancelled": ("I cooked at home instead of going to {restaurant}",),
    "trip": ("I came home from {city} with a camera full of photos after a {length} break",),
    "volunteering": ("the other volunteers at {org} showed me the ropes on {task}",),
    "home": ("I carried the last box up to the new flat on {address}",),
    "evening_cancelled": ("I stayed in instead of going to {place}",),
}
"""Attribute -> frames of a story fact's consequence, made of the plan's fields (every field the value names)."""

VALUE_FRAMES: dict[str, tuple[str, ...]] = {
    "gym": ("I had my first workout at {short}", "I was at {short} before work for a session"),
    "favourite_cafe": ("the staff at {short} finally knew my order without asking",
                       "I was back at {short} for the third time in a week"),
    "disliked_cafe": ("I walked straight past {short} and got my coffee elsewhere",),
    "grocery_shop": ("I did the weekly shop at {short} again",),
    "doctor": ("{title} saw me for the first time", "{title} asked to see me again in a month"),
    "running_restriction": ("my running shoes have to stay in the cupboard until {day}",
                            "the first run I'm allowed is on {day}"),
    "spending_restriction": ("the credit card stays in the drawer until {day}, bar the essentials",),
    "dating_pause": ("the dating apps are off my phone until {day}",),
    "travel_restriction": ("the suitcase stays in the loft{hard_bag} until {day}",),
    "work_project": ("I spent the day in {codename} meetings about the {work}",),
    "home_project": ("{who} had the tools out to {do} {what}",),
    # a relationship is background, told as what the two habitually do (no time phrase)
    "relationship:neighbour": ("{person} takes my parcels in over the fence when I'm out",),
    "relationship:colleague": ("{person} and I sit through the same team meetings every week",),
    "relationship:flatmate": ("{person} and I split the gas bill for the flat",),
    "relationship:gym buddy": ("{person} spots me on the bench press",),
    "relationship:classmate": ("{person} and I swap notes after class",),
    "relationship:old school friend": ("{person} and I still laugh about our old teachers",),
}
"""Attribute (or `attribute:value`) -> frames of a state fact's consequence, by its value's parsed parts."""
