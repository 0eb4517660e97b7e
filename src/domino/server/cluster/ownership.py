"""Who drives which match: the one door between the match desk and the cluster.

The :class:`~domino.server.desks.matchdesk.MatchDesk` drives the matches of this
process and asks an :class:`Ownership` everything that depends on other nodes:
whether it may start a match (a lease), which node drives a match it does not
(and sends a socket's command or snapshot request there), where a profile sits on
another node (the seat map), and who to tell when a lobby member elsewhere watches
a match or takes a new name. Taking a match over, sweeping for matches nobody
holds, handing matches over on a drain and answering the other nodes' forwarded
commands happen behind the door too; the ownership acts on the desk only through
:class:`Owned`.

One process owns every match of its database and forwards nothing:
:class:`SingleProcess`. A node of a cluster uses
:class:`~domino.server.cluster.leased.LeasedOwnership` (leases in Redis, the bus of
:class:`~domino.server.cluster.redisrouter.RedisRouter`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from domino.server import protocol as p
from domino.server.desks.matches import MatchRunner
from domino.server.storage.matches import StoredMatch
from domino.server.transport.conn import Conn

#: What a socket asks of a match another node drives.
Request = Literal["command", "snapshot"]


class Owned(Protocol):
    """What an ownership sees of the match desk it serves."""

    #: running matches by id (a ``moved`` one stopped here and goes on elsewhere)
    runners: dict[str, MatchRunner]
    #: profile -> the unfinished match it plays in here
    seated: dict[str, str]

    async def restore(self, sm: StoredMatch, fence: int) -> MatchRunner | None:
        """Rebuild a stored match from its log and start it under ``fence``."""
        ...

    def abandon(self, mid: str, why: str = "lease lost") -> None:
        """Stop acting for ``mid``: nothing stored or sent from here on."""
        ...

    async def command(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> None:
        """A seat's command, as a socket sends it (routed again if need be)."""
        ...

    def seat_ref(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays in a match driven here."""
        ...

    async def watch_from_lobby(self, mid: str | None, lobby: str, profile: str) -> None:
        """A member of ``lobby`` without a seat watches its match ``mid``."""
        ...

    async def rename_seat(self, mid: str, profile: str, name: str) -> None:
        """Store and show a seat's new name in a match driven here."""
        ...


class Ownership(Protocol):
    """The cluster as the match desk sees it (see the module's docstring)."""

    #: a draining node takes no match over (it would hand it on again soon)
    draining: bool

    @property
    def shared(self) -> bool:
        """Whether other nodes drive matches of the same database (a cluster)."""
        ...

    def bind(self, desk: Owned) -> None:
        """The desk this ownership serves (set once, before :meth:`start`)."""
        ...

    def on_renamed(self, callback: Callable[[str, str], None]) -> None:
        """``callback(profile, name)`` when another node says a profile was renamed."""
        ...

    async def start(self) -> None:
        """Begin: keep the leases, sweep for matches nobody holds, hear other nodes."""
        ...

    async def stop(self) -> None:
        """End what :meth:`start` began (the matches themselves stop at the desk)."""
        ...

    async def acquire(self, mid: str) -> bool:
        """Take a new match's lease; ``False``: the cluster cannot say it is ours."""
        ...

    async def release(self, mid: str) -> None:
        """Give ``mid`` up (it ended, or the node stops); never raises."""
        ...

    def let_go(self, mid: str) -> None:
        """The desk stopped acting for ``mid``: nothing of it leaves this node now."""
        ...

    async def owner(self, mid: str) -> str | None:
        """The other node that drives ``mid``; ``None`` when this one does, or nobody
        (then a running match is taken over here at once)."""
        ...

    async def forward(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> bool:
        """Send a seat's command for ``mid`` to the node that drives it; ``False`` when
        this node serves it. Raises ``LobbyError("not_stored")`` when nobody can say who
        drives it (``resends``: how often it was sent again after an owner lost it)."""
        ...

    def ask_snapshot(self, owner: str, conn: Conn, mid: str) -> None:
        """Ask ``owner`` for a snapshot of ``mid`` for ``conn`` (watched from here)."""
        ...

    async def seats_taken(self, runner: MatchRunner) -> None:
        """Publish where the players of ``runner`` sit (other nodes' welcomes)."""
        ...

    async def seats_left(self, runner: MatchRunner, pids: list[str]) -> None:
        """Forget where ``pids`` sit in ``runner``'s match."""
        ...

    async def seat_elsewhere(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays on another node, if anywhere."""
        ...

    async def seated_elsewhere(self, profiles: Sequence[str]) -> set[str]:
        """Those of ``profiles`` who play on another node (one look for them all)."""
        ...

    def watch_elsewhere(self, profile: str, mid: str, lobby: str) -> None:
        """Tell the other nodes with sockets of ``profile`` to watch ``mid``."""
        ...

    async def rename_elsewhere(self, profile: str, name: str, mid: str) -> bool:
        """Tell the node that drives ``mid`` the seat's new name; ``False`` if none
        does (this node may have taken it over)."""
        ...

    def tell_renamed(self, profile: str, name: str) -> None:
        """Tell the other nodes with sockets of ``profile`` its new name."""
        ...

    async def spectators(self, mid: str) -> int:
        """How many sockets watch ``mid`` on every node."""
        ...

    async def hand_over(self, wait: float) -> list[str]:
        """A drain: give the matches driven here to other nodes; the ones not taken."""
        ...


class SingleProcess:
    """One process owns every match of its database and forwards nothing."""

    def __init__(self) -> None:
        self.draining = False

    @property
    def shared(self) -> bool:
        return False

    def bind(self, desk: Owned) -> None:
        pass

    def on_renamed(self, callback: Callable[[str, str], None]) -> None:
        pass

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    async def acquire(self, mid: str) -> bool:
        return True

    async def release(self, mid: str) -> None:
        pass

    def let_go(self, mid: str) -> None:
        pass

    async def owner(self, mid: str) -> str | None:
        return None

    async def forward(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> bool:
        return False

    def ask_snapshot(self, owner: str, conn: Conn, mid: str) -> None:
        raise AssertionError("one process has no other owner")

    async def seats_taken(self, runner: MatchRunner) -> None:
        pass

    async def seats_left(self, runner: MatchRunner, pids: list[str]) -> None:
        pass

    async def seat_elsewhere(self, profile: str) -> p.SeatRef | None:
        return None

    async def seated_elsewhere(self, profiles: Sequence[str]) -> set[str]:
        return set()

    def watch_elsewhere(self, profile: str, mid: str, lobby: str) -> None:
        pass

    async def rename_elsewhere(self, profile: str, name: str, mid: str) -> bool:
        return False

    def tell_renamed(self, profile: str, name: str) -> None:
        pass

    async def spectators(self, mid: str) -> int:
        raise AssertionError("one process counts its own spectators")

    async def hand_over(self, wait: float) -> list[str]:
        """One process keeps its matches until it stops (they resume when it starts)."""
        self.draining = True
        return []


__all__ = ["Owned", "Ownership", "Request", "SingleProcess"]
