"""The single process's router: the sockets themselves, per audience, and presence.

:class:`InProcessRouter` implements :class:`~domino.server.desks.doors.Router` for one
process. A node of a cluster uses :class:`~domino.server.cluster.redisrouter.RedisRouter`,
which is this registry plus a bus between the nodes. :class:`Online` is the membership
test the lobbies ask ("is this profile online?"), answered by a router.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Set
from typing import Any

from pydantic import BaseModel

from domino.server.transport.conn import Conn, encode


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

    def to_spectators(self, match_id: str, msg: dict[str, Any], *, frame: bool = False) -> None:
        """Send to every socket watching ``match_id`` (``frame``: one of the match's
        own, which only the cluster's router treats apart)."""
        _send(self.spectators.get(match_id), msg)

    def to_spectators_except(
        self, match_id: str, msg: dict[str, Any] | BaseModel, exclude: Set[str]
    ) -> None:
        """Every socket watching ``match_id`` gets ``msg``, but those of the profiles in
        ``exclude`` (table talk: a block hides a sender from the blocker)."""
        deliver_except(self.spectators.get(match_id), encode(msg), exclude)

    # -- who listens ---------------------------------------------------------------------
    def sockets_of(self, profile: str) -> Set[Conn]:
        """The open sockets of ``profile`` ."""
        return self.conns.get(profile, _EMPTY)

    def online(self, profile: str) -> bool:
        """Whether ``profile`` has an open socket (here: in this process)."""
        return bool(self.conns.get(profile))

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
        deliver(targets, encode(msg))


def deliver(targets: set[Conn] | None, text: str) -> None:
    """Queue an encoded message on each of ``targets`` (none: nothing)."""
    if targets:
        for c in list(targets):
            c.send_text(text)


def deliver_except(targets: set[Conn] | None, text: str, exclude: Set[str]) -> None:
    """Queue an encoded message on each of ``targets`` whose profile is not in
    ``exclude``."""
    if targets:
        for c in list(targets):
            if c.profile not in exclude:
                c.send_text(text)


def deliver_body(targets: set[Conn] | None, body: str) -> None:
    """Deliver a spectators' payload from another node: a frame, or ``!{ids}\n{frame}``
    (``ids`` comma-separated: profiles that must not get it, :func:`filtered`)."""
    if body.startswith("!"):
        ids, _, text = body[1:].partition("\n")
        deliver_except(targets, text, frozenset(ids.split(",")) if ids else frozenset())
    else:
        deliver(targets, body)


def filtered(text: str, exclude: Set[str]) -> str:
    """The spectators' payload of ``text`` that skips the profiles in ``exclude``."""
    return "!" + ",".join(sorted(exclude)) + "\n" + text


__all__ = ["InProcessRouter", "Online", "deliver", "deliver_body", "deliver_except", "filtered"]
