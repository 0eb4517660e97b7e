"""Lobbies shared by every node: ``lobbies.version`` and ``lobby_members``.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03

Any node may change any lobby (docs/architecture.md, "Lobbies on every node"): a
change is written only over the version it was made from (optimistic
concurrency), and ``lobby_members`` holds who is in which lobby, one row per
profile, so nobody is ever in two lobbies even when two nodes add them at once.
The members of the lobbies that are not closed are copied from their documents.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from domino.server.storage.migrations import name

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        name("lobbies"), sa.Column("version", sa.Integer, nullable=False, server_default="0")
    )
    members = op.create_table(
        name("lobby_members"),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, index=True),
    )
    lobbies = sa.table(
        name("lobbies"),
        sa.column("code", sa.String),
        sa.column("status", sa.String),
        sa.column("data", sa.Text),
    )
    rows = op.get_bind().execute(
        sa.select(lobbies.c.code, lobbies.c.data).where(lobbies.c.status != "closed")
    )
    seen: dict[str, str] = {}
    for code, data in rows:
        doc = json.loads(data)
        pids = [o.get("player") for o in doc.get("seats", []) if o]
        pids += [w[0] for w in doc.get("watchers", [])]
        for pid in pids:
            if pid:
                seen.setdefault(str(pid), str(code))
    if seen:
        op.bulk_insert(members, [{"profile_id": p, "code": c} for p, c in seen.items()])


def downgrade() -> None:
    op.drop_table(name("lobby_members"))
    with op.batch_alter_table(name("lobbies")) as batch:
        batch.drop_column("version")
