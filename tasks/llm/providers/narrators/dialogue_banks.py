"""Phrase banks of the offline dialogue narrators (dialogue.py): short pieces that combine into many
sentences (lead-ins x verb frames x tails, question leads x cores x tails), by register where it matters.
Keep items short (three words or fewer where possible): a word 4-gram that spans two choices repeats far
less often than one inside a long fixed phrase."""

from __future__ import annotations

EMOJI = ("🙂", "😊", "🎉", "🙌", "😅", "🤞", "✨", "👍", "🙃", "😬")

TRANSITIONS = {
    "casual": ("oh and", "also", "next:", "other news:", "oh, and", "btw", "one more:", "plus", "ooh and",
               "and", "aaand", "wait, also", "ok also", "right,", "so also"),
    "neutral": ("Also,", "Another thing:", "Oh, and", "Separately,", "One more:", "On another note,", "Plus,",
                "Next,", "Besides that,", "Meanwhile,", "And", "Then,", "Other news:"),
    "formal": ("Additionally,", "Separately,", "Also,", "Furthermore,", "In other news,", "Next,", "Besides,",
               "Moreover,", "Another matter:", "Further,", "Likewise,", "One more item:", "Then,", "And"),
}

POS_VERBS = (
    "I managed to", "I got to", "I chose to", "I made time to", "I got a chance to", "I went to",
    "I found time to", "I dared to", "I was able to", "I arranged to", "I decided to", "I opted to",
    "I booked in to", "I finally went to", "I agreed to", "I committed to", "I resolved to", "I planned to",
    "I stepped up to", "I ventured to", "I set off to", "I had time to",
)

NEG_VERBS = (
    "I tried to", "I had planned to", "I set out to", "I was meant to", "I attempted to", "I was set to",
    "I had hoped to", "I intended to", "I wanted to", "I was supposed to", "I meant to", "I was going to",
    "I aimed to", "I really tried to", "I hoped to", "I arranged to", "I was due to", "I had agreed to",
)

POS_TAILS = (
    "", "", "", "and it went well", "and it worked", "and it paid off", "and I'm glad", "worth it",
    "which felt good", "without drama", "all smooth", "no regrets", "and it was fun", "easy in the end",
    "and it clicked", "happily", "better than expected", "and yes, success", "and it went fine",
)

NEG_TAILS = (
    "but it didn't work", "but it fell apart", "but it went sideways", "and it went badly", "but it got messy",
    "and nothing went right", "but it fell through", "total disaster", "but it went wrong", "but it backfired",
    "but no luck", "and it flopped", "but it collapsed", "but it got derailed", "what a mess", "but nope",
    "but it fizzled", "and it tanked", "but it unravelled", "and ugh",
)

ADVERBS = ("", "", "", "finally", "actually", "at last")

ADVERB_VERBS = frozenset("managed got chose made found decided opted agreed went".split())

PREFIXES = {
    "casual": ("", "so", "ok so", "guess what,", "news:", "lol so", "welp,", "right so"),
    "neutral": ("", "", "So,", "Well,", "Quick news:", "Some news:", "Okay, so", "Right,"),
    "formal": ("", "", "", "News:", "An update:", "Briefly,", "As it happens,", "For your information,",
               "To report,", "Notably,", "Of note,", "Well,", "So,", "Today,"),
}

FACT_LEADS = {
    "casual": ("", "", "so", "basically", "long story short,", "anyway", "which means", "net result:"),
    "neutral": ("", "", "So", "Which means", "Long story short,", "In short,", "Basically,", "The upshot:",
                "The main thing:", "For the record,"),
    "formal": ("", "", "", "Consequently,", "As a result,", "In short,", "Precisely,", "For the record,",
               "The outcome:", "Therefore", "Thus", "In effect,", "Formally,", "Accordingly,", "So"),
}

NOW_WORDS = ("now", "as of now", "from now on", "at this point", "going forward", "officially")

