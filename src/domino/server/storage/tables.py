"""The schema's tables: :func:`make_tables`, with an optional name prefix.

Alembic migrations (:mod:`.schema`) build the same tables in a database, and a test
holds the two against each other (tests/server/storage/test_migrations.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

__all__ = ["Tables", "make_tables"]


@dataclass(frozen=True)
class Tables:
    """The schema, with an optional name prefix (parallel test runs share a database)."""

    meta: sa.MetaData
    profiles: sa.Table
    tokens: sa.Table
    lobbies: sa.Table
    matches: sa.Table
    log: sa.Table
    players: sa.Table
    members: sa.Table
    analyses: sa.Table
    queue: sa.Table


def make_tables(prefix: str = "") -> Tables:
    """Build the schema's tables named ``{prefix}profiles`` and so on."""
    meta = sa.MetaData()
    profiles = sa.Table(
        f"{prefix}profiles",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        # lower-cased account name; NULL for guests (guests may share names)
        sa.Column("name_key", sa.String(100), unique=True, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(300), nullable=True),
        sa.Column("xp", sa.Integer, nullable=False, default=0),
        sa.Column("played", sa.Integer, nullable=False, default=0),
        sa.Column("won", sa.Integer, nullable=False, default=0),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    tokens = sa.Table(
        f"{prefix}tokens",
        meta,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    lobbies = sa.Table(
        f"{prefix}lobbies",
        meta,
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        # Every stored change increments it; a change made from an older version is
        # refused (optimistic concurrency: any node may change any lobby).
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    )
    # Who is in which lobby that is not closed: one row per profile, so no profile is
    # ever in two lobbies, whichever nodes add it.
    members = sa.Table(
        f"{prefix}lobby_members",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, index=True),
    )
    matches = sa.Table(
        f"{prefix}matches",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("lobby", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(100), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("record", sa.Text, nullable=True),
        # The fencing token: every claim of the match increments it, and an append is
        # refused unless it carries the current one (see Database.append).
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("owner", sa.String(64), nullable=True),
    )
    log = sa.Table(
        f"{prefix}match_log",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    players = sa.Table(
        f"{prefix}match_players",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    # One row per finished match whose analysis was asked for (docs/analysis.md): the row
    # is the claim (inserted once, whichever node asks first), the progress while it is
    # worked on, and the stored result. A claim whose owner stopped reporting (updated_at
    # too old) may be taken over.
    analyses = sa.Table(
        f"{prefix}match_analysis",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
    )
    # The matchmaking queue (issue 23): one row per waiting profile (the primary key keeps
    # anybody from waiting twice); a pairing deletes its rows in the transaction that
    # stores the new lobby and match, so nobody is lost or paired twice.
    queue = sa.Table(
        f"{prefix}queue",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("choice", sa.String(40), nullable=False, index=True),
        sa.Column("wait", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    return Tables(meta, profiles, tokens, lobbies, matches, log, players, members, analyses, queue)
