"""The narrow doors a :class:`~domino.server.desks.matches.MatchRunner` sees of the server.

A running match needs three things besides its table and a clock:

- an **entry store** (:class:`EntryStore`): append entries under the fencing token
  its claim returned, and load the stored log;
- a **message router** (:class:`Router`): deliver a message to one audience, the
  sockets of one player or the spectators of one match;
- **callbacks** for the end of the match, a player leaving and idleness
  (:class:`~domino.server.desks.matches.MatchHooks`).

One process is the cluster with :class:`~domino.server.cluster.router.InProcessRouter`
and the :class:`~domino.server.storage.db.Database` as the store. A router between
processes (:class:`~domino.server.cluster.redisrouter.RedisRouter`) implements
:class:`Router` with one channel per audience (``player:{profile}`` and
``spectators:{match}``, :func:`channel`), so a seat's frames only ever travel on that
player's channel.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel


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

    def to_spectators(self, match_id: str, msg: dict[str, Any], *, frame: bool = False) -> None:
        """Every socket watching ``match_id`` gets ``msg`` (``frame``: a frame of the
        match sent by the node that drives it)."""
        ...
