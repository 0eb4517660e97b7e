"""Alembic's environment for the server's schema.

``domino.server.storage.schema.upgrade`` runs the migrations without this file, on
scripts loaded once per process; Alembic's commands (``stamp``, ``downgrade``,
the ``alembic`` tool) come through here. Both run
:func:`domino.server.storage.schema.run_migrations` on a connection the server already
holds (``connection`` in the Config's attributes: a synchronous connection from
``AsyncConnection.run_sync``), one path for aiosqlite and asyncpg alike. Without
one, it opens an async engine from ``sqlalchemy.url`` like Alembic's ``async``
template.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from domino.server.storage.schema import run_migrations

config = context.config
table_prefix = str(config.attributes.get("table_prefix", ""))


def run(connection: Connection) -> None:
    run_migrations(connection, table_prefix)


async def run_on_own_engine() -> None:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection and no sqlalchemy.url to migrate")
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (--sql) migrations are not supported")
given = config.attributes.get("connection")
if given is not None:
    run(given)
else:
    asyncio.run(run_on_own_engine())