FEEL = {
    "positive": ("pleased", "relieved", "excited", "proud", "happy", "upbeat", "chuffed", "content", "thrilled",
                 "lighter", "grateful", "energised", "calm", "satisfied", "hopeful", "giddy", "buoyed"),
    "negative": ("frustrated", "deflated", "annoyed", "disappointed", "stressed", "worn out", "uneasy",
                 "rattled", "fed up", "let down", "flat", "drained", "gutted", "shaken", "grumpy", "sore about it",
                 "a little lost"),
}

FEEL_OPENERS = ("I'm", "I feel", "Feeling", "I'm left", "I'm still", "Overall I'm", "I'd say I'm", "Weirdly I'm",
                "Mood:", "So I'm", "In all, I'm", "Mostly I'm", "Tbh I'm")

DEGREE = ("pretty", "really", "quite", "a bit", "kind of", "genuinely", "more", "very", "a little", "so")

FEEL_TAILS = ("about it", "overall", "right now", "tonight", "honestly", "today", "for now", "still", "",
              "about all this", "deep down", "inside", "all told")

FEEL_FORMAL_DEGREE = ("quite", "rather", "genuinely", "somewhat", "very")

DETAIL_LEADS = ("", "", "", "Honestly,", "To be fair,", "The thing is,", "Also,", "What stuck with me:",
                "Basically,", "Funny enough,", "For what it's worth,", "And yes,")

CALLBACK_LEADS = ("", "", "For context:", "Quick reminder:", "Background:", "As you may remember:",
                  "This ties back to something:", "Remember?", "Context:", "Backstory:")

CALLBACK_LINKS = (
    "so this is the next chapter", "so it all ties together", "and this builds on that",
    "and this was the follow-up", "so you can see where this is going", "and this is where it led",
    "so it's part two of that story", "and this picks up from there",
)

Q_LEADS = (
    "How do I", "How should I", "Should I", "How can I", "Any tips to", "Best way to", "How best to",
    "Ideas to", "Help me", "How would I", "When should I", "Could I", "Wise to", "Any way to", "How might I",
    "Can I", "Ways to", "Tips to", "Smart ways to", "Time to", "Better to", "Okay to", "Easy ways to",
    "Must I", "Do I", "Why not", "Tricks to", "Advice to", "How to", "Quick ways to", "Ready to",
)

Q_PRE = ("", "", "", "", "So", "Honestly,", "Okay, but", "Real question:", "Hmm,", "Also,", "Then again,")

Q_CORES = {
    "advice_seeking": (
        "handle it", "move on", "retry", "deal with it", "bounce back", "approach it", "avoid a repeat",
        "explain it", "salvage it", "regroup", "decide next steps", "get back on track", "stop dwelling",
        "turn it around", "try again", "cut losses", "let go", "learn from it", "reset", "fix it",
        "talk it through", "budget for it", "recover", "vent less", "plan B", "stay calm", "ask for help",
        "push back", "apologise", "sleep on it",
    ),
    "scheduling": (
        "fit it in", "block time", "plan around it", "set reminders", "rearrange things", "juggle work",
        "space things out", "track dates", "schedule follow-ups", "add buffer", "avoid clashes", "pace myself",
        "prepare", "book slots", "shift plans", "free evenings", "sort the travel", "time it", "plan mornings",
        "prep ahead", "reschedule", "batch errands", "use my calendar", "protect weekends",
    ),
    "information_sharing": (
        "enjoy it", "settle in", "tell people", "keep momentum", "adjust routines", "celebrate", "track it",
        "build on it", "get used to it", "share it", "mark it", "make it stick", "plan next", "keep it going",
        "savour it", "remember it", "note it down", "go further", "lean in", "relax into it", "keep it fun",
        "use it well", "make room for it", "share photos",
    ),
    "status_update": (
        "keep going", "stay on track", "plan next", "keep moving", "measure progress", "set goals",
        "stay motivated", "wrap up", "follow up", "keep it simple", "hold pace", "check what's left",
        "avoid slipping", "note wins", "log it", "review it", "finish strong", "keep notes",
    ),
    "attachment_consultation": (
        "reply", "read it", "see what it asks", "decide", "check key parts", "file it", "act in time",
        "make sense of it", "answer them", "follow up", "check dates", "confirm details", "reply politely",
        "summarise it", "respond", "push back", "clarify things", "keep records", "flag issues", "sign off",
    ),
}

