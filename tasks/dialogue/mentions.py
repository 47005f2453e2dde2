"""How a turn mentions a fact, decided before it is written and recorded as it is written (`fact_mentions`).

A mention has a mode:
- `explicit`: the fact's clause, its value in the store's words (`I had falafel wraps at Kebab Corner`);
- `paraphrased`: the value's parts in other words, every part still said (`I went to Kebab Corner and had the
  falafel wraps`): a reader recovers the value, a string match on it does not. Made from the event's plan
  fields with the attribute's frames below, or from the value's own parts with tasks/dialogue/valueparts.py
  (`I've joined Pulse` for `Pulse Gym`, `I'm not allowed to run until 20 March`), so background facts and state
  take it too when their value has a known shape;
- `corrected`: the user first gets one part wrong and puts it right in the same message (`I went to Luigi's and
  had the falafel wraps. Sorry, I mixed that up: it was Kebab Corner, not Luigi's.`): two rows, the slip
  (`counts = false`, its span the wrong clause) and the correction (`counts = true`, its span the correcting
  sentence); the value is only recovered by putting the two together and believing the second;
- `about_other`: the same kind of thing done by someone else, with other values (`That reminds me, my sister Ann
  went to Nando's and had the lamb.`): a distractor, `counts = false`;
- `hypothetical`: the persona's own alternative that did not happen (`I nearly went to Nando's instead.`): a
  distractor, `counts = false`;
- `reference`: the fact named without its value (`my new gym`, `that dinner out`): a follow-up or a callback;
  no evidence of the value.
A distractor's other values come from the event kind's own draw (tasks/world/catalog*.py) on the persona's
profile, so they are the kind of thing this person would do; one is used only when its words carry no surface
form of any of the persona's facts (a distractor never states, anticipates or contradicts the fact store).
- `split`: the value said over two turns of its topic: the opening names one part (`I went to Kebab Corner for
  dinner`), the first follow-up adds the other (`I had the falafel wraps, by the way`): two rows, both counting,
  each span the sentence with its half; neither alone is evidence of the value, together they are.
- `implied`: the value's parts said with a consequence of the fact, never its own predicate (`I couldn't finish
  the falafel wraps; Kebab Corner doesn't do small portions`; `my running shoes have to stay in the cupboard until
  20 March`): a reader infers the fact; frames in tasks/dialogue/implied.py, for the persona's own facts only.
  A share `dialogue.corrected_later` of corrected mentions is put right in a LATER session instead
  (tasks/dialogue/latefix.py): the opening says only the slip (`I went to Luigi's and had the falafel wraps`; one row,
  `counts = false`, the fact not claimed there) and a one-turn topic some days later puts it right (`I got something
  wrong when I told you about that dinner out last Tuesday. I said Luigi's, but I went to Kebab Corner and had the
  falafel wraps.`; one row, `counts = true`, its span the correcting sentence, which says the whole value). A memory
  that keeps only what it heard first answers with the slip.
schemas/corpus.py MENTION_MODES declares the modes.

`dialogue.mention_modes` sets the share of each mode among the opening mentions that can take it (defaults:
paraphrased 0.55, implied 0.2, corrected 0.06, split 0.08, about_other 0.12, hypothetical 0.08). `corrected`,
`split`, `implied` and `paraphrased` share one draw (a mention is one of them, the rest explicit; split only in a
topic with follow-ups; an implied one whose fact has no implied frame is paraphrased); a distractor is a second
draw, at most one per fact.
The choice is seeded per bullet, so it never depends on wording attempts.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field
from typing import Any

from schemas.config import BuildConfig
from schemas.corpus import Turn
from schemas.profile import Persona
from schemas.world import Fact, Plan, World
from tasks.common import worldindex
from tasks.common.facttext import capital, carries_first, first_name, holder, mentions, who
from tasks.common.rng import rng_for
from tasks.dialogue import implied
from tasks.dialogue.bullets import SENTENCE
from tasks.dialogue.valueparts import DERIVED, FRAMES, PERSONA_ONLY, frames_for, value_parts
from tasks.world.catalog import KINDS

PARAPHRASES: dict[str, tuple[str, ...]] = {
    "dinner_out": ("{who} went to {restaurant} and had the {dish}",
                   "{who} ended up ordering the {dish}, at {restaurant}"),
    "cafe_visit": ("{who} stopped at {cafe} and got {drink}", "{who} grabbed {drink} from {cafe}"),
    "hobby_session": ("{who} put in some time on {hobby}, over at {spot}", "{who} went to {spot} for some {hobby}"),
    "concert": ("{who} went to {venue} to see {artist}", "{who} caught {artist} live, at {venue}"),
    "course": ("{who} signed up at {school} to learn {subject}",),
    "current_book": ("{who} started {author}'s {book}", "{who} picked up {book}, the one by {author}"),
    "trip": ("{who} spent a {length} break in {city}", "{who} got away to {city} for a {length} break"),
    "volunteering": ("{who} started helping out at {org}, on {task}", "{who} took on {task} for {org}"),
    "evening_out": ("{partner} and I spent the evening at {place}", "{who} took {partner} to {place}"),
    "celebration": ("{who} marked the {milestone} at {venue}",),
    "bill_paid": ("{who} cleared the whole {bill}", "{who} paid off the {bill} completely"),
    "financial_shock": ("the {bill} came to {amount}, which hit hard", "{who} was landed with a {bill} of {amount}"),
    "lunch_cancelled": ("{colleague} and I had to call off our lunch",),
    "dinner_cancelled": ("our dinner plans at {restaurant} fell through",),
    "wasted_shop": ("{who} went all the way to {market} for nothing",),
    "trip_cancelled": ("{who} had to call off going to {city}",),
    "evening_cancelled": ("we never made it to {place} in the end",),
    "move_fell_through": ("{who} lost the place at {address}",),
    "relationship_status": ("{partner} and I are properly together now",),
    "home": ("{who} moved into the flat at {address}", "the new place is a flat on {address}"),
    "abandoned_book": ("{who} gave up on {book} halfway through, the {author} one",
                       "{who} couldn't get into {author}'s {book} and put it down"),
    "session_rained_off": ("the rain put a stop to {hobby} at {spot}", "{who} got rained off at {spot}, so no {hobby}"),
    "course_cancelled": ("the {subject} classes at {school} were called off",),
    "family_visit": ("{relative} and I got together for {topic}",),
    "race_result": ("{who} ran {race} and finished in {minutes} minutes", "{who} did {race} in {minutes} minutes flat"),
    "gig_cancelled": ("the {artist} show was cancelled",),
    "project_on_hold": ("the {project} work has been put on hold",),
    "purchase_fell_through": ("buying the {vehicle} fell through",),
    "appointment": ("{who} went to {place} for a {service}", "{who} booked in at {place} for a {service}"),
    "appointment_missed": ("{who} never made it to {place} for the {service}",),
}
"""Attribute -> other frames for its value, made of the plan's fields (every field the value names appears)."""


