"""Sliding-window rate limits: one process's in memory, or a cluster's in Redis.

A :class:`Budget` is a name and its windows (``(seconds, count)``: at most ``count``
events in any ``seconds``); a sender spends it under a key (their profile id, or a
sender and an invitee). :meth:`Limits.take` spends one event of each of several
budgets at once, or none of them: the first refused says how long to wait.

- :class:`LocalLimits` (the single process): in this process's memory.
- :class:`RedisLimits` (a node with ``--redis``): in Redis, so a sender's sockets on
  several nodes share one budget (per node, a flood would get through at N times the
  rate). Each key is a sorted set ``{prefix}rate:{budget}:{who}`` of event times (the
  injected clock's, passed in, never Redis's ``TIME``: tests move a fake clock, and
  the nodes' wall clocks are the time the rest of the site keeps too); one Lua
  script (:data:`TAKE`) trims, counts and adds atomically, and a key expires after
  its longest window.

Redis away (an error or no answer within :attr:`RedisLimits.timeout`): the node
falls back to a node-local :class:`LocalLimits` with a warning in the log, and tries
Redis again :attr:`RedisLimits.retry` seconds later. Not fail-open: talk and
invitations go on (nobody waits on Redis for long), and a flood is still held to
the per-node budget, which is what the site had before the budgets were shared.
What was spent during the outage is not carried into Redis afterwards.

>>> import asyncio
>>> limits = LocalLimits()
>>> two = Budget("demo", ((10.0, 2),))
>>> asyncio.run(limits.take(0.0, (two, "anna"))), asyncio.run(limits.take(1.0, (two, "anna")))
(None, None)
>>> asyncio.run(limits.take(2.0, (two, "anna")))
Refused(which=0, wait=8.0)
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from collections import deque
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

__all__ = ["TAKE", "Budget", "Limits", "LocalLimits", "RateLimit", "RedisLimits", "Refused"]

log = logging.getLogger("domino.ratelimit")

#: ``(seconds, count)`` pairs: at most ``count`` events in every ``seconds``.
Windows = tuple[tuple[float, int], ...]


class Budget(NamedTuple):
    """A kind of limit: its name (part of the Redis key) and its windows."""

    name: str
    windows: Windows


class Refused(NamedTuple):
    """A refusal: which of the budgets asked (its place in the call) and the seconds to wait."""

    which: int
    wait: float


class Limits(Protocol):
    """Where the budgets are kept (:class:`LocalLimits` or :class:`RedisLimits`)."""

    async def take(self, now: float, *spend: tuple[Budget, str]) -> Refused | None:
        """Record one event at ``now`` on each ``(budget, who)`` and return ``None``,
        or record nothing and return the first one refused."""
        ...


class RateLimit:
    """Per sender: at most ``count`` events in every ``seconds`` window, for each window
    of ``windows``. :meth:`take` records an event, or says how long to wait."""

    __slots__ = ("_last", "_longest", "_seen", "windows")

    def __init__(self, windows: Sequence[tuple[float, int]]) -> None:
        self.windows = tuple(windows)
        self._longest = max(s for s, _ in self.windows)
        self._seen: dict[str, deque[float]] = {}
        self._last = 0.0

    def take(self, who: str, now: float) -> float:
        """Record one event of ``who`` at ``now`` and return 0, or return the seconds
        until it would be allowed (nothing recorded)."""
        wait = self.wait(who, now)
        if wait == 0:
            self.add(who, now)
        return wait

    def wait(self, who: str, now: float) -> float:
        """The seconds until ``who`` may have an event at ``now`` (0: now); records nothing."""
        if now - self._last > self._longest:
            self._forget(now)
        seen = self._seen.get(who)
        if seen is None:
            return 0.0
        while seen and seen[0] <= now - self._longest:
            seen.popleft()
        wait = 0.0
        for seconds, count in self.windows:
            inside = [t for t in seen if t > now - seconds]
            if len(inside) >= count:
                wait = max(wait, inside[-count] + seconds - now)
        return wait

    def add(self, who: str, now: float) -> None:
        """Record an event of ``who`` at ``now`` (whatever :meth:`wait` says)."""
        self._seen.setdefault(who, deque()).append(now)

    def _forget(self, now: float) -> None:
        # Senders silent for the longest window hold nothing (bounded memory).
        self._last = now
        for who in [w for w, s in self._seen.items() if not s or s[-1] <= now - self._longest]:
            del self._seen[who]


class LocalLimits:
    """The budgets in this process's memory (one process, or a node whose Redis is away)."""

    def __init__(self) -> None:
        self._limits: dict[Budget, RateLimit] = {}

    def take_now(self, now: float, spend: Sequence[tuple[Budget, str]]) -> Refused | None:
        """:meth:`take`, synchronously."""
        limits = [(self._limit(b), who) for b, who in spend]
        for i, (limit, who) in enumerate(limits):
            wait = limit.wait(who, now)
            if wait > 0:
                return Refused(i, wait)
        for limit, who in limits:
            limit.add(who, now)
        return None

    async def take(self, now: float, *spend: tuple[Budget, str]) -> Refused | None:
        """See :meth:`Limits.take`."""
        return self.take_now(now, spend)

    def _limit(self, budget: Budget) -> RateLimit:
        limit = self._limits.get(budget)
        if limit is None:
            limit = self._limits[budget] = RateLimit(budget.windows)
        return limit


