"""The server's state and behaviour apart from HTTP, behind one small facade.

:class:`Service` is created by the app factory and lives for one process. The
WebSocket endpoint hands it parsed messages (:meth:`Service.handle`); the REST
endpoints call its people and query methods. The work is done by one object per
concern, each in its own module:

- :class:`~domino.server.desks.connections.Connections`: sockets arriving and leaving;
- :class:`~domino.server.desks.lobbydesk.LobbyDesk`: lobbies and their changes;
- :class:`~domino.server.desks.matchdesk.MatchDesk`: starting, resuming, commanding,
  watching and finishing matches (each a :class:`~domino.server.desks.matches.MatchRunner`
  behind its narrow doors);
- :class:`~domino.server.desks.queries.Queries`: profile pages and match records;

and the process's :class:`~domino.server.cluster.router.InProcessRouter` holds the sockets;
in a cluster the :class:`~domino.server.cluster.redisrouter.RedisRouter` and the
:class:`~domino.server.cluster.leased.LeasedOwnership` connect the nodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from domino.rules.audience import public_record
from domino.server import protocol as p
from domino.server.cluster.lease import Leases
from domino.server.cluster.leased import LeasedOwnership
from domino.server.cluster.ownership import Ownership, SingleProcess
from domino.server.cluster.ratelimit import Limits, LocalLimits, RedisLimits
from domino.server.cluster.redisrouter import RedisRouter
from domino.server.cluster.router import InProcessRouter, Online
from domino.server.desks.analysis import AnalysisDesk
from domino.server.desks.board import Board
from domino.server.desks.connections import Connections
from domino.server.desks.invites import Invites
from domino.server.desks.lobby import CLOSED, Lobby, LobbyError
from domino.server.desks.lobbydesk import LobbyDesk
from domino.server.desks.matchdesk import MatchDesk, record_of
from domino.server.desks.matches import MatchRunner
from domino.server.desks.people import People
from domino.server.desks.puzzles import PuzzleDesk
from domino.server.desks.queries import Queries
from domino.server.desks.queue import QueueDesk
from domino.server.desks.talk import TalkDesk
from domino.server.metrics import Metrics
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.outage import HealthProbe
from domino.server.transport.conn import Conn

__all__ = ["Online", "Service", "node_name", "public_record", "record_of"]

log = logging.getLogger("domino.server")

#: How long a stop waits for the messages being handled (seconds).
STOP_WAIT = 5.0
#: How long a drain waits for other nodes to take its matches over (seconds).
HAND_OVER_WAIT = 10.0


def node_name() -> str:
    """The owner name this process claims matches with: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"[-64:]


