"""The lobbies of one process: create, join, seats, bots, rules, start, reopen.

All lobby changes run under one lock, are stored, and then sent to everyone in
the lobby. Starting a match and watching a lobby's match go to the
:class:`~domino.server.matchdesk.MatchDesk`.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from . import protocol as p
from .conn import Conn
from .connections import Online
from .db import Database
from .doors import InProcessRouter
from .lobby import CLOSED, OPEN, PLAYING, Lobby, LobbyError, new_code, normalize_code
from .matchdesk import MatchDesk
from .matches import MatchRunner
from .settings import Settings


class LobbyDesk:
    """Every live lobby and who is in which."""

    def __init__(
        self, settings: Settings, db: Database, router: InProcessRouter, matches: MatchDesk
    ) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = db
        self.router = router
        self.matches = matches
        self.lobbies: dict[str, Lobby] = {}
        self.member_of: dict[str, str] = {}  # profile -> lobby code
        self.lock = asyncio.Lock()

    def online(self) -> Online:
        """Profiles with at least one open socket."""
        return Online(self.router.conns)

    # -- lifecycle -----------------------------------------------------------------------
    async def load(self) -> None:
        """Load every lobby that is not closed."""
        for data in await self.db.live_lobbies():
            lobby = Lobby.from_dict(data)
            self.lobbies[lobby.code] = lobby
            for m in lobby.members():
                self.member_of[m] = lobby.code

    async def reconcile(self) -> None:
        """After the matches resumed: each lobby agrees with its match."""
        runners = self.matches.runners
        # A running match's lobby is playing it (older databases stored the two apart).
        for runner in runners.values():
            own = self.lobbies.get(runner.lobby) if runner.lobby else None
            if own is not None and not runner.table.finished and own.match != runner.id:
                own.status = PLAYING
                own.match = runner.id
                await self.save(own)
        # A lobby whose match is gone (finished before a crash) opens again.
        for lobby in list(self.lobbies.values()):
            if lobby.status == PLAYING and lobby.match not in runners:
                await self._reopen(lobby, set())

    # -- a profile's sockets ----------------------------------------------------------------
    async def member_connected(self, conn: Conn, first: bool) -> None:
        """A socket of a lobby member opened (``first``: the profile was offline)."""
        code = self.member_of.get(conn.profile)
        lobby = self.lobbies.get(code) if code is not None else None
        if lobby is None:
            return
        async with self.lock:
            if first:
                self.broadcast(lobby)
            else:
                self.send_lobby(lobby, conn)
            self.matches.watch_from_lobby(lobby.match, lobby.code, conn.profile)

    async def member_gone(self, profile: str) -> None:
        """A lobby member's last socket closed: the others see them offline."""
        code = self.member_of.get(profile)
        if code is not None and code in self.lobbies:
            async with self.lock:
                self.broadcast(self.lobbies[code])

    # -- actions -------------------------------------------------------------------------
    async def action(self, conn: Conn, msg: BaseModel) -> None:
        """One lobby message of ``conn`` (create, join, seats, bots, rules, leave, start)."""
        me, name = conn.profile, conn.name
        seated = self.matches.seated
        async with self.lock:
            if isinstance(msg, p.CreateLobby):
                await self._create(conn, msg.seats)
                return
            if isinstance(msg, p.JoinLobby):
                await self._join(conn, msg)
                return
            code = self.member_of.get(me)
            lobby = self.lobbies.get(code) if code else None
            if lobby is None:
                raise LobbyError("not_in_lobby")
            match msg:
                case p.TakeSeat():
                    if seated.get(me, lobby.match) != lobby.match:
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
                    await self.save(lobby)
                    for c in list(self.router.sockets_of(me)):
                        c.send(p.LobbyLeftMsg(code=lobby.code, reason="left"))
                    self._after_change(lobby)
                    return
                case p.Start():
                    lobby.check_start(me)
                    # Nobody plays two matches at once (a repeated start after a restart).
                    if any(
                        o is not None and o.kind != "bot" and o.player in seated
                        for o in lobby.seats
                    ):
                        raise LobbyError("in_match")
                    await self.matches.start(lobby, self.broadcast)
                    return
            await self.save(lobby)
            self.broadcast(lobby)

    async def _create(self, conn: Conn, seats: int) -> None:
        me = conn.profile
        if me in self.member_of:
            raise LobbyError("already_in_lobby")
        if me in self.matches.seated:
            raise LobbyError("in_match")
        code = new_code()
        while code in self.lobbies or await self.db.lobby_exists(code):
            code = new_code()
        lobby = Lobby.create(code, me, conn.name, seats, self.clock.now())
        self.lobbies[code] = lobby
        self.member_of[me] = code
        await self.save(lobby)
        self.broadcast(lobby)

    async def _join(self, conn: Conn, msg: p.JoinLobby) -> None:
        me = conn.profile
        code = normalize_code(msg.code)
        lobby = self.lobbies.get(code)
        if lobby is None:
            raise LobbyError("lobby_not_found", code=code)
        current = self.member_of.get(me)
        if current == code:
            self.send_lobby(lobby, conn)
            return
        if current is not None:
            raise LobbyError("already_in_lobby")
        if me in self.matches.seated and not msg.watch:
            raise LobbyError("in_match")
        lobby.join(me, conn.name, msg.watch)
        self.member_of[me] = code
        await self.save(lobby)
        self.broadcast(lobby)
        self.matches.watch_from_lobby(lobby.match, lobby.code, me)

    async def match_over(self, runner: MatchRunner, gone: set[str | None]) -> None:
        """The match of a lobby ended: the lobby opens again (``gone``: who left it)."""
        lobby = self.lobbies.get(runner.lobby) if runner.lobby else None
        if lobby is None and runner.lobby:
            # A match this node took over from another (a cluster): its lobby is stored.
            data = await self.db.lobby_doc(runner.lobby)
            if data is not None:
                lobby = Lobby.from_dict(data)
                self.lobbies[lobby.code] = lobby
                for m in lobby.members():
                    self.member_of[m] = lobby.code
        if lobby is not None and lobby.match == runner.id:
            async with self.lock:
                await self._reopen(lobby, gone)

    async def _reopen(self, lobby: Lobby, gone: set[str | None]) -> None:
        # "Nochmal": the lobby opens again with its seats; players who left the match
        # lose their lobby seat (they are still in the lobby as watchers).
        for i, o in enumerate(lobby.seats):
            if o is not None and o.player is not None and o.player in gone:
                lobby.seats[i] = None
                lobby.watchers[o.player] = o.name
        lobby.status = OPEN if lobby.members() else CLOSED
        lobby.match = None
        await self.save(lobby)
        self._after_change(lobby)

    def _after_change(self, lobby: Lobby) -> None:
        if lobby.status == CLOSED:
            self.lobbies.pop(lobby.code, None)
            for m in lobby.members():
                self.member_of.pop(m, None)
        self.broadcast(lobby)

    async def save(self, lobby: Lobby) -> None:
        """Store a lobby's document."""
        await self.db.save_lobby(lobby.code, lobby.status, lobby.to_dict(), self.clock.now())

    # -- what members see ---------------------------------------------------------------------
    def _lobby_msg(self, lobby: Lobby, profile: str | None) -> p.LobbyMsg:
        you = None
        if profile is not None:
            you = p.YouOut(player=profile, seat=lobby.seat_of(profile), host=lobby.host == profile)
        return p.LobbyMsg(lobby=lobby.out(self.settings.base_url, self.online()), you=you)

    def send_lobby(self, lobby: Lobby, conn: Conn) -> None:
        """Send one socket the lobby as its member sees it."""
        conn.send(self._lobby_msg(lobby, conn.profile))

    def broadcast(self, lobby: Lobby) -> None:
        """Send every member the lobby as they see it."""
        for m in lobby.members():
            targets = self.router.sockets_of(m)
            if targets:
                msg = self._lobby_msg(lobby, m)
                for c in list(targets):
                    c.send(msg)

    def lobby_out(self, code: str) -> p.LobbyOut | None:
        """A lobby for ``GET /api/lobbies/{code}``."""
        try:
            lobby = self.lobbies.get(normalize_code(code))
        except LobbyError:
            return None
        return None if lobby is None else lobby.out(self.settings.base_url, self.online())

    def open_lobbies(self) -> list[p.OpenLobbyOut]:
        """Open lobbies somebody is looking at, newest first."""
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
        return open_
