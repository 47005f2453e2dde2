"""Pydantic models for every record lifeloom produces, and the Arrow schema of each table."""
