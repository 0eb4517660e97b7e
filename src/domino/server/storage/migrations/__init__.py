"""Alembic migrations of the server's schema (see :mod:`domino.server.storage.schema`).

Every table name, and the version table's, carries the table prefix of
:class:`domino.server.Settings` (parallel test runs share one PostgreSQL
database). The prefix reaches the scripts through the Alembic ``Config``'s
attributes; a revision script names its tables with :func:`name`.
"""

from __future__ import annotations

from alembic import op


def prefix() -> str:
    """The table prefix of the migration that runs now."""
    config = op.get_context().config
    return str(config.attributes.get("table_prefix", "")) if config is not None else ""


def name(table: str) -> str:
    """``table`` with the prefix of the migration that runs now."""
    return f"{prefix()}{table}"
