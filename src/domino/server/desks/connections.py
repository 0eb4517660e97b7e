"""Connections and presence: which profile has which sockets open.

The sockets themselves are registered with the process's router
(:class:`~domino.server.desks.doors.InProcessRouter`); :class:`Connections` does what
a socket's arrival and departure mean to the lobbies and the matches.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from typing import TYPE_CHECKING, Any

from domino.server import protocol as p
from domino.server.desks.doors import InProcessRouter
from domino.server.desks.people import profile_out
from domino.server.storage.profiles import ProfileStore
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.server")

#: The node message that tells a node a profile's new name (its sockets take it).
RENAMED = "renamed"

if TYPE_CHECKING:  # the desks import this module's Online
    from domino.server.desks.lobbydesk import LobbyDesk
    from domino.server.desks.matchdesk import MatchDesk


class Online(Container[str]):
    """``pid in online``: whether a profile has an open socket now.

    Lobby messages ask this for a lobby's few members; building the set of every
    online profile for each of them made each lobby change cost O(connected clients)
    (the largest share of the server's time while thousands connected).
    """

    __slots__ = ("_anywhere", "_conns")

    def __init__(
        self, conns: dict[str, set[Conn]], anywhere: Callable[[str], bool] | None = None
    ) -> None:
        self._conns = conns
        # A cluster's router knows the profiles with sockets on the other nodes.
        self._anywhere = anywhere

    def __contains__(self, pid: object) -> bool:
        if not isinstance(pid, str):
            return False
        if self._anywhere is not None:
            return self._anywhere(pid)
        return bool(self._conns.get(pid))


class Connections:
    """A socket's hello and its close, for the lobby and the match of its profile."""

    def __init__(
        self, db: ProfileStore, router: InProcessRouter, lobbies: LobbyDesk, matches: MatchDesk
    ) -> None:
        self.db = db
        self.router = router
        self.lobbies = lobbies
        self.matches = matches
        if hasattr(router, "on_node_message"):
            router.on_node_message(self._on_node_message)

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
        router: Any = self.router
        if hasattr(router, "send_to_node"):  # a cluster: the nodes with sockets of it
            for other in router.nodes_of(pid) - {router.node}:
                router.send_to_node(other, {"kind": RENAMED, "profile": pid, "name": name})
        self.router.to_player(pid, p.ProfileMsg(profile=profile_out(row)))
        try:
            await self.lobbies.renamed(pid, name)
            await self.matches.renamed(pid, name)
        except Exception:  # the name is stored: what shows it learns it at its next change
            log.warning("the lobby or match of %s not told of the new name", pid, exc_info=True)

    def _rename_here(self, pid: str, name: str) -> None:
        for conn in list(self.router.sockets_of(pid)):
            conn.name = name

    def _on_node_message(self, sender: str, payload: dict[str, Any]) -> None:
        if payload.get("kind") != RENAMED:
            return
        pid, name = payload.get("profile"), payload.get("name")
        if isinstance(pid, str) and isinstance(name, str):
            self._rename_here(pid, name)
        else:
            log.warning("a malformed node message: %r", payload)
