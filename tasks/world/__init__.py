"""The world stages: profile, simulate (LOOP), evolve, the catalogs and entities, and the world verifier."""