WHAT_IFS = (("What if", "And if", "Suppose", "If", "Say", "Imagine"),
            ("it", "that", "this"),
            ("happens again", "falls through", "changes", "drags on", "gets worse", "takes longer", "costs more",
             "goes sideways", "doesn't last", "stalls", "repeats", "slips", "fizzles", "snowballs", "backfires",
             "goes wrong"), ("", "", "", "later", "again", "somehow", "next time", "soon"))

Q_TAILS = ("", "", "", "now", "this week", "from here", "calmly", "in practice", "first", "sensibly",
           "tomorrow", "quickly", "properly", "at all", "this time", "next", "for real")

SHARE_CLOSERS = (("Just", "Only", "Mostly", "I just", "Really just"), ("wanted", "needed", "had", "thought I'd"),
                 ("to share", "to tell you", "to say it", "to mention it", "to get it out", "you should know"))

SHARE_TAILS = ("", "", "", "tonight", "really", "honestly", "before I forget", "while it's fresh", "I guess")

STATUS_CLOSERS = (("That's", "So that's", "Anyway, that's", "And that's", "Well, that's"),
                  ("the", "my", "today's", "the latest"),
                  ("update", "news", "progress", "status", "report", "situation", "state of play"))

STATUS_TAILS = ("", "", "", "for now", "so far", "on that front", "today", "in short", "basically")

STATUS_NEXT = (("I'll", "Will", "I will"), ("keep you posted", "report back", "update you", "check in again",
                                            "let you know more"), ("", "", "soon", "later", "next week", "tomorrow"))

DOC_VERBS = ("go through", "look over", "read", "check", "skim", "walk me through", "review")

DOC_GOALS = (
    "tell me what matters", "flag anything I should act on", "explain what it means for me",
    "help me decide on a reply", "point out anything urgent", "tell me if I missed something",
    "say whether I need to respond", "pull out the key dates",
)

DOC_SHARE = ("Here's", "I'm attaching", "Sharing", "Attached is", "I've uploaded", "This is")

DOC_ABOUT = ("about", "following", "after", "to do with", "regarding", "linked to")

SECTION_FRAMES = (
    'The part under "{s}" is what I keep rereading.', 'I got a bit lost in the "{s}" section.',
    'The "{s}" section seems to be the important bit.', 'I\'m not sure what to make of "{s}".',
    'Most of what worries me is in "{s}".', 'Could you explain the "{s}" part?',
    'The "{s}" bit reads more seriously than I expected.', 'I skimmed "{s}" but I want to be sure I understood it.',
)

POINT_FRAMES = (
    "If I read it right, {p}.", "As far as I can tell, {p}.", "The gist seems to be that {p}.",
    "It basically says {p}.", "The key point for me: {p}.", "From what I understand, {p}.",
    "One line stands out: {p}.",
)

TABLE_FRAMES = (
    'There\'s a table, "{c}", with {cols}, and I can\'t quite read it.',
    'The table "{c}" lists {cols}; does anything in it look off?',
    'I don\'t know how to use the "{c}" table ({cols}).',
    'Can you help me make sense of the "{c}" table?',
)

CALLBACK_VERBS = ("I set out to", "I decided to", "I made plans to", "I first tried to", "I arranged to",
                  "I went ahead and tried to", "I had a go at trying to")

TITLE_SWAPS = (
    ("have lunch with ", ("grab lunch with ", "meet for lunch with ", "get lunch with ")),
    ("have dinner at ", ("eat at ", "go for dinner at ", "grab dinner at ")),
    ("have dinner with ", ("eat with ", "go for dinner with ", "grab dinner with ")),
    ("do the weekly shop at ", ("get the groceries at ", "do the big shop at ", "stock up at ")),
    ("do the weekly shop", ("get the groceries", "do the big shop", "stock up on food")),
    ("call ", ("phone ", "ring ", "give a call to ")),
    ("visit ", ("go and see ", "drop in on ")),
    ("start reading ", ("begin reading ", "pick up ")),
    ("volunteer at ", ("help out at ", "do a shift at ")),
)

