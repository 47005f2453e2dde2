"""What the assistant says about a document the user shared: how it names it (`the email from the clinic`) and
the notes it makes about its sections, points and tables, none it has made before in the conversation."""

from __future__ import annotations

import random
import re
from typing import Any

from tasks.common.facttext import says_value
from tasks.llm.providers.narrators.realize import listed, second_person, uncap


def doc_phrase(attachment: dict[str, Any] | None) -> str:
    """How a reply names a shared document: `the email from the clinic`, `the entry from your journal`."""
    description = str((attachment or {}).get("description") or "")
    if not description:
        return "it"
    return second_person(re.sub(r"^(?:a|an)\b", "the", description))


def doc_notes(attachment: dict[str, Any], rng: random.Random, said: str = "",
              values: list[str] | tuple[str, ...] = ()) -> list[str]:
    """What the assistant says about a shared document: a section by name, a point, a table's columns; none it
    has already pointed out in the conversation (`said`), no point that says a told value whole (`values`)."""
    out = []
    low = said.lower()
    sections = [h for h in attachment.get("sections") or [] if 0 < len(h.split()) <= 7 and f'"{h.lower()}"' not in low]
    tables = [t for t in attachment.get("tables") or [] if len(str(t.get("caption") or "").split()) <= 7
              and f'"{str(t.get("caption") or "main").lower()}" table' not in low]
    if sections:
        s = rng.choice(sections)
        out.append(rng.choice(SECTION_NOTES).format(s=s))
    points = [p for p in attachment.get("points") or [] if len(p.split()) <= 12
              and uncap(second_person(p).rstrip(".")).lower() not in low and not says_value(p, values)]
    if points:
        p = second_person(rng.choice(points)).rstrip(".")
        out.append(rng.choice((f"It says {uncap(p)}, so that's worth planning around.",
                               f"The main thing I see is that {uncap(p)}.", f"Note that {uncap(p)}.")))
    if tables:
        t = rng.choice(tables)
        cols = [str(c) for c in (t.get("columns") or [])][:3]
        if cols:
            out.append(rng.choice(TABLE_NOTES).format(c=t.get("caption") or "main", cols=listed(cols), last=cols[-1]))
    return out


SECTION_NOTES = ('The "{s}" section looks like the one to read most carefully.',
                 'I\'d start with "{s}", where the key details usually are.',
                 'If you only read one part closely, make it "{s}".', 'The "{s}" part is where I\'d slow down.',
                 'Most of what matters seems to sit under "{s}".')
"""What the assistant says about a section of the document (`{s}`: its heading)."""

TABLE_NOTES = ('In the "{c}" table, I\'d compare the {cols} figures against your own records.',
               'The "{c}" table is worth a slow read: check the {cols} columns line by line.',
               'I\'d look down the {last} column of the "{c}" table first; that\'s where a change shows.',
               'If anything in the "{c}" table surprises you, it will probably be in the {last} column.',
               'The {cols} columns of "{c}" are easy to check against what you remember.')
"""What the assistant says about a table (`{c}` its caption, `{cols}` up to three columns, `{last}` the last)."""
