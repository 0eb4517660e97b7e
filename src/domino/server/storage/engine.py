"""The storage's engine: one async SQLAlchemy engine on SQLite (WAL) or PostgreSQL, the
schema's tables and the write serialisation every part of the storage shares.

Every write is its own short transaction, committed before the caller goes on, so an
entry is on disk before any client hears of it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from domino.server.storage.tables import make_tables

__all__ = ["CONNECT_TIMEOUT", "PING_AFTER", "Core", "dumps", "sqlite_pragmas"]

#: Seconds a new PostgreSQL connection may take to open.
CONNECT_TIMEOUT = 10.0
#: A pooled PostgreSQL connection idle this long is pinged before it is handed out.
PING_AFTER = 2.0


def dumps(value: Any) -> str:
    """A JSON column's text.

    >>> dumps({"a": [1, "ä"]})
    '{"a":[1,"ä"]}'
    """
    # The same compact text as json.dumps(separators=(",", ":"), ensure_ascii=False).
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Core:
    """The engine, the tables and the write lock: what every part of the storage
    (profiles, lobbies, matches, the match log, analyses) works on."""

    def __init__(self, url: str, prefix: str = "") -> None:
        self.url = url
        self.prefix = prefix
        self.t = make_tables(prefix)
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if not self.is_sqlite:
            # No ping on every checkout (a round trip, a third of an append's CPU):
            # checkout_check pings only connections that were idle or are closed.
            kwargs.update(pool_size=10, max_overflow=10)
            # A database host that does not answer is "away" after this long, not after
            # asyncpg's default minute (server/storage/outage.py turns it into a 503).
            kwargs["connect_args"] = {"timeout": CONNECT_TIMEOUT}
        else:
            # A fixed set of connections: each SQLite connection of aiosqlite is a thread
            # of its own, and overflow connections were opened and closed in bursts.
            kwargs.update(pool_size=8, max_overflow=0)
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        # SQLite allows one writer; serialising writes here avoids "database is locked".
        self._write_lock = asyncio.Lock() if self.is_sqlite else None
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", sqlite_pragmas)
        else:
            event.listen(self.engine.sync_engine, "checkout", checkout_check)
            event.listen(self.engine.sync_engine, "checkin", checked_in)
        path = self.engine.url.database if self.is_sqlite else None
        self._sqlite_path = path if path and path != ":memory:" else None

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (on SQLite, one at a time)."""
        if self._write_lock is None:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._write_lock, self.engine.begin() as conn:
            yield conn


def checked_in(_dbapi_conn: Any, record: Any) -> None:
    """The pool's checkin hook (PostgreSQL): when the connection was last in use."""
    record.info["used"] = time.monotonic()


def checkout_check(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
    """The pool's checkout hook (PostgreSQL): a connection whose socket is closed (the
    server or the network went away) is replaced, and one idle for :data:`PING_AFTER`
    seconds is pinged first. One in use a moment ago is handed out as it is: a
    connection that broke since fails its statement, and the pool drops it (what
    ``pool_pre_ping`` did, without a round trip before every statement)."""
    driver = getattr(dbapi_conn, "_connection", None)
    if driver is not None and driver.is_closed():
        raise DisconnectionError("the connection is closed")
    used = record.info.get("used")
    if used is not None and time.monotonic() - used < PING_AFTER:
        return
    try:
        dbapi_conn.ping()
    except Exception as exc:
        raise DisconnectionError("the connection does not answer") from exc


def sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """Set up a SQLite connection (the engine's connect hook; the match log's own
    appending connection too)."""
    # WAL lets readers run beside the writer; synchronous=NORMAL in WAL mode survives a
    # killed process (kill -9), which is the durability the server promises.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    # 1 MiB of page cache per connection instead of 2: reads are by key, and ten
    # connections' caches otherwise make ~20 MB of a serving process's memory.
    cur.execute("PRAGMA cache_size=-1024")
    cur.close()
