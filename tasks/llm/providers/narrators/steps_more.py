"""More of what an assistant knows to suggest, per area of life and outcome (added to lexicon.py STEPS by
advice.py `steps_for`): a week of routines meets the same area of life again and again, and a reply that has made
every suggestion it knows can only point back to one; with these it has something new to offer for longer.

Same form as STEPS: a base-form verb phrase (`{np}`: the event's handle) and the reason it helps. None names a
relation or a day ("friend", "weekend"): such words are facts of some lives, and the assistant says a fact only
once the user has told it.
"""

from __future__ import annotations

from tasks.llm.providers.narrators.lexicon import CALLED_OFF, Step

MORE: dict[str, dict[str, tuple[Step, ...]]] = {
    "work": {
        "positive": (
            ("keep a running file of wins like {np}", "it makes the next pay conversation easier"),
            ("tell whoever you report to what helped you most", "they can make it easier next time"),
            ("take a proper lunch break this week", "good weeks are easier to keep with some rest"),
            ("write down one thing you want to learn next", "it gives the next months a direction"),
        ),
        "negative": (
            ("write down what you would ask for next time", "you go in prepared"),
            ("keep your evenings free of work for a few days", "it helps you see it clearly"),
            ("ask what a good next step would look like to them", "it turns a no into a plan"),
            ("look at what went well this year despite {np}", "one decision is not the whole picture"),
        ),
    },
    "social": {
        "positive": (
            ("save a photo from {np} somewhere you will see it", "it brings the day back"),
            ("note anything they said they were looking forward to", "you can ask about it next time"),
            ("think about who else would enjoy meeting them", "good company is worth sharing"),
            ("keep an evening free for the next get-together", "plans are easier when the slot is already there"),
        ),
        "negative": (
            ("suggest something short instead of a whole evening", "a short plan is easier to stick to"),
            ("give it a week before trying again", "busy patches pass"),
            ("use the free evening for something just for you", "it takes the sting out"),
            ("check in with a short message rather than a call", "it is easy to answer"),
        ),
    },
    "family": {
        "positive": (
            ("write down the news they shared", "you will want to ask about it next time"),
            ("send a short message the next day", "it keeps the warmth going"),
            ("ask about the one thing they seemed excited about", "people love being asked"),
            ("keep a note of who needs a call soon", "nobody drifts out of touch"),
        ),
        "negative": (
            ("send a photo or a short note instead of another call", "it keeps the line open without pressure"),
            ("ask whether another time of day suits them better", "routines change"),
            ("let it rest for a day or two", "they will get back to you when they can"),
            ("try a video call next time", "it can feel closer than a phone call"),
        ),
    },
    "outing": {
        "positive": (
            ("write down what you had", "it makes ordering easier next time"),
            ("plan the next visit for a quieter evening", "you get to enjoy it at your own pace"),
            ("look at what else is nearby", "a good area usually has more than one gem"),
            ("keep a short list of places you liked", "it is handy when someone asks for a tip"),
        ),
        "negative": (
            ("write down what went wrong while it is fresh", "it helps if you complain or review"),
            ("ask someone who knows the area for a better spot", "locals know the reliable places"),
            ("keep a backup place in mind for next time", "a bad night does not spoil the evening"),
            ("go for something simpler next time", "simple places get the basics right"),
        ),
        CALLED_OFF: (
            ("note the place down for another time", "you will remember you wanted to go"),
            ("ask whether a different evening suits everyone", "one evening is easy to move"),
            ("make the new date something to look forward to", "it takes the sting out"),
        ),
    },
    "hobby": {
        "positive": (
            ("keep your tools or kit somewhere easy to reach", "you start faster next time"),
            ("note what you would change in the next piece", "each one teaches something"),
            ("see how other people approach the same thing", "it gives you fresh ideas"),
            ("give yourself a small deadline for the next piece", "it keeps the momentum"),
        ),
        "negative": (
            ("plan a short session for the next free hour", "even a little keeps the habit"),
            ("use the time to sort your kit or plan the next piece", "the time is not wasted"),
            ("find a second place to do it", "you are not stuck when one falls through"),
        ),
    },
    "sport": {
        "positive": (
            ("drink plenty and eat well after a long session", "recovery starts straight away"),
            ("check your shoes and kit every few weeks", "worn kit leads to small injuries"),
            ("vary the route or the routine from time to time", "it keeps it fresh"),
            ("write down how your body felt afterwards", "it warns you before small aches become injuries"),
        ),
        "negative": (
            ("go for a brisk walk instead", "you still get moving"),
            ("plan the next session for a drier day", "you will enjoy it more"),
            ("keep a light indoor routine for days like this", "the habit survives the weather"),
        ),
    },
    "practice": {
        "positive": (
            ("go back over the best moment of the session", "it shows you what to repeat"),
            ("set aside ten minutes between sessions to practise one thing", "small practice adds up"),
            ("look for a local club or meet-up", "it is easier to improve with others"),
        ),
        "negative": (
            ("practise on your own for half an hour instead", "you keep the thread"),
            ("look for an online group for the days you cannot go", "you stay in touch with it"),
            ("plan the next session now", "a date in the calendar makes it happen"),
        ),
    },
    "volunteering": {
        "positive": (
            ("tell the coordinator what you enjoyed most", "they can give you more of it"),
            ("ask whether there is training for the next role", "it opens up more interesting jobs"),
            ("note the people you worked with", "it is easier to say hello next time"),
        ),
        "negative": (
            ("ask to be told in advance when they have enough people", "you will not make the trip for nothing"),
            ("look at the other places nearby that need help", "most are short of volunteers"),
        ),
    },
    "errand": {
        "positive": (
            ("plan a few meals before the next shop", "the list writes itself"),
            ("check the cupboards before you go", "you do not buy doubles"),
            ("set a rough budget for the week", "it is easier to stick to"),
        ),
        "negative": (
            ("keep a list on your phone for next time", "you will not forget what you went for"),
            ("ask whether the shop can hold what you need", "some will put things aside"),
            ("do a smaller top-up shop nearby", "you get the essentials without the trek"),
        ),
    },
    "travel": {
        "positive": (
            ("make a small album of the best photos", "you will actually look at it"),
            ("note the places you did not get to see", "they are a reason to go back"),
            ("give yourself a quiet day after getting home", "travel is more tiring than it seems"),
            ("write down what you spent", "the next trip is easier to budget"),
        ),
        "negative": (
            ("keep every booking email together", "claims are easier with them"),
            ("ask the airline or the hotel what they can offer", "they often do more when asked"),
            ("plan a short day out nearby instead", "a change of scenery still helps"),
        ),
    },
    "health": {
        "positive": (
            ("keep a copy of what the doctor gave you", "you will want it at the next visit"),
            ("ask what to watch out for over the next weeks", "you know when to go back"),
            ("take the rest you were told to take", "it is easy to do too much too soon"),
        ),
        "negative": (
            ("take someone with you to the next appointment", "two people remember more than one"),
            ("write down how it affects your days", "it helps the doctor see the whole picture"),
            ("ask what the next test or step will be", "you know what to expect"),
            ("look after sleep and food while you wait", "it helps whatever the answer is"),
        ),
    },
    "partner": {
        "positive": (
            ("say what you loved about it the next morning", "it makes the evening last"),
            ("take turns choosing the next plan", "you both get to surprise each other"),
            ("keep a list of places you both want to try", "it makes planning easy"),
        ),
        "negative": (
            ("agree a good time to talk it through", "you both come to it calm"),
            ("start with what you both want", "it is easier to find a way from there"),
            ("do something simple together in the meantime", "it keeps you close while you sort it"),
        ),
        CALLED_OFF: (
            ("suggest a short walk together in the meantime", "it keeps you close"),
            ("rebook {np} for a quieter week", "it is easier when nothing else is going on"),
        ),
    },
    "learning": {
        "positive": (
            ("keep all your notes in one place", "they are easy to find before a test"),
            ("try using what you learned once this week", "using it makes it stick"),
            ("ask whoever teaches it what to focus on next", "they know where you can improve most quickly"),
        ),
        "negative": (
            ("ask whether there is a waiting list", "places often open up"),
            ("find a beginner's book on it", "you can make a start on your own"),
        ),
    },
    "fitness": {
        "positive": (
            ("eat something with protein after training", "it helps recovery"),
            ("try one new class or exercise next week", "variety keeps it fun"),
            ("keep a simple log of each session", "it shows you how far you have come"),
        ),
        "negative": (
            ("keep up a short home routine for now", "you do not lose what you built"),
            ("ask the staff what they can offer instead", "they may have a quick fix"),
        ),
        CALLED_OFF: (
            ("keep up a short home routine for now", "you do not lose what you built"),
            ("ask the front desk what they can offer instead", "they may have a quick fix"),
        ),
    },
    "money": {
        "positive": (
            ("keep the paperwork for {np} in one folder", "it is easy to find at tax time"),
            ("move a little into savings while it is on your mind", "future you will thank you"),
        ),
        "negative": (
            ("list your fixed costs for the month", "you see what is left to work with"),
            ("ask the bank about a short breathing space", "they have options for this"),
            ("talk it over with someone you trust", "it feels smaller once it is said out loud"),
        ),
    },
    "culture": {
        "positive": (
            ("follow them online for the next tour dates", "you hear about shows early"),
            ("make a playlist of the songs from the night", "it brings it all back"),
        ),
        "negative": (
            ("look for a similar show nearby", "there is often another night out to be had"),
            ("keep an eye out for rescheduled dates", "many shows come back"),
        ),
    },
    "pet": {
        "positive": (
            ("keep a note of what they eat and how they sleep", "it helps the vet later"),
            ("introduce new people and places slowly", "a calm start builds trust"),
        ),
        "negative": (
            ("ask to be told when a similar animal comes in", "shelters keep lists"),
            ("spend time with animals at a rescue in the meantime", "it shows you what suits you"),
        ),
    },
    "home": {
        "positive": (
            ("take photos of any damage when you move in", "it protects your deposit"),
            ("find out the bin days", "it is the first thing neighbours notice"),
        ),
        "negative": (
            ("ask the agent what made the difference", "you can fix it for the next one"),
            ("keep copies of your references ready", "you can move fast next time"),
        ),
    },
}
"""Area of life (and, advice.py ACTIVITY_STEPS, kind of pastime) -> outcome -> more steps."""
