"""Retrieval chunks: documents split into ~chunk_tokens cl100k_base tokens with `overlap` tokens repeated.

The body is cut into units: paragraphs (long ones cut into token windows), headings (which open a
section) and table rows (never split). Units are packed greedily up to the budget; each new chunk
starts with the trailing whole units of the previous one that fit in the overlap. Tokens are counted
with the cl100k_base encoding shipped in the `bpe-openai` package (no download at run time).
"""

from __future__ import annotations

import functools
import hashlib
import html
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from schemas.corpus import Chunk, Document
from schemas.world import Fact
from tasks.common.facttext import carries
from tasks.sources.realized import said_so

HEADING = re.compile(r"^(#{1,6})\s+(.*)$|^<h[1-6][^>]*>(.*?)</h[1-6]>$", re.IGNORECASE)
TAG = re.compile(r"<[^>]+>")


@functools.cache
def encoding():
    """The cl100k_base encoding (bundled with bpe-openai)."""
    import bpe_openai

    return bpe_openai.get_encoding("cl100k_base")


_COUNTED: dict[bytes, int] = {}
"""Token counts by a digest of the text: a build counts the same turns and document bodies three times in one
process (the tier views, the manifest's dialogue figures, the scale gate), and each count is a BPE pass."""
_COUNTED_MAX = 1 << 19


def count_tokens(text: str) -> int:
    """cl100k_base tokens in `text` (ordinary text: a special token's spelling counts as the text it is)."""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    found = _COUNTED.get(key)
    if found is None:
        found = len(encoding().encode_ordinary(text))
        if len(_COUNTED) >= _COUNTED_MAX:  # a bound on memory (about 70 MB), not an eviction policy
            _COUNTED.clear()
        _COUNTED[key] = found
    return found


class Unit(NamedTuple):
    """An atomic piece of a document: its text, section heading and whether it is a table row."""

    text: str
    section: str
    row: bool = False


def is_row(line: str) -> bool:
    """A Markdown table line or an HTML table element line."""
    s = line.strip().lower()
    return s.startswith("|") or s.startswith(("<tr", "<table", "</table", "<thead", "</thead", "<tbody", "</tbody"))


def heading_of(block: str) -> str | None:
    """The heading text if `block` is a single Markdown or HTML heading line, as a reader sees it (an HTML heading's
    entities unescaped, as the RHELM reader and every HTML reader unescape them)."""
    m = HEADING.match(block.strip())
    if m is None or "\n" in block.strip():
        return None
    return html.unescape(TAG.sub("", m.group(2) or m.group(3) or "")).strip()  # "Notes &amp; Next Steps" -> "&"


def units(body: str, budget: int) -> list[Unit]:
    """The body's units in order, each knowing the section it belongs to."""
    out: list[Unit] = []
    section = ""
    for block in (b.strip() for b in re.split(r"\n\s*\n", body)):
        if not block:
            continue
        head = heading_of(block)
        if head is not None:
            section = head
            out.append(Unit(block, section))
        elif all(is_row(line) for line in block.splitlines()):
            out += [Unit(line, section, row=True) for line in block.splitlines()]
        else:
            out += [Unit(text, section) for text in windows(block, budget)]
    return out


def windows(paragraph: str, budget: int) -> list[str]:
    """The paragraph, or word windows of it that each fit in `budget` tokens."""
    if count_tokens(paragraph) <= budget:
        return [paragraph]
    out: list[str] = []
    current: list[str] = []
    for word in paragraph.split():
        if current and count_tokens(" ".join(current + [word])) > budget:
            out.append(" ".join(current))
            current = []
        current.append(word)
    return out + ([" ".join(current)] if current else [])


def joined(group: Sequence[Unit]) -> str:
    """Units as chunk text: table rows on consecutive lines, other units a blank line apart."""
    text = ""
    for prev, unit in zip([None, *group], group, strict=False):
        sep = "" if prev is None else "\n" if prev.row and unit.row else "\n\n"
        text += sep + unit.text
    return text


def pack(items: list[Unit], budget: int, overlap: int) -> list[list[Unit]]:
    """Greedy packing within `budget` tokens; each chunk after the first repeats a tail of whole units
    of at most `overlap` tokens."""
    groups: list[list[Unit]] = []
    current: list[Unit] = []
    fresh = 0  # units in `current` that are not overlap
    for unit in items:
        if current and fresh and count_tokens(joined(current + [unit])) > budget:
            groups.append(current)
            current = tail(current, overlap, budget - count_tokens(unit.text))
            fresh = 0
        current.append(unit)
        fresh += 1
    return groups + ([current] if current else [])


def tail(group: list[Unit], overlap: int, room: int) -> list[Unit]:
    """The longest run of trailing units of `group` within min(overlap, room) tokens."""
    out: list[Unit] = []
    for unit in reversed(group):
        if count_tokens(joined([unit, *out])) > min(overlap, room):
            break
        out.insert(0, unit)
    return out


def section_of(group: Sequence[Unit]) -> str:
    """The section a chunk is in: that of its first unit that is not a heading (else of its last unit)."""
    body = [u for u in group if heading_of(u.text) is None]
    return (body[0] if body else group[-1]).section if group else ""


def chunk_document(doc: Document, chunk_tokens: int, facts: Sequence[Fact] | Mapping[str, Fact] = (),
                   overlap: int = 0) -> list[Chunk]:
    """The document's chunks; a chunk's fact_ids are the document's facts (looked up in `facts`: by id, or a
    sequence in the store's order) whose surface form the chunk's own text carries, or every phrase the document
    records it said in other words. Pass facts by id for a persona's many documents: a sequence is scanned whole
    for each one."""
    if isinstance(facts, Mapping):  # a document lists its facts in the order of the store they were planned from
        claimed = [facts[i] for i in dict.fromkeys(doc.fact_ids) if i in facts]
    else:
        claimed = [f for f in facts if f.fact_id in doc.fact_ids]
    groups = pack(units(doc.body, chunk_tokens), chunk_tokens, overlap)
    chunks = []
    for i, group in enumerate(groups, start=1):
        text = joined(group)
        chunks.append(Chunk(
            chunk_id=f"{doc.doc_id}-c{i:02d}", doc_id=doc.doc_id, persona_id=doc.persona_id,
            created_at=doc.created_at, ordinal=i, text=text, n_tokens=count_tokens(text),
            fact_ids=[f.fact_id for f in claimed if carries(text, f) or said_so(text, doc.realized.get(f.fact_id))],
            section=section_of(group),
        ))
    return chunks
