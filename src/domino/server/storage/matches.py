"""Matches as rows: a new match with its lobby's change in one transaction, the running
matches a node replays or lists, a match's end (result, record, history rows, XP) and
a profile's finished matches.

The entries of a running match are appended by :class:`.matchlog.MatchLog`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from domino.server.storage.engine import Core, dumps
from domino.server.storage.lobbies import InOtherLobby, LobbyConflict, put_lobby
from domino.server.storage.queue import take_queued
from domino.server.storage.ratings import rate_match

__all__ = ["MatchStore", "StoredMatch"]


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


class MatchStore(Core):
    """The ``matches`` and ``match_players`` tables (and a new match's first entries)."""

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
        rated: bool = False,
        queued: Sequence[str] = (),
        owner: str | None = None,
    ) -> int:
        """Store a new match and the entries its table logged when it was made; return
        its fencing token.

        ``lobby_doc`` (status, document, version read) stores the lobby's new state in
        the same transaction: a kill between the two writes must never leave a running
        match whose lobby is still open and startable (a second match for the same
        people). Raises :class:`LobbyConflict` (nothing stored) when the lobby changed
        since that version was read. A version of ``None`` stores a new lobby with the
        members ``joined`` (*Schnelles Spiel*); ``LobbyConflict`` then says that its code
        was used or that a member is in another lobby. ``queued``: a pairing of the
        matchmaking queue takes these players' rows in the same transaction
        (:func:`.queue.take_queued`; ``LobbyConflict`` when one is gone or held).
        ``owner``: the match is stored claimed by it, its token 1 (what
        :meth:`~.matchlog.MatchLog.claim` would return next, without a second
        transaction); without one the token is 0 (nobody claimed it).
        """
        try:
            await self._create_match(
                mid, lobby, rules, seats, seed, now, log, lobby_doc, joined, rated, queued, owner
            )
        except (IntegrityError, InOtherLobby):
            if lobby_doc is None or lobby_doc[2] is not None:
                raise
            raise LobbyConflict(lobby or "?") from None
        return 0 if owner is None else 1

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
        rated: bool,
        queued: Sequence[str] = (),
        owner: str | None = None,
    ) -> None:
        claimed = {} if owner is None else {"fence": 1, "owner": owner[:64]}
        async with self._write() as conn:
            await take_queued(self.t, conn, queued, not self.is_sqlite)
            if lobby is not None and lobby_doc is not None:
                status, doc, version = lobby_doc
                await put_lobby(self.t, conn, lobby, status, doc, now, version, joined)
            await conn.execute(
                self.t.matches.insert().values(
                    id=mid,
                    lobby=lobby,
                    status="running",
                    rules=dumps(rules),
                    seats=dumps(seats),
                    seed=seed,
                    started_at=now,
                    rated=rated,
                    **claimed,
                )
            )
            if log:
                await conn.execute(
                    self.t.log.insert(),
                    [{"match_id": mid, "idx": i, "entry": dumps(e)} for i, e in enumerate(log)],
                )

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
        """Store a match's end in one transaction: result, record, history rows, XP,
        stats and, for a rated match, the ratings (:func:`.ratings.rate_match`);
        ``False`` (nothing changed) when its end is stored already.

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
                    result=dumps(result),
                    record=dumps(record),
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
            # The same transaction: a rating is updated exactly when the end is stored.
            await rate_match(conn, self.t, mid, now, result, players, not self.is_sqlite)
        return True

    async def store_seats(self, mid: str, seats: list[dict[str, Any]]) -> None:
        """A running match's seats anew (a player's new name)."""
        m = self.t.matches
        async with self._write() as conn:
            await conn.execute(
                m.update().where(m.c.id == mid, m.c.status == "running").values(seats=dumps(seats))
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
