"""The matchmaking queue (*Mit Menschen spielen*, issue 23): one row per waiting profile.

The queue lives in the database every node shares, not in Redis (docs/architecture.md,
"Matchmaking"): a pairing takes its players' rows in the same transaction that stores
the new lobby and match (:func:`take_queued`, called by
:meth:`~.matches.MatchStore.create_match`), so a node killed at any moment either
paired a table completely or not at all. Rows are taken with ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL: two pairing nodes never wait for each other, and a row another
pairing holds makes this one give up (it tries again on its next pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from domino.ratings import display, start_skill
from domino.server.storage.engine import Core
from domino.server.storage.lobbies import LobbyConflict
from domino.server.storage.tables import Tables

__all__ = ["AlreadyQueued", "Joined", "QueueRow", "QueueStore", "take_queued"]


class AlreadyQueued(Exception):
    """The profile waits in the queue already (another tab, another node)."""


@dataclass(frozen=True)
class QueueRow:
    """One waiting profile: its choice, its longest wait (0: only people) and rating."""

    profile_id: str
    name: str
    choice: str
    wait: int
    rating: float
    joined_at: float


@dataclass(frozen=True)
class Joined:
    """What :meth:`QueueStore.queue_join` did: stored the row (``count``: how many wait
    for its choice now, itself included), or nothing because the profile is in
    ``lobby``."""

    lobby: str | None
    count: int


async def take_queued(
    tables: Tables, conn: AsyncConnection, pids: Sequence[str], postgres: bool
) -> None:
    """Delete the queue rows of ``pids`` inside the caller's transaction, or raise
    :class:`LobbyConflict` when any of them is gone (left, or paired by another node) or
    held by another pairing (PostgreSQL: ``SKIP LOCKED``); the caller's transaction then
    rolls back and nothing of the pairing is stored."""
    if not pids:
        return
    q = tables.queue
    wanted = sorted(set(pids))
    sel = sa.select(q.c.profile_id).where(q.c.profile_id.in_(wanted))
    if postgres:
        sel = sel.with_for_update(skip_locked=True)
    got = {r.profile_id for r in await conn.execute(sel)}
    if got != set(wanted):
        raise LobbyConflict("queue")
    done = await conn.execute(q.delete().where(q.c.profile_id.in_(wanted)))
    if done.rowcount != len(wanted):  # pragma: no cover - the rows are locked (or SQLite's)
        raise LobbyConflict("queue")


class QueueStore(Core):
    """The ``queue`` table (the ratings and the blocks the pairing asks for are
    :class:`~.ratings.RatingStore`'s and :class:`~.talk.TalkStore`'s)."""

    async def queue_join(
        self, pid: str, name: str, choice: str, wait: int, now: float, pool: str
    ) -> Joined:
        """Put ``pid`` in the queue for ``choice`` with its rating in ``pool`` (the start
        rating when it has none there), in one transaction that also reads what a join
        must know: :class:`AlreadyQueued` when it waits already, nothing stored when it
        is in a lobby (:attr:`Joined.lobby`), else the choice's count after the insert.
        (Each checkout of a pooled connection costs a ping and a transaction's begin and
        end: a join used to check out five times.)"""
        q, m, r = self.t.queue, self.t.members, self.t.ratings
        state = sa.select(
            sa.select(q.c.profile_id).where(q.c.profile_id == pid).scalar_subquery(),
            sa.select(m.c.code).where(m.c.profile_id == pid).limit(1).scalar_subquery(),
            sa.select(r.c.rating).where(r.c.profile_id == pid, r.c.pool == pool).scalar_subquery(),
        )
        try:
            async with self._write() as conn:
                queued, lobby, rating = (await conn.execute(state)).one()
                if queued is not None:
                    raise AlreadyQueued(pid)
                if lobby is not None:
                    return Joined(str(lobby), 0)
                await conn.execute(
                    q.insert().values(
                        profile_id=pid,
                        name=name,
                        choice=choice,
                        wait=wait,
                        rating=float(display(start_skill())) if rating is None else rating,
                        joined_at=now,
                    )
                )
                count = await conn.scalar(
                    sa.select(sa.func.count()).select_from(q).where(q.c.choice == choice)
                )
        except IntegrityError:  # another tab, on another node, inserted it meanwhile
            raise AlreadyQueued(pid) from None
        return Joined(None, int(count or 1))

    async def queue_leave(self, pid: str) -> bool:
        """Take ``pid`` out of the queue; ``True`` if it waited."""
        q = self.t.queue
        async with self._write() as conn:
            done = await conn.execute(q.delete().where(q.c.profile_id == pid))
            return bool(done.rowcount)

    async def queued(self, pid: str) -> QueueRow | None:
        """``pid``'s row, if it waits."""
        q = self.t.queue
        async with self.engine.connect() as conn:
            r = (await conn.execute(sa.select(q).where(q.c.profile_id == pid))).first()
        return None if r is None else QueueRow(*r)

    async def queue_rows(self) -> list[QueueRow]:
        """Everybody who waits, longest first."""
        q = self.t.queue
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(q).order_by(q.c.joined_at, q.c.profile_id))
            return [QueueRow(*r) for r in rows]

    async def queue_counts(self) -> dict[str, int]:
        """How many wait for each choice."""
        q = self.t.queue
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(q.c.choice, sa.func.count()).group_by(q.c.choice))
            return {str(c): int(n) for c, n in rows}

    async def queued_among(self, pids: Sequence[str]) -> set[str]:
        """Those of ``pids`` who wait."""
        q = self.t.queue
        wanted = sorted(set(pids))
        found: set[str] = set()
        async with self.engine.connect() as conn:
            for i in range(0, len(wanted), 1000):
                sel = sa.select(q.c.profile_id).where(q.c.profile_id.in_(wanted[i : i + 1000]))
                found.update(str(r.profile_id) for r in await conn.execute(sel))
        return found