SPLITS: dict[str, tuple[str, str]] = {
    "dinner_out": ("{who} went to {restaurant} for dinner", "I had the {dish}, by the way"),
    "cafe_visit": ("{who} stopped by {cafe}", "I got {drink} there, by the way"),
    "concert": ("{who} went to a gig at {venue}", "It was {artist} playing, by the way"),
    "trip": ("{who} got away to {city}", "It was a {length} trip in the end"),
    "race_result": ("{who} ran {race}", "My time was {minutes} minutes, in the end"),
    "current_book": ("{who} started reading {book}", "It's by {author}, by the way"),
    "volunteering": ("{who} started helping out at {org}", "I'm on {task} there"),
    "hobby_session": ("{who} put in some time on {hobby}", "I was at {spot} for it"),
}
"""Attribute -> (what the opening says, what the first follow-up adds) for mode `split`: the value needs both turns
(`I went to Kebab Corner for dinner` ... `I had the falafel wraps, by the way`)."""


HYPOTHETICALS: dict[str, tuple[str, ...]] = {
    "dinner_out": ("I nearly went to {restaurant} instead", "next time I might try the {dish} at {restaurant}"),
    "cafe_visit": ("I almost got {drink} at {cafe} instead", "next time I might try {cafe}"),
    "hobby_session": ("I'd thought about {hobby} at {spot} instead", "I might give {hobby} a go at some point"),
    "concert": ("I nearly went to see {artist} at {venue} instead", "I'd love to see {artist} one day"),
    "course": ("I also looked at learning {subject} at {school}, but I didn't sign up",),
    "current_book": ("I was tempted by {book} too, but I haven't started it",
                     "{author}'s {book} is next on my list, if I ever get to it"),
    "trip": ("we'd talked about {city} instead, but it never happened", "one day I'd like to see {city}"),
    "volunteering": ("I'd considered {task} at {org}, but I never followed it up",),
    "evening_out": ("we nearly went to {place} instead",),
    "home": ("I'd also looked at a flat on {address}, but it didn't work out",),
}
"""Attribute -> the persona's own alternative that did not happen (mode `hypothetical`), in other values."""

