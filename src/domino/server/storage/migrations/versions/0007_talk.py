"""Table talk: ``talk_messages``, ``talk_blocks``, ``talk_reports``, ``talk_mutes``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04

Free-text messages kept with their room (a lobby or a match), who blocked whom,
the reports (*Melden*) for the moderators and the profiles a moderator silenced
(docs/protocol.md "Table talk"). Nothing to copy: there was no talk before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        name("talk_messages"),
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index(name("ix_talk_messages_room_id"), name("talk_messages"), ["room", "id"])
    op.create_table(
        name("talk_blocks"),
        sa.Column("blocker", sa.String(40), primary_key=True),
        sa.Column("blocked", sa.String(40), primary_key=True, index=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        name("talk_reports"),
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer, nullable=False),
        sa.Column("reporter", sa.String(40), nullable=False),
        sa.Column("reported", sa.String(40), nullable=False, index=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.UniqueConstraint("message_id", "reporter", name=name("uq_talk_reports_once")),
    )
    op.create_table(
        name("talk_mutes"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table(name("talk_mutes"))
    op.drop_table(name("talk_reports"))
    op.drop_table(name("talk_blocks"))
    op.drop_index(name("ix_talk_messages_room_id"), name("talk_messages"))
    op.drop_table(name("talk_messages"))
