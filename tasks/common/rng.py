"""The only source of randomness in lifeloom.

Every random choice draws from an RNG derived by hashing (corpus seed, persona id, stage, date,
purpose). Nothing reads the global `random` state, the clock or execution order, so a persona's
rows are the same whether it ran first, last, alone or on another machine.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random


def derive_seed(seed: int, persona_id: str, stage: str, date: dt.date | str | None, purpose: str) -> int:
    """A 64-bit seed from the five coordinates of a random choice."""
    day = date.isoformat() if isinstance(date, dt.date) else (date or "-")
    key = "\x1f".join([str(seed), persona_id, stage, day, purpose])
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def rng_for(seed: int, persona_id: str, stage: str, date: dt.date | str | None, purpose: str) -> random.Random:
    """A private `random.Random` for one purpose; equal coordinates give equal streams."""
    return random.Random(derive_seed(seed, persona_id, stage, date, purpose))


def stable_hash(*parts: object, length: int = 16) -> str:
    """A short hex digest of the parts, for ids and cache keys (never for randomness)."""
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode()).hexdigest()[:length]
