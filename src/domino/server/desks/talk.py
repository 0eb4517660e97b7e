"""Table talk: reactions, free text in a lobby or among a match's spectators, blocks,
reports, a moderator's mute (docs/protocol.md "Table talk", docs/rules.md "Table talk").

Works on every node: a lobby's members and a match's players are read from the
database and reached on their own channels (``router.to_player``); a match's
spectators through the spectators' channel, each node leaving out the profiles a
block hides the sender from. Blocks are filtered here, per recipient, never by the
client. A seated player of a running *Paare* match neither writes nor reads free text
(talk about one's hand is cheating there): reactions only.
"""

from __future__ import annotations

from typing import Any

from domino.server import protocol as p
from domino.server.cluster.ratelimit import Budget, Limits, LocalLimits
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import Lobby, LobbyError
from domino.server.desks.talktext import (
    CHAT_LIMITS,
    MAX_CHARS,
    REACTION_LIMITS,
    REACTIONS,
    clean,
)
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.transport.conn import Conn

__all__ = ["Room", "TalkDesk"]

#: How many earlier messages ``talk_log`` sends.
LOG_LENGTH = 100

#: A sender's budgets (per profile, on the whole site when the limits are Redis's).
CHAT = Budget("chat", CHAT_LIMITS)
REACTION = Budget("reaction", REACTION_LIMITS)


class Room:
    """Where a message goes: its key, the sender's seat, and who hears it."""

    __slots__ = ("key", "kind", "players", "seat", "spectators")

    def __init__(
        self,
        kind: str,
        key: str,
        players: list[str],
        seat: int | None,
        spectators: bool,
    ) -> None:
        self.kind = kind  # "lobby" or "match"
        self.key = key  # the lobby's code or the match's id
        self.players = players  # profiles that hear it on their own channel
        self.seat = seat  # the sender's seat, if it has one
        self.spectators = spectators  # the match's spectators hear it too

    @property
    def name(self) -> str:
        """The stored room: ``lobby:{code}`` or ``match:{id}``."""
        return f"{self.kind}:{self.key}"