OTHERS: dict[str, tuple[str, ...]] = {
    "dinner_out": ("{who} swears by the {dish} at {restaurant}",
                   "{who} went to {restaurant} recently and had the {dish}"),
    "cafe_visit": ("{who} always gets {drink} at {cafe}", "{who} keeps telling me to try {cafe}"),
    "hobby_session": ("{who} has been doing {hobby} at {spot}", "{who} has got really into {hobby}"),
    "concert": ("{who} has seen {artist} at {venue}", "{who} is a huge fan of {artist}"),
    "course": ("{who} is learning {subject} at {school}", "{who} did a {subject} course at {school}"),
    "current_book": ("{who} is reading {book}", "{who} keeps recommending {author}'s {book}"),
    "trip": ("{who} has just been to {city} for a {length} break", "{who} keeps going on about {city}"),
    "volunteering": ("{who} does {task} at {org}", "{who} volunteers at {org}"),
    "home": ("{who} has just moved into a flat on {address}",),
}
"""Attribute -> what someone close to the persona does of the same kind (mode `about_other`), in other values."""

OTHER_LINES = ("That reminds me, {c}.", "{C}, so we compared notes.", "{C}, which got me thinking.",
               "{C}, as it happens.", "Funnily enough, {c}.")
CORRECTIONS = ("Sorry, I mixed that up: it was {real}, not {wrong}.", "Actually, it was {real}, not {wrong}.",
               "Wait, I tell a lie: it was {real}, not {wrong}.", "No, hang on, it was {real} rather than {wrong}.")


@dataclass(frozen=True)
class Realization:
    """How one fact is to be said in a turn: the clause, its mode, and the phrases that carry the value. A
    `corrected` one also has the clause said first (`wrong`, one part `slip` instead of `right`) and the correcting
    sentence (`correction`), which follows it."""

    fact_id: str
    mode: str
    clause: str
    parts: tuple[str, ...]
    wrong: str | None = None
    correction: str | None = None
    slip: str | None = None
    right: str | None = None
    rest: str | None = None
    """A `split` one's sentence for the first follow-up, with the part the opening left out (`rest_parts`)."""
    rest_parts: tuple[str, ...] = ()
    late: str = ""
    """A `corrected` one put right in a later session (tasks/dialogue/latefix.py): `slip` in the opening, which says
    only `wrong`; `fix` in the later turn, which says `clause` (every part of `parts`) and not `slip`."""


@dataclass(frozen=True)
class Distractor:
    """A sentence about the fact's kind of thing that is not the fact (mode `about_other` or `hypothetical`): said
    after the fact, recorded with `counts = false`, its words carrying none of the persona's facts."""

    fact_id: str
    mode: str
    sentence: str
    parts: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class MentionPlan:
    """Per fact of a bullet's opening, its realization (None: explicit) and the distractors said with them."""

    realized: list[Realization | None]
    distractors: list[Distractor]


