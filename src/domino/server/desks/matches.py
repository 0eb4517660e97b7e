"""Running matches: one asyncio task per match drives its :class:`~domino.table.Table`.

The task sleeps (on the injectable clock) until ``Table.next_wakeup()``, or
until a command changed the table, then calls ``Table.advance(now)``.
Commands from sockets go to ``Table.command`` under the same lock. Every
outcome is handled by :meth:`MatchRunner._apply`: first its log entries are
written to the entry store under the runner's fencing token, then (only then)
its messages are published to their audiences, so no client ever hears of an
entry that could be lost.

A runner sees the server only through its doors (:class:`MatchEnv`): the entry
store, the router, the clock and :class:`MatchHooks`. It never imports the
service.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from domino.i18n import t
from domino.rules import SeatView
from domino.rules.audience import audience_of
from domino.server.clock import Clock
from domino.server.desks.doors import EntryStore, NullObserver, Observer, Router, StaleFence
from domino.server.protocol.server import HintMsg
from domino.server.protocol.server import error as error_frame
from domino.server.transport.conn import Conn
from domino.table import Command, LeaveCommand, Outcome, SeatSpec, Table
from domino.table.commands import HintCommand
from domino.table.table import CommandError, bot_seed

log = logging.getLogger("domino.server")

#: After a failed write the task waits this long (clock seconds) before trying again.
RETRY_AFTER = 1.0


class PersistError(Exception):
    """Entries could not be stored; the table was rebuilt from what is stored."""


class MatchMoved(PersistError):
    """The store refused the runner's fencing token: another owner claimed the match.

    Nothing of the refused outcome was stored or sent, and the runner stops acting.
    """


@dataclass(frozen=True, slots=True)
class MatchHooks:
    """What a runner tells (or asks) the rest of the server, as callbacks.

    ``finishing``: the match ended; store its result, record and XP (awaited before
    anyone hears of the end). ``finished``: the end is announced; do the rest (new
    profiles, the lobby opens again, forget the runner). ``left``: a player left the
    match for good. ``activity``: the task went idle or ended (``Service.settle``).
    ``online``: whether a profile has a socket open now.
    """

    finishing: Callable[[MatchRunner], Awaitable[None]]
    finished: Callable[[MatchRunner], Awaitable[None]]
    left: Callable[[MatchRunner, int], Awaitable[None]]
    activity: Callable[[], Awaitable[None]]
    online: Callable[[str], bool]


class HintDoor(Protocol):
    """What a runner asks about hints (``server/desks/hints.HintDesk`` is one)."""

    async def limits(self, lobby: str | None) -> tuple[int, bool]:
        """``(hints per round, rated)`` of the match's lobby."""
        ...

    async def compute(self, view: SeatView, seed: str, names: list[str]) -> dict[str, Any]:
        """The hint for ``view`` (off the event loop); raises ``HintRefused``."""
        ...


@dataclass(frozen=True, slots=True)
class MatchEnv:
    """Everything the runners of one process share: the doors, the clock, table settings."""

    store: EntryStore
    router: Router
    hooks: MatchHooks
    clock: Clock
    timing: Any = None
    bot_budget: float | None = None
    observer: Observer = field(default_factory=NullObserver)
    #: Hints (``server/desks/hints.py``): the lobby's limits and the worker processes;
    #: ``None``: this process gives none.
    hints: HintDoor | None = None


