"""Persistence: SQLAlchemy 2 Core (async) on SQLite (WAL) or PostgreSQL.

What is stored: profiles and token hashes; lobbies (one JSON document each);
matches (rules, seats, secret seed, status, result, record); the append-only
match log (one row per accepted entry, the event-sourced truth); and one row
per seated player of a finished match for the profile history.

The schema is :func:`make_tables`; Alembic migrations (:mod:`.schema`) build the
same tables in a database, and a test holds the two against each other.

Every write is its own short transaction, committed before the caller goes on,
so an entry is on disk before any client hears of it.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from domino.server.desks.doors import StaleFence
from domino.server.storage import schema

__all__ = [
    "Database",
    "InOtherLobby",
    "LobbyConflict",
    "NameTaken",
    "StaleFence",
    "StoredLobby",
    "StoredMatch",
    "Tables",
    "make_tables",
]


class NameTaken(Exception):
    """An account with that name exists already."""


class LobbyConflict(Exception):
    """A lobby changed (or was created) since the version a change was made from."""


class InOtherLobby(Exception):
    """A profile that was to join a lobby is in another one."""

    def __init__(self, pid: str) -> None:
        super().__init__(f"profile {pid} is in another lobby")
        self.pid = pid


@dataclass(frozen=True)
class StoredLobby:
    """A lobby's stored document and the version it was read at."""

    doc: dict[str, Any]
    version: int


@dataclass(frozen=True)
class Tables:
    """The schema, with an optional name prefix (parallel test runs share a database)."""

    meta: sa.MetaData
    profiles: sa.Table
    tokens: sa.Table
    lobbies: sa.Table
    matches: sa.Table
    log: sa.Table
    players: sa.Table
    members: sa.Table
    analyses: sa.Table


