"""The matches of one process: start, resume, commands, watching, the end.

:class:`MatchDesk` owns the running :class:`~domino.server.desks.matches.MatchRunner`
objects and who is seated where. It hands each runner only its doors (a
:class:`~domino.server.desks.matches.MatchEnv`: the entry store, the router, the
callbacks below) and claims each match for this process when it creates or
resumes it, so a second process on the same database fences the first out.

In a cluster (``Settings.redis_url``) a node drives a match only while it holds
the match's lease (:class:`~domino.server.cluster.lease.Leases`): it takes the lease
when it creates a match, renews its leases every third of their time, stops
acting for a match whose lease it lost (or could not renew in time), and its
sweeper takes over every running match whose lease nobody holds — a dead or
paused node's, or one handed over on shutdown: lease, then claim (a new fencing
token), then the stored log, in that order, so nothing the old owner stored
before the claim is missed and nothing it tries after can be stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from domino.rules import Rules, RulesError
from domino.rules.audience import audience_of, may_follow
from domino.rules.record import record_of as rules_record_of
from domino.server import protocol as p
from domino.server.cluster.forwarding import InFlight, Pending
from domino.server.cluster.lease import Leases
from domino.server.desks.doors import InProcessRouter, NullObserver, Observer
from domino.server.desks.lobby import PLAYING, Lobby, LobbyError
from domino.server.desks.matches import MatchEnv, MatchHooks, MatchRunner, PersistError, seat_specs
from domino.server.desks.people import new_id, profile_out
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.matches import StoredMatch
from domino.server.transport.conn import Conn
from domino.table import RestoreError, SeatSpec, Table

log = logging.getLogger("domino.server")

#: Forget players' seats in the cluster's seat map (``{prefix}seats``: profile -> "match
#: seat"), each only if it still names the match ``ARGV[1]``: another node may have
#: published a player's seat in a new match since, and that one stays. One script, so
#: nothing can come between the look and the delete. Returns how many seats went.
UNSEAT = """
local gone = 0
local mine = ARGV[1] .. ' '
for i = 2, #ARGV do
  local seat = redis.call('HGET', KEYS[1], ARGV[i])
  if seat and string.sub(seat, 1, #mine) == mine then
    gone = gone + redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return gone
"""

#: What the desk calls when a match of a lobby is over: (runner, players who left it).
LobbyFree = Callable[[MatchRunner, set[str | None]], Awaitable[None]]


#: How long a command on a draining node waits for the node that takes its match.
HAND_OVER_ROUTE_WAIT = 5.0


class MatchDesk:
    """Running matches, seats, spectators and the bookkeeping at a match's end."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        router: InProcessRouter,
        node: str,
        activity: Callable[[], Awaitable[None]],
        lobby_free: LobbyFree,
        observer: Observer | None = None,
        leases: Leases | None = None,
        takeover: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.db = db
        self.router = router
        #: the owner name this process claims matches with
        self.node = node
        self.runners: dict[str, MatchRunner] = {}
        #: the cluster's leases (None: one process owns every match of its database)
        self.leases = leases
        self._unseat = leases.redis.register_script(UNSEAT) if leases is not None else None
        self._takeover = takeover or (lambda: None)
        # One takeover at a time: the sweeper and a socket's request (``_owner``) may
        # both find the same match without an owner.
        self._taking = asyncio.Lock()
        #: a draining node (SIGTERM) takes no match over: it would hand it on again soon
        self.draining = False
        self._tasks: list[asyncio.Task[None]] = []
        self._remote_tasks: set[asyncio.Task[None]] = set()
        #: commands this node forwarded to another and has no answer for yet
        self.in_flight = InFlight(self.clock.now)
        self._passed: set[tuple[str, int]] = set()  # (origin node, fid) passed on from here
        self.seated: dict[str, str] = {}  # profile -> unfinished match it plays in
        self._activity = activity
        self._lobby_free = lobby_free
        hooks = MatchHooks(
            finishing=self.store_finish,
            finished=self.after_finish,
            left=self.left_match,
            activity=activity,
            # On any node of a cluster (the Redis router knows), else on this process.
            online=getattr(router, "online", None) or (lambda pid: bool(router.sockets_of(pid))),
        )
        self.env = MatchEnv(
            store=db,
            router=router,
            hooks=hooks,
            clock=self.clock,
            timing=settings.timing,
            bot_budget=settings.bot_budget,
            observer=observer or NullObserver(),
        )

    # -- lifecycle -----------------------------------------------------------------------
    async def resume(self) -> None:
        """Claim and restart every unfinished match from its stored log (one process); in a
        cluster, start the lease keeper and the sweeper, which takes matches one by one."""
        if self.leases is not None:
            if self.reaches_nodes:
                router: Any = self.router
                leases = self.leases
                router.owns = lambda mid: not leases.expired(mid)
                router.on_node_message(self._on_node_message)
                router.on_presence(self._on_presence)
                router.on_back(self._on_router_back)
            self._tasks = [
                asyncio.create_task(self._keep_leases(), name="leases"),
                asyncio.create_task(self._sweep_every(), name="sweeper"),
            ]
            return
        for mid in await self.db.running_ids():
            fence = await self.db.claim(mid, self.node)
            sm = await self.db.stored(mid)
            if sm is not None:
                await self._restore(sm, fence)

    def _table_of(self, sm: StoredMatch) -> Table | None:
        """A stored match's table, rebuilt from its log (clocks re-armed, ``Timing.grace``
        added); ``None`` (logged) if the log cannot be replayed."""
        try:
            return Table.restore(
                sm.id,
                Rules.from_dict(sm.rules),
                seat_specs(sm.seats),
                sm.seed,
                sm.log,
                self.clock.now(),
                timing=self.settings.timing,
                bot_budget=self.settings.bot_budget,
            )
        except (RestoreError, ValueError):
            log.exception("match %s cannot be restored", sm.id)
            return None

    async def _restore(self, sm: StoredMatch, fence: int) -> MatchRunner | None:
        """Rebuild a stored match's table and start it under ``fence`` (``None``: its log
        cannot be replayed; the match is left as it is)."""
        table = self._table_of(sm)
        if table is None:
            return None
        runner = MatchRunner(self.env, table, sm.lobby, sm.started_at, fence)
        self.runners[sm.id] = runner
        if table.finished:  # the end was stored, the bookkeeping was not
            await self.finish_match(runner)
            return runner
        for i, pid in enumerate(runner.players):
            if pid is not None and i not in runner.left:
                self.seated[pid] = sm.id
        await self._publish_seats(runner)
        runner.start()
        return runner

    async def stop(self) -> None:
        """Stop every match task (the matches resume from the database); in a cluster,
        then give their leases up, so other nodes take them over at once."""
        for task in [*self._tasks, *self._remote_tasks]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._remote_tasks, return_exceptions=True)
        self._tasks = []
        for runner in list(self.runners.values()):
            await runner.stop()
        if self.leases is not None:
            for mid in list(self.runners):
                with contextlib.suppress(Exception):  # Redis away: the lease simply expires
                    await self.leases.release(mid)

    # -- a cluster: sockets on one node, the match on another -------------------------------
    @property
    def reaches_nodes(self) -> bool:
        """Whether the router carries messages between nodes (the Redis router)."""
        return self.leases is not None and hasattr(self.router, "send_to_node")

    async def _owner(self, mid: str) -> str | None:
        """The node that holds ``mid``'s lease, if another node does.

        When nobody holds it (its owner stopped and gave it up, or died and the lease
        expired, and no sweeper has taken it yet), this node takes a running match over
        at once: a command, a ``watch`` or a reconnect in that moment is served rather
        than refused with ``match_not_found``.
        """
        if self.leases is None:
            return None
        holder = await self.leases.holder(mid)
        here = self.runners.get(mid)
        if holder == self.node and (here is None or here.moved) and self._taking.locked():
            async with self._taking:  # our takeover of it is under way: let it finish
                pass
        if holder is None and not self.draining:
            row = await self.db.match(mid)
            if row is not None and row["status"] == "running":
                await self.take(mid)
                here = self.runners.get(mid)
                if here is not None and not here.moved:
                    return None
                holder = await self.leases.holder(mid)  # another node was quicker
        if self.draining and holder in (None, self.node):
            # This node is handing its matches over (SIGTERM): wait (bounded) for the
            # node that takes this one, so a command in that moment goes there instead
            # of being refused with match_moved.
            runner = self.runners.get(mid)
            if runner is not None and runner.moved:  # one of the matches it gave away
                wait = min(HAND_OVER_ROUTE_WAIT, self.leases.ttl + 2 * self.settings.sweep_every)
                deadline = time.monotonic() + wait
                while holder in (None, self.node) and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                    holder = await self.leases.holder(mid)
        return holder if holder != self.node else None

    def _send_to(self, owner: str, kind: str, conn: Conn, mid: str, **extra: Any) -> None:
        router: Any = self.router
        router.send_to_node(
            owner,
            {
                "kind": kind,
                "match": mid,
                "profile": conn.profile,
                "node": self.node,
                "conn": conn.id,
                **extra,
            },
        )

    async def _forward(
        self, kind: str, conn: Conn, mid: str, resends: int = 0, **extra: Any
    ) -> bool:
        """Send a command for a match this node does not drive to the node that does;
        ``False`` when it is this node's (or nobody's: the caller answers). A command
        is kept in :attr:`in_flight` until its owner answers (``forwarding.py``)."""
        if not self.reaches_nodes:
            return False
        runner = self.runners.get(mid)
        if runner is not None and not runner.moved:
            return False
        try:
            owner = await self._owner(mid)
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
        if kind == "command":
            # The typed command travels as the client's message (checked again there).
            extra["cmd"] = cmd = extra["cmd"].model_dump()
            fid = self.in_flight.add(conn, mid, cmd, extra.get("ref"), owner, resends)
            extra["fid"] = fid
        self._send_to(owner, kind, conn, mid, **extra)
        return True

    def _on_node_message(self, sender: str, payload: dict[str, Any]) -> None:
        kind = payload.get("kind")
        if kind == "renamed":
            return  # a profile's new name for a node's sockets (Connections)
        if kind == "rename_seat":
            self._spawn(
                self._rename_seat(payload.get("match"), payload.get("profile"), payload.get("name"))
            )
            return
        if kind == "done":  # a command this node forwarded was handled
            self.in_flight.done(payload.get("fid"))
            return
        if kind == "passed":  # ... or passed on to the node that drives its match now
            self.in_flight.passed(payload.get("fid"), payload.get("to"))
            return
        # Each runner's lock is fair, and nothing is awaited before it is taken, so the
        # commands of one sender reach a match in the order they were sent.
        task = asyncio.get_running_loop().create_task(self._remote_answered(payload))
        self._remote_tasks.add(task)
        task.add_done_callback(self._remote_tasks.discard)

    async def _remote_answered(self, payload: dict[str, Any]) -> None:
        """:meth:`_remote`, then tell the forwarding node that the command was handled
        (after its frames: one publisher keeps the order), unless it went on elsewhere."""
        await self._remote(payload)
        fid, origin = payload.get("fid"), payload.get("node")
        if not isinstance(fid, int) or not isinstance(origin, str) or not self.reaches_nodes:
            return
        if (origin, fid) in self._passed:
            self._passed.discard((origin, fid))
            return
        router: Any = self.router
        router.send_to_node(origin, {"kind": "done", "fid": fid})

    async def _remote(self, payload: dict[str, Any]) -> None:
        """A command or a snapshot request from a socket on another node, or (``watch_lobby``)
        a match started on another node that this node's sockets of a lobby member watch."""
        if payload.get("kind") == "watch_lobby":
            try:
                mid, code = str(payload["match"]), str(payload["lobby"])
                who = str(payload["profile"])
            except KeyError:
                log.warning("a malformed node message: %r", payload)
                return
            await self.watch_from_lobby(mid, code, who)
            return
        try:
            mid, profile = str(payload["match"]), str(payload["profile"])
            conn: Any = RemoteConn(self.router, str(payload["node"]), int(payload["conn"]), profile)
            kind = payload.get("kind")
        except (KeyError, TypeError, ValueError):
            log.warning("a malformed node message: %r", payload)
            return
        runner = self.runners.get(mid)
        if (runner is None or runner.moved) and self._taking.locked():
            # A takeover is under way here: the lease names this node already, the runner
            # comes when the log is loaded (until then a copy this node stopped earlier
            # may stand in its place). Waiters resume in order: commands stay so.
            async with self._taking:
                runner = self.runners.get(mid)
        if (runner is None or runner.moved) and await self._pass_on(mid, payload):
            return
        runner = self.runners.get(mid)
        if runner is None or runner.broken or runner.moved:
            code = "match_moved" if runner is not None and runner.moved else "match_not_found"
            ref = payload.get("ref")
            conn.send(p.error(code, ref, match=mid))
            return
        if kind == "snapshot":
            runner.snapshot_for(conn)
            return
        if kind != "command":
            return
        seat = runner.seat_of(profile)
        if seat is None:
            seat = next((i for i in runner.left if runner.players[i] == profile), None)
        ref = payload.get("ref")
        if seat is None:
            conn.send(p.error("not_seated", ref))
            return
        try:
            cmd = p.command_of(payload.get("cmd"))
        except p.ProtocolError:
            log.warning("a malformed node message: %r", payload)
            return
        await runner.command(conn, seat, cmd.command(), ref)

    async def _pass_on(self, mid: str, payload: dict[str, Any]) -> bool:
        """A command or snapshot request reached this node after it stopped driving
        ``mid`` (sent to it just before, say, or held up while Redis was away): pass it
        on to the node that drives the match now, which answers the socket itself, or
        serve it here if nobody did and this node takes the match over (:meth:`_owner`).
        ``True`` when passed on. At most two hops, so leases that change hands meanwhile
        cannot send a message round in circles; then the socket hears ``match_moved``
        and reconnects."""
        hops = payload.get("hops", 0)
        if not isinstance(hops, int) or hops >= 2:
            return False
        try:
            owner = await self._owner(mid)
        except Exception:
            return False  # Redis away: the socket hears match_moved and asks again
        if owner is None:
            return False
        router: Any = self.router
        router.send_to_node(owner, {**payload, "hops": hops + 1})
        fid, origin = payload.get("fid"), payload.get("node")
        if isinstance(fid, int) and isinstance(origin, str):
            # The forwarding node waits for the answer from that node now.
            self._passed.add((origin, fid))
            router.send_to_node(origin, {"kind": "passed", "fid": fid, "to": owner})
        return True

    async def recheck_forwarded(self) -> None:
        """Every sweep: a forwarded command whose owner lost the match before answering
        (died, paused past its lease, handed it over) goes again to whoever drives the
        match now, or is served here; one without an answer for too long is answered
        ``match_moved`` (the browser reconnects and sends it again). See ``forwarding.py``."""
        flying = self.in_flight
        if not flying.open or self.leases is None:
            return
        router: Any = self.router
        flying.drop_closed(lambda c: router.conn(c.id) is c)
        mids = flying.matches()
        holders: dict[str, str | None] | None
        try:
            holders = dict(zip(mids, await self.leases.holders(mids), strict=True))
        except Exception:
            holders = None  # Redis away: only the timeout applies
        again, moved = flying.due(holders, wait_for_holder=self.draining)
        for pending in moved:
            self._answer_moved(pending)
        for pending in again:
            await self._resend(pending)

    def _answer_moved(self, pending: Pending) -> None:
        pending.conn.send(p.error("match_moved", pending.ref, match=pending.match))

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
            await self.command(
                pending.conn, pending.match, cmd, pending.ref, resends=pending.resends + 1
            )
        except LobbyError as e:
            pending.conn.send(p.error(e.code, pending.ref, **e.params))
        except Exception:
            log.exception("a command for %s could not be sent again", pending.match)
            self._answer_moved(pending)

    def _on_router_back(self) -> None:
        task = asyncio.get_running_loop().create_task(self._catch_up())
        self._remote_tasks.add(task)
        task.add_done_callback(self._remote_tasks.discard)

    async def _catch_up(self) -> None:
        """This node's subscriber is back after it lost Redis: what other nodes published
        meanwhile (a takeover's snapshot, the moves after it, a match's end) never reached
        this node's sockets. Each socket that follows a match another node drives now,
        in a seat or as a spectator, gets a fresh snapshot from that node. A match nobody
        holds yet is announced to every audience by the node that takes it over, and
        this node hears that now."""
        assert self.leases is not None
        router: Any = self.router
        follow: dict[str, set[Conn]] = {}
        for mid, conns in list(router.spectators.items()):
            follow.setdefault(mid, set()).update(conns)
        profiles = [pid for pid in list(router.conns) if self.seat_ref(pid) is None]
        try:
            for i in range(0, len(profiles), 1000):
                chunk = profiles[i : i + 1000]
                seats = await self.leases.redis.hmget(self._seats_key(), chunk)
                for pid, value in zip(chunk, seats, strict=True):
                    if value is not None:
                        mid = str(value).partition(" ")[0]
                        follow.setdefault(mid, set()).update(router.sockets_of(pid))
            mids = [m for m in follow if (r := self.runners.get(m)) is None or r.moved]
            holders = await self.leases.holders(mids)
        except Exception:
            return  # Redis away again: its next return catches up
        asked = 0
        for mid, holder in zip(mids, holders, strict=True):
            if holder is None or holder == self.node:
                continue
            for conn in follow[mid]:
                self._send_to(holder, "snapshot", conn, mid)
                asked += 1
        log.info(
            "asked for %d snapshots after Redis came back",
            asked,
            extra={"event": "caught_up", "snapshots": asked},
        )

    def _on_presence(self, profile: str, online: bool) -> None:
        """A profile came or went on some node: its seat here hears of it."""
        mid = self.seated.get(profile)
        runner = self.runners.get(mid) if mid else None
        if runner is None or runner.moved:
            return
        seat = runner.seat_of(profile)
        if seat is not None:
            task = asyncio.get_running_loop().create_task(runner.sync_connected(seat))
            self._remote_tasks.add(task)
            task.add_done_callback(self._remote_tasks.discard)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._remote_tasks.add(task)
        task.add_done_callback(self._remote_tasks.discard)

    async def renamed(self, profile: str, name: str) -> None:
        """``profile`` took a new name: the seat it plays in a running match shows it to
        every audience, on whichever node drives the match."""
        runner = self.runners.get(self.seated.get(profile, ""))
        if runner is None or runner.moved:
            if not self.reaches_nodes:
                return
            where = await self.seat_anywhere(profile)
            if where is None:
                return
            owner = await self._owner(where.match)
            if owner is not None:
                router: Any = self.router
                router.send_to_node(
                    owner,
                    {"kind": "rename_seat", "match": where.match, "profile": profile, "name": name},
                )
                return
            runner = self.runners.get(where.match)  # this node took it over just now
        if runner is not None:
            await self._rename_seat(runner.id, profile, name)

    async def _rename_seat(self, mid: object, profile: object, name: object) -> None:
        """Store and show a seat's new name in a match this node drives (checked here:
        it may come from another node)."""
        runner = self.runners.get(mid) if isinstance(mid, str) else None
        if runner is None or runner.moved or not isinstance(name, str):
            return
        seat = runner.seat_of(profile) if isinstance(profile, str) else None
        if seat is None or runner.table.seats[seat].spec.name == name:
            return
        # Stored first, as everything is before anyone hears of it.
        seats = [s.spec.to_dict() for s in runner.table.seats]
        seats[seat]["name"] = name
        try:
            await self.db.store_seats(runner.id, seats)
        except Exception:  # the name stays as it was here; its next match shows it
            log.warning("match %s: the new name not stored", runner.id, exc_info=True)
            return
        await runner.rename(seat, name)

    def _seats_key(self) -> str:
        return f"{self.settings.redis_prefix}seats"

    async def _publish_seats(self, runner: MatchRunner) -> None:
        """Tell every node where this match's players sit (their welcome names it)."""
        if not self.reaches_nodes or self.leases is None:
            return
        mapping = {
            pid: f"{runner.id} {i}"
            for i, pid in enumerate(runner.players)
            if pid is not None and i not in runner.left
        }
        if mapping:
            with contextlib.suppress(Exception):  # Redis away: only other nodes' welcomes
                await self.leases.redis.hset(self._seats_key(), mapping=mapping)

    async def _unpublish_seats(self, runner: MatchRunner, pids: list[str]) -> None:
        """Forget where ``pids`` sit in ``runner``'s match, in one step (:data:`UNSEAT`): a
        seat a node has published for them in another match since stays."""
        if not self.reaches_nodes or self._unseat is None or not pids:
            return
        with contextlib.suppress(Exception):  # Redis away: as for _publish_seats
            await self._unseat(keys=[self._seats_key()], args=[runner.id, *pids])

    async def seat_anywhere(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays now, on this node or (a cluster) on any other."""
        here = self.seat_ref(profile)
        if here is not None or not self.reaches_nodes or self.leases is None:
            return here
        try:
            value = await self.leases.redis.hget(self._seats_key(), profile)
        except Exception:
            return None
        if value is None:
            return None
        mid, _, seat = str(value).partition(" ")
        return p.SeatRef(match=mid, seat=int(seat)) if seat.isdigit() else None

    # -- ownership in a cluster -------------------------------------------------------------
    async def take(self, mid: str) -> bool:
        """Take over a running match nobody holds: its lease, a new fence, its log."""
        async with self._taking:
            return await self._take(mid)

    async def _take(self, mid: str) -> bool:
        assert self.leases is not None
        old = self.runners.get(mid)
        if old is not None and not old.moved:
            return False  # ours already
        if not await self.leases.acquire(mid):
            return False
        if self.reaches_nodes:  # ours again (it may have been before): its frames go out
            router: Any = self.router
            router.keep_frames(mid)
        try:
            fence = await self.db.claim(mid, self.node)
            sm = await self.db.stored(mid)
        except KeyError:
            sm = None
        if sm is None:  # finished meanwhile
            await self.leases.release(mid)
            return False
        if old is not None:
            await old.stop()
        runner = await self._restore(sm, fence)
        if runner is None:
            await self.leases.release(mid)
            return False
        if not runner.gone:
            with contextlib.suppress(PersistError):  # not stored: the runner recovers
                await runner.announce()
        log.info(
            "match %s taken over",
            mid,
            extra={
                "event": "match_taken_over",
                "match": mid,
                "fence": fence,
                "entries": len(sm.log),
            },
        )
        self._takeover()
        return True

    async def sweep(self) -> list[str]:
        """Take over every running match whose lease nobody holds; the ones taken (none
        while this node drains)."""
        assert self.leases is not None
        if self.draining:
            return []
        ids = [
            mid
            for mid in await self.db.running_ids()
            if mid not in self.runners or self.runners[mid].moved
        ]
        taken = []
        for mid, holder in zip(ids, await self.leases.holders(ids), strict=True):
            if holder is None and await self.take(mid):
                taken.append(mid)
        return taken

    async def hand_over(self, wait: float) -> list[str]:
        """Give every match this node drives to the other nodes (a drain): stop acting
        for it, release its lease, and wait (at most ``wait`` seconds) until others hold
        them all; return the ones nobody took. This node's sockets keep working: their
        commands go to the new owners. A command stored here before the release is in
        the log the new owner loads; one that was not is refused by the fence."""
        self.draining = True
        if self.leases is None:
            return []
        mids = [m for m, r in self.runners.items() if not r.moved and not r.gone]
        for mid in mids:
            self.abandon(mid, why="handed over")
            with contextlib.suppress(Exception):  # Redis away: the lease simply expires
                await self.leases.release(mid)
        deadline = time.monotonic() + wait
        pending = mids
        while pending and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            with contextlib.suppress(Exception):
                holders = await self.leases.holders(pending)
                pending = [
                    m for m, h in zip(pending, holders, strict=True) if h in (None, self.node)
                ]
        log.info(
            "handed %d matches over",
            len(mids) - len(pending),
            extra={"event": "handed_over", "matches": len(mids), "pending": len(pending)},
        )
        return pending

    def abandon(self, mid: str, why: str = "lease lost") -> None:
        """Stop acting for a match whose lease we lost: no command, no clock, nothing
        stored or sent from here on (players hear ``match_moved`` and reconnect)."""
        runner = self.runners.get(mid)
        if runner is None or runner.moved:
            return
        runner.moved = True
        runner.broken = True
        if runner.task is not None:
            runner.task.cancel()
        if self.reaches_nodes:  # what it queued for Redis is older than the next owner's
            router: Any = self.router
            router.forget_frames(mid)
        # Its players are seated wherever the match goes on now (seat_anywhere asks Redis),
        # not at this stopped copy.
        for pid in runner.players:
            if pid is not None and self.seated.get(pid) == mid:
                del self.seated[pid]
        if why == "lease lost":
            log.warning(
                "match %s: lease lost; stopped", mid, extra={"event": "lease_lost", "match": mid}
            )

    async def _keep_leases(self) -> None:
        leases = self.leases
        assert leases is not None
        while True:
            await asyncio.sleep(leases.ttl / 3)
            mine = [m for m, r in self.runners.items() if not r.moved and not r.gone]
            try:
                lost = await leases.renew(mine)
            except Exception:
                log.warning("leases not renewed (Redis)", extra={"event": "lease_renew_failed"})
                lost = {m for m in mine if not leases.valid(m)}
            for mid in lost:
                self.abandon(mid)

    async def _sweep_every(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.sweep()
            except Exception:
                log.warning("sweep failed", exc_info=True, extra={"event": "sweep_failed"})
            try:
                await self.recheck_forwarded()
            except Exception:
                log.exception("forwarded commands not rechecked")
            await asyncio.sleep(max(0.0, self.settings.sweep_every - (time.monotonic() - started)))

    def next_wakeup(self) -> float | None:
        """The earliest time any match has something to do (tests)."""
        times = [
            w
            for r in self.runners.values()
            if not r.broken and (w := r.table.next_wakeup()) is not None
        ]
        return min(times) if times else None

    async def running(self) -> list[p.RunningMatchOut]:
        """The running matches for the lobby list, newest first (a cluster's node reads
        every node's from the database)."""
        if self.reaches_nodes:
            router: Any = self.router
            return [
                p.RunningMatchOut(
                    match=row["id"],
                    lobby=row["lobby"],
                    rules=row["rules"],
                    players=[s["name"] for s in row["seats"]],
                    started_at=row["started_at"],
                    spectators=await router.spectator_count(row["id"]),
                )
                for row in await self.db.running_summaries()
            ]
        return [
            p.RunningMatchOut(
                match=r.id,
                lobby=r.lobby,
                rules=r.table.rules.to_dict(),
                players=r.names(),
                started_at=r.started_at,
                spectators=len(self.router.watchers(r.id)),
            )
            for r in sorted(self.runners.values(), key=lambda x: -x.started_at)
            if not r.table.finished and not r.broken
        ]

    # -- start -----------------------------------------------------------------------------
    async def start(
        self,
        lobby: Lobby,
        version: int | None,
        announce: Callable[[Lobby], None],
        joined: Sequence[str] = (),
    ) -> None:
        """Start the match of ``lobby`` (checked by the caller, read at ``version``);
        ``announce`` sends the lobby's new state to its members before the match's first
        messages. Raises :class:`~domino.server.storage.lobbies.LobbyConflict` (nothing
        started) when the lobby changed since ``version``. ``version=None`` stores a new
        lobby with its members ``joined`` in the same transaction (*Schnelles Spiel*); then
        ``LobbyConflict`` means its code was used or a member is in another lobby."""
        now = self.clock.now()
        mid = new_id("m")
        seed = self.settings.seeds() if self.settings.seeds else secrets.token_hex(16)
        specs = []
        for o in lobby.seats:
            assert o is not None
            if o.kind == "bot":
                specs.append(SeatSpec("bot", o.name, level=o.level))
            else:
                specs.append(SeatSpec("human", o.name, player_id=o.player))
        table = Table(
            mid,
            lobby.rules,
            specs,
            seed,
            now,
            timing=self.settings.timing,
            bot_budget=self.settings.bot_budget,
        )
        if self.leases is not None and not await self.leases.acquire(mid):
            raise LobbyError("cluster_unavailable")  # (a new id: only Redis can refuse)
        before = (lobby.status, lobby.match)
        lobby.status = PLAYING
        lobby.match = mid
        try:
            await self.db.create_match(
                mid,
                lobby.code,
                lobby.rules.to_dict(),
                [s.to_dict() for s in specs],
                seed,
                now,
                list(table.log),
                lobby_doc=(lobby.status, lobby.to_dict(), version),
                joined=joined,
            )
        except BaseException:
            lobby.status, lobby.match = before
            if self.leases is not None:
                with contextlib.suppress(Exception):
                    await self.leases.release(mid)
            raise
        fence = await self.db.claim(mid, self.node)
        log.info(
            "match %s started",
            mid,
            extra={
                "event": "match_started",
                "match": mid,
                "lobby": lobby.code,
                "seats": len(specs),
            },
        )
        runner = MatchRunner(self.env, table, lobby.code, now, fence)
        self.runners[mid] = runner
        announce(lobby)
        for pid in runner.players:
            if pid is not None:
                self.seated[pid] = mid
        await self._publish_seats(runner)
        for m in lobby.members():
            seat = runner.seat_of(m)
            if seat is not None:
                # A player's sockets, on whichever nodes: the start, then the seat's view.
                self.router.to_player(m, p.MatchStartedMsg(match=mid, lobby=lobby.code, seat=seat))
                runner.send_snapshot(seat)
                continue
            for c in list(self.router.sockets_of(m)):
                c.send(p.MatchStartedMsg(match=mid, lobby=lobby.code, seat=None))
                self._watch(runner, c)
                runner.snapshot_for(c)
            if self.reaches_nodes:
                # The watchers' sockets on other nodes: those nodes subscribe them.
                router: Any = self.router
                for node in router.nodes_of(m) - {self.node}:
                    router.send_to_node(
                        node,
                        {"kind": "watch_lobby", "match": mid, "lobby": lobby.code, "profile": m},
                    )
        # Humans who are not connected anywhere start as absent; their clock runs.
        for seat, pid in enumerate(runner.players):
            if pid is not None:
                await runner.sync_connected(seat)
        runner.start()

    # -- spectators ------------------------------------------------------------------------
    def _watch(self, runner: MatchRunner, conn: Conn) -> None:
        self.router.watch(runner.id, conn)
        conn.watching.add(runner.id)

    async def watch_from_lobby(self, mid: str | None, lobby: str, profile: str) -> None:
        """Someone in a lobby whose match runs, without a seat in it, watches it: the
        same as the watchers at the start (match_started with seat null, then a state).
        In a cluster the match may run on another node: this node's sockets of the
        profile hear its spectators' channel, and the owner sends each a snapshot."""
        if mid is None:
            return
        runner = self.runners.get(mid)
        if runner is not None and not runner.moved:
            if runner.broken or runner.seat_of(profile) is not None:
                return
            for c in list(self.router.sockets_of(profile)):
                if runner.id not in c.watching:
                    c.send(p.MatchStartedMsg(match=runner.id, lobby=lobby, seat=None))
                    self._watch(runner, c)
                    runner.snapshot_for(c)
            return
        if not self.reaches_nodes:
            return
        conns = [c for c in self.router.sockets_of(profile) if mid not in c.watching]
        if not conns:
            return
        where = await self.seat_anywhere(profile)
        owner = await self._owner(mid)
        if owner is None or (where is not None and where.match == mid):
            return
        for c in conns:
            c.send(p.MatchStartedMsg(match=mid, lobby=lobby, seat=None))
            self.router.watch(mid, c)
            c.watching.add(mid)
            self._send_to(owner, "snapshot", c, mid)

    async def watching(self, conn: Conn, msg: p.Watch | p.Unwatch | p.Sync) -> None:
        """``watch``, ``unwatch`` and ``sync`` of a match; for a match that is over, its
        last state (the standings), whoever asks."""
        try:
            await self._watching(conn, msg)
        except LobbyError as e:
            if e.code != "match_not_found" or isinstance(msg, p.Unwatch):
                raise
            final = await self.final_snapshot(msg.match, conn.profile)
            if final is None:
                raise
            conn.send(final)

    async def _watching(self, conn: Conn, msg: p.Watch | p.Unwatch | p.Sync) -> None:
        here = self.runners.get(msg.match)
        if self.reaches_nodes and (here is None or here.moved):
            if isinstance(msg, p.Unwatch):
                if msg.match not in conn.watching:
                    raise LobbyError("not_watching")
                self.router.unwatch(msg.match, conn)
                conn.watching.discard(msg.match)
                return
            try:
                owner = await self._owner(msg.match)
            except Exception:
                # Redis away: nobody can say which node drives the match.
                log.warning("%s of %s not routed (Redis)", type(msg).__name__, msg.match)
                raise LobbyError("match_unavailable") from None
            if owner is not None:
                if isinstance(msg, p.Watch):
                    # This node hears the spectators' channel; the owner decides what the
                    # socket may see (its seat's view if it plays there), sends a snapshot.
                    self.router.watch(msg.match, conn)
                    conn.watching.add(msg.match)
                self._send_to(owner, "snapshot", conn, msg.match)
                return
            # Nobody else drives it: this node took it over just now (or it is not found).
        runner = self._runner(msg.match)
        seated = runner.seat_of(conn.profile) is not None
        watching = conn in self.router.watchers(runner.id)
        if isinstance(msg, p.Unwatch):
            if not watching:
                raise LobbyError("not_watching")
            self.router.unwatch(runner.id, conn)
            conn.watching.discard(runner.id)
            return
        if isinstance(msg, p.Sync) and not seated and not watching:
            raise LobbyError("not_watching")
        if isinstance(msg, p.Watch) and not seated:
            self._watch(runner, conn)
        runner.snapshot_for(conn)

    async def history(self, conn: Conn, msg: p.History) -> None:
        """``history``: the public events of a match's earlier rounds, for a socket that
        may see the match (its seat, watching it, or the match is over). Rebuilt from the
        table's log here, or from the stored log when another node drives the match (the
        stored log is never behind what a socket was sent)."""
        runner = self.runners.get(msg.match)
        if runner is not None and not runner.moved and not runner.broken:
            seated = runner.seat_of(conn.profile) is not None
            watching = conn in self.router.watchers(runner.id)
            if not may_follow(seated=seated, watching=watching, finished=False):
                raise LobbyError("not_watching")
            table: Table | None = runner.table
        else:
            sm = await self.db.stored(msg.match)
            finished = sm is None
            if sm is None:
                sm = await self.db.stored(msg.match, status="finished")
            if sm is None:
                raise LobbyError("match_not_found")
            players = [s.get("player_id") for s in sm.seats]
            seated = audience_of(conn.profile, players) is not None
            if not may_follow(
                seated=seated, watching=msg.match in conn.watching, finished=finished
            ):
                raise LobbyError("not_watching")
            table = self._table_of(sm)
        if table is None:
            raise LobbyError("match_not_found")
        rounds = [p.RoundEventsOut(**r) for r in table.earlier_rounds()]
        conn.send(p.EarlierRoundsMsg(match=msg.match, v=table.version, rounds=rounds))

    async def final_snapshot(self, mid: str, profile: str) -> dict[str, Any] | None:
        """The last state of a finished match, as ``profile`` saw it (its seat's view, or
        the spectators'): for a socket that asks after the end, a player whose connection
        dropped just before it, say. ``None`` unless the match is finished."""
        sm = await self.db.stored(mid, status="finished")
        table = self._table_of(sm) if sm is not None else None
        if sm is None or table is None or not table.finished:
            return None
        seat = audience_of(profile, [s.get("player_id") for s in sm.seats])
        snap = table.snapshot(seat, self.clock.now())
        return {**snap, "lobby": sm.lobby} if sm.lobby is not None else snap

    # -- commands --------------------------------------------------------------------------
    def _runner(self, mid: str) -> MatchRunner:
        runner = self.runners.get(mid)
        if runner is not None and runner.moved:
            raise LobbyError("match_moved")
        if runner is None or runner.broken:
            raise LobbyError("match_not_found")
        return runner

    async def command(
        self, conn: Conn, mid: str, cmd: p.MatchCommand, ref: str | None, resends: int = 0
    ) -> None:
        """A seat's command (move, back, leave) from ``conn``; in a cluster, a match another
        node owns gets it through that node's channel (its answers come back the same way;
        ``resends``: how often it was sent again after an owner lost the match)."""
        if await self._forward("command", conn, mid, resends, cmd=cmd, ref=ref):
            return
        runner = self._runner(mid)
        seat = runner.seat_of(conn.profile)
        if seat is None:
            # A player who left the match hears so from the table (left_match), not that
            # they never sat there.
            seat = next((i for i in runner.left if runner.players[i] == conn.profile), None)
        if seat is None:
            raise LobbyError("not_seated")
        await runner.command(conn, seat, cmd.command(), ref)

    async def seat_connected(self, conn: Conn) -> None:
        """A profile's socket opened: its seat (if any) is there, with a snapshot first."""
        mid = self.seated.get(conn.profile)
        here = self.runners.get(mid) if mid else None
        if (here is None or here.moved) and self.reaches_nodes:
            # Seated in a match another node owns (or took over from this one): that node
            # marks the seat connected (presence) and sends this socket its snapshot.
            where = await self.seat_anywhere(conn.profile)
            try:
                owner = await self._owner(where.match) if where is not None else None
            except Exception:
                # Redis away: the match is served to this socket when a node takes it
                # over again (MatchRunner.announce).
                log.warning("reconnect to %s not routed (Redis)", where and where.match)
                return
            if where is not None and owner is not None:
                self._send_to(owner, "snapshot", conn, where.match)
                return
            # Nobody else drives it: this node may have taken it over just now (_owner).
            mid = self.seated.get(conn.profile)
            here = self.runners.get(mid) if mid else None
            if here is None or here.moved or where is None or where.match != mid:
                return
        runner = self.runners.get(mid) if mid else None
        seat = runner.seat_of(conn.profile) if runner else None
        if runner is None or seat is None:
            return
        # The seat is marked connected before this socket sees a snapshot: when the
        # table thought it away, marking it sends every audience a new snapshot (this
        # socket's included), which is then the first one it gets; else it asks for one.
        told = not runner.table.finished and not runner.table.seats[seat].connected
        try:
            await runner.sync_connected(seat)
        except PersistError:  # timers it fired were not stored: nothing was sent
            told = False
        if not told:
            runner.snapshot_for(conn)

    async def seat_gone(self, profile: str) -> None:
        """A profile's last socket closed; its seat stays, its clock runs (RULES.md §10)."""
        mid = self.seated.get(profile)
        runner = self.runners.get(mid) if mid else None
        if runner is not None:
            seat = runner.seat_of(profile)
            if seat is not None:
                await runner.sync_connected(seat)

    def seat_ref(self, profile: str) -> p.SeatRef | None:
        """Where ``profile`` plays now, for the welcome."""
        mid = self.seated.get(profile)
        runner = self.runners.get(mid) if mid else None
        seat = runner.seat_of(profile) if runner else None
        return p.SeatRef(match=mid, seat=seat) if mid and seat is not None else None

    async def left_match(self, runner: MatchRunner, seat: int) -> None:
        """A player left a match for good (after the entry is stored and sent)."""
        pid = runner.players[seat]
        if pid is not None and self.seated.get(pid) == runner.id:
            del self.seated[pid]
        if pid is not None:
            await self._unpublish_seats(runner, [pid])

    # -- the end ---------------------------------------------------------------------------
    async def finish_match(self, runner: MatchRunner) -> None:
        """A restored log that already ends: its owner died (or the process stopped)
        after the end was stored in the log, perhaps after its result too, but before
        everyone was told. Store what is missing (nothing twice), tell every audience
        the end as the owner would have (the final ``state``, then each player's
        profile), and do the rest of the bookkeeping. A socket that heard the end
        already hears it again, at the same version (the client takes it as it is)."""
        await self.store_finish(runner)
        runner.announce_end()
        await self.after_finish(runner)
        runner.gone = True

    async def store_finish(self, runner: MatchRunner) -> None:
        """Store XP, stats, record and result of a finished match."""
        table = runner.table
        now = self.clock.now()
        snap = table.snapshot(None, now)
        xp = table.xp or [None] * len(table.seats)
        place_of = {}
        for s in snap.get("standings", []):
            for seat in s["seats"]:
                place_of[seat] = s["place"]
        players: list[dict[str, Any]] = []
        for seat, pid in enumerate(runner.players):
            if pid is None:
                continue
            finished = not table.seats[seat].left
            place = place_of.get(seat)
            players.append(
                {
                    "seat": seat,
                    "profile_id": pid,
                    "place": place,
                    "xp": int(xp[seat] or 0) if finished else 0,
                    "won": finished and place == 1,
                    "finished": finished,
                }
            )
        result = {
            "reason": table.finished_reason,
            "standings": snap.get("standings"),
            "xp": xp,
            "names": runner.names(),
        }
        # (False: stored before, by an owner that died before it announced the end.)
        await self.db.end_match(runner.id, now, result, record_of(table), players)
        runner.finished_players = [pl["profile_id"] for pl in players]
        for pl in players:
            if self.seated.get(pl["profile_id"]) == runner.id:
                del self.seated[pl["profile_id"]]

    async def after_finish(self, runner: MatchRunner) -> None:
        """Tell the players their new profile, open the lobby again, and mark the match
        finished: its end has been announced (until then a node that takes it over
        announces it)."""
        table = runner.table
        rows = await self.db.profiles(runner.finished_players)
        for pid, row in rows.items():
            # Each player's own channel: only that person's sockets, on every node.
            self.router.to_player(pid, p.ProfileMsg(profile=profile_out(row)))
        await self._lobby_free(
            runner,
            {runner.players[i] for i in range(len(table.seats)) if table.seats[i].left} - {None},
        )
        try:
            await self.db.close_match(runner.id)
        except Exception:
            # Left running: whoever resumes or takes it over next announces the end again.
            log.warning("match %s: not marked finished", runner.id, exc_info=True)
        # Only now is the match gone (Service.settle counts it busy until here).
        self.runners.pop(runner.id, None)
        log.info(
            "match %s finished",
            runner.id,
            extra={"event": "match_finished", "match": runner.id, "reason": table.finished_reason},
        )
        if self.leases is not None:
            await self._unpublish_seats(runner, [pid for pid in runner.players if pid])
            with contextlib.suppress(Exception):  # Redis away: the lease simply expires
                await self.leases.release(runner.id)
        for c in self.router.forget_match(runner.id):
            c.watching.discard(runner.id)
        await self._activity()


class RemoteConn:
    """A socket on another node, as a runner sees it: who speaks, and where answers go
    (the router's reply to that one socket)."""

    __slots__ = ("id", "node", "profile", "router", "watching")

    def __init__(self, router: Any, node: str, conn_id: int, profile: str) -> None:
        self.router = router
        self.node = node
        self.id = conn_id
        self.profile = profile
        self.watching: set[str] = set()

    def send(self, msg: Any) -> None:
        """Answer the socket (an error, a snapshot)."""
        body = msg.model_dump() if hasattr(msg, "model_dump") else msg
        self.router.reply(self.node, self.id, self.profile, body)


def record_of(table: Table) -> dict[str, Any]:
    """The game record of a finished match (``domino.rules.record``, docs/records.md).

    Should the engine refuse to write one, the table's own log with its rules,
    seats and seed is stored instead: it replays the match just as well, and is
    never shown (``domino.rules.audience.public_record``).
    """
    try:
        if table.match is not None:
            return rules_record_of(table.match, seats=[s.spec for s in table.seats])
    except RulesError:
        log.exception("match %s: no record; storing the table log", table.match_id)
    return {
        "format": "domino-table-log",
        "version": 1,
        "match": table.match_id,
        "rules": table.rules.to_dict(),
        "seats": [s.spec.to_dict() for s in table.seats],
        "seed": table.seed,
        "log": table.log,
    }
