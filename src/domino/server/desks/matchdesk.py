"""The matches of one process: start, resume, commands, watching, the end.

:class:`MatchDesk` owns the running :class:`~domino.server.desks.matches.MatchRunner`
objects and who is seated where. It hands each runner only its doors (a
:class:`~domino.server.desks.matches.MatchEnv`: the entry store, the router, the
callbacks below) and claims each match for this process when it creates or
resumes it, so a second process on the same database fences the first out.

Everything that depends on other nodes (leases, taking matches over, the seat map,
forwarding a socket's request to the node that drives its match) is behind one door,
:class:`~domino.server.cluster.ownership.Ownership`; one process uses
:class:`~domino.server.cluster.ownership.SingleProcess`, which owns every match.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from domino.rules import RulesError
from domino.rules.record import record_of as rules_record_of
from domino.server import protocol as p
from domino.server.cluster.ownership import Ownership, SingleProcess
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.doors import NullObserver, Observer
from domino.server.desks.hints import HintDesk
from domino.server.desks.lobby import PLAYING, Lobby, LobbyError
from domino.server.desks.matches import MatchEnv, MatchHooks, MatchRunner, PersistError
from domino.server.desks.matchviews import MatchViews
from domino.server.desks.people import new_id, profile_out
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.matches import StoredMatch
from domino.server.transport.conn import Conn
from domino.table import SeatSpec, Table

log = logging.getLogger("domino.server")

#: What the desk calls when a match of a lobby is over: (runner, players who left it).
LobbyFree = Callable[[MatchRunner, set[str | None]], Awaitable[None]]


class MatchDesk(MatchViews):
    """Running matches, seats, spectators and the bookkeeping at a match's end."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        router: InProcessRouter,
        node: str,
        activity: Callable[[], Awaitable[None]],
        lobby_free: LobbyFree,
        observer: Observer | None = None,
        ownership: Ownership | None = None,
    ) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = db
        self.router = router
        #: the owner name this process claims matches with
        self.node = node
        self.runners: dict[str, MatchRunner] = {}
        #: who drives which match (one process: this one, every match)
        self.ownership: Ownership = ownership or SingleProcess()
        self.ownership.bind(self)
        self.seated: dict[str, str] = {}  # profile -> unfinished match it plays in
        self._activity = activity
        self._lobby_free = lobby_free
        self.hints = HintDesk(settings, db)
        hooks = MatchHooks(
            finishing=self.store_finish,
            finished=self.after_finish,
            left=self.left_match,
            activity=activity,
            # On any node of a cluster (its router knows), else on this process.
            online=router.online,
        )
        self.env = MatchEnv(
            store=db,
            router=router,
            hooks=hooks,
            clock=self.clock,
            timing=settings.timing,
            bot_budget=settings.bot_budget,
            observer=observer or NullObserver(),
            hints=self.hints,
        )

    # -- lifecycle -----------------------------------------------------------------------
    async def resume(self) -> None:
        """Claim and restart every unfinished match from its stored log (one process); in a
        cluster, the ownership's sweeper takes them one by one."""
        await self.ownership.start()
        if self.ownership.shared:
            return
        for mid in await self.db.running_ids():
            fence = await self.db.claim(mid, self.node)
            sm = await self.db.stored(mid)
            if sm is not None:
                await self.restore(sm, fence)

    async def restore(self, sm: StoredMatch, fence: int) -> MatchRunner | None:
        """Rebuild a stored match's table and start it under ``fence`` (``None``: its log
        cannot be replayed; the match is left as it is)."""
        table = self._table_of(sm)
        if table is None:
            return None
        runner = MatchRunner(self.env, table, sm.lobby, sm.started_at, fence)
        self.runners[sm.id] = runner
        if table.finished:  # the end was stored, the bookkeeping was not
            await self.finish_match(runner)
            return runner
        for i, pid in enumerate(runner.players):
            if pid is not None and i not in runner.left:
                self.seated[pid] = sm.id
        await self.ownership.seats_taken(runner)
        runner.start()
        return runner

    async def stop(self) -> None:
        """Stop every match task (the matches resume from the database); in a cluster,
        then give their leases up, so other nodes take them over at once."""
        await self.ownership.stop()
        for runner in list(self.runners.values()):
            await runner.stop()
        for mid in list(self.runners):
            await self.ownership.release(mid)
        await self.hints.stop()

    async def renamed(self, profile: str, name: str) -> None:
        """``profile`` took a new name: the seat it plays in a running match shows it to
        every audience, on whichever node drives the match."""
        runner = self.runners.get(self.seated.get(profile, ""))
        if runner is None or runner.moved:
            if not self.ownership.shared:
                return
            where = await self.seat_anywhere(profile)
            if where is None or await self.ownership.rename_elsewhere(profile, name, where.match):
                return
            runner = self.runners.get(where.match)  # this node took it over just now
        if runner is not None:
            await self.rename_seat(runner.id, profile, name)

    async def rename_seat(self, mid: str, profile: str, name: str) -> None:
        """Store and show a seat's new name in a match this node drives (the request may
        come from another node)."""
        runner = self.runners.get(mid)
        if runner is None or runner.moved:
            return
        seat = runner.seat_of(profile)
        if seat is None or runner.table.seats[seat].spec.name == name:
            return
        # Stored first, as everything is before anyone hears of it.
        seats = [s.spec.to_dict() for s in runner.table.seats]
        seats[seat]["name"] = name
        try:
            await self.db.store_seats(runner.id, seats)
        except Exception:  # the name stays as it was here; its next match shows it
            log.warning("match %s: the new name not stored", runner.id, exc_info=True)
            return
        await runner.rename(seat, name)

    def abandon(self, mid: str, why: str = "lease lost") -> None:
        """Stop acting for a match this node no longer owns (its lease lost, or handed
        over): no command, no clock, nothing stored or sent from here on (players hear
        ``match_moved`` and reconnect)."""
        runner = self.runners.get(mid)
        if runner is None or runner.moved:
            return
        runner.moved = True
        runner.broken = True
        if runner.task is not None:
            runner.task.cancel()
        self.ownership.let_go(mid)
        # Its players are seated wherever the match goes on now (seat_anywhere asks the
        # ownership), not at this stopped copy.
        for pid in runner.players:
            if pid is not None and self.seated.get(pid) == mid:
                del self.seated[pid]
        if why == "lease lost":
            log.warning(
                "match %s: lease lost; stopped", mid, extra={"event": "lease_lost", "match": mid}
            )

    # -- start -----------------------------------------------------------------------------
    async def start(
        self,
        lobby: Lobby,
        version: int | None,
        announce: Callable[[Lobby], None],
        joined: Sequence[str] = (),
        queued: Sequence[str] = (),
    ) -> None:
        """Start the match of ``lobby`` (checked by the caller, read at ``version``);
        ``announce`` sends the lobby's new state to its members before the match's first
        messages. Raises :class:`~domino.server.storage.lobbies.LobbyConflict` (nothing
        started) when the lobby changed since ``version``. ``version=None`` stores a new
        lobby with its members ``joined`` in the same transaction (*Schnelles Spiel*); then
        ``LobbyConflict`` means its code was used or a member is in another lobby.
        ``queued``: the matchmaking queue's rows of these players are taken in the same
        transaction (``LobbyConflict``: one of them is not waiting any more)."""
        now = self.clock.now()
        mid = new_id("m")
        seed = self.settings.seeds() if self.settings.seeds else secrets.token_hex(16)
        specs = []
        for o in lobby.seats:
            assert o is not None
            if o.kind == "bot":
                specs.append(SeatSpec("bot", o.name, level=o.level))
            else:
                specs.append(SeatSpec("human", o.name, player_id=o.player))
        table = Table(
            mid,
            lobby.rules,
            specs,
            seed,
            now,
            timing=self.settings.timing,
            bot_budget=self.settings.bot_budget,
        )
        if not await self.ownership.acquire(mid):
            raise LobbyError("cluster_unavailable")  # (a new id: only the cluster can refuse)
        before = (lobby.status, lobby.match)
        lobby.status = PLAYING
        lobby.match = mid
        try:
            # Stored claimed by this node (its fencing token in the same transaction).
            fence = await self.db.create_match(
                mid,
                lobby.code,
                lobby.rules.to_dict(),
                [s.to_dict() for s in specs],
                seed,
                now,
                list(table.log),
                lobby_doc=(lobby.status, lobby.to_dict(), version),
                joined=joined,
                rated=lobby.rated,
                queued=queued,
                owner=self.node,
            )
        except BaseException:
            lobby.status, lobby.match = before
            await self.ownership.release(mid)
            raise
        log.info(
            "match %s started",
            mid,
            extra={
                "event": "match_started",
                "match": mid,
                "lobby": lobby.code,
                "seats": len(specs),
            },
        )
        runner = MatchRunner(self.env, table, lobby.code, now, fence)
        self.runners[mid] = runner
        announce(lobby)
        for pid in runner.players:
            if pid is not None:
                self.seated[pid] = mid
        await self.ownership.seats_taken(runner)
        for m in lobby.members():
            seat = runner.seat_of(m)
            if seat is not None:
                # A player's sockets, on whichever nodes: the start, then the seat's view.
                self.router.to_player(m, p.MatchStartedMsg(match=mid, lobby=lobby.code, seat=seat))
                runner.send_snapshot(seat)
                continue
            for c in list(self.router.sockets_of(m)):
                c.send(p.MatchStartedMsg(match=mid, lobby=lobby.code, seat=None))
                self._watch(runner, c)
                runner.snapshot_for(c)
            self.ownership.watch_elsewhere(m, mid, lobby.code)
        # Humans who are not connected anywhere start as absent; their clock runs.
        for seat, pid in enumerate(runner.players):
            if pid is not None:
                await runner.sync_connected(seat)
        runner.start()

    # -- commands --------------------------------------------------------------------------
    async def command(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> None:
        """A seat's command (move, back, leave) from ``conn``; in a cluster, a match another
        node owns gets it through that node's channel (its answers come back the same way;
        ``resends``: how often it was sent again after an owner lost the match)."""
        if await self.ownership.forward(conn, mid, cmd, ref, resends):
            return
        runner = self._runner(mid)
        seat = runner.seat_of(conn.profile)
        if seat is None:
            # A player who left the match hears so from the table (left_match), not that
            # they never sat there.
            seat = next((i for i in runner.left if runner.players[i] == conn.profile), None)
        if seat is None:
            raise LobbyError("not_seated")
        await runner.command(conn, seat, cmd.command(), ref)

    async def seat_connected(self, conn: Conn) -> None:
        """A profile's socket opened: its seat (if any) is there, with a snapshot first."""
        mid = self.seated.get(conn.profile)
        here = self.runners.get(mid) if mid else None
        if (here is None or here.moved) and self.ownership.shared:
            # Seated in a match another node owns (or took over from this one): that node
            # marks the seat connected (presence) and sends this socket its snapshot.
            where = await self.seat_anywhere(conn.profile)
            try:
                owner = await self.ownership.owner(where.match) if where is not None else None
            except Exception:
                # The cluster away: the match is served to this socket when a node takes it
                # over again (MatchRunner.announce).
                log.warning("reconnect to %s not routed (Redis)", where and where.match)
                return
            if where is not None and owner is not None:
                self.ownership.ask_snapshot(owner, conn, where.match)
                return
            # Nobody else drives it: this node may have taken it over just now (owner).
            mid = self.seated.get(conn.profile)
            here = self.runners.get(mid) if mid else None
            if here is None or here.moved or where is None or where.match != mid:
                return
        runner = self.runners.get(mid) if mid else None
        seat = runner.seat_of(conn.profile) if runner else None
        if runner is None or seat is None:
            return
        # The seat is marked connected before this socket sees a snapshot: when the
        # table thought it away, marking it sends every audience a new snapshot (this
        # socket's included), which is then the first one it gets; else it asks for one.
        told = not runner.table.finished and not runner.table.seats[seat].connected
        try:
            await runner.sync_connected(seat)
        except PersistError:  # timers it fired were not stored: nothing was sent
            told = False
        if not told:
            runner.snapshot_for(conn)

    async def seat_gone(self, profile: str) -> None:
        """A profile's last socket closed; its seat stays, its clock runs (RULES.md §10)."""
        mid = self.seated.get(profile)
        runner = self.runners.get(mid) if mid else None
        if runner is not None:
            seat = runner.seat_of(profile)
            if seat is not None:
                await runner.sync_connected(seat)

    async def left_match(self, runner: MatchRunner, seat: int) -> None:
        """A player left a match for good (after the entry is stored and sent)."""
        pid = runner.players[seat]
        if pid is not None and self.seated.get(pid) == runner.id:
            del self.seated[pid]
        if pid is not None:
            await self.ownership.seats_left(runner, [pid])

    # -- the end ---------------------------------------------------------------------------
    async def finish_match(self, runner: MatchRunner) -> None:
        """A restored log that already ends: its owner died (or the process stopped)
        after the end was stored in the log, perhaps after its result too, but before
        everyone was told. Store what is missing (nothing twice), tell every audience
        the end as the owner would have (the final ``state``, then each player's
        profile), and do the rest of the bookkeeping. A socket that heard the end
        already hears it again, at the same version (the client takes it as it is)."""
        await self.store_finish(runner)
        runner.announce_end()
        await self.after_finish(runner)
        runner.gone = True

    async def store_finish(self, runner: MatchRunner) -> None:
        """Store XP, stats, record and result of a finished match."""
        table = runner.table
        now = self.clock.now()
        snap = table.snapshot(None, now)
        xp = table.xp or [None] * len(table.seats)
        place_of = {}
        for s in snap.get("standings", []):
            for seat in s["seats"]:
                place_of[seat] = s["place"]
        players: list[dict[str, Any]] = []
        for seat, pid in enumerate(runner.players):
            if pid is None:
                continue
            finished = not table.seats[seat].left
            place = place_of.get(seat)
            players.append(
                {
                    "seat": seat,
                    "profile_id": pid,
                    "place": place,
                    "xp": int(xp[seat] or 0) if finished else 0,
                    "won": finished and place == 1,
                    "finished": finished,
                }
            )
        result = {
            "reason": table.finished_reason,
            "standings": snap.get("standings"),
            "xp": xp,
            "names": runner.names(),
        }
        # (False: stored before, by an owner that died before it announced the end.)
        await self.db.end_match(runner.id, now, result, record_of(table), players)
        runner.finished_players = [pl["profile_id"] for pl in players]
        for pl in players:
            if self.seated.get(pl["profile_id"]) == runner.id:
                del self.seated[pl["profile_id"]]
        # Nobody plays in it any more, on any node, before anyone hears of the end: a
        # player who starts the next match at once is not refused as seated (in_match).
        await self.ownership.seats_left(runner, [pid for pid in runner.players if pid])

    async def after_finish(self, runner: MatchRunner) -> None:
        """Tell the players their new profile, open the lobby again, and mark the match
        finished: its end has been announced (until then a node that takes it over
        announces it)."""
        table = runner.table
        for pid, change in (await self.db.rating_changes(runner.id)).items():
            self.router.to_player(pid, p.RatingMsg(match=runner.id, **change))
        rows = await self.db.profiles(runner.finished_players)
        for pid, row in rows.items():
            # Each player's own channel: only that person's sockets, on every node.
            self.router.to_player(pid, p.ProfileMsg(profile=profile_out(row)))
        await self._lobby_free(
            runner,
            {runner.players[i] for i in range(len(table.seats)) if table.seats[i].left} - {None},
        )
        try:
            await self.db.close_match(runner.id)
        except Exception:
            # Left running: whoever resumes or takes it over next announces the end again.
            log.warning("match %s: not marked finished", runner.id, exc_info=True)
        # Only now is the match gone (Service.settle counts it busy until here).
        self.runners.pop(runner.id, None)
        log.info(
            "match %s finished",
            runner.id,
            extra={"event": "match_finished", "match": runner.id, "reason": table.finished_reason},
        )
        await self.ownership.release(runner.id)
        for c in self.router.forget_match(runner.id):
            c.watching.discard(runner.id)
        await self._activity()


def record_of(table: Table) -> dict[str, Any]:
    """The game record of a finished match (``domino.rules.record``, docs/records.md).

    Should the engine refuse to write one, the table's own log with its rules,
    seats and seed is stored instead: it replays the match just as well, and is
    never shown (``domino.rules.audience.public_record``).
    """
    try:
        if table.match is not None:
            return rules_record_of(table.match, seats=[s.spec for s in table.seats])
    except RulesError:
        log.exception("match %s: no record; storing the table log", table.match_id)
    return {
        "format": "domino-table-log",
        "version": 1,
        "match": table.match_id,
        "rules": table.rules.to_dict(),
        "seats": [s.spec.to_dict() for s in table.seats],
        "seed": table.seed,
        "log": table.log,
    }
