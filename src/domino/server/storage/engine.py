"""The storage's engine: one async SQLAlchemy engine on SQLite (WAL) or PostgreSQL (on
SQLite in a file, a plain one beside it for the writes), the schema's tables and the
write serialisation every part of the storage shares.

Every write is its own short transaction, committed before the caller goes on, so an
entry is on disk before any client hears of it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import orjson
from sqlalchemy import Connection, Engine, Result, create_engine, event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from domino.server.storage.tables import make_tables

__all__ = ["CONNECT_TIMEOUT", "PING_AFTER", "Core", "SyncWrites", "dumps", "sqlite_pragmas"]

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
        # SQLite in a file: the write transactions' own engine (see _write).
        self._writer: Engine | None = None

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (on SQLite, one at a time).

        On SQLite in a file the transaction runs on the event loop's thread, start to
        commit, through a plain (synchronous) engine: the callers' ``await
        conn.execute(...)`` return at once (:class:`SyncWrites`). Through aiosqlite each
        statement, the BEGIN and the COMMIT were a hand-over to a worker thread and back,
        each waiting for the loop's next turn, and the transaction held the write lock all
        that time. Measured at 8,000 clients (docs/performance.md): the match log's group
        commit waited behind the profiles', lobbies' and matches' writes, so the moves of
        several seconds were committed, and answered, at once: the loop's longest stalls.
        The statements themselves take well under a millisecond each. (Another process
        writing the same file, say a ``domino db`` command, makes a write here wait for it
        on the loop's thread, up to SQLite's 10 s busy timeout, as the appends always did.)
        """
        if self._write_lock is None:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._write_lock:
            if self._sqlite_path is None:  # in memory: one database per connection pool
                async with self.engine.begin() as conn:
                    yield conn
                return
            with self._sync_writer().begin() as sync:
                # Only execute and scalar are used inside a write transaction.
                yield cast(AsyncConnection, SyncWrites(sync))

    def _sync_writer(self) -> Engine:
        if self._writer is None:
            self._writer = create_engine(
                f"sqlite:///{self._sqlite_path}",
                pool_size=1,
                max_overflow=0,
                # Used on the loop's thread only, but disposed of wherever close runs.
                connect_args={"timeout": 10.0, "check_same_thread": False},
            )
            event.listen(self._writer, "connect", sqlite_writer_pragmas)
        return self._writer

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.dispose()
            self._writer = None


class SyncWrites:
    """What the write transactions use of an :class:`AsyncConnection` (``execute``,
    ``scalar``), done at once on a synchronous connection. Rows are read before the
    call returns, as the async connection's buffered results are."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def execute(self, statement: Any, parameters: Any = None) -> Result[Any]:
        result = self.conn.execute(statement, parameters)
        if result.returns_rows:
            return result.freeze()()
        return result

    async def scalar(self, statement: Any, parameters: Any = None) -> Any:
        return self.conn.execute(statement, parameters).scalar()


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


def sqlite_writer_pragmas(dbapi_conn: Any, record: Any) -> None:
    """A connection that writes on the event loop's thread: as :func:`sqlite_pragmas`, and
    it never checkpoints (a checkpoint copies the WAL into the database and syncs it; the
    match log's checkpointer does that in a worker thread)."""
    sqlite_pragmas(dbapi_conn, record)
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()
