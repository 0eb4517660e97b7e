"""What sockets may see of the matches: watching, history, final states, the list.

:class:`MatchViews` is the reading half of :class:`~domino.server.desks.matchdesk.MatchDesk`
(its base): who watches which match, the earlier rounds of a match, the last state of
a finished one, where a profile sits and the running matches for the lobby list. A
match another node drives is asked of that node through the desk's
:class:`~domino.server.cluster.ownership.Ownership`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from domino.rules import Rules
from domino.rules.audience import audience_of, may_follow
from domino.server import protocol as p
from domino.server.clock import Clock
from domino.server.cluster.ownership import Ownership
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import LobbyError
from domino.server.desks.matches import MatchRunner, seat_specs
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.matches import StoredMatch
from domino.server.transport.conn import Conn
from domino.table import RestoreError, Table

log = logging.getLogger("domino.server")


class MatchViews:
    """The matches as sockets see them (the desk's attributes, read here)."""

    settings: Settings
    clock: Clock
    db: Database
    router: InProcessRouter
    ownership: Ownership
    #: running matches by id
    runners: dict[str, MatchRunner]
    #: profile -> the unfinished match it plays in (here)
    seated: dict[str, str]

    def _table_of(self, sm: StoredMatch) -> Table | None:
        """A stored match's table, rebuilt from its log (clocks re-armed, ``Timing.grace``
        added); ``None`` (logged) if the log cannot be replayed."""
        try:
            return Table.restore(
                sm.id,
                Rules.from_dict(sm.rules),
                seat_specs(sm.seats),
                sm.seed,
                sm.log,
                self.clock.now(),
                timing=self.settings.timing,
                bot_budget=self.settings.bot_budget,
            )
        except (RestoreError, ValueError):
            log.exception("match %s cannot be restored", sm.id)
            return None

    async def seat_anywhere(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays now, on this node or (a cluster) on any other."""
        here = self.seat_ref(profile)
        if here is not None:
            return here
        return await self.ownership.seat_elsewhere(profile)

    async def seated_anywhere(self, profiles: Sequence[str]) -> set[str]:
        """Those of ``profiles`` who play now, here or on any other node (one look at the
        cluster's seat map for them all, not one per profile)."""
        here = {pid for pid in profiles if self.seat_ref(pid) is not None}
        rest = [pid for pid in profiles if pid not in here]
        return here | (await self.ownership.seated_elsewhere(rest) if rest else set())

    def next_wakeup(self) -> float | None:
        """The earliest time any match has something to do (tests)."""
        times = [
            w
            for r in self.runners.values()
            if not r.broken and (w := r.table.next_wakeup()) is not None
        ]
        return min(times) if times else None

    async def running(self) -> list[p.RunningMatchOut]:
        """The running matches for the lobby list, newest first (a cluster's node reads
        every node's from the database)."""
        if self.ownership.shared:
            return [
                p.RunningMatchOut(
                    match=row["id"],
                    lobby=row["lobby"],
                    rules=row["rules"],
                    players=[s["name"] for s in row["seats"]],
                    started_at=row["started_at"],
                    spectators=await self.ownership.spectators(row["id"]),
                )
                for row in await self.db.running_summaries()
            ]
        return [
            p.RunningMatchOut(
                match=r.id,
                lobby=r.lobby,
                rules=r.table.rules.to_dict(),
                players=r.names(),
                started_at=r.started_at,
                spectators=len(self.router.watchers(r.id)),
            )
            for r in sorted(self.runners.values(), key=lambda x: -x.started_at)
            if not r.table.finished and not r.broken
        ]

    # -- spectators ------------------------------------------------------------------------
    def _watch(self, runner: MatchRunner, conn: Conn) -> None:
        self.router.watch(runner.id, conn)
        conn.watching.add(runner.id)

    async def watch_from_lobby(self, mid: str | None, lobby: str, profile: str) -> None:
        """Someone in a lobby whose match runs, without a seat in it, watches it: the
        same as the watchers at the start (match_started with seat null, then a state).
        In a cluster the match may run on another node: this node's sockets of the
        profile hear its spectators' channel, and the owner sends each a snapshot."""
        if mid is None:
            return
        runner = self.runners.get(mid)
        if runner is not None and not runner.moved:
            if runner.broken or runner.seat_of(profile) is not None:
                return
            for c in list(self.router.sockets_of(profile)):
                if runner.id not in c.watching:
                    c.send(p.MatchStartedMsg(match=runner.id, lobby=lobby, seat=None))
                    self._watch(runner, c)
                    runner.snapshot_for(c)
            return
        if not self.ownership.shared:
            return
        conns = [c for c in self.router.sockets_of(profile) if mid not in c.watching]
        if not conns:
            return
        where = await self.seat_anywhere(profile)
        owner = await self.ownership.owner(mid)
        if owner is None or (where is not None and where.match == mid):
            return
        for c in conns:
            c.send(p.MatchStartedMsg(match=mid, lobby=lobby, seat=None))
            self.router.watch(mid, c)
            c.watching.add(mid)
            self.ownership.ask_snapshot(owner, c, mid)

    async def watching(self, conn: Conn, msg: p.Watch | p.Unwatch | p.Sync) -> None:
        """``watch``, ``unwatch`` and ``sync`` of a match; for a match that is over, its
        last state (the standings), whoever asks."""
        try:
            await self._watching(conn, msg)
        except LobbyError as e:
            if e.code != "match_not_found" or isinstance(msg, p.Unwatch):
                raise
            final = await self.final_snapshot(msg.match, conn.profile)
            if final is None:
                raise
            conn.send(final)

    async def _watching(self, conn: Conn, msg: p.Watch | p.Unwatch | p.Sync) -> None:
        here = self.runners.get(msg.match)
        if self.ownership.shared and (here is None or here.moved):
            if isinstance(msg, p.Unwatch):
                if msg.match not in conn.watching:
                    raise LobbyError("not_watching")
                self.router.unwatch(msg.match, conn)
                conn.watching.discard(msg.match)
                return
            try:
                owner = await self.ownership.owner(msg.match)
            except Exception:
                # The cluster away: nobody can say which node drives the match.
                log.warning("%s of %s not routed (Redis)", type(msg).__name__, msg.match)
                raise LobbyError("match_unavailable") from None
            if owner is not None:
                if isinstance(msg, p.Watch):
                    # This node hears the spectators' channel; the owner decides what the
                    # socket may see (its seat's view if it plays there), sends a snapshot.
                    self.router.watch(msg.match, conn)
                    conn.watching.add(msg.match)
                self.ownership.ask_snapshot(owner, conn, msg.match)
                return
            # Nobody else drives it: this node took it over just now (or it is not found).
        runner = self._runner(msg.match)
        seated = runner.seat_of(conn.profile) is not None
        watching = conn in self.router.watchers(runner.id)
        if isinstance(msg, p.Unwatch):
            if not watching:
                raise LobbyError("not_watching")
            self.router.unwatch(runner.id, conn)
            conn.watching.discard(runner.id)
            return
        if isinstance(msg, p.Sync) and not seated and not watching:
            raise LobbyError("not_watching")
        if isinstance(msg, p.Watch) and not seated:
            self._watch(runner, conn)
        runner.snapshot_for(conn)

    async def history(self, conn: Conn, msg: p.History) -> None:
        """``history``: the public events of a match's earlier rounds, for a socket that
        may see the match (its seat, watching it, or the match is over). Rebuilt from the
        table's log here, or from the stored log when another node drives the match (the
        stored log is never behind what a socket was sent)."""
        runner = self.runners.get(msg.match)
        if runner is not None and not runner.moved and not runner.broken:
            seated = runner.seat_of(conn.profile) is not None
            watching = conn in self.router.watchers(runner.id)
            if not may_follow(seated=seated, watching=watching, finished=False):
                raise LobbyError("not_watching")
            table: Table | None = runner.table
        else:
            sm = await self.db.stored(msg.match)
            finished = sm is None
            if sm is None:
                sm = await self.db.stored(msg.match, status="finished")
            if sm is None:
                raise LobbyError("match_not_found")
            players = [s.get("player_id") for s in sm.seats]
            seated = audience_of(conn.profile, players) is not None
            if not may_follow(
                seated=seated, watching=msg.match in conn.watching, finished=finished
            ):
                raise LobbyError("not_watching")
            table = self._table_of(sm)
        if table is None:
            raise LobbyError("match_not_found")
        rounds = [p.RoundEventsOut(**r) for r in table.earlier_rounds()]
        conn.send(p.EarlierRoundsMsg(match=msg.match, v=table.version, rounds=rounds))

    async def final_snapshot(self, mid: str, profile: str) -> dict[str, Any] | None:
        """The last state of a finished match, as ``profile`` saw it (its seat's view, or
        the spectators'): for a socket that asks after the end, a player whose connection
        dropped just before it, say. ``None`` unless the match is finished."""
        sm = await self.db.stored(mid, status="finished")
        table = self._table_of(sm) if sm is not None else None
        if sm is None or table is None or not table.finished:
            return None
        seat = audience_of(profile, [s.get("player_id") for s in sm.seats])
        snap = table.snapshot(seat, self.clock.now())
        return {**snap, "lobby": sm.lobby} if sm.lobby is not None else snap

    def _runner(self, mid: str) -> MatchRunner:
        runner = self.runners.get(mid)
        if runner is not None and runner.moved:
            raise LobbyError("match_moved")
        if runner is None or runner.broken:
            raise LobbyError("match_not_found")
        return runner

    def seat_ref(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays now, for the welcome."""
        mid = self.seated.get(profile)
        runner = self.runners.get(mid) if mid else None
        seat = runner.seat_of(profile) if runner else None
        return p.SeatRef(match=mid, seat=seat) if mid and seat is not None else None
