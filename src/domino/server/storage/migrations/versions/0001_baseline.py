"""Baseline: the schema as ``make_tables`` built it before migrations existed.

Revision ID: 0001
Revises:
Create Date: 2026-12-03

A database made by the old start-up ``create_all`` has exactly these tables and no
version table; :func:`domino.server.storage.schema.upgrade` stamps it with this revision.
Frozen: later changes go into new revisions, never here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

#: The tables of this revision (unprefixed), for stamping a database made by create_all.
TABLES = ("profiles", "tokens", "lobbies", "matches", "match_log", "match_players")


def upgrade() -> None:
    op.create_table(
        name("profiles"),
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("name_key", sa.String(100), unique=True, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(300), nullable=True),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        name("tokens"),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index(f"ix_{name('tokens_profile_id')}", name("tokens"), ["profile_id"])
    op.create_table(
        name("lobbies"),
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index(f"ix_{name('lobbies_status')}", name("lobbies"), ["status"])
    op.create_table(
        name("matches"),
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("lobby", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(100), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("record", sa.Text, nullable=True),
    )
    op.create_index(f"ix_{name('matches_status')}", name("matches"), ["status"])
    op.create_table(
        name("match_log"),
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    op.create_table(
        name("match_players"),
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    op.create_index(f"ix_{name('match_players_profile_id')}", name("match_players"), ["profile_id"])


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(name(table))