def plan_of(fact: Fact, world: World) -> Plan | None:
    """The plan behind a story fact's event, or None (background facts)."""
    found = worldindex.index(world)
    return found.plan_of(found.events.get(fact.event_id))


def value_fields(fact: Fact, world: World) -> dict[str, str]:
    """The fields of the plan behind a story fact's event (`dish`, `restaurant`); {} for background facts.
    `paraphrase` uses them only when every field its frame names is part of the value."""
    plan = plan_of(fact, world)
    return {k: str(v) for k, v in plan.entity.items() if str(v).strip()} if plan is not None else {}


def usable_frame(fact: Fact, persona: Persona, world: World, pick: float,
                 banks: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = (PARAPHRASES, FRAMES),
                 ) -> tuple[str, dict[str, str]] | None:
    """A frame of the fact's attribute (`pick`, 0..1, chooses among the usable ones) with its fields: from the first
    bank, of the plan's fields (PARAPHRASES), or from the second, of the value's own parts (valueparts.FRAMES), when
    the frame says every part it names, each a phrase of the value or one said another way (valueparts.DERIVED),
    and never the value verbatim; else None. `banks` defaults to the paraphrase frames; the implied frames
    (tasks/dialogue/implied.py) are used the same way."""
    speaker = {"who": who(fact, persona, "first"), "whose": holder(fact, persona, "first")}
    options: list[tuple[str, dict[str, str]]] = []
    plan_bank, value_bank = banks
    plan_fields = value_fields(fact, world) if fact.attribute in plan_bank else {}
    own = fact.subject == persona.name or fact.attribute not in PERSONA_ONLY
    year = fact.valid_from.year if fact.valid_from else None
    parts = value_parts(fact, persona, year) if frames_for(fact, value_bank) and own else {}
    for frames, fields in ((plan_bank.get(fact.attribute, ()), plan_fields), (frames_for(fact, value_bank), parts)):
        for frame in frames if fields else ():
            names = frame_fields(frame)
            if any(n not in fields for n in names) or not all(
                    n in DERIVED or mentions(fact.value, fields[n]) for n in names):
                continue
            if not mentions(frame.format(**speaker, **fields), fact.value):
                options.append((frame, fields))
    if not options:
        return None
    return options[min(len(options) - 1, int(pick * len(options)))]


def paraphrase(fact: Fact, persona: Persona, world: World, pick: float) -> Realization | None:
    """The fact in other words (mode `paraphrased`), or None when its attribute has no frame or the plan's
    fields do not make up its value. `pick` (0..1) chooses among the frames."""
    found = usable_frame(fact, persona, world, pick)
    return None if found is None else _realized(fact, persona, *found, "paraphrased")


def implication(fact: Fact, persona: Persona, world: World, pick: float) -> Realization | None:
    """The fact said by what follows from it (mode `implied`: tasks/dialogue/implied.py), or None when its
    attribute has no such frame or the parts do not make up its value. `pick` (0..1) chooses among the frames; a
    frame that speaks as the persona (no `{who}` or `{whose}`) is used only for the persona's own facts and
    relationships."""
    own = fact.subject == persona.name or fact.attribute == "relationship"
    banks = tuple({k: tuple(f for f in frames if own or "{who" in f) for k, frames in bank.items()}
                  for bank in (implied.PLAN_FRAMES, implied.VALUE_FRAMES))
    found = usable_frame(fact, persona, world, pick, banks)
    return None if found is None else _realized(fact, persona, *found, "implied")


def _realized(fact: Fact, persona: Persona, frame: str, fields: dict[str, str], mode: str) -> Realization:
    """The frame said by the persona about the fact's holder, as a Realization of `mode`."""
    clause = _DOUBLED.sub(r"\1", frame.format(who=who(fact, persona, "first"), whose=holder(fact, persona, "first"),
                                            **fields))
    return Realization(fact.fact_id, mode, clause, said_parts(frame, fields))


