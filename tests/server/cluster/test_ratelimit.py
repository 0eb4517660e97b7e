"""The rate limits (cluster/ratelimit.py): the same answers in memory and in a real Redis
(DOMINO_TEST_REDIS), one budget for two nodes in Redis, and the node-local fallback
while Redis is away."""

from __future__ import annotations

import asyncio
import doctest
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from domino.server.cluster import ratelimit
from domino.server.cluster.ratelimit import Budget, Limits, LocalLimits, RedisLimits, Refused
from domino.server.desks.talktext import CHAT_LIMITS, REACTION_LIMITS

from ..redis_keys import NO_REDIS, REDIS_ADMIN, redis_url

CHAT = Budget("chat", CHAT_LIMITS)
REACTION = Budget("reaction", REACTION_LIMITS)
ONCE = Budget("once", ((30.0, 1),))  # as an invitee's: one per 30 s
BURST = Budget("burst", ((60.0, 5),))  # as a sender's invitations: five a minute
T0 = 1_764_892_800.25  # a wall-clock time (the Redis scores are such times)


@pytest.fixture
async def redis() -> AsyncIterator[object]:
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    r = aioredis.from_url(redis_url(), decode_responses=True)
    yield r
    await r.aclose()


#: Builds the limits to test from a Redis client and a key prefix.
Make = Callable[[object, str], Limits]
KINDS: dict[str, Make] = {
    "local": lambda _r, _p: LocalLimits(),
    "redis": lambda r, p: RedisLimits(r, prefix=p),
}


@pytest.fixture(params=sorted(KINDS))
def make(request: pytest.FixtureRequest, redis: object, redis_prefix: str) -> Callable[[], Limits]:
    kind = KINDS[request.param]
    return lambda: kind(redis, redis_prefix)


async def test_reactions_one_per_two_seconds_and_ten_a_minute(make: Callable[[], Limits]) -> None:
    limits = make()
    assert await limits.take(T0, (REACTION, "a")) is None
    assert await limits.take(T0 + 1, (REACTION, "a")) == Refused(0, 1.0)  # nothing recorded
    assert await limits.take(T0 + 1, (REACTION, "b")) is None  # another sender's budget
    for i in range(1, 10):
        assert await limits.take(T0 + 2.0 * i, (REACTION, "a")) is None  # ten in 18 s
    # The first of the ten leaves the minute at 60 s.
    assert await limits.take(T0 + 20, (REACTION, "a")) == Refused(0, 40.0)
    assert await limits.take(T0 + 60, (REACTION, "a")) is None


async def test_chat_five_in_ten_seconds_and_twenty_a_minute(make: Callable[[], Limits]) -> None:
    limits = make()
    got = [await limits.take(T0, (CHAT, "a")) for _ in range(6)]  # one instant, six events
    assert got == [None] * 5 + [Refused(0, 10.0)]
    sent, now = 5, T0
    while sent < 20:
        now += 2.0
        if await limits.take(now, (CHAT, "a")) is None:
            sent += 1
    refused = await limits.take(now + 2.0, (CHAT, "a"))
    assert refused is not None and refused.wait > 0  # the minute's twenty are spent
    assert await limits.take(T0 + 60.0 + 1e-6, (CHAT, "a")) is None


async def test_several_budgets_are_spent_together_or_not_at_all(
    make: Callable[[], Limits],
) -> None:
    limits = make()
    for i in range(5):
        assert await limits.take(T0, (ONCE, f"anna>p{i}"), (BURST, "anna")) is None
    # The invitee's budget first: p0 again is refused by it.
    assert await limits.take(T0 + 1, (ONCE, "anna>p0"), (BURST, "anna")) == Refused(0, 29.0)
    # A new invitee passes the first, the burst refuses: the first is not spent either.
    assert await limits.take(T0 + 1, (ONCE, "anna>p5"), (BURST, "anna")) == Refused(1, 59.0)
    assert await limits.take(T0 + 1, (ONCE, "anna>p5")) is None
    assert await limits.take(T0 + 1, (BURST, "ben")) is None  # another sender's


