"""How a state fact is said as it now is, in the words a person would use (`my brother Joaquim is doing night
classes in bookkeeping`, not `my brother Joaquim's course is now night classes in bookkeeping`).

Each state attribute of the ontology (tasks/world/ontology.py; events carry their own past-tense frame there) has
a few present-tense frames. A frame names the holder with `{who}` (`I`, `you`, `Maya`, `my sister Ann`) or
`{whose}` (`my`, `your`, `Maya's`, `my sister Ann's`), the value with `{value}` (verbatim) or `{value_a}` (with
`a`/`an` when it names one thing without a determiner: `a sprained left ankle`, but `night classes in
bookkeeping`, `the church choir`), and verbs that agree with `{who}` in square brackets: `[be]` (`am`/`are`/`is`),
`[have]`, any other verb in its base form (`[work]` -> `work`/`works`, by lemminflect); `{their}` is the holder's
possessive pronoun (`my`, `your`, `their`). `relationship` is said of the other person (`{name}`, with its role:
`my classmate Charlie`) and the persona as the speaker names them (`{mine}`: `my`, `your`, `Maya's`; `{self}`:
`I`, `you`, `Maya`). The first and second person are contracted as people write them (`I'm`, `I've joined`).
A frame says the value verbatim, so the clause stays an explicit mention (tasks/dialogue/mentions.py says it in
other words).

Which frame a fact gets is fixed by its id (one fact is always said the same way in clauses; two facts of one
attribute usually differ), so the clause needs no random draw. An attribute without frames (a domain pack's)
keeps the generic `X's <attribute> is now <value>`.
"""

from __future__ import annotations

import functools
import hashlib
import re

from lemminflect import getInflection

from tasks.common.english import INFLECT

DOCTORS_ORDERS = ("{whose} doctor has said {value}", "the doctor's orders are {value}")
"""A restriction the doctor set (travel, running)."""

STATE_FRAMES: dict[str, tuple[str, ...]] = {
    "employer": ("{who} [work] at {value}", "{who} [have] a job at {value} now", "{who} [be] with {value} these days"),
    "occupation": ("{who} [work] as {value_a}", "{who} [be] {value_a} now", "{who} [earn] a living as {value_a}"),
    "income_band": ("{who} [be] on {value_a} income now", "{who} [be] in the {value} pay band now"),
    "work_project": ("{who} [be] working on the {value} now", "{whose} main job at work is the {value} now",
                     "{who} [have] been put on the {value}"),
    "current_book": ("{who} [be] reading {value} at the moment", "{whose} current read is {value}",
                     "{who} [have] got {value} on the go"),
    "hobby_goal": ("{whose} next goal is {value}", "what {who} [be] working towards now is {value}"),
    "course": ("{who} [be] doing {value_a}", "{who} [have] signed up for {value_a}", "{who} [be] taking {value_a}"),
    "home": ("{who} [live] in {value_a} now", "{whose} home these days is {value_a}",
             "{who} [have] moved into {value_a}"),
    "city": ("{who} [live] in {value} now", "{whose} home is in {value} these days", "{who} [be] based in {value} now"),
    "vehicle": ("{who} [have] {value_a} now", "{who} [get] around in {value_a} these days",
                "{whose} wheels these days are {value_a}"),
    "prized_possession": ("{whose} most treasured thing is {value_a}",
                          "{who} [treasure] {value_a} above anything else"),
    "pet": ("{who} [have] {value_a} now", "{who} [live] with {value_a} these days", "{who} [have] taken in {value_a}"),
    "job_title": ("{who} [work] as {value_a} now", "{who} [have] a new job as {value_a}", "{who} [be] {value_a} now"),
    "workplace": ("{who} [work] at {value} now", "{who} [have] started at {value}", "{whose} job is at {value} now"),
    "partner": ("{who} [be] seeing {value} now", "{who} [have] been going out with {value}"),
    "next_city": ("{who} [be] moving to {value}", "{who} [be] off to live in {value} soon",
                  "{who} [have] decided to move to {value}"),
    "side_project": ("{who} [be] starting {value_a}", "{who} [have] {value_a} going on the side",
                     "{who} [have] started {value_a}"),
    "race_goal": ("{who} [be] training for {value}", "{who} [have] signed up for {value}",
                  "{whose} big race this year is {value}"),
    "club": ("{who} [have] joined {value_a}", "{who} [be] part of {value_a} now", "{who} [go] to {value_a} these days"),
    "home_project": ("{who} [be] busy {value}", "{whose} project at home is {value}", "{who} [have] started {value}"),
    "next_holiday": ("{who} [be] going to {value} for {their} next holiday", "{whose} next holiday is in {value}",
                     "{who} [have] booked {value} for {their} next holiday"),
    "grocery_shop": ("{who} [do] the food shopping at {value} now", "{who} [shop] at {value} these days",
                     "{who} [get] the groceries at {value} now"),
    "gym": ("{who} [go] to {value} now", "{who} [be] a member of {value} now", "{who} [train] at {value} these days"),
    "doctor": ("{whose} GP is {value} now", "{who} [be] registered with {value}", "{who} [see] {value} as a GP now"),
    "volunteering": ("{who} [help] out with {value}", "{who} [do] {value} as a volunteer now",
                     "{whose} volunteering these days is {value}"),
    "hobby": ("{who} [have] taken up {value}", "{who} [be] really into {value} these days",
              "{whose} hobby these days is {value}"),
    "favourite_cafe": ("{whose} favourite café is {value} now", "{who} [like] {value} best of all the cafés",
                       "{who} always [end] up at {value} these days"),
    "disliked_cafe": ("{who} [have] gone off {value}", "{who} can't stand {value} any more",
                      "{who} [avoid] {value} these days"),
    "injury": ("{who} [have] {value_a}", "{who} [be] nursing {value_a}", "{who} [be] laid up with {value_a}"),
    "diagnosis": ("{who} [have] been diagnosed with {value_a}", "the doctor says {who} [have] {value_a}"),
    "illness": ("{who} [be] down with {value_a}", "{who} [have] come down with {value_a}"),
    "relationship_status": ("{who} [be] {value} now", "{who} [be] officially {value}"),
    "relationship": ("{mine} {value} {name} is someone {self} [see] a lot",
                     "{self} [be] close to {mine} {value} {name}",
                     "{self} [get] on well with {mine} {value} {name}"),
    "age": ("{who} [be] {value} now", "{who} [be] {value} these days"),
    "school": ("{who} [go] to {value} now", "{who} [have] started at {value}", "{whose} school is {value} now"),
    "work_life": ("{who} [be] {value} now", "{who} [be] {value} these days"),
    "team": ("{who} [work] with {value} now", "{who} [have] moved to {value}", "{whose} team now is {value}"),
    "spending_restriction": ("{who} [have] set a rule: {value}", "the rule for now is {value}"),
    "travel_restriction": DOCTORS_ORDERS,
    "running_restriction": DOCTORS_ORDERS,
    "dating_pause": ("{who} [have] decided on {value}", "the rule {who} [have] set is {value}"),
}
"""State attribute -> present-tense frames saying its value verbatim (the module doc's slots)."""

