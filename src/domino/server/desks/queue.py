"""*Mit Menschen spielen*: the matchmaking queue of the whole site (issue 23, item 1).

The queue is the database's ``queue`` table (:mod:`~domino.server.storage.queue`), one
row per waiting profile, shared by every node. A player joins on whichever node their
socket is; one node pairs (the holder of the Redis lease ``queue-pairer``; a single
process always): every :data:`TICK` it reads the queue, asks :func:`.pairing.pair`
for tables and starts each like *Schnelles Spiel*, the lobby, the match and the
removal of its players' queue rows in one transaction. A pairing node killed at any
moment has stored a table completely or not at all: nobody is lost, nobody is paired
twice (another node takes the lease within its time and pairs on).

Every node tells its own waiting sockets how many others wait for the same choice
(never who). A profile whose last socket closed leaves the queue; a row whose profile
has no socket anywhere for :data:`OFFLINE_GRACE` (its node was killed and the player
did not come back) is dropped by the pairing node.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final, Literal

from domino.rules import Rules
from domino.server import protocol as p
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import Lobby, LobbyError, Occupant, new_code
from domino.server.desks.lobbydesk import LobbyDesk
from domino.server.desks.matchdesk import MatchDesk
from domino.server.desks.pairing import WAITS, Table, choice_of, pair, parse_choice, pool_of
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.lobbies import LobbyConflict
from domino.server.storage.queue import AlreadyQueued, Joined, QueueRow
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.server")

#: Seconds between two pairing passes (and two counts sent to the waiting).
TICK: Final = 0.5
#: Seconds a waiting row may have no socket anywhere before the pairing node drops it.
OFFLINE_GRACE: Final = 10.0
#: The Redis lease of the pairing node (beside the matches' leases).
PAIRER: Final = "queue-pairer"
#: Tables one pass starts at once (each a transaction on a pooled connection of its own).
STARTS_AT_ONCE: Final = 8

#: Why a profile stopped waiting (``queue_left``'s reason).
Reason = Literal["matched", "left", "gone", "lobby", "in_match"]


class QueueDesk:
    """Joining, leaving and the pairing loop of the matchmaking queue."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        router: InProcessRouter,
        lobbies: LobbyDesk,
        matches: MatchDesk,
        leases: Any = None,
        accepting: Callable[[], bool] = lambda: True,
    ) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = db
        self.router = router
        self.lobbies = lobbies
        self.matches = matches
        #: a cluster's :class:`~domino.server.cluster.lease.Leases` (``None``: one process)
        self.leases = leases
        self.accepting = accepting
        #: profile -> (choice, wait, joined_at) of the waiting whose sockets are here
        self.waiting: dict[str, tuple[str, int, float]] = {}
        self._told: dict[str, int] = {}  # profile -> the count it heard last
        self._offline: dict[str, float] = {}  # profile -> since when it has no socket
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: tables started by this node (tests, the benchmark)
        self.paired = 0
        self._first = True  # no pass yet

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the loop (pairing when this node holds the lease, counts always)."""
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="queue")

    async def stop(self) -> None:
        """End the loop; the rows stay (another node, or this one after a restart, pairs
        them)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.leases is not None:
            with contextlib.suppress(Exception):
                await self.leases.release(PAIRER)

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database or Redis away: the next pass tries again
                log.warning("queue pass failed", exc_info=True)
            await self.clock.wait_until(self.clock.now() + TICK, self._wake)

    async def tick(self) -> None:
        """One pass: pair (the pairing node), then tell this node's waiting the counts."""
        # One process knows everyone who waits (they joined or came back here): with
        # nobody, no pass asks the database (after the first, which finds the rows
        # left from before a restart).
        idle = self.leases is None and not self.waiting and not self._first
        if self.accepting() and not idle and await self._pairing():
            await self.pair_once()
            self._first = False
        await self.tell_counts()

    async def _pairing(self) -> bool:
        if self.leases is None:
            return True
        return bool(await self.leases.acquire(PAIRER))

    # -- a player's messages -------------------------------------------------------------------
    async def join(self, conn: Conn, msg: p.QueueJoin) -> None:
        """``queue_join``: wait for people of the same choice."""
        me = conn.profile
        try:
            choice = choice_of(msg.seats, msg.mode)
        except ValueError:
            raise LobbyError("queue_bad_choice") from None
        if msg.wait not in WAITS:
            raise LobbyError("queue_bad_wait")
        if await self.matches.seat_anywhere(me) is not None:  # here, or the seat map
            raise LobbyError("in_match")
        # The checks the database answers (waiting already, in a lobby, the rating) and
        # the insert are one transaction.
        now = self.clock.now()
        joined = await self._insert(conn, choice, msg.wait, now)
        if joined.lobby is not None:
            if not msg.leave:
                raise LobbyError("already_in_lobby")
            await self.lobbies.leave_held(me, joined.lobby)
            joined = await self._insert(conn, choice, msg.wait, now)
            if joined.lobby is not None:  # in another one again meanwhile
                raise LobbyError("already_in_lobby")
        self.waiting[me] = (choice, msg.wait, now)
        if self._may_pair():  # a pass at once; elsewhere the counts can wait for a tick
            self._wake.set()
        self.router.to_player(me, self._status(me, joined.count))

    async def _insert(self, conn: Conn, choice: str, wait: int, now: float) -> Joined:
        try:
            return await self.db.queue_join(
                conn.profile, conn.name, choice, wait, now, pool_of(choice)
            )
        except AlreadyQueued:  # (another tab, on another node, may have been quicker)
            raise LobbyError("already_queued") from None

    async def leave(self, profile: str, reason: Reason = "left") -> bool:
        """Take ``profile`` out of the queue (``queue_leave``, a page closed, a lobby
        joined); its sockets hear ``queue_left``. ``True`` if it waited."""
        self.waiting.pop(profile, None)
        self._told.pop(profile, None)
        if not await self.db.queue_leave(profile):
            return False
        self.router.to_player(profile, p.QueueLeftMsg(reason=reason))
        return True

    async def connected(self, conn: Conn) -> None:
        """A socket opened: a waiting profile's socket sees the queue at once (the
        database away: at the next change of the count)."""
        try:
            row = await self.db.queued(conn.profile)
            if row is None:
                return
            counts = await self.db.queue_counts()
        except Exception:  # the socket is welcomed already; nothing here may close it
            log.warning("queue state of %s not told", conn.profile, exc_info=True)
            return
        self.waiting[row.profile_id] = (row.choice, row.wait, row.joined_at)
        conn.send(self._status(row.profile_id, counts.get(row.choice, 1)))

    async def gone(self, profile: str) -> None:
        """A socket closed: with no socket left anywhere, the profile leaves the queue
        Only a profile this node knows to wait (it joined here, or a socket of it opened
        here since) is looked up; any other row, and one the database could not delete
        now, is dropped by the pairing node once its profile has been without a socket
        anywhere for :data:`OFFLINE_GRACE`."""
        if not self.router.online(profile) and profile in self.waiting:
            try:
                await self.leave(profile, "gone")
            except Exception:
                log.warning("%s not taken out of the queue", profile, exc_info=True)
        elif not self.router.sockets_of(profile):
            self.waiting.pop(profile, None)  # its other sockets are on other nodes

    # -- what the waiting see -----------------------------------------------------------------
    def _status(self, profile: str, count: int) -> p.QueueMsg:
        choice, wait, joined = self.waiting[profile]
        mode = parse_choice(choice)[2]
        self._told[profile] = count
        return p.QueueMsg(
            seats=choice.split(":", 1)[0],
            mode=mode.value,
            wait=wait,
            waited=round(max(0.0, self.clock.now() - joined), 1),
            others=max(0, count - 1),
        )

    async def tell_counts(self, only: list[str] | None = None) -> None:
        """Send this node's waiting how many others wait for their choice, when it changed
        (``only``: these profiles, whatever they heard last)."""
        if not self.waiting:
            return
        counts = await self.db.queue_counts()
        due: list[tuple[str, int]] = []
        for pid in list(only or self.waiting):
            entry = self.waiting.get(pid)
            if entry is None:
                continue
            n = counts.get(entry[0], 0)
            if n == 0:  # gone meanwhile (paired, or left on another node): told there
                if only is None:
                    self.waiting.pop(pid, None)
                continue
            if only is not None or self._told.get(pid) != n:
                due.append((pid, n))
        if only is None and due:
            # A count changed: somebody came, left or was paired. Ours whom another node
            # paired (or took out) meanwhile were told there; a count now would tell them
            # they wait again.
            still = await self.db.queued_among([pid for pid, _ in due])
            for pid, _ in due:
                if pid not in still:
                    self.waiting.pop(pid, None)
                    self._told.pop(pid, None)
            due = [(pid, n) for pid, n in due if pid in still]
        for pid, n in due:
            self.router.to_player(pid, self._status(pid, n))

    # -- pairing ------------------------------------------------------------------------------
    async def pair_once(self) -> int:
        """One pairing pass over the whole queue; returns how many tables started."""
        rows = await self.db.queue_rows()
        if not rows:
            return 0
        now = self.clock.now()
        rows = await self._present(rows, now)
        blocks = await self.db.blocks_among([r.profile_id for r in rows])
        tables = await self._free(pair(rows, now, blocks))
        return await self._start_all(tables)

    async def _free(self, tables: list[Table]) -> list[Table]:
        """The tables none of whose players sat down elsewhere meanwhile (a match, a
        lobby), asked for all of a pass's players at once; those who did wait no more."""
        humans = [r.profile_id for t in tables for r in t.humans]
        if not humans:
            return tables
        seated = await self.matches.seated_anywhere(humans)
        held = await self.db.lobbies_of([pid for pid in humans if pid not in seated])
        for pid in seated:
            await self.leave(pid, "in_match")
        for pid in held:
            await self.leave(pid, "lobby")
        return [
            t
            for t in tables
            if not any(r.profile_id in seated or r.profile_id in held for r in t.humans)
        ]

    async def _start_all(self, tables: list[Table]) -> int:
        """Start ``tables`` at most :data:`STARTS_AT_ONCE` at a time; returns how many
        started. Each start stores its table in one transaction of its own, so one that
        fails leaves only its own players waiting. A pass that is cancelled (the node
        stops) starts no further table but waits for the starts it began: each of those
        is then stored and driven here, or not stored at all, never a stored match that
        nobody drives. A pairing node whose lease ran out (by its own clock) begins no
        further start in this pass. The first error of a start (the database away) is
        raised once every begun start is done."""
        slots = asyncio.Semaphore(STARTS_AT_ONCE)
        begun: list[asyncio.Task[bool]] = []
        cancelled = False
        try:
            for table in tables:
                await slots.acquire()
                if not self._may_pair():
                    slots.release()
                    break
                task = asyncio.get_running_loop().create_task(self._start(table))
                task.add_done_callback(lambda _t: slots.release())
                begun.append(task)
        except asyncio.CancelledError:
            cancelled = True
        cancelled = await _settle(begun) or cancelled
        done = [t for t in begun if not t.cancelled()]
        started = sum(1 for t in done if t.exception() is None and t.result())
        self.paired += started
        if cancelled:
            raise asyncio.CancelledError
        failed = [e for t in done if (e := t.exception()) is not None]
        if failed:  # the database or Redis away: the loop logs it, the next pass tries
            raise failed[0]
        return started

    def _may_pair(self) -> bool:
        return self.leases is None or self.leases.valid(PAIRER)

    async def _present(self, rows: list[QueueRow], now: float) -> list[QueueRow]:
        """The rows whose profile has a socket somewhere; rows without one for longer than
        :data:`OFFLINE_GRACE` are dropped."""
        present = []
        for r in rows:
            if self.router.online(r.profile_id):
                self._offline.pop(r.profile_id, None)
                present.append(r)
                continue
            since = self._offline.setdefault(r.profile_id, now)
            if now - since >= OFFLINE_GRACE:
                self._offline.pop(r.profile_id, None)
                await self.db.queue_leave(r.profile_id)
        return present

    async def _start(self, table: Table) -> bool:
        """Start one table (lobby, match and queue rows in one transaction)."""
        humans = [r.profile_id for r in table.humans]
        seats, pairs, mode = parse_choice(table.choice)
        host = table.humans[0]
        lobby = Lobby.create(new_code(), host.profile_id, host.name, seats, self.clock.now())
        lobby.rules = Rules.preset(mode, seats, pairs)
        for i, r in enumerate(table.humans[1:], start=1):
            lobby.seats[i] = Occupant("human", r.profile_id, r.name)
        if table.bots:
            lobby.fill_bots(host.profile_id, table.level)
        lobby.check_start(host.profile_id)
        # A match from matchmaking is rated (docs/rules.md, "Ratings"): its accounts'
        # ratings change at its end; guests in it play unrated.
        lobby.rated = True

        def announce(lb: Lobby) -> None:
            for pid in humans:
                self.waiting.pop(pid, None)
                self._told.pop(pid, None)
                self.router.to_player(pid, p.QueueLeftMsg(reason="matched", match=lb.match))
            self.lobbies.broadcast(lb)

        try:
            await self.matches.start(lobby, None, announce, joined=humans, queued=humans)
        except LobbyConflict:  # one of them left, or was paired by another node: next pass
            return False
        except LobbyError as exc:  # the cluster cannot take the match now: next pass
            log.warning("queue: a table not started (%s)", exc.code)
            return False
        self.lobbies.remember(lobby)
        log.info(
            "queue: table of %d (+%d bots) started",
            len(humans),
            table.bots,
            extra={"event": "queue_paired", "match": lobby.match, "choice": table.choice},
        )
        return True


async def _settle(tasks: list[asyncio.Task[bool]]) -> bool:
    """Wait until every task of ``tasks`` is done, without cancelling any; ``True`` when
    the caller was cancelled meanwhile (it raises that once they are done)."""
    cancelled = False
    pending = [t for t in tasks if not t.done()]
    while pending:
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError:
            cancelled = True
        pending = [t for t in pending if not t.done()]
    return cancelled