class Service:
    """Everything one server process knows and does (a facade over the desks)."""

    def __init__(self, settings: Settings, node: str | None = None) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.node = node or settings.node or node_name()
        self.db = (settings.database or Database)(settings.database_url, settings.table_prefix)
        self.people = People(self.db, settings)
        # A cluster's node (Settings.redis_url): Redis for the match leases and for the
        # messages between nodes; else the single process's own router.
        self.redis: Any = None
        leases = None
        self.router: InProcessRouter = InProcessRouter()
        self.ownership: Ownership = SingleProcess()
        if settings.redis_url:
            import redis.asyncio as aioredis

            self.redis = aioredis.from_url(settings.redis_url, decode_responses=True)
            leases = Leases(
                self.redis, self.node, ttl=settings.lease_ttl, prefix=settings.redis_prefix
            )
            self.router = router = RedisRouter(self.redis, self.node, prefix=settings.redis_prefix)
            self.ownership = LeasedOwnership(
                self.db,
                router,
                leases,
                sweep_every=settings.sweep_every,
                clock=self.clock.now,
                takeover=lambda: self.metrics.takeovers.inc(),
            )
        self.activity = asyncio.Condition()
        self._awaiting_activity = 0  # settle() or stop() calls waiting on it
        self.busy = 0  # messages being handled (see settle)
        # Set by drain() (SIGTERM): no new lobbies or matches here; /api/health says 503.
        self.draining = False
        self.stopping = False  # set by stop(): no new work reaches the database
        self._leaving: set[asyncio.Task[None]] = set()  # disconnects being handled
        self.metrics = Metrics(
            sockets=lambda: sum(len(c) for c in self.router.conns.values()),
            matches=lambda: len(self.runners),
            lobbies=lambda: sum(1 for lb in self.lobbies.values() if lb.status != CLOSED),
            draining=lambda: float(self.draining),
            leases=lambda: float(len(leases.held())) if leases is not None else 0.0,
            router=self.router if isinstance(self.router, RedisRouter) else None,
        )
        self.match_desk = MatchDesk(
            settings,
            self.db,
            self.router,
            self.node,
            self.notify_activity,
            self._lobby_free,
            self.metrics,
            self.ownership,
        )
        self.lobby_desk = LobbyDesk(settings, self.db, self.router, self.match_desk)
        self.connections = Connections(self.db, self.router, self.lobby_desk, self.match_desk)
        self.queries = Queries(settings, self.db)
        self.board = Board(settings, self.db)
        # Talk's and invitations' budgets: the site's in Redis (a sender's sockets on
        # several nodes share one), or this process's.
        self.limits: Limits = (
            RedisLimits(self.redis, prefix=settings.redis_prefix)
            if self.redis is not None
            else LocalLimits()
        )
        self.invites = Invites(settings, self.db, self.router, self.lobby_desk, self.limits)
        self.talk = TalkDesk(settings, self.db, self.router, self.limits)
        # The matchmaking queue; in a cluster its pairing node holds a lease of its own.
        self.queue = QueueDesk(
            settings,
            self.db,
            self.router,
            self.lobby_desk,
            self.match_desk,
            Leases(self.redis, self.node, ttl=settings.lease_ttl, prefix=settings.redis_prefix)
            if self.redis is not None
            else None,
            accepting=lambda: not self.draining and not self.stopping,
        )
        self.analyses = AnalysisDesk(settings, self.db, self.node)
        self.puzzles = PuzzleDesk(settings, self.db, self.analyses)
        # /api/health: whether the database answers (a connection of the probe's own).
        self.health = HealthProbe(settings.database_url, self.clock)

    async def _lobby_free(self, runner: MatchRunner, gone: set[str | None]) -> None:
        await self.lobby_desk.match_over(runner, gone)

    # -- state the app and the tests read ------------------------------------------------
    @property
    def runners(self) -> dict[str, MatchRunner]:
        """Running matches by id."""
        return self.match_desk.runners

    @property
    def seated(self) -> dict[str, str]:
        """profile -> the unfinished match it plays in."""
        return self.match_desk.seated

    @property
    def lobbies(self) -> dict[str, Lobby]:
        """Live lobbies by code."""
        return self.lobby_desk.lobbies

    @property
    def member_of(self) -> dict[str, str]:
        """profile -> the code of its lobby."""
        return self.lobby_desk.member_of

    @property
    def conns(self) -> dict[str, set[Conn]]:
        """profile -> its open sockets (on this node)."""
        conns: dict[str, set[Conn]] = self.router.conns
        return conns

    def conns_of(self, profile: str) -> set[Conn]:
        """The open sockets of a profile."""
        return set(self.router.sockets_of(profile))

    def online(self) -> Online:
        """Profiles with at least one open socket (a membership test, built in O(1))."""
        return self.lobby_desk.online()

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        """Open the database, load lobbies, and claim and resume every unfinished match."""
        if self.settings.db_url is None:
            Path(self.settings.data_dir).mkdir(parents=True, exist_ok=True)
        await self.db.prepare(self.settings.migrates, self.settings.upgrade_command)
        await self.db.open()
        if isinstance(self.router, RedisRouter):
            await self.router.start()
        await self.lobby_desk.load()
        await self.match_desk.resume()
        await self.lobby_desk.reconcile()
        self.queue.start()

    async def stop(self) -> None:
        """Stop every match task and close the database (matches resume on start)."""
        self.stopping = True
        # What sockets asked is finished (bounded) before the database closes, so no
        # handler meets a closed database halfway.
        self._awaiting_activity += 1
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_WAIT), self.activity:
                    await self.activity.wait_for(lambda: self.busy == 0)
        finally:
            self._awaiting_activity -= 1
        await self.puzzles.stop()
        await self.analyses.stop()
        await self.queue.stop()
        await self.lobby_desk.stop()
        await self.match_desk.stop()
        for conns in self.router.conns.values():
            for c in conns:
                c.close(1001)
        await self.health.stop()
        await self.db.close()
        if isinstance(self.router, RedisRouter):
            await self.router.stop()
        if self.redis is not None:
            await self.redis.aclose()

    async def drain(self) -> None:
        """Stop taking new lobbies and matches (``domino serve`` on SIGTERM, docs/deploy.md).

        ``/api/health`` then answers 503 with ``"accepting": false``, so the balancer
        sends new players elsewhere; ``create_lobby`` and ``start`` are refused with
        ``node_draining``. In a cluster the node then hands every match it drives to
        the other nodes (:meth:`Ownership.hand_over`) while its sockets stay open and
        forward their commands to the new owners; one process keeps its matches until
        it stops (they resume when it starts again).
        """
        if self.draining:
            return
        self.draining = True
        log.info("draining: no new lobbies or matches", extra={"event": "draining"})
        left = await self.ownership.hand_over(HAND_OVER_WAIT)
        if left:
            log.warning(
                "draining: %d matches not taken over by another node yet",
                len(left),
                extra={"event": "hand_over_pending", "matches": left},
            )

    async def notify_activity(self) -> None:
        """A match task went idle or ended (see :meth:`settle`); nothing to do (the
        common case, once per message) while nobody waits for it."""
        if not self._awaiting_activity:
            return
        async with self.activity:
            self.activity.notify_all()

    async def settle(self) -> None:
        """Wait until every match has done what is due now and every outbox is sent.

        Tests call this after moving a fake clock; it never sleeps.
        """
        self._awaiting_activity += 1
        try:
            async with self.activity:
                await self.activity.wait_for(
                    lambda: self.busy == 0 and all(r.is_idle() for r in self.runners.values())
                )
        finally:
            self._awaiting_activity -= 1
        for conns in list(self.router.conns.values()):
            for c in list(conns):
                if not c.closed:
                    await c.outbox.join()

    def next_wakeup(self) -> float | None:
        """The earliest time any match has something to do (tests)."""
        return self.match_desk.next_wakeup()

    # -- sockets -------------------------------------------------------------------------
    async def connect(self, conn: Conn) -> None:
        """A socket said hello: welcome it, restore its lobby and its seat at once."""
        self.busy += 1
        try:
            await self.connections.connect(conn)
            await self.queue.connected(conn)
        finally:
            self.busy -= 1
            await self.notify_activity()

    async def disconnect(self, conn: Conn) -> None:
        """A socket closed; the seat stays, the clock runs (RULES.md §10).

        The work runs in a task of its own that the socket's handler waits for but
        cannot cancel: a handler cancelled (at shutdown) in the middle of a database read
        left a connection that never closed, and the process hung on it.
        """
        if self.stopping:  # the process ends: seats and lobbies are told by the next one
            self.router.remove_socket(conn)
            return
        self.busy += 1
        task = asyncio.get_running_loop().create_task(self._disconnect(conn))
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)
        await asyncio.shield(task)

    async def _disconnect(self, conn: Conn) -> None:
        try:
            await self.connections.disconnect(conn)
            await self.queue.gone(conn.profile)
        finally:
            self.busy -= 1
            await self.notify_activity()

    # -- dispatch ------------------------------------------------------------------------
    async def handle(self, conn: Conn, msg: BaseModel) -> None:
        """One parsed message from a signed-in socket."""
        self.busy += 1
        try:
            await self._handle(conn, msg)
        finally:
            self.busy -= 1
            await self.notify_activity()

    async def _handle(self, conn: Conn, msg: BaseModel) -> None:
        ref = getattr(msg, "ref", None)
        matches = self.match_desk
        try:
            if self.draining and isinstance(
                msg, (p.CreateLobby, p.Start, p.QuickGame, p.QueueJoin)
            ):
                raise LobbyError("node_draining")
            if self.draining and isinstance(msg, p.Rematch) and msg.accept:  # may start one
                raise LobbyError("node_draining")
            if isinstance(msg, (p.CreateLobby, p.JoinLobby, p.QuickGame)):
                await self.queue.leave(conn.profile, "lobby")  # nobody waits and plays
            match msg:
                case p.Ping():
                    conn.send(p.PongMsg())
                case p.Hello():
                    raise LobbyError("hello_twice")
                case p.ListLobbies():
                    conn.send(await self.lobby_list())
                case p.CreateLobby() | p.JoinLobby() | p.TakeSeat() | p.LeaveSeat():
                    await self.lobby_desk.action(conn, msg)
                case p.LeaveLobby() | p.AddBot() | p.RemoveBot() | p.SetRules() | p.Start():
                    await self.lobby_desk.action(conn, msg)
                case p.FillBots() | p.QuickGame() | p.SetRated():
                    await self.lobby_desk.action(conn, msg)
                case p.QueueJoin():
                    await self.queue.join(conn, msg)
                case p.QueueLeave():
                    if not await self.queue.leave(conn.profile):
                        conn.send(p.QueueLeftMsg(reason="left"))  # waited nowhere: the view clears
                case p.MoveCmd() | p.Back() | p.LeaveMatch() | p.Hint():
                    await matches.command(conn, msg.match, msg, ref)
                case p.Watch() | p.Unwatch() | p.Sync():
                    await matches.watching(conn, msg)
                case p.History():
                    await matches.history(conn, msg)
                case p.Rematch():
                    await self.lobby_desk.rematch(conn, msg)
                case p.RematchFollow():
                    await self.lobby_desk.rematch_follow(conn, msg)
                case p.Invite():
                    await self.invites.invite(conn, msg)
                case p.Say() | p.React() | p.Block() | p.ListBlocks() | p.Report() | p.TalkLog():
                    await self.talk.handle(conn, msg)
                case _:  # pragma: no cover - the parser admits only the types above
                    raise LobbyError("unknown_type", type=type(msg).__name__)
        except LobbyError as exc:
            self.error(conn, exc.code, ref, **exc.params)

    @staticmethod
    def error(conn: Conn, code: str, ref: str | None = None, /, **params: Any) -> None:
        """Send a German error to one socket."""
        conn.send(p.error(code, ref, **params))

    # -- queries -------------------------------------------------------------------------
    async def down(self) -> list[str]:
        """The dependencies this node cannot reach now: ``database``, ``redis`` (a cluster's).

        The database is asked (``SELECT 1``, at most once a second); Redis is what the
        router last saw of it (its subscriber, publishing and heartbeat).
        """
        down = [] if await self.health.database_ok() else ["database"]
        if isinstance(self.router, RedisRouter) and not self.router.healthy:
            down.append("redis")
        return down

    async def lobby_list(self) -> p.LobbyListMsg:
        """Open lobbies and running matches."""
        return p.LobbyListMsg(
            open=await self.lobby_desk.open_lobbies(), running=await self.match_desk.running()
        )

    async def lobby_out(self, code: str) -> p.LobbyOut | None:
        """A lobby for ``GET /api/lobbies/{code}``."""
        return await self.lobby_desk.lobby_out(code)

    async def profile_page(
        self, pid: str, before: str | None = None, limit: int | None = None
    ) -> p.ProfilePageOut | None:
        """A profile with one page of its matches (newest first)."""
        return await self.queries.profile_page(pid, before, limit)

    async def match_out(self, mid: str) -> p.MatchOut | None:
        """A match summary; the record only once it is over."""
        return await self.queries.match_out(mid)
