"""The narrow doors a :class:`~domino.server.desks.matches.MatchRunner` sees of the server.

A running match needs three things besides its table and a clock:

- an **entry store** (:class:`EntryStore`): append entries under the fencing token
  its claim returned, and load the stored log;
- a **message router** (:class:`Router`): deliver a message to one audience, the
  sockets of one player or the spectators of one match;
- **callbacks** for the end of the match, a player leaving and idleness
  (:class:`~domino.server.desks.matches.MatchHooks`).

One process is the cluster with :class:`InProcessRouter` and the
:class:`~domino.server.storage.db.Database` as the store. A router between processes
implements :class:`Router` with one channel per audience (``player:{profile}``
and ``spectators:{match}``, :func:`channel`), so a seat's frames only ever travel
on that player's channel.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any, Protocol

from pydantic import BaseModel

from domino.server.transport.conn import Conn, encode


class StaleFence(Exception):
    """An append carried a fencing token that is no longer the match's (another owner
    claimed it, or the match does not exist); nothing of that append was written."""

    def __init__(self, mid: str, fence: int, current: int | None) -> None:
        super().__init__(f"match {mid}: fence {fence} is stale (current: {current})")
        self.mid = mid
        self.fence = fence
        self.current = current


class EntryStore(Protocol):
    """A match log that refuses writers who lost the match (fencing tokens)."""

    async def claim(self, match_id: str, owner: str) -> int:
        """Take ownership; return the new fencing token (every earlier one is stale)."""
        ...

    async def append(
        self, match_id: str, start: int, entries: list[dict[str, Any]], fence: int
    ) -> None:
        """Store ``entries`` at ``start, start + 1, ...``; raise
        :class:`StaleFence` when ``fence`` is not the current token."""
        ...

    async def load(self, match_id: str) -> list[dict[str, Any]]:
        """The stored entries in order."""
        ...


class Observer(Protocol):
    """What a runner reports for the node's metrics (server/metrics.py implements it)."""

    def command(self, kind: str, result: str, seconds: float) -> None:
        """A command handled: ``ok``, ``refused`` (by the rules or the table) or ``failed``
        (not stored, nothing acknowledged), and how long it took to its messages."""
        ...

    def append(self, seconds: float) -> None:
        """One append of log entries stored."""
        ...

    def routed(self, seat: int | None) -> None:
        """One message for a seat (``None``: the spectators) handed to the router."""
        ...


class NullObserver:
    """Reports nowhere (runners built without metrics, in tests)."""

    def command(self, kind: str, result: str, seconds: float) -> None:
        pass

    def append(self, seconds: float) -> None:
        pass

    def routed(self, seat: int | None) -> None:
        pass


def channel(kind: str, key: str) -> str:
    """The name of an audience's channel: ``player:{profile}`` or ``spectators:{match}``.

    >>> channel("player", "p1"), channel("spectators", "m1")
    ('player:p1', 'spectators:m1')
    """
    return f"{kind}:{key}"


class Router(Protocol):
    """Per-audience delivery: the runner publishes, the router finds the sockets.

    Each method names exactly one audience, so a router between processes can
    publish each message on that audience's own channel only.
    """

    def to_player(self, profile: str, msg: dict[str, Any] | BaseModel, match: str = "") -> None:
        """Every socket of ``profile`` (a seat's player) gets ``msg`` (a frame of
        ``match``, when it is one)."""
        ...

    def to_spectators(self, match_id: str, msg: dict[str, Any]) -> None:
        """Every socket watching ``match_id`` gets ``msg``."""
        ...


class InProcessRouter:
    """The single process's router: the sockets themselves, per audience.

    Encodes a message once and queues the text on each socket of its audience
    (nothing is encoded for an audience without sockets).
    """

    __slots__ = ("conns", "spectators")

    def __init__(self) -> None:
        #: profile -> its open sockets (presence: a profile with sockets is online)
        self.conns: dict[str, set[Conn]] = {}
        #: match -> the sockets watching it
        self.spectators: dict[str, set[Conn]] = {}

    # -- delivery ------------------------------------------------------------------------
    def to_player(self, profile: str, msg: dict[str, Any] | BaseModel, match: str = "") -> None:
        """Send to every socket of ``profile``."""
        _send(self.conns.get(profile), msg)

    def to_spectators(self, match_id: str, msg: dict[str, Any]) -> None:
        """Send to every socket watching ``match_id``."""
        _send(self.spectators.get(match_id), msg)

    # -- who listens ---------------------------------------------------------------------
    def sockets_of(self, profile: str) -> Set[Conn]:
        """The open sockets of ``profile`` ."""
        return self.conns.get(profile, _EMPTY)

    def add_socket(self, conn: Conn) -> bool:
        """Register a signed-in socket; ``True`` when it is its profile's first."""
        conns = self.conns.setdefault(conn.profile, set())
        conns.add(conn)
        return len(conns) == 1

    def remove_socket(self, conn: Conn) -> bool:
        """Forget a closed socket (and what it watched); ``True`` when its profile has no
        socket left."""
        for mid in conn.watching:
            self.unwatch(mid, conn)
        conns = self.conns.get(conn.profile)
        if conns is None:
            return True
        conns.discard(conn)
        if conns:
            return False
        del self.conns[conn.profile]
        return True

    def watch(self, match_id: str, conn: Conn) -> None:
        """``conn`` hears the spectators' messages of ``match_id``."""
        self.spectators.setdefault(match_id, set()).add(conn)

    def unwatch(self, match_id: str, conn: Conn) -> None:
        """``conn`` stops hearing them."""
        watchers = self.spectators.get(match_id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.spectators[match_id]

    def watchers(self, match_id: str) -> Set[Conn]:
        """The sockets watching ``match_id`` ."""
        return self.spectators.get(match_id, _EMPTY)

    def forget_match(self, match_id: str) -> set[Conn]:
        """Drop a match's spectators (it ended); return who they were."""
        return self.spectators.pop(match_id, set())


_EMPTY: frozenset[Conn] = frozenset()


def _send(targets: set[Conn] | None, msg: dict[str, Any] | BaseModel) -> None:
    if targets:
        text = encode(msg)
        for c in list(targets):
            c.send_text(text)
