"""Fencing of match ownership: ``matches.fence`` and ``matches.owner``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03

A node that owns a match holds a fencing token; an append carrying a stale one is
refused (docs/architecture.md). Existing matches start at fence 0, owned by no one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        name("matches"), sa.Column("fence", sa.BigInteger, nullable=False, server_default="0")
    )
    op.add_column(name("matches"), sa.Column("owner", sa.String(64), nullable=True))


def downgrade() -> None:
    # batch mode: SQLite rebuilds the table where it cannot drop a column in place
    with op.batch_alter_table(name("matches")) as batch:
        batch.drop_column("owner")
        batch.drop_column("fence")
