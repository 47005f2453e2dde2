"""Shared by every stage: seeded randomness, time helpers and the wording of facts."""
