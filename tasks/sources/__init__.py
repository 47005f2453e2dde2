"""The sources stage: the document planner, emails, journals, reports, noise, chunking and the sources verifier."""
