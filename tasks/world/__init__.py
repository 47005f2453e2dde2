"""The world stages: profile, loop (the day-by-day simulation), evolve, the catalogs and entities, and the
world verifier."""
