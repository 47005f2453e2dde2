"""What the offline assistant says to filler turns: a short helpful answer per request topic of
tasks/dialogue/filler.py, and a friendly remark per small-talk topic. Data only; dialogue.py uses it."""

from __future__ import annotations

SHORTER: dict[str, str] = {
    "a polite email to a landlord about a broken heater": (
        "Dear ..., the heater has not worked since [date]; could you send someone to repair it? Many thanks."),
    "a short thank-you note after a dinner party": (
        "Thanks again for a wonderful evening; we loved the food and the company."),
}
"""A drafted answer (ANSWERS) made shorter when asked, in new words rather than the first draft cut down."""

ANSWERS: dict[str, str] = {
    "a quick recipe for lentil soup": (
        "Soften a chopped onion, carrot and celery stick in oil for five minutes, add two cloves of "
        "garlic and a teaspoon of cumin, then 200 g of red lentils, a tin of tomatoes and a litre of stock. "
        "Simmer for 25 minutes, season, and finish with lemon juice."),
    "an easy weeknight pasta recipe": (
        "Cook spaghetti; meanwhile warm oil with sliced garlic and chilli flakes, add a tin of cherry "
        "tomatoes and simmer ten minutes. Toss the pasta in with a splash of its water, then add basil and "
        "grated parmesan."),
    "a simple banana bread recipe": (
        "Mash three ripe bananas, stir in 75 g melted butter, 150 g sugar, one egg and a teaspoon of vanilla, "
        "then fold in 190 g flour with a teaspoon of baking soda and a pinch of salt. Bake in a loaf tin at "
        "175 C for about 55 minutes."),
    "a vegetarian chili recipe": (
        "Fry an onion and a capsicum, add garlic, two teaspoons of chili powder and one of cumin, then two tins "
        "of beans, a tin of tomatoes and a spoon of tomato paste. Simmer 30 minutes and serve with rice, "
        "yoghurt and coriander."),
    "a five-minute breakfast idea": (
        "Overnight oats take two minutes the night before: half a cup of oats, the same of milk, a spoon of "
        "yoghurt and some berries. In the morning, a bagel with peanut butter and banana is the fastest hot option."),
    "gift ideas for a coworker who is leaving": (
        "A good notebook and pen, a plant for the new desk, a voucher for a coffee shop, or a card everyone "
        "signs with a favourite shared memory. A group gift lets each person give a little."),
    "gift ideas for a plant lover": (
        "Good gloves, a soil knife, seeds of something unusual like purple carrots, a kneeling pad, or a "
        "pretty watering can. A book on a plant family they love is a nice personal touch."),
    "a polite email to a landlord about a broken heater": (
        "Something like: Dear ..., I am writing to let you know that the heater stopped working on [date]. "
        "Could you arrange a repair at your earliest convenience? I am available on [times]. Thank you for "
        "your help. Keep a copy and note the date you sent it."),
    "a short thank-you note after a dinner party": (
        "Try: Thank you so much for a lovely evening. The food was wonderful and the company even better. "
        "I had a great time and hope to return the favour soon."),
    "a packing list for a weekend hiking trip": (
        "Layers (base layer, fleece, waterproof), broken-in boots, two pairs of socks per day, a map and "
        "charged phone, water bottle, snacks, a small first-aid kit, sunscreen, a hat and a headtorch."),
    "a packing list for a beach holiday": (
        "Swimwear, a light cover-up, sandals, sunscreen, sunglasses, a hat, a beach towel, a reusable bottle, "
        "a book, a waterproof phone pouch and after-sun lotion."),
    "a packing list for a business trip": (
        "Two outfits that mix and match, comfortable smart shoes, chargers and adapter, laptop, printed "
        "confirmations, business cards, a small toiletry bag and something to sleep in that is not a suit."),
    "an explanation of compound interest": (
        "Compound interest means you earn interest on your interest. If 1,000 grows 5 percent a year, after "
        "one year it is 1,050, and the next year the 5 percent applies to 1,050, so growth speeds up over time."),
    "an explanation of how vaccines work": (
        "A vaccine shows the immune system a harmless piece or version of a germ, so it builds antibodies and "
        "memory cells. If the real germ shows up later, the body recognises it and responds much faster."),
    "an explanation of why the sky is blue": (
        "Sunlight contains every colour, and air molecules scatter short blue wavelengths much more than "
        "long red ones. That scattered blue light reaches your eyes from every direction, so the sky looks blue."),
    "an explanation of inflation": (
        "Inflation is the general rise in prices over time, so the same money buys a little less each year. "
        "Central banks usually aim for about 2 percent a year and raise interest rates when it runs higher."),
    "an explanation of how a heat pump works": (
        "A heat pump moves heat rather than making it: a refrigerant absorbs warmth from outside air or "
        "ground, a compressor concentrates it, and it is released indoors. It works like a fridge in reverse."),
    "a novel to read on a long train ride": (
        "Something absorbing but easy to pick up again: The Remains of the Day by Kazuo Ishiguro, Station "
        "Eleven by Emily St. John Mandel, or a classic mystery such as Murder on the Orient Express."),
    "a feel-good film for a rainy evening": (
        "Paddington 2 is hard to beat; The Grand Budapest Hotel, Chef and Amelie are also warm and funny "
        "without being too sugary."),
    "a podcast about history": (
        "The Rest Is History is lively and wide-ranging, Hardcore History goes very deep, and You're Dead "
        "To Me mixes comedy with real historians."),
    "a twenty-minute workout with no equipment": (
        "Warm up for three minutes, then do four rounds of: 12 squats, 10 push-ups (knees are fine), 12 "
        "lunges, a 30-second plank and 20 jumping jacks, resting a minute between rounds. Stretch to finish."),
    "a stretching routine for a stiff back": (
        "Try cat-cow for a minute, child's pose for 30 seconds, knee-to-chest stretches, a gentle supine "
        "twist each side and a hip flexor stretch. Move slowly and stop if anything hurts sharply."),
    "a beginner running plan": (
        "Three sessions a week: start with one minute running and one and a half walking, eight times. Each "
        "week add a little running time, and after about eight weeks most people can run 30 minutes."),
    "converting 180 degrees Celsius to Fahrenheit": (
        "180 C is 356 F: multiply by 9, divide by 5 and add 32. Ovens usually round it to 350 F."),
    "converting 5 miles to kilometres": (
        "5 miles is about 8.05 kilometres, since one mile is 1.609 km."),
    "converting 2 cups of flour to grams": (
        "About 250 to 260 grams for all-purpose flour, at roughly 125 to 130 g per cup, depending on how "
        "it is spooned."),
    "a tip for keeping houseplants alive": (
        "Water when the top few centimetres of soil are dry rather than on a fixed schedule, make sure pots "
        "drain, and give most plants bright indirect light. Overwatering kills more plants than neglect."),
    "a way to get a red wine stain out of a carpet": (
        "Blot (do not rub) with a cloth, pour on a little cold water and blot again, then apply a paste of "
        "baking soda and water, let it dry and vacuum. A drop of washing-up liquid in water helps too."),
    "a way to fall asleep faster": (
        "Keep the same wake-up time every day, dim screens an hour before bed, keep the room cool, and if "
        "you are awake after 20 minutes get up and read something dull until you feel sleepy."),
    "a quick way to clean an oven": (
        "Spread a paste of baking soda and water inside, leave it overnight, then spray with vinegar and "
        "wipe. Soak the racks in hot water with dishwasher tablets in the bath."),
    "a name for a book club": (
        "Some ideas: Between the Lines, Plot Twist, The Chapter Chasers, Novel Idea, Spine Tinglers or "
        "Read Between the Wines."),
    "a short message for a birthday card": (
        "Happy birthday! Here's to another year of laughs, family chaos and great memories. Hope today is as "
        "brilliant as you are."),
    "a board game for four adults": (
        "Ticket to Ride and Catan are easy to teach, Codenames works well if people like talking, and "
        "Azul is quick and pretty."),
    "a rainy-day activity for kids": (
        "Build a blanket fort, make a treasure hunt with clues around the house, bake simple cookies, or "
        "set up a cardboard-box craft station."),
    "a way to keep cut herbs fresh": (
        "Treat soft herbs like flowers: trim the stems and stand them in a glass of water in the fridge, "
        "loosely covered. Wrap woody herbs in a damp paper towel inside a bag."),
    "the difference between baking soda and baking powder": (
        "Baking soda is pure sodium bicarbonate and needs an acid such as yoghurt or lemon to react; baking "
        "powder already contains the acid, so it works on its own with moisture and heat."),
    "how to politely decline an invitation": (
        "Keep it short and warm: thank them, say you can't make it, and suggest an alternative if you mean "
        "it, for example: Thanks so much for thinking of me, I can't make it this time, but I'd love to "
        "catch up soon."),
    "a budget-friendly date night idea": (
        "Cook a new recipe together, have a picnic in a park, do a free museum evening, or have a film "
        "night with homemade popcorn and a theme."),
    "a way to make a small room look bigger": (
        "Use light colours, a large mirror opposite the window, furniture with visible legs, and vertical "
        "storage; keep surfaces clear and choose one bigger rug rather than several small ones."),
    "how to boil a perfect egg": (
        "Lower eggs into boiling water: six and a half minutes for a jammy yolk, nine to ten for hard-boiled, "
        "then straight into cold water for a few minutes so they peel easily."),
    "a way to remember people's names": (
        "Repeat the name right away in conversation, link it to something vivid about the person, and use "
        "it once more when you say goodbye. Writing it down later helps it stick."),
    "a checklist for a car before a long drive": (
        "Check tyre pressure and tread, oil and coolant levels, screen wash, lights and wipers; pack a "
        "phone charger, water, snacks and a warning triangle, and plan breaks every two hours."),
    "a simple way to start journaling": (
        "Write three lines each evening: one thing that happened, one thing you felt and one thing you are "
        "grateful for. Keep the notebook by the bed so it becomes a habit."),
    "a haiku about autumn": (
        "Here's one: Red leaves drift and fall, the kettle sings in the dusk, scarves come out again."),
}
"""A short helpful answer per request topic (tasks/dialogue/filler.py REQUESTS)."""

