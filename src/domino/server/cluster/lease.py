"""Who owns a match: leases with expiry in Redis (several nodes, docs/deploy.md).

A node may drive a match only while it holds the match's lease: the key
``{prefix}lease:{match}`` holds the node's name and expires after ``ttl``
seconds unless renewed. Taking one is ``SET key node NX PX ttl``; renewing
and releasing are scripts that act only if the key still names this node, so
a node can never extend or drop a lease another node has taken since.

A lease alone cannot keep a paused node from writing: it may wake after its
lease expired and another node took the match over. That is what the fencing
token is for (``Database.claim``: every append carries the token, and the
database refuses a stale one). The lease decides who *should* drive a match;
the fence makes sure only that node *can* write to it.

The node also keeps its own deadline per lease: the time of the last
successful renewal plus ``ttl`` minus a safety margin, on the local monotonic
clock. Past it (Redis unreachable, the process paused) :meth:`Leases.valid` is
false, and the node stops acting for that match even before Redis says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

#: Renew only if the key still names us; returns 1 when renewed.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

#: :data:`RENEW` for every key of ``KEYS`` in one call: a list of 1 (renewed) or 0.
RENEW_MANY = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    out[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    out[i] = 0
  end
end
return out
"""

#: Leases renewed per call of :data:`RENEW_MANY` (one script call instead of one per match).
RENEW_BATCH = 500

#: Delete only if the key still names us; returns 1 when released.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases:
    """This node's leases on matches, in one Redis.

    ``redis`` is a ``redis.asyncio.Redis`` (``decode_responses=True``); ``clock`` a
    monotonic clock in seconds (tests pass their own).
    """

    def __init__(
        self,
        redis: Any,
        node: str,
        *,
        ttl: float = 3.0,
        margin: float = 0.5,
        prefix: str = "domino:",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 <= margin < ttl:
            raise ValueError("the safety margin must be shorter than the lease")
        self.redis = redis
        self.node = node
        self.ttl = ttl
        self.margin = margin
        self.prefix = prefix
        self.clock = clock
        self.deadline: dict[str, float] = {}  # match -> until when we may act (local clock)
        self._renew = redis.register_script(RENEW)
        self._renew_many = redis.register_script(RENEW_MANY)
        self._release = redis.register_script(RELEASE)

    def key(self, match: str) -> str:
        """The Redis key of ``match``'s lease."""
        return f"{self.prefix}lease:{match}"

    @property
    def ttl_ms(self) -> int:
        return max(1, round(self.ttl * 1000))

    async def acquire(self, match: str) -> bool:
        """Take ``match``'s lease if nobody holds it (or we do already)."""
        started = self.clock()
        key = self.key(match)
        if await self.redis.set(key, self.node, nx=True, px=self.ttl_ms):
            self.deadline[match] = started + self.ttl - self.margin
            return True
        if await self._renew(keys=[key], args=[self.node, self.ttl_ms]) == 1:
            self.deadline[match] = started + self.ttl - self.margin
            return True
        return False

    async def renew(self, matches: Iterable[str] | None = None) -> set[str]:
        """Renew our leases (all, or ``matches``); returns the matches we lost.

        A lost lease is forgotten here; the caller stops acting for those matches.
        Raises what Redis raises when it cannot be reached: the leases then stay as
        they were, and :meth:`valid` turns false once their deadlines pass.
        """
        wanted = list(self.deadline if matches is None else matches)
        if not wanted:
            return set()
        started = self.clock()
        # One script call per RENEW_BATCH leases, all in one round trip (closed on the way
        # out also when Redis is away: no unclosed pipeline is left).
        async with self.redis.pipeline(transaction=False) as pipe:
            for i in range(0, len(wanted), RENEW_BATCH):
                keys = [self.key(m) for m in wanted[i : i + RENEW_BATCH]]
                await self._renew_many(keys=keys, args=[self.node, self.ttl_ms], client=pipe)
            results = [int(r) for part in await pipe.execute() for r in part]
        lost = set()
        for m, ok in zip(wanted, results, strict=True):
            if ok == 1:
                self.deadline[m] = started + self.ttl - self.margin
            else:
                lost.add(m)
                self.deadline.pop(m, None)
        return lost

    def valid(self, match: str) -> bool:
        """Whether we may still act for ``match`` by our own clock."""
        until = self.deadline.get(match)
        return until is not None and self.clock() < until

    def expired(self, match: str) -> bool:
        """Whether our own clock says a lease we hold on ``match`` ran out (a node that
        was paused); ``False`` for a match we never held or gave up."""
        until = self.deadline.get(match)
        return until is not None and self.clock() >= until

    async def release(self, match: str) -> bool:
        """Give ``match`` up (a finished match, a handover); ``True`` if we held it."""
        self.deadline.pop(match, None)
        return bool(await self._release(keys=[self.key(match)], args=[self.node]) == 1)

    async def holder(self, match: str) -> str | None:
        """The node that holds ``match``'s lease now, if any."""
        value = await self.redis.get(self.key(match))
        return None if value is None else str(value)

    async def holders(self, matches: list[str]) -> list[str | None]:
        """The holder of each of ``matches`` (``None``: free), in one round trip."""
        if not matches:
            return []
        values = await self.redis.mget([self.key(m) for m in matches])
        return [None if v is None else str(v) for v in values]

    def held(self) -> list[str]:
        """The matches we believe we hold (valid or not yet renewed)."""
        return list(self.deadline)


__all__ = ["Leases"]