class TalkDesk:
    """Every talk message of the node's sockets."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        router: InProcessRouter,
        limits: Limits | None = None,
    ) -> None:
        self.clock = settings.clock
        self.db = db
        self.router = router
        # The process's own, or a cluster's in Redis (one budget per sender on every node).
        self.limits: Limits = limits if limits is not None else LocalLimits()

    async def handle(self, conn: Conn, msg: Any) -> None:
        """One talk message; :class:`LobbyError` for a refusal (a German error)."""
        match msg:
            case p.Say():
                await self.say(conn, msg)
            case p.React():
                await self.react(conn, msg)
            case p.Block():
                await self.block(conn, msg)
            case p.ListBlocks():
                conn.send(await self.blocks_msg(conn.profile))
            case p.Report():
                await self.report(conn, msg)
            case p.TalkLog():
                await self.talk_log(conn, msg)

    # -- rooms ---------------------------------------------------------------------------
    async def _lobby_room(self, pid: str) -> Room:
        code = await self.db.lobby_of(pid)
        doc = None if code is None else await self.db.lobby_doc(code)
        if code is None or doc is None:
            raise LobbyError("talk_no_lobby")
        lobby = Lobby.from_dict(doc)
        members = lobby.members()
        seat = lobby.seat_of(pid)
        if lobby.status == "playing" and lobby.match and lobby.rules.pairs:
            # A running Paare match's players: reactions only (docs/rules.md).
            row = await self.db.match(lobby.match)
            if row is not None and row["status"] == "running":
                playing = _players(row)
                if pid in playing:
                    raise LobbyError("talk_pairs")
                members = [m for m in members if m not in playing]
        return Room("lobby", code, members, seat, spectators=False)

    async def _match_room(self, conn: Conn, mid: str | None) -> Room:
        row = None if not mid else await self.db.match(mid)
        if mid is None or row is None:
            raise LobbyError("match_not_found")
        if row["status"] != "running":
            raise LobbyError("talk_match_over")
        players = _players(row)
        pairs = bool(row["rules"].get("pairs"))
        seat = players.index(conn.profile) if conn.profile in players else None
        if seat is None and mid not in conn.watching:
            raise LobbyError("talk_not_watching")
        if pairs and seat is not None:
            raise LobbyError("talk_pairs")
        heard = [] if pairs else [x for x in players if x]
        return Room("match", mid, heard, seat, spectators=True)

    async def _room(self, conn: Conn, room: str, mid: str | None) -> Room:
        if room == "lobby":
            return await self._lobby_room(conn.profile)
        return await self._match_room(conn, mid)

    async def _silenced(self, pid: str) -> None:
        until = await self.db.muted_until(pid, self.clock.now())
        if until is not None:
            raise LobbyError("talk_muted", n=max(1, round((until - self.clock.now()) / 60)))

    # -- free text -----------------------------------------------------------------------
    async def say(self, conn: Conn, msg: p.Say) -> None:
        """Clean, check and store a message, then send it to its room."""
        text = clean(msg.text)
        if not text:
            raise LobbyError("talk_empty")
        if len(text) > MAX_CHARS:
            raise LobbyError("talk_too_long", max=MAX_CHARS, length=len(text))
        room = await self._room(conn, msg.room, msg.match)
        await self._silenced(conn.profile)
        refused = await self.limits.take(self.clock.now(), (CHAT, conn.profile))
        if refused is not None:
            raise LobbyError("talk_too_fast", n=max(1, round(refused.wait)))
        now = self.clock.now()
        mid = await self.db.add_message(room.name, conn.profile, conn.name, room.seat, text, now)
        out = p.ChatOut(
            id=mid,
            room=msg.room,
            key=room.key,
            sender=conn.profile,
            name=conn.name,
            seat=room.seat,
            text=text,
            at=now,
        )
        await self._send(conn.profile, room, p.ChatMsg(message=out))

    async def _send(self, sender: str, room: Room, frame: Any) -> None:
        blocked = await self.db.blocked_with(sender)
        for pid in room.players:
            if pid not in blocked:
                self.router.to_player(pid, frame)
        if room.spectators:
            # Every seated player is left out: those who hear the room heard it on their
            # own channel, and a Paare match's players must not hear the spectators, not
            # even on a second socket that watches.
            row = await self.db.match(room.key)
            seated = {x for x in _players(row) if x} if row is not None else set()
            self.router.to_spectators_except(room.key, frame, frozenset(blocked | seated))

    async def talk_log(self, conn: Conn, msg: p.TalkLog) -> None:
        """A room's last messages, without those of anyone either side blocked."""
        try:
            room = await self._room(conn, msg.room, msg.match)
        except LobbyError as exc:
            if exc.code == "talk_match_over" and msg.match:
                # A finished match's talk is public (its replay shows it): read only.
                room = Room("match", msg.match, [], None, spectators=False)
                await self._send_log(conn, msg.room, room)
                return
            if exc.code != "talk_pairs":
                raise
            # A running Paare match's player reads no free text: an empty log.
            key = msg.match or await self.db.lobby_of(conn.profile) or ""
            conn.send(p.TalkLogMsg(room=msg.room, key=key, messages=[]))
            return
        await self._send_log(conn, msg.room, room)

    async def _send_log(self, conn: Conn, kind: str, room: Room) -> None:
        blocked = await self.db.blocked_with(conn.profile)
        rows = await self.db.messages(room.name, LOG_LENGTH)
        conn.send(
            p.TalkLogMsg(
                room="lobby" if kind == "lobby" else "match",
                key=room.key,
                messages=[_chat(kind, room.key, r) for r in rows if r["sender"] not in blocked],
            )
        )

    # -- reactions -----------------------------------------------------------------------
    async def react(self, conn: Conn, msg: p.React) -> None:
        """A reaction at the sender's seat (or a spectator's), to the match's players and
        spectators; it names one of the fixed set, nothing else."""
        if msg.key not in REACTIONS:
            raise LobbyError("reaction_unknown")
        row = await self.db.match(msg.match)
        if row is None:
            raise LobbyError("match_not_found")
        players = _players(row)
        seat = players.index(conn.profile) if conn.profile in players else None
        if seat is None and (row["status"] != "running" or msg.match not in conn.watching):
            raise LobbyError("talk_not_watching")
        await self._silenced(conn.profile)
        refused = await self.limits.take(self.clock.now(), (REACTION, conn.profile))
        if refused is not None:
            raise LobbyError("reaction_too_fast", n=max(1, round(refused.wait)))
        frame = p.ReactionMsg(
            match=msg.match, seat=seat, sender=conn.profile, name=conn.name, key=msg.key
        )
        room = Room("match", msg.match, [x for x in players if x], seat, row["status"] == "running")
        await self._send(conn.profile, room, frame)

    # -- blocks and reports --------------------------------------------------------------
    async def block(self, conn: Conn, msg: p.Block) -> None:
        """Block or unblock a profile; the blocker's sockets get the new list."""
        if msg.profile == conn.profile:
            raise LobbyError("block_self")
        if msg.on:
            if await self.db.profile(msg.profile) is None:
                raise LobbyError("profile_not_found")
            await self.db.block(conn.profile, msg.profile, self.clock.now())
        else:
            await self.db.unblock(conn.profile, msg.profile)
        self.router.to_player(conn.profile, await self.blocks_msg(conn.profile))

    async def blocks_msg(self, pid: str) -> p.BlocksMsg:
        """The profiles ``pid`` blocked."""
        return p.BlocksMsg(profiles=[p.BlockedOut(**b) for b in await self.db.blocked_by(pid)])

    async def report(self, conn: Conn, msg: p.Report) -> None:
        """*Melden*: store the message and the talk before it for the moderators."""
        found = await self.db.message(msg.message)
        if found is None:
            raise LobbyError("report_unknown")
        if found["sender"] == conn.profile:
            raise LobbyError("report_self")
        await self.db.report(found, conn.profile, self.clock.now())
        conn.send(p.ReportedMsg(message=msg.message))


def _players(row: dict[str, Any]) -> list[str]:
    """A match row's seats as profile ids ("" for a bot's seat)."""
    return [str(s.get("player_id") or "") for s in row["seats"]]


def _chat(room: str, key: str, r: dict[str, Any]) -> p.ChatOut:
    return p.ChatOut(
        id=r["id"],
        room="lobby" if room == "lobby" else "match",
        key=key,
        sender=r["sender"],
        name=r["name"],
        seat=r["seat"],
        text=r["text"],
        at=r["at"],
    )
