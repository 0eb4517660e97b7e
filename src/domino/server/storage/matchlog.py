"""The match log: the append-only, fenced list of a match's accepted entries, the
event-sourced truth a restarted or taking-over node replays.

A node claims a match (:meth:`MatchLog.claim`) and appends under the fencing token the
claim returned; the database refuses an append whose token is no longer the match's
(:class:`~domino.server.desks.doors.StaleFence`). Appends of many matches share one
commit under load (group commit); on SQLite in a file they go through one plain
connection on the event loop's thread, and on PostgreSQL through asyncpg directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

# The refusal is the entry store's door's own exception (the match runner catches it
# without importing the storage).
from domino.server.desks.doors import StaleFence
from domino.server.storage.engine import PING_AFTER, Core, dumps, sqlite_pragmas

__all__ = ["CHECKPOINT_EVERY", "MatchLog"]

#: Seconds between WAL checkpoints of a SQLite database (see MatchLog._checkpoint_every).
CHECKPOINT_EVERY = 1.0


#: One waiting append: its match, fencing token, rows and the future its caller awaits.
@dataclass(slots=True)
class _Append:
    mid: str
    fence: int
    rows: list[dict[str, Any]]
    done: asyncio.Future[None]

    def settle(self, exc: BaseException | None = None) -> None:
        if self.done.done():
            return
        if exc is None:
            self.done.set_result(None)
        else:
            self.done.set_exception(exc)


class MatchLog(Core):
    """The ``match_log`` table and the fencing token of the ``matches`` rows: the entry
    store (:class:`~domino.server.desks.doors.EntryStore`) a match runner writes to."""

    def __init__(self, url: str, prefix: str = "") -> None:
        super().__init__(url, prefix)
        # Group commit of match entries (see append).
        self._pending: list[_Append] = []
        self._flusher: asyncio.Task[None] | None = None
        # SQLite in a file: match entries are appended through one plain connection on
        # the event loop's own thread (see _store_entries).
        self._appender: sqlite3.Connection | None = None
        # PostgreSQL: the pooled connection the appends keep (see _pg_connection), its
        # asyncpg connection, and when it was last used.
        self._pg_held: AsyncConnection | None = None
        self._pg: Any = None
        self._pg_used = 0.0
        self._checkpointer: asyncio.Task[None] | None = None
        self._insert_sql = (
            f'INSERT INTO "{self.t.log.name}" (match_id, idx, entry) VALUES (?, ?, ?)'
        )
        # PostgreSQL's append statement (asyncpg; see _commit_fenced): the fence read,
        # locked FOR SHARE, and the insert of every row whose fence is current, in one
        # statement (one round trip, atomic without BEGIN and COMMIT). A data-modifying
        # WITH runs to completion whatever the outer query reads; the outer query
        # returns each match's current fence, for the refusals.
        self._pg_append = (
            f'WITH f AS (SELECT id, fence FROM "{self.t.matches.name}"'
            " WHERE id = ANY($1::varchar[]) FOR SHARE),"
            f' ins AS (INSERT INTO "{self.t.log.name}" (match_id, idx, entry)'
            " SELECT u.m, u.i, u.e"
            " FROM unnest($2::varchar[], $3::int[], $4::text[], $5::bigint[]) AS u(m, i, e, fc)"
            " JOIN f ON f.id = u.m AND f.fence = u.fc)"
            " SELECT id, fence FROM f"
        )
        self._fence_sql = f'SELECT id, fence FROM "{self.t.matches.name}" WHERE id IN ('

    def _start_appending(self) -> None:
        """On SQLite in a file: open the appending connection and start checkpointing."""
        if self._sqlite_path is not None and self._appender is None:
            con = sqlite3.connect(self._sqlite_path, isolation_level=None, timeout=10.0)
            sqlite_pragmas(con, None)
            # This connection never checkpoints: a checkpoint copies the WAL into the
            # database and syncs it, which must not happen on the event loop's thread.
            # The checkpointer task does it in a worker thread instead.
            con.execute("PRAGMA wal_autocheckpoint=0")
            self._appender = con
            self._checkpointer = asyncio.create_task(self._checkpoint_every(CHECKPOINT_EVERY))

    async def _stop_appending(self) -> None:
        """Finish pending appends, then close the appending connection."""
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            await asyncio.gather(self._checkpointer, return_exceptions=True)
            self._checkpointer = None
        if self._appender is not None:
            self._appender.close()
            self._appender = None
        await self._drop_pg_connection()

    async def claim(self, mid: str, owner: str) -> int:
        """Take ownership of a match: store ``owner`` and return its new fencing token.

        The database increments the token, so every claim outdates every earlier
        one: appends carrying an older token are refused from then on
        (:class:`StaleFence`). ``KeyError`` when the match does not exist.
        """
        m = self.t.matches
        async with self._write() as conn:
            row = (
                await conn.execute(
                    m.update()
                    .where(m.c.id == mid)
                    .values(fence=m.c.fence + 1, owner=owner[:64])
                    .returning(m.c.fence)
                )
            ).first()
        if row is None:
            raise KeyError(mid)
        return int(row.fence)

    async def append(
        self, mid: str, start: int, entries: list[dict[str, Any]], fence: int = 0
    ) -> None:
        """Append accepted entries at positions ``start, start + 1, ...`` (never overwrites).

        ``fence`` is the token the caller's :meth:`claim` returned (0: a match nobody
        has claimed). The database checks it in the transaction of the insert and
        refuses the append with :class:`StaleFence` unless it is the match's current
        token, so a node that lost a match can never write into it again.

        Returns once they are committed. Appends of many matches that arrive while a
        commit runs share the next one (group commit): alone, an append commits at once;
        under load, one transaction carries every waiting match's entries. An append
        that is refused (stale token, a position written twice) fails alone.
        """
        if not entries:
            return
        rows = [
            {"match_id": mid, "idx": start + i, "entry": dumps(e)} for i, e in enumerate(entries)
        ]
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(_Append(mid, fence, rows, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def load(self, mid: str) -> list[dict[str, Any]]:
        """A match's stored entries in order (the entry store's read door)."""
        return await self.match_log(mid)

    async def match_log(self, mid: str) -> list[dict[str, Any]]:
        """A match's stored entries in order."""
        lg = self.t.log
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(lg.c.entry).where(lg.c.match_id == mid).order_by(lg.c.idx)
            )
            return [json.loads(r.entry) for r in rows]

    async def _flush(self) -> None:
        while self._pending:
            if self._appender is not None:
                assert self._write_lock is not None
                async with self._write_lock:
                    # No other writer is inside a transaction now; everything that arrived
                    # while we waited goes into this one.
                    batch, self._pending = self._pending, []
                    self._store_entries(self._appender, batch)
                continue
            batch, self._pending = self._pending, []
            try:
                refused = await self._commit_fenced(batch)
            except Exception:
                # One bad append (a position written twice) must not fail the others:
                # commit each on its own and report to each its own outcome.
                for ap in batch:
                    try:
                        refused = await self._commit_fenced([ap])
                    except Exception as exc:
                        ap.settle(exc)
                    else:
                        ap.settle(refused.get(id(ap)))
                continue
            for ap in batch:
                ap.settle(refused.get(id(ap)))

    async def _commit_fenced(self, batch: list[_Append]) -> dict[int, StaleFence]:
        """Store ``batch`` in one transaction (see :meth:`_insert_fenced`).

        On PostgreSQL this speaks asyncpg directly, with one prepared statement (the
        fence read and the insert of every row whose fence is current, ``_pg_append``)
        in one round trip: the same work through SQLAlchemy, or as a transaction of
        two statements, costs about twice the CPU per append, the largest share of a
        cluster node's extra cost per command (docs/performance.md).
        """
        if self.is_sqlite:
            async with self._write() as conn:
                return await self._insert_fenced(conn, batch)
        mids: list[str] = []
        idxs: list[int] = []
        entries: list[str] = []
        fences: list[int] = []
        for ap in batch:
            for row in ap.rows:
                mids.append(row["match_id"])
                idxs.append(row["idx"])
                entries.append(row["entry"])
                fences.append(ap.fence)
        ids = sorted({ap.mid for ap in batch})
        pg = await self._pg_connection()
        try:
            rows = await pg.fetch(self._pg_append, ids, mids, idxs, entries, fences)
        except BaseException as exc:
            if type(exc).__name__ == "UniqueViolationError":  # as SQLAlchemy reports it
                raise IntegrityError(self._pg_append, None, exc) from exc
            # Broken, or cancelled in the middle of the statement: start afresh.
            await self._drop_pg_connection(broken=True)
            raise
        self._pg_used = time.monotonic()
        current = {r["id"]: int(r["fence"]) for r in rows}
        return {
            id(ap): StaleFence(ap.mid, ap.fence, current.get(ap.mid))
            for ap in batch
            if current.get(ap.mid) != ap.fence
        }

    async def _pg_connection(self) -> Any:
        """The asyncpg connection of the appends: one connection of the pool, kept
        between appends (one append after another: the flusher is one task). Checking
        one out of SQLAlchemy's pool and back for every append cost about 3.5 % of a
        node's CPU (docs/performance.md). One idle for :data:`PING_AFTER` seconds goes
        back to the pool, and the next is checked out as any other (pinged if idle)."""
        if self._pg is not None and (
            self._pg.is_closed() or time.monotonic() - self._pg_used >= PING_AFTER
        ):
            await self._drop_pg_connection()
        if self._pg is None:
            held = await self.engine.connect()
            try:
                raw = await held.get_raw_connection()
            except BaseException:
                await held.close()
                raise
            self._pg_held, self._pg = held, raw.driver_connection
            self._pg_used = time.monotonic()
        return self._pg

    async def _drop_pg_connection(self, *, broken: bool = False) -> None:
        """Give the appends' connection back to the pool (``broken``: the pool drops it)."""
        held, self._pg_held, self._pg = self._pg_held, None, None
        if held is None:
            return
        with contextlib.suppress(Exception):
            if broken:
                await held.invalidate()
            await held.close()

    async def _insert_fenced(
        self, conn: AsyncConnection, batch: list[_Append]
    ) -> dict[int, StaleFence]:
        """Insert the rows of every append in ``batch`` whose fence is current.

        One read of the batch's matches, locked ``FOR SHARE`` on PostgreSQL: a claim
        (an UPDATE of the row) waits for this transaction, and this read waits for a
        claim in flight and then sees its new token. Returns the refused appends.
        """
        m = self.t.matches
        q = sa.select(m.c.id, m.c.fence).where(m.c.id.in_(sorted({ap.mid for ap in batch})))
        if not self.is_sqlite:
            q = q.with_for_update(read=True)
        current = {r.id: int(r.fence) for r in await conn.execute(q)}
        refused: dict[int, StaleFence] = {}
        rows: list[dict[str, Any]] = []
        for ap in batch:
            now = current.get(ap.mid)
            if now != ap.fence:
                refused[id(ap)] = StaleFence(ap.mid, ap.fence, now)
            else:
                rows.extend(ap.rows)
        if rows:
            await conn.execute(self.t.log.insert(), rows)
        return refused

    async def _checkpoint_every(self, period: float) -> None:
        """Checkpoint the WAL in a worker thread every ``period`` seconds (PASSIVE: it
        never waits for, nor blocks, the writer; what it cannot copy yet waits for the
        next one)."""
        path = self._sqlite_path
        assert path is not None

        def checkpoint() -> None:
            con = sqlite3.connect(path, timeout=10.0)
            try:
                con.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                con.close()

        while True:
            await asyncio.sleep(period)
            try:
                await asyncio.to_thread(checkpoint)
            except sqlite3.Error:
                continue  # busy or locked: the next one will do

    def _store_entries(self, con: sqlite3.Connection, batch: list[_Append]) -> None:
        """Commit ``batch`` with plain sqlite3, synchronously, on the loop's thread.

        Measured (docs/reliability.md): one INSERT and COMMIT in WAL mode with
        synchronous=NORMAL costs ≈ 0.05 ms, while the same through SQLAlchemy and
        aiosqlite took five hand-overs between threads, each waiting for a busy event
        loop's next turn — 100–400 ms under load, for every match at once. Blocking the
        loop for the insert itself is far cheaper than waiting for it.

        Each match's fencing token is read (by primary key, once per match of the
        batch) inside the same ``BEGIN IMMEDIATE`` transaction as the insert: that
        transaction holds SQLite's write lock, so no claim can come in between.
        """
        sql, fence_sql = self._insert_sql, self._fence_sql

        def commit(part: list[_Append]) -> dict[int, StaleFence]:
            con.execute("BEGIN IMMEDIATE")
            try:
                mids = list({ap.mid: None for ap in part})
                current: dict[str, int] = {}
                for i in range(0, len(mids), 500):  # well under SQLite's variable limit
                    chunk = mids[i : i + 500]
                    q = fence_sql + ",".join("?" * len(chunk)) + ")"
                    current.update(con.execute(q, chunk).fetchall())
                refused: dict[int, StaleFence] = {}
                rows: list[tuple[str, int, str]] = []
                for ap in part:
                    now = current.get(ap.mid)
                    if now != ap.fence:
                        refused[id(ap)] = StaleFence(ap.mid, ap.fence, now)
                        continue
                    rows.extend((r["match_id"], r["idx"], r["entry"]) for r in ap.rows)
                if rows:
                    con.executemany(sql, rows)
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:  # never leave the appender inside a transaction
                    con.execute("ROLLBACK")
                raise
            return refused

        try:
            refused = commit(batch)
        except sqlite3.Error:
            # One bad append (a position written twice) must not fail the others.
            for ap in batch:
                try:
                    alone = commit([ap])
                except sqlite3.IntegrityError as exc:
                    ap.settle(IntegrityError(sql, None, exc))
                except sqlite3.Error as exc:
                    ap.settle(exc)
                else:
                    ap.settle(alone.get(id(ap)))
            return
        for ap in batch:
            ap.settle(refused.get(id(ap)))