VACANT_FRAMES = ("{who} [be] {value} now", "{who} [be] {value} these days")
"""For a value meaning the holder has none (`unemployed`, `retired`, `self-employed`)."""
VACANT = frozenset({"unemployed", "retired", "self-employed"})

_ENGINE = INFLECT
_VERB = re.compile(r"\[(\w+)\]")
_DETERMINED = re.compile(r"^(?:a|an|the|my|your|his|her|their|our|some|no)\s", re.IGNORECASE)
_HEAD_END = re.compile(r"\s(?:in|at|on|of|by|for|with|from|named|called)\s.*$")


def frames_of(attribute: str, value: str) -> tuple[str, ...]:
    """The frames for the attribute's value (none: the generic clause)."""
    if value.strip().lower() in VACANT and attribute in ("employer", "occupation", "workplace", "job_title"):
        return VACANT_FRAMES
    return STATE_FRAMES.get(attribute, ())


def pick(fact_id: str, n: int) -> int:
    """The frame index for a fact: fixed by its id."""
    return int(hashlib.sha1(fact_id.encode()).hexdigest()[:8], 16) % n


def with_article(value: str, mine: str = "my") -> str:
    """`sprained left ankle` -> `a sprained left ankle`; kept when it has a determiner, a plural head (`night
    classes in bookkeeping`) or a proper name for a head (`Pulse Gym`, not `Spanish course at Fernhill`); a
    possessive is the holder's (`grandmother's sewing machine` -> `my grandmother's sewing machine`)."""
    v = value.strip()
    if not v or _DETERMINED.match(v) or v[:1].isdigit():
        return v
    if "'s " in v:
        return f"{mine} {v}"
    head = _HEAD_END.sub("", v).split()[-1]
    if head[:1].isupper() or _ENGINE.singular_noun(head) and not head.endswith("ss"):
        return v
    return _ENGINE.a(v)


_CONTRACTED = ((re.compile(r"\bI am\b"), "I'm"), (re.compile(r"\byou are\b"), "you're"),
               (re.compile(r"\b(I|you) have (?=(?:been|got|taken|moved|started|signed|booked|joined|decided|set|gone|"
                           r"come)\b)"), r"\1've "))
"""How people write the first and second person (`I'm`, `I've joined`; `I have a pulled hamstring` stays)."""


@functools.lru_cache(maxsize=4096)
def agree(verb: str, subject: str) -> str:
    """The present tense of `verb` agreeing with `subject` (`I`, `you`, or a third person)."""
    first, second = subject == "I", subject.lower() == "you"
    if verb == "be":
        return "am" if first else "are" if second else "is"
    if first or second:
        return verb
    return (getInflection(verb, "VBZ") or (verb + "s",))[0]


def state_clause(attribute: str, value: str, fact_id: str, who: str, whose: str, name: str, mine: str,
                 self: str) -> str | None:
    """The fact said with one of its attribute's frames (module doc), or None when the attribute has none.
    `mine` and `self` name the persona as the speaker does (`my`/`I`, `your`/`you`, `Maya's`/`Maya`)."""
    frames = frames_of(attribute, value)
    if not frames:
        return None
    frame = frames[pick(fact_id, len(frames))]
    their = {"I": "my", "you": "your"}.get(who, "their")
    text = frame.format(who=who, whose=whose, value=value, value_a=with_article(value, mine), name=name, mine=mine,
                        self=self, their=their)
    subject = self if attribute == "relationship" else who
    text = _VERB.sub(lambda m: agree(m.group(1), subject), text)
    for pattern, repl in _CONTRACTED:
        text = pattern.sub(repl, text)
    return text
