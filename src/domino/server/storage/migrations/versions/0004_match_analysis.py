"""Post-match analyses: ``match_analysis``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

One row per finished match whose analysis was asked for (docs/analysis.md): the
claim that keeps two nodes from doing the work twice, the progress while it runs,
and the stored result. Nothing to copy: no match had an analysis before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        name("match_analysis"),
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


def downgrade() -> None:
    op.drop_table(name("match_analysis"))
