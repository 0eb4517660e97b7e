"""*Zuletzt gespielt mit*: a profile's recent human opponents, and inviting one of them
to one's own open lobby.

The invitation goes on the invitee's own channel (``to_player``), so it reaches their
sockets on every node, as a match's end reaches a player's profile. It is refused when
the two never played together (no inviting strangers by id), when one blocked the
other, when the invitee is offline, and past the sender's budget: at most
:data:`BURST` invitations per :data:`WINDOW` seconds and one per invitee per
:data:`AGAIN` seconds. The budget is the site's (:mod:`~domino.server.cluster.ratelimit`:
in Redis for a cluster's nodes, so a sender with sockets on several nodes has one budget).
"""

from __future__ import annotations

from typing import Final

from domino.server import protocol as p
from domino.server.cluster.ratelimit import Budget, Limits, LocalLimits
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import OPEN, Lobby, LobbyError, share_link
from domino.server.desks.lobbyviews import LobbyViews
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.transport.conn import Conn

#: Invitations a sender may send per :data:`WINDOW` seconds.
BURST: Final = 5
WINDOW: Final = 60.0
#: Seconds before the same person may be invited again.
AGAIN: Final = 30.0

#: A sender's invitations, and a sender's invitations of one invitee (``{me}>{them}``).
SENT = Budget("invite", ((WINDOW, BURST),))
INVITEE = Budget("invitee", ((AGAIN, 1),))


class Invites:
    """Recent opponents and invitations."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        router: InProcessRouter,
        lobbies: LobbyViews,
        limits: Limits | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.router = router
        self.lobbies = lobbies
        #: The budgets: the process's own, or a cluster's in Redis.
        self.limits: Limits = limits if limits is not None else LocalLimits()

    async def recent(self, pid: str) -> p.RecentPlayersOut:
        """``GET /api/me/players``: recent human opponents, with who is online now."""
        online = self.lobbies.online()
        return p.RecentPlayersOut(
            players=[
                p.RecentPlayerOut(
                    id=o["id"],
                    name=o["name"],
                    online=o["id"] in online,
                    last_played=o["last_played"],
                )
                for o in await self.db.recent_opponents(pid)
            ]
        )

    async def invite(self, conn: Conn, msg: p.Invite) -> None:
        """``invite``: ``msg.profile`` hears a toast with *Beitreten* for our lobby."""
        me, them = conn.profile, msg.profile
        if them == me:
            raise LobbyError("invite_self")
        code = await self.db.lobby_of(me)
        doc = await self.db.lobby_doc(code) if code is not None else None
        lobby = Lobby.from_dict(doc) if doc is not None else None
        if lobby is None or lobby.status != OPEN:
            raise LobbyError("invite_no_lobby")
        row = (await self.db.profiles([them])).get(them)
        if row is None or not await self.db.played_with(me, them):
            raise LobbyError("invite_unknown")
        name = row["name"]
        if them in lobby.members():
            raise LobbyError("invite_here", player=name)
        if frozenset((me, them)) in await self.db.blocks_among([me, them]):
            raise LobbyError("invite_refused", player=name)
        if them not in self.lobbies.online():
            raise LobbyError("invite_offline", player=name)
        await self._spend(me, them, name)
        self.router.to_player(
            them,
            p.InvitedMsg(
                lobby=lobby.code, link=share_link(self.settings.base_url, lobby.code), by=conn.name
            ),
        )
        conn.send(p.InviteSentMsg(profile=them, name=name))

    async def _spend(self, me: str, them: str, name: str) -> None:
        """Spend an invitation of ``me`` to ``them`` (both budgets, or neither)."""
        refused = await self.limits.take(
            self.settings.clock.now(), (INVITEE, f"{me}>{them}"), (SENT, me)
        )
        if refused is None:
            return
        if refused.which == 0:
            raise LobbyError("invite_again", player=name)
        raise LobbyError("invite_too_many")