REACT = {
    "casual": ("ok", "ah ok", "makes sense", "fair", "gotcha", "hmm ok", "true", "nice", "oh good point", "ooh",
               "yeah", "okay okay", "huh", "cool", "right"),
    "neutral": ("Okay", "That makes sense", "Fair point", "Good call", "Thanks", "Got it", "Right", "Helpful",
                "Interesting", "I see", "Hm", "True", "Good idea", "Yes", "Sure", "Noted"),
    "formal": ("Thank you", "Helpful", "I see", "Understood", "Fair point", "Noted", "Sensible", "Agreed",
               "Indeed", "Very well", "Quite right", "Certainly", "Useful", "Clear", "Thank you kindly", "Good"),
}

REACT_REFS = ("the bit about {w}", "your {w} point", "the point on {w}", "the {w} idea", "your note on {w}",
              "the {w} suggestion", "the {w} tip", "{w}", "mentioning {w}", "the {w} angle", "that {w} advice")

REACT_VERBS = ("makes sense", "helps", "works", "sounds right", "is useful", "clicks", "is fair", "is clever",
               "rings true", "might work", "I like", "is smart", "is spot on", "is new", "lands", "is worth a go",
               "is gold", "is handy", "is reassuring", "seems wise", "is solid", "hits home", "is good", "I buy")

PARA_SUBJECT_PREDICATES = ("is on my mind", "worries me", "feels unsettled", "needs thought", "is tricky",
                           "has me thinking", "needs sorting", "takes adjusting", "feels big", "feels odd",
                           "is the focus", "matters most", "is the question", "bugs me", "excites me",
                           "feels unclear", "is a lot", "still surprises me")

PARA_OBJECT_LEADS = ("Thinking about", "Worried about", "Still stuck on", "Focused on", "Mulling over",
                     "Curious about", "Planning around", "Unsure about", "Stuck on", "Fretting over",
                     "Pondering", "Excited about", "Nervous about", "Hung up on", "Chewing on", "Still on")

PARA_TAILS = ("", "", "", "honestly", "mostly", "really", "tonight", "again", "still", "a lot", "lately")

FOLLOW_LEADS = ("", "", "", "One more thing:", "Also,", "Follow-up:", "Quick question:", "And",
                "Another question:", "Related:")

WORRY_SUBJECTS = ("The {n} thing", "This {n} business", "The {n} situation", "All this {n} stuff",
                  "The {n} side", "The {n} part", "The {n}", "That {n}", "My {n} saga", "This {n} episode")

WORRY_PREDICATES = {
    "positive": ("is going well", "still feels new", "could slip", "needs to stick", "feels fresh", "is a change",
                 "has me motivated", "feels good", "is promising", "is exciting", "feels right", "is working",
                 "could grow"),
    "negative": ("weighs on me", "still stings", "nags at me", "could repeat", "has me tense", "drains me",
                 "feels unresolved", "annoys me", "keeps me up", "is exhausting", "feels messy", "hurts",
                 "lingers"),
}

WORRY_TAILS = ("", "", "", "so far", "honestly", "a bit", "for now", "already", "still", "somehow")

TITLE_ADJECTIVES = frozenset("long weekly first new last good big small little great next short quick full free "
                             "local weekend daily monthly annual sore early late".split())

KEY_PHRASES = (
    "simple log", "next milestone", "short checklist", "slack", "buffer time", "fixed commitments", "rough slot",
    "reminder", "calendar", "lower-priority things", "pro and con", "someone you trust", "sleeping on it",
    "next action", "small milestones", "daily habits", "short message", "routine", "support", "notes",
    "sticky note", "short walk", "weekly check-in", "deadlines", "folder", "specific question", "summary",
    "options", "control", "small steps", "smaller steps", "worry", "setbacks", "plan", "priorities",
)

