"""Persistence: the database, its schema and migrations, and telling an outage from a failure."""
