"""A node's :class:`~domino.server.cluster.ownership.Ownership` in a cluster: leases.

A node drives a match only while it holds the match's lease
(:class:`~domino.server.cluster.lease.Leases`): it takes the lease when it creates a
match, renews its leases every third of their time, stops acting for a match whose
lease it lost (or could not renew in time), and its sweeper takes over every running
match whose lease nobody holds — a dead or paused node's, or one handed over on
shutdown: lease, then claim (a new fencing token), then the stored log, in that order,
so nothing the old owner stored before the claim is missed and nothing it tries after
can be stored.

Where each player sits is published in the cluster's seat map (``{prefix}seats``:
profile -> "match seat"), so a node welcomes a socket whose match runs elsewhere.
Commands for a match another node drives go there (:mod:`~domino.server.cluster.forwarder`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence

from domino.server import protocol as p
from domino.server.cluster.forwarder import Forwarder
from domino.server.cluster.lease import Leases
from domino.server.cluster.redisrouter import RedisRouter
from domino.server.desks.matches import MatchRunner, PersistError
from domino.server.protocol import node as n
from domino.server.storage.db import Database

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

#: How long a command on a draining node waits for the node that takes its match.
HAND_OVER_ROUTE_WAIT = 5.0


class LeasedOwnership(Forwarder):
    """Leases, takeover, sweep, hand-over and the seat map of one node."""

    def __init__(
        self,
        db: Database,
        router: RedisRouter,
        leases: Leases,
        *,
        sweep_every: float,
        clock: Callable[[], float],
        takeover: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(router, leases, clock)
        self.db = db
        self.sweep_every = sweep_every
        self._takeover = takeover or (lambda: None)
        self._unseat = leases.redis.register_script(UNSEAT)
        self._seats_key = f"{leases.prefix}seats"
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def shared(self) -> bool:
        return True

    # -- life ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Hear the other nodes; start the lease keeper and the sweeper, which takes
        matches one by one."""
        leases = self.leases
        self.router.owns = lambda mid: not leases.expired(mid)
        self.router.on_node_message(self._on_node_message)
        self.router.on_presence(self._on_presence)
        self.router.on_back(self._on_router_back)
        self._tasks = [
            asyncio.create_task(self._keep_leases(), name="leases"),
            asyncio.create_task(self._sweep_every(), name="sweeper"),
        ]

    async def stop(self) -> None:
        for task in [*self._tasks, *self._remote_tasks]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._remote_tasks, return_exceptions=True)
        self._tasks = []

    async def acquire(self, mid: str) -> bool:
        return await self.leases.acquire(mid)

    async def release(self, mid: str) -> None:
        with contextlib.suppress(Exception):  # Redis away: the lease simply expires
            await self.leases.release(mid)

    def let_go(self, mid: str) -> None:
        # What it queued for Redis is older than the next owner's.
        self.router.forget_frames(mid)

    # -- who drives a match -------------------------------------------------------------------
    async def owner(self, mid: str) -> str | None:
        """The node that holds ``mid``'s lease, if another node does.

        When nobody holds it (its owner stopped and gave it up, or died and the lease
        expired, and no sweeper has taken it yet), this node takes a running match over
        at once: a command, a ``watch`` or a reconnect in that moment is served rather
        than refused with ``match_not_found``.
        """
        holder = await self.leases.holder(mid)
        here = self.desk.runners.get(mid)
        if holder == self.node and (here is None or here.moved) and self._taking.locked():
            async with self._taking:  # our takeover of it is under way: let it finish
                pass
        if holder is None and not self.draining:
            row = await self.db.match(mid)
            if row is not None and row["status"] == "running":
                await self.take(mid)
                here = self.desk.runners.get(mid)
                if here is not None and not here.moved:
                    return None
                holder = await self.leases.holder(mid)  # another node was quicker
        if self.draining and holder in (None, self.node):
            # This node is handing its matches over (SIGTERM): wait (bounded) for the
            # node that takes this one, so a command in that moment goes there instead
            # of being refused with match_moved.
            runner = self.desk.runners.get(mid)
            if runner is not None and runner.moved:  # one of the matches it gave away
                wait = min(HAND_OVER_ROUTE_WAIT, self.leases.ttl + 2 * self.sweep_every)
                deadline = time.monotonic() + wait
                while holder in (None, self.node) and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                    holder = await self.leases.holder(mid)
        return holder if holder != self.node else None

    # -- the seat map --------------------------------------------------------------------------
    async def seats_taken(self, runner: MatchRunner) -> None:
        """Tell every node where this match's players sit (their welcome names it)."""
        mapping = {
            pid: f"{runner.id} {i}"
            for i, pid in enumerate(runner.players)
            if pid is not None and i not in runner.left
        }
        if mapping:
            with contextlib.suppress(Exception):  # Redis away: only other nodes' welcomes
                await self.leases.redis.hset(self._seats_key, mapping=mapping)

    async def seats_left(self, runner: MatchRunner, pids: list[str]) -> None:
        """Forget where ``pids`` sit in ``runner``'s match, in one step (:data:`UNSEAT`): a
        seat a node has published for them in another match since stays."""
        if not pids:
            return
        with contextlib.suppress(Exception):  # Redis away: as for seats_taken
            await self._unseat(keys=[self._seats_key], args=[runner.id, *pids])

    async def seat_elsewhere(self, profile: str) -> p.SeatRef | None:
        try:
            value = await self.leases.redis.hget(self._seats_key, profile)
        except Exception:
            return None
        if value is None:
            return None
        mid, _, seat = str(value).partition(" ")
        return p.SeatRef(match=mid, seat=int(seat)) if seat.isdigit() else None

    async def seated_elsewhere(self, profiles: Sequence[str]) -> set[str]:
        try:
            return set(await self._seats_of(list(profiles)))
        except Exception:  # Redis away: as seat_elsewhere, nobody is seated elsewhere
            return set()

    async def _seats_of(self, profiles: list[str]) -> dict[str, str]:
        """profile -> the match it sits in, for those of ``profiles`` seated anywhere."""
        found: dict[str, str] = {}
        for i in range(0, len(profiles), 1000):
            chunk = profiles[i : i + 1000]
            seats = await self.leases.redis.hmget(self._seats_key, chunk)
            for pid, value in zip(chunk, seats, strict=True):
                if value is not None:
                    found[pid] = str(value).partition(" ")[0]
        return found

    # -- taking matches over ---------------------------------------------------------------------
    async def take(self, mid: str) -> bool:
        """Take over a running match nobody holds: its lease, a new fence, its log."""
        async with self._taking:
            return await self._take(mid)

    async def _take(self, mid: str) -> bool:
        old = self.desk.runners.get(mid)
        if old is not None and not old.moved:
            return False  # ours already
        if not await self.leases.acquire(mid):
            return False
        self.router.keep_frames(mid)  # ours again (it may have been before): frames go out
        try:
            fence = await self.db.claim(mid, self.node)
            # Every claim raises the stored fence, whatever follows (the tests count them).
            log.info(
                "match %s claimed",
                mid,
                extra={"event": "match_claimed", "match": mid, "fence": fence},
            )
            sm = await self.db.stored(mid)
        except KeyError:
            sm = None
        if sm is None:  # finished meanwhile
            await self.leases.release(mid)
            return False
        if old is not None:
            await old.stop()
        runner = await self.desk.restore(sm, fence)
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
        if self.draining:
            return []
        runners = self.desk.runners
        ids = [
            mid for mid in await self.db.running_ids() if mid not in runners or runners[mid].moved
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
        mids = [m for m, r in self.desk.runners.items() if not r.moved and not r.gone]
        for mid in mids:
            self.desk.abandon(mid, why="handed over")
            await self.release(mid)
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

    async def _keep_leases(self) -> None:
        leases = self.leases
        while True:
            await asyncio.sleep(leases.ttl / 3)
            mine = [m for m, r in self.desk.runners.items() if not r.moved and not r.gone]
            try:
                lost = await leases.renew(mine)
            except Exception:
                log.warning("leases not renewed (Redis)", extra={"event": "lease_renew_failed"})
                lost = {m for m in mine if not leases.valid(m)}
            for mid in lost:
                self.desk.abandon(mid)

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
            await asyncio.sleep(max(0.0, self.sweep_every - (time.monotonic() - started)))

    # -- what other nodes hear of this one --------------------------------------------------------
    def watch_elsewhere(self, profile: str, mid: str, lobby: str) -> None:
        # The watchers' sockets on other nodes: those nodes subscribe them.
        for other in self.router.nodes_of(profile) - {self.node}:
            self.router.send_to_node(other, n.WatchLobby(match=mid, lobby=lobby, profile=profile))

    async def rename_elsewhere(self, profile: str, name: str, mid: str) -> bool:
        owner = await self.owner(mid)
        if owner is None:
            return False
        self.router.send_to_node(owner, n.RenameSeat(match=mid, profile=profile, name=name))
        return True

    def tell_renamed(self, profile: str, name: str) -> None:
        for other in self.router.nodes_of(profile) - {self.node}:
            self.router.send_to_node(other, n.Renamed(profile=profile, name=name))

    async def spectators(self, mid: str) -> int:
        return await self.router.spectator_count(mid)


__all__ = ["HAND_OVER_ROUTE_WAIT", "UNSEAT", "LeasedOwnership"]
