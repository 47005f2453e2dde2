"""What the item sign-off knows of English: relation words and the roles they cover, answer phrases that are
bookkeeping rather than speech, and which requests a restriction really rules out.

Declared here once, independent of the question generators (tasks/signoff/ never imports them), so a generator
cannot confirm its own wording: the sign-off reads a question as a reviewer would, with this lexicon and the world
tables.
"""

from __future__ import annotations

import re

FRIENDS = frozenset({"friend", "best friend", "old friend", "old school friend", "close friend", "gym buddy"})
PARTNERS = frozenset({"partner", "husband", "wife", "fiancé", "fiancée"})
FAMILY = frozenset({"sister", "brother", "cousin", "daughter", "son", "mother", "father", "mum", "dad", "aunt",
                    "uncle", "niece", "nephew", "grandmother", "grandfather", "grandson", "granddaughter",
                    "stepmother", "stepfather"}) | (PARTNERS - {"partner"})
RELATION_WORDS: dict[str, frozenset[str] | None] = {
    "friend": FRIENDS, "best friend": frozenset({"best friend"}), "old friend": frozenset({"old friend"}),
    "old school friend": frozenset({"old school friend"}), "gym buddy": frozenset({"gym buddy"}),
    "relative": FAMILY, "family member": FAMILY,
    **{w: frozenset({w}) for w in sorted(FAMILY - {"mum", "dad"})}, "partner": PARTNERS,
    "mum": frozenset({"mother", "mum"}), "dad": frozenset({"father", "dad"}),
    "colleague": frozenset({"colleague", "manager", "coworker"}), "manager": frozenset({"manager"}),
    "neighbour": frozenset({"neighbour"}), "flatmate": frozenset({"flatmate"}), "mentor": frozenset({"mentor"}),
    "classmate": frozenset({"classmate"}), "ex-partner": frozenset({"ex-partner"}),
}
"""A relation word a question may use for a person -> the roles (relationship values) it is true of. A role
`friend from <place>` counts as a friend."""
RELATION_PATTERN = re.compile(
    r"\b(?P<det>[Mm]y|[Ww]hich|[Tt]he|[Ww]hose|[A-Z][\w-]*['’]s)\s+(?P<word>"
    + "|".join(re.escape(w) for w in sorted(RELATION_WORDS, key=len, reverse=True))
    + r")(?:['’]s)?(?![\w-])(?P<name>\s+[A-Z][\w'’-]+(?:\s+(?:de\s+|da\s+|van\s+|von\s+)?[A-Z][\w'’-]+)*)?")
"""`my sister`, `which friend`, `the friend I hosted`, `Maya's cousin Ana Reyes`: a determiner or possessive, the
relation word and perhaps the name it is said of."""


def role_fits(word: str, role: str) -> bool:
    """True when the relation word `word` is true of a person whose relationship is `role`."""
    allowed = RELATION_WORDS.get(word.lower())
    if allowed is None:
        return True
    return role in allowed or (word.lower() == "friend" and role.startswith("friend from "))


LABEL_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bpaid in full$"), "a ledger entry ('... paid in full'), not what a person calls a bill"),
    (re.compile(r"^(?:family news|catching up|the (?:long )?weekend|a (?:long )?weekend) with\b", re.IGNORECASE),
     "a topic slot joined to a name, not what a person calls a visit"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a field name of the fact store"),
    (re.compile(r"\bp\d{4}-[a-z]\d{3,}"), "an internal id"),
    (re.compile(r"\{[a-z_]+\}"), "an unfilled template slot"),
)
"""Gold answers that are the fact store's bookkeeping rather than a phrase a person would say."""


ACTIVITIES: dict[str, tuple[str, ...]] = {
    "running": (r"\brun(?:s|ning)?\b", r"\bjog", r"\b\d+K\b", r"\bmarathon\b", r"\brace\b"),
    "exercise": (r"\bfitness\b", r"\bexercis", r"\bworkout\b", r"\bgym\b", r"\btraining\b", r"\bhike\b",
                 r"\bhiking\b", r"\bsport\b", r"\bclimb", r"\bcycl"),
    "travel": (r"\btrip\b", r"\btravel", r"\bflight\b", r"\bfly\b", r"\bgoing away\b", r"\bgetaway\b",
               r"\bholiday\b", r"\bweekend away\b", r"\babroad\b"),
    "spending": (r"\bbuy", r"\bpurchase", r"\bspend", r"\bshopping\b", r"\bsplurge", r"\bnew (?:car|laptop|TV)\b"),
    "dating": (r"\bdat(?:e|ing)\b", r"\bdating-app\b"),
}
"""What a request asks to do, read from its words (regular expressions, case-insensitive)."""
COVERS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\bno travel or hard exercise\b"), frozenset({"travel", "exercise", "running"})),
    (re.compile(r"\bno travel\b"), frozenset({"travel"})),
    (re.compile(r"\bno running\b"), frozenset({"running", "exercise"})),
    (re.compile(r"\bno (?:hard )?exercise\b|\bno sport\b"), frozenset({"exercise", "running"})),
    (re.compile(r"\bno non-essential spending\b"), frozenset({"spending", "travel"})),
    (re.compile(r"\bno big purchases\b"), frozenset({"spending"})),
    (re.compile(r"\bno dating\b"), frozenset({"dating"})),
)
"""Each restriction's scope, declared per restriction wording (the first pattern that matches decides): what it
rules out. `no running` rules out running, and a request for exercise is one it bears on (a routine may hold runs);
`no travel` alone (a flight ban) has nothing to say about exercise."""


def request_activities(text: str) -> set[str]:
    """The activities a request asks about (ACTIVITIES); empty when its words name none (`plan my evening`)."""
    return {a for a, pats in ACTIVITIES.items() if any(re.search(p, text, re.IGNORECASE) for p in pats)}


def restriction_scope(description: str) -> frozenset[str] | None:
    """What the restriction described rules out; None for a wording the lexicon does not know."""
    for pattern, scope in COVERS:
        if pattern.search(description):
            return scope
    return None
