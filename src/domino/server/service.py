"""The server's state and behaviour, apart from HTTP: people, lobbies, matches, routing.

:class:`Service` is created by the app factory and lives for one process. The
WebSocket endpoint hands it parsed messages (:meth:`Service.handle`); the
REST endpoints call its people and query methods. All lobby changes run under
one lock, are stored, and then sent to everyone in the lobby; every match
runs in its own :class:`~domino.server.matches.MatchRunner` task.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Container
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from domino.i18n import t
from domino.rules import Rules, RulesError
from domino.rules.record import public as rules_public_record
from domino.rules.record import record_of as rules_record_of
from domino.table import RestoreError, SeatSpec, Table

from . import protocol as p
from .conn import Conn
from .db import Database
from .lobby import CLOSED, OPEN, PLAYING, Lobby, LobbyError, new_code, normalize_code
from .matches import MatchRunner, PersistError, seat_specs
from .people import People, new_id, profile_out
from .settings import Settings

log = logging.getLogger("domino.server")


class Online(Container[str]):
    """``pid in online``: whether a profile has an open socket now.

    Lobby messages ask this for a lobby's few members; building the set of every
    online profile for each of them made each lobby change cost O(connected clients)
    (the largest share of the server's time while thousands connected).
    """

    __slots__ = ("_conns",)

    def __init__(self, conns: dict[str, set[Conn]]) -> None:
        self._conns = conns

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and bool(self._conns.get(pid))


class Service:
    """Everything one server process knows and does."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = Database(settings.database_url, settings.table_prefix)
        self.people = People(self.db, settings)
        self.lobbies: dict[str, Lobby] = {}
        self.member_of: dict[str, str] = {}  # profile -> lobby code
        self.runners: dict[str, MatchRunner] = {}
        self.seated: dict[str, str] = {}  # profile -> unfinished match it plays in
        self.conns: dict[str, set[Conn]] = {}
        self.lobby_lock = asyncio.Lock()
        self.activity = asyncio.Condition()
        self.busy = 0  # messages being handled (see settle)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        """Open the database (migrated by itself where ``Settings.migrates``, refused with
        :class:`.schema.NotMigrated` when behind otherwise), load lobbies, and resume every
        unfinished match."""
        if self.settings.db_url is None:
            Path(self.settings.data_dir).mkdir(parents=True, exist_ok=True)
        await self.db.prepare(self.settings.migrates, self.settings.upgrade_command)
        await self.db.open()
        for data in await self.db.live_lobbies():
            lobby = Lobby.from_dict(data)
            self.lobbies[lobby.code] = lobby
            for m in lobby.members():
                self.member_of[m] = lobby.code
        now = self.clock.now()
        for sm in await self.db.unfinished():
            try:
                table = Table.restore(
                    sm.id,
                    Rules.from_dict(sm.rules),
                    seat_specs(sm.seats),
                    sm.seed,
                    sm.log,
                    now,
                    timing=self.settings.timing,
                    bot_budget=self.settings.bot_budget,
                )
            except (RestoreError, ValueError):
                log.exception("match %s cannot be restored; left as it is", sm.id)
                continue
            runner = MatchRunner(self, table, sm.lobby, sm.started_at)
            self.runners[sm.id] = runner
            if table.finished:  # the end was stored, the bookkeeping was not
                await self.finish_match(runner)
                continue
            for i, pid in enumerate(runner.players):
                if pid is not None and i not in runner.left:
                    self.seated[pid] = sm.id
            runner.start()
        # A running match's lobby is playing it (older databases stored the two apart).
        for runner in self.runners.values():
            own = self.lobbies.get(runner.lobby) if runner.lobby else None
            if own is not None and not runner.table.finished and own.match != runner.id:
                own.status = PLAYING
                own.match = runner.id
                await self._save(own)
        # A lobby whose match is gone (finished before a crash) opens again.
        for lobby in list(self.lobbies.values()):
            if lobby.status == PLAYING and lobby.match not in self.runners:
                await self._reopen(lobby, set())

    async def stop(self) -> None:
        """Stop every match task and close the database (matches resume on start)."""
        for runner in list(self.runners.values()):
            await runner.stop()
        for conns in self.conns.values():
            for c in conns:
                c.close(1001)
        await self.db.close()

    async def notify_activity(self) -> None:
        """A match task went idle or ended (see :meth:`settle`)."""
        async with self.activity:
            self.activity.notify_all()

    async def settle(self) -> None:
        """Wait until every match has done what is due now and every outbox is sent.

        Tests call this after moving a fake clock; it never sleeps.
        """
        async with self.activity:
            await self.activity.wait_for(
                lambda: self.busy == 0 and all(r.is_idle() for r in self.runners.values())
            )
        for conns in list(self.conns.values()):
            for c in list(conns):
                if not c.closed:
                    await c.outbox.join()

    def next_wakeup(self) -> float | None:
        """The earliest time any match has something to do (tests)."""
        times = [
            w
            for r in self.runners.values()
            if not r.broken and (w := r.table.next_wakeup()) is not None
        ]
        return min(times) if times else None

    # -- connections ---------------------------------------------------------------------
    def conns_of(self, profile: str) -> set[Conn]:
        """The open sockets of a profile."""
        return self.conns.get(profile, set())

    def online(self) -> Online:
        """Profiles with at least one open socket (a membership test, built in O(1))."""
        return Online(self.conns)

    async def connect(self, conn: Conn) -> None:
        """A socket said hello: welcome it, restore its lobby and its seat at once."""
        self.busy += 1
        try:
            await self._connect(conn)
        finally:
            self.busy -= 1
            await self.notify_activity()

    async def _connect(self, conn: Conn) -> None:
        row = await self.db.profile(conn.profile)
        assert row is not None
        # From here to the welcome nothing waits: no message can reach the socket before it.
        first = not self.conns_of(conn.profile)
        self.conns.setdefault(conn.profile, set()).add(conn)
        code = self.member_of.get(conn.profile)
        mid = self.seated.get(conn.profile)
        runner = self.runners.get(mid) if mid else None
        seat = runner.seat_of(conn.profile) if runner else None
        conn.send(
            p.WelcomeMsg(
                profile=profile_out(row),
                lobby=code,
                match=p.SeatRef(match=mid, seat=seat) if mid and seat is not None else None,
            )
        )
        lobby = self.lobbies.get(code) if code is not None else None
        if lobby is not None:
            async with self.lobby_lock:
                if first:
                    self._broadcast(lobby)
                else:
                    self._send_lobby(lobby, conn)
                self._watch_lobby_match(lobby, conn.profile)
        if runner is not None and seat is not None:
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

    async def disconnect(self, conn: Conn) -> None:
        """A socket closed; the seat stays, the clock runs (RULES.md §10)."""
        self.busy += 1
        try:
            await self._disconnect(conn)
        finally:
            self.busy -= 1
            await self.notify_activity()

    async def _disconnect(self, conn: Conn) -> None:
        conns = self.conns.get(conn.profile, set())
        conns.discard(conn)
        for watched in list(conn.watching):
            r = self.runners.get(watched)
            if r is not None:
                r.spectators.discard(conn)
        if conns:
            return
        self.conns.pop(conn.profile, None)
        code = self.member_of.get(conn.profile)
        if code is not None and code in self.lobbies:
            async with self.lobby_lock:
                self._broadcast(self.lobbies[code])
        mid = self.seated.get(conn.profile)
        runner = self.runners.get(mid) if mid else None
        if runner is not None:
            seat = runner.seat_of(conn.profile)
            if seat is not None:
                await runner.sync_connected(seat)

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
        try:
            match msg:
                case p.Ping():
                    conn.send(p.PongMsg())
                case p.Hello():
                    raise LobbyError("hello_twice")
                case p.ListLobbies():
                    conn.send(self.lobby_list())
                case p.CreateLobby() | p.JoinLobby() | p.TakeSeat() | p.LeaveSeat():
                    await self._lobby_action(conn, msg)
                case p.LeaveLobby() | p.AddBot() | p.RemoveBot() | p.SetRules() | p.Start():
                    await self._lobby_action(conn, msg)
                case p.MoveCmd():
                    await self._match_command(
                        conn, msg.match, {"type": "move", "move": msg.move, "v": msg.v}, ref
                    )
                case p.Back():
                    await self._match_command(conn, msg.match, {"type": "back"}, ref)
                case p.LeaveMatch():
                    await self._match_command(conn, msg.match, {"type": "leave"}, ref)
                case p.Watch() | p.Unwatch() | p.Sync():
                    self._watching(conn, msg)
                case _:  # pragma: no cover - the parser admits only the types above
                    raise LobbyError("unknown_type", type=type(msg).__name__)
        except LobbyError as exc:
            self.error(conn, exc.code, ref, **exc.params)

    @staticmethod
    def error(conn: Conn, code: str, ref: str | None = None, /, **params: Any) -> None:
        """Send a German error to one socket."""
        conn.send(p.ErrorMsg(code=code, message=t(code, **params), ref=ref))

    # -- lobbies -------------------------------------------------------------------------
    async def _lobby_action(self, conn: Conn, msg: BaseModel) -> None:
        me, name = conn.profile, conn.name
        async with self.lobby_lock:
            if isinstance(msg, p.CreateLobby):
                await self._create_lobby(conn, msg.seats)
                return
            if isinstance(msg, p.JoinLobby):
                await self._join_lobby(conn, msg)
                return
            code = self.member_of.get(me)
            lobby = self.lobbies.get(code) if code else None
            if lobby is None:
                raise LobbyError("not_in_lobby")
            match msg:
                case p.TakeSeat():
                    if self.seated.get(me, lobby.match) != lobby.match:
                        raise LobbyError("in_match")
                    lobby.take_seat(me, name, msg.seat)
                case p.LeaveSeat():
                    lobby.leave_seat(me, name)
                case p.AddBot():
                    lobby.add_bot(me, msg.seat, msg.level)
                case p.RemoveBot():
                    lobby.remove_bot(me, msg.seat)
                case p.SetRules():
                    lobby.set_rules(me, msg.rules)
                case p.LeaveLobby():
                    lobby.leave(me)
                    self.member_of.pop(me, None)
                    await self._save(lobby)
                    for c in self.conns_of(me):
                        c.send(p.LobbyLeftMsg(code=lobby.code, reason="left"))
                    self._after_change(lobby)
                    return
                case p.Start():
                    lobby.check_start(me)
                    # Nobody plays two matches at once (a repeated start after a restart).
                    if any(
                        o is not None and o.kind != "bot" and o.player in self.seated
                        for o in lobby.seats
                    ):
                        raise LobbyError("in_match")
                    await self._start_match(lobby)
                    return
            await self._save(lobby)
            self._broadcast(lobby)

    async def _create_lobby(self, conn: Conn, seats: int) -> None:
        me = conn.profile
        if me in self.member_of:
            raise LobbyError("already_in_lobby")
        if me in self.seated:
            raise LobbyError("in_match")
        code = new_code()
        while code in self.lobbies or await self.db.lobby_exists(code):
            code = new_code()
        lobby = Lobby.create(code, me, conn.name, seats, self.clock.now())
        self.lobbies[code] = lobby
        self.member_of[me] = code
        await self._save(lobby)
        self._broadcast(lobby)

    async def _join_lobby(self, conn: Conn, msg: p.JoinLobby) -> None:
        me = conn.profile
        code = normalize_code(msg.code)
        lobby = self.lobbies.get(code)
        if lobby is None:
            raise LobbyError("lobby_not_found", code=code)
        current = self.member_of.get(me)
        if current == code:
            self._send_lobby(lobby, conn)
            return
        if current is not None:
            raise LobbyError("already_in_lobby")
        if me in self.seated and not msg.watch:
            raise LobbyError("in_match")
        lobby.join(me, conn.name, msg.watch)
        self.member_of[me] = code
        await self._save(lobby)
        self._broadcast(lobby)
        self._watch_lobby_match(lobby, me)

    def _watch_lobby_match(self, lobby: Lobby, profile: str) -> None:
        # Someone in a lobby whose match runs, without a seat in it, watches it: the
        # same as the watchers at the start (match_started with seat null, then a state).
        runner = self.runners.get(lobby.match) if lobby.match else None
        if runner is None or runner.broken or runner.seat_of(profile) is not None:
            return
        for c in self.conns_of(profile):
            if runner.id not in c.watching:
                c.send(p.MatchStartedMsg(match=runner.id, lobby=lobby.code, seat=None))
                runner.spectators.add(c)
                c.watching.add(runner.id)
                runner.snapshot_for(c)

    def _after_change(self, lobby: Lobby) -> None:
        if lobby.status == CLOSED:
            self.lobbies.pop(lobby.code, None)
            for m in lobby.members():
                self.member_of.pop(m, None)
        self._broadcast(lobby)

    async def _save(self, lobby: Lobby) -> None:
        await self.db.save_lobby(lobby.code, lobby.status, lobby.to_dict(), self.clock.now())

    def _lobby_msg(self, lobby: Lobby, profile: str | None) -> p.LobbyMsg:
        you = None
        if profile is not None:
            you = p.YouOut(player=profile, seat=lobby.seat_of(profile), host=lobby.host == profile)
        return p.LobbyMsg(lobby=lobby.out(self.settings.base_url, self.online()), you=you)

    def _send_lobby(self, lobby: Lobby, conn: Conn) -> None:
        conn.send(self._lobby_msg(lobby, conn.profile))

    def _broadcast(self, lobby: Lobby) -> None:
        for m in lobby.members():
            msg = self._lobby_msg(lobby, m)
            for c in self.conns_of(m):
                c.send(msg)

    def lobby_out(self, code: str) -> p.LobbyOut | None:
        """A lobby for ``GET /api/lobbies/{code}``."""
        try:
            lobby = self.lobbies.get(normalize_code(code))
        except LobbyError:
            return None
        return None if lobby is None else lobby.out(self.settings.base_url, self.online())

    def lobby_list(self) -> p.LobbyListMsg:
        """Open lobbies and running matches."""
        base = self.settings.base_url
        online = self.online()
        open_ = []
        for lobby in sorted(self.lobbies.values(), key=lambda x: -x.created_at):
            # A lobby nobody is looking at is not worth joining; it stays reachable by code.
            if lobby.status != OPEN or not any(m in online for m in lobby.members()):
                continue
            host = next(
                (o.name for o in lobby.seats if o is not None and o.player == lobby.host),
                lobby.watchers.get(lobby.host or "", ""),
            )
            out = lobby.out(base, set())
            open_.append(
                p.OpenLobbyOut(
                    code=lobby.code,
                    link=out.link,
                    host=host,
                    rules=out.rules,
                    seats=len(lobby.seats),
                    taken=sum(1 for o in lobby.seats if o is not None),
                    watchers=len(lobby.watchers),
                )
            )
        running = [
            p.RunningMatchOut(
                match=r.id,
                lobby=r.lobby,
                rules=r.table.rules.to_dict(),
                players=r.names(),
                started_at=r.started_at,
                spectators=len(r.spectators),
            )
            for r in sorted(self.runners.values(), key=lambda x: -x.started_at)
            if not r.table.finished and not r.broken
        ]
        return p.LobbyListMsg(open=open_, running=running)

    # -- matches -------------------------------------------------------------------------
    async def _start_match(self, lobby: Lobby) -> None:
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
        before = (lobby.status, lobby.match)
        lobby.status = PLAYING
        lobby.match = mid
        try:
            await self.db.create_match(
                mid,
                lobby.code,
                lobby.rules.to_dict(),
                [s.to_dict() for s in specs],
                seed,
                now,
                list(table.log),
                lobby_doc=(lobby.status, lobby.to_dict()),
            )
        except BaseException:
            lobby.status, lobby.match = before
            raise
        runner = MatchRunner(self, table, lobby.code, now)
        self.runners[mid] = runner
        self._broadcast(lobby)
        online = self.online()
        for pid in runner.players:
            if pid is not None:
                self.seated[pid] = mid
        for m in lobby.members():
            seat = runner.seat_of(m)
            for c in self.conns_of(m):
                c.send(p.MatchStartedMsg(match=mid, lobby=lobby.code, seat=seat))
                if seat is None:
                    runner.spectators.add(c)
                    c.watching.add(mid)
                runner.snapshot_for(c)
        # Humans who are not connected right now start as absent; their clock runs.
        for seat, pid in enumerate(runner.players):
            if pid is not None and pid not in online:
                await runner.sync_connected(seat)
        runner.start()

    async def _match_command(
        self, conn: Conn, mid: str, cmd: dict[str, Any], ref: str | None
    ) -> None:
        runner = self.runners.get(mid)
        if runner is None or runner.broken:
            raise LobbyError("match_not_found")
        seat = runner.seat_of(conn.profile)
        if seat is None:
            # A player who left the match hears so from the table (left_match), not that
            # they never sat there.
            seat = next((i for i in runner.left if runner.players[i] == conn.profile), None)
        if seat is None:
            raise LobbyError("not_seated")
        await runner.command(conn, seat, cmd, ref)

    def _watching(self, conn: Conn, msg: p.Watch | p.Unwatch | p.Sync) -> None:
        runner = self.runners.get(msg.match)
        if runner is None or runner.broken:
            raise LobbyError("match_not_found")
        seated = runner.seat_of(conn.profile) is not None
        if isinstance(msg, p.Unwatch):
            if conn not in runner.spectators:
                raise LobbyError("not_watching")
            runner.spectators.discard(conn)
            conn.watching.discard(runner.id)
            return
        if isinstance(msg, p.Sync) and not seated and conn not in runner.spectators:
            raise LobbyError("not_watching")
        if isinstance(msg, p.Watch) and not seated:
            runner.spectators.add(conn)
            conn.watching.add(runner.id)
        runner.snapshot_for(conn)

    async def left_match(self, runner: MatchRunner, seat: int) -> None:
        """A player left a match for good (after the entry is stored and sent)."""
        pid = runner.players[seat]
        if pid is not None and self.seated.get(pid) == runner.id:
            del self.seated[pid]

    async def finish_match(self, runner: MatchRunner) -> None:
        """Both halves of a match's end (used when a restored log already ends)."""
        await self.store_finish(runner)
        await self.after_finish(runner)

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
        await self.db.finish_match(runner.id, now, result, record_of(table), players)
        runner.finished_players = [pl["profile_id"] for pl in players]
        for pl in players:
            if self.seated.get(pl["profile_id"]) == runner.id:
                del self.seated[pl["profile_id"]]

    async def after_finish(self, runner: MatchRunner) -> None:
        """Tell the players their new profile and open the lobby again."""
        table = runner.table
        rows = await self.db.profiles(runner.finished_players)
        for pid, row in rows.items():
            for c in self.conns_of(pid):
                c.send(p.ProfileMsg(profile=profile_out(row)))
        lobby = self.lobbies.get(runner.lobby) if runner.lobby else None
        if lobby is not None and lobby.match == runner.id:
            async with self.lobby_lock:
                await self._reopen(
                    lobby,
                    {runner.players[i] for i in range(len(table.seats)) if table.seats[i].left}
                    - {None},
                )
        # Only now is the match gone (Service.settle counts it busy until here).
        self.runners.pop(runner.id, None)
        for c in runner.spectators:
            c.watching.discard(runner.id)
        await self.notify_activity()

    async def _reopen(self, lobby: Lobby, gone: set[str | None]) -> None:
        # "Nochmal": the lobby opens again with its seats; players who left the match
        # lose their lobby seat (they are still in the lobby as watchers).
        for i, o in enumerate(lobby.seats):
            if o is not None and o.player is not None and o.player in gone:
                lobby.seats[i] = None
                lobby.watchers[o.player] = o.name
        lobby.status = OPEN if lobby.members() else CLOSED
        lobby.match = None
        await self._save(lobby)
        self._after_change(lobby)

    # -- queries -------------------------------------------------------------------------
    async def profile_page(self, pid: str) -> p.ProfilePageOut | None:
        """A profile with its recent matches."""
        row = await self.db.profile(pid)
        if row is None:
            return None
        recent = []
        for r in await self.db.recent(pid, self.settings.recent_matches):
            result = r["result"] or {}
            standings = result.get("standings") or []
            scores = [s["points"] for s in sorted(standings, key=lambda s: s["side"])]
            recent.append(
                p.RecentOut(
                    match=r["match_id"],
                    finished_at=r["finished_at"],
                    rules=r["rules"],
                    seat=r["seat"],
                    place=r["place"],
                    xp=r["xp"],
                    won=r["won"],
                    players=[s["name"] for s in r["seats"]],
                    scores=scores,
                )
            )
        return p.ProfilePageOut(profile=profile_out(row), recent=recent)

    async def match_out(self, mid: str) -> p.MatchOut | None:
        """A match summary; the record only once it is over."""
        row = await self.db.match(mid)
        if row is None:
            return None
        players = [
            {
                "seat": i,
                "name": s["name"],
                "kind": s["kind"],
                "level": s.get("level"),
                "player": s.get("player_id"),
            }
            for i, s in enumerate(row["seats"])
        ]
        return p.MatchOut(
            match=row["id"],
            status=row["status"],
            lobby=row["lobby"],
            rules=row["rules"],
            players=players,
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            result=row["result"],
            record=public_record(row["record"]) if row["status"] == "finished" else None,
        )


def public_record(record: Any) -> dict[str, Any] | None:
    """What ``GET /api/matches/{id}`` shows of a stored record: never a secret.

    A game record loses its tiles out of play (RULES.md §4; records stored before
    they were left out still hold them). The fallback table log (below) holds the
    secret seed, which recomputes every deal: it stays on the server.
    """
    if not isinstance(record, dict) or record.get("format") != "domino-record":
        return None
    return rules_public_record(record)


def record_of(table: Table) -> dict[str, Any]:
    """The game record of a finished match (``domino.rules.record``, docs/records.md).

    Should the engine refuse to write one, the table's own log with its rules,
    seats and seed is stored instead: it replays the match just as well, and is
    never shown (:func:`public_record`).
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
