"""Stages: one module per thing produced, each a set of pure functions (plus thin Prefect tasks in flows/)."""
