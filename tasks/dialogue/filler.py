"""Filler topics: small talk and unrelated requests that pad a session between the topics that carry facts.

The dialogue stage picks a kind and a topic from these lists (seeded) and passes `{kind, topic}` to the
`user_turn_filler` and `assistant_turn` prompts. Topics are noun phrases ("a quick recipe for lentil soup",
"the first cold morning of the season") so prompts and offline narrators can slot them into a sentence.
None of them says anything about the user's life: a filler turn carries no fact.
"""

from __future__ import annotations

FILLER_KINDS = ("small_talk", "request")

SMALL_TALK = (
    "the first cold morning of the season",
    "a surprisingly sunny afternoon",
    "the rain that would not stop today",
    "a song that has been stuck in my head",
    "a documentary about octopuses",
    "the new season of a baking show",
    "how fast this year is going",
    "a really good cup of coffee",
    "the sunset this evening",
    "a funny video of a cat and a cucumber",
    "the noisy birds outside the window",
    "a crossword clue I could not crack",
    "a football match on TV",
    "how long Mondays feel",
    "a power nap that went on for too long",
    "the smell of fresh bread from a bakery",
    "a podcast episode about sleep",
    "the full moon tonight",
    "the slow queue at the post office",
    "a new flavour of crisps",
    "how quiet the streets were this morning",
    "a board game that got very competitive",
    "the leaves changing colour",
    "a film everyone keeps talking about",
    "a very chatty cab ride",
    "the tomato plant on the balcony",
    "daylight saving time",
    "a half-finished jigsaw puzzle",
    "an old photo that popped up on my phone",
    "the ice cream van playing its tune in the cold",
    "a wasp that flew indoors",
    "a thunderstorm in the distance",
    "the price of a sandwich these days",
    "a bird that keeps tapping on the window",
)
"""Things to chat about that are about the day, not about the user's life."""

REQUESTS = (
    "a quick recipe for lentil soup",
    "an easy weeknight pasta recipe",
    "a simple banana bread recipe",
    "a vegetarian chili recipe",
    "a five-minute breakfast idea",
    "gift ideas for a coworker who is leaving",
    "gift ideas for a plant lover",
    "a polite email to a landlord about a broken heater",
    "a short thank-you note after a dinner party",
    "a packing list for a weekend hiking trip",
    "a packing list for a beach holiday",
    "a packing list for a business trip",
    "an explanation of compound interest",
    "an explanation of how vaccines work",
    "an explanation of why the sky is blue",
    "an explanation of inflation",
    "an explanation of how a heat pump works",
    "a novel to read on a long train ride",
    "a feel-good film for a rainy evening",
    "a podcast about history",
    "a twenty-minute workout with no equipment",
    "a stretching routine for a stiff back",
    "a beginner running plan",
    "converting 180 degrees Celsius to Fahrenheit",
    "converting 5 miles to kilometres",
    "converting 2 cups of flour to grams",
    "a tip for keeping houseplants alive",
    "a way to get a red wine stain out of a carpet",
    "a way to fall asleep faster",
    "a quick way to clean an oven",
    "a name for a book club",
    "a short message for a birthday card",
    "a board game for four adults",
    "a rainy-day activity for kids",
    "a way to keep cut herbs fresh",
    "the difference between baking soda and baking powder",
    "how to politely decline an invitation",
    "a budget-friendly date night idea",
    "a way to make a small room look bigger",
    "how to boil a perfect egg",
    "a way to remember people's names",
    "a checklist for a car before a long drive",
    "a simple way to start journaling",
    "a haiku about autumn",
)
"""Unrelated requests the assistant can answer helpfully without knowing anything about the user."""

FILLER_TOPICS: dict[str, tuple[str, ...]] = {"small_talk": SMALL_TALK, "request": REQUESTS}
"""Filler topics by kind (`small_talk`, `request`)."""
