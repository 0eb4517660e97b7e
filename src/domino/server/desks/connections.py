"""Connections and presence: which profile has which sockets open.

The sockets themselves are registered with the process's router
(:class:`~domino.server.cluster.router.InProcessRouter`); :class:`Connections` does what
a socket's arrival and departure mean to the lobbies and the matches.
"""

from __future__ import annotations

import logging
from typing import Any

from domino.server import protocol as p
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobbydesk import LobbyDesk
from domino.server.desks.matchdesk import MatchDesk
from domino.server.desks.people import profile_out
from domino.server.storage.profiles import ProfileStore
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.server")


class Connections:
    """A socket's hello and its close, for the lobby and the match of its profile."""

    def __init__(
        self, db: ProfileStore, router: InProcessRouter, lobbies: LobbyDesk, matches: MatchDesk
    ) -> None:
        self.db = db
        self.router = router
        self.lobbies = lobbies
        self.matches = matches
        # A cluster: another node's socket of a profile took a new name.
        matches.ownership.on_renamed(self._rename_here)

    async def connect(self, conn: Conn) -> None:
        """A socket said hello: welcome it, restore its lobby and its seat at once."""
        row = await self.db.profile(conn.profile)
        assert row is not None
        seat = await self.matches.seat_anywhere(conn.profile)
        code = await self.lobbies.lobby_of(conn.profile)
        # From here to the welcome nothing waits: no message can reach the socket before it.
        first = self.router.add_socket(conn)
        conn.send(p.WelcomeMsg(profile=profile_out(row), lobby=code, match=seat))
        await self.lobbies.member_connected(conn, first, code)
        await self.matches.seat_connected(conn)

    async def disconnect(self, conn: Conn) -> None:
        """A socket closed; the seat stays, the clock runs (RULES.md §10)."""
        if not self.router.remove_socket(conn):
            return
        await self.lobbies.member_gone(conn.profile)
        await self.matches.seat_gone(conn.profile)

    async def renamed(self, row: dict[str, Any]) -> None:
        """A profile took a new name (``POST /api/me/name``; ``row`` is its profile row):
        its sockets on every node take it into the lobbies they join from now on and get
        the new profile; the lobby it is in and the match it plays show it to everyone
        there."""
        pid, name = str(row["id"]), str(row["name"])
        self._rename_here(pid, name)
        self.matches.ownership.tell_renamed(pid, name)  # a cluster: the other nodes' sockets
        self.router.to_player(pid, p.ProfileMsg(profile=profile_out(row)))
        try:
            await self.lobbies.renamed(pid, name)
            await self.matches.renamed(pid, name)
        except Exception:  # the name is stored: what shows it learns it at its next change
            log.warning("the lobby or match of %s not told of the new name", pid, exc_info=True)

    def _rename_here(self, pid: str, name: str) -> None:
        for conn in list(self.router.sockets_of(pid)):
            conn.name = name