SMALL_TALK_OPENERS = (
    "Anyway,", "Unrelated, but", "Funny thing:", "Okay, random:", "Tiny thing, but", "Just saying,",
    "Can we talk about something light?", "Lighter topic:",
    "Random thought, but", "Totally unrelated, but", "Side note:", "Off topic, but", "Not important, but",
    "Can I just say", "Small thing:", "Completely different subject:", "Nothing serious, but",
)

SMALL_TALK_VERBS = ("I keep thinking about", "can we talk about", "what do you make of", "I have to mention",
                    "has anyone else noticed", "I'm a little obsessed with", "I was just enjoying")

SMALL_TALK_COMMENTS = (
    "Made me smile", "Strangely calming", "Such a small thing", "Weird but nice", "Totally random",
    "Hard to ignore", "So silly", "Quite something", "Pure joy",
    "It made my evening", "It was kind of lovely", "It cracked me up", "It was a nice change", "It was a lot",
    "It was oddly satisfying", "It caught me off guard", "I did not expect that", "It was the highlight",
)

SMALL_TALK_QUESTIONS = (
    "Thoughts?", "Am I overthinking it?", "Is there a name for that?", "What's your take?",
    "Ever noticed that?", "Do people talk about this much?",
    "Is that just me?", "Do you have a favourite?", "Any fun facts about it?", "Does that happen a lot?",
    "Why is that, do you think?", "Is that normal?",
)

REQUEST_FRAMES = (
    "Totally unrelated: could you help with {t}?", "Switching topics, I'd love {t}.", "Got a minute for {t}?",
    "Before I forget, {t}?", "Something different: {t}, if you can.", "Can you do me a favour: {t}?",
    "Help with {t}, please?", "Random one, {t}?", "I was wondering about {t}.", "Could I get {t}?",
    "Could you help me with {t}?", "Can I ask you for {t}?", "Quick request: {t}, please?",
    "I need a hand with {t}.", "Would you mind helping with {t}?", "Random question: can you do {t}?",
    "Can you sort me out with {t}?", "Any chance of {t}?",
)

REQUEST_EXTRAS = (
    "Whatever is easiest.", "Two lines would do.", "Nothing elaborate.", "Just curious really.",
    "Quick version please.", "Doesn't need to be perfect.", "Thanks in advance.", "Short and sweet.",
    "Nothing fancy.", "Short is fine.", "Just the basics.", "No rush at all.", "Keep it simple, please.",
    "Something easy would be great.", "A short version is enough.", "I'm curious.",
)

ACK_HEADS = {
    ("positive", "initial"): ("That's lovely news", "Congratulations", "That's great to hear",
                              "What a nice development", "Good for you", "That sounds like a real step forward",
                              "Well done", "How exciting"),
    ("negative", "initial"): ("I'm sorry that was frustrating", "That sounds like a tough day", "Oof, that's hard",
                              "I'm sorry it turned out that way", "That sounds disappointing",
                              "That's a rough outcome", "That must have been draining"),
    ("neutral", "initial"): ("Thanks for telling me", "Got it", "Understood", "Thanks for the update",
                             "Good to know"),
    ("positive", "followup"): ("Good question", "Happy to dig into that", "Sure, let's think it through",
                               "Great question", "Let's look at that"),
    ("negative", "followup"): ("That's a fair worry", "Good question, and an understandable one",
                               "Let's take it one step at a time", "That's a reasonable concern",
                               "It makes sense to ask that"),
    ("neutral", "followup"): ("Good question", "Sure", "Let's look at that", "Happy to help with that"),
}

ACK_TAILS = ("", "", "and thanks for telling me", "and thanks for sharing it", "and it's good you brought it up",
             "and I'm glad you mentioned it")

FILLER_ACKS = ("Sure!", "Of course.", "Happy to help.", "Good one.", "Ha, fair.", "Absolutely.", "Here you go.")

MENTION_FRAMES = ("Noted: {m}.", "Got it: {m}.", "Thanks for the detail ({m}).", "I've made a note of that: {m}.",
                  "Good to know: {m}.", "Understood, {m}.")

DOC_SECTION = ('Start with the "{s}" section; that is usually where the key details sit.',
               'The "{s}" part looks like the one to read most carefully.',
               'I would reread "{s}" once more before deciding anything.')