async def test_two_nodes_share_the_budget_in_redis(redis: object, redis_prefix: str) -> None:
    a, b = RedisLimits(redis, prefix=redis_prefix), RedisLimits(redis, prefix=redis_prefix)
    for i in range(5):
        assert await (a, b)[i % 2].take(T0 + i, (CHAT, "dora")) is None
    assert await b.take(T0 + 5, (CHAT, "dora")) == Refused(0, 5.0)
    assert await a.take(T0 + 5, (CHAT, "dora")) == Refused(0, 5.0)
    # In memory, each node has its own (what the single process keeps).
    here, there = LocalLimits(), LocalLimits()
    for i in range(5):
        assert await here.take(T0 + i, (CHAT, "dora")) is None
    assert await there.take(T0 + 5, (CHAT, "dora")) is None


async def test_the_keys_are_under_the_prefix_and_expire_after_the_longest_window(
    redis: object, redis_prefix: str
) -> None:
    limits = RedisLimits(redis, prefix=redis_prefix)
    assert await limits.take(T0, (CHAT, "dora"), (ONCE, "dora>ben")) is None
    keys = sorted(await redis.keys(f"{redis_prefix}*"))  # type: ignore[attr-defined]
    assert keys == [f"{redis_prefix}rate:chat:dora", f"{redis_prefix}rate:once:dora>ben"]
    assert 59_000 < await redis.pttl(keys[0]) <= 60_000  # type: ignore[attr-defined]
    assert 29_000 < await redis.pttl(keys[1]) <= 30_000  # type: ignore[attr-defined]
    # Old events are trimmed when the key is used again (the set stays small).
    for i in range(1, 30):
        await limits.take(T0 + 100.0 * i, (CHAT, "dora"))
    assert await redis.zcard(keys[0]) == 1  # type: ignore[attr-defined]


async def _away_redis(
    handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]] | None,
) -> tuple[object, Callable[[], Awaitable[None]]]:
    """A Redis client whose server is away: nothing listens on its port (``handler``
    ``None``), or a server that takes the connection and never answers."""
    import redis.asyncio as aioredis

    server = None
    if handler is None:
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    else:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
    client = aioredis.from_url(f"redis://127.0.0.1:{port}/0")

    async def close() -> None:
        await client.aclose()
        if server is not None:
            server.close()

    return client, close


async def _silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read()  # reads until the client hangs up; answers nothing
    writer.close()


@pytest.mark.parametrize("server", [None, _silent], ids=["refused", "silent"])
async def test_redis_away_falls_back_to_the_node_local_limits_and_says_so(
    server: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]] | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, close = await _away_redis(server)
    try:
        limits = RedisLimits(client, prefix="nowhere:")
        limits.timeout = 0.2  # the silent server: each take waits this long, not forever
        with caplog.at_level(logging.WARNING, logger="domino.ratelimit"):
            async with asyncio.timeout(10):  # (a bound on a take that would hang)
                assert await limits.take(T0, (REACTION, "a")) is None
        assert [r.message for r in caplog.records if "node-local" in r.message]
        assert limits.away_until == T0 + limits.retry
        # Within the retry time Redis is not asked: the node's own budget answers.
        limits._script = None  # (asking it would fail differently)
        assert await limits.take(T0 + 1, (REACTION, "a")) == Refused(0, 1.0)
    finally:
        await close()


async def test_redis_back_after_an_outage_shares_the_budget_again(
    redis: object, redis_prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    limits = RedisLimits(redis, prefix=redis_prefix)
    limits.away_until = T0 + 5  # (an outage that began at T0)
    assert await limits.take(T0, (REACTION, "a")) is None  # node-local
    with caplog.at_level(logging.INFO, logger="domino.ratelimit"):
        assert await limits.take(T0 + 5, (REACTION, "a")) is None  # Redis again
    assert limits.away_until is None
    assert [r.message for r in caplog.records if "back" in r.message]
    other = RedisLimits(redis, prefix=redis_prefix)
    assert await other.take(T0 + 6, (REACTION, "a")) == Refused(0, 1.0)


def test_the_modules_examples() -> None:
    assert doctest.testmod(ratelimit).failed == 0