_DOUBLED = re.compile(r"\b(the|a|an) \1\b", re.IGNORECASE)
"""`the the Night Owls show`: a frame's article before a field that has its own."""


def said_parts(frame: str, fields: dict[str, str]) -> tuple[str, ...]:
    """The phrases a frame's clause says the value with (an empty optional part, `hard_words`, says nothing)."""
    return tuple(fields[n].strip() for n in frame_fields(frame) if fields[n].strip())


def frame_fields(frame: str) -> list[str]:
    """The plan fields a frame names, `who` aside."""
    return [n for _, n, _, _ in string.Formatter().parse(frame) if n and n not in ("who", "whose")]


def alternative(fact: Fact, persona: Persona, world: World, names: list[str], rng: random.Random,
                tries: int = 8) -> dict[str, str] | None:
    """Other values for the named plan fields, from the event kind's own draw on the persona's profile: each
    different from the real one and naming none of the persona's facts; None when no draw gives them."""
    plan = plan_of(fact, world)
    kind = KINDS.get(plan.kind) if plan is not None else None
    real = value_fields(fact, world)
    if kind is None or not names or any(n not in real for n in names):
        return None
    view = persona.profile.model_dump(mode="json") | {"_world": {}}
    forms = worldindex.index(world).forms_by_word()  # the world's facts are all the persona's

    def names_a_fact(text: str) -> bool:
        words = set(re.findall(r"\w+", text.lower())) | {""}
        return any(mentions(text, form) for word in words for form in forms.get(word, ()))
    for _ in range(tries):
        try:
            drawn = kind.draw(rng, view)
        except (KeyError, IndexError, ValueError, TypeError):
            return None
        alt = {n: str(drawn.get(n, "")).strip() for n in names}
        if all(alt[n] and not mentions(alt[n], real[n]) and not mentions(real[n], alt[n])
               and not names_a_fact(alt[n]) for n in names):
            return alt
    return None


def other_person(persona: Persona, world: World, fact: Fact, pick: float) -> str | None:
    """Someone close to the persona who is not part of the event, as the persona names them (`my sister Ann`)."""
    taken = set(value_fields(fact, world).values())
    people = [r for r in persona.profile.relationships if r.name not in taken and r.role.strip()]
    if not people:
        return None
    r = people[min(len(people) - 1, int(pick * len(people)))]
    return f"my {r.role.strip().lower()} {first_name(r.name)}"


def corrected(fact: Fact, persona: Persona, world: World, rng: random.Random) -> Realization | None:
    """The fact said with one part wrong, then put right (mode `corrected`), or None when it has no paraphrase
    frame or no other value can be drawn for the part."""
    found = usable_frame(fact, persona, world, rng.random())
    if found is None:
        return None
    frame, fields = found
    names = frame_fields(frame)
    part = rng.choice(names)
    alt = alternative(fact, persona, world, [part], rng)
    if alt is None:
        return None
    speaker = {"who": who(fact, persona, "first"), "whose": holder(fact, persona, "first")}
    correction = rng.choice(CORRECTIONS).format(real=fields[part], wrong=alt[part])
    return Realization(fact.fact_id, "corrected", frame.format(**speaker, **fields), said_parts(frame, fields),
                       frame.format(**speaker, **(fields | alt)), correction, alt[part], fields[part])


def split(fact: Fact, persona: Persona, world: World) -> Realization | None:
    """The fact said over two turns (mode `split`): the opening names one part, the first follow-up adds the other;
    None when its attribute has no such frames or the plan's fields do not make up its value."""
    frames = SPLITS.get(fact.attribute)
    fields = value_fields(fact, world)
    if frames is None or fact.subject != persona.name:
        return None
    first, rest = frames
    names = frame_fields(first) + frame_fields(rest)
    if any(n not in fields or not mentions(fact.value, fields[n]) for n in names):
        return None
    speaker = {"who": who(fact, persona, "first"), "whose": holder(fact, persona, "first")}
    opening, added = first.format(**speaker, **fields), capital(rest.format(**speaker, **fields)) + "."
    if mentions(opening, fact.value) or mentions(added, fact.value):
        return None
    return Realization(fact.fact_id, "split", opening, said_parts(first, fields), rest=added,
                       rest_parts=said_parts(rest, fields))


