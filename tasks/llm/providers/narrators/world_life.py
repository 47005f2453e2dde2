"""Offline `outcome` templates for the everyday and life-transition kinds (tasks/world/catalog_life.py).

Merged into world.CORE: per kind and valence, core sentences that state the facts by `{m0}`, `{m1}`
(their first surface forms) and may use the entity's fields. A constraint's fact is stated by one of
CONSTRAINT_LINES.
"""

from __future__ import annotations

LIFE_CORE: dict[str, dict[str, tuple[str, ...]]] = {
    "hobby_session": {
        "positive": ("Spent {duration} on {m0} today and loved every minute.",
                     "Lovely afternoon: {m0}, phone off.", "Squeezed in some {m0}; exactly what I needed."),
        "negative": ("The weather had other ideas and rained off my {m0}.",
                     "So much for my plans: the {m0} got rained off.", "Rain again, so no {m0} for me, oh well."),
    },
    "weekly_shop": {
        "positive": ("Did the weekly shop at {market}, fridge is full again.", "Weekly groceries sorted at {market}.",
                     "Quick run round {market} for the week's food."),
        "negative": ("That was a wasted {m0}: half the shelves were empty.",
                     "I made the {m0} for nothing, I forgot my bag and my list.",
                     "Annoying: the {m0} was wasted, the shop closed early."),
    },
    "cafe_visit": {
        "positive": ("Stopped by for {m0}; still my favourite place.", "Quiet half hour with {m0} this morning.",
                     "Treated myself to {m0}, perfect as ever."),
        "negative": ("Bad visit this morning: {m0}.", "So disappointing: {m0}. It used to be my favourite.",
                     "I don't know what happened, but today it was {m0}."),
    },
    "family_call": {
        "positive": ("Long call with {relative}: turns out {relative} {news}.",
                     "Caught up with {relative} about {topic}; big news is that {relative} {news}.",
                     "{relative} rang back, and apparently {relative} {news}."),
        "negative": ("{relative} rang about {m0} and I missed it; we keep missing each other.",
                     "Missed {relative}'s call about {m0} twice now.",
                     "Phone tag again: {relative} called about {m0}."),
    },
    "friend_call": {
        "positive": ("Long chat on the phone with {friend}: turns out {friend} {news}.",
                     "{friend} rang about {topic}, and the big news is that {friend} {news}.",
                     "Caught up with {friend} on the phone; apparently {friend} {news}."),
        "negative": ("{friend} rang about {m0} and I missed it.", "Missed {friend}'s call about {m0}; I'll ring back.",
                     "Phone tag with {friend} again, something about {m0}."),
    },
    "dinner_out": {
        "positive": ("Dinner with {companion}: {m0}, we stayed until closing.",
                     "Treated myself and {companion} to {m0}.", "{companion} and I had {m0} tonight."),
        "negative": ("{companion} was unwell, so we cancelled {m0}.", "The booking got lost, and {m0} was off.",
                     "We had to call off {m0} after all."),
    },
    "colleague_lunch": {
        "positive": ("Lunch with {colleague} from {m1}, who recommended {m0}.",
                     "{colleague} from {m1} joined me for lunch and swore by {m0}.",
                     "Nice lunch with {colleague} ({m1}); the tip of the day: {m0}."),
        "negative": ("Work blew up, so I had to cancel {m0}.", "Meetings ran over and {m0} never happened.",
                     "Grabbed a sandwich alone after cancelling {m0}."),
    },
    "appointment": {
        "positive": ("Finally had my {m0}; one more thing off the list.", "Ticked off the {m0} this morning.",
                     "Squeezed in my {m0} at lunchtime, quick and painless."),
        "negative": ("Completely forgot about the {m0} and missed it.", "The bus never came, so I missed the {m0}.",
                     "Ran late and missed the {m0}, so I'll have to rebook."),
    },
    "concert": {
        "positive": ("Saw {m0} tonight, ears still ringing.", "What a night: {m0}.",
                     "Finally caught {m0}, worth every penny."),
        "negative": ("Gutted: the {m0} got cancelled.", "An email at noon: the {m0} is cancelled.",
                     "The cancelled {m0} left me with a useless ticket."),
    },
    "volunteer": {
        "positive": ("First shift done: {m0}.", "Spent the morning on {m0}, tired but happy.",
                     "Signed up properly: {m0} from now on."),
        "negative": ("Showed up at {m0} and got turned away; too many volunteers today.",
                     "Frustrating: {m0} turned me away.", "I was turned away at {m0}, they had no one to train me."),
    },
    "partner_evening": {
        "positive": ("Evening out: {m0}, just the two of us.", "Date night done right: {m0}.",
                     "Lovely evening, {m0}."),
        "negative": ("Babysitter fell through, so we cancelled our {m0}.", "Our {m0} got cancelled.",
                     "We ended up cancelling the {m0}."),
    },
    "relationship_talk": {
        "positive": ("We talked it all through and we're still {m0}.", "Hard conversation, good ending: {m0}.",
                     "Cleared the air at {place}; still {m0}."),
        "negative": ("It's over: {partner} is my {m0} now.", "After the talk at {place}, {partner} is an {m0}.",
                     "We broke up. {partner}, my {m0} as of tonight."),
    },
    "meet_someone": {
        "positive": ("Got talking to {new_name} at {where} and we're meeting up again: a new {m0}!",
                     "{new_name} from {where} and I really hit it off; I think I've made a {m0}.",
                     "Coffee with {new_name} after {where}, and we swapped numbers: a new {m0}, I hope."),
        "negative": ("Got talking to {m0} at {where}, but it went nowhere.",
                     "I tried to chat with {m0} at {where}; we had nothing in common.",
                     "{m0} from {where} seemed nice, but it went nowhere."),
    },
    "first_date": {
        "positive": ("Met {date_name} at {place} and we're officially together: {date_name} is my {m0} now.",
                     "First date with {date_name} went so well we're calling it: my {m0}, {date_name}.",
                     "{date_name} and I are a thing now, my {m0} after one evening at {place}!"),
        "negative": ("Pleasant enough, but there won't be a second date with {m0}.", "Spark missing with {m0}.",
                     "Verdict on {place}: nice place, but no second date with {m0}."),
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
        "negative": ("{person} called it off: the {m0} celebration is postponed.",
                     "The {m0} for {person} is postponed, sadly.", "Sad news, {person} has put off the {m0}."),
    },
    "retire": {
        "positive": ("Last day at work: I'm a {m0} now, or simply {m1}.",
                     "Handed in my keys; officially {m1}, a {m0}.", "Farewell cake eaten, {m1} at last: {m0}."),
        "negative": ("Not yet: I {m0}.", "Plans changed, and I {m0}.", "They asked me to stay on, so I {m0}."),
    },
    # life stages (tasks/world/catalog_stages.py): both outcomes state the change, the negative is a quieter day
    "birthday": {
        "positive": ("I'm {m0} today, and we celebrated properly.", "Cake, candles and far too many cards: {m0} as of "
                     "today.", "Another year older and {m0} today; it was a lovely day."),
        "negative": ("A quiet one: {m0} today and hardly anyone noticed.", "I'm {m0} today, but the party fell flat.",
                     "Turned {age} with a cold, so being {m0} started in bed."),
    },
    "family_birthday": {
        "positive": ("{person} is {m0} today and loved every minute of the party.",
                     "We celebrated {person}'s {ordinal} birthday: {m0} already!",
                     "Candles blown out in one go: {person} is {m0} now."),
        "negative": ("A low-key {ordinal} birthday for {person}, {m0} and a bit under the weather.",
                     "{person} turned {age} today; being {m0} came with a rained-off party.",
                     "{person} is {m0} now, though the celebration was a damp squib."),
    },
    "start_school": {
        "positive": ("First day at {m0} for {person}, who ran in without looking back.",
                     "{person} started at {m0} today, new uniform and all.",
                     "Dropped {person} off at {m0} for the first day; all smiles at the gate."),
        "negative": ("{person}'s first day at {m0} was a tearful one.",
                     "Hard morning: {person} clung to me at the gate of {m0}.",
                     "{person} started at {m0} today and came home upset; early days."),
    },
    "parent_retires": {
        "positive": ("{person} is officially {m0} as of today; we toasted the end of an era.",
                     "Big day for my {relation}: {person} is {m0} now.",
                     "No more alarm clocks for {person}, who is {m0} from today."),
        "negative": ("{person} is {m0} now, though the send-off at work was a damp squib.",
                     "{person} is {m0} as of today and already a little lost without work.",
                     "My {relation} {person} is {m0} now; the leaving do was cancelled at the last minute."),
    },
}
BECAUSE = ("After {cause}, I was ready for a change.", "It was time for a change after {cause}.",
           "Ever since {cause} I'd been meaning to look elsewhere.")
"""How a change made for a reason (tasks/world/causes.py: the plan's `cause`) tells it."""
ASIDES: dict[str, tuple[str, ...]] = {
    "hobby_goal": ("Next goal: {m}.", "I'm working towards {m} now.", "New target for myself: {m}."),
}
"""How a fact no core sentence stated is added (by its attribute; any other: `For the record: {m}.`)."""
CONSTRAINT_LINES = ("So it's {m} for me.", "Which means {m}.", "New rule for now: {m}.", "The upshot: {m}.")
CONSTRAINT_SUFFIXES = ("_restriction", "_pause")