#: Spend one event at ARGV[1] (member ARGV[2]) on every key, or none. Per key ARGV
#: holds its number of windows, then each window's seconds and count. Returns
#: ``{0, "0"}`` when taken, else ``{index of the key refused (1-based), wait}``.
TAKE = """
local now = tonumber(ARGV[1])
local member = ARGV[2]
local at = 3
local longest = {}
for k = 1, #KEYS do
  local n = tonumber(ARGV[at])
  at = at + 1
  local windows = {}
  local long = 0
  for w = 1, n do
    local seconds, count = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
    at = at + 2
    windows[w] = {seconds, count}
    if seconds > long then long = seconds end
  end
  longest[k] = long
  redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', string.format('%.17g', now - long))
  local refused, wait = false, 0
  for _, win in ipairs(windows) do
    local seconds, count = win[1], win[2]
    local nth = redis.call('ZREVRANGEBYSCORE', KEYS[k], '+inf',
      string.format('(%.17g', now - seconds), 'WITHSCORES', 'LIMIT', count - 1, 1)
    if #nth > 0 then
      refused = true
      local w = tonumber(nth[2]) + seconds - now
      if w > wait then wait = w end
    end
  end
  if refused then
    return {k, string.format('%.17g', wait)}
  end
end
for k = 1, #KEYS do
  redis.call('ZADD', KEYS[k], ARGV[1], member)
  redis.call('PEXPIRE', KEYS[k], math.ceil(longest[k] * 1000))
end
return {0, '0'}
"""


class RedisLimits:
    """The budgets in Redis, shared by every node of the site (see the module's docstring).

    ``redis`` is a ``redis.asyncio.Redis``; ``prefix`` the node's key prefix
    (``Settings.redis_prefix``); ``fallback`` the node-local limits used while Redis is
    away.
    """

    #: Seconds a take waits for Redis before it counts as away.
    timeout = 0.5
    #: Seconds (by the ``now`` passed in) before an away Redis is asked again.
    retry = 5.0

    def __init__(
        self, redis: Any, *, prefix: str = "domino:", fallback: LocalLimits | None = None
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.fallback = fallback if fallback is not None else LocalLimits()
        self._script = redis.register_script(TAKE)
        # Members of the sorted sets are unique per event: this object's tag and a count.
        self._tag = secrets.token_hex(4)
        self._ids = itertools.count(1)
        #: Until when (``now``) Redis counts as away: the fallback is asked instead.
        self.away_until: float | None = None

    def key(self, budget: Budget, who: str) -> str:
        """The sorted set of ``who``'s events on ``budget``."""
        return f"{self.prefix}rate:{budget.name}:{who}"

    async def take(self, now: float, *spend: tuple[Budget, str]) -> Refused | None:
        """See :meth:`Limits.take`; node-local while Redis is away."""
        if self.away_until is not None and now < self.away_until:
            return self.fallback.take_now(now, spend)
        args: list[str] = [repr(float(now)), f"{self._tag}:{next(self._ids)}"]
        for budget, _ in spend:
            args.append(str(len(budget.windows)))
            for seconds, count in budget.windows:
                args += [repr(float(seconds)), str(int(count))]
        try:
            async with asyncio.timeout(self.timeout):
                index, wait = await self._script(
                    keys=[self.key(b, who) for b, who in spend], args=args
                )
        except Exception as exc:  # (an outage: the connection's errors, the timeout)
            if self.away_until is None:
                log.warning(
                    "rate limits: Redis away (%s); node-local limits for now",
                    type(exc).__name__ if isinstance(exc, TimeoutError) else exc,
                    extra={"event": "ratelimit_local"},
                )
            self.away_until = now + self.retry
            return self.fallback.take_now(now, spend)
        if self.away_until is not None:
            log.info("rate limits: Redis is back; shared limits again")
            self.away_until = None
        index = int(index)
        return None if index == 0 else Refused(index - 1, float(wait))