SMALL_TALK: dict[str, str] = {
    "the first cold morning of the season": "There is something nice about the first scarf day of the year.",
    "a surprisingly sunny afternoon": "An unexpected sunny afternoon is the best kind of bonus.",
    "the rain that would not stop today": "A long rainy day is perfect for tea and a blanket.",
    "a song that has been stuck in my head": "Earworms are funny; singing the song to the end can help.",
    "a documentary about octopuses": "Octopuses are remarkable: three hearts and a brain in every arm.",
    "the new season of a baking show": "Baking shows are wonderfully calm to watch after a long day.",
    "how fast this year is going": "Years do seem to speed up the busier our weeks get.",
    "a really good cup of coffee": "A great cup of coffee can rescue a whole morning.",
    "the sunset this evening": "Sunsets after a clear day are often the most colourful.",
    "a funny video of a cat and a cucumber": "Cats and cucumbers are a classic internet pairing.",
    "the noisy birds outside the window": "Birds are loudest at dawn, when sound carries best.",
    "a crossword clue I could not crack": "Stepping away from a crossword clue often makes the answer appear.",
    "a football match on TV": "Late goals make a match memorable, whichever side you support.",
    "how long Mondays feel": "Mondays do stretch; a small treat in the afternoon can help.",
    "a power nap that went on for too long": "Naps past 30 minutes can leave you groggy, so that is normal.",
    "the smell of fresh bread from a bakery": "Few things beat the smell of a bakery in the morning.",
    "a podcast episode about sleep": "Sleep research is fascinating, and it is very practical too.",
    "the full moon tonight": "A full moon rising low looks huge, though it is an optical illusion.",
    "the slow queue at the post office": "Post office queues seem to move slowest when you are in a hurry.",
    "a new flavour of crisps": "New crisp flavours can be a gamble; some are surprisingly good.",
    "how quiet the streets were this morning": "Quiet streets early in the day can feel almost cinematic.",
    "a board game that got very competitive": "Board games bring out everyone's competitive side.",
    "the leaves changing colour": "Autumn colours come from pigments revealed as chlorophyll fades.",
    "a film everyone keeps talking about": "When everyone talks about a film it is hard not to be curious.",
    "a very chatty cab ride": "Chatty drivers often have the best stories about their city.",
    "the tomato plant on the balcony": "Tomatoes love sun and regular watering, so a balcony suits them.",
    "daylight saving time": "The clock change takes most people a few days to adjust to.",
    "a half-finished jigsaw puzzle": "Doing the edges first and sorting by colour makes jigsaws easier.",
    "an old photo that popped up on my phone": "Photo memories can be a lovely surprise.",
    "the ice cream van playing its tune in the cold": "An ice cream van in cold weather is optimism itself.",
    "a wasp that flew indoors": "Opening a window and dimming the room usually guides a wasp out.",
    "a thunderstorm in the distance": "Counting seconds between flash and thunder tells you the distance.",
    "the price of a sandwich these days": "Food prices have climbed a lot; making lunch at home adds up.",
    "a bird that keeps tapping on the window": "Birds often tap at their own reflection, especially in spring.",
}
"""A friendly remark per small-talk topic (tasks/dialogue/filler.py SMALL_TALK)."""
