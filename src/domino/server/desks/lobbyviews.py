"""What the members of a lobby see: the lobby as each of them sees it, sent on every
node, and the list of open lobbies.

:class:`LobbyViews` is the sending half of :class:`~domino.server.desks.lobbydesk.LobbyDesk`
(its base); the desk changes lobbies, this half shows them.
"""

from __future__ import annotations

from domino.server import protocol as p
from domino.server.cluster.presence import Presence
from domino.server.cluster.router import InProcessRouter, Online
from domino.server.desks.lobby import OPEN, Lobby
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.transport.conn import Conn


class LobbyViews:
    """Lobbies as their members see them."""

    settings: Settings
    db: Database
    router: InProcessRouter

    def online(self) -> Online:
        """Profiles with at least one open socket (on any node of a cluster)."""
        router = self.router
        return Online(router.conns, router.online if isinstance(router, Presence) else None)

    def _lobby_msg(self, lobby: Lobby, profile: str | None) -> p.LobbyMsg:
        you = None
        if profile is not None:
            you = p.YouOut(player=profile, seat=lobby.seat_of(profile), host=lobby.host == profile)
        return p.LobbyMsg(lobby=lobby.out(self.settings.base_url, self.online()), you=you)

    def send_lobby(self, lobby: Lobby, conn: Conn) -> None:
        """Send one socket the lobby as its member sees it."""
        conn.send(self._lobby_msg(lobby, conn.profile))

    def broadcast(self, lobby: Lobby, here: bool = False) -> None:
        """Send every member the lobby as they see it, on every node (``here``: only to
        this node's sockets; each node tells its own of a change of presence)."""
        for m in lobby.members():
            if here:
                targets = self.router.sockets_of(m)
                if targets:
                    msg = self._lobby_msg(lobby, m)
                    for c in list(targets):
                        c.send(msg)
            else:
                self.router.to_player(m, self._lobby_msg(lobby, m))

    async def open_lobbies(self) -> list[p.OpenLobbyOut]:
        """Open lobbies somebody is looking at, newest first."""
        base = self.settings.base_url
        online = self.online()
        open_ = []
        lobbies = [Lobby.from_dict(d) for d in await self.db.open_lobbies()]
        for lobby in sorted(lobbies, key=lambda x: -x.created_at):
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
