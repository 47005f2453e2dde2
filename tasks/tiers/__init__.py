"""Length tiers of a release (README "Length tiers"): per persona, the history a memory system is given at each
token budget, cut from the persona's own sessions and documents or padded with haystack, and the questions that
stay answerable in it.

- model.py: what the builder reads (items, what each question needs, the names a haystack must not hold);
- select.py: the builder (cut, pad, membership, re-derived counts);
- haystack.py, chats.py: the everyday task chats that pad a tier once other personas' material runs out;
- view.py: a release's rows at one tier, for the exporters and the evaluation.
"""
