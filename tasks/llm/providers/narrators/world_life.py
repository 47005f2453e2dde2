"""Offline `outcome` templates for the everyday and life-transition kinds (tasks/world/catalog_life.py).

Merged into world.CORE: per kind and valence, core sentences that state the facts by `{m0}`, `{m1}`
(their first surface forms) and may use the entity's fields. A constraint's fact is stated by one of
CONSTRAINT_LINES.
"""

from __future__ import annotations

LIFE_CORE: dict[str, dict[str, tuple[str, ...]]] = {
    "hobby_session": {
        "positive": ("Spent {hours} hours on {m0} today and loved every minute.",
                     "Lovely afternoon: {m0}, phone off.", "Squeezed in some {m0}; exactly what I needed."),
        "negative": ("The weather had other ideas: a {m0}.", "So much for my plans, it was a {m0}.",
                     "Ended up with a {m0}, oh well."),
    },
    "weekly_shop": {
        "positive": ("Did the weekly shop at {m0}, fridge is full again.", "Weekly groceries sorted at {m0}.",
                     "Quick run round {m0} for the week's food."),
        "negative": ("A {m0}: half the shelves were empty.", "Total {m0}, I forgot my bag and my list.",
                     "Annoying {m0}, the shop closed early."),
    },
    "family_call": {
        "positive": ("Long call with {relative}: turns out {relative} {news}.",
                     "Caught up with {relative} about {topic}; big news is that {relative} {news}.",
                     "{relative} rang back, and apparently {relative} {news}."),
        "negative": ("Another {m0} with {relative}; we keep missing each other.",
                     "Tried {relative} twice, just a {m0}.", "Phone tag again: {m0} with {relative}."),
    },
    "dinner_out": {
        "positive": ("Dinner with {companion}: {m0}, we stayed until closing.",
                     "Treated myself and {companion} to {m0}.", "{companion} and I had {m0} tonight."),
        "negative": ("{companion} was unwell, so it's a {m0}.", "The booking got lost: {m0}.",
                     "Had to settle for a {m0} after all."),
    },
    "colleague_lunch": {
        "positive": ("Lunch with {colleague} from {m1}, who recommended {m0}.",
                     "{colleague} from {m1} joined me for lunch and swore by {m0}.",
                     "Nice lunch with {colleague} ({m1}); the tip of the day: {m0}."),
        "negative": ("Work blew up, so: {m0}.", "Meetings ran over and it was a {m0}.",
                     "Grabbed a sandwich alone after the {m0}."),
    },
    "concert": {
        "positive": ("Saw {m0} tonight, ears still ringing.", "What a night: {m0}.",
                     "Finally caught {m0}, worth every penny."),
        "negative": ("Gutted about the {m0}.", "An email at noon: {m0}.", "The {m0} left me with a useless ticket."),
    },
    "volunteer": {
        "positive": ("First shift done: {m0}.", "Spent the morning on {m0}, tired but happy.",
                     "Signed up properly: {m0} from now on."),
        "negative": ("Showed up and got {m0}; too many volunteers today.", "Frustrating: {m0}.",
                     "I was {m0}, they had no one to train me."),
    },
    "partner_evening": {
        "positive": ("Evening out: {m0}, just the two of us.", "Date night done right: {m0}.",
                     "Lovely evening, {m0}."),
        "negative": ("Babysitter fell through, so a {m0}.", "It turned into a {m0}.", "We ended up with a {m0}."),
    },
    "relationship_talk": {
        "positive": ("We talked it all through and we're still {m0}.", "Hard conversation, good ending: {m0}.",
                     "Cleared the air at {place}; still {m0}."),
        "negative": ("It's over: {partner} is my {m0} now.", "After the talk at {place}, {partner} is an {m0}.",
                     "We broke up. {partner}, my {m0} as of tonight."),
    },
    "first_date": {
        "positive": ("Met {date_name} at {place} and we're officially together: {date_name} is my {m0} now.",
                     "First date with {date_name} went so well we're calling it: my {m0}, {date_name}.",
                     "{date_name} and I are a thing now, my {m0} after one evening at {place}!"),
        "negative": ("Pleasant enough, but it's {m0}.", "Spark missing: {m0}.", "Verdict on {place}: {m0}."),
    },
    "visit_family": {
        "positive": ("Spent {m0}, so much food.", "Back from {m0}; my heart is full.", "Lovely visit: {m0}."),
        "negative": ("I came back from {relative}'s with a {m0}.", "Caught a {m0} on the trip to {relative}.",
                     "In bed with a {m0} after visiting {relative}."),
    },
    "big_bill": {
        "positive": ("Good news: the {m0}.", "One weight off: {m0}.", "Finally the {m0}."),
        "negative": ("Shock of the month: the {m0}, so my {m1} has to be sold.",
                     "Opened the post to find the {m0}; I sold my {m1} to cover it.",
                     "I wasn't ready for the {m0}, and my {m1} is gone to pay for it."),
    },
    "promotion": {
        "positive": ("Promotion approved, which moves me into the {m0} bracket.",
                     "They said yes! Pay rise to a {m0} level.", "New grade, new pay: {m0} at last."),
        "negative": ("I was {m0}.", "Bad news from my manager: {m0}.", "Turns out I was {m0} this round."),
    },
    "restructure": {
        "positive": ("The dust has settled and I {m0}.", "Phew, I {m0}.", "I survived the cuts: {m0}."),
        "negative": ("They let me go today: I'm {m0}.", "Restructuring hit my role; as of today I'm {m0}.",
                     "Cleared my desk, I'm {m0} now."),
    },
    "milestone": {
        "positive": ("We celebrated {person}'s {m0}.", "What a party: {person}'s {m0}.",
                     "Raised a glass for {person}'s {m0}."),
        "negative": ("{person} called it off: {m0}.", "A {m0} for {person}, sadly.", "Sad news, a {m0}."),
    },
    "retire": {
        "positive": ("Last day at work: I'm a {m0} now, or simply {m1}.",
                     "Handed in my keys; officially {m1}, a {m0}.", "Farewell cake eaten, {m1} at last: {m0}."),
        "negative": ("Not yet: {m0}.", "Plans changed, {m0}.", "They asked me to stay on, so {m0}."),
    },
}
CONSTRAINT_LINES = ("So it's {m} for me.", "Which means {m}.", "New rule for now: {m}.", "The upshot: {m}.")
CONSTRAINT_SUFFIXES = ("_restriction", "_pause")