DOC_POINT = ("The document notes that {p}, which is worth acting on early.",
             "One thing it makes clear is that {p}.", "As it says, {p}, so plan around that.")

DOC_TABLE = ('The "{c}" table lists {cols}; checking each row against your own records is a good habit.',
             'In the "{c}" table, compare the {cols} columns first.')

ADVICE = {
    "information_sharing": (
        "Changes like this often ripple into small daily habits, so it can help to notice what shifts "
        "over the next week.",
        "It might be worth jotting down how you feel about it now, so you can compare later.",
        "If other people are affected, a short message to them early tends to save confusion.",
        "Celebrating small milestones, even quietly, makes it easier to keep going with bigger plans.",
        "New situations usually feel more settled after a couple of weeks of routine."),
    "advice_seeking": (
        "A good first step is to separate what you can control from what you can't, and start with "
        "the former.",
        "Try writing down the two or three options you see, with one honest pro and con for each.",
        "It can help to talk it over with someone you trust before committing to a decision.",
        "Give yourself a small, concrete next action for tomorrow rather than solving everything at once.",
        "If a lot rides on it, sleeping on it before acting is rarely a bad idea.",
        "Setbacks like this are common, and they often teach you what to change for the next attempt."),
    "status_update": (
        "It sounds like you're making steady progress, and keeping a simple log can show how far "
        "you've come.",
        "Now might be a good moment to decide what the next milestone is and when you'd like to reach it.",
        "If anything is still open, a short checklist can keep it from slipping through the cracks.",
        "Remember to leave some slack in your week so one delay doesn't knock everything else over."),
    "scheduling": (
        "Start with the fixed commitments, then place the flexible tasks around them.",
        "Blocking out time on your calendar, even a rough slot, makes plans far more likely to happen.",
        "Leave buffer time between appointments, especially if travel is involved.",
        "A reminder the day before and an hour before usually works well for one-off tasks.",
        "If the week is already full, it's fine to move lower-priority things to the following week."),
    "attachment_consultation": (
        "When reading a document like that, look first for deadlines, amounts and anything that asks "
        "you to reply.",
        "It's worth saving it in a folder you can find later, in case you need to refer back to it.",
        "If something in it is unclear, replying with a short, specific question is usually the fastest fix.",
        "Check whether it requires any action from you, and note the date if it does.",
        "Keeping a one-line summary of each important document makes them much easier to find later."),
}

GENERIC = (
    "Be kind to yourself while things settle; adjusting takes a little time for everyone.",
    "If it helps, we can break this into smaller steps together.",
    "Small routines often make new situations feel manageable much sooner.",
    "It's also worth thinking about what support you might want from friends or family.",
    "Keeping notes on what works and what doesn't will make the next decision easier.",
    "There's no need to get everything perfect straight away.",
    "A short walk or a proper break can make the next step feel a lot clearer.",
    "Writing the next action on a sticky note sounds simple, but it works surprisingly well.",
    "Checking in with yourself at the end of the week is a good way to see what has changed.",
    "Most plans need a small adjustment or two once they meet real life, and that is fine.",
    "If you notice the same worry coming back, it can help to write it down and set it aside until morning.",
    "Progress rarely feels dramatic from the inside, so it is worth looking back now and then.",
)

CHAT = (
    "Little moments like that are often the best part of a day.",
    "It's nice to notice small things in the thick of a busy week.",
    "Those small pleasures are worth savouring.",
    "I always enjoy hearing about things like that.",
    "It's good to have a light moment now and then.",
)

CLOSERS = ("Would you like me to help you plan the next step?", "How are you feeling about it overall?",
           "Want me to set up a reminder or a short checklist?",
           "Is there a part of this you'd like to focus on first?",
           "Let me know if you'd like to talk any of it through.",
           "Shall we sketch out a simple plan together?",
           "What feels like the most useful next step to you?")

FILLER_CLOSERS = ("Want another idea?", "Shall I adjust it?", "Anything else you'd like?",
                  "Would you like a variation?", "Anything else on your mind tonight?", "What else is new?")
