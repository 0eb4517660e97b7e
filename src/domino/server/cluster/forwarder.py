"""Sockets on one node, the match on another: forwarded requests and their answers.

A socket's ``move``, ``back`` or ``leave_match`` (a :class:`~domino.server.protocol.node.Forwarded`
command), or its request for a snapshot, for a match another node drives goes to
that node's channel. The owner serves it as if the socket were its own
(:class:`RemoteConn`: its answers go back to that one socket) and then says
:class:`~domino.server.protocol.node.Done`; a node that no longer drives the match
passes the request on (:class:`~domino.server.protocol.node.Passed`). What the
forwarding node keeps until then, and what it does when no answer comes, is
:mod:`~domino.server.cluster.forwarding`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import BaseModel

from domino.server import protocol as p
from domino.server.cluster.forwarding import InFlight, Pending
from domino.server.cluster.lease import Leases
from domino.server.cluster.ownership import Owned, Request
from domino.server.cluster.redisrouter import RedisRouter
from domino.server.desks.lobby import LobbyError
from domino.server.protocol import node as n
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.server")


class RemoteConn(Conn):
    """A socket on another node, as a runner sees it: who speaks, and where answers go
    (the router's reply to that one socket)."""

    def __init__(self, router: RedisRouter, node: str, conn_id: int, profile: str) -> None:
        super().__init__(profile, "")
        self.router = router
        self.node = node
        self.id = conn_id

    def send(self, msg: dict[str, Any] | BaseModel) -> None:
        """Answer the socket (an error, a snapshot)."""
        body = msg.model_dump() if isinstance(msg, BaseModel) else msg
        self.router.reply(self.node, self.id, self.profile, body)

    def send_text(self, text: str) -> None:
        raise AssertionError("a remote socket is answered with send()")


class Forwarder:
    """Forwarding for :class:`~domino.server.cluster.leased.LeasedOwnership`."""

    def __init__(self, router: RedisRouter, leases: Leases, clock: Callable[[], float]) -> None:
        self.router = router
        self.leases = leases
        self.node = router.node
        self.draining = False
        #: commands this node forwarded to another and has no answer for yet
        self.in_flight = InFlight(clock)
        self._passed: set[tuple[str, int]] = set()  # (origin node, fid) passed on from here
        # One takeover at a time: the sweeper and a socket's request (``owner``) may
        # both find the same match without an owner.
        self._taking = asyncio.Lock()
        self._remote_tasks: set[asyncio.Task[None]] = set()
        self._renamed: list[Callable[[str, str], None]] = []
        self._desk: Owned | None = None

    @property
    def desk(self) -> Owned:
        assert self._desk is not None, "bind() the match desk first"
        return self._desk

    def bind(self, desk: Owned) -> None:
        self._desk = desk

    def on_renamed(self, callback: Callable[[str, str], None]) -> None:
        self._renamed.append(callback)

    async def owner(self, mid: str) -> str | None:
        raise NotImplementedError

    async def take(self, mid: str) -> bool:
        raise NotImplementedError

    async def _seats_of(self, profiles: list[str]) -> dict[str, str]:
        raise NotImplementedError

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._remote_tasks.add(task)
        task.add_done_callback(self._remote_tasks.discard)

    # -- sending ---------------------------------------------------------------------------
    def ask_snapshot(self, owner: str, conn: Conn, mid: str) -> None:
        self._send(owner, "snapshot", conn, mid)

    def _send(
        self,
        owner: str,
        kind: Request,
        conn: Conn,
        mid: str,
        cmd: dict[str, Any] | None = None,
        ref: str | None = None,
        fid: int | None = None,
    ) -> None:
        msg = n.Forwarded(
            kind=kind,
            match=mid,
            profile=conn.profile,
            node=self.node,
            conn=conn.id,
            cmd=cmd,
            ref=ref,
            fid=fid,
        )
        self.router.send_to_node(owner, msg)

    async def forward(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> bool:
        """Send a command for a match this node does not drive to the node that does;
        ``False`` when it is this node's (or nobody's: the caller answers). It is kept
        in :attr:`in_flight` until its owner answers (``forwarding.py``)."""
        runner = self.desk.runners.get(mid)
        if runner is not None and not runner.moved:
            return False
        try:
            owner = await self.owner(mid)
        except Exception:
            # Redis away: nobody can say which node drives the match, so nothing can be
            # accepted; the player tries again (docs/deploy.md, "Redis").
            log.warning(
                "a command for %s not routed (Redis)",
                mid,
                extra={"event": "command_unrouted", "match": mid},
            )
            raise LobbyError("not_stored") from None
        if owner is None:
            return False
        # The typed command travels as the client's message (checked again there).
        body = cmd.model_dump()
        fid = self.in_flight.add(conn, mid, body, ref, owner, resends)
        self._send(owner, "command", conn, mid, body, ref, fid)
        return True

    # -- receiving -------------------------------------------------------------------------
    def _on_node_message(self, sender: str, payload: dict[str, Any]) -> None:
        msg = n.parse_node(payload)
        match msg:
            case None:
                log.warning("a malformed node message: %r", payload)
            case n.Renamed():
                for cb in list(self._renamed):
                    cb(msg.profile, msg.name)
            case n.RenameSeat():
                self._spawn(self.desk.rename_seat(msg.match, msg.profile, msg.name))
            case n.Done():  # a command this node forwarded was handled
                self.in_flight.done(msg.fid)
            case n.Passed():  # ... or passed on to the node that drives its match now
                self.in_flight.passed(msg.fid, msg.to)
            case n.WatchLobby():
                self._spawn(self.desk.watch_from_lobby(msg.match, msg.lobby, msg.profile))
            case n.Forwarded():
                # Each runner's lock is fair, and nothing is awaited before it is taken, so
                # the commands of one sender reach a match in the order they were sent.
                self._spawn(self._remote_answered(msg))

    async def _remote_answered(self, msg: n.Forwarded) -> None:
        """:meth:`_remote`, then tell the forwarding node that the command was handled
        (after its frames: one publisher keeps the order), unless it went on elsewhere."""
        await self._remote(msg)
        if msg.fid is None:
            return
        if (msg.node, msg.fid) in self._passed:
            self._passed.discard((msg.node, msg.fid))
            return
        self.router.send_to_node(msg.node, n.Done(fid=msg.fid))

    async def _remote(self, msg: n.Forwarded) -> None:
        """A command or a snapshot request from a socket on another node."""
        mid = msg.match
        conn = RemoteConn(self.router, msg.node, msg.conn, msg.profile)
        runners = self.desk.runners
        runner = runners.get(mid)
        if (runner is None or runner.moved) and self._taking.locked():
            # A takeover is under way here: the lease names this node already, the runner
            # comes when the log is loaded (until then a copy this node stopped earlier
            # may stand in its place). Waiters resume in order: commands stay so.
            async with self._taking:
                runner = runners.get(mid)
        if (runner is None or runner.moved) and await self._pass_on(msg):
            return
        runner = runners.get(mid)
        if runner is None or runner.broken or runner.moved:
            code = "match_moved" if runner is not None and runner.moved else "match_not_found"
            conn.send(p.error(code, msg.ref, match=mid))
            return
        if msg.kind == "snapshot":
            # The asking node listens to the spectators' channel now (it subscribes
            # first): the frames after this snapshot are published again.
            self.router.hear_spectators(mid)
            runner.snapshot_for(conn)
            return
        seat = runner.seat_of(msg.profile)
        if seat is None:
            seat = next((i for i in runner.left if runner.players[i] == msg.profile), None)
        if seat is None:
            conn.send(p.error("not_seated", msg.ref))
            return
        try:
            cmd = p.command_of(msg.cmd)
        except p.ProtocolError:
            log.warning("a malformed node message: %r", msg)
            return
        await runner.command(conn, seat, cmd.command(), msg.ref)

    async def _pass_on(self, msg: n.Forwarded) -> bool:
        """A command or snapshot request reached this node after it stopped driving its
        match (sent to it just before, say, or held up while Redis was away): pass it
        on to the node that drives the match now, which answers the socket itself, or
        serve it here if nobody did and this node takes the match over (:meth:`owner`).
        ``True`` when passed on. At most two hops, so leases that change hands meanwhile
        cannot send a message round in circles; then the socket hears ``match_moved``
        and reconnects."""
        if msg.hops >= 2:
            return False
        try:
            owner = await self.owner(msg.match)
        except Exception:
            return False  # Redis away: the socket hears match_moved and asks again
        if owner is None:
            return False
        self.router.send_to_node(owner, msg.model_copy(update={"hops": msg.hops + 1}))
        if msg.fid is not None:
            # The forwarding node waits for the answer from that node now.
            self._passed.add((msg.node, msg.fid))
            self.router.send_to_node(msg.node, n.Passed(fid=msg.fid, to=owner))
        return True

    # -- commands without an answer -----------------------------------------------------------
    async def recheck_forwarded(self) -> None:
        """Every sweep: a forwarded command whose owner lost the match before answering
        (died, paused past its lease, handed it over) goes again to whoever drives the
        match now, or is served here; one without an answer for too long is answered
        ``match_moved`` (the browser reconnects and sends it again). See ``forwarding.py``."""
        flying = self.in_flight
        if not flying.open:
            return
        router = self.router
        flying.drop_closed(lambda c: router.conn(c.id) is c)
        mids = flying.matches()
        holders: dict[str, str | None] | None
        try:
            holders = dict(zip(mids, await self.leases.holders(mids), strict=True))
        except Exception:
            holders = None  # Redis away: the commands wait for it (forwarding.py)
        again, moved = flying.due(holders, wait_for_holder=self.draining)
        for pending in moved:
            _answer_moved(pending)
        for pending in again:
            await self._resend(pending)

    async def _resend(self, pending: Pending) -> None:
        """Send a command whose owner lost its match again, as the socket first did."""
        log.info(
            "command for %s sent again (its owner %s lost the match)",
            pending.match,
            pending.owner,
            extra={"event": "command_resent", "match": pending.match, "owner": pending.owner},
        )
        try:
            cmd = p.command_of(pending.cmd)
            await self.desk.command(
                pending.conn, pending.match, cmd, pending.ref, resends=pending.resends + 1
            )
        except LobbyError as e:
            pending.conn.send(p.error(e.code, pending.ref, **e.params))
        except Exception:
            log.exception("a command for %s could not be sent again", pending.match)
            _answer_moved(pending)

    # -- Redis back, presence --------------------------------------------------------------
    def _on_router_back(self) -> None:
        self._spawn(self._catch_up())

    async def _catch_up(self) -> None:
        """This node's subscriber is back after it lost Redis: what other nodes published
        meanwhile (a takeover's snapshot, the moves after it, a match's end) never reached
        this node's sockets. Each socket that follows a match another node drives now,
        in a seat or as a spectator, gets a fresh snapshot from that node. A match nobody
        holds yet is announced to every audience by the node that takes it over, and
        this node hears that now."""
        router, desk = self.router, self.desk
        follow: dict[str, set[Conn]] = {}
        for mid, conns in list(router.spectators.items()):
            follow.setdefault(mid, set()).update(conns)
        profiles = [pid for pid in list(router.conns) if desk.seat_ref(pid) is None]
        try:
            for pid, mid in (await self._seats_of(profiles)).items():
                follow.setdefault(mid, set()).update(router.sockets_of(pid))
            mids = [m for m in follow if (r := desk.runners.get(m)) is None or r.moved]
            holders = await self.leases.holders(mids)
        except Exception:
            return  # Redis away again: its next return catches up
        asked = 0
        for mid, holder in zip(mids, holders, strict=True):
            if holder is None or holder == self.node:
                continue
            for conn in follow[mid]:
                self.ask_snapshot(holder, conn, mid)
                asked += 1
        log.info(
            "asked for %d snapshots after Redis came back",
            asked,
            extra={"event": "caught_up", "snapshots": asked},
        )

    def _on_presence(self, profile: str, online: bool) -> None:
        """A profile came or went on some node: its seat here hears of it."""
        mid = self.desk.seated.get(profile)
        runner = self.desk.runners.get(mid) if mid else None
        if runner is None or runner.moved:
            return
        seat = runner.seat_of(profile)
        if seat is not None:
            self._spawn(runner.sync_connected(seat))


def _answer_moved(pending: Pending) -> None:
    pending.conn.send(p.error("match_moved", pending.ref, match=pending.match))


__all__ = ["Forwarder", "RemoteConn"]
