"""Commands a node forwarded to a match's owner and has not seen answered yet.

A socket's ``move``, ``back`` or ``leave_match`` for a match another node drives goes to
that node's channel (:meth:`~domino.server.cluster.forwarder.Forwarder.forward`). If the owner
dies before it handles it, the command would vanish: nothing stored, nothing refused,
and a client that waits for an answer waits until the turn clock plays for it. So the
forwarding node keeps each forwarded command here (:class:`InFlight`) until the owner
says it is done with it (a ``done`` node message, sent after the command's frames,
stored or refused), or that it passed it on to the node that drives the match now
(``passed``). Every sweep the node looks again at what is still open
(:meth:`InFlight.due`):

- the lease no longer names the node it was sent to (the owner died and the lease
  expired or was taken over, or it handed the match over): the command is sent again
  the ordinary way, to whoever holds the match now, or served here if nobody does
  and this node takes it over. A move carries its version, so one the dead owner had
  stored before it died is refused as stale, never applied twice;
- no answer for :data:`FORWARD_TIMEOUT` seconds although the owner still holds the
  lease (the message lost on the way, say): the socket hears ``match_moved``, which
  the browser answers by reconnecting and sending the command again.

While Redis is away nobody can say who holds a match, and no answer can come: the owner
stops acting for its matches when it cannot renew their leases, and node messages go
through Redis. A command then waits, and its :data:`FORWARD_TIMEOUT` counts from the
sweep that finds Redis back (a ``match_moved`` meanwhile would only send the browser to
a node that cannot act either).
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domino.server.transport.conn import Conn

#: Seconds without an answer from an owner that still holds the lease before the
#: socket hears ``match_moved`` (the browser then reconnects and sends it again).
FORWARD_TIMEOUT = 8.0
#: Seconds a forwarded command is left alone before a sweep looks at it (its answer,
#: or the word that it was passed on, is normally back within milliseconds).
MIN_AGE = 0.5
#: How often one command is sent again to a new owner before the socket hears
#: ``match_moved`` instead (owners that keep dying under it).
MAX_RESENDS = 3


@dataclass
class Pending:
    """One forwarded command: the socket it came from and where it went."""

    fid: int
    conn: Conn
    match: str
    cmd: dict[str, Any]
    ref: str | None
    owner: str
    #: when it was sent, or the last sweep that found Redis away (its timeout counts anew)
    sent: float
    resends: int = 0


class InFlight:
    """This node's forwarded commands without an answer, by their id (``fid``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        #: seconds (the server's clock, so tests move it)
        self.clock = clock
        self.open: dict[int, Pending] = {}
        # Ids start anywhere: a late answer to a node's earlier life matches nothing.
        self._ids = itertools.count(secrets.randbelow(1 << 48))

    def add(
        self, conn: Conn, match: str, cmd: dict[str, Any], ref: str | None, owner: str, resends: int
    ) -> int:
        """Remember a command sent to ``owner``; its id goes with it (``fid``)."""
        fid = next(self._ids)
        self.open[fid] = Pending(fid, conn, match, cmd, ref, owner, self.clock(), resends)
        return fid

    def done(self, fid: Any) -> None:
        """The owner handled it (stored or refused, its answer sent)."""
        if isinstance(fid, int):
            self.open.pop(fid, None)

    def passed(self, fid: Any, to: Any) -> None:
        """The node it went to passed it on to ``to``, which answers it now."""
        pending = self.open.get(fid) if isinstance(fid, int) else None
        if pending is not None and isinstance(to, str):
            pending.owner = to

    def drop_closed(self, is_open: Callable[[Conn], bool]) -> None:
        """Forget commands whose socket has closed: nobody waits for their answer."""
        for fid in [f for f, p in self.open.items() if not is_open(p.conn)]:
            del self.open[fid]

    def due(
        self, holders: dict[str, str | None] | None, *, wait_for_holder: bool = False
    ) -> tuple[list[Pending], list[Pending]]:
        """Take out what must be acted on now: (send again, answer ``match_moved``).

        ``holders`` is each open command's match -> the node holding its lease now
        (``None`` if Redis could not say: then nothing is due, and every command's
        timeout counts from the sweep that finds Redis back). With
        ``wait_for_holder`` (a draining node, which takes nothing over) a match whose
        lease nobody holds waits for the node that takes it."""
        now = self.clock()
        again: list[Pending] = []
        moved: list[Pending] = []
        if holders is None:
            for p in self.open.values():
                p.sent = now
            return again, moved
        for fid, p in list(self.open.items()):
            if now - p.sent < MIN_AGE:
                continue
            holder = holders.get(p.match, p.owner)
            lost = holder != p.owner and not (holder is None and wait_for_holder)
            if lost and p.resends < MAX_RESENDS:
                again.append(p)
            elif lost or now - p.sent >= FORWARD_TIMEOUT:
                moved.append(p)
            else:
                continue
            del self.open[fid]
        return again, moved

    def matches(self) -> list[str]:
        """The matches of the open commands."""
        return sorted({p.match for p in self.open.values()})


__all__ = ["FORWARD_TIMEOUT", "MAX_RESENDS", "MIN_AGE", "InFlight", "Pending"]
