"""The matchmaking queue: ``queue``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04

One row per profile waiting in *Mit Menschen spielen* (issue 23): the choice (seats,
Paare, mode), the longest wait, the rating it was paired by and when it came. Nothing
to copy: nobody waited before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        name("queue"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("choice", sa.String(40), nullable=False),
        sa.Column("wait", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    op.create_index(f"ix_{name('queue_choice')}", name("queue"), ["choice"])


def downgrade() -> None:
    op.drop_index(f"ix_{name('queue_choice')}", name("queue"))
    op.drop_table(name("queue"))
