"""Match leases in a real Redis (DOMINO_TEST_REDIS, e.g. redis://127.0.0.1:6379/0)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from domino.server.cluster.lease import Leases

from ..redis_keys import NO_REDIS, REDIS_ADMIN, redis_url


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
async def redis() -> AsyncIterator[object]:
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    r = aioredis.from_url(redis_url(), decode_responses=True)
    yield r
    await r.aclose()


async def test_one_holder_at_a_time_and_renewal_keeps_it(redis: object, redis_prefix: str) -> None:
    clock = Clock()
    a = Leases(redis, "node-a", ttl=30, prefix=redis_prefix, clock=clock)
    b = Leases(redis, "node-b", ttl=30, prefix=redis_prefix, clock=clock)
    assert await a.acquire("m1")
    assert not await b.acquire("m1")
    assert await a.acquire("m1")  # again: it is ours already
    assert await b.holder("m1") == "node-a"
    assert a.valid("m1") and not b.valid("m1")
    assert await a.renew() == set()
    # b cannot renew nor release what a holds.
    b.deadline["m1"] = clock() + 10
    assert await b.renew() == {"m1"} and "m1" not in b.held()
    assert not await b.release("m1")
    assert await a.holder("m1") == "node-a"
    assert await a.release("m1")
    assert await a.holder("m1") is None
    assert await b.acquire("m1")


async def test_an_expired_lease_goes_to_another_node_and_the_first_learns_it(
    redis: object, redis_prefix: str
) -> None:
    clock = Clock()
    a = Leases(redis, "node-a", ttl=0.2, margin=0.05, prefix=redis_prefix, clock=clock)
    b = Leases(redis, "node-b", ttl=30, prefix=redis_prefix, clock=clock)
    assert await a.acquire("m1")
    # a is paused past its lease and Redis let the key expire (as if: deleted) ...
    await redis.delete(a.key("m1"))  # type: ignore[attr-defined]
    assert await b.acquire("m1")
    # ... and a, waking, is told it lost the lease on its next renewal.
    assert await a.renew() == {"m1"}
    assert not a.valid("m1")
    assert await b.holder("m1") == "node-b"


async def test_the_local_deadline_stops_a_node_that_cannot_renew(
    redis: object, redis_prefix: str
) -> None:
    clock = Clock()
    a = Leases(redis, "node-a", ttl=3.0, margin=0.5, prefix=redis_prefix, clock=clock)
    assert await a.acquire("m1")
    clock.t += 2.4
    assert a.valid("m1")
    clock.t += 0.2  # 2.6 s: inside the margin before the lease's end
    assert not a.valid("m1")
    assert await a.renew() == set()  # Redis is there again: renewed, valid again
    assert a.valid("m1")


async def test_renewal_raises_when_redis_is_away_and_leaves_the_deadlines(
    redis_prefix: str,
) -> None:
    import redis.asyncio as aioredis
    from redis.exceptions import ConnectionError as RedisConnectionError

    clock = Clock()
    away = aioredis.from_url("redis://127.0.0.1:1/0", decode_responses=True)
    a = Leases(away, "node-a", ttl=3.0, prefix=redis_prefix, clock=clock)
    a.deadline["m1"] = clock() + 2.5
    with pytest.raises(RedisConnectionError):
        await a.renew()
    assert a.valid("m1")
    clock.t += 3
    assert not a.valid("m1")
    await away.aclose()


def test_the_margin_must_be_shorter_than_the_lease() -> None:
    with pytest.raises(ValueError):
        Leases(object(), "n", ttl=1.0, margin=1.0)


async def test_many_leases_are_renewed_in_a_few_script_calls_and_each_loss_is_told(
    redis: object, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from domino.server.cluster import lease

    clock = Clock()
    a = Leases(redis, "node-a", ttl=30, prefix=redis_prefix, clock=clock)
    b = Leases(redis, "node-b", ttl=30, prefix=redis_prefix, clock=clock)
    mids = [f"m{i}" for i in range(1200)]
    for m in mids:
        assert await a.acquire(m)
    # b took three of them over (a's keys gone, as after a pause) and one is free.
    for m in ("m7", "m600", "m1199"):
        await redis.delete(a.key(m))  # type: ignore[attr-defined]
        assert await b.acquire(m)
    await redis.delete(a.key("m42"))  # type: ignore[attr-defined]
    calls: list[int] = []
    many = a._renew_many

    async def counted(*args: object, **kw: object) -> object:
        calls.append(len(kw["keys"]))  # type: ignore[arg-type]
        return await many(*args, **kw)

    monkeypatch.setattr(a, "_renew_many", counted)
    clock.t += 5
    assert await a.renew() == {"m7", "m600", "m1199", "m42"}
    assert calls == [lease.RENEW_BATCH, lease.RENEW_BATCH, 200]
    assert set(a.held()) == set(mids) - {"m7", "m600", "m1199", "m42"}
    assert all(a.valid(m) for m in a.held())
    assert await a.holder("m600") == "node-b"
