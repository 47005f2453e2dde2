"""Evaluation harness: memory baselines, retrieval metrics, readers, judges and reports (issue 10)."""
