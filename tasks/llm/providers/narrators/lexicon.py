"""What the offline dialogue narrators know about kinds of events: how a person refers back to one (`the lunch`,
`the appointment`), which area of life it belongs to, and, per area and outcome, the practical steps an assistant
can suggest (as base-form verb phrases with the reason they help). The realizer (realize.py) turns these into
sentences in the form a sentence plan needs (`You could start by booking ...`, `It could help to book ...`); nothing
here is a finished sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks.llm.providers.narrators.realize import bare

CALLED_OFF = "called_off"
"""The tone of a reply about an event that did not take place (the context's `took_place`, tasks/common/happened.py):
a table keyed by outcome gives its `called_off` entry when it has one (what fits a plan that never happened: rebook,
rearrange, no staff, no review, no `last time`), else its `negative` one, which then fits both."""
BAD = frozenset({"negative", CALLED_OFF})
"""The tones after a setback: the plan went badly or did not happen."""


def tone_key(tone: str, table: Mapping[str, Any]) -> str:
    """The key of `table` (keyed by outcome) that fits `tone`: `called_off` when called off and the table has one,
    `negative` after any setback, else `positive`."""
    if tone == CALLED_OFF and CALLED_OFF in table:
        return CALLED_OFF
    return "negative" if tone in BAD else "positive"

HANDLES: dict[str, str] = {
    "new_job": "the new job", "move_flat": "the move", "adopt_pet": "the adoption", "start_course": "the course",
    "join_gym": "the gym", "buy_vehicle": "the purchase", "city_trip": "the trip", "doctor_visit": "the appointment",
    "run_race": "the race", "start_book": "the book", "new_cafe": "the new café", "friend_visit": "the visit",
    "work_project": "the project", "hobby_session": "the session", "weekly_shop": "the weekly shop",
    "cafe_visit": "the coffee", "family_call": "the call", "dinner_out": "the dinner", "colleague_lunch": "the lunch",
    "friend_call": "the call", "appointment": "the booking",
    "concert": "the concert", "volunteer": "the volunteering", "partner_evening": "the evening out",
    "relationship_talk": "the talk", "meet_someone": "the new friendship", "first_date": "the date",
    "visit_family": "the visit", "big_bill": "the bill", "promotion": "the promotion",
    "restructure": "the restructuring", "milestone": "the celebration", "retire": "the retirement",
    "birthday": "the birthday", "family_birthday": "the birthday", "start_school": "the first day at school",
    "parent_retires": "the retirement",
}
"""Event kind -> how the user and the assistant refer back to the event once it has been told."""

SPECIFIC: dict[str, str] = {
    "new_job": "the new job at {company}", "move_flat": "the move to {address}",
    "adopt_pet": "the adoption of {pet_name}",
    "start_course": "the {subject} course", "join_gym": "the {gym} membership", "buy_vehicle": "the {vehicle}",
    "city_trip": "the trip to {city}", "doctor_visit": "the appointment about {complaint}", "run_race": "the {race}",
    "start_book": "{book}", "new_cafe": "the café on {street}", "friend_visit": "the {occasion_bare}",
    "work_project": "the {project} project", "hobby_session": "the {hobby} session",
    "weekly_shop": "the shop at {market}", "cafe_visit": "the {drink_bare} at {cafe}",
    "family_call": "the call with {relative_first}", "dinner_out": "the dinner at {restaurant}",
    "friend_call": "the call with {friend_first}", "appointment": "the visit to {place}",
    "colleague_lunch": "the lunch with {colleague_first}", "concert": "the concert at {venue}",
    "volunteer": "the volunteering at {org}", "partner_evening": "the evening out at {place}",
    "relationship_talk": "the talk with {partner_first}", "meet_someone": "meeting {new_name_first}",
    "first_date": "the date with {date_name_first}", "visit_family": "the visit to {relative_first}",
    "big_bill": "the {bill}", "promotion": "the promotion at {employer}",
    "restructure": "the restructuring at {employer}", "milestone": "{person_first}'s {milestone}",
    "retire": "retiring from {employer}",
    "birthday": "turning {age}", "family_birthday": "{person_first}'s {ordinal} birthday",
    "start_school": "{person_first}'s first day at {school}", "parent_retires": "{person_first}'s retirement",
}
"""Event kind -> a specific handle made of the plan's title fields (`the lunch with Charlie`, `the dinner at
Kebab Corner`); `{x_first}` is a name's first word, `{x_bare}` a value without its article."""

SHORT: dict[str, str] = {
    "new_job": "the job at {company}", "move_flat": "the new flat", "adopt_pet": "{pet_name}",
    "start_course": "the {subject} course", "join_gym": "{gym}", "buy_vehicle": "the {vehicle}", "city_trip": "{city}",
    "doctor_visit": "the appointment with {doctor}", "run_race": "the {race}", "start_book": "{book}",
    "new_cafe": "{cafe}", "friend_visit": "{friend_first}'s visit", "work_project": "the {project}",
    "hobby_session": "the {hobby}", "weekly_shop": "{market}", "cafe_visit": "{cafe}",
    "family_call": "{relative_first}'s call", "dinner_out": "{restaurant}", "friend_call": "{friend_first}'s call",
    "appointment": "{place}",
    "colleague_lunch": "lunch with {colleague_first}",
    "concert": "{artist}", "volunteer": "{org}", "partner_evening": "the evening with {partner_first}",
    "relationship_talk": "the talk with {partner_first}", "meet_someone": "{new_name_first}",
    "first_date": "{date_name_first}", "visit_family": "the trip to {relative_first}'s", "big_bill": "the {bill}",
    "promotion": "the promotion", "restructure": "the restructuring", "milestone": "{person_first}'s {milestone}",
    "retire": "retirement", "birthday": "the birthday", "family_birthday": "{person_first}'s birthday",
    "start_school": "{school}", "parent_retires": "{person_first}'s retirement",
}
"""Event kind -> a short handle for later mentions (`Kebab Corner`, `the knitting`, `lunch with Charlie`)."""

DOMAINS: dict[str, str] = {
    "new_job": "work", "promotion": "work", "restructure": "work", "retire": "work", "work_project": "work",
    "colleague_lunch": "social", "move_flat": "home", "adopt_pet": "pet", "start_course": "learning",
    "start_book": "learning", "join_gym": "fitness", "run_race": "fitness", "hobby_session": "hobby",
    "buy_vehicle": "money", "big_bill": "money", "city_trip": "travel", "visit_family": "family",
    "family_call": "family", "doctor_visit": "health", "friend_visit": "social", "friend_call": "social",
    "appointment": "errand", "meet_someone": "social",
    "milestone": "social", "dinner_out": "outing", "concert": "culture", "partner_evening": "partner",
    "relationship_talk": "partner", "first_date": "partner", "weekly_shop": "errand", "cafe_visit": "outing",
    "new_cafe": "outing", "volunteer": "hobby", "birthday": "social", "family_birthday": "family",
    "start_school": "family", "parent_retires": "family",
}
"""Event kind -> the area of life the assistant's suggestions come from."""

Step = tuple[str, str]
"""(what to do, as a base-form verb phrase; why it helps, as a clause)."""

STEPS: dict[str, dict[str, tuple[Step, ...]]] = {
    "work": {
        "positive": (
            ("write down what went well in {np} while it is fresh", "it gives you examples for your next review"),
            ("thank the people who helped with {np}", "it keeps the goodwill going"),
            ("agree the next milestone with whoever you report to", "you both know what success looks like"),
            ("block an hour next week to plan the first steps", "the momentum does not fade"),
            ("keep the first weeks realistic", "settling in always takes longer than it looks"),
            ("ask early about anything you are unsure of", "questions are easiest in the first weeks"),
        ),
        "negative": (
            ("ask for specific feedback on {np}", "a vague no is hard to learn from"),
            ("note what was in your control and what was not", "it keeps the setback in proportion"),
            ("talk it over with someone you trust at work", "they will know how these things usually go"),
            ("set a date to revisit it in a month", "you are not deciding anything while it stings"),
            ("update your CV while the details are fresh", "it keeps your options open"),
            ("look at what you can still shape in your current role", "it gives you something to act on"),
        ),
    },
    "social": {
        "positive": (
            ("send a quick message to say you enjoyed it", "people remember a thank-you"),
            ("suggest a date for next time while it is fresh", "plans made on the spot tend to happen"),
            ("keep a note of what you talked about", "it makes the next conversation easier"),
            ("make it a regular thing if you both like the idea", "small rituals keep friendships going"),
            ("introduce them to someone else you think they would like", "it widens both your circles"),
            ("keep the next meeting low-key, like a walk or a coffee", "easy plans are easier to repeat"),
            ("ask about something they mentioned last time", "it shows you were listening"),
        ),
        "negative": (
            ("send a friendly message to rearrange", "it shows you still care about meeting"),
            ("propose two concrete dates instead of an open offer", "it is easier to say yes to"),
            ("keep it light rather than dwelling on why it fell through", "most cancellations are about timing"),
            ("fill the free slot with something you enjoy", "the evening is not wasted"),
            ("ask whether everything is all right on their side", "sometimes there is more going on"),
            ("check your own week before suggesting a new date", "you do not end up cancelling next"),
            ("let {np} go without reading too much into it", "one cancelled plan says little"),
        ),
    },
    "family": {
        "positive": (
            ("note down any dates or plans that came up", "it saves a second call to check"),
            ("put the next call in the calendar", "regular contact is easier than catching up"),
            ("share a photo or a short update afterwards", "it keeps everyone up to date"),
            ("offer to help with anything they mentioned", "it is usually appreciated"),
            ("write down the birthdays and dates that came up", "they are easy to forget"),
            ("send the photos or news you talked about", "it keeps the conversation going"),
            ("plan the next visit while everyone is keen", "family diaries fill up fast"),
        ),
        "negative": (
            ("send a short message so they know you tried", "a missed call can feel like silence"),
            ("suggest a time that suits you both", "it avoids another round of missed calls"),
            ("keep the next call short and easy", "it takes the pressure off"),
            ("ask someone else in the family how things are", "you get a fuller picture"),
            ("leave a short voicemail rather than trying again and again", "they can call back when it suits them"),
            ("pick a regular slot for calls", "it takes the guesswork out"),
            ("check whether everything is all right at their end", "missed calls sometimes mean a busy week"),
        ),
    },
    "home": {
        "positive": (
            ("make a list of the first jobs for the new place", "the small things pile up quickly"),
            ("update your address with the bank, your GP and your employer", "post goes astray otherwise"),
            ("walk the neighbourhood to find the shop, the pharmacy and the bus stop",
             "it helps the place feel like home"),
            ("take meter readings on the first day", "it avoids billing arguments later"),
            ("unpack the rooms you use every day first", "the rest can wait until the weekend"),
            ("introduce yourself to the neighbours", "it helps when parcels or problems come up"),
            ("note anything that needs fixing in the first week", "landlords respond better to early reports"),
        ),
        "negative": (
            ("ask exactly why it fell through", "it tells you what to check next time"),
            ("keep your documents ready for the next viewing", "good places go quickly"),
            ("widen the search a little", "a slightly different area can change everything"),
            ("check where you stand with your current tenancy", "you know how much time you have"),
            ("write down what drew you to the place that fell through", "it sharpens the next search"),
            ("set a simple alert for new listings", "the good ones go within days"),
            ("ask the agent to keep you in mind for similar places", "they often know before listings go up"),
        ),
    },
    "pet": {
        "positive": (
            ("register with a vet in the first week", "it is easier before anything goes wrong"),
            ("keep the first days quiet and routine", "animals settle through routine"),
            ("set up a feeding and walking rota", "everyone knows who does what"),
            ("get pet insurance sorted early", "vet bills can be a shock"),
            ("make one room safe for the new arrival first", "it gives them a safe base"),
            ("book a first check-up", "a vet who knows them early is worth a lot"),
            ("keep treats and a lead by the door", "routines start with small habits"),
        ),
        "negative": (
            ("ask the shelter what would change their decision", "it may only be a detail"),
            ("look at other shelters or rescues nearby", "each has its own rules"),
            ("think about fostering first", "it shows you how a pet fits your days"),
            ("ask what the shelter's concerns were", 'it may be something you can change'),
            ("offer to visit the animal again before they decide", "first impressions are not everything"),
            ("volunteer at a shelter for a few weeks", "it builds trust and experience"),
            ("check whether the rules differ for older animals", "they are often easier to adopt"),
        ),
    },
    "learning": {
        "positive": (
            ("set a small weekly goal for {np}", "steady progress beats bursts"),
            ("keep notes as you go", "they are the best revision later"),
            ("find one other person doing the same", "it keeps you both going"),
            ("pick a fixed time in the week for it", "habits need a slot"),
            ("keep a list of questions for the next session", "they are easy to forget in between"),
            ("review your notes the day after each session", "it fixes what you learned"),
            ("tell someone what you learned each week", "explaining it makes it stick"),
        ),
        "negative": (
            ("ask whether another start date is coming up", "courses often run again"),
            ("look for an evening or online version", "it may fit better anyway"),
            ("keep practising on your own in the meantime", "you will not lose the thread"),
            ("ask for a refund or a transfer to the next course", "providers often agree if asked"),
            ("find a free introduction online in the meantime", "you keep the interest alive"),
            ("look at other places that teach {np}", "one cancellation is not the end of it"),
            ("set a date to decide what to do next", "otherwise it drifts"),
        ),
    },
    "fitness": {
        "positive": (
            ("plan your sessions for the week ahead", "a plan makes it harder to skip"),
            ("build up slowly over the first month", "it keeps injuries away"),
            ("track a few simple numbers", "progress is motivating when you can see it"),
            ("book a rest day on purpose", "recovery is part of training"),
            ("write down how each session felt", "you will see the progress"),
            ("find someone to train with", "it is harder to skip when someone is waiting"),
            ("get your kit ready the night before", "it removes one excuse"),
        ),
        "negative": (
            ("find out exactly what went wrong with the sign-up or the session", "it is often a quick fix"),
            ("try a different time or place", "a small change can make it work"),
            ("keep moving in the meantime with walks or runs", "you will not lose your fitness"),
            ("ask for the problem in writing", "it is easier to sort out"),
            ("look for a trial session somewhere else", "you can compare places before you commit"),
            ("set a smaller goal for the next two weeks", "it keeps you moving without pressure"),
            ("stretch and rest properly for a few days", "a setback is no reason to get injured"),
        ),
        CALLED_OFF: (
            ("find out exactly what stopped the sign-up", "it is often a quick fix"),
            ("ask for the problem in writing", "it is easier to sort out"),
            ("try a different time or place", "a small change can make it work"),
            ("look for a trial session somewhere else", "you can compare places before you commit"),
            ("keep moving in the meantime with walks or runs", "you will not lose your fitness"),
            ("ask whether there is a waiting list", "places open up"),
        ),
    },
    "hobby": {
        "positive": (
            ("keep a small record of each session", "you will see how far you have come"),
            ("set yourself a next project", "a goal gives each session a purpose"),
            ("share what you made with someone", "it is encouraging to show it"),
            ("set aside the same time each week for it", "habits need a slot"),
            ("try one new technique next time", "it keeps it interesting"),
            ("take a photo of what you did", "it is motivating to look back"),
            ("join a group that does the same", "other people keep you going"),
        ),
        "negative": (
            ("have a backup plan for next time", "the weather and the venue are out of your hands"),
            ("do a shorter session at home instead", "you keep the habit"),
            ("check the schedule the day before", "you avoid a wasted trip"),
            ("keep a small kit at home", "you can still do a little"),
            ("find an indoor spot for bad days", "the weather will not decide for you"),
            ("move the session to another day this week", "you keep the rhythm"),
            ("ask the group how they handle cancellations", "they will have a plan"),
        ),
    },
    "money": {
        "positive": (
            ("file the receipt and the paperwork together", "you will need them at some point"),
            ("note the date in your budget", "it is clear where the money went"),
            ("set up a small buffer for the next bill", "it takes the sting out of surprises"),
            ("set a reminder for the next payment", "late fees add up"),
            ("check the bank statement when it clears", "mistakes happen"),
            ("note what the bill taught you about your budget", "next year is easier"),
        ),
        "negative": (
            ("ask for the charges in writing", "you can check each one"),
            ("ask whether a payment plan is possible", "most firms offer one if asked"),
            ("look at which costs can wait a month", "it gives you breathing room"),
            ("check whether any insurance covers it", "people often forget they have cover"),
            ("write down every call you make about it", "you will need the dates"),
            ("ask for a breakdown of the charges", "errors are more common than people think"),
            ("find free money advice in your area", "they know the options"),
        ),
    },
    "travel": {
        "positive": (
            ("keep a few notes on the places you liked", "they are gold for the next trip"),
            ("sort the photos while you still remember them", "it is much harder later"),
            ("write down what you would do differently", "the next trip will be easier"),
            ("print or save the tickets and bookings in one place", "travel days are easier"),
            ("tell someone your plans", "it is safer"),
            ("keep a little money aside for surprises", "something always comes up"),
            ("plan one thing you really want to do", "the rest can be loose"),
        ),
        "negative": (
            ("check what you can get refunded", "some bookings are more flexible than they look"),
            ("pick a new date while you are still keen", "otherwise it drifts"),
            ("plan something small and local in the meantime", "you still get a break"),
            ("ask for a voucher if a refund is not possible", "it keeps the value"),
            ("write down what went wrong with the booking", "it helps with any claim"),
            ("look at a shorter trip closer to home", "a change of scenery still helps"),
            ("check your travel insurance", "it may cover more than you think"),
        ),
    },
    "health": {
        "positive": (
            ("write down what the doctor said", "details blur after a day or two"),
            ("put any follow-up in the calendar", "it is easy to let it slide"),
            ("keep a short symptom diary", "it helps at the next appointment"),
            ("ask the surgery how you will get results", "you will not be left waiting"),
            ("keep taking things easy for a few days", "recovery takes time"),
            ("write your questions down before the next appointment", "they vanish in the room"),
        ),
        "negative": (
            ("ask for a second appointment or a referral", "you deserve a clear answer"),
            ("keep a symptom diary until then", "it gives the doctor something concrete"),
            ("ask the pharmacist in the meantime", "they can often help straight away"),
            ("be gentle with yourself while it is unresolved", "worry makes most symptoms worse"),
            ("call the surgery and ask for the first cancellation", "slots free up every day"),
            ("write down when the symptoms come and go", "patterns help the diagnosis"),
            ("ask whether a pharmacist can see you sooner", "they can often help"),
        ),
    },
    "outing": {
        "positive": (
            ("note what you liked about {np}", "it helps you choose next time"),
            ("recommend {np} to someone who would enjoy it", "good places are better shared"),
            ("go back when it is quieter", "you see a place differently"),
            ("save the place in your phone's map", 'you will find it again'),
            ("ask what the regulars order", "they know the best things"),
            ("go at a different time of day", "places change a lot"),
            ("bring someone next time", "it is more fun shared"),
        ),
        "negative": (
            ("check opening times or book ahead next time", "it saves a wasted trip"),
            ("have a second option nearby", "the evening is not lost"),
            ("leave a short review", "it helps the place and other people"),
            ("check reviews before going back", "places change"),
            ("try somewhere new nearby instead", "there is usually a good alternative"),
            ("give the place one more chance at a quieter time", "a bad night can be a one-off"),
            ("tell the staff what went wrong", "good places want to know"),
        ),
        CALLED_OFF: (
            ("rebook {np} for a date that suits everyone", "a plan with a date is more likely to happen"),
            ("cancel the booking properly if it is still open", "the table can go to someone else"),
            ("send a friendly message to rearrange", "it shows you still care about meeting"),
            ("keep the place on your list for another time", "it will still be there"),
            ("cook something you like at home instead", "the evening is not lost"),
            ("pick a back-up evening when you rebook", "one change of plan will not undo it"),
            ("let {np} go without reading too much into it", "plans change all the time"),
        ),
    },
    "culture": {
        "positive": (
            ("look up when they play near you again", "good nights are worth repeating"),
            ("listen back to the songs you liked while the night is fresh", "it keeps the memory vivid"),
            ("note who you went with and what you loved about {np}", "it is lovely to look back on"),
            ("sign up for the venue's newsletter", "you hear about tickets before they sell out"),
            ("keep the ticket or a photo from {np}", "small keepsakes bring the night back"),
        ),
        "negative": (
            ("ask the venue about a refund or an exchange", "most will offer something"),
            ("check whether there is another date nearby", "tours often add dates"),
            ("find a smaller gig in the meantime", "you still get a night out"),
            ("keep the booking emails together", "a claim is easier with them"),
        ),
    },
    "partner": {
        "positive": (
            ("tell them what you enjoyed", "it means a lot to hear"),
            ("plan the next evening together", "it is something to look forward to"),
            ("keep a little time each week just for the two of you", "it keeps things close"),
            ("plan something small for the coming week", "little things keep it warm"),
            ("ask what they enjoyed most", "you learn what matters to them"),
            ("put the next evening in both your calendars", "it actually happens"),
        ),
        "negative": (
            ("talk about it when you are both calm", "it is easier to hear each other"),
            ("say what you would like rather than what went wrong", "it keeps it forward-looking"),
            ("give it a little time before deciding anything", "first reactions are rarely the whole story"),
            ("pick a quiet moment to talk it through", "timing matters"),
            ("listen first before explaining your side", "people open up when they feel heard"),
            ("plan something easy and kind for the next few days", "it resets the mood"),
            ("write down what you want to say", "it keeps you calm"),
        ),
        CALLED_OFF: (
            ("pick a new evening together while you are both keen", "it shows you both still want it"),
            ("do something simple at home together instead", "time together does not need a booking"),
            ("have a backup plan for the next evening out", "one hitch will not cancel it again"),
            ("tell them you were looking forward to it", "it means a lot to hear"),
            ("keep the next evening out simple", "simple plans are easier to keep"),
            ("put the new date in both your calendars", "it actually happens"),
        ),
    },
    "errand": {
        "positive": (
            ("keep a running list on your phone", "the next trip is quicker"),
            ("make it a fixed slot in the week", "it stops being a chore you think about"),
            ("combine it with other errands nearby", "it saves a second trip"),
            ("keep a list of what you always run out of", "the next shop is faster"),
            ("go at the same quiet time each week", "it is quicker"),
            ("bring your own bags and a list", "you buy what you need"),
        ),
        "negative": (
            ("check opening times before you set off", "it saves a wasted journey"),
            ("have a second shop in mind", "you are not stuck"),
            ("order the basics online this week", "it takes the pressure off"),
            ("check the shop's website before you go", 'opening hours change'),
            ("find out when deliveries come in", "shelves are fuller then"),
            ("keep a small stock of basics at home", "a wasted trip matters less"),
        ),
    },
}
"""Area of life -> outcome -> the steps the assistant can suggest ({np}: the event's handle); `called_off`, where
the area has one, for a plan that did not take place (its `negative` steps presuppose it did: a review, the staff)."""

CATEGORY_STEPS: dict[str, tuple[Step, ...]] = {
    "scheduling": (
        ("put {np} in your calendar with a reminder the day before", "it will not sneak up on you"),
        ("leave a buffer before and after {np}", "one delay will not knock the rest of the day over"),
        ("fix the things that cannot move first and fit {np} around them", "the week stays realistic"),
        ("move anything less important to the following week", "you keep some slack"),
    ),
    "advice_seeking": (
        ("write down the two or three options you have for {np}", "choosing is easier when you see them side by side"),
        ("sleep on it before deciding anything big about {np}", "decisions look different in the morning"),
        ("talk {np} over with someone who knows you well", "they will spot what you are too close to see"),
    ),
    "status_update": (
        ("jot down where {np} stands today", "you can compare when the next change comes"),
        ("decide what the next milestone for {np} is", "progress is easier to see"),
    ),
    "information_sharing": (
        ("keep a line about {np} in a notes app", "it is nice to look back on"),
        ("notice how {np} changes your week", "small changes ripple into habits"),
    ),
    "attachment_consultation": (
        ("check every date and amount in {doc} against your own records", "mistakes in documents are common"),
        ("note anything in {doc} that asks you to reply or act", "deadlines are easy to miss"),
        ("save {doc} somewhere you can find it again", "you may need to refer back to it"),
    ),
}
"""Dialogue category -> steps that fit any area of life for that kind of talk (`{doc}`: the shared document, as the
assistant names it: `the email from the clinic`)."""

ASK_INTENTS: dict[str, tuple[str, ...]] = {
    "plan": ("plan", "next step", "go from here", "what now", "next", "build on", "handle", "approach", "do about"),
    "tell": ("tell", "share", "let people know", "mention it"),
    "remember": ("remember", "keep track", "log", "note", "record"),
    "schedule": ("fit", "schedule", "calendar", "time for", "when should", "book", "slot"),
    "cope": ("cope", "deal with", "worry", "stress", "feel better", "get over", "let it go"),
    "document": ("document", "email", "read", "make sense", "look over", "stand out", "check it"),
}
"""What a user's question asks for, by the words it uses (`How should I tell my team?` -> tell)."""


ATTRIBUTE_DOMAINS = (("employer", "work"), ("occupation", "work"), ("job", "work"), ("team", "work"),
                     ("workplace", "work"), ("project", "work"), ("home", "home"), ("city", "home"), ("pet", "pet"),
                     ("course", "learning"), ("book", "learning"), ("gym", "fitness"), ("race", "fitness"),
                     ("hobby", "hobby"), ("volunteer", "hobby"), ("vehicle", "money"), ("income", "money"),
                     ("holiday", "travel"), ("trip", "travel"), ("doctor", "health"), ("diagnosis", "health"),
                     ("illness", "health"), ("injury", "health"), ("cafe", "outing"), ("grocery", "errand"),
                     ("relationship", "partner"), ("partner", "partner"))
"""Attribute word -> area of life, for a reply about a fact with no event of its own (background)."""


def attribute_domain(attribute: str) -> str:
    """The area of life of a fact's attribute (`favourite_cafe` -> outing; `social` when nothing matches)."""
    return next((d for word, d in ATTRIBUTE_DOMAINS if word in attribute), "social")


def domain_of(kind: str | None) -> str:
    """The area of life of an event kind (`social` when unknown)."""
    return DOMAINS.get(kind or "", "social")


def handle_of(kind: str | None, fallback: str) -> str:
    """How the event is referred back to (`the lunch`), else `fallback`."""
    return HANDLES.get(kind or "", fallback)


def specific_handle(kind: str | None, entity: dict[str, str] | None) -> str | None:
    """The event named by its own details (`the lunch with Charlie`), or None when its fields are missing."""
    return formatted(SPECIFIC.get(kind or ""), entity)


def short_handle(kind: str | None, entity: dict[str, str] | None) -> str | None:
    """The event named briefly by a detail (`Kebab Corner`, `the knitting`), or None."""
    return formatted(SHORT.get(kind or ""), entity)


def formatted(form: str | None, entity: dict[str, str] | None) -> str | None:
    """`form` filled from a plan's fields (`{x_first}`: a name's first word, `{x_bare}`: without its article)."""
    if not form or not entity:
        return None
    fields: dict[str, str] = {}
    for key, value in entity.items():
        value = str(value).strip()
        fields[key] = value
        fields[f"{key}_first"] = value.split()[0] if value.split() else value
        fields[f"{key}_bare"] = bare(value)
    try:
        return form.format(**fields)
    except (KeyError, IndexError):
        return None
