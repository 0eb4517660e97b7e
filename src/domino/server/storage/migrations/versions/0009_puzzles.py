"""Puzzles from finished matches: ``puzzles``, ``puzzle_sources``, ``puzzle_days``,
``puzzle_players``, ``puzzle_tries``.

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-04

The puzzles built from the Patzer of analysed matches (docs/puzzles.md), the matches
they were built from (once each), the puzzle of each day, the accounts' puzzle
ratings and streaks, and each account's first answer per puzzle. Nothing to copy.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        name("puzzles"),
        sa.Column("id", sa.String(80), primary_key=True),
        sa.Column("match_id", sa.String(40), nullable=False),
        sa.Column("round_no", sa.Integer, nullable=False),
        sa.Column("move_no", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("profile_id", sa.String(40), nullable=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("doc", sa.Text, nullable=False),
    )
    op.create_index(f"ix_{name('puzzles_match_id')}", name("puzzles"), ["match_id"])
    op.create_index(f"ix_{name('puzzles_profile_id')}", name("puzzles"), ["profile_id"])
    op.create_table(
        name("puzzle_sources"),
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("candidates", sa.Integer, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("built_at", sa.Float, nullable=False),
    )
    op.create_table(
        name("puzzle_days"),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("puzzle_id", sa.String(80), nullable=False),
    )
    op.create_table(
        name("puzzle_players"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("best_streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_day", sa.String(10), nullable=True),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        name("puzzle_tries"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("puzzle_id", sa.String(80), primary_key=True),
        sa.Column("answer", sa.String(16), nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for table in ("puzzle_tries", "puzzle_players", "puzzle_days", "puzzle_sources"):
        op.drop_table(name(table))
    op.drop_index(f"ix_{name('puzzles_profile_id')}", name("puzzles"))
    op.drop_index(f"ix_{name('puzzles_match_id')}", name("puzzles"))
    op.drop_table(name("puzzles"))
