"""Lobbies: one JSON document each, changed under optimistic concurrency (any node may
change any lobby), and the members table that keeps a profile in one lobby at most."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from domino.server.storage.engine import Core, dumps
from domino.server.storage.tables import Tables

__all__ = ["InOtherLobby", "LobbyConflict", "LobbyStore", "StoredLobby", "put_lobby"]


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


def _stored(row: Any) -> StoredLobby:
    """A lobby row's document and version."""
    return StoredLobby(dict(json.loads(row.data)), int(row.version))


async def put_lobby(
    tables: Tables,
    conn: AsyncConnection,
    code: str,
    status: str,
    data: dict[str, Any],
    now: float,
    version: int | None,
    joined: Sequence[str] = (),
    left: Sequence[str] = (),
) -> int:
    """Write a lobby's document over ``version`` and its members' changes inside the
    caller's transaction ``conn`` (:meth:`LobbyStore.save_lobby`; a new match stores its
    lobby in its own transaction); return the new version."""
    t, m = tables.lobbies, tables.members
    if version is None:
        await conn.execute(
            t.insert().values(code=code, status=status, data=dumps(data), updated_at=now, version=1)
        )
        new = 1
    else:
        done = await conn.execute(
            t.update()
            .where(t.c.code == code, t.c.version == version)
            .values(status=status, data=dumps(data), updated_at=now, version=version + 1)
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


class LobbyStore(Core):
    """The ``lobbies`` and ``lobby_members`` tables."""

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
                return await put_lobby(self.t, conn, code, status, data, now, version, joined, left)
        except IntegrityError:
            # A race the reads in put_lobby could not see: the same code created, or a
            # profile of ``joined`` added to another lobby, by another node meanwhile.
            if version is None:
                raise LobbyConflict(code) from None
            raise InOtherLobby(joined[0] if joined else "?") from None

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
        return None if row is None else _stored(row)

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

    async def lobby_row_of(self, pid: str) -> StoredLobby | None:
        """The lobby ``pid`` is in (not closed), with its version: :meth:`lobby_of` and
        :meth:`lobby_row` in one statement (a change of presence asks it on every node)."""
        m, t = self.t.members, self.t.lobbies
        query = (
            sa.select(t.c.data, t.c.version)
            .join_from(m, t, t.c.code == m.c.code)
            .where(m.c.profile_id == pid, t.c.status != "closed")
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _stored(row)

    async def lobbies_of(self, pids: Sequence[str]) -> dict[str, str]:
        """profile -> the code of its lobby (not closed), for those of ``pids`` in one (one
        statement: the matchmaking queue's pass asks for all its players at once)."""
        m = self.t.members
        wanted = sorted(set(pids))
        found: dict[str, str] = {}
        if not wanted:
            return found
        async with self.engine.connect() as conn:
            for i in range(0, len(wanted), 1000):  # bounded parameter lists
                rows = await conn.execute(
                    sa.select(m.c.profile_id, m.c.code).where(
                        m.c.profile_id.in_(wanted[i : i + 1000])
                    )
                )
                found.update({str(r.profile_id): str(r.code) for r in rows})
        return found

    async def lobby_exists(self, code: str) -> bool:
        """Whether a code was ever used (codes are never reused)."""
        t = self.t.lobbies
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(t.c.code).where(t.c.code == code))).first()
        return row is not None