class MatchRunner:
    """One live match: its table, who sits where, its fencing token and its task."""

    def __init__(
        self, env: MatchEnv, table: Table, lobby: str | None, started_at: float, fence: int
    ) -> None:
        self.env = env
        self.table = table
        #: the fencing token of this runner's claim; every append carries it
        self.fence = fence
        self.id = table.match_id
        self.lobby = lobby
        self.started_at = started_at
        # profile id per seat (None for bots); a seat whose player left is in ``left``
        self.players: list[str | None] = [s.spec.player_id for s in table.seats]
        self.left: set[int] = {i for i, s in enumerate(table.seats) if s.left}
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        #: the time the task's current wait ends by itself (its ``due``; inf: none)
        self.until = math.inf
        self.idle = False
        self.task: asyncio.Task[None] | None = None
        self.broken = False
        # The store refused our token: another owner has the match (we stopped acting).
        self.moved = False
        # The end is stored and announced, and the ``finished`` hook has returned.
        self.gone = False
        self.finished_players: list[str] = []
        # Seats whose hint is being computed (one at a time per seat).
        self.hinting: set[int] = set()

    # -- who is where --------------------------------------------------------------------
    def seat_of(self, profile: str) -> int | None:
        """The seat ``profile`` plays (not left), or ``None``: its audience."""
        return audience_of(profile, self.players, self.left)

    def names(self) -> list[str]:
        """Seat names in order."""
        return [s.spec.name for s in self.table.seats]

    # -- the task ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the match's task."""
        self.task = asyncio.create_task(self._run(), name=f"match {self.id}")

    async def stop(self) -> None:
        """Cancel the task (server shutdown; the match resumes from the database)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def is_idle(self) -> bool:
        """Nothing due now and nothing in flight (tests wait for this, never sleep)."""
        if self.broken:
            return True
        if self.table.finished:
            return self.task is not None and self.task.done() and self.gone
        due = self.table.next_wakeup()
        return self.idle and not self.wake.is_set() and (due is None or due > self.env.clock.now())

    async def _run(self) -> None:
        clock, hooks = self.env.clock, self.env.hooks
        try:
            while not self.table.finished and not self.broken:
                self.wake.clear()
                due = None
                async with self.lock:
                    try:
                        await self._apply(self.table.advance(clock.now()))
                        due = self.table.next_wakeup()
                    except PersistError:
                        due = clock.now() + RETRY_AFTER
                    self.until = math.inf if due is None else due
                if self.table.finished or self.broken:
                    break
                self.idle = True
                await hooks.activity()
                await clock.wait_until(due, self.wake)
                self.idle = False
        except asyncio.CancelledError:
            raise
        except Exception:
            # The table or the database failed: stop driving this match. Its stored log is
            # intact, so a restart resumes it; clients keep the last state they saw.
            log.exception("match %s stopped", self.id)
            self.broken = True
        finally:
            self.idle = True
            await hooks.activity()

    # -- commands and connections --------------------------------------------------------
    async def command(self, conn: Conn, seat: int, cmd: Command, ref: str | None) -> None:
        """A seat's command from ``conn``; errors go back to ``conn`` only."""
        if isinstance(cmd, HintCommand):
            await self.hint(conn, seat, cmd.v, ref)
            return
        began = time.perf_counter()
        kind = cmd.kind
        observe = self.env.observer.command
        async with self.lock:
            if self.table.finished or self.moved:
                self._error(conn, "match_over" if self.table.finished else "match_moved", ref)
                observe(kind, "refused", time.perf_counter() - began)
                return
            out = self.table.command(seat, cmd, self.env.clock.now())
            leaving = isinstance(cmd, LeaveCommand) and out.error is None
            try:
                await self._apply(out, after=(lambda: self.left.add(seat)) if leaving else None)
            except MatchMoved:
                # Another owner has the match: nothing was stored, nothing acknowledged.
                self._error(conn, "match_moved", ref)
                observe(kind, "failed", time.perf_counter() - began)
                return
            except PersistError:
                # Not stored, so not accepted: the client may simply try again.
                self._error(conn, "not_stored", ref)
                observe(kind, "failed", time.perf_counter() - began)
                return
            observe(kind, "ok" if out.error is None else "refused", time.perf_counter() - began)
            if (refused := out.error) is not None:
                conn.send(
                    error_frame(refused.code, ref, match=self.id, v=refused.v, **refused.params)
                )
                if refused.code == "stale_version":
                    conn.send(self._snapshot(seat))
            due = self.table.next_wakeup()
            # The task need not wake when its wait already ends in time: a human's move
            # starts the next turn's clock, later than the one the task waits for, and
            # the task wakes then, finds nothing due and waits again. Waking it after
            # every move took 8.7 % of the server's profile samples at 8,000 clients.
            skip = not self.table.finished and (math.inf if due is None else due) >= self.until
        if not skip:
            self.wake.set()
        if leaving:
            await self.env.hooks.left(self, seat)

    async def hint(self, conn: Conn, seat: int, v: int, ref: str | None) -> None:
        """A hint for ``seat`` asked on version ``v``: checked against the lobby's rules and
        the table, computed off the event loop from the seat's view (the lock is free
        meanwhile), then logged (everyone's log says a hint was used) and sent to ``conn``
        alone. Any refusal is an error frame to ``conn``; a refused hint is not counted."""
        door = self.env.hints
        if seat in self.hinting:  # checked and taken with no await between: one at a time
            conn.send(error_frame("hint_pending", ref, match=self.id, v=self.table.version))
            return
        self.hinting.add(seat)
        try:
            await self._hint(conn, seat, v, ref, door)
        finally:
            self.hinting.discard(seat)

    async def _hint(
        self, conn: Conn, seat: int, v: int, ref: str | None, door: HintDoor | None
    ) -> None:
        try:
            if door is None:
                raise CommandError("hint_off")
            limit, rated = await door.limits(self.lobby)
            if rated:
                raise CommandError("hint_rated")
            if not any(s.spec.kind == "bot" for s in self.table.seats):
                raise CommandError("hint_no_bots")
            async with self.lock:
                if self.moved:
                    raise CommandError("match_moved")
                seen = self.table.hint_view(seat, v, limit)
                names = self.names()
                # Seeded like a bot's decision, at a version no bot decides at (one-way).
                seed = bot_seed(self.table.seed, seat, -self.table.version)
            found = await door.compute(seen, seed, names)
            async with self.lock:
                if self.table.finished or self.moved or self.table.version != v:
                    raise CommandError("hint_stale")
                out = self.table.use_hint(seat, self.env.clock.now())
                try:
                    await self._apply(out)
                except MatchMoved:
                    raise CommandError("match_moved") from None
                except PersistError:
                    raise CommandError("not_stored") from None
                left = self.table.hints_left(seat, limit)
                conn.send(
                    HintMsg(
                        match=self.id,
                        v=self.table.version,
                        move=found["move"],
                        key=found["key"],
                        params=found["params"],
                        text=t(found["key"], **found["params"]),
                        left=left,
                    )
                )
        except CommandError as exc:
            conn.send(error_frame(exc.code, ref, match=self.id, v=self.table.version, **exc.params))
            return
        except Exception as exc:
            code = getattr(exc, "code", None)
            if not isinstance(code, str):
                log.exception("match %s: hint failed", self.id)
                code = "hint_failed"
            conn.send(error_frame(code, ref, match=self.id, v=self.table.version))
            return
        self.wake.set()

    async def sync_connected(self, seat: int) -> None:
        """Tell the table whether the seat's player has a socket open now.

        The state is read under the lock rather than passed in, so a quick
        disconnect and reconnect can never leave the table with the older answer.
        """
        async with self.lock:
            player = self.players[seat]
            if self.table.finished or self.moved or player is None:
                return
            online = self.env.hooks.online(player)
            if self.table.seats[seat].connected == online:
                return
            out = self.table.set_connected(seat, online, self.env.clock.now())
            await self._apply(out)
        self.wake.set()

    async def announce(self) -> None:
        """Tell every audience the table as it is now: a node that took the match over.

        Sockets on other nodes heard nothing since the old owner stopped, and what they
        sent it (a move, a snapshot request of a reconnect) may be lost with it; the
        restored table counts every seat as away. So each human seat is marked as its
        player is (online on some node or not), which sends every audience a snapshot
        when it changes anything; otherwise every audience gets a snapshot here.
        """
        before = [s.connected for s in self.table.seats]
        for seat, pid in enumerate(self.players):
            if pid is not None and seat not in self.left:
                await self.sync_connected(seat)
        async with self.lock:
            if self.table.finished or self.moved:
                return
            if [s.connected for s in self.table.seats] != before:
                return  # the change went to every audience already
            for audience, msg in self.table.snapshots(self.env.clock.now()):
                self._route(audience, self._decorate(msg))

    async def rename(self, seat: int, name: str) -> bool:
        """The seat's player took a new name: every audience sees it (a snapshot each,
        at the same version); ``False`` when nothing changed."""
        async with self.lock:
            if self.table.finished or self.moved or seat in self.left:
                return False
            if not self.table.rename(seat, name):
                return False
            for audience, msg in self.table.snapshots(self.env.clock.now()):
                self._route(audience, self._decorate(msg))
        return True

    def announce_end(self) -> None:
        """Send every audience the final table (``phase: "match_over"``, the standings):
        the end of a match whose owner stored it but died before it told anyone."""
        if not self.table.finished:
            return
        for audience, msg in self.table.snapshots(self.env.clock.now()):
            self._route(audience, self._decorate(msg))

    def snapshot_for(self, conn: Conn) -> None:
        """Send ``conn`` its full view now: its seat's, or the spectators'."""
        seat = self.seat_of(conn.profile)
        conn.send(self._snapshot(seat))

    def send_snapshot(self, seat: int) -> None:
        """Send a seat's full view to its player's sockets (on every node)."""
        self._route(seat, self._snapshot(seat))

    def _snapshot(self, seat: int | None) -> dict[str, Any]:
        snap = self.table.snapshot(seat, self.env.clock.now())
        return self._decorate(snap)

    def _decorate(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg.get("type") == "state" and self.lobby is not None:
            return {**msg, "lobby": self.lobby}
        return msg

    def _error(self, conn: Conn, code: str, ref: str | None) -> None:
        conn.send(error_frame(code, ref, match=self.id, v=self.table.version))

    # -- outcomes ------------------------------------------------------------------------
    async def _apply(self, out: Outcome, after: Callable[[], None] | None = None) -> None:
        # Persist first: the entries are the truth; a message about an unsaved entry
        # could announce something a crash would undo.
        hooks = self.env.hooks
        if out.entries:
            start = out.entries[0]["v"] - 1
            began = time.perf_counter()
            try:
                await self.env.store.append(self.id, start, out.entries, self.fence)
                self.env.observer.append(time.perf_counter() - began)
            except StaleFence as exc:
                # Another owner claimed the match: stop acting for it at once (no
                # rebuild, no retry; the new owner rebuilds from the stored log).
                log.warning("match %s: fence %d is stale; stopping here", self.id, self.fence)
                self.moved = True
                self.broken = True
                self.wake.set()
                raise MatchMoved from exc
            except Exception as exc:
                log.exception("match %s: entries %d.. not stored", self.id, start + 1)
                await self._recover(start)
                raise PersistError from exc
        if out.finished:
            # XP, stats and record are stored before anyone hears that the match is over.
            await hooks.finishing(self)
        for seat, msg in out.messages:
            self._route(seat, self._decorate(msg))
        if after is not None:
            after()
        if out.finished:
            await hooks.finished(self)
            self.gone = True

    async def _recover(self, stored: int) -> None:
        # The table in memory is ahead of the database; rebuild it from the stored log so
        # the two agree again (what was not stored never happened). The database says
        # what it holds; when it cannot be read (it is away), the first ``stored``
        # entries in memory are what it holds (entries are stored in order, and nothing
        # after a failed append was). If an append that failed did commit after all, the
        # next append at its position is refused, and this reads the database again.
        # Only a table that cannot be rebuilt stops the match (a restart resumes it).
        old, env = self.table, self.env
        try:
            entries = await env.store.load(self.id)
        except Exception:
            log.warning(
                "match %s: log not readable; rebuilt from its %d stored entries in memory",
                self.id,
                stored,
            )
            entries = old.log[:stored]
        try:
            table = Table.restore(
                self.id,
                old.rules,
                [s.spec for s in old.seats],
                old.seed,
                entries,
                env.clock.now(),
                timing=env.timing,
                bot_budget=env.bot_budget,
            )
        except Exception:
            log.exception("match %s cannot be recovered; stopping it", self.id)
            self.broken = True
            return
        now = env.clock.now()
        for i, st in enumerate(old.seats):
            if st.connected and table.seats[i].spec.kind == "human":
                table.set_connected(i, True, now)
        self.table = table
        self.left = {i for i, s in enumerate(table.seats) if s.left}

    def _route(self, seat: int | None, msg: dict[str, Any]) -> None:
        # One audience per message: the seat's player, or the match's spectators.
        self.env.observer.routed(seat)
        if seat is None:
            self.env.router.to_spectators(self.id, msg, frame=True)
            return
        player = self.players[seat]
        if player is not None and seat not in self.left:
            self.env.router.to_player(player, msg, self.id)


def seat_specs(data: list[dict[str, Any]]) -> list[SeatSpec]:
    """Seat specs from their stored form."""
    return [SeatSpec.from_dict(d) for d in data]
