"""Ratings: ``matches.rated``, ``ratings`` and ``rating_history``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04

A rated match (matchmaking, or a lobby marked *gewertet*) says so in its row from
its start; its end updates one rating per account and pool (``ratings``) and writes
one history row per account, in the transaction that stores the end (domino.ratings,
storage/ratings.py). The leaderboard is read from ``rating_board``, built from
``ratings`` at most once a minute per pool (``rating_board_built`` says when; its
four rows are made here). Nothing to copy: no match was rated before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        name("matches"),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        name("ratings"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
    )
    op.create_index(
        name("ix_ratings_board"),
        name("ratings"),
        ["pool", "rating", "profile_id", "matches", "last_at"],
    )
    op.create_table(
        name("rating_history"),
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("pool", sa.String(8), nullable=False),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("before", sa.Integer, nullable=False),
        sa.Column("after", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
    )
    op.create_index(
        name("ix_rating_history_profile"), name("rating_history"), ["profile_id", "pool", "at"]
    )

    op.create_table(
        name("rating_board"),
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("place", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("provisional", sa.Boolean, nullable=False),
    )
    op.create_index(name("ix_rating_board_profile"), name("rating_board"), ["profile_id", "pool"])
    built = op.create_table(
        name("rating_board_built"),
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.bulk_insert(built, [{"pool": pool, "at": 0.0} for pool in ("2", "3", "4", "paare")])


def downgrade() -> None:
    op.drop_table(name("rating_board_built"))
    op.drop_table(name("rating_board"))
    op.drop_table(name("rating_history"))
    op.drop_table(name("ratings"))
    with op.batch_alter_table(name("matches")) as batch:
        batch.drop_column("rated")