def make_tables(prefix: str = "") -> Tables:
    """Build the schema's tables named ``{prefix}profiles`` and so on."""
    meta = sa.MetaData()
    profiles = sa.Table(
        f"{prefix}profiles",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        # lower-cased account name; NULL for guests (guests may share names)
        sa.Column("name_key", sa.String(100), unique=True, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(300), nullable=True),
        sa.Column("xp", sa.Integer, nullable=False, default=0),
        sa.Column("played", sa.Integer, nullable=False, default=0),
        sa.Column("won", sa.Integer, nullable=False, default=0),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    tokens = sa.Table(
        f"{prefix}tokens",
        meta,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    lobbies = sa.Table(
        f"{prefix}lobbies",
        meta,
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        # Every stored change increments it; a change made from an older version is
        # refused (optimistic concurrency: any node may change any lobby).
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    )
    # Who is in which lobby that is not closed: one row per profile, so no profile is
    # ever in two lobbies, whichever nodes add it.
    members = sa.Table(
        f"{prefix}lobby_members",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, index=True),
    )
    matches = sa.Table(
        f"{prefix}matches",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("lobby", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(100), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("record", sa.Text, nullable=True),
        # The fencing token: every claim of the match increments it, and an append is
        # refused unless it carries the current one (see Database.append).
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("owner", sa.String(64), nullable=True),
    )
    log = sa.Table(
        f"{prefix}match_log",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    players = sa.Table(
        f"{prefix}match_players",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    # One row per finished match whose analysis was asked for (docs/analysis.md): the row
    # is the claim (inserted once, whichever node asks first), the progress while it is
    # worked on, and the stored result. A claim whose owner stopped reporting (updated_at
    # too old) may be taken over.
    analyses = sa.Table(
        f"{prefix}match_analysis",
        meta,
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
    return Tables(meta, profiles, tokens, lobbies, matches, log, players, members, analyses)


def _dumps(value: Any) -> str:
    # The same compact text as json.dumps(separators=(",", ":"), ensure_ascii=False).
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass
class StoredMatch:
    """An unfinished match as stored: enough to rebuild its table by replay."""

    id: str
    lobby: str | None
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    seed: str
    started_at: float
    log: list[dict[str, Any]]


#: Seconds a new PostgreSQL connection may take to open.
CONNECT_TIMEOUT = 10.0

#: Seconds between WAL checkpoints of a SQLite database (see Database._checkpoint_every).
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


class Database:
    """The server's storage; all methods are coroutines on one async engine."""

    def __init__(self, url: str, prefix: str = "") -> None:
        self.url = url
        self.prefix = prefix
        self.t = make_tables(prefix)
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if not self.is_sqlite:
            kwargs.update(pool_size=10, max_overflow=10, pool_pre_ping=True)
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
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        # Group commit of match entries (see append).
        self._pending: list[_Append] = []
        self._flusher: asyncio.Task[None] | None = None
        # SQLite in a file: match entries are appended through one plain connection on
        # the event loop's own thread (see _store_entries).
        self._appender: sqlite3.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        path = self.engine.url.database if self.is_sqlite else None
        self._sqlite_path = path if path and path != ":memory:" else None
        self._insert_sql = (
            f'INSERT INTO "{self.t.log.name}" (match_id, idx, entry) VALUES (?, ?, ?)'
        )
        # PostgreSQL's append statements (asyncpg; see _commit_fenced).
        self._pg_fence = (
            f'SELECT id, fence FROM "{self.t.matches.name}" WHERE id = ANY($1::varchar[]) FOR SHARE'
        )
        self._pg_insert = (
            f'INSERT INTO "{self.t.log.name}" (match_id, idx, entry)'
            " SELECT * FROM unnest($1::varchar[], $2::int[], $3::text[])"
        )
        self._fence_sql = f'SELECT id, fence FROM "{self.t.matches.name}" WHERE id IN ('

    async def create(self) -> None:
        """Bring the schema to the newest revision (:func:`.schema.upgrade`), then open."""
        await self.migrate()
        await self.open()

    async def migrate(self) -> str:
        """Apply the migrations this database lacks; return its revision (the newest)."""
        async with self.engine.begin() as conn:
            return await conn.run_sync(schema.upgrade, self.prefix)

    async def revision(self) -> str | None:
        """The stored revision (``None``: no version table)."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(schema.current, self.prefix)

    async def check(self, command: str = "domino db upgrade") -> str:
        """The revision if it is the newest, :class:`.schema.NotMigrated` otherwise
        (``command``: what the message tells the operator to run)."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(schema.check, self.prefix, command)

    async def prepare(self, migrate: bool, command: str = "domino db upgrade") -> str:
        """Make sure the schema is the newest before serving: apply the migrations
        (``migrate``) or refuse one that is behind (:class:`.schema.NotMigrated`)."""
        if migrate:
            return await self.migrate()
        return await self.check(command)

    async def open(self) -> None:
        """Get ready to serve on a migrated schema (nothing is checked here)."""
        if self._sqlite_path is not None and self._appender is None:
            con = sqlite3.connect(self._sqlite_path, isolation_level=None, timeout=10.0)
            _sqlite_pragmas(con, None)
            # This connection never checkpoints: a checkpoint copies the WAL into the
            # database and syncs it, which must not happen on the event loop's thread.
            # The checkpointer task does it in a worker thread instead.
            con.execute("PRAGMA wal_autocheckpoint=0")
            self._appender = con
            self._checkpointer = asyncio.create_task(self._checkpoint_every(CHECKPOINT_EVERY))

    async def drop(self) -> None:
        """Drop every table of this prefix, the version table too (tests)."""
        version = sa.Table(schema.version_table(self.prefix), sa.MetaData())
        async with self.engine.begin() as conn:
            await conn.run_sync(self.t.meta.drop_all)
            await conn.run_sync(version.drop, checkfirst=True)

    async def close(self) -> None:
        """Finish pending appends, then release the connections."""
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            await asyncio.gather(self._checkpointer, return_exceptions=True)
            self._checkpointer = None
        if self._appender is not None:
            self._appender.close()
            self._appender = None
        await self.engine.dispose()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._write_lock is None:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._write_lock, self.engine.begin() as conn:
            yield conn

    # -- profiles and tokens -----------------------------------------------------------
    async def create_profile(
        self,
        pid: str,
        name: str,
        kind: str,
        now: float,
        *,
        name_key: str | None = None,
        password_hash: str | None = None,
        token_hash: str | None = None,
    ) -> None:
        """Insert a profile (and its first token); :class:`NameTaken` for a used account name."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.insert().values(
                        id=pid,
                        name=name,
                        name_key=name_key,
                        kind=kind,
                        password_hash=password_hash,
                        xp=0,
                        played=0,
                        won=0,
                        created_at=now,
                    )
                )
                if token_hash is not None:
                    await conn.execute(
                        self.t.tokens.insert().values(
                            token_hash=token_hash, profile_id=pid, created_at=now
                        )
                    )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def make_account(self, pid: str, name: str, name_key: str, password_hash: str) -> None:
        """Turn a guest into an account (same id, XP and history)."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.update()
                    .where(self.t.profiles.c.id == pid)
                    .values(
                        name=name, name_key=name_key, kind="account", password_hash=password_hash
                    )
                )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def rename_profile(self, pid: str, name: str, name_key: str | None) -> None:
        """A new display name (``name_key`` for an account, whose names are unique);
        :class:`NameTaken` when another account has it."""
        values: dict[str, Any] = {"name": name}
        if name_key is not None:
            values["name_key"] = name_key
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.update().where(self.t.profiles.c.id == pid).values(**values)
                )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def set_password_hash(self, pid: str, password_hash: str) -> None:
        """Store a re-hashed password (argon2 parameters changed)."""
        async with self._write() as conn:
            await conn.execute(
                self.t.profiles.update()
                .where(self.t.profiles.c.id == pid)
                .values(password_hash=password_hash)
            )

    async def profile(self, pid: str) -> dict[str, Any] | None:
        """The profile row, or ``None``."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(self.t.profiles).where(self.t.profiles.c.id == pid))
            ).first()
        return dict(row._mapping) if row else None

    async def profiles(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Several profile rows by id."""
        if not ids:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(self.t.profiles).where(self.t.profiles.c.id.in_(list(ids)))
            )
            return {r.id: dict(r._mapping) for r in rows}

    async def account(self, name_key: str) -> dict[str, Any] | None:
        """The account row with that (lower-cased) name, or ``None``."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(self.t.profiles).where(self.t.profiles.c.name_key == name_key)
                )
            ).first()
        return dict(row._mapping) if row else None

    async def add_token(self, token_hash: str, pid: str, now: float) -> None:
        """Store a token's hash for a profile."""
        async with self._write() as conn:
            await conn.execute(
                self.t.tokens.insert().values(token_hash=token_hash, profile_id=pid, created_at=now)
            )

    async def profile_by_token(self, token_hash: str) -> str | None:
        """The profile id a token hash belongs to (the final comparison is constant-time)."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(self.t.tokens.c.token_hash, self.t.tokens.c.profile_id).where(
                        self.t.tokens.c.token_hash == token_hash
                    )
                )
            ).first()
        if row is None or not hmac.compare_digest(row.token_hash, token_hash):
            return None
        return str(row.profile_id)

    async def delete_token(self, token_hash: str) -> None:
        """Void a token (log out)."""
        async with self._write() as conn:
            await conn.execute(
                self.t.tokens.delete().where(self.t.tokens.c.token_hash == token_hash)
            )

    # -- lobbies -------------------------------------------------------------------------
    async def save_lobby(
        self,
        code: str,
        status: str,
        data: dict[str, Any],
        now: float,
        version: int | None = None,
        joined: Sequence[str] = (),
        left: Sequence[str] = (),
    ) -> int:
        """Store a lobby's document over ``version`` (``None``: a new lobby) with its
        members' changes; return the new version.

        Raises :class:`LobbyConflict` when the stored version is another (somebody
        changed the lobby meanwhile: read it again) and :class:`InOtherLobby` when a
        profile of ``joined`` is in another lobby; nothing is written then.
        """
        try:
            async with self._write() as conn:
                return await self._put_lobby(conn, code, status, data, now, version, joined, left)
        except IntegrityError:
            # A race the reads in _put_lobby could not see: the same code created, or a
            # profile of ``joined`` added to another lobby, by another node meanwhile.
            if version is None:
                raise LobbyConflict(code) from None
            raise InOtherLobby(joined[0] if joined else "?") from None

    async def _put_lobby(
        self,
        conn: AsyncConnection,
        code: str,
        status: str,
        data: dict[str, Any],
        now: float,
        version: int | None,
        joined: Sequence[str] = (),
        left: Sequence[str] = (),
    ) -> int:
        t, m = self.t.lobbies, self.t.members
        if version is None:
            await conn.execute(
                t.insert().values(
                    code=code, status=status, data=_dumps(data), updated_at=now, version=1
                )
            )
            new = 1
        else:
            done = await conn.execute(
                t.update()
                .where(t.c.code == code, t.c.version == version)
                .values(status=status, data=_dumps(data), updated_at=now, version=version + 1)
            )
            if done.rowcount == 0:
                raise LobbyConflict(code)
            new = version + 1
        if status == "closed":
            await conn.execute(m.delete().where(m.c.code == code))
            return new
        if left:
            await conn.execute(m.delete().where(m.c.code == code, m.c.profile_id.in_(left)))
        if joined:
            taken = (
                await conn.execute(sa.select(m.c.profile_id).where(m.c.profile_id.in_(joined)))
            ).first()
            if taken is not None:
                raise InOtherLobby(str(taken.profile_id))
            await conn.execute(m.insert(), [{"profile_id": pid, "code": code} for pid in joined])
        return new

    async def live_lobbies(self) -> list[dict[str, Any]]:
        """Every lobby that is not closed."""
        t = self.t.lobbies
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(t.c.data).where(t.c.status != "closed"))
            return [json.loads(r.data) for r in rows]

    async def open_lobbies(self, limit: int = 200) -> list[dict[str, Any]]:
        """The documents of the open lobbies changed last (at most ``limit``)."""
        t = self.t.lobbies
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(t.c.data)
                .where(t.c.status == "open")
                .order_by(t.c.updated_at.desc())
                .limit(limit)
            )
            return [json.loads(r.data) for r in rows]

    async def lobby_row(self, code: str) -> StoredLobby | None:
        """A lobby that is not closed, with its version (``None``: unknown or closed)."""
        t = self.t.lobbies
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(t.c.data, t.c.version).where(t.c.code == code, t.c.status != "closed")
                )
            ).first()
        return None if row is None else StoredLobby(dict(json.loads(row.data)), int(row.version))

    async def lobby_doc(self, code: str) -> dict[str, Any] | None:
        """A lobby's stored document that is not closed (``None``: unknown or closed)."""
        row = await self.lobby_row(code)
        return None if row is None else row.doc

    async def lobby_of(self, pid: str) -> str | None:
        """The code of the lobby ``pid`` is in (not closed), or ``None``."""
        m = self.t.members
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(m.c.code).where(m.c.profile_id == pid))).first()
        return None if row is None else str(row.code)

    async def lobby_exists(self, code: str) -> bool:
        """Whether a code was ever used (codes are never reused)."""
        t = self.t.lobbies
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(t.c.code).where(t.c.code == code))).first()
        return row is not None

    # -- matches -------------------------------------------------------------------------
    async def create_match(
        self,
        mid: str,
        lobby: str | None,
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: str,
        now: float,
        log: list[dict[str, Any]],
        lobby_doc: tuple[str, dict[str, Any], int | None] | None = None,
        joined: Sequence[str] = (),
    ) -> None:
        """Store a new match and the entries its table logged when it was made.

        ``lobby_doc`` (status, document, version read) stores the lobby's new state in
        the same transaction: a kill between the two writes must never leave a running
        match whose lobby is still open and startable (a second match for the same
        people). Raises :class:`LobbyConflict` (nothing stored) when the lobby changed
        since that version was read. A version of ``None`` stores a new lobby with the
        members ``joined`` (*Schnelles Spiel*); ``LobbyConflict`` then says that its code
        was used or that a member is in another lobby.
        """
        try:
            await self._create_match(mid, lobby, rules, seats, seed, now, log, lobby_doc, joined)
        except (IntegrityError, InOtherLobby):
            if lobby_doc is None or lobby_doc[2] is not None:
                raise
            raise LobbyConflict(lobby or "?") from None

    async def _create_match(
        self,
        mid: str,
        lobby: str | None,
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: str,
        now: float,
        log: list[dict[str, Any]],
        lobby_doc: tuple[str, dict[str, Any], int | None] | None,
        joined: Sequence[str],
    ) -> None:
        async with self._write() as conn:
            if lobby is not None and lobby_doc is not None:
                status, doc, version = lobby_doc
                await self._put_lobby(conn, lobby, status, doc, now, version, joined)
            await conn.execute(
                self.t.matches.insert().values(
                    id=mid,
                    lobby=lobby,
                    status="running",
                    rules=_dumps(rules),
                    seats=_dumps(seats),
                    seed=seed,
                    started_at=now,
                )
            )
            if log:
                await conn.execute(
                    self.t.log.insert(),
                    [{"match_id": mid, "idx": i, "entry": _dumps(e)} for i, e in enumerate(log)],
                )

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
            {"match_id": mid, "idx": start + i, "entry": _dumps(e)} for i, e in enumerate(entries)
        ]
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(_Append(mid, fence, rows, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def load(self, mid: str) -> list[dict[str, Any]]:
        """A match's stored entries in order (the entry store's read door)."""
        return await self.match_log(mid)

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

        On PostgreSQL this speaks asyncpg directly, with two prepared statements (the
        fence read and one ``INSERT ... SELECT FROM unnest(...)`` of every row): the
        same statements through SQLAlchemy cost about twice the CPU per append, the
        largest share of a cluster node's extra cost per command (docs/performance.md).
        """
        if self.is_sqlite:
            async with self._write() as conn:
                return await self._insert_fenced(conn, batch)
        async with self.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            pg: Any = raw.driver_connection
            async with pg.transaction():
                ids = sorted({ap.mid for ap in batch})
                current = {r["id"]: int(r["fence"]) for r in await pg.fetch(self._pg_fence, ids)}
                refused: dict[int, StaleFence] = {}
                mids: list[str] = []
                idxs: list[int] = []
                entries: list[str] = []
                for ap in batch:
                    now = current.get(ap.mid)
                    if now != ap.fence:
                        refused[id(ap)] = StaleFence(ap.mid, ap.fence, now)
                        continue
                    for row in ap.rows:
                        mids.append(row["match_id"])
                        idxs.append(row["idx"])
                        entries.append(row["entry"])
                if mids:
                    try:
                        await pg.execute(self._pg_insert, mids, idxs, entries)
                    except Exception as exc:  # as SQLAlchemy reports it (a position twice)
                        if type(exc).__name__ == "UniqueViolationError":
                            raise IntegrityError(self._pg_insert, None, exc) from exc
                        raise
            return refused

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

    async def unfinished(self) -> list[StoredMatch]:
        """Every running match with its log, for replay after a restart."""
        m = self.t.matches
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(m).where(m.c.status == "running"))).all()
            return [await self._stored(conn, r) for r in rows]

    async def running_ids(self) -> list[str]:
        """The ids of every running match (a cluster's nodes look for orphans among them)."""
        m = self.t.matches
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(m.c.id).where(m.c.status == "running"))
            return [r.id for r in rows]

    async def running_summaries(self, limit: int = 200) -> list[dict[str, Any]]:
        """The running matches started last (at most ``limit``): id, lobby, rules, seats
        and start time, newest first (the lobby list of a cluster's node)."""
        m = self.t.matches
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(m.c.id, m.c.lobby, m.c.rules, m.c.seats, m.c.started_at)
                .where(m.c.status == "running")
                .order_by(m.c.started_at.desc())
                .limit(limit)
            )
            return [
                {
                    "id": r.id,
                    "lobby": r.lobby,
                    "rules": json.loads(r.rules),
                    "seats": json.loads(r.seats),
                    "started_at": r.started_at,
                }
                for r in rows
            ]

    async def stored(self, mid: str, status: str = "running") -> StoredMatch | None:
        """One match with its log, if it has that ``status`` (``None`` otherwise)."""
        m = self.t.matches
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(m).where(m.c.id == mid, m.c.status == status))
            ).first()
            return None if row is None else await self._stored(conn, row)

    async def _stored(self, conn: AsyncConnection, r: Any) -> StoredMatch:
        lg = self.t.log
        entries = await conn.execute(
            sa.select(lg.c.entry).where(lg.c.match_id == r.id).order_by(lg.c.idx)
        )
        return StoredMatch(
            id=r.id,
            lobby=r.lobby,
            rules=json.loads(r.rules),
            seats=json.loads(r.seats),
            seed=r.seed,
            started_at=r.started_at,
            log=[json.loads(e.entry) for e in entries],
        )

    async def match_log(self, mid: str) -> list[dict[str, Any]]:
        """A match's stored entries in order."""
        lg = self.t.log
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(lg.c.entry).where(lg.c.match_id == mid).order_by(lg.c.idx)
            )
            return [json.loads(r.entry) for r in rows]

    async def finish_match(
        self,
        mid: str,
        now: float,
        result: dict[str, Any],
        record: Any,
        players: list[dict[str, Any]],
    ) -> None:
        """Close a match in one transaction: its end (:meth:`end_match`) and its status
        ``finished`` at once (a match whose end needs no announcing)."""
        await self.end_match(mid, now, result, record, players, close=True)

    async def end_match(
        self,
        mid: str,
        now: float,
        result: dict[str, Any],
        record: Any,
        players: list[dict[str, Any]],
        close: bool = False,
    ) -> bool:
        """Store a match's end in one transaction: result, record, history rows, XP and
        stats; ``False`` (nothing changed) when its end is stored already.

        The match stays ``running`` until its end has been announced
        (:meth:`close_match`; ``close`` does both at once): if its owner dies in
        between, the node that takes it over finds it among the running matches and
        tells every audience the end, storing nothing twice.

        ``players``: ``{"seat", "profile_id", "place", "xp", "won", "finished"}`` per human
        seat; only players who finished (did not leave) count a played match.
        """
        m, p = self.t.matches, self.t.profiles
        async with self._write() as conn:
            ended = await conn.execute(
                m.update()
                .where(m.c.id == mid, m.c.result.is_(None))
                .values(
                    finished_at=now,
                    result=_dumps(result),
                    record=_dumps(record),
                    **({"status": "finished"} if close else {}),
                )
            )
            if ended.rowcount == 0:
                return False
            for pl in players:
                await conn.execute(
                    self.t.players.insert().values(
                        match_id=mid,
                        seat=pl["seat"],
                        profile_id=pl["profile_id"],
                        place=pl["place"],
                        xp=pl["xp"],
                        won=pl["won"],
                        finished_at=now,
                    )
                )
                if pl["finished"]:
                    await conn.execute(
                        p.update()
                        .where(p.c.id == pl["profile_id"])
                        .values(
                            xp=p.c.xp + pl["xp"],
                            played=p.c.played + 1,
                            won=p.c.won + (1 if pl["won"] else 0),
                        )
                    )
        return True

    async def store_seats(self, mid: str, seats: list[dict[str, Any]]) -> None:
        """A running match's seats anew (a player's new name)."""
        m = self.t.matches
        async with self._write() as conn:
            await conn.execute(
                m.update().where(m.c.id == mid, m.c.status == "running").values(seats=_dumps(seats))
            )

    async def close_match(self, mid: str) -> None:
        """A match whose end is stored and announced is ``finished``."""
        m = self.t.matches
        async with self._write() as conn:
            await conn.execute(
                m.update().where(m.c.id == mid, m.c.status == "running").values(status="finished")
            )

    async def match(self, mid: str) -> dict[str, Any] | None:
        """A match row with its JSON columns decoded."""
        m = self.t.matches
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(m).where(m.c.id == mid))).first()
        if row is None:
            return None
        d = dict(row._mapping)
        for k in ("rules", "seats", "result", "record"):
            d[k] = json.loads(d[k]) if d[k] is not None else None
        return d

    async def recent(
        self, pid: str, limit: int, before: tuple[float, str] | None = None
    ) -> list[dict[str, Any]]:
        """A profile's finished matches, newest first, with the match rows joined.

        ``before``: only matches older than this ``(finished_at, match_id)`` (a page's
        last entry: the next page; equal times are ordered by match id).
        """
        m, pl = self.t.matches, self.t.players
        q = (
            sa.select(pl, m.c.rules, m.c.seats, m.c.result)
            .join(m, m.c.id == pl.c.match_id)
            .where(pl.c.profile_id == pid)
            .order_by(pl.c.finished_at.desc(), pl.c.match_id.desc())
            .limit(limit)
        )
        if before is not None:
            at, mid = before
            q = q.where(
                sa.or_(
                    pl.c.finished_at < at,
                    sa.and_(pl.c.finished_at == at, pl.c.match_id < mid),
                )
            )
        async with self.engine.connect() as conn:
            rows = await conn.execute(q)
            out = []
            for r in rows:
                d = dict(r._mapping)
                d["rules"] = json.loads(d["rules"])
                d["seats"] = json.loads(d["seats"])
                d["result"] = json.loads(d["result"]) if d["result"] else None
                out.append(d)
            return out

    # -- analyses (docs/analysis.md) ---------------------------------------------------------
    async def analysis(self, mid: str, decode: bool = True) -> dict[str, Any] | None:
        """A match's analysis row (``result`` decoded, or its JSON text unless
        ``decode``), or ``None``."""
        a = self.t.analyses
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(a).where(a.c.match_id == mid))).first()
        if row is None:
            return None
        d = dict(row._mapping)
        if decode and d["result"] is not None:
            d["result"] = json.loads(d["result"])
        return d

    async def claim_analysis(
        self, mid: str, owner: str, now: float, total: int, samples: int, stale_before: float
    ) -> bool:
        """Claim the analysis of ``mid`` for ``owner``: ``True`` when this call got it.

        The first claim inserts the row (the primary key lets only one insert win,
        whichever node tries); a later claim wins only over a running claim whose owner
        last reported before ``stale_before`` (a node that died), by a conditional
        update that only one node's transaction can make.
        """
        a = self.t.analyses
        values = {
            "status": "running",
            "owner": owner[:64],
            "done": 0,
            "total": total,
            "samples": samples,
            "started_at": now,
            "updated_at": now,
            "result": None,
        }
        try:
            async with self._write() as conn:
                await conn.execute(a.insert().values(match_id=mid, **values))
            return True
        except IntegrityError:
            pass
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(
                    a.c.match_id == mid,
                    a.c.status == "running",
                    a.c.updated_at < stale_before,
                )
                .values(**values)
            )
        return bool(res.rowcount == 1)

    async def analysis_progress(self, mid: str, owner: str, done: int, now: float) -> bool:
        """Store the progress of a claimed analysis; ``False`` when the claim was lost."""
        a = self.t.analyses
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(a.c.match_id == mid, a.c.owner == owner[:64], a.c.status == "running")
                .values(done=done, updated_at=now)
            )
        return bool(res.rowcount == 1)

    async def finish_analysis(
        self, mid: str, owner: str, now: float, result: dict[str, Any] | str | None
    ) -> bool:
        """Store the result (``None``: it failed; a ``str``: its JSON text already) of a
        claimed analysis; ``False`` when the claim was lost (another node's result counts)."""
        a = self.t.analyses
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(a.c.match_id == mid, a.c.owner == owner[:64], a.c.status == "running")
                .values(
                    status="done" if result is not None else "failed",
                    # Progress is written at most once a second: a finished one is whole.
                    done=a.c.total if result is not None else a.c.done,
                    updated_at=now,
                    result=result if result is None or isinstance(result, str) else _dumps(result),
                )
            )
        return bool(res.rowcount == 1)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
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