def distractor(fact: Fact, persona: Persona, world: World, mode: str, rng: random.Random) -> Distractor | None:
    """A sentence about someone else doing the same kind of thing (`about_other`) or the persona's own
    alternative that did not happen (`hypothetical`), in other values; None when the attribute has no frame,
    nobody fits or no other values can be drawn."""
    frames = (OTHERS if mode == "about_other" else HYPOTHETICALS).get(fact.attribute, ())
    if not frames or fact.subject != persona.name:
        return None
    frame = rng.choice(frames)
    names = frame_fields(frame)
    alt = alternative(fact, persona, world, names, rng)
    if alt is None:
        return None
    if mode == "hypothetical":
        return Distractor(fact.fact_id, mode, capital(frame.format(**alt)) + ".", tuple(alt[n] for n in names))
    person = other_person(persona, world, fact, rng.random())
    if person is None:
        return None
    c = frame.format(who=person, **alt)
    line = rng.choice(OTHER_LINES).format(c=c, C=capital(c))
    return Distractor(fact.fact_id, mode, line, tuple(alt[n] for n in names))


def planned(config: BuildConfig, persona: Persona, world: World, facts: list[Fact], bullet_id: str,
            day, followed: bool = True) -> MentionPlan:
    """Per fact of a bullet's opening: corrected, split (only when a follow-up comes: `followed`), implied or
    paraphrased with the configured shares (one draw; an implied one with no frame is paraphrased instead), else
    None (explicit); and a distractor with the about_other or hypothetical share (a second draw)."""
    shares = config.stages.dialogue.mention_modes
    rng = rng_for(config.seed, persona.persona_id, "dialogue", day, f"mentions:{bullet_id}")
    out: list[Realization | None] = []
    distractors: list[Distractor] = []
    for fact in facts:
        draw, pick, other = rng.random(), rng.random(), rng.random()
        fixed = shares.get("corrected", 0.0)
        halves = fixed + (shares.get("split", 0.0) if followed else 0.0)
        r = None
        if draw < fixed:
            r = corrected(fact, persona, world, rng)
        elif draw < halves:
            r = split(fact, persona, world)
        elif draw < halves + shares.get("implied", 0.0):
            r = implication(fact, persona, world, pick) or paraphrase(fact, persona, world, pick)
        elif draw < halves + shares.get("implied", 0.0) + shares.get("paraphrased", 0.0):
            r = paraphrase(fact, persona, world, pick)
        out.append(r)
        about = shares.get("about_other", 0.0)
        mode = "about_other" if other < about else "hypothetical" if other < about + shares.get(
            "hypothetical", 0.0) else None
        d = distractor(fact, persona, world, mode, rng) if mode else None
        if d is not None:
            distractors.append(d)
    return MentionPlan(out, distractors)


def sentence_with(text: str, parts: tuple[str, ...]) -> str | None:
    """The first sentence of `text` that holds every part, or None."""
    for s in SENTENCE.split(text):
        if parts and all(mentions(s, p) for p in parts):
            return s.strip()
    return None


