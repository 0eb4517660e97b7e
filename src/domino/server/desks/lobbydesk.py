"""The lobbies: create, join, seats, bots, rules, start, reopen, on any node.

The database holds every lobby (its document and a version) and who is in which
(``lobby_members``); a node keeps no lobby state of its own that decides anything.
Each change reads the lobby, applies the action to it and writes it back over the
version it read (:meth:`LobbyDesk._edit`): a change another node stored meanwhile
makes the write fail, and the action is applied again to the newer lobby. The same
code runs in one process, where nothing else writes.

Every member then gets the lobby as they see it, on whichever node their sockets are
(``to_player``); presence is told by each node to its own sockets. Starting a match
and watching its match go to the :class:`~domino.server.desks.matchdesk.MatchDesk`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Set

from pydantic import BaseModel

from domino.server import protocol as p
from domino.server.cluster.presence import Presence
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import (
    CLOSED,
    OPEN,
    PLAYING,
    Lobby,
    LobbyError,
    new_code,
    normalize_code,
)
from domino.server.desks.lobbyviews import LobbyViews
from domino.server.desks.matchdesk import MatchDesk
from domino.server.desks.matches import MatchRunner
from domino.server.desks.rematch import Rematches, drop_stale
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.lobbies import InOtherLobby, LobbyConflict, StoredLobby
from domino.server.transport.conn import Conn

log = logging.getLogger(__name__)

#: How often a change is applied again after other nodes changed the lobby first.
TRIES = 8

#: A change of one lobby: raises :class:`LobbyError` to refuse (nothing is stored),
#: returns ``False`` when there is nothing to store.
Change = Callable[[Lobby], bool | None]


class LobbyDesk(LobbyViews, Rematches):
    """Every lobby, as the database has it."""

    def __init__(
        self, settings: Settings, db: Database, router: InProcessRouter, matches: MatchDesk
    ) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = db
        self.router = router
        self.matches = matches
        #: The lobbies this node stored or read last, by code (not closed; metrics and
        #: tests). In one process this is every lobby; in a cluster only a view.
        self.lobbies: dict[str, Lobby] = {}
        #: profile -> code, for the same lobbies.
        self.member_of: dict[str, str] = {}
        # One change of a lobby at a time on this node (fewer conflicts; the database
        # decides): a lock per lobby, held by how many wait for it.
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        if isinstance(router, Presence):  # a cluster's: told of other nodes' sockets too
            router.on_presence(self._on_presence)

    # -- the view of this node --------------------------------------------------------------
    def _remember(self, lobby: Lobby, before: Set[str] = frozenset()) -> None:
        for m in before - set(lobby.members()):
            if self.member_of.get(m) == lobby.code:
                del self.member_of[m]
        if lobby.status == CLOSED:
            self.lobbies.pop(lobby.code, None)
            for m in lobby.members():
                self.member_of.pop(m, None)
            return
        self.lobbies[lobby.code] = lobby
        for m in lobby.members():
            self.member_of[m] = lobby.code

    async def lobby_of(self, profile: str) -> str | None:
        """The code of the lobby ``profile`` is in."""
        return await self.db.lobby_of(profile)

    async def _read(self, code: str) -> tuple[Lobby, int] | None:
        row = await self.db.lobby_row(code)
        return None if row is None else (self._known(row), row.version)

    def _known(self, row: StoredLobby) -> Lobby:
        """The lobby of a stored row, remembered as this node's view of it."""
        lobby = Lobby.from_dict(row.doc)
        self._remember(lobby)
        return lobby

    async def _edit(self, code: str, change: Change) -> Lobby:
        """Apply ``change`` to the stored lobby and store it over the version read; when
        another node stored a change first, read again and apply it again."""
        for _ in range(TRIES):
            read = await self._read(code)
            if read is None:
                raise LobbyError("lobby_not_found", code=code)
            lobby, version = read
            before = set(lobby.members())
            if change(lobby) is False:
                return lobby
            stale = drop_stale(lobby, self.clock.now())  # the table changed: no Revanche
            after = set(lobby.members())
            try:
                await self.db.save_lobby(
                    code,
                    lobby.status,
                    lobby.to_dict(),
                    self.clock.now(),
                    version,
                    joined=sorted(after - before),
                    left=sorted(before - after),
                )
            except LobbyConflict:
                continue
            except InOtherLobby:
                raise LobbyError("already_in_lobby") from None
            self._remember(lobby, before)
            if stale is not None:
                self.rematch_cancelled(lobby, stale)
            return lobby
        raise LobbyError("lobby_busy")

    # -- lifecycle -----------------------------------------------------------------------
    async def load(self) -> None:
        """Read the lobbies that are not closed (this node's view)."""
        for data in await self.db.live_lobbies():
            self._remember(Lobby.from_dict(data))

    async def reconcile(self) -> None:
        """After the matches resumed: each lobby agrees with its match."""
        # A running match's lobby is playing it (older databases stored the two apart).
        for runner in list(self.matches.runners.values()):
            if runner.lobby and not runner.table.finished:
                mid = runner.id

                def playing(lobby: Lobby, mid: str = mid) -> bool:
                    if lobby.match == mid:
                        return False
                    lobby.status, lobby.match = PLAYING, mid
                    return True

                with contextlib.suppress(LobbyError):
                    await self._edit(runner.lobby, playing)
        # A lobby whose match is gone (finished before a crash) opens again.
        running = set(await self.db.running_ids())
        for data in await self.db.live_lobbies():
            if data.get("status") == PLAYING and data.get("match") not in running:
                await self._reopen(data["code"], data["match"], set())

    # -- a profile's sockets ----------------------------------------------------------------
    async def member_connected(self, conn: Conn, first: bool, code: str | None) -> None:
        """A socket of a member of lobby ``code`` opened (``first``: the profile had no
        socket on this node)."""
        if code is None:
            return
        read = await self._read(code)
        if read is None:
            return
        lobby = read[0]
        if first:
            self.broadcast(lobby, here=True)
        else:
            self.send_lobby(lobby, conn)
        self.rematch_on_connect(lobby, conn)
        await self.matches.watch_from_lobby(lobby.match, lobby.code, conn.profile)

    async def member_gone(self, profile: str) -> None:
        """A member's last socket on this node closed: the others see them offline."""
        await self._presence(profile)

    def _on_presence(self, profile: str, online: bool) -> None:
        # A profile came or went on another node: this node's sockets hear of it.
        task = asyncio.get_running_loop().create_task(self._presence(profile))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _presence(self, profile: str) -> None:
        # Every node asks this of every change of presence anywhere: one statement.
        try:
            row = await self.db.lobby_row_of(profile)
        except Exception:  # the database away: the next change of the lobby tells it
            log.warning("presence of %s not told", profile, exc_info=True)
            return
        if row is not None:
            self.broadcast(self._known(row), here=True)

    async def stop(self) -> None:
        """End the presence tasks."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @contextlib.asynccontextmanager
    async def _locked(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]

    @contextlib.asynccontextmanager
    async def _lock_for(self, conn: Conn, msg: BaseModel) -> AsyncIterator[str | None]:
        """Hold the lock of the lobby ``msg`` changes; yield the code of the lobby the
        sender is in (``None`` for a create or a join, which find their own)."""
        if isinstance(msg, (p.CreateLobby, p.QuickGame)):
            key, code = "+" + conn.profile, None  # one profile's creates one at a time
        elif isinstance(msg, p.JoinLobby):
            try:
                key, code = normalize_code(msg.code), None
            except LobbyError:
                key, code = "?", None  # refused inside, with the lock of nothing
        else:
            code = await self.db.lobby_of(conn.profile)
            key = code or "?"
        async with self._locked(key):
            yield code

    # -- actions -------------------------------------------------------------------------
    async def action(self, conn: Conn, msg: BaseModel) -> None:
        """One lobby message of ``conn`` (create, join, seats, bots, rules, leave, start)."""
        me, name = conn.profile, conn.name
        async with self._lock_for(conn, msg) as code:
            if isinstance(msg, p.CreateLobby):
                await self._create(conn, msg.seats)
                return
            if isinstance(msg, p.QuickGame):
                await self._quick(conn, msg.seats, msg.level, msg.leave)
                return
            if isinstance(msg, p.JoinLobby):
                await self._join(conn, msg)
                return
            if code is None:
                raise LobbyError("not_in_lobby")
            change: Change
            match msg:
                case p.TakeSeat():
                    where = await self.matches.seat_anywhere(me)

                    def change(lobby: Lobby) -> None:
                        if where is not None and where.match != lobby.match:
                            raise LobbyError("in_match")
                        lobby.take_seat(me, name, msg.seat)

                case p.LeaveSeat():

                    def change(lobby: Lobby) -> None:
                        lobby.leave_seat(me, name)

                case p.AddBot():

                    def change(lobby: Lobby) -> None:
                        lobby.add_bot(me, msg.seat, msg.level)

                case p.FillBots():

                    def change(lobby: Lobby) -> bool:
                        return lobby.fill_bots(me, msg.level) > 0

                case p.RemoveBot():

                    def change(lobby: Lobby) -> None:
                        lobby.remove_bot(me, msg.seat)

                case p.SetRules():

                    def change(lobby: Lobby) -> None:
                        lobby.set_rules(me, msg.rules)

                case p.SetRated():

                    def change(lobby: Lobby) -> None:
                        lobby.set_rated(me, msg.rated)

                case p.LeaveLobby():

                    def leave(lobby: Lobby) -> None:
                        lobby.leave(me)

                    lobby = await self._edit(code, leave)
                    self.router.to_player(me, p.LobbyLeftMsg(code=lobby.code, reason="left"))
                    self.broadcast(lobby)
                    return
                case p.Start():
                    await self._start(me, code)
                    return
                case _:  # pragma: no cover - Service sends only lobby messages here
                    raise LobbyError("unknown_type", type=type(msg).__name__)
            self.broadcast(await self._edit(code, change))

    async def _create(self, conn: Conn, seats: int) -> None:
        me = conn.profile
        if await self.db.lobby_of(me) is not None:
            raise LobbyError("already_in_lobby")
        if await self.matches.seat_anywhere(me) is not None:
            raise LobbyError("in_match")
        for _ in range(TRIES):
            code = new_code()
            lobby = Lobby.create(code, me, conn.name, seats, self.clock.now())
            try:
                await self.db.save_lobby(
                    code, lobby.status, lobby.to_dict(), self.clock.now(), joined=[me]
                )
            except LobbyConflict:  # the code was used before: codes are never reused
                continue
            except InOtherLobby:
                raise LobbyError("already_in_lobby") from None
            self._remember(lobby)
            self.broadcast(lobby)
            return
        raise LobbyError("lobby_busy")  # pragma: no cover - 8 used codes in a row

    async def _quick(self, conn: Conn, seats: int, level: str, leave: bool = False) -> None:
        """*Schnelles Spiel*: lobby, bots and start in one transaction (no lobby of it is
        ever stored open, so nobody can join it in between and nothing is left half made
        by a crash). ``leave``: first leave the lobby the sender is in (it agreed), as
        ``leave_lobby`` does; only once the quick game could start (the seats, the level,
        no seat in a running match), so a refused one leaves nothing."""
        me = conn.profile
        if leave:
            Lobby.create(new_code(), me, conn.name, seats, self.clock.now()).fill_bots(me, level)
            if await self.matches.seat_anywhere(me) is not None:
                raise LobbyError("in_match")
            held = await self.db.lobby_of(me)
            if held is not None:
                await self._leave_held(me, held)
        for _ in range(TRIES):
            if await self.db.lobby_of(me) is not None:
                raise LobbyError("already_in_lobby")
            if await self.matches.seat_anywhere(me) is not None:
                raise LobbyError("in_match")
            lobby = Lobby.create(new_code(), me, conn.name, seats, self.clock.now())
            lobby.fill_bots(me, level)
            lobby.check_start(me)
            try:
                await self.matches.start(lobby, None, self.broadcast, joined=[me])
            except LobbyConflict:  # a used code, or another lobby of ours meanwhile: look again
                continue
            self._remember(lobby)
            return
        raise LobbyError("lobby_busy")  # pragma: no cover - 8 used codes in a row

    async def leave_held(self, me: str, code: str) -> None:
        """``me`` leaves lobby ``code`` for a game elsewhere (the matchmaking queue)."""
        await self._leave_held(me, code)

    def remember(self, lobby: Lobby) -> None:
        """A lobby another desk stored (the matchmaking queue's table)."""
        self._remember(lobby)

    async def _leave_held(self, me: str, code: str) -> None:
        """``me`` leaves lobby ``code`` (as ``leave_lobby``): told with ``lobby_left``."""
        async with self._locked(code):

            def leave(lobby: Lobby) -> None:
                lobby.leave(me)

            lobby = await self._edit(code, leave)
        self.router.to_player(me, p.LobbyLeftMsg(code=lobby.code, reason="left"))
        self.broadcast(lobby)

    async def _join(self, conn: Conn, msg: p.JoinLobby) -> None:
        me = conn.profile
        code = normalize_code(msg.code)
        current = await self.db.lobby_of(me)
        if current == code:
            read = await self._read(code)
            if read is not None:
                self.send_lobby(read[0], conn)
                return
        if current is not None:
            raise LobbyError("already_in_lobby")
        if not msg.watch and await self.matches.seat_anywhere(me) is not None:
            raise LobbyError("in_match")
        lobby = await self._edit(code, lambda lobby: lobby.join(me, conn.name, msg.watch))
        self.broadcast(lobby)
        await self.matches.watch_from_lobby(lobby.match, lobby.code, me)

    async def _start(self, me: str, code: str) -> None:
        for _ in range(TRIES):
            read = await self._read(code)
            if read is None:
                raise LobbyError("lobby_not_found", code=code)
            lobby, version = read
            lobby.check_start(me)
            # Nobody plays two matches at once (a repeated start after a restart).
            for o in lobby.seats:
                human = o.player if o is not None and o.kind != "bot" else None
                if human is not None and await self.matches.seat_anywhere(human) is not None:
                    raise LobbyError("in_match")
            try:
                await self.matches.start(lobby, version, self.broadcast)
            except LobbyConflict:  # changed meanwhile: check and start the newer lobby
                continue
            self._remember(lobby)
            return
        raise LobbyError("lobby_busy")

    async def renamed(self, profile: str, name: str) -> None:
        """``profile`` took a new name: the lobby they are in shows it to every member, on
        every node (a running match keeps the names it started with)."""
        code = await self.db.lobby_of(profile)
        if code is None:
            return
        changed: list[bool] = []

        def rename(lobby: Lobby) -> bool:
            changed[:] = [lobby.rename(profile, name)]
            return changed[0]

        async with self._locked(code):
            try:
                lobby = await self._edit(code, rename)
            except LobbyError:  # closed meanwhile
                return
        if changed[0]:
            self.broadcast(lobby)

    async def match_over(self, runner: MatchRunner, gone: set[str | None]) -> None:
        """The match of a lobby ended: the lobby opens again (``gone``: who left it)."""
        if runner.lobby:
            async with self._locked(runner.lobby):
                await self._reopen(runner.lobby, runner.id, gone)

    async def _reopen(self, code: str, mid: str | None, gone: set[str | None]) -> None:
        # "Nochmal": the lobby opens again with its seats; players who left the match
        # lose their lobby seat (they are still in the lobby as watchers).
        def reopen(lobby: Lobby) -> bool:
            if lobby.status != PLAYING or lobby.match != mid:
                return False  # opened already (another node, or a repeated end)
            names = [None if o is None else o.name for o in lobby.seats]
            lobby.last, lobby.rematch = {"match": mid, "names": names}, None
            for i, o in enumerate(lobby.seats):
                if o is not None and o.player is not None and o.player in gone:
                    lobby.seats[i] = None
                    lobby.watchers[o.player] = o.name
            lobby.status = OPEN if lobby.members() else CLOSED
            lobby.match = None
            return True

        try:
            lobby = await self._edit(code, reopen)
        except LobbyError:  # closed meanwhile
            return
        self.broadcast(lobby)

    # -- what members see -----------------------------------------------------------
    async def lobby_out(self, code: str) -> p.LobbyOut | None:
        """A lobby for ``GET /api/lobbies/{code}``."""
        try:
            read = await self._read(normalize_code(code))
        except LobbyError:
            return None
        return None if read is None else read[0].out(self.settings.base_url, self.online())