def turn_mentions(turn: Turn, facts: dict[str, Fact], realized: dict[str, Realization], earlier: list[Turn],
                  distractors: list[Distractor] | tuple[Distractor, ...] = (),
                  halves: tuple[str, ...] = ("first", "rest"), live: bool = False,
                  judged: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """What a committed turn mentions: each fact it states (corrected when it has the slip and the correcting
    sentence, paraphrased when it says every part of the planned paraphrase and not the value, else explicit),
    each it names without its value (reference), each planned distractor it says (a user turn), and, for a
    reply, each fact told earlier in the session that it repeats. A split fact's half is recorded only in the turn
    meant to say it (`halves`: `first` in the opening, `rest` in the first follow-up): the dish named in a
    follow-up's reaction is not the opening's half. With a real model (`live`) each mention is checked by its
    `wording`, and a fact the fact_check call judged the text to convey (`judged`) without a surface form or the
    planned words is recorded in its planned mode (paraphrased unless implied), without a span."""
    out = []
    for r in realized.values() if turn.role == "user" and "first" in halves else ():
        said = sentence_with(turn.text, (r.slip,)) if r.late == "slip" and r.slip else None
        if said is not None:  # the slip alone, put right in a later session: not evidence of the value
            out.append({"fact_id": r.fact_id, "mode": "corrected", "span": said, "counts": False})
    for fid in turn.fact_ids:
        fact, r = facts[fid], realized.get(fid)
        if r is not None and r.late == "fix":  # the later correction, which says the whole value
            span = sentence_with(turn.text, r.parts) or next((f for f in fact.surface_forms
                                                               if mentions(turn.text, f)), None)
            out.append({"fact_id": fid, "mode": "corrected", "span": span, "counts": True})
            continue
        fix = sentence_with(turn.text, (r.right, r.slip)) if r is not None and r.slip and r.right else None
        slip = next((s for s in SENTENCE.split(turn.text) if r is not None and r.slip and mentions(s, r.slip)
                     and not mentions(s, r.right or "")), None)
        whole = r is not None and all(mentions(turn.text, p) for p in r.parts) and not carries_first(turn.text, fact)
        added = r is not None and r.mode == "split" and bool(r.rest_parts) and all(
            mentions(turn.text, p) for p in r.rest_parts) and not carries_first(turn.text, fact)
        if r is not None and r.mode == "split":
            whole, added = whole and "first" in halves, added and "rest" in halves
        if r is not None and r.mode == "split" and (whole or added):  # each half is needed: both count
            out += [{"fact_id": fid, "mode": "split", "counts": True, "span": sentence_with(turn.text, half)}
                    for half, said in ((r.parts, whole), (r.rest_parts, added)) if said]
        elif whole and fix and slip:
            out.append({"fact_id": fid, "mode": "corrected", "span": slip.strip(), "counts": False})
            out.append({"fact_id": fid, "mode": "corrected", "span": fix, "counts": True})
        elif whole:
            span = r.clause if mentions(turn.text, r.clause) else sentence_with(turn.text, r.parts)
            out.append({"fact_id": fid, "mode": "implied" if r.mode == "implied" else "paraphrased", "span": span,
                        "counts": True})
        elif fid in judged:  # judged to convey it without its first surface form: the name it keeps is the span
            out.append({"fact_id": fid, "mode": "implied" if r is not None and r.mode == "implied" else "paraphrased",
                        "span": next((f for f in fact.surface_forms if mentions(turn.text, f)), None), "counts": True,
                        "checked_by": "fact_check"})
        else:
            span = next((f for f in fact.surface_forms if mentions(turn.text, f)), None)
            out.append({"fact_id": fid, "mode": "explicit", "span": span, "counts": True})
    out += [{"fact_id": fid, "mode": "reference", "span": None, "counts": False} for fid in turn.paraphrase_ids]
    if turn.role == "user":
        for d in distractors:
            span = sentence_with(turn.text, d.parts)
            if span is not None:
                out.append({"fact_id": d.fact_id, "mode": d.mode, "span": span, "counts": False})
    if turn.role == "assistant":  # a repeat counts when it says the value whole, else it only names the fact
        for fid in dict.fromkeys(i for t in earlier for i in t.fact_ids):
            span = next((f for f in facts[fid].surface_forms if mentions(turn.text, f)), None)
            if span is not None:
                whole = carries_first(turn.text, facts[fid])
                out.append({"fact_id": fid, "mode": "explicit" if whole else "reference", "span": span,
                            "counts": whole})
    checked = "wording" if live else "realizer"
    return [{"checked_by": checked, **m, "evidence_id": turn.turn_id} for m in out]
